#ifndef BBO_SERVER_REGISTRATION_H_
#define BBO_SERVER_REGISTRATION_H_

// Registrations: teams registering themselves (on the web page, docs/web.md), under the rule the
// organizers chose in the competition file ("registration"):
//
//   closed       (the default) only organizers create teams (`bbo admin team add NAME`);
//   open         anyone may register a team: its token is shown at once;
//   invite_code  registering needs one of the organizers' invite codes (`bbo admin invite`,
//                each usable a set number of times);
//   approval     a registration waits for an organizer (`bbo admin approve|reject TEAM`); the
//                team holds a claim code meanwhile and exchanges it, once approved, for its token.
//
// The competition's terms, when it has any, must be accepted (the time is recorded). A team's
// token is handed over exactly once, whichever way; the store keeps keyed hashes of claim and
// invite codes and tokens, never the codes. Anonymous registrations are bounded: per address
// in open and approval modes (kMaxPerAddress in kAddressWindowSeconds, rejected ones not
// counted), pending ones in all (kMaxPending) and teams in all (max_teams). The address is what
// the transport gives (behind a trusted proxy, the client's), and may be shared by many
// applicants (a campus, a proxy that passes no address): the per-address bound is short, an
// organizer's rejection frees it at once, and an invite code is bounded by its own uses instead.
// Organizer actions here are plain methods: server/administration.h checks and audits the caller.
//
// Thread-safe (the store and Credentials are).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "server/access.h"
#include "server/identity.h"
#include "server/store/store.h"

namespace bbo {

class Competition;

enum class RegistrationMode { kClosed, kOpen, kInviteCode, kApproval };

// "closed", "open", "invite_code", "approval"; and back (nullopt for anything else).
const char* RegistrationModeName(RegistrationMode mode);
std::optional<RegistrationMode> RegistrationModeFromName(const std::string& name);

struct RegistrationRequest {
  std::string team;
  std::string email;  // optional: where notifications go (docs/organizers.md)
  bool accept_terms = false;
  std::string invite_code;
  // The caller's address (bounds registrations per address).
  std::string peer;
};

struct RegistrationAnswer {
  std::string team;
  // "registered" (the token is here), "pending" (an organizer decides; keep the claim code),
  // "rejected" (with the organizers' reason in `message`).
  std::string state;
  std::string token;  // shown once
  std::string claim;  // approval mode: shown once, exchanged for the token when approved
  std::string message;
};

class Registrations {
 public:
  // Registrations from one address within the window (open and approval modes; rejected ones
  // are not counted), and pending ones in all.
  static constexpr int kMaxPerAddress = 5;
  static constexpr int kAddressWindowSeconds = 600;
  static constexpr int kMaxPending = 500;

  // `store`, `credentials`, `competition` and `clock` are not owned.
  Registrations(RegistrationMode mode, int max_teams, Store* store, Credentials* credentials,
                Competition* competition, Clock* clock)
      : mode_(mode), max_teams_(max_teams), store_(store), credentials_(credentials),
        competition_(competition), clock_(clock) {}

  RegistrationMode mode() const { return mode_; }
  int max_teams() const { return max_teams_; }

  // Registers a team (the caller is anonymous: a token holder already has a team).
  // FailedPrecondition when registration is closed or the caller holds a token;
  // InvalidArgument naming the field (team name, e-mail, terms not accepted, no invite code);
  // PermissionDenied for an unknown, used-up or revoked invite code; AlreadyExists for a team
  // name taken; ResourceExhausted over a bound (saying which and when to try again).
  absl::StatusOr<RegistrationAnswer> Register(const Identity& who, const RegistrationRequest& r);
  // Approval mode: what became of the registration holding `claim`; once approved, the token
  // (the first time only: FailedPrecondition after, saying to ask the organizers to rotate
  // it). NotFound for an unknown claim code.
  absl::StatusOr<RegistrationAnswer> Claim(const std::string& claim);

  // Organizers (callers check): the registrations, approving or rejecting a pending one (a
  // rejection needs a reason, shown to the team), invite codes (the code is returned once).
  absl::StatusOr<std::vector<RegistrationRecord>> List();
  absl::Status Decide(const std::string& team, bool approve, const std::string& decided_by,
                      const std::string& reason);
  absl::StatusOr<std::pair<int64_t, std::string>> IssueInvite(int uses, const std::string& note,
                                                              const std::string& created_by);
  absl::Status RevokeInvite(int64_t id);
  absl::StatusOr<std::vector<InviteRecord>> Invites();

 private:
  absl::Status CheckRequest(const RegistrationRequest& r) const;
  absl::Status CheckBounds(const RegistrationRequest& r);
  // Issues the team's token and records that it was handed over; sets its e-mail contact.
  absl::StatusOr<std::string> HandOver(const RegistrationRecord& r);

  const RegistrationMode mode_;
  const int max_teams_;
  Store* store_;
  Credentials* credentials_;
  Competition* competition_;
  Clock* clock_;
};

}  // namespace bbo

#endif  // BBO_SERVER_REGISTRATION_H_
