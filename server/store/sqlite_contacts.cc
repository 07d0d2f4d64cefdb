// SqliteStore: the ContactStore methods.

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/store/internal/sqlite_rows.h"
#include "server/store/sqlite_store.h"

namespace bbo {

using store_internal::ForEachRow;

namespace {

TeamContact ContactOf(const sqlite::Statement& r) {
  TeamContact c;
  c.team = r.Text(0);
  c.email = r.Text(1);
  c.webhook_url = r.Text(2);
  c.updated_at = r.Double(3);
  return c;
}

}  // namespace

absl::Status SqliteStore::SetTeamContact(const TeamContact& contact) {
  if (contact.team.empty()) return absl::InvalidArgumentError("a contact needs a team");
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("INSERT INTO team_contacts (team, email, webhook_url, updated_at)"
                                 " VALUES (?, ?, ?, ?) ON CONFLICT (team) DO UPDATE SET"
                                 " email = excluded.email, webhook_url = excluded.webhook_url,"
                                 " updated_at = excluded.updated_at"));
  q->Bind(1, contact.team)
      .Bind(2, contact.email)
      .Bind(3, contact.webhook_url)
      .Bind(4, contact.updated_at);
  return q->Run();
}

absl::StatusOr<std::optional<TeamContact>> SqliteStore::GetTeamContact(const std::string& team) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT team, email, webhook_url, updated_at FROM team_contacts"
                                 " WHERE team = ?"));
  q->Bind(1, team);
  ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return std::nullopt;
  TeamContact c = ContactOf(*q);
  q->Reset();
  return c;
}

absl::StatusOr<std::vector<TeamContact>> SqliteStore::ListTeamContacts() {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT team, email, webhook_url, updated_at FROM team_contacts"
                                 " ORDER BY team"));
  std::vector<TeamContact> out;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) { out.push_back(ContactOf(r)); }));
  return out;
}

absl::StatusOr<bool> SqliteStore::MarkNotified(const std::string& key, double at) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q,
                   Stmt("INSERT OR IGNORE INTO notifications_sent (key, at) VALUES (?, ?)"));
  q->Bind(1, key).Bind(2, at);
  RETURN_IF_ERROR(q->Run());
  return db_->Changes() > 0;
}

}  // namespace bbo
