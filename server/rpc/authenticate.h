#ifndef BBO_SERVER_RPC_AUTHENTICATE_H_
#define BBO_SERVER_RPC_AUTHENTICATE_H_

// Transport authentication: turns a call's gRPC metadata into an Identity (server/access.h).
// A call carrying `authorization: Bearer <organizer token>` is the organizer; any other call is
// anonymous. What an Identity may do is decided by the domain, not here. Thread-safe.

#include <string>

#include "grpcpp/server_context.h"
#include "server/access.h"

namespace bbo::rpc {

class Authenticator {
 public:
  // An empty token: nobody is an organizer over the network (hidden data stays in SQLite).
  explicit Authenticator(std::string organizer_token) : token_(std::move(organizer_token)) {}

  // The caller's identity. The token is compared in constant time in its content.
  Identity Authenticate(const grpc::ServerContext* context) const;

 private:
  const std::string token_;
};

}  // namespace bbo::rpc

#endif  // BBO_SERVER_RPC_AUTHENTICATE_H_
