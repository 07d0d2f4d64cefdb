#include "server/access.h"

#include "absl/strings/str_cat.h"

namespace bbo {

std::string Identity::Describe() const {
  switch (role) {
    case Role::kOrganizer:
      return name.empty() ? "organizer" : absl::StrCat("organizer:", name);
    case Role::kTeam:
      return absl::StrCat("team:", name);
    case Role::kWorker:
      return absl::StrCat("worker:", name);
    case Role::kCoordinator:
      return "coordinator";
    case Role::kAnonymous:
      break;
  }
  return "anonymous";
}

absl::Status AccessPolicy::RequireOrganizerIfHidden(const Identity& who,
                                                    absl::string_view what) const {
  if (ShowsPerProblemResults(who)) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat(what,
                   " of this hidden phase are for organizers only (send the organizer token: "
                   "bbo --token or BBO_TOKEN)"));
}

namespace {

absl::Status NoToken(absl::string_view what) {
  return absl::UnauthenticatedError(absl::StrCat(
      what, " needs a token: send yours with BBO_TOKEN (or bbo --token_file); organizers issue "
            "them with `bbo admin team add NAME`"));
}

}  // namespace

absl::StatusOr<std::string> AccessPolicy::SubmittingTeam(const Identity& who,
                                                         absl::string_view requested_team) const {
  switch (who.role) {
    case Identity::Role::kTeam:
      if (!requested_team.empty() && requested_team != who.name) {
        return absl::PermissionDeniedError(
            "a team token submits for its own team only; leave out --team");
      }
      return who.name;
    case Identity::Role::kOrganizer:
      return std::string(requested_team);
    case Identity::Role::kWorker:
      return absl::PermissionDeniedError("a worker token cannot register submissions");
    case Identity::Role::kAnonymous:
      break;
  }
  if (!allow_anonymous_) return NoToken("registering a submission");
  return std::string(requested_team);
}

absl::StatusOr<std::string> AccessPolicy::ContactTeam(const Identity& who,
                                                      absl::string_view requested_team) const {
  switch (who.role) {
    case Identity::Role::kTeam:
      if (!requested_team.empty() && requested_team != who.name) {
        return absl::PermissionDeniedError(
            "a team token sets and reads its own team's contact only; leave out --team");
      }
      return who.name;
    case Identity::Role::kOrganizer:
      if (requested_team.empty()) {
        return absl::InvalidArgumentError("team: an organizer names the team (--team NAME)");
      }
      return std::string(requested_team);
    case Identity::Role::kAnonymous:
      return NoToken("a team's contact");
    case Identity::Role::kWorker:
    case Identity::Role::kCoordinator:
      break;
  }
  return absl::PermissionDeniedError(
      absl::StrCat("a ", RoleName(who), " has no team contact to set or read"));
}

absl::Status AccessPolicy::RequireWorker(const Identity& who) const {
  if (who.is_worker() || (allow_anonymous_ && who.role == Identity::Role::kAnonymous)) {
    return absl::OkStatus();
  }
  if (who.role == Identity::Role::kAnonymous) {
    return absl::UnauthenticatedError(
        "workers need a worker token: bbo-worker --token_file FILE (organizers issue it with "
        "`bbo admin worker add NAME`)");
  }
  return absl::PermissionDeniedError("only workers may call the worker protocol");
}

absl::Status AccessPolicy::RequireParticipant(const Identity& who, absl::string_view what) const {
  if (who.is_team() || who.is_organizer()) return absl::OkStatus();
  if (who.role == Identity::Role::kAnonymous) {
    if (allow_anonymous_) return absl::OkStatus();
    return NoToken(what);
  }
  return absl::PermissionDeniedError(absl::StrCat(what, " are for teams and organizers"));
}

absl::Status AccessPolicy::RequireOrganizer(const Identity& who, absl::string_view what) const {
  if (who.is_organizer()) return absl::OkStatus();
  if (who.role == Identity::Role::kAnonymous) return NoToken(what);
  return absl::PermissionDeniedError(
      absl::StrCat(what, ": organizers only; ask the organizers (your token is ",
                   RoleName(who), " ", who.name, "'s)"));
}

bool AccessPolicy::SeesSubmissionsOf(const Identity& who, absl::string_view team) const {
  if (who.is_organizer()) return true;
  if (who.is_team()) return who.name == team;
  return allow_anonymous_ && who.role == Identity::Role::kAnonymous;
}

const char* RoleName(const Identity& who) {
  switch (who.role) {
    case Identity::Role::kOrganizer: return "organizer";
    case Identity::Role::kTeam: return "team";
    case Identity::Role::kWorker: return "worker";
    case Identity::Role::kCoordinator:
      return "coordinator";
    case Identity::Role::kAnonymous: break;
  }
  return "anonymous";
}

bool SeesQueueDetails(const Identity& who) { return who.is_organizer(); }

}  // namespace bbo
