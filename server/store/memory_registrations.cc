// InMemoryStore: the RegistrationStore methods.

#include "absl/strings/str_cat.h"
#include "server/store/memory_store.h"

namespace bbo {

absl::Status InMemoryStore::AddRegistration(const RegistrationRecord& r,
                                            const std::string& invite_hash) {
  absl::MutexLock l(&mu_);
  for (const RegistrationRecord& x : registrations_) {
    if (x.team == r.team) {
      return absl::AlreadyExistsError(absl::StrCat("team \"", r.team, "\" is registered already"));
    }
  }
  RegistrationRecord stored = r;
  stored.invite_id = 0;
  if (!invite_hash.empty()) {
    InviteRecord* invite = nullptr;
    for (InviteRecord& i : invites_) {
      if (i.code_hash == invite_hash && i.uses_left > 0 && i.revoked_at == 0) invite = &i;
    }
    if (invite == nullptr) return absl::NotFoundError("no such invite code with uses left");
    --invite->uses_left;
    stored.invite_id = invite->id;
  }
  registrations_.push_back(std::move(stored));
  return absl::OkStatus();
}

absl::StatusOr<std::optional<RegistrationRecord>> InMemoryStore::GetRegistration(
    const std::string& team) {
  absl::MutexLock l(&mu_);
  for (const RegistrationRecord& x : registrations_) {
    if (x.team == team) return x;
  }
  return std::nullopt;
}

absl::StatusOr<std::optional<RegistrationRecord>> InMemoryStore::FindRegistrationByClaim(
    const std::string& claim_hash) {
  absl::MutexLock l(&mu_);
  for (const RegistrationRecord& x : registrations_) {
    if (x.claim_hash == claim_hash) return x;
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<RegistrationRecord>> InMemoryStore::ListRegistrations() {
  absl::MutexLock l(&mu_);
  std::vector<RegistrationRecord> out = registrations_;
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.created_at != b.created_at ? a.created_at < b.created_at : a.team < b.team;
  });
  return out;
}

absl::StatusOr<int> InMemoryStore::CountRegistrationsFrom(const std::string& peer, double since) {
  absl::MutexLock l(&mu_);
  int n = 0;
  for (const RegistrationRecord& x : registrations_) {
    if (x.peer == peer && x.created_at >= since) ++n;
  }
  return n;
}

absl::Status InMemoryStore::DecideRegistration(const std::string& team, const std::string& state,
                                               const std::string& decided_by,
                                               const std::string& reason, double at) {
  absl::MutexLock l(&mu_);
  for (RegistrationRecord& x : registrations_) {
    if (x.team != team) continue;
    if (x.state != "pending") {
      return absl::FailedPreconditionError(
          absl::StrCat("the registration of team \"", team, "\" is ", x.state, " already"));
    }
    x.state = state;
    x.decided_by = decided_by;
    x.reason = reason;
    x.decided_at = at;
    return absl::OkStatus();
  }
  return absl::NotFoundError(absl::StrCat("no registration of team \"", team, "\""));
}

absl::StatusOr<bool> InMemoryStore::MarkTokenIssued(const std::string& team, double at) {
  absl::MutexLock l(&mu_);
  for (RegistrationRecord& x : registrations_) {
    if (x.team != team || x.token_issued_at != 0) continue;
    x.token_issued_at = at;
    return true;
  }
  return false;
}

absl::StatusOr<int64_t> InMemoryStore::AddInvite(const InviteRecord& invite) {
  absl::MutexLock l(&mu_);
  for (const InviteRecord& i : invites_) {
    if (i.code_hash == invite.code_hash) return absl::AlreadyExistsError("invite code exists");
  }
  InviteRecord stored = invite;
  stored.id = static_cast<int64_t>(invites_.size()) + 1;
  stored.revoked_at = 0;
  invites_.push_back(stored);
  return stored.id;
}

absl::StatusOr<std::vector<InviteRecord>> InMemoryStore::ListInvites() {
  absl::MutexLock l(&mu_);
  return invites_;
}

absl::Status InMemoryStore::RevokeInvite(int64_t id, double at) {
  absl::MutexLock l(&mu_);
  for (InviteRecord& i : invites_) {
    if (i.id == id && i.revoked_at == 0) {
      i.revoked_at = at;
      return absl::OkStatus();
    }
  }
  return absl::NotFoundError(absl::StrCat("no live invite code with id ", id));
}

}  // namespace bbo
