// SqliteStore: the IdentityStore methods.

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/store/sqlite_store.h"

namespace bbo {
namespace {

CredentialRecord CredentialFromRow(const sqlite::Statement& q) {
  CredentialRecord c;
  c.id = q.Int(0);
  c.kind = CredentialKindFromName(q.Text(1)).value_or(CredentialKind::kTeam);
  c.owner = q.Text(2);
  c.token_hash = q.Blob(3);
  c.created_at = q.Double(4);
  if (!q.IsNull(5)) c.revoked_at = q.Double(5);
  return c;
}

}  // namespace

absl::StatusOr<int64_t> SqliteStore::AddCredential(const CredentialRecord& c) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* ins, Stmt("INSERT INTO credentials (kind, owner, token_hash, created_at)"
                                   " VALUES (?, ?, ?, ?)"));
  ins->Bind(1, CredentialKindName(c.kind)).Bind(2, c.owner).BindBlob(3, c.token_hash);
  ins->Bind(4, c.created_at);
  RETURN_IF_ERROR(ins->Run());
  return db_->LastInsertId();
}

absl::StatusOr<std::optional<CredentialRecord>> SqliteStore::FindCredential(
    const std::string& token_hash) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT id, kind, owner, token_hash, created_at, revoked_at"
                                 " FROM credentials WHERE token_hash = ?"));
  q->BindBlob(1, token_hash);
  ASSIGN_OR_RETURN(bool row, q->Step());
  std::optional<CredentialRecord> out;
  if (row) out = CredentialFromRow(*q);
  q->Reset();
  return out;
}

absl::StatusOr<int> SqliteStore::RevokeCredentials(CredentialKind kind, const std::string& owner,
                                                   double now) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE credentials SET revoked_at = ?"
                                 " WHERE kind = ? AND owner = ? AND revoked_at IS NULL"));
  u->Bind(1, now).Bind(2, CredentialKindName(kind)).Bind(3, owner);
  RETURN_IF_ERROR(u->Run());
  return db_->Changes();
}

absl::StatusOr<std::vector<CredentialRecord>> SqliteStore::ListCredentials() {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT id, kind, owner, token_hash, created_at, revoked_at"
                                 " FROM credentials ORDER BY id"));
  std::vector<CredentialRecord> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(CredentialFromRow(*q));
  }
  q->Reset();
  return out;
}

absl::StatusOr<int64_t> SqliteStore::AppendAudit(const AuditRecord& a) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* ins, Stmt("INSERT INTO audit (at, who, action, allowed, detail)"
                                   " VALUES (?, ?, ?, ?, ?)"));
  ins->Bind(1, a.at).Bind(2, a.who).Bind(3, a.action).Bind(4, a.allowed ? 1 : 0);
  ins->Bind(5, a.detail);
  RETURN_IF_ERROR(ins->Run());
  return db_->LastInsertId();
}

absl::StatusOr<int> SqliteStore::TrimAudit(int64_t keep) {
  absl::MutexLock l(&mu_);
  // Ids grow with each entry (INTEGER PRIMARY KEY, never reused after the latest is kept).
  ASSIGN_OR_RETURN(auto* del, Stmt("DELETE FROM audit WHERE id <= (SELECT id FROM audit"
                                   " ORDER BY id DESC LIMIT 1 OFFSET ?)"));
  del->Bind(1, std::max<int64_t>(0, keep));
  RETURN_IF_ERROR(del->Run());
  return db_->Changes();
}

absl::StatusOr<std::vector<AuditRecord>> SqliteStore::ListAudit(int limit) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT id, at, who, action, allowed, detail FROM"
                                 " (SELECT * FROM audit ORDER BY id DESC LIMIT ?) ORDER BY id"));
  q->Bind(1, limit);
  std::vector<AuditRecord> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    AuditRecord a;
    a.id = q->Int(0);
    a.at = q->Double(1);
    a.who = q->Text(2);
    a.action = q->Text(3);
    a.allowed = q->Int(4) != 0;
    a.detail = q->Text(5);
    out.push_back(std::move(a));
  }
  q->Reset();
  return out;
}

}  // namespace bbo
