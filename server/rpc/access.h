#ifndef BBO_SERVER_RPC_ACCESS_H_
#define BBO_SERVER_RPC_ACCESS_H_

// Who may see what. In a hidden phase (feedback, final) the problems, their per-problem results
// and the full scoring report are for organizers only: a call must carry the organizer token as
// gRPC metadata `authorization: Bearer <token>`. Everything else (submitting, the leaderboard's
// overall scores, the worker protocol) is open as before. Teams, per-team tokens and quotas
// build on this later.

#include <string>

#include "grpcpp/server_context.h"

namespace bbo::rpc {

class AccessPolicy {
 public:
  // An empty token: nobody is an organizer over the network (hidden data stays in SQLite).
  AccessPolicy(bool hidden_phase, std::string organizer_token)
      : hidden_(hidden_phase), token_(std::move(organizer_token)) {}

  bool hidden() const { return hidden_; }
  // True when the call carries the organizer token (compared in constant time).
  bool IsOrganizer(const grpc::ServerContext* context) const;
  // OK in a visible phase or for an organizer; PERMISSION_DENIED naming `what` otherwise.
  grpc::Status RequireOrganizerIfHidden(const grpc::ServerContext* context,
                                        const std::string& what) const;

 private:
  const bool hidden_;
  const std::string token_;
};

}  // namespace bbo::rpc

#endif  // BBO_SERVER_RPC_ACCESS_H_
