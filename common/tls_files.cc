#include "common/tls_files.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/strings/string_view.h"
#include "common/status_macros.h"

namespace bbo {

absl::StatusOr<std::string> ReadPemFile(const PemFileArg& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file.path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat(file.flag, ": ", file.path, " is a folder, not a PEM file"));
  }
  std::ifstream in(file.path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat(file.flag, ": cannot read ", file.path, ": ", std::strerror(errno)));
  }
  std::stringstream contents;
  contents << in.rdbuf();
  if (in.bad()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file.flag, ": cannot read ", file.path, ": ", std::strerror(errno)));
  }
  std::string pem = contents.str();
  if (pem.find("-----BEGIN ") == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(file.flag, ": ", file.path,
                     pem.empty() ? " is empty" : " is not a PEM file (no -----BEGIN line)",
                     "; it must hold a PEM certificate or key"));
  }
  return pem;
}

absl::StatusOr<ClientTls> ReadClientTls(const PemFileArg& ca, const PemFileArg& cert,
                                        const PemFileArg& key) {
  if (cert.path.empty() != key.path.empty()) {
    const PemFileArg& given = cert.path.empty() ? key : cert;
    const PemFileArg& missing = cert.path.empty() ? cert : key;
    return absl::InvalidArgumentError(
        absl::StrCat(given.flag, " needs ", missing.flag,
                     ": a client certificate and its private key are given together"));
  }
  if (!cert.path.empty() && ca.path.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        cert.flag, " and ", key.flag, " need ", ca.flag,
        " (the CA that signed the server's certificate): a client certificate is only sent "
        "over TLS"));
  }
  ClientTls tls;
  if (ca.path.empty()) return tls;
  ASSIGN_OR_RETURN(tls.ca_pem, ReadPemFile(ca));
  if (!cert.path.empty()) {
    ASSIGN_OR_RETURN(tls.cert_pem, ReadPemFile(cert));
    ASSIGN_OR_RETURN(tls.key_pem, ReadPemFile(key));
  }
  return tls;
}

bool IsLoopbackTarget(const std::string& target) {
  absl::string_view t = target;
  if (absl::StartsWith(t, "unix:") || absl::StartsWith(t, "unix-abstract:")) return true;
  for (absl::string_view scheme : {"dns:///", "dns:", "ipv4:", "ipv6:"}) {
    if (absl::ConsumePrefix(&t, scheme)) break;
  }
  // The host: "[v6]:port", "[v6]", "v6" (several ':'), "host:port" or "host".
  absl::string_view host = t;
  if (absl::StartsWith(host, "[")) {
    const size_t close = host.find(']');
    host = host.substr(1, close == absl::string_view::npos ? absl::string_view::npos : close - 1);
  } else if (std::count(host.begin(), host.end(), ':') == 1) {
    host = host.substr(0, host.find(':'));
  }
  // 0.0.0.0 and :: (the unspecified address) reach this machine too.
  return host == "localhost" || absl::StartsWith(host, "127.") || host == "::1" ||
         absl::StartsWith(host, "::ffff:127.") || host == "0.0.0.0" || host == "::";
}

bool UsesTls(const ClientTls& tls, const std::string& target) {
  if (tls.enabled()) return true;
  return !tls.insecure && !IsLoopbackTarget(target);
}

}  // namespace bbo
