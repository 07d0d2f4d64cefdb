// SqliteStore: the RegistrationStore methods.

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/store/internal/sqlite_rows.h"
#include "server/store/sqlite_store.h"

namespace bbo {

using store_internal::ForEachRow;

namespace {

// The columns RegistrationOf reads (a macro: statements are string literals, cached by address).
#define BBO_REGISTRATION_COLUMNS                                                               \
  "team, email, state, claim_hash, COALESCE(invite_id, 0), terms_accepted_at, peer, created_at," \
  " decided_at, decided_by, reason, token_issued_at"

RegistrationRecord RegistrationOf(const sqlite::Statement& r) {
  RegistrationRecord x;
  x.team = r.Text(0);
  x.email = r.Text(1);
  x.state = r.Text(2);
  x.claim_hash = r.Blob(3);
  x.invite_id = r.Int(4);
  x.terms_accepted_at = r.Double(5);
  x.peer = r.Text(6);
  x.created_at = r.Double(7);
  x.decided_at = r.Double(8);
  x.decided_by = r.Text(9);
  x.reason = r.Text(10);
  x.token_issued_at = r.Double(11);
  return x;
}

}  // namespace

absl::Status SqliteStore::AddRegistration(const RegistrationRecord& r,
                                          const std::string& invite_hash) {
  absl::MutexLock l(&mu_);
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto* taken, Stmt("SELECT 1 FROM registrations WHERE team = ?"));
  taken->Bind(1, r.team);
  ASSIGN_OR_RETURN(const bool exists, taken->Step());
  taken->Reset();
  if (exists) {
    return absl::AlreadyExistsError(absl::StrCat("team \"", r.team, "\" is registered already"));
  }
  int64_t invite_id = 0;
  if (!invite_hash.empty()) {
    ASSIGN_OR_RETURN(auto* use, Stmt("UPDATE invites SET uses_left = uses_left - 1"
                                     " WHERE code_hash = ? AND uses_left > 0"
                                     " AND revoked_at IS NULL RETURNING id"));
    use->BindBlob(1, invite_hash);
    ASSIGN_OR_RETURN(const bool used, use->Step());
    if (used) invite_id = use->Int(0);
    use->Reset();
    if (!used) return absl::NotFoundError("no such invite code with uses left");
  }
  ASSIGN_OR_RETURN(auto* ins,
                   Stmt("INSERT INTO registrations (team, email, state, claim_hash, invite_id,"
                        " terms_accepted_at, peer, created_at, decided_at, decided_by, reason,"
                        " token_issued_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  ins->Bind(1, r.team).Bind(2, r.email).Bind(3, r.state).BindBlob(4, r.claim_hash);
  if (invite_id > 0) {
    ins->Bind(5, invite_id);
  } else {
    ins->BindNull(5);
  }
  ins->Bind(6, r.terms_accepted_at).Bind(7, r.peer).Bind(8, r.created_at).Bind(9, r.decided_at);
  ins->Bind(10, r.decided_by).Bind(11, r.reason).Bind(12, r.token_issued_at);
  RETURN_IF_ERROR(ins->Run());
  return tx.Commit();
}

absl::StatusOr<std::optional<RegistrationRecord>> SqliteStore::GetRegistration(
    const std::string& team) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT " BBO_REGISTRATION_COLUMNS
                                 " FROM registrations WHERE team = ?"));
  q->Bind(1, team);
  ASSIGN_OR_RETURN(bool row, q->Step());
  std::optional<RegistrationRecord> out;
  if (row) out = RegistrationOf(*q);
  q->Reset();
  return out;
}

absl::StatusOr<std::optional<RegistrationRecord>> SqliteStore::FindRegistrationByClaim(
    const std::string& claim_hash) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT " BBO_REGISTRATION_COLUMNS
                                 " FROM registrations WHERE claim_hash = ?"));
  q->BindBlob(1, claim_hash);
  ASSIGN_OR_RETURN(bool row, q->Step());
  std::optional<RegistrationRecord> out;
  if (row) out = RegistrationOf(*q);
  q->Reset();
  return out;
}

absl::StatusOr<std::vector<RegistrationRecord>> SqliteStore::ListRegistrations() {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT " BBO_REGISTRATION_COLUMNS
                                 " FROM registrations ORDER BY created_at, team"));
  std::vector<RegistrationRecord> out;
  RETURN_IF_ERROR(
      ForEachRow(*q, [&](const sqlite::Statement& r) { out.push_back(RegistrationOf(r)); }));
  return out;
}

absl::StatusOr<int> SqliteStore::CountRegistrationsFrom(const std::string& peer, double since) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT COUNT(*) FROM registrations"
                                 " WHERE peer = ? AND created_at >= ?"));
  q->Bind(1, peer).Bind(2, since);
  ASSIGN_OR_RETURN(bool row, q->Step());
  const int n = row ? static_cast<int>(q->Int(0)) : 0;
  q->Reset();
  return n;
}

absl::Status SqliteStore::DecideRegistration(const std::string& team, const std::string& state,
                                             const std::string& decided_by,
                                             const std::string& reason, double at) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE registrations SET state = ?, decided_by = ?,"
                                 " reason = ?, decided_at = ? WHERE team = ? AND state = 'pending'"));
  u->Bind(1, state).Bind(2, decided_by).Bind(3, reason).Bind(4, at).Bind(5, team);
  RETURN_IF_ERROR(u->Run());
  if (db_->Changes() > 0) return absl::OkStatus();
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT state FROM registrations WHERE team = ?"));
  q->Bind(1, team);
  ASSIGN_OR_RETURN(bool row, q->Step());
  const std::string now_state = row ? q->Text(0) : "";
  q->Reset();
  if (!row) return absl::NotFoundError(absl::StrCat("no registration of team \"", team, "\""));
  return absl::FailedPreconditionError(
      absl::StrCat("the registration of team \"", team, "\" is ", now_state, " already"));
}

absl::StatusOr<bool> SqliteStore::MarkTokenIssued(const std::string& team, double at) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE registrations SET token_issued_at = ?"
                                 " WHERE team = ? AND token_issued_at = 0"));
  u->Bind(1, at).Bind(2, team);
  RETURN_IF_ERROR(u->Run());
  return db_->Changes() > 0;
}

absl::StatusOr<int64_t> SqliteStore::AddInvite(const InviteRecord& invite) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* ins, Stmt("INSERT INTO invites (code_hash, uses_left, note, created_by,"
                                   " created_at) VALUES (?, ?, ?, ?, ?)"));
  ins->BindBlob(1, invite.code_hash).Bind(2, invite.uses_left).Bind(3, invite.note);
  ins->Bind(4, invite.created_by).Bind(5, invite.created_at);
  RETURN_IF_ERROR(ins->Run());
  return db_->LastInsertId();
}

absl::StatusOr<std::vector<InviteRecord>> SqliteStore::ListInvites() {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT id, code_hash, uses_left, note, created_by, created_at,"
                                 " COALESCE(revoked_at, 0) FROM invites ORDER BY id"));
  std::vector<InviteRecord> out;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) {
    InviteRecord i;
    i.id = r.Int(0);
    i.code_hash = r.Blob(1);
    i.uses_left = static_cast<int>(r.Int(2));
    i.note = r.Text(3);
    i.created_by = r.Text(4);
    i.created_at = r.Double(5);
    i.revoked_at = r.Double(6);
    out.push_back(std::move(i));
  }));
  return out;
}

absl::Status SqliteStore::RevokeInvite(int64_t id, double at) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE invites SET revoked_at = ?"
                                 " WHERE id = ? AND revoked_at IS NULL"));
  u->Bind(1, at).Bind(2, id);
  RETURN_IF_ERROR(u->Run());
  if (db_->Changes() == 0) {
    return absl::NotFoundError(absl::StrCat("no live invite code with id ", id));
  }
  return absl::OkStatus();
}

}  // namespace bbo

#undef BBO_REGISTRATION_COLUMNS
