#ifndef BBO_SERVER_STORE_REGISTRATION_STORE_H_
#define BBO_SERVER_STORE_REGISTRATION_STORE_H_

// RegistrationStore: teams that registered themselves on the web page (server/registration.h)
// and the organizers' invite codes. Keeps keyed hashes of the claim and invite codes, never the
// codes. Part of the Store contract (server/store/store.h): every method is one transaction;
// implementations are thread-safe.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace bbo {

// A team's registration. `state`: "pending" (awaits an organizer), "approved", "rejected".
struct RegistrationRecord {
  std::string team;
  std::string email;  // "" = none given
  std::string state = "pending";
  // Keyed hash of the claim code the team holds until its token is handed over (32 bytes).
  std::string claim_hash;
  int64_t invite_id = 0;  // the invite code it used; 0 = none
  double terms_accepted_at = 0;  // 0 = the competition has no terms
  // The peer address that registered (for organizers; bounds registrations per address).
  std::string peer;
  double created_at = 0;
  // The organizer's decision: when, who, why ("" while pending; "open registration" or
  // "invite code" when it needed none).
  double decided_at = 0;
  std::string decided_by;
  std::string reason;
  // When the team's token was handed over (0 = not yet: it is shown exactly once).
  double token_issued_at = 0;
};

struct InviteRecord {
  int64_t id = 0;
  std::string code_hash;  // keyed hash of the code (32 bytes)
  int uses_left = 1;
  std::string note;
  std::string created_by;
  double created_at = 0;
  double revoked_at = 0;  // 0 = live
};

class RegistrationStore {
 public:
  virtual ~RegistrationStore() = default;

  // Adds `r`. With a non-empty `invite_hash`, first takes one use of that live invite code (in
  // the same transaction) and records its id: NotFound when no live code with uses left has
  // that hash (nothing is stored). AlreadyExists when `r.team` registered before.
  virtual absl::Status AddRegistration(const RegistrationRecord& r,
                                       const std::string& invite_hash) = 0;
  virtual absl::StatusOr<std::optional<RegistrationRecord>> GetRegistration(
      const std::string& team) = 0;
  virtual absl::StatusOr<std::optional<RegistrationRecord>> FindRegistrationByClaim(
      const std::string& claim_hash) = 0;
  // Every registration, oldest first.
  virtual absl::StatusOr<std::vector<RegistrationRecord>> ListRegistrations() = 0;
  // Registrations since `since` (seconds) from `peer`.
  virtual absl::StatusOr<int> CountRegistrationsFrom(const std::string& peer, double since) = 0;
  // Sets a pending registration's state ("approved" or "rejected") with who, when and why.
  // FailedPrecondition (saying its state) unless it is pending; NotFound without one.
  virtual absl::Status DecideRegistration(const std::string& team, const std::string& state,
                                          const std::string& decided_by,
                                          const std::string& reason, double at) = 0;
  // Marks the team's token as handed over at `at`: true the first time, false when it was
  // before (one statement, so two claims cannot both get a token).
  virtual absl::StatusOr<bool> MarkTokenIssued(const std::string& team, double at) = 0;

  // Stores an invite code; returns its id.
  virtual absl::StatusOr<int64_t> AddInvite(const InviteRecord& invite) = 0;
  // Every invite code, oldest first (hashes included; callers do not show them).
  virtual absl::StatusOr<std::vector<InviteRecord>> ListInvites() = 0;
  // Revokes a live invite code; NotFound when there is no live one with that id.
  virtual absl::Status RevokeInvite(int64_t id, double at) = 0;
};

}  // namespace bbo

#endif  // BBO_SERVER_STORE_REGISTRATION_STORE_H_
