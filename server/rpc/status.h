#ifndef BBO_SERVER_RPC_STATUS_H_
#define BBO_SERVER_RPC_STATUS_H_

// absl::Status -> grpc::Status for the handlers' replies (errors travel as the gRPC status), and
// ASSIGN_OR_RETURN_GRPC, which returns a failed absl::StatusOr as the handler's gRPC status.

#include <cstddef>
#include <utility>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace bbo::rpc {

// The longest status message sent, bytes (docs/organizers.md, "Limits on requests").
inline constexpr size_t kMaxMessageBytes = 8 << 10;

// Same code (absl and gRPC share the canonical numbering), same message cut to
// kMaxMessageBytes of valid UTF-8 (" [cut]" appended when it was longer).
grpc::Status ToGrpcStatus(const absl::Status& s);

}  // namespace bbo::rpc

// `lhs = value of expr`, or `return ToGrpcStatus(status of expr)` from a gRPC handler, e.g.
// ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
#define ASSIGN_OR_RETURN_GRPC(lhs, expr) \
  BBO_ASSIGN_OR_RETURN_GRPC_IMPL_(BBO_GRPC_CONCAT_(bbo_grpc_statusor_, __LINE__), lhs, expr)
#define BBO_GRPC_CONCAT_INNER_(a, b) a##b
#define BBO_GRPC_CONCAT_(a, b) BBO_GRPC_CONCAT_INNER_(a, b)
#define BBO_ASSIGN_OR_RETURN_GRPC_IMPL_(statusor, lhs, expr)                    \
  auto statusor = (expr);                                                       \
  if (!statusor.ok()) return ::bbo::rpc::ToGrpcStatus(statusor.status());      \
  lhs = std::move(statusor).value()

#endif  // BBO_SERVER_RPC_STATUS_H_
