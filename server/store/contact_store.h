#ifndef BBO_SERVER_STORE_CONTACT_STORE_H_
#define BBO_SERVER_STORE_CONTACT_STORE_H_

// ContactStore: where each team wants to be told what happened (its e-mail address and webhook
// URL, server/notifications.h) and which one-off notices went out already (a phase's "opened"
// and "closed", once across restarts). Part of the Store contract (server/store/store.h): every
// method is one transaction; implementations are thread-safe.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace bbo {

// A team's addresses for notifications. The store keeps what it is given: the domain
// (Competition::SetContact) validates the addresses first.
struct TeamContact {
  std::string team;
  std::string email;        // bare address; "" = no e-mail
  std::string webhook_url;  // http(s) URL; "" = no webhook
  double updated_at = 0;    // seconds since the Unix epoch
};

class ContactStore {
 public:
  virtual ~ContactStore() = default;
  // Sets (or replaces) `contact.team`'s contact. InvalidArgument for an empty team name.
  virtual absl::Status SetTeamContact(const TeamContact& contact) = 0;
  // `team`'s contact; nullopt when it never set one.
  virtual absl::StatusOr<std::optional<TeamContact>> GetTeamContact(const std::string& team) = 0;
  // Every team's contact, by team name (including those set to "" on both channels).
  virtual absl::StatusOr<std::vector<TeamContact>> ListTeamContacts() = 0;
  // Records the one-off notice `key` (e.g. "phase_opened:final") as sent at `at`: true the first
  // time, false when `key` was recorded before (nothing changes). One statement (INSERT OR
  // IGNORE), so concurrent callers and coordinators on one file agree on who sends it.
  virtual absl::StatusOr<bool> MarkNotified(const std::string& key, double at) = 0;
};

}  // namespace bbo

#endif  // BBO_SERVER_STORE_CONTACT_STORE_H_
