#include "server/rpc/access.h"

namespace bbo::rpc {

bool AccessPolicy::IsOrganizer(const grpc::ServerContext* context) const {
  if (token_.empty() || context == nullptr) return false;
  const auto& md = context->client_metadata();
  auto it = md.find("authorization");
  if (it == md.end()) return false;
  const std::string given(it->second.data(), it->second.size());
  const std::string expected = "Bearer " + token_;
  // Constant time in the token's content: no early exit on the first differing byte.
  unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i) {
    diff |= static_cast<unsigned char>(expected[i] ^ (i < given.size() ? given[i] : 0));
  }
  return diff == 0;
}

grpc::Status AccessPolicy::RequireOrganizerIfHidden(const grpc::ServerContext* context,
                                                    const std::string& what) const {
  if (!hidden_ || IsOrganizer(context)) return grpc::Status::OK;
  return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                      what + " of this hidden phase are for organizers only (send the organizer "
                             "token: bbo --token or BBO_TOKEN)");
}

}  // namespace bbo::rpc
