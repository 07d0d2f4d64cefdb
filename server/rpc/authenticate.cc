#include "server/rpc/authenticate.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace bbo::rpc {

absl::StatusOr<Identity> Authenticator::Authenticate(const grpc::ServerContext* context,
                                                     const char* method) const {
  absl::StatusOr<Identity> who = Identify(context, method);
  if (!who.ok() || context == nullptr) return who;
  // Every call made with an organizer's token is an organizer action: it goes to the audit.
  if (who->is_organizer() && credentials_ != nullptr) {
    credentials_->Audit(*who, method, true, context->peer());
  }
  // Workers and organizers are the organizers' own machines: a busy worker host makes many
  // calls per second by design, and throttling it would break studies. Teams and anonymous
  // callers are limited.
  if (limiter_ == nullptr || who->is_organizer() || who->is_worker()) return who;
  // An anonymous caller is counted by its address (without the port).
  std::string key = who->Describe();
  if (who->role == Identity::Role::kAnonymous) {
    const std::string peer = context->peer();
    key = absl::StrCat("anonymous@", peer.substr(0, peer.rfind(':')));
  }
  if (absl::Status s = limiter_->Take(key, absl::Now()); !s.ok()) return s;
  return who;
}

absl::StatusOr<Identity> Authenticator::Identify(const grpc::ServerContext* context,
                                                 const char* method) const {
  if (context == nullptr) return Identity::Anonymous();
  const auto& md = context->client_metadata();
  auto it = md.find("authorization");
  if (it == md.end()) return Identity::Anonymous();
  const absl::string_view header(it->second.data(), it->second.size());
  if (!absl::StartsWith(header, "Bearer ")) {
    return absl::UnauthenticatedError(
        "authorization metadata must be \"Bearer <token>\"");
  }
  const absl::string_view token = header.substr(7);
  if (credentials_ == nullptr) {
    return absl::UnauthenticatedError("the token is not known here");
  }
  absl::StatusOr<Identity> who = credentials_->Authenticate(token);
  if (!who.ok() && absl::IsUnauthenticated(who.status())) {
    credentials_->Audit(Identity::Anonymous(), method, false,
                        absl::StrCat(context->peer(), ": ", who.status().message()));
  }
  return who;
}

absl::Status Authenticator::Audited(const Identity& who, const char* method,
                                    absl::Status status) const {
  if (credentials_ != nullptr &&
      (absl::IsUnauthenticated(status) || absl::IsPermissionDenied(status))) {
    credentials_->Audit(who, method, false, status.message());
  }
  return status;
}

}  // namespace bbo::rpc
