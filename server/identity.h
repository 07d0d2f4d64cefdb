#ifndef BBO_SERVER_IDENTITY_H_
#define BBO_SERVER_IDENTITY_H_

// Credentials: issues, checks and revokes the bearer tokens of organizers, teams and workers.
//
// A token is "bbo_<kind>_" followed by 32 random bytes (libsodium's randombytes) in unpadded
// base64url, e.g. "bbo_team_3q2-…". It is shown once, when issued; the store keeps only its
// keyed hash (BLAKE2b, libsodium crypto_generichash, keyed with the coordinator's 32-byte secret,
// a file of its own beside the SQLite file, so a copy of the database alone reveals nothing that
// authenticates). Checking a token hashes it, looks the hash up and compares it again in
// constant time (sodium_memcmp). The transport turns the `authorization: Bearer` metadata into
// an Identity with Authenticate(); what an Identity may do is decided by the domain
// (server/access.h).
//
// Thread-safe.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/clock.h"
#include "server/access.h"
#include "server/store/identity_store.h"

namespace bbo {

class Credentials {
 public:
  // Reads the 32-byte secret at `path`, creating it (mode 0600, random) when missing.
  // FailedPrecondition when it exists with the wrong size or is readable by others.
  static absl::StatusOr<std::string> LoadOrCreateSecret(const std::string& path);
  // A fresh random 32-byte secret (for a coordinator that keeps nothing on disk).
  static std::string RandomSecret();
  // The secret's file for a coordinator's SQLite file: "<db>.secret".
  static std::string SecretPathFor(const std::string& db_path);

  // `store` and `clock` are not owned. `secret` must be 32 bytes.
  Credentials(IdentityStore* store, std::string secret, Clock* clock);

  // A new token for (kind, owner); earlier tokens of the owner stay valid (see Rotate).
  // InvalidArgument for an owner name outside [A-Za-z0-9._-]{1,64} (teams and workers).
  absl::StatusOr<std::string> Issue(CredentialKind kind, const std::string& owner);
  // Revokes every token of (kind, owner); NotFound when it had none live.
  absl::Status Revoke(CredentialKind kind, const std::string& owner);
  // Revoke, then Issue.
  absl::StatusOr<std::string> Rotate(CredentialKind kind, const std::string& owner);

  // The identity a bearer token proves. An empty token is the anonymous caller.
  // Unauthenticated (saying what to do) for a token that is malformed, unknown or revoked;
  // Unavailable when the store cannot be read.
  absl::StatusOr<Identity> Authenticate(absl::string_view token) const;

  // Records an organizer action or a refused call in the audit log (errors are logged, not
  // returned: the audit never blocks a call). `detail` is cut to 512 bytes.
  void Audit(const Identity& who, absl::string_view action, bool allowed,
             absl::string_view detail) const;

  // The keyed hash of `token` (32 bytes).
  std::string Hash(absl::string_view token) const;

 private:
  IdentityStore* store_;
  const std::string secret_;
  Clock* clock_;
};

// Whether `name` is a valid team or worker name: [A-Za-z0-9._-]{1,64}.
bool ValidOwnerName(absl::string_view name);

}  // namespace bbo

#endif  // BBO_SERVER_IDENTITY_H_
