#ifndef BBO_SERVER_OPS_OPS_HTTP_H_
#define BBO_SERVER_OPS_OPS_HTTP_H_

// The coordinator's operations endpoint on its own address (server/http, with that server's
// bounds):
//   GET /metrics  the Prometheus text exposition (server/metrics.h)
//   GET /healthz  200 "ok" while the store answers, else 503 with the error
// It serves counts only (no names, tokens or results) and has no authentication: bbo-server
// serves it in plaintext on loopback only, anywhere else over HTTPS (with its TLS files, and
// with --tls_client_ca_file only to clients with a certificate), or with --insecure.
// Thread-safe; stops on destruction.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/coordinator.h"

namespace bbo {

namespace http {
class HttpServer;
}

struct OpsHttpOptions {
  // "host:port"; port 0 = any free port.
  std::string address;
  // PEM files as for the web port: both set = HTTPS; a client CA = clients need a certificate.
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_client_ca_file;
};

class OpsHttpServer {
 public:
  // Listens for `coordinator` (not owned). InvalidArgument for a malformed address or TLS files
  // that cannot be loaded, Unavailable when it cannot bind.
  static absl::StatusOr<std::unique_ptr<OpsHttpServer>> Start(Coordinator* coordinator,
                                                              const OpsHttpOptions& options);
  ~OpsHttpServer();
  OpsHttpServer(const OpsHttpServer&) = delete;
  OpsHttpServer& operator=(const OpsHttpServer&) = delete;

  // The port it listens on.
  int port() const;

 private:
  OpsHttpServer() = default;
  std::unique_ptr<http::HttpServer> http_;
};

}  // namespace bbo

#endif  // BBO_SERVER_OPS_OPS_HTTP_H_
