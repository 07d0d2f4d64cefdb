#include "server/rpc/status.h"

#include <string>
#include <utility>

#include "common/utf8.h"

namespace bbo::rpc {

grpc::Status ToGrpcStatus(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  // Every message leaves cut to kMaxMessageBytes of valid UTF-8, whatever of the request it
  // quotes (a default client refuses a status message over its metadata limit).
  std::string message = TruncateUtf8(s.message(), kMaxMessageBytes);
  if (message.size() < s.message().size()) message += " [cut]";
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::move(message));
}

}  // namespace bbo::rpc
