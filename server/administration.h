#ifndef BBO_SERVER_ADMINISTRATION_H_
#define BBO_SERVER_ADMINISTRATION_H_

// Administration: every organizer action of a running coordinator, for every transport (the
// gRPC OrganizerService behind `bbo admin --server`, the web page's organizer buttons). Each
// takes the caller's Identity, refuses anyone but an organizer (Unauthenticated without a token,
// PermissionDenied otherwise), calls the domain method that does it (Phase, Competition,
// RaceDriver, Credentials, the requeue rule), and writes the audit log: who, the action, what it
// was about, allowed or refused. No action needs a shell on the coordinator's host.
// Thread-safe as its parts are.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "server/access.h"
#include "server/store/identity_store.h"
#include "server/store/job_store.h"
#include "server/store/phase_store.h"
#include "server/store/registration_store.h"

namespace bbo {

class Coordinator;

class Administration {
 public:
  explicit Administration(Coordinator* coordinator) : c_(coordinator) {}

  // Boards hidden until published: publish, or with `undo` withdraw the publication (reason
  // required then; shown to participants).
  absl::Status Publish(const Identity& who, const std::string& phase, bool undo,
                       const std::string& reason);
  // Ends a racing phase's race now (server/race.h RaceDriver::Stop).
  absl::Status StopRace(const std::string& phase, const Identity& who, const std::string& reason);
  // Phase::Hide, Phase::Disqualify, Competition::SetFinalist (returns the next phase's name),
  // Phase::Withdraw (returns the jobs cancelled).
  absl::Status Hide(const Identity& who, int64_t submission_id, bool undo,
                    const std::string& reason);
  absl::Status Disqualify(const Identity& who, const std::string& phase, const std::string& team,
                          bool undo, const std::string& reason);
  absl::StatusOr<std::string> SetFinalist(const Identity& who, int64_t submission_id,
                                          const std::string& reason);
  absl::StatusOr<int> Withdraw(const Identity& who, int64_t submission_id);
  // Jobs that ended without a final study, and putting them back in the queue (0 = every one
  // not withdrawn): server/requeue.h.
  absl::StatusOr<std::vector<FailedJob>> FailedJobs(const Identity& who);
  absl::StatusOr<int> Requeue(const Identity& who, int64_t job_id);
  // Tokens: `kind` is "organizer", "team" or "worker". Issue and Rotate return the new token
  // (shown once); Tokens lists them without their hashes.
  absl::StatusOr<std::string> IssueToken(const Identity& who, const std::string& kind,
                                         const std::string& owner);
  absl::StatusOr<std::string> RotateToken(const Identity& who, const std::string& kind,
                                          const std::string& owner);
  absl::Status RevokeTokens(const Identity& who, const std::string& kind,
                            const std::string& owner);
  absl::StatusOr<std::vector<CredentialRecord>> Tokens(const Identity& who);
  // The latest `limit` audit entries, newest last.
  absl::StatusOr<std::vector<AuditRecord>> Audit(const Identity& who, int limit);
  // A phase's events but its migration (publication, moderation, choices), oldest first.
  absl::StatusOr<std::vector<PhaseEvent>> Events(const Identity& who, const std::string& phase);
  // Teams that registered on the page (server/registration.h): the list, approving or rejecting
  // a pending one (a rejection needs a reason, shown to the team), and invite codes (Issue
  // returns the id and the code, shown once).
  absl::StatusOr<std::vector<RegistrationRecord>> ListRegistrations(const Identity& who);
  absl::Status DecideRegistration(const Identity& who, const std::string& team, bool approve,
                                  const std::string& reason);
  absl::StatusOr<std::pair<int64_t, std::string>> IssueInvite(const Identity& who, int uses,
                                                              const std::string& note);
  absl::Status RevokeInvite(const Identity& who, int64_t id);
  absl::StatusOr<std::vector<InviteRecord>> Invites(const Identity& who);
  // The competition's registration rule ("closed", "open", "invite_code", "approval").
  std::string RegistrationModeText() const;

 private:
  // Records the outcome of `action` about `about` in the audit log and passes it on.
  absl::Status Audited(const Identity& who, const std::string& action, const std::string& about,
                       absl::Status result);
  absl::Status RequireOrganizer(const Identity& who, const std::string& action);

  Coordinator* c_;
};

}  // namespace bbo

#endif  // BBO_SERVER_ADMINISTRATION_H_
