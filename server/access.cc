#include "server/access.h"

#include "absl/strings/str_cat.h"

namespace bbo {

std::string Identity::Describe() const {
  switch (role) {
    case Role::kOrganizer:
      return "organizer";
    case Role::kTeam:
      return absl::StrCat("team:", name);
    case Role::kWorker:
      return absl::StrCat("worker:", name);
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

}  // namespace bbo
