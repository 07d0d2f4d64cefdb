#ifndef BBO_SERVER_OPS_OPS_HTTP_H_
#define BBO_SERVER_OPS_OPS_HTTP_H_

// The coordinator's operations endpoint, plain HTTP (cpp-httplib) on its own address:
//   GET /metrics  the Prometheus text exposition (server/metrics.h)
//   GET /healthz  200 "ok" while the store answers, else 503 with the error
// It serves counts only (no names, tokens or results), yet listen on loopback or a private
// network: it has no authentication. Thread-safe; stops on destruction.

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "server/coordinator.h"

namespace httplib {
class Server;
}

namespace bbo {

class OpsHttpServer {
 public:
  // Listens on `address` ("host:port"; port 0 = any free port) for `coordinator` (not owned).
  // InvalidArgument for a malformed address, Unavailable when it cannot bind.
  static absl::StatusOr<std::unique_ptr<OpsHttpServer>> Start(Coordinator* coordinator,
                                                              const std::string& address);
  ~OpsHttpServer();
  OpsHttpServer(const OpsHttpServer&) = delete;
  OpsHttpServer& operator=(const OpsHttpServer&) = delete;

  // The port it listens on.
  int port() const { return port_; }

 private:
  OpsHttpServer() = default;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace bbo

#endif  // BBO_SERVER_OPS_OPS_HTTP_H_
