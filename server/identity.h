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
// Refused tokens are bounded per caller address (AuthenticateFrom), and so is the audit log:
// refused calls are written at most CredentialsOptions::refusal_rows_per_minute per caller and
// action (the others are counted in the next row written), and the log keeps its latest
// audit_rows_kept rows.
//
// Thread-safe.

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "server/access.h"
#include "server/store/identity_store.h"

namespace bbo {

struct CredentialsOptions {
  // Refused tokens per caller address: a bucket of `refusal_burst`, refilled by one every
  // `refusal_refill_seconds` (default: 10 at once, then 10 a minute).
  int refusal_burst = 10;
  double refusal_refill_seconds = 6;
  // Addresses remembered at most; beyond, new addresses share one bucket.
  int refusal_addresses = 65536;
  // Whether callers on this machine (127.0.0.0/8, ::1, a unix socket) are bounded too. Off by
  // default: they are the host's own tools; a reverse proxy on the host must pass the client's
  // address (the web port's trusted X-Forwarded-For), or its callers go unbounded.
  bool bound_loopback = false;
  // Audit rows of refused calls per caller ("anonymous", "team:red", ...) and action per minute;
  // the refusals not written are counted in the next row written for them.
  int refusal_rows_per_minute = 10;
  // The audit log keeps its latest rows, this many (checked every 1,000 rows written).
  int64_t audit_rows_kept = 100000;
};

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
  Credentials(IdentityStore* store, std::string secret, Clock* clock,
              CredentialsOptions options = CredentialsOptions());

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
  // Authenticate(token) for a caller at address `peer` (the client's address without its port,
  // as the transport knows it: behind a trusted proxy, the address it forwards; "" = unknown,
  // then not bounded). A valid token always authenticates; a refused one (Unauthenticated) is
  // counted against `peer` (unless a loopback address: CredentialsOptions::bound_loopback, with
  // or without gRPC's "ipv4:"/"ipv6:" prefix), and once `peer` is over its bound a refused
  // token is answered ResourceExhausted, saying when to retry, instead: the transports audit
  // Unauthenticated answers, not ResourceExhausted ones, so an address flooding wrong tokens
  // writes a bounded number of audit rows. Every transport calls this, not Authenticate.
  absl::StatusOr<Identity> AuthenticateFrom(absl::string_view token, absl::string_view peer) const;

  // Records an organizer action or a refused call in the audit log (errors are logged, not
  // returned: the audit never blocks a call). `detail` is cut to 512 bytes. Refused calls
  // (`allowed` false) are written at most refusal_rows_per_minute per (who, action); the log is
  // trimmed to its latest audit_rows_kept rows.
  void Audit(const Identity& who, absl::string_view action, bool allowed,
             absl::string_view detail) const;

  // The keyed hash of `token` (32 bytes).
  std::string Hash(absl::string_view token) const;

 private:
  // Whether a refused call of (who, action) is written now; `*skipped` = the refusals of that
  // key not written since its last row.
  bool TakeRefusalRow(const std::string& key, double now, int64_t* skipped) const;
  void TrimAuditIfDue() const;

  IdentityStore* store_;
  const std::string secret_;
  Clock* clock_;
  const CredentialsOptions options_;

  struct Bucket {
    double tokens = 0;
    double at = 0;  // seconds (clock_)
  };
  struct RowWindow {
    double start = 0;  // seconds (clock_)
    int written = 0;
    int64_t skipped = 0;
  };
  mutable absl::Mutex mu_;
  // Refused tokens per address ("" never counted; "*" is every address beyond the bound).
  mutable std::map<std::string, Bucket, std::less<>> refusals_ ABSL_GUARDED_BY(mu_);
  // Refused-call rows per "who|action", this minute.
  mutable std::map<std::string, RowWindow> refusal_rows_ ABSL_GUARDED_BY(mu_);
  mutable int64_t rows_since_trim_ ABSL_GUARDED_BY(mu_) = 0;
};

// Whether `name` is a valid team or worker name: [A-Za-z0-9._-]{1,64}.
bool ValidOwnerName(absl::string_view name);

}  // namespace bbo

#endif  // BBO_SERVER_IDENTITY_H_
