#ifndef BBO_SERVER_ACCESS_H_
#define BBO_SERVER_ACCESS_H_

// Who is calling, and what they may see. The transport (server/rpc/authenticate.h) turns a call's
// credentials into an Identity; the rules about what an Identity may do live here, in the
// domain, and are applied by the domain classes (StudyManager, Phase), never by handlers.
//
// The rules: in a hidden phase (feedback, final) the problems, practice studies on them,
// per-problem results and the full scoring reports are for organizers only. Submitting needs a
// team token (the team is the token's) or an organizer's; the worker protocol needs a worker
// token; practice studies and the submission list need a team or organizer token (a team sees
// its own submissions). The overall leaderboard is open. `allow_anonymous` (loopback trials)
// lets anonymous callers do what teams and workers do.
//
// Value types; thread-safe to share once constructed.

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bbo {

struct Identity {
  // kCoordinator: the coordinator's own work in its process (its random-search baseline, and
  // tests standing in for a trusted host). No token yields it, so no network caller has it.
  enum class Role { kAnonymous, kOrganizer, kTeam, kWorker, kCoordinator };
  Role role = Role::kAnonymous;
  // The team's or the worker credential's name ("" for organizers and anonymous callers).
  std::string name;

  static Identity Anonymous() { return {}; }
  static Identity Organizer() { return {Role::kOrganizer, ""}; }
  static Identity Team(std::string name) { return {Role::kTeam, std::move(name)}; }
  static Identity Worker(std::string name) { return {Role::kWorker, std::move(name)}; }
  static Identity Coordinator() { return {Role::kCoordinator, ""}; }
  bool is_organizer() const { return role == Role::kOrganizer; }
  bool is_team() const { return role == Role::kTeam; }
  bool is_worker() const { return role == Role::kWorker; }
  bool is_coordinator() const { return role == Role::kCoordinator; }
  // "organizer", "team:NAME", "worker:NAME", "coordinator", "anonymous" (logs and the audit).
  std::string Describe() const;
};

// The name of `who`'s role: "organizer", "team", "worker", "coordinator" or "anonymous".
const char* RoleName(const Identity& who);

// Whether `who` may see the job queue's operational details (jobs by state, running studies,
// the workers): organizers. Its summary (queued and running jobs, connected slots, the estimated
// wait) is public.
bool SeesQueueDetails(const Identity& who);

class AccessPolicy {
 public:
  // `allow_anonymous`: a coordinator without identities (loopback trials, tests of other
  // things): an anonymous caller may submit, host jobs and open practice studies.
  explicit AccessPolicy(bool hidden_phase = false, bool allow_anonymous = false)
      : hidden_(hidden_phase), allow_anonymous_(allow_anonymous) {}

  // Who may register a submission: a team (for itself) or an organizer (for any team).
  // Returns the submission's team: the token's for a team; `requested_team` for an organizer
  // or, without identities, for anyone. Unauthenticated for an anonymous caller;
  // PermissionDenied for a worker or for a team naming another team.
  absl::StatusOr<std::string> SubmittingTeam(const Identity& who,
                                             absl::string_view requested_team) const;
  // Whose notification contact (server/notifications.h) `who` may set or read: a team its own
  // (`requested_team` "" or its name), an organizer any team's, which it must name. Returns the
  // team. Unauthenticated for an anonymous caller (even without identities: it has no team);
  // PermissionDenied for a worker or for a team naming another team; InvalidArgument for an
  // organizer naming no team.
  absl::StatusOr<std::string> ContactTeam(const Identity& who,
                                          absl::string_view requested_team) const;
  // Who may act as a worker (register, lease, fetch, run studies): a worker token.
  absl::Status RequireWorker(const Identity& who) const;
  // Who may see submissions and open practice studies: a team or an organizer.
  absl::Status RequireParticipant(const Identity& who, absl::string_view what) const;
  // Who may moderate (hide, disqualify, set finalists, publish): an organizer. Unauthenticated
  // without a token, PermissionDenied for any other, naming `what`.
  absl::Status RequireOrganizer(const Identity& who, absl::string_view what) const;
  // Whether `who` may see the details of a submission of `team`.
  bool SeesSubmissionsOf(const Identity& who, absl::string_view team) const;

  bool hidden() const { return hidden_; }
  // OK in a visible phase or for an organizer; PermissionDenied naming `what` (e.g. "the
  // problems") and saying how to authenticate otherwise.
  absl::Status RequireOrganizerIfHidden(const Identity& who, absl::string_view what) const;
  // Whether `who` may see problem names and per-problem results.
  bool ShowsPerProblemResults(const Identity& who) const { return !hidden_ || who.is_organizer(); }

 private:
  bool hidden_;
  bool allow_anonymous_;
};

}  // namespace bbo

#endif  // BBO_SERVER_ACCESS_H_
