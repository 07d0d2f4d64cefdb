// InMemoryStore: the IdentityStore methods.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "server/store/memory_store.h"

namespace bbo {

absl::StatusOr<int64_t> InMemoryStore::AddCredential(const CredentialRecord& c) {
  absl::MutexLock l(&mu_);
  for (const auto& [id, existing] : credentials_) {
    if (existing.token_hash == c.token_hash) {
      return absl::AlreadyExistsError("constraint failed: credentials.token_hash");
    }
  }
  const int64_t id = credentials_.empty() ? 1 : credentials_.rbegin()->first + 1;
  CredentialRecord& stored = credentials_[id];
  stored = c;
  stored.id = id;
  stored.revoked_at.reset();
  return id;
}

absl::StatusOr<std::optional<CredentialRecord>> InMemoryStore::FindCredential(
    const std::string& token_hash) {
  absl::MutexLock l(&mu_);
  for (const auto& [id, c] : credentials_) {
    if (c.token_hash == token_hash) return std::optional<CredentialRecord>(c);
  }
  return std::optional<CredentialRecord>();
}

absl::StatusOr<int> InMemoryStore::RevokeCredentials(CredentialKind kind,
                                                     const std::string& owner, double now) {
  absl::MutexLock l(&mu_);
  int n = 0;
  for (auto& [id, c] : credentials_) {
    if (c.kind == kind && c.owner == owner && !c.revoked_at.has_value()) {
      c.revoked_at = now;
      ++n;
    }
  }
  return n;
}

absl::StatusOr<std::vector<CredentialRecord>> InMemoryStore::ListCredentials() {
  absl::MutexLock l(&mu_);
  std::vector<CredentialRecord> out;
  for (const auto& [id, c] : credentials_) out.push_back(c);
  return out;
}

absl::StatusOr<int64_t> InMemoryStore::AppendAudit(const AuditRecord& a) {
  absl::MutexLock l(&mu_);
  audit_.push_back(a);
  audit_.back().id = audit_next_id_++;
  return audit_.back().id;
}

absl::StatusOr<int> InMemoryStore::TrimAudit(int64_t keep) {
  absl::MutexLock l(&mu_);
  const int64_t drop = static_cast<int64_t>(audit_.size()) - std::max<int64_t>(0, keep);
  if (drop <= 0) return 0;
  audit_.erase(audit_.begin(), audit_.begin() + drop);
  return static_cast<int>(drop);
}

absl::StatusOr<std::vector<AuditRecord>> InMemoryStore::ListAudit(int limit) {
  absl::MutexLock l(&mu_);
  const size_t n = std::min(audit_.size(), static_cast<size_t>(std::max(0, limit)));
  return std::vector<AuditRecord>(audit_.end() - n, audit_.end());
}

}  // namespace bbo
