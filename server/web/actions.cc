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
  ASSIGN_OR_RETURN(Phase * phase, c_->competition().PhaseOfSubmission(id));
  ASSIGN_OR_RETURN(int n, phase->Withdraw(who, id));
  return json{{"jobs_cancelled", n}};
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

}  // namespace bbo::web
