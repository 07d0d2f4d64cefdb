#ifndef BBO_SERVER_STORE_IDENTITY_STORE_H_
#define BBO_SERVER_STORE_IDENTITY_STORE_H_

// IdentityStore: who may call the coordinator (credentials: an organizer, a team or a worker
// with the keyed hash of its token; never the token itself) and the audit log of organizer
// actions and refused calls. Part of the Store contract (server/store/store.h): every method is
// one transaction; implementations are thread-safe.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace bbo {

enum class CredentialKind { kOrganizer, kTeam, kWorker };

// "organizer", "team", "worker"; and back (nullopt for anything else).
const char* CredentialKindName(CredentialKind kind);
std::optional<CredentialKind> CredentialKindFromName(const std::string& name);
// The same, or InvalidArgument saying which kinds there are (for a name a user typed).
absl::StatusOr<CredentialKind> ParseCredentialKind(const std::string& name);

struct CredentialRecord {
  int64_t id = 0;
  CredentialKind kind = CredentialKind::kTeam;
  // The team's or worker's name ("" is allowed for organizers).
  std::string owner;
  // Keyed hash of the token (server/identity.h), 32 bytes.
  std::string token_hash;
  double created_at = 0;
  // Set once revoked; a revoked credential authenticates nobody.
  std::optional<double> revoked_at;
};

struct AuditRecord {
  int64_t id = 0;
  double at = 0;
  // Who acted: "organizer", "team:NAME", "worker:NAME", "anonymous", or "admin@host" for the
  // offline `bbo admin` tool.
  std::string who;
  // What: "team add", "token revoke", "RegisterSubmission", ...
  std::string action;
  bool allowed = true;
  // Bounded free text: the object acted on, or why the call was refused.
  std::string detail;
};

class IdentityStore {
 public:
  virtual ~IdentityStore() = default;

  // Stores a credential; returns its id. AlreadyExists when the hash is stored already.
  virtual absl::StatusOr<int64_t> AddCredential(const CredentialRecord& c) = 0;
  // The credential with this hash (revoked ones included), or nullopt.
  virtual absl::StatusOr<std::optional<CredentialRecord>> FindCredential(
      const std::string& token_hash) = 0;
  // Revokes every live credential of (kind, owner) at `now`; returns how many.
  virtual absl::StatusOr<int> RevokeCredentials(CredentialKind kind, const std::string& owner,
                                                double now) = 0;
  // Every credential, oldest first.
  virtual absl::StatusOr<std::vector<CredentialRecord>> ListCredentials() = 0;

  // Appends to the audit log; returns the entry's id.
  virtual absl::StatusOr<int64_t> AppendAudit(const AuditRecord& a) = 0;
  // The latest `limit` entries, oldest first.
  virtual absl::StatusOr<std::vector<AuditRecord>> ListAudit(int limit) = 0;
  // Deletes every entry but the latest `keep` (>= 1: the ids of later entries keep growing);
  // returns how many were deleted.
  virtual absl::StatusOr<int> TrimAudit(int64_t keep) = 0;
};

}  // namespace bbo

#endif  // BBO_SERVER_STORE_IDENTITY_STORE_H_
