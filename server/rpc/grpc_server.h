#ifndef BBO_SERVER_RPC_GRPC_SERVER_H_
#define BBO_SERVER_RPC_GRPC_SERVER_H_

// Serves a Coordinator's four services (plus server reflection) on an address such as
// "127.0.0.1:0" (port 0 picks a free port), in plaintext or over TLS (server_credentials.h),
// behind the authentication interceptor (authenticate.h).
// Used by bbo-server, by `bbo local` (through server/embed.h) and by the benchmarks.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/server.h"
#include "server/coordinator.h"
#include "server/rpc/server_credentials.h"
#include "server/rpc/services.h"

namespace bbo::rpc {

class GrpcServer {
 public:
  // Listens as `options` say. The errors of CheckServerOptions (plaintext on a non-loopback
  // address without allow_insecure, unreadable or unpaired PEM files); InvalidArgument when
  // gRPC refuses the certificate and key (e.g. a key of another certificate); Unavailable when
  // the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<GrpcServer>> Start(Coordinator* coordinator,
                                                           const GrpcServerOptions& options);
  ~GrpcServer();
  // The bound port.
  int port() const { return port_; }
  // "127.0.0.1:<port>" style target for clients.
  std::string target() const { return target_; }
  // Stops accepting calls and waits (up to `grace`) for running ones.
  void Shutdown(absl::Duration grace = absl::Seconds(2));
  void Wait();

 private:
  GrpcServer() = default;
  JobQueue* queue_ = nullptr;  // its long-poll leases are ended at Shutdown
  std::unique_ptr<RateLimiter> limiter_;
  std::unique_ptr<Authenticator> auth_;
  std::unique_ptr<CallIdentities> calls_;  // from the authentication interceptor to the handlers
  std::unique_ptr<StudyServiceImpl> study_;
  std::unique_ptr<WorkerServiceImpl> worker_;
  std::unique_ptr<CompetitionServiceImpl> competition_;
  std::unique_ptr<ScoringServiceImpl> scoring_;
  std::unique_ptr<Administration> admin_;
  std::unique_ptr<OrganizerServiceImpl> organizer_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::string target_;
  bool shut_down_ = false;
};

}  // namespace bbo::rpc

#endif  // BBO_SERVER_RPC_GRPC_SERVER_H_
