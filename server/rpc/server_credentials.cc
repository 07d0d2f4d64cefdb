#include "server/rpc/server_credentials.h"

#include <arpa/inet.h>

#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/tls_files.h"

namespace bbo::rpc {
namespace {

// "host" of "host:port" / "[v6]:port"; the whole text when there is no port.
absl::string_view HostOf(absl::string_view address) {
  if (absl::StartsWith(address, "[")) {
    const size_t close = address.find(']');
    return close == absl::string_view::npos ? address.substr(1) : address.substr(1, close - 1);
  }
  const size_t colon = address.rfind(':');
  // More than one colon and no brackets: a bare IPv6 address without a port.
  if (colon != absl::string_view::npos && address.find(':') == colon) {
    return address.substr(0, colon);
  }
  return address;
}

}  // namespace

bool IsLoopbackAddress(absl::string_view address) {
  if (absl::StartsWith(address, "unix:") || absl::StartsWith(address, "unix-abstract:")) {
    return true;
  }
  for (absl::string_view scheme : {"ipv4:", "ipv6:", "dns:///"}) {
    if (absl::StartsWith(address, scheme)) address.remove_prefix(scheme.size());
  }
  const std::string host(HostOf(address));
  if (absl::AsciiStrToLower(host) == "localhost") return true;
  in_addr v4;
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6;
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

absl::Status CheckServerOptions(const GrpcServerOptions& options) {
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return absl::InvalidArgumentError(
        options.tls_cert_file.empty()
            ? "--tls_key_file needs --tls_cert_file (the certificate of that key)"
            : "--tls_cert_file needs --tls_key_file (the certificate's private key)");
  }
  if (!options.tls_client_ca_file.empty() && !options.tls()) {
    return absl::InvalidArgumentError(
        "--tls_client_ca_file needs --tls_cert_file and --tls_key_file: client certificates "
        "are checked only over TLS");
  }
  if (!options.tls() && !options.allow_insecure && !IsLoopbackAddress(options.address)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to serve plaintext gRPC on ", options.address,
        ", which other hosts can reach: pass --tls_cert_file=SERVER_CERT.pem and "
        "--tls_key_file=SERVER_KEY.pem (plus --tls_client_ca_file=CA.pem to require worker "
        "certificates; see deploy/README.md, \"TLS\"), or --insecure to serve without TLS "
        "anyway, or listen on a loopback address such as --listen=127.0.0.1:PORT"));
  }
  if (!options.tls()) return absl::OkStatus();
  RETURN_IF_ERROR(ReadPemFile({options.tls_cert_file, "--tls_cert_file"}).status());
  RETURN_IF_ERROR(ReadPemFile({options.tls_key_file, "--tls_key_file"}).status());
  if (!options.tls_client_ca_file.empty()) {
    RETURN_IF_ERROR(ReadPemFile({options.tls_client_ca_file, "--tls_client_ca_file"}).status());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const GrpcServerOptions& options) {
  RETURN_IF_ERROR(CheckServerOptions(options));
  if (!options.tls()) return grpc::InsecureServerCredentials();
  const bool mutual = !options.tls_client_ca_file.empty();
  grpc::SslServerCredentialsOptions ssl(
      mutual ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
             : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  ASSIGN_OR_RETURN(pair.private_key, ReadPemFile({options.tls_key_file, "--tls_key_file"}));
  ASSIGN_OR_RETURN(pair.cert_chain, ReadPemFile({options.tls_cert_file, "--tls_cert_file"}));
  ssl.pem_key_cert_pairs.push_back(std::move(pair));
  if (mutual) {
    ASSIGN_OR_RETURN(ssl.pem_root_certs,
                     ReadPemFile({options.tls_client_ca_file, "--tls_client_ca_file"}));
  }
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::SslServerCredentials(ssl);
  if (credentials == nullptr) {
    return absl::InvalidArgumentError(
        "gRPC refused the TLS certificate or key (--tls_cert_file, --tls_key_file)");
  }
  return credentials;
}

}  // namespace bbo::rpc
