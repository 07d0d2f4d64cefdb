#ifndef BBO_SERVER_RPC_AUTHENTICATE_H_
#define BBO_SERVER_RPC_AUTHENTICATE_H_

// Transport authentication: turns a call's gRPC metadata (`authorization: Bearer <token>`) into
// an Identity (server/access.h) through the coordinator's Credentials (server/identity.h).
// What an Identity may do is decided by the domain, not here. A call without a token is
// anonymous; a call with a wrong, revoked or malformed token is refused (UNAUTHENTICATED) and
// written to the audit log. Thread-safe.

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "grpcpp/server_context.h"
#include "server/access.h"
#include "server/identity.h"
#include "server/metrics.h"
#include "server/rpc/rate_limiter.h"

namespace bbo::rpc {

class Authenticator {
 public:
  // `credentials` (not owned) may be null: every token is then refused.
  // `limiter` (not owned; null = none) bounds each team's and each anonymous address's calls
  // (workers and organizers are not limited).
  // `metrics` (not owned; null = none) receives every call's latency (Timed).
  explicit Authenticator(const Credentials* credentials, RateLimiter* limiter = nullptr,
                         Metrics* metrics = nullptr)
      : credentials_(credentials), limiter_(limiter), metrics_(metrics) {}

  // Records the time from its making to its end as one call of `method` (RAII).
  class Timer {
   public:
    Timer(Metrics* metrics, const char* method)
        : metrics_(metrics), method_(method), start_(absl::Now()) {}
    ~Timer() {
      if (metrics_ != nullptr) {
        metrics_->ObserveRpc(method_, absl::ToDoubleSeconds(absl::Now() - start_));
      }
    }
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;

   private:
    Metrics* metrics_;
    const char* method_;
    absl::Time start_;
  };
  Metrics* metrics() const { return metrics_; }

  // The caller's identity; Unauthenticated for a bad token (audited as `method`);
  // ResourceExhausted when the caller is over its rate limit.
  absl::StatusOr<Identity> Authenticate(const grpc::ServerContext* context,
                                        const char* method) const;

  // The gRPC status of a domain answer, writing refusals (UNAUTHENTICATED, PERMISSION_DENIED)
  // to the audit log.
  absl::Status Audited(const Identity& who, const char* method, absl::Status status) const;

 private:
  absl::StatusOr<Identity> Identify(const grpc::ServerContext* context, const char* method) const;

  const Credentials* credentials_;
  RateLimiter* limiter_;
  Metrics* metrics_;
};

}  // namespace bbo::rpc

#endif  // BBO_SERVER_RPC_AUTHENTICATE_H_
