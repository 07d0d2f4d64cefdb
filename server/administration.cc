#include "server/administration.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/coordinator.h"
#include "server/race.h"
#include "server/requeue.h"

namespace bbo {
namespace {

// The status of a StatusOr, for auditing it.
template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& v) {
  return v.status();
}

}  // namespace

absl::Status Administration::Audited(const Identity& who, const std::string& action,
                                     const std::string& about, absl::Status result) {
  // The transports audit refusals of the caller (as they do for every call); an organizer's
  // action is written here, done or failed.
  c_->credentials().Audit(who, absl::StrCat("admin:", action), true,
                          result.ok() ? about
                                      : absl::StrCat(about, " (failed: ", result.message(), ")"));
  return result;
}

absl::Status Administration::RequireOrganizer(const Identity& who, const std::string& action) {
  return AccessPolicy().RequireOrganizer(who, action);
}

absl::Status Administration::Publish(const Identity& who, const std::string& phase, bool undo,
                                     const std::string& reason) {
  const std::string action = undo ? "unpublish" : "publish";
  RETURN_IF_ERROR(RequireOrganizer(who, action));
  absl::StatusOr<Phase*> p = c_->competition().Get(phase);
  absl::Status st = p.ok() ? (*p)->Publish(who, undo, reason) : p.status();
  return Audited(who, action, absl::StrCat("phase ", phase, undo ? ": " + reason : ""), st);
}

absl::Status Administration::StopRace(const std::string& phase, const Identity& who,
                                      const std::string& reason) {
  RETURN_IF_ERROR(RequireOrganizer(who, "stop-race"));
  absl::Status st = c_->competition().Get(phase).status();
  if (st.ok() && c_->race(phase) == nullptr) {
    st = absl::FailedPreconditionError(absl::StrCat("phase \"", phase, "\" is not raced"));
  }
  if (st.ok()) {
    absl::StatusOr<Phase*> p = c_->competition().Get(phase);
    st = RaceDriver::Stop(c_->store(), (*p)->options().phase_key, who.Describe(), reason,
                          c_->clock().NowSeconds());
  }
  return Audited(who, "stop-race", absl::StrCat("phase ", phase, ": ", reason), st);
}

absl::Status Administration::Hide(const Identity& who, int64_t submission_id, bool undo,
                                  const std::string& reason) {
  const std::string action = undo ? "unhide" : "hide";
  RETURN_IF_ERROR(RequireOrganizer(who, action));
  absl::StatusOr<Phase*> p = c_->competition().PhaseOfSubmission(submission_id);
  absl::Status st = p.ok() ? (*p)->Hide(who, submission_id, reason, undo) : p.status();
  return Audited(who, action, absl::StrCat("submission ", submission_id, ": ", reason), st);
}

absl::Status Administration::Disqualify(const Identity& who, const std::string& phase,
                                        const std::string& team, bool undo,
                                        const std::string& reason) {
  const std::string action = undo ? "requalify" : "disqualify";
  RETURN_IF_ERROR(RequireOrganizer(who, action));
  absl::StatusOr<Phase*> p = c_->competition().Get(phase);
  absl::Status st = p.ok() ? (*p)->Disqualify(who, team, reason, undo) : p.status();
  return Audited(who, action, absl::StrCat("team ", team, " in phase ", phase, ": ", reason), st);
}

absl::StatusOr<std::string> Administration::SetFinalist(const Identity& who,
                                                        int64_t submission_id,
                                                        const std::string& reason) {
  RETURN_IF_ERROR(RequireOrganizer(who, "finalist"));
  absl::StatusOr<std::string> next = c_->competition().SetFinalist(who, submission_id, reason);
  RETURN_IF_ERROR(Audited(who, "finalist",
                          absl::StrCat("submission ", submission_id, ": ", reason),
                          StatusOf(next)));
  return next;
}

absl::StatusOr<int> Administration::Withdraw(const Identity& who, int64_t submission_id) {
  RETURN_IF_ERROR(RequireOrganizer(who, "withdraw"));
  absl::StatusOr<Phase*> p = c_->competition().PhaseOfSubmission(submission_id);
  absl::StatusOr<int> n = p.ok() ? (*p)->Withdraw(who, submission_id)
                                 : absl::StatusOr<int>(p.status());
  RETURN_IF_ERROR(
      Audited(who, "withdraw", absl::StrCat("submission ", submission_id), StatusOf(n)));
  return n;
}

absl::StatusOr<std::vector<FailedJob>> Administration::FailedJobs(const Identity& who) {
  RETURN_IF_ERROR(RequireOrganizer(who, "jobs"));
  return c_->store().ListFailedJobs();
}

absl::StatusOr<int> Administration::Requeue(const Identity& who, int64_t job_id) {
  RETURN_IF_ERROR(RequireOrganizer(who, "requeue"));
  absl::StatusOr<int> n = RequeueFailedJobs(c_->store(), job_id);
  RETURN_IF_ERROR(Audited(who, "requeue", job_id == 0 ? "every failed job" :
                          absl::StrCat("job ", job_id), StatusOf(n)));
  if (*n > 0) c_->queue().NotifyChanged();
  return n;
}

absl::StatusOr<std::string> Administration::IssueToken(const Identity& who,
                                                       const std::string& kind,
                                                       const std::string& owner) {
  RETURN_IF_ERROR(RequireOrganizer(who, "token add"));
  absl::StatusOr<CredentialKind> k = ParseCredentialKind(kind);
  absl::StatusOr<std::string> token =
      k.ok() ? c_->credentials().Issue(*k, owner) : absl::StatusOr<std::string>(k.status());
  RETURN_IF_ERROR(Audited(who, absl::StrCat(kind, " add"), owner, StatusOf(token)));
  return token;
}

absl::StatusOr<std::string> Administration::RotateToken(const Identity& who,
                                                        const std::string& kind,
                                                        const std::string& owner) {
  RETURN_IF_ERROR(RequireOrganizer(who, "token rotate"));
  absl::StatusOr<CredentialKind> k = ParseCredentialKind(kind);
  absl::StatusOr<std::string> token =
      k.ok() ? c_->credentials().Rotate(*k, owner) : absl::StatusOr<std::string>(k.status());
  RETURN_IF_ERROR(Audited(who, absl::StrCat(kind, " rotate"), owner, StatusOf(token)));
  return token;
}

absl::Status Administration::RevokeTokens(const Identity& who, const std::string& kind,
                                          const std::string& owner) {
  RETURN_IF_ERROR(RequireOrganizer(who, "token revoke"));
  absl::StatusOr<CredentialKind> k = ParseCredentialKind(kind);
  absl::Status st = k.ok() ? c_->credentials().Revoke(*k, owner) : k.status();
  return Audited(who, absl::StrCat(kind, " revoke"), owner, st);
}

absl::StatusOr<std::vector<CredentialRecord>> Administration::Tokens(const Identity& who) {
  RETURN_IF_ERROR(RequireOrganizer(who, "tokens"));
  ASSIGN_OR_RETURN(std::vector<CredentialRecord> all, c_->store().ListCredentials());
  for (CredentialRecord& r : all) r.token_hash.clear();  // never leaves the coordinator
  return all;
}

absl::StatusOr<std::vector<AuditRecord>> Administration::Audit(const Identity& who, int limit) {
  RETURN_IF_ERROR(RequireOrganizer(who, "audit"));
  if (limit < 1 || limit > 10000) {
    return absl::InvalidArgumentError(absl::StrCat("limit: ", limit, " is outside [1, 10000]"));
  }
  return c_->store().ListAudit(limit);
}

absl::StatusOr<std::vector<PhaseEvent>> Administration::Events(const Identity& who,
                                                               const std::string& phase) {
  RETURN_IF_ERROR(RequireOrganizer(who, "events"));
  ASSIGN_OR_RETURN(Phase * p, c_->competition().Get(phase));
  return p->ModerationLog(who);
}

absl::StatusOr<std::vector<RegistrationRecord>> Administration::ListRegistrations(
    const Identity& who) {
  RETURN_IF_ERROR(RequireOrganizer(who, "registrations"));
  return c_->registrations().List();
}

absl::Status Administration::DecideRegistration(const Identity& who, const std::string& team,
                                                bool approve, const std::string& reason) {
  const std::string action = approve ? "approve" : "reject";
  RETURN_IF_ERROR(RequireOrganizer(who, action));
  return Audited(who, action, absl::StrCat("team ", team, reason.empty() ? "" : ": " + reason),
                 c_->registrations().Decide(team, approve, who.Describe(), reason));
}

absl::StatusOr<std::pair<int64_t, std::string>> Administration::IssueInvite(
    const Identity& who, int uses, const std::string& note) {
  RETURN_IF_ERROR(RequireOrganizer(who, "invite"));
  absl::StatusOr<std::pair<int64_t, std::string>> invite =
      c_->registrations().IssueInvite(uses, note, who.Describe());
  RETURN_IF_ERROR(Audited(
      who, "invite",
      absl::StrCat(invite.ok() ? absl::StrCat("invite code ", invite->first, ", ") : "", uses,
                   " use(s)", note.empty() ? "" : ": " + note),
      invite.status()));
  return invite;
}

absl::Status Administration::RevokeInvite(const Identity& who, int64_t id) {
  RETURN_IF_ERROR(RequireOrganizer(who, "invite revoke"));
  return Audited(who, "invite revoke", absl::StrCat("invite code ", id),
                 c_->registrations().RevokeInvite(id));
}

absl::StatusOr<std::vector<InviteRecord>> Administration::Invites(const Identity& who) {
  RETURN_IF_ERROR(RequireOrganizer(who, "invites"));
  return c_->registrations().Invites();
}

std::string Administration::RegistrationModeText() const {
  return RegistrationModeName(c_->registrations().mode());
}

}  // namespace bbo
