#ifndef BBO_SERVER_RPC_SERVER_CREDENTIALS_H_
#define BBO_SERVER_RPC_SERVER_CREDENTIALS_H_

// TLS on bbo-server's gRPC port: the options (PEM file paths), the secure-by-default rule and
// the grpc::ServerCredentials built from them. Plain functions; thread-compatible.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "grpcpp/security/server_credentials.h"

namespace bbo::rpc {

// How a GrpcServer listens. A plain value type; bbo-server fills it from its flags.
struct GrpcServerOptions {
  // "host:port" (port 0 picks a free port), "[v6]:port" or "unix:PATH".
  std::string address = "127.0.0.1:0";
  // PEM certificate chain and private key of the server (bbo-server --tls_cert_file,
  // --tls_key_file). Both empty = plaintext; one without the other is refused.
  std::string tls_cert_file;
  std::string tls_key_file;
  // PEM CA certificate(s) (--tls_client_ca_file). Set = mutual TLS: every client must present a
  // certificate signed by one of them. Needs the server's own certificate and key.
  std::string tls_client_ca_file;
  // Serve plaintext on an address that is not loopback (--insecure). Default: refused.
  bool allow_insecure = false;
  // Calls per second per caller, on average and in a burst (RateLimiter); rate 0 = no limit.
  double rate_limit_per_s = 200;
  double rate_limit_burst = 400;

  bool tls() const { return !tls_cert_file.empty() || !tls_key_file.empty(); }
};

// True for addresses only this host can reach: 127.0.0.0/8, ::1 (also as ::ffff:127.x.x.x),
// "localhost" and unix sockets. False for every other host, name or wildcard (0.0.0.0, [::],
// ":port").
bool IsLoopbackAddress(absl::string_view address);

// The rules on the options, checked without touching the network: InvalidArgument naming the
// flags when a certificate comes without its key (or a client CA without both), or a file cannot
// be read (common/tls_files.h); FailedPrecondition when plaintext is asked for on an address
// that is not loopback without allow_insecure, saying exactly which flags to pass.
absl::Status CheckServerOptions(const GrpcServerOptions& options);

// CheckServerOptions, then the credentials for ServerBuilder::AddListeningPort: insecure, TLS,
// or TLS requiring and verifying client certificates (GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_
// CERTIFICATE_AND_VERIFY).
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const GrpcServerOptions& options);

}  // namespace bbo::rpc

#endif  // BBO_SERVER_RPC_SERVER_CREDENTIALS_H_
