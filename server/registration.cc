#include "server/registration.h"

#include <sodium.h>

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/competition.h"
#include "server/notify/notifier.h"

namespace bbo {
namespace {

// "bbo_<kind>_" and 24 random bytes in unpadded base64url.
std::string RandomCode(const char* kind) {
  unsigned char raw[24];
  randombytes_buf(raw, sizeof(raw));
  char encoded[sodium_base64_ENCODED_LEN(sizeof(raw), sodium_base64_VARIANT_URLSAFE_NO_PADDING)];
  sodium_bin2base64(encoded, sizeof(encoded), raw, sizeof(raw),
                    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  return absl::StrCat("bbo_", kind, "_", encoded);
}

// A code as pasted: surrounding blanks dropped; anything implausible is refused before it is
// hashed or looked up.
std::string Trimmed(const std::string& s) { return std::string(absl::StripAsciiWhitespace(s)); }
bool PlausibleCode(const std::string& code, const char* kind) {
  if (code.size() > 128 || !absl::StartsWith(code, absl::StrCat("bbo_", kind, "_"))) return false;
  for (char c : code) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

}  // namespace

const char* RegistrationModeName(RegistrationMode mode) {
  switch (mode) {
    case RegistrationMode::kOpen: return "open";
    case RegistrationMode::kInviteCode: return "invite_code";
    case RegistrationMode::kApproval: return "approval";
    case RegistrationMode::kClosed: break;
  }
  return "closed";
}

std::optional<RegistrationMode> RegistrationModeFromName(const std::string& name) {
  for (RegistrationMode m : {RegistrationMode::kClosed, RegistrationMode::kOpen,
                             RegistrationMode::kInviteCode, RegistrationMode::kApproval}) {
    if (name == RegistrationModeName(m)) return m;
  }
  return std::nullopt;
}

absl::Status Registrations::CheckRequest(const RegistrationRequest& r) const {
  if (!ValidOwnerName(r.team)) {
    return absl::InvalidArgumentError(
        "team: 1 to 64 letters, digits, '.', '_' or '-' (it names your team on the boards)");
  }
  if (!r.email.empty()) {
    if (absl::Status s = notify::ValidateEmailAddress(r.email); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("email: ", s.message()));
    }
  }
  if (!competition_->terms().empty() && !r.accept_terms) {
    return absl::InvalidArgumentError(
        "terms: read the competition's terms and accept them to register");
  }
  if (mode_ == RegistrationMode::kInviteCode && Trimmed(r.invite_code).empty()) {
    return absl::InvalidArgumentError(
        "invite_code: registering needs an invite code; ask the organizers for one");
  }
  return absl::OkStatus();
}

absl::Status Registrations::CheckBounds(const RegistrationRequest& r) {
  const double now = clock_->NowSeconds();
  ASSIGN_OR_RETURN(const std::vector<RegistrationRecord> all, store_->ListRegistrations());
  // One address may be many applicants' (a campus, a proxy): the window is short, a rejection
  // frees its place, and an invite code's own uses bound what its holders register.
  if (mode_ != RegistrationMode::kInviteCode) {
    int recent = 0;
    for (const RegistrationRecord& x : all) {
      if (x.peer == r.peer && x.created_at > now - kAddressWindowSeconds &&
          x.state != "rejected") {
        ++recent;
      }
    }
    if (recent >= kMaxPerAddress) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "registration: ", kMaxPerAddress, " teams were registered from your address in the "
          "last ", kAddressWindowSeconds / 60, " minutes; try again in a few minutes"));
    }
  }
  ASSIGN_OR_RETURN(const std::vector<CredentialRecord> tokens, store_->ListCredentials());
  std::set<std::string> teams;  // every name taken (a rejected registration keeps its name)
  std::set<std::string> counted;  // the teams counted against max_teams
  int pending = 0;
  for (const RegistrationRecord& x : all) {
    teams.insert(x.team);
    if (x.state != "rejected") counted.insert(x.team);
    if (x.state == "pending") ++pending;
  }
  for (const CredentialRecord& c : tokens) {
    if (c.kind != CredentialKind::kTeam) continue;
    teams.insert(c.owner);
    counted.insert(c.owner);
  }
  if (teams.count(r.team) > 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("team: \"", r.team, "\" is taken; choose another name"));
  }
  if (max_teams_ > 0 && static_cast<int>(counted.size()) >= max_teams_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "registration: the competition has its ", max_teams_, " teams; ask the organizers"));
  }
  if (mode_ == RegistrationMode::kApproval && pending >= kMaxPending) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "registration: ", kMaxPending, " registrations await the organizers; try again later"));
  }
  return absl::OkStatus();
}

absl::StatusOr<RegistrationAnswer> Registrations::Register(const Identity& who,
                                                           const RegistrationRequest& r) {
  if (mode_ == RegistrationMode::kClosed) {
    return absl::FailedPreconditionError(
        "registration: this competition does not take registrations on its page; the "
        "organizers issue each team's token");
  }
  if (who.role != Identity::Role::kAnonymous) {
    return absl::FailedPreconditionError(
        absl::StrCat("registration: you are signed in as ", who.Describe(),
                     "; sign out to register another team"));
  }
  RETURN_IF_ERROR(CheckRequest(r));
  RETURN_IF_ERROR(CheckBounds(r));
  const std::string claim = RandomCode("claim");
  RegistrationRecord rec;
  rec.team = r.team;
  rec.email = r.email;
  rec.claim_hash = credentials_->Hash(claim);
  rec.peer = r.peer;
  rec.created_at = clock_->NowSeconds();
  rec.terms_accepted_at = competition_->terms().empty() ? 0 : rec.created_at;
  std::string invite_hash;
  if (mode_ == RegistrationMode::kInviteCode) {
    const std::string code = Trimmed(r.invite_code);
    if (!PlausibleCode(code, "invite")) {
      return absl::PermissionDeniedError(
          "invite_code: not an invite code (they start with bbo_invite_); paste it as given");
    }
    invite_hash = credentials_->Hash(code);
  }
  if (mode_ != RegistrationMode::kApproval) {
    rec.state = "approved";
    rec.decided_at = rec.created_at;
    rec.decided_by = mode_ == RegistrationMode::kOpen ? "open registration" : "invite code";
  }
  if (absl::Status s = store_->AddRegistration(rec, invite_hash); !s.ok()) {
    if (absl::IsNotFound(s)) {
      return absl::PermissionDeniedError(
          "invite_code: this code is unknown, used up or revoked; ask the organizers for another");
    }
    if (absl::IsAlreadyExists(s)) {
      return absl::AlreadyExistsError(
          absl::StrCat("team: \"", r.team, "\" is taken; choose another name"));
    }
    return s;
  }
  RegistrationAnswer a;
  a.team = r.team;
  if (mode_ == RegistrationMode::kApproval) {
    a.state = "pending";
    a.claim = claim;
    a.message =
        "your registration awaits the organizers; keep this claim code: once they approve, it "
        "gives your team's token, once";
    return a;
  }
  ASSIGN_OR_RETURN(a.token, HandOver(rec));
  a.state = "registered";
  a.message = "this is your team's token, shown once: store it (e.g. in a file for bbo "
              "--token_file) and sign in with it";
  return a;
}

absl::StatusOr<std::string> Registrations::HandOver(const RegistrationRecord& r) {
  ASSIGN_OR_RETURN(const bool first, store_->MarkTokenIssued(r.team, clock_->NowSeconds()));
  if (!first) {
    return absl::FailedPreconditionError(
        "claim: your team's token was shown once already; if it is lost, ask the organizers to "
        "rotate it (bbo admin team rotate NAME)");
  }
  ASSIGN_OR_RETURN(std::string token, credentials_->Issue(CredentialKind::kTeam, r.team));
  if (!r.email.empty()) {
    // Where the team is told what happened; a failure here does not lose the token.
    (void)competition_->SetContact(Identity::Team(r.team), r.team, r.email, "");
  }
  return token;
}

absl::StatusOr<RegistrationAnswer> Registrations::Claim(const std::string& claim) {
  const std::string code = Trimmed(claim);
  if (!PlausibleCode(code, "claim")) {
    return absl::InvalidArgumentError(
        "claim: not a claim code (they start with bbo_claim_); paste it as the page showed it");
  }
  ASSIGN_OR_RETURN(std::optional<RegistrationRecord> r,
                   store_->FindRegistrationByClaim(credentials_->Hash(code)));
  if (!r) return absl::NotFoundError("claim: no registration holds this claim code");
  RegistrationAnswer a;
  a.team = r->team;
  if (r->state == "pending") {
    a.state = "pending";
    a.message = "your registration still awaits the organizers";
    return a;
  }
  if (r->state == "rejected") {
    a.state = "rejected";
    a.message = absl::StrCat("the organizers declined the registration: ", r->reason);
    return a;
  }
  ASSIGN_OR_RETURN(a.token, HandOver(*r));
  a.state = "registered";
  a.message = "approved: this is your team's token, shown once: store it and sign in with it";
  return a;
}

absl::StatusOr<std::vector<RegistrationRecord>> Registrations::List() {
  return store_->ListRegistrations();
}

absl::Status Registrations::Decide(const std::string& team, bool approve,
                                   const std::string& decided_by, const std::string& reason) {
  if (!approve && Trimmed(reason).empty()) {
    return absl::InvalidArgumentError("reason: say why (the team is shown it)");
  }
  return store_->DecideRegistration(team, approve ? "approved" : "rejected", decided_by,
                                    Trimmed(reason), clock_->NowSeconds());
}

absl::StatusOr<std::pair<int64_t, std::string>> Registrations::IssueInvite(
    int uses, const std::string& note, const std::string& created_by) {
  if (uses < 1 || uses > 100000) {
    return absl::InvalidArgumentError("uses: from 1 to 100000 registrations per code");
  }
  if (note.size() > 200) return absl::InvalidArgumentError("note: at most 200 bytes");
  const std::string code = RandomCode("invite");
  InviteRecord invite;
  invite.code_hash = credentials_->Hash(code);
  invite.uses_left = uses;
  invite.note = note;
  invite.created_by = created_by;
  invite.created_at = clock_->NowSeconds();
  ASSIGN_OR_RETURN(const int64_t id, store_->AddInvite(invite));
  return std::make_pair(id, code);
}

absl::Status Registrations::RevokeInvite(int64_t id) {
  return store_->RevokeInvite(id, clock_->NowSeconds());
}

absl::StatusOr<std::vector<InviteRecord>> Registrations::Invites() {
  return store_->ListInvites();
}

}  // namespace bbo
