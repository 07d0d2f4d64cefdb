#include "server/rpc/authenticate.h"

namespace bbo::rpc {

Identity Authenticator::Authenticate(const grpc::ServerContext* context) const {
  if (token_.empty() || context == nullptr) return Identity::Anonymous();
  const auto& md = context->client_metadata();
  auto it = md.find("authorization");
  if (it == md.end()) return Identity::Anonymous();
  const std::string given(it->second.data(), it->second.size());
  const std::string expected = "Bearer " + token_;
  // Constant time in the token's content: no early exit on the first differing byte.
  unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i) {
    diff |= static_cast<unsigned char>(expected[i] ^ (i < given.size() ? given[i] : 0));
  }
  return diff == 0 ? Identity::Organizer() : Identity::Anonymous();
}

}  // namespace bbo::rpc
