#include "server/web/actions.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"

namespace bbo::web {
namespace {

using nlohmann::json;

// The body's fields, checked: an object with only `allowed` keys.
absl::Status Fields(const json& body, const std::set<std::string>& allowed) {
  if (!body.is_object()) return absl::InvalidArgumentError("the body must be a JSON object");
  for (const auto& [key, value] : body.items()) {
    if (!allowed.count(key)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown field \"", key.substr(0, 64), "\" (expected: ",
          absl::StrJoin(allowed, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

// A string field of at most `max` bytes ("" when absent and not `required`).
absl::StatusOr<std::string> Text(const json& body, const char* key, size_t max, bool required) {
  auto it = body.find(key);
  if (it == body.end()) {
    if (required) return absl::InvalidArgumentError(absl::StrCat(key, ": required"));
    return std::string();
  }
  if (!it->is_string()) return absl::InvalidArgumentError(absl::StrCat(key, ": not a string"));
  const std::string& v = it->get_ref<const std::string&>();
  if (v.size() > max) {
    return absl::InvalidArgumentError(absl::StrCat(key, ": ", v.size(), " bytes; at most ", max));
  }
  return v;
}

// A positive id field (or 0 when absent and `zero_ok`).
absl::StatusOr<int64_t> Id(const json& body, const char* key, bool zero_ok = false) {
  auto it = body.find(key);
  if (it == body.end() && zero_ok) return 0;
  if (it == body.end() || !it->is_number_integer() || it->get<int64_t>() < (zero_ok ? 0 : 1)) {
    return absl::InvalidArgumentError(absl::StrCat(key, ": a positive integer id"));
  }
  return it->get<int64_t>();
}

absl::StatusOr<bool> Flag(const json& body, const char* key) {
  auto it = body.find(key);
  if (it == body.end()) return false;
  if (!it->is_boolean()) return absl::InvalidArgumentError(absl::StrCat(key, ": true or false"));
  return it->get<bool>();
}

constexpr size_t kName = 64;
constexpr size_t kReason = 500;

}  // namespace

absl::StatusOr<json> WebActions::Choose(const Identity& who, const json& body) {
  RETURN_IF_ERROR(Fields(body, {"submission_id"}));
  ASSIGN_OR_RETURN(int64_t id, Id(body, "submission_id"));
  ASSIGN_OR_RETURN(std::string next, c_->competition().Choose(who, id));
  return json{{"next_phase", next}};
}

absl::StatusOr<json> WebActions::Withdraw(const Identity& who, const json& body) {
  RETURN_IF_ERROR(Fields(body, {"submission_id"}));
  ASSIGN_OR_RETURN(int64_t id, Id(body, "submission_id"));
  absl::StatusOr<int> n = c_->competition().Withdraw(who, id);
  // A withdrawal, and an attempt on an id that is not the caller's (NotFound), are audited
  // here; the transport audits the refusals of authentication and permission.
  if (n.ok() || absl::IsNotFound(n.status())) {
    c_->credentials().Audit(who, "web:withdraw", n.ok(),
                            n.ok() ? absl::StrCat("submission ", id, ": ", *n,
                                                  " queued jobs cancelled")
                                   : std::string(n.status().message()));
  }
  if (!n.ok()) return n.status();
  return json{{"jobs_cancelled", *n}};
}

absl::StatusOr<json> WebActions::Publish(const Identity& who, const json& body) {
  RETURN_IF_ERROR(Fields(body, {"phase", "undo", "reason"}));
  ASSIGN_OR_RETURN(std::string phase, Text(body, "phase", kName, true));
  ASSIGN_OR_RETURN(bool undo, Flag(body, "undo"));
  ASSIGN_OR_RETURN(std::string reason, Text(body, "reason", kReason, false));
  RETURN_IF_ERROR(admin_.Publish(who, phase, undo, reason));
  return json::object();
}

absl::StatusOr<json> WebActions::StopRace(const Identity& who, const json& body) {
  RETURN_IF_ERROR(Fields(body, {"phase", "reason"}));
  ASSIGN_OR_RETURN(std::string phase, Text(body, "phase", kName, true));
  ASSIGN_OR_RETURN(std::string reason, Text(body, "reason", kReason, true));
  RETURN_IF_ERROR(admin_.StopRace(phase, who, reason));
  return json::object();
}

absl::StatusOr<json> WebActions::Hide(const Identity& who, const json& body) {
  RETURN_IF_ERROR(Fields(body, {"submission_id", "undo", "reason"}));
  ASSIGN_OR_RETURN(int64_t id, Id(body, "submission_id"));
  ASSIGN_OR_RETURN(bool undo, Flag(body, "undo"));
  ASSIGN_OR_RETURN(std::string reason, Text(body, "reason", kReason, true));
  RETURN_IF_ERROR(admin_.Hide(who, id, undo, reason));
  return json::object();
}

absl::StatusOr<json> WebActions::Disqualify(const Identity& who, const json& body) {
  RETURN_IF_ERROR(Fields(body, {"phase", "team", "undo", "reason"}));
  ASSIGN_OR_RETURN(std::string phase, Text(body, "phase", kName, true));
  ASSIGN_OR_RETURN(std::string team, Text(body, "team", kName, true));
  ASSIGN_OR_RETURN(bool undo, Flag(body, "undo"));
  ASSIGN_OR_RETURN(std::string reason, Text(body, "reason", kReason, true));
  RETURN_IF_ERROR(admin_.Disqualify(who, phase, team, undo, reason));
  return json::object();
}

absl::StatusOr<json> WebActions::SetFinalist(const Identity& who, const json& body) {
  RETURN_IF_ERROR(Fields(body, {"submission_id", "reason"}));
  ASSIGN_OR_RETURN(int64_t id, Id(body, "submission_id"));
  ASSIGN_OR_RETURN(std::string reason, Text(body, "reason", kReason, true));
  ASSIGN_OR_RETURN(std::string next, admin_.SetFinalist(who, id, reason));
  return json{{"next_phase", next}};
}

absl::StatusOr<json> WebActions::Requeue(const Identity& who, const json& body) {
  RETURN_IF_ERROR(Fields(body, {"job_id"}));
  ASSIGN_OR_RETURN(int64_t id, Id(body, "job_id", true));
  ASSIGN_OR_RETURN(int n, admin_.Requeue(who, id));
  return json{{"requeued", n}};
}

absl::StatusOr<json> WebActions::Token(const Identity& who, const json& body) {
  RETURN_IF_ERROR(Fields(body, {"kind", "owner", "action"}));
  ASSIGN_OR_RETURN(std::string kind, Text(body, "kind", 16, true));
  ASSIGN_OR_RETURN(std::string owner, Text(body, "owner", kName, true));
  ASSIGN_OR_RETURN(std::string action, Text(body, "action", 16, true));
  if (action == "revoke") {
    RETURN_IF_ERROR(admin_.RevokeTokens(who, kind, owner));
    return json::object();
  }
  if (action != "add" && action != "rotate") {
    return absl::InvalidArgumentError("action: add, rotate or revoke");
  }
  ASSIGN_OR_RETURN(std::string token, action == "add" ? admin_.IssueToken(who, kind, owner)
                                                      : admin_.RotateToken(who, kind, owner));
  return json{{"token", token}};
}

absl::StatusOr<json> WebActions::Tokens(const Identity& who) {
  ASSIGN_OR_RETURN(std::vector<CredentialRecord> all, admin_.Tokens(who));
  json out = json::array();
  for (const CredentialRecord& c : all) {
    out.push_back({{"kind", CredentialKindName(c.kind)},
                   {"owner", c.owner},
                   {"created_at_s", c.created_at},
                   {"revoked_at_s", c.revoked_at ? json(*c.revoked_at) : json(nullptr)}});
  }
  return json{{"tokens", std::move(out)}};
}

absl::StatusOr<json> WebActions::Audit(const Identity& who, int limit) {
  ASSIGN_OR_RETURN(std::vector<AuditRecord> log, admin_.Audit(who, limit));
  json out = json::array();
  for (const AuditRecord& a : log) {
    out.push_back({{"at_s", a.at},
                   {"who", a.who},
                   {"action", a.action},
                   {"detail", a.detail},
                   {"allowed", a.allowed}});
  }
  return json{{"entries", std::move(out)}};
}

absl::StatusOr<json> WebActions::FailedJobs(const Identity& who) {
  ASSIGN_OR_RETURN(std::vector<FailedJob> jobs, admin_.FailedJobs(who));
  json out = json::array();
  for (const FailedJob& f : jobs) {
    out.push_back({{"job_id", f.job.id},
                   {"submission_id", f.job.submission_id},
                   {"submission", f.submission},
                   {"problem", f.job.problem},
                   {"trial", f.job.trial},
                   {"attempts", f.job.attempts},
                   {"last_error", f.last_error}});
  }
  return json{{"jobs", std::move(out)}};
}

absl::StatusOr<json> WebActions::Events(const Identity& who, const std::string& phase) {
  ASSIGN_OR_RETURN(std::vector<PhaseEvent> events, admin_.Events(who, phase));
  json out = json::array();
  for (const PhaseEvent& e : events) {
    out.push_back({{"at_s", e.at},
                   {"kind", e.kind},
                   {"who", e.who},
                   {"detail", e.detail},
                   {"team", e.team},
                   {"submission_id", e.submission_id}});
  }
  return json{{"events", std::move(out)}};
}

absl::StatusOr<json> WebActions::Register(const Identity& who, const json& body,
                                          const std::string& peer) {
  RETURN_IF_ERROR(Fields(body, {"team", "email", "accept_terms", "invite_code"}));
  RegistrationRequest r;
  ASSIGN_OR_RETURN(r.team, Text(body, "team", kName, true));
  ASSIGN_OR_RETURN(r.email, Text(body, "email", 254, false));
  ASSIGN_OR_RETURN(r.accept_terms, Flag(body, "accept_terms"));
  ASSIGN_OR_RETURN(r.invite_code, Text(body, "invite_code", 128, false));
  // The address without the port: one host, one bound.
  r.peer = peer.substr(0, peer.rfind(':'));
  absl::StatusOr<RegistrationAnswer> a = c_->registrations().Register(who, r);
  c_->credentials().Audit(who, "web:register", a.ok(),
                          absl::StrCat("team ", r.team, " from ", peer,
                                       a.ok() ? absl::StrCat(": ", a->state)
                                              : absl::StrCat(": ", a.status().message())));
  if (!a.ok()) return a.status();
  json out = {{"team", a->team}, {"state", a->state}, {"message", a->message}};
  if (!a->token.empty()) out["token"] = a->token;
  if (!a->claim.empty()) out["claim"] = a->claim;
  return out;
}

absl::StatusOr<json> WebActions::Claim(const Identity& who, const json& body,
                                       const std::string& peer) {
  RETURN_IF_ERROR(Fields(body, {"claim"}));
  ASSIGN_OR_RETURN(std::string claim, Text(body, "claim", 128, true));
  absl::StatusOr<RegistrationAnswer> a = c_->registrations().Claim(claim);
  if (a.ok() && !a->token.empty()) {
    c_->credentials().Audit(who, "web:register claim", true,
                            absl::StrCat("team ", a->team, " took its token from ", peer));
  }
  if (!a.ok()) return a.status();
  json out = {{"team", a->team}, {"state", a->state}, {"message", a->message}};
  if (!a->token.empty()) out["token"] = a->token;
  return out;
}

absl::StatusOr<json> WebActions::Registrations(const Identity& who) {
  ASSIGN_OR_RETURN(std::vector<RegistrationRecord> list, admin_.ListRegistrations(who));
  json out = json::array();
  for (const RegistrationRecord& r : list) {
    out.push_back({{"team", r.team},
                   {"email", r.email},
                   {"state", r.state},
                   {"created_at_s", r.created_at},
                   {"terms_accepted_at_s", r.terms_accepted_at},
                   {"invite_id", r.invite_id},
                   {"peer", r.peer},
                   {"decided_at_s", r.decided_at},
                   {"decided_by", r.decided_by},
                   {"reason", r.reason},
                   {"token_issued_at_s", r.token_issued_at}});
  }
  return json{{"mode", admin_.RegistrationModeText()}, {"registrations", std::move(out)}};
}

absl::StatusOr<json> WebActions::DecideRegistration(const Identity& who, const json& body) {
  RETURN_IF_ERROR(Fields(body, {"team", "approve", "reason"}));
  ASSIGN_OR_RETURN(std::string team, Text(body, "team", kName, true));
  ASSIGN_OR_RETURN(bool approve, Flag(body, "approve"));
  ASSIGN_OR_RETURN(std::string reason, Text(body, "reason", kReason, false));
  RETURN_IF_ERROR(admin_.DecideRegistration(who, team, approve, reason));
  return json{{"team", team}, {"state", approve ? "approved" : "rejected"}};
}

absl::StatusOr<json> WebActions::Invite(const Identity& who, const json& body) {
  RETURN_IF_ERROR(Fields(body, {"uses", "note"}));
  int uses = 1;
  if (auto it = body.find("uses"); it != body.end()) {
    if (!it->is_number_integer()) return absl::InvalidArgumentError("uses: an integer");
    const int64_t n = it->get<int64_t>();
    uses = n < 0 || n > 1000000 ? -1 : static_cast<int>(n);
  }
  ASSIGN_OR_RETURN(std::string note, Text(body, "note", 200, false));
  ASSIGN_OR_RETURN(auto invite, admin_.IssueInvite(who, uses, note));
  return json{{"id", invite.first}, {"code", invite.second}, {"uses", uses}};
}

absl::StatusOr<json> WebActions::Invites(const Identity& who) {
  ASSIGN_OR_RETURN(std::vector<InviteRecord> list, admin_.Invites(who));
  json out = json::array();
  for (const InviteRecord& i : list) {
    out.push_back({{"id", i.id},
                   {"uses_left", i.uses_left},
                   {"note", i.note},
                   {"created_by", i.created_by},
                   {"created_at_s", i.created_at},
                   {"revoked_at_s", i.revoked_at}});
  }
  return json{{"invites", std::move(out)}};
}

absl::StatusOr<json> WebActions::RevokeInvite(const Identity& who, const json& body) {
  RETURN_IF_ERROR(Fields(body, {"id"}));
  ASSIGN_OR_RETURN(int64_t id, Id(body, "id"));
  RETURN_IF_ERROR(admin_.RevokeInvite(who, id));
  return json{{"id", id}, {"revoked", true}};
}

absl::StatusOr<json> WebActions::Submit(const Identity& who, const std::string& archive,
                                        const std::string& name, int trials,
                                        const std::string& phase_name) {
  ASSIGN_OR_RETURN(Phase * phase, c_->competition().ForSubmission(phase_name));
  ASSIGN_OR_RETURN(RegisteredSubmission r, phase->Register(who, name, archive, trials, ""));
  return json{{"submission_id", r.submission_id},
              {"kind", r.kind == SubmissionKind::kPython ? "python" : "executable"},
              {"jobs", r.jobs},
              {"trials", r.trials},
              {"phase", phase->options().phase}};
}

}  // namespace bbo::web
