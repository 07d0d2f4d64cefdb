// Competition: where each team wants to be told what happened to it (server/notifications.h).

#include <string>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/competition.h"
#include "server/notify/notifier.h"

namespace bbo {

absl::StatusOr<TeamContact> Competition::SetContact(const Identity& who, const std::string& team,
                                                    const std::string& email,
                                                    const std::string& webhook_url) {
  ASSIGN_OR_RETURN(const std::string whose, AccessPolicy().ContactTeam(who, team));
  if (!ValidName(whose)) {
    return absl::InvalidArgumentError(
        absl::StrCat("team: \"", whose, "\" is not a team name (letters, digits, '-', '_', '.')"));
  }
  if (!email.empty()) {
    if (absl::Status s = notify::ValidateEmailAddress(email); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("email: ", s.message()));
    }
  }
  if (!webhook_url.empty()) {
    if (absl::Status s = notify::ValidateWebhookUrl(webhook_url, allow_private_webhooks_);
        !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("webhook_url: ", s.message()));
    }
  }
  TeamContact contact{whose, email, webhook_url, calendar_->NowSeconds()};
  RETURN_IF_ERROR(store_->SetTeamContact(contact));
  return contact;
}

absl::StatusOr<TeamContact> Competition::Contact(const Identity& who, const std::string& team) {
  ASSIGN_OR_RETURN(const std::string whose, AccessPolicy().ContactTeam(who, team));
  ASSIGN_OR_RETURN(std::optional<TeamContact> contact, store_->GetTeamContact(whose));
  if (contact) return *contact;
  TeamContact none;
  none.team = whose;
  return none;
}

}  // namespace bbo
