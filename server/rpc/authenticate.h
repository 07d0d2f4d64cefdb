#ifndef BBO_SERVER_RPC_AUTHENTICATE_H_
#define BBO_SERVER_RPC_AUTHENTICATE_H_

// Transport authentication, as gRPC server middleware. For every call of a bbo.v1 service the
// interceptor (AuthInterceptorFactory, registered by grpc_server.cc) turns the call's metadata
// (`authorization: Bearer <token>`) into an Identity (server/access.h) through the coordinator's
// Credentials (server/identity.h), applies the rate limit, and records the outcome in
// CallIdentities before the handler runs; the handler's first line asks for it
// (`ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context))`) and gets either the caller's
// Identity or the refusal to answer with. When the call ends, the interceptor records its
// latency and writes every refusal (UNAUTHENTICATED, PERMISSION_DENIED: a bad token, or the
// domain's answer) to the audit log, with the method and the caller: one place for every RPC.
// What an Identity may do is decided by the domain, not here. A call without a token is
// anonymous; a call with a wrong, revoked or malformed token is refused (UNAUTHENTICATED), and
// once its address has had too many refused tokens (Credentials::AuthenticateFrom), refused with
// RESOURCE_EXHAUSTED and not audited.
// All classes are thread-safe.

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/server_interceptor.h"
#include "server/access.h"
#include "server/identity.h"
#include "server/metrics.h"
#include "server/rpc/rate_limiter.h"

namespace bbo::rpc {

class Authenticator {
 public:
  // `credentials` (not owned) may be null: every token is then refused (and nothing audited).
  // `limiter` (not owned; null = none) bounds each team's and each anonymous address's calls
  // (workers and organizers are not limited).
  explicit Authenticator(const Credentials* credentials, RateLimiter* limiter = nullptr)
      : credentials_(credentials), limiter_(limiter) {}

  // The caller's identity (an organizer's call is audited as an allowed `method`);
  // Unauthenticated for a bad token; ResourceExhausted when the caller is over its rate limit.
  absl::StatusOr<Identity> Authenticate(const grpc::ServerContextBase* context,
                                        const char* method) const;

  // Writes a refused call of `method` to the audit log: when `answer` (the status the call
  // ends with) is UNAUTHENTICATED, PERMISSION_DENIED or NOT_FOUND (the answer that hides another
  // party's study, submission or worker). `who` is what authentication gave: an
  // Identity, or the refusal of a bad token (written as an anonymous caller, with `peer`).
  void AuditRefusal(const absl::StatusOr<Identity>& who, const char* method,
                    const grpc::Status& answer, const std::string& peer) const;

 private:
  absl::StatusOr<Identity> Identify(const grpc::ServerContextBase* context) const;

  const Credentials* credentials_;
  RateLimiter* limiter_;
};

// The outcome of authenticating each call in flight, keyed by its ServerContext: written by the
// interceptor before the handler runs, read by the handler (Of) and by the interceptor at the
// end of the call (Release). Tests of the handlers call Set to give a call an Identity.
class CallIdentities {
 public:
  struct Call {
    absl::StatusOr<Identity> who;
    bool asked = false;              // whether the handler asked for it (Of)
    const void* owner = nullptr;     // who recorded it (an interceptor; null for a test)
  };

  // Records `who` for the call of `context` (replacing an earlier record).
  void Set(const grpc::ServerContextBase* context, absl::StatusOr<Identity> who,
           const void* owner = nullptr);
  // The handler's question: the caller's Identity, or the refusal (UNAUTHENTICATED for a bad
  // token, RESOURCE_EXHAUSTED over the rate limit) that the handler returns as it is. Internal
  // when nothing was recorded for the call (no interceptor on the server).
  absl::StatusOr<Identity> Of(const grpc::ServerContextBase* context);
  // Removes the call's record and returns it, if `owner` recorded it.
  std::optional<Call> Release(const grpc::ServerContextBase* context, const void* owner);
  // Calls recorded and not released (tests).
  size_t size() const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<const grpc::ServerContextBase*, Call> calls_ ABSL_GUARDED_BY(mu_);
};

// Makes the interceptor of each call of the services it is given (other calls, such as server
// reflection or an unknown method, are not intercepted). The interceptor authenticates at
// POST_RECV_INITIAL_METADATA and, at PRE_SEND_STATUS, audits the refusal, observes the latency
// (Metrics::ObserveRpc under the method's short name, e.g. "GetLeaderboard") and turns the
// answer of a handler that never asked for its caller's Identity into INTERNAL (a bug every
// test of that RPC catches).
class AuthInterceptorFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  // None owned; `metrics` may be null. `services`: full names of the intercepted services
  // (e.g. "bbo.v1.StudyService"), whose methods are read from the generated descriptors.
  AuthInterceptorFactory(const Authenticator* auth, CallIdentities* calls, Metrics* metrics,
                         const std::vector<std::string>& services);
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;

 private:
  const Authenticator* auth_;
  CallIdentities* calls_;
  Metrics* metrics_;
  absl::flat_hash_set<std::string> methods_;  // "/bbo.v1.StudyService/OpenStudy", ...
};

}  // namespace bbo::rpc

#endif  // BBO_SERVER_RPC_AUTHENTICATE_H_
