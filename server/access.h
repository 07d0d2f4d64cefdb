#ifndef BBO_SERVER_ACCESS_H_
#define BBO_SERVER_ACCESS_H_

// Who is calling, and what they may see. The transport (server/rpc/authenticate.h) turns a call's
// credentials into an Identity; the rules about what an Identity may do live here, in the
// domain, and are applied by the domain classes (StudyManager, Competition), never by handlers.
//
// Today's rule: in a hidden phase (feedback, final) the problems, practice studies on them,
// per-problem results and the full scoring reports are for organizers only; submitting, the
// overall leaderboard and the worker protocol are open. Teams and workers become identities of
// their own later.
//
// Value types; thread-safe to share once constructed.

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace bbo {

struct Identity {
  enum class Role { kAnonymous, kOrganizer, kTeam, kWorker };
  Role role = Role::kAnonymous;
  // The team's or the worker credential's name ("" for organizers and anonymous callers).
  std::string name;

  static Identity Anonymous() { return {}; }
  static Identity Organizer() { return {Role::kOrganizer, ""}; }
  static Identity Team(std::string name) { return {Role::kTeam, std::move(name)}; }
  static Identity Worker(std::string name) { return {Role::kWorker, std::move(name)}; }
  bool is_organizer() const { return role == Role::kOrganizer; }
  bool is_team() const { return role == Role::kTeam; }
  bool is_worker() const { return role == Role::kWorker; }
  // "organizer", "team:NAME", "worker:NAME", "anonymous" (logs and the audit).
  std::string Describe() const;
};

class AccessPolicy {
 public:
  explicit AccessPolicy(bool hidden_phase = false) : hidden_(hidden_phase) {}

  bool hidden() const { return hidden_; }
  // OK in a visible phase or for an organizer; PermissionDenied naming `what` (e.g. "the
  // problems") and saying how to authenticate otherwise.
  absl::Status RequireOrganizerIfHidden(const Identity& who, absl::string_view what) const;
  // Whether `who` may see problem names and per-problem results.
  bool ShowsPerProblemResults(const Identity& who) const { return !hidden_ || who.is_organizer(); }

 private:
  bool hidden_;
};

}  // namespace bbo

#endif  // BBO_SERVER_ACCESS_H_
