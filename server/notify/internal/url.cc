#include "server/notify/internal/url.h"

#include <arpa/inet.h>

#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace bbo::notify::internal {
namespace {

absl::Status Invalid(absl::string_view why) { return absl::InvalidArgumentError(std::string(why)); }

// Bytes that no URL of ours carries: whitespace and controls (header and log injection), non-ASCII
// (an internationalized name must come punycoded) and '\' (which URL parsers read differently).
absl::Status CheckBytes(absl::string_view url) {
  for (unsigned char c : url) {
    if (c <= 0x20 || c == 0x7f) return Invalid("contains whitespace or a control character");
    if (c >= 0x80) return Invalid("contains a non-ASCII byte (write the host in punycode)");
    if (c == '\\') return Invalid("contains a backslash");
  }
  return absl::OkStatus();
}

bool ValidScheme(absl::string_view scheme) {
  if (scheme.empty() || !absl::ascii_isalpha(scheme[0])) return false;
  for (char c : scheme) {
    if (!absl::ascii_isalnum(c) && c != '+' && c != '-' && c != '.') return false;
  }
  return true;
}

// A registered name or dotted quad: letters, digits, '-', '.', '_'. Percent-encoded or
// sub-delimiter hosts are legal URL syntax but nothing a team needs, so they are refused.
bool ValidName(absl::string_view host) {
  for (char c : host) {
    if (!absl::ascii_isalnum(c) && c != '-' && c != '.' && c != '_') return false;
  }
  return true;
}

bool ValidIpv6(absl::string_view host) {
  unsigned char buf[16];
  return inet_pton(AF_INET6, std::string(host).c_str(), buf) == 1;
}

absl::StatusOr<int> ParsePort(absl::string_view text) {
  int port = 0;
  if (text.empty() || text.size() > 5 || !absl::SimpleAtoi(text, &port) || port < 1 ||
      port > 65535 || !absl::ascii_isdigit(text[0])) {
    return Invalid(absl::StrCat("bad port '", text, "' (want 1..65535)"));
  }
  return port;
}

// host[:port] or [v6][:port] into `parts`.
absl::Status ParseAuthority(absl::string_view authority, UrlParts& parts) {
  if (absl::StrContains(authority, '@')) return Invalid("has userinfo ('user@host')");
  absl::string_view host = authority;
  absl::string_view port;
  if (absl::StartsWith(authority, "[")) {
    const size_t close = authority.find(']');
    if (close == absl::string_view::npos) return Invalid("unclosed '[' in the host");
    host = authority.substr(1, close - 1);
    absl::string_view after = authority.substr(close + 1);
    if (!after.empty() && after[0] != ':') return Invalid("junk after the IPv6 host");
    if (!after.empty()) port = after.substr(1);
    if (!after.empty() && port.empty()) return Invalid("empty port");
    if (!ValidIpv6(host)) return Invalid("bad IPv6 address in the host");
  } else {
    const size_t colon = authority.find(':');
    if (colon != absl::string_view::npos) {
      host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
      if (port.empty()) return Invalid("empty port");
    }
    if (!ValidName(host)) return Invalid("the host has characters other than [A-Za-z0-9._-]");
  }
  if (host.empty()) return Invalid("no host");
  parts.host = absl::AsciiStrToLower(host);
  if (!port.empty()) {
    absl::StatusOr<int> p = ParsePort(port);
    if (!p.ok()) return p.status();
    parts.port = *p;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<UrlParts> ParseUrl(absl::string_view url) {
  if (url.size() > kMaxUrlBytes) {
    return Invalid(absl::StrCat("longer than ", kMaxUrlBytes, " bytes"));
  }
  if (absl::Status s = CheckBytes(url); !s.ok()) return s;
  const size_t sep = url.find("://");
  if (sep == absl::string_view::npos || !ValidScheme(url.substr(0, sep))) {
    return Invalid("does not start with 'scheme://'");
  }
  UrlParts parts;
  parts.scheme = absl::AsciiStrToLower(url.substr(0, sep));
  absl::string_view rest = url.substr(sep + 3);
  const absl::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (absl::Status s = ParseAuthority(authority, parts); !s.ok()) return s;
  return parts;
}

bool IsLoopbackHost(absl::string_view host) {
  if (absl::EndsWith(host, ".")) host.remove_suffix(1);
  const std::string lower = absl::AsciiStrToLower(host);
  if (lower == "localhost") return true;
  unsigned char v4[4];
  if (inet_pton(AF_INET, lower.c_str(), v4) == 1) return v4[0] == 127;
  unsigned char v6[16];
  if (inet_pton(AF_INET6, lower.c_str(), v6) == 1) {
    static const unsigned char kLoopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return std::equal(v6, v6 + 16, kLoopback);
  }
  return false;
}

}  // namespace bbo::notify::internal
