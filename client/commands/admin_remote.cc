// bbo admin --server HOST:PORT: an organizer's actions on a running coordinator, over the
// network with an organizer token (OrganizerService; server/administration.h decides and audits).

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "client/commands/admin.h"
#include "client/remote.h"

namespace bbo::client {
namespace {

// The submission id in words[1]; 0 after printing why not.
int64_t IdArg(const std::vector<std::string>& words) {
  int64_t id = 0;
  if (words.size() < 2 || !absl::SimpleAtoi(words[1], &id) || id <= 0) {
    std::fprintf(stderr, "bbo admin: %s takes a submission id (bbo status shows them)\n",
                 words[0].c_str());
    return 0;
  }
  return id;
}

int Done(const absl::Status& s, const std::string& what) {
  if (!s.ok()) return PrintRemoteError("admin " + what, s);
  return 0;
}

int RunTokens(const Remote& r, const AdminArgs& a) {
  const std::string& kind = a.words[0];
  const std::string& verb = a.words[1];
  const std::string& owner = a.words[2];
  if (verb == "revoke") {
    v1::RevokeTokensRequest req;
    req.set_kind(kind);
    req.set_owner(owner);
    if (int rc = Done(r.RevokeTokens(req).status(), verb); rc != 0) return rc;
    std::fprintf(stderr, "bbo admin: %s %s: every token revoked\n", kind.c_str(), owner.c_str());
    return 0;
  }
  absl::StatusOr<std::string> token;
  if (verb == "add") {
    v1::IssueTokenRequest req;
    req.set_kind(kind);
    req.set_owner(owner);
    auto resp = r.IssueToken(req);
    token = resp.ok() ? absl::StatusOr<std::string>(resp->token()) : resp.status();
  } else {
    v1::RotateTokenRequest req;
    req.set_kind(kind);
    req.set_owner(owner);
    auto resp = r.RotateToken(req);
    token = resp.ok() ? absl::StatusOr<std::string>(resp->token()) : resp.status();
  }
  if (!token.ok()) return PrintRemoteError("admin " + verb, token.status());
  PrintNewToken(kind, owner, *token);
  return 0;
}

int RunLists(const Remote& r, const AdminArgs& a, AdminAction action) {
  if (action == AdminAction::kFailedJobs) {
    auto resp = r.ListFailedJobs(v1::ListFailedJobsRequest());
    if (!resp.ok()) return PrintRemoteError("admin jobs", resp.status());
    std::vector<FailedJobInfo> jobs;
    for (const auto& j : resp->jobs()) {
      jobs.push_back({j.job_id(), j.submission(), j.problem(), j.board(), j.last_error(),
                      j.trial(), j.attempts()});
    }
    return PrintFailedJobs(jobs, a.json);
  }
  if (action == AdminAction::kTokens) {
    auto resp = r.ListTokens(v1::ListTokensRequest());
    if (!resp.ok()) return PrintRemoteError("admin tokens", resp.status());
    std::vector<TokenInfo> tokens;
    for (const auto& t : resp->tokens()) {
      tokens.push_back({t.kind(), t.owner(), t.created_at_s(), t.revoked_at_s()});
    }
    return PrintTokens(tokens, a.json);
  }
  v1::ListAuditRequest req;
  req.set_limit(a.limit);
  auto resp = r.ListAudit(req);
  if (!resp.ok()) return PrintRemoteError("admin audit", resp.status());
  std::vector<AuditEntry> log;
  for (const auto& e : resp->entries()) {
    log.push_back({e.at_s(), e.who(), e.action(), e.detail(), e.allowed()});
  }
  return PrintAudit(log, a.json);
}

// publish|unpublish PHASE, stop-race PHASE, jobs requeue ID|all.
int RunPhaseActions(const Remote& r, const AdminArgs& a, AdminAction action) {
  const std::string& what = a.words[0];
  if (action == AdminAction::kPublish) {
    v1::PublishBoardRequest req;
    req.set_phase(a.words[1]);
    req.set_undo(what == "unpublish");
    req.set_reason(a.reason);
    if (int rc = Done(r.PublishBoard(req).status(), what); rc != 0) return rc;
    std::printf("%s the board of phase %s\n", what == "publish" ? "published" : "hid again",
                a.words[1].c_str());
    return 0;
  }
  if (action == AdminAction::kStopRace) {
    v1::StopRaceRequest req;
    req.set_phase(a.words[1]);
    req.set_reason(a.reason);
    if (int rc = Done(r.StopRace(req).status(), what); rc != 0) return rc;
    std::printf("stopped the race of phase %s\n", a.words[1].c_str());
    return 0;
  }
  int64_t id = 0;
  if (a.words[2] != "all" && (!absl::SimpleAtoi(a.words[2], &id) || id <= 0)) {
    std::fprintf(stderr, "bbo admin: jobs requeue takes a job id or 'all', got '%s'\n",
                 a.words[2].c_str());
    return 2;
  }
  v1::RequeueJobsRequest req;
  req.set_job_id(id);
  auto resp = r.RequeueJobs(req);
  if (!resp.ok()) return PrintRemoteError("admin requeue", resp.status());
  std::printf("%d job(s) back in the queue\n", resp->requeued());
  return 0;
}

// hide|unhide ID, finalist ID, withdraw ID.
int RunSubmissionActions(const Remote& r, const AdminArgs& a) {
  const std::string& what = a.words[0];
  const int64_t id = a.words.size() == 2 ? IdArg(a.words) : 0;
  if (id == 0) return a.words.size() == 2 ? 2 : AdminUsage();
  if (what == "hide" || what == "unhide") {
    v1::HideSubmissionRequest req;
    req.set_submission_id(id);
    req.set_undo(what == "unhide");
    req.set_reason(a.reason);
    if (int rc = Done(r.HideSubmission(req).status(), what); rc != 0) return rc;
    std::printf("submission %lld is %s the board (recorded with your reason)\n",
                static_cast<long long>(id), what == "hide" ? "off" : "back on");
    return 0;
  }
  if (what == "finalist") {
    v1::SetFinalistRequest req;
    req.set_submission_id(id);
    req.set_reason(a.reason);
    auto resp = r.SetFinalist(req);
    if (!resp.ok()) return PrintRemoteError("admin finalist", resp.status());
    std::printf("submission %lld is its team's entry in phase %s (recorded with your reason)\n",
                static_cast<long long>(id), resp->next_phase().c_str());
    return 0;
  }
  auto resp = r.WithdrawSubmission(id);
  if (!resp.ok()) return PrintRemoteError("admin withdraw", resp.status());
  std::printf("withdrew submission %lld: %d queued job(s) cancelled\n",
              static_cast<long long>(id), resp->jobs_cancelled());
  return 0;
}

// disqualify|requalify PHASE TEAM, events PHASE.
int RunTeamActions(const Remote& r, const AdminArgs& a) {
  const std::string& what = a.words[0];
  if (what == "events") {
    if (a.words.size() != 2) return AdminUsage();
    v1::ListPhaseEventsRequest req;
    req.set_phase(a.words[1]);
    auto resp = r.ListPhaseEvents(req);
    if (!resp.ok()) return PrintRemoteError("admin events", resp.status());
    for (const auto& e : resp->events()) {
      std::printf("%.0f  %-18s %-22s %-12s %6lld  %s\n", e.at_s(), e.kind().c_str(),
                  e.who().c_str(), e.team().empty() ? "-" : e.team().c_str(),
                  static_cast<long long>(e.submission_id()), e.detail().c_str());
    }
    if (resp->events_size() == 0) std::printf("(no events)\n");
    return 0;
  }
  if (a.words.size() != 3) return AdminUsage();
  v1::DisqualifyTeamRequest req;
  req.set_phase(a.words[1]);
  req.set_team(a.words[2]);
  req.set_undo(what == "requalify");
  req.set_reason(a.reason);
  if (int rc = Done(r.DisqualifyTeam(req).status(), what); rc != 0) return rc;
  std::printf("team %s is %s in phase %s (recorded with your reason)\n", a.words[2].c_str(),
              what == "disqualify" ? "disqualified" : "requalified", a.words[1].c_str());
  return 0;
}

}  // namespace

int RunAdminRemote(const AdminArgs& a) {
  const Remote remote(a.server.address, a.server.token, a.server.tls);
  if (a.words.empty()) return AdminUsage();
  const std::string& what = a.words[0];
  if (what == "hide" || what == "unhide" || what == "finalist" || what == "withdraw") {
    return RunSubmissionActions(remote, a);
  }
  if (what == "disqualify" || what == "requalify" || what == "events") {
    return RunTeamActions(remote, a);
  }
  if (IsRegistrationAction(a.words)) return RunRegistrationActions(remote, a);
  const std::optional<AdminAction> action = ParseAction(a.words);
  if (!action) return AdminUsage();
  switch (*action) {
    case AdminAction::kToken:
      return RunTokens(remote, a);
    case AdminAction::kFailedJobs:
    case AdminAction::kTokens:
    case AdminAction::kAudit:
      return RunLists(remote, a, *action);
    case AdminAction::kPublish:
    case AdminAction::kStopRace:
    case AdminAction::kRequeue:
      return RunPhaseActions(remote, a, *action);
  }
  return AdminUsage();
}

}  // namespace bbo::client
