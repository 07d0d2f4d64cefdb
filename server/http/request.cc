// Request accessors and the pure rules of the server (server/http/http_server.h): query
// parameters, Host names, the client behind a trusted proxy.

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "server/http/http_server.h"

namespace bbo::http {
namespace {

template <typename Pairs>
const std::string* Find(const Pairs& pairs, absl::string_view key) {
  for (const auto& [k, v] : pairs) {
    if (k == key) return &v;
  }
  return nullptr;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string Decode(absl::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%' && i + 2 < in.size() && HexDigit(in[i + 1]) >= 0 &&
               HexDigit(in[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexDigit(in[i + 1]) * 16 + HexDigit(in[i + 2])));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// The name of a Host value without its port: "example.org:8080" -> "example.org",
// "[::1]:80" -> "[::1]", "[::1]" -> "[::1]".
absl::string_view HostName(absl::string_view host) {
  if (absl::StartsWith(host, "[")) {
    const size_t end = host.find(']');
    return end == absl::string_view::npos ? host : host.substr(0, end + 1);
  }
  const size_t colon = host.find(':');
  return colon == absl::string_view::npos ? host : host.substr(0, colon);
}

}  // namespace

std::string Request::Header(absl::string_view name) const {
  const std::string* v = Find(headers, name);
  return v == nullptr ? std::string() : *v;
}

bool Request::HasHeader(absl::string_view name) const { return Find(headers, name) != nullptr; }

std::string Request::Param(absl::string_view key) const {
  const std::string* v = Find(query, key);
  return v == nullptr ? std::string() : *v;
}

bool Request::HasParam(absl::string_view key) const { return Find(query, key) != nullptr; }

std::vector<std::pair<std::string, std::string>> ParseQuery(absl::string_view query) {
  std::vector<std::pair<std::string, std::string>> out;
  for (absl::string_view part : absl::StrSplit(query, '&', absl::SkipEmpty())) {
    const size_t eq = part.find('=');
    if (eq == absl::string_view::npos) {
      out.emplace_back(Decode(part), "");
    } else {
      out.emplace_back(Decode(part.substr(0, eq)), Decode(part.substr(eq + 1)));
    }
  }
  return out;
}

// An IP address literal ("192.0.2.1", "[2001:db8::1]"): a page that DNS rebinding brought to
// this server has a name in its Host, never an address.
static bool IpLiteral(absl::string_view name) {
  unsigned char buf[sizeof(in6_addr)];
  if (name.size() > 2 && name.front() == '[' && name.back() == ']') {
    const std::string inner(name.substr(1, name.size() - 2));
    return inet_pton(AF_INET6, inner.c_str(), buf) == 1;
  }
  return inet_pton(AF_INET, std::string(name).c_str(), buf) == 1;
}

bool HostAllowed(absl::string_view host, const std::vector<std::string>& allowed) {
  if (allowed.empty()) return true;
  host = absl::StripAsciiWhitespace(host);
  const absl::string_view name = HostName(host);
  if (name.empty()) return false;
  if (IpLiteral(name)) return true;
  for (const std::string& a : allowed) {
    if (absl::EqualsIgnoreCase(a, host) || absl::EqualsIgnoreCase(HostName(a), name)) {
      // A name given with a port matches only that port.
      if (HostName(a).size() != a.size() && !absl::EqualsIgnoreCase(a, host)) continue;
      return true;
    }
  }
  return false;
}

std::string ClientAddress(absl::string_view peer, absl::string_view forwarded_for,
                          const std::vector<std::string>& trusted_proxies) {
  auto trusted = [&](absl::string_view a) {
    return std::find(trusted_proxies.begin(), trusted_proxies.end(), a) != trusted_proxies.end();
  };
  if (!trusted(peer) || forwarded_for.empty()) return std::string(peer);
  std::vector<absl::string_view> hops = absl::StrSplit(forwarded_for, ',');
  // Rightmost first: each proxy appends the address it saw; the first one that is not a
  // trusted proxy is the client (anything to its left was written by the client itself).
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) {
    const absl::string_view hop = absl::StripAsciiWhitespace(*it);
    if (hop.empty() || hop.size() > 64) break;
    if (!trusted(hop)) return std::string(hop);
  }
  return std::string(peer);
}

}  // namespace bbo::http
