#include "server/identity.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_format.h"
#include "common/utf8.h"
#include "spdlog/spdlog.h"

namespace bbo {
namespace {

constexpr size_t kSecretBytes = 32;
constexpr size_t kTokenBytes = 32;
constexpr size_t kHashBytes = 32;

const char* TokenPrefix(CredentialKind kind) {
  switch (kind) {
    case CredentialKind::kOrganizer:
      return "bbo_org_";
    case CredentialKind::kTeam:
      return "bbo_team_";
    case CredentialKind::kWorker:
      return "bbo_worker_";
  }
  return "bbo_";
}

bool InitSodium() {
  static const bool ok = sodium_init() >= 0;
  return ok;
}

absl::Status Unauthenticated(absl::string_view why) {
  return absl::UnauthenticatedError(absl::StrCat(
      why, "; check BBO_TOKEN / --token_file, or ask the organizer for a new token"));
}

// "127.0.0.1", "ipv4:127.0.0.1", "::1", "ipv6:[::1]", "[::1]", "unix:/path", "localhost".
bool IsLoopbackPeer(absl::string_view peer) {
  if (absl::StartsWith(peer, "unix:")) return true;
  if (!absl::ConsumePrefix(&peer, "ipv4:")) absl::ConsumePrefix(&peer, "ipv6:");
  absl::ConsumePrefix(&peer, "[");
  absl::ConsumeSuffix(&peer, "]");
  return absl::StartsWith(peer, "127.") || peer == "::1" || peer == "localhost" ||
         absl::StartsWith(peer, "::ffff:127.");
}

}  // namespace

bool ValidOwnerName(absl::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string Credentials::RandomSecret() {
  InitSodium();
  std::string secret(kSecretBytes, '\0');
  randombytes_buf(secret.data(), secret.size());
  return secret;
}

std::string Credentials::SecretPathFor(const std::string& db_path) {
  return db_path + ".secret";
}

absl::StatusOr<std::string> Credentials::LoadOrCreateSecret(const std::string& path) {
  if (!InitSodium()) return absl::InternalError("libsodium failed to initialise");
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    unsigned char key[kSecretBytes];
    randombytes_buf(key, sizeof(key));
    fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      return absl::UnavailableError(
          absl::StrCat("cannot create the token secret ", path, ": ", strerror(errno)));
    }
    const bool written = write(fd, key, sizeof(key)) == static_cast<ssize_t>(sizeof(key)) &&
                         fsync(fd) == 0;
    close(fd);
    sodium_memzero(key, sizeof(key));
    if (!written) {
      unlink(path.c_str());
      return absl::UnavailableError(absl::StrCat("cannot write the token secret ", path));
    }
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot read the token secret ", path, ": ", strerror(errno)));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || (st.st_mode & 077) != 0) {
    close(fd);
    return absl::FailedPreconditionError(absl::StrCat(
        "the token secret ", path, " is readable by other users: chmod 600 ", path));
  }
  std::string secret(kSecretBytes + 1, '\0');
  const ssize_t n = read(fd, secret.data(), secret.size());
  close(fd);
  if (n != static_cast<ssize_t>(kSecretBytes)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the token secret ", path, " must hold exactly ", kSecretBytes, " bytes"));
  }
  secret.resize(kSecretBytes);
  return secret;
}

Credentials::Credentials(IdentityStore* store, std::string secret, Clock* clock,
                         CredentialsOptions options)
    : store_(store), secret_(std::move(secret)), clock_(clock), options_(options) {
  InitSodium();
}

std::string Credentials::Hash(absl::string_view token) const {
  std::string out(kHashBytes, '\0');
  crypto_generichash(reinterpret_cast<unsigned char*>(out.data()), out.size(),
                     reinterpret_cast<const unsigned char*>(token.data()), token.size(),
                     reinterpret_cast<const unsigned char*>(secret_.data()), secret_.size());
  return out;
}

absl::StatusOr<std::string> Credentials::Issue(CredentialKind kind, const std::string& owner) {
  if (kind != CredentialKind::kOrganizer && !ValidOwnerName(owner)) {
    return absl::InvalidArgumentError(absl::StrCat(
        CredentialKindName(kind), " name must be 1 to 64 of [A-Za-z0-9._-], got \"",
        TruncateUtf8(owner, 80), "\""));
  }
  unsigned char raw[kTokenBytes];
  randombytes_buf(raw, sizeof(raw));
  char encoded[sodium_base64_ENCODED_LEN(kTokenBytes, sodium_base64_VARIANT_URLSAFE_NO_PADDING)];
  sodium_bin2base64(encoded, sizeof(encoded), raw, sizeof(raw),
                    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  sodium_memzero(raw, sizeof(raw));
  std::string token = absl::StrCat(TokenPrefix(kind), encoded);
  CredentialRecord c;
  c.kind = kind;
  c.owner = owner;
  c.token_hash = Hash(token);
  c.created_at = clock_->NowSeconds();
  absl::StatusOr<int64_t> id = store_->AddCredential(c);
  if (!id.ok()) return id.status();
  return token;
}

absl::Status Credentials::Revoke(CredentialKind kind, const std::string& owner) {
  absl::StatusOr<int> n = store_->RevokeCredentials(kind, owner, clock_->NowSeconds());
  if (!n.ok()) return n.status();
  if (*n == 0) {
    return absl::NotFoundError(
        absl::StrCat("no live ", CredentialKindName(kind), " token for \"", owner, "\""));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Credentials::Rotate(CredentialKind kind, const std::string& owner) {
  absl::Status revoked = Revoke(kind, owner);
  if (!revoked.ok() && !absl::IsNotFound(revoked)) return revoked;
  return Issue(kind, owner);
}

absl::StatusOr<Identity> Credentials::Authenticate(absl::string_view token) const {
  if (token.empty()) return Identity::Anonymous();
  if (!absl::StartsWith(token, "bbo_") || token.size() > 128) {
    return Unauthenticated("the token is malformed");
  }
  const std::string hash = Hash(token);
  absl::StatusOr<std::optional<CredentialRecord>> found = store_->FindCredential(hash);
  if (!found.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot check the token: ", found.status().message()));
  }
  if (!found->has_value() || (*found)->token_hash.size() != hash.size() ||
      sodium_memcmp((*found)->token_hash.data(), hash.data(), hash.size()) != 0) {
    return Unauthenticated("the token is not known here");
  }
  const CredentialRecord& c = **found;
  if (c.revoked_at.has_value()) return Unauthenticated("the token was revoked");
  switch (c.kind) {
    case CredentialKind::kOrganizer:
      return Identity{Identity::Role::kOrganizer, c.owner};
    case CredentialKind::kTeam:
      return Identity::Team(c.owner);
    case CredentialKind::kWorker:
      return Identity::Worker(c.owner);
  }
  return Unauthenticated("the token is not known here");
}

absl::StatusOr<Identity> Credentials::AuthenticateFrom(absl::string_view token,
                                                       absl::string_view peer) const {
  // The token is checked even from an address over its bound: a valid one is cheap to check and
  // must not be locked out by another caller sharing the address.
  absl::StatusOr<Identity> who = Authenticate(token);
  if (who.ok() || !absl::IsUnauthenticated(who.status()) || peer.empty()) return who;
  if (!options_.bound_loopback && IsLoopbackPeer(peer)) return who;
  const double now = clock_->NowSeconds();
  absl::MutexLock l(&mu_);
  auto it = refusals_.find(peer);
  if (it == refusals_.end()) {
    if (static_cast<int>(refusals_.size()) >= options_.refusal_addresses) {
      // Forget the addresses whose buckets are full again.
      const double full = options_.refusal_burst * options_.refusal_refill_seconds;
      for (auto i = refusals_.begin(); i != refusals_.end();) {
        i = now - i->second.at >= full ? refusals_.erase(i) : std::next(i);
      }
    }
    const bool room = static_cast<int>(refusals_.size()) < options_.refusal_addresses;
    it = refusals_.try_emplace(room ? std::string(peer) : std::string("*"),
                               Bucket{static_cast<double>(options_.refusal_burst), now})
             .first;
  }
  Bucket& b = it->second;
  b.tokens = std::min<double>(options_.refusal_burst,
                              b.tokens + (now - b.at) / options_.refusal_refill_seconds);
  b.at = now;
  if (b.tokens < 1) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "too many refused tokens from %s (at most %d, then one every %g s); check BBO_TOKEN / "
        "--token_file and retry in %.0f s",
        it->first == "*" ? std::string("new addresses") : it->first, options_.refusal_burst,
        options_.refusal_refill_seconds, (1 - b.tokens) * options_.refusal_refill_seconds + 0.5));
  }
  b.tokens -= 1;
  return who;
}

bool Credentials::TakeRefusalRow(const std::string& key, double now, int64_t* skipped) const {
  absl::MutexLock l(&mu_);
  if (refusal_rows_.size() > 10000) {
    for (auto i = refusal_rows_.begin(); i != refusal_rows_.end();) {
      i = now - i->second.start >= 60 && i->second.skipped == 0 ? refusal_rows_.erase(i)
                                                                 : std::next(i);
    }
    if (refusal_rows_.size() > 10000) refusal_rows_.clear();  // a flood of names: start over
  }
  RowWindow& w = refusal_rows_[key];
  if (now - w.start >= 60) {
    w.start = now;
    w.written = 0;
  }
  if (w.written >= options_.refusal_rows_per_minute) {
    ++w.skipped;
    return false;
  }
  ++w.written;
  *skipped = w.skipped;
  w.skipped = 0;
  return true;
}

void Credentials::TrimAuditIfDue() const {
  {
    absl::MutexLock l(&mu_);
    if (++rows_since_trim_ < 1000) return;
    rows_since_trim_ = 0;
  }
  absl::StatusOr<int> trimmed = store_->TrimAudit(options_.audit_rows_kept);
  if (!trimmed.ok()) spdlog::warn("audit: trimming: {}", trimmed.status().ToString());
}

void Credentials::Audit(const Identity& who, absl::string_view action, bool allowed,
                        absl::string_view detail) const {
  AuditRecord a;
  a.at = clock_->NowSeconds();
  a.who = who.Describe();
  a.action = TruncateUtf8(action, 128);
  a.allowed = allowed;
  a.detail = TruncateUtf8(detail, 512);
  if (!allowed) {
    int64_t skipped = 0;
    if (!TakeRefusalRow(absl::StrCat(a.who, "|", a.action), a.at, &skipped)) return;
    if (skipped > 0) {
      a.detail = TruncateUtf8(
          absl::StrCat(a.detail, " (and ", skipped, " more such refusals not written)"), 512);
    }
  }
  absl::StatusOr<int64_t> id = store_->AppendAudit(a);
  if (!id.ok()) spdlog::warn("audit: {}", id.status().ToString());
  TrimAuditIfDue();
}

}  // namespace bbo
