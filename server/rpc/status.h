#ifndef BBO_SERVER_RPC_STATUS_H_
#define BBO_SERVER_RPC_STATUS_H_

// absl::Status -> grpc::Status for the handlers' replies (errors travel as the gRPC status).

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace bbo::rpc {

// Same code (absl and gRPC share the canonical numbering), same message.
grpc::Status ToGrpcStatus(const absl::Status& s);

}  // namespace bbo::rpc

#endif  // BBO_SERVER_RPC_STATUS_H_
