// InMemoryStore: the ContactStore methods.

#include "server/store/memory_store.h"

namespace bbo {

absl::Status InMemoryStore::SetTeamContact(const TeamContact& contact) {
  if (contact.team.empty()) return absl::InvalidArgumentError("a contact needs a team");
  absl::MutexLock l(&mu_);
  contacts_[contact.team] = contact;
  return absl::OkStatus();
}

absl::StatusOr<std::optional<TeamContact>> InMemoryStore::GetTeamContact(const std::string& team) {
  absl::MutexLock l(&mu_);
  auto it = contacts_.find(team);
  if (it == contacts_.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<std::vector<TeamContact>> InMemoryStore::ListTeamContacts() {
  absl::MutexLock l(&mu_);
  std::vector<TeamContact> out;
  for (const auto& [team, contact] : contacts_) out.push_back(contact);
  return out;  // the map orders teams
}

absl::StatusOr<bool> InMemoryStore::MarkNotified(const std::string& key, double at) {
  absl::MutexLock l(&mu_);
  return notified_.try_emplace(key, at).second;
}

}  // namespace bbo
