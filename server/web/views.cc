#include "server/web/views.h"

#include "server/access.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "server/phase.h"
#include "server/competition.h"
#include "server/submission_log.h"
#include "server/submission_state.h"

namespace bbo::web {
namespace {

using nlohmann::json;

double EpochSeconds(absl::Time t) { return absl::ToDoubleSeconds(t - absl::UnixEpoch()); }

json OptionalTime(const std::optional<absl::Time>& t) {
  return t ? json(EpochSeconds(*t)) : json(nullptr);
}

// A finite number, or null (JSON has no infinity; nlohmann would write null anyway, said here).
json Number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }


// The main-board scores `who` may see in `phase`, by submission name (empty when the board is
// hidden from `who` or not ready: a missing score is shown as such, never as an error).
std::map<std::string, double> VisibleScores(Phase* phase, const Identity& who) {
  std::map<std::string, double> out;
  absl::StatusOr<bool> shows = phase->ShowsScores(who);
  if (!shows.ok() || !*shows) return out;
  absl::StatusOr<LeaderboardReport> board = phase->Leaderboard(who, kMainBoard);
  if (!board.ok()) return out;
  for (const scoring::MethodResult& r : board->board.rows) {
    if (!r.is_baseline) out[r.method] = r.score;
  }
  return out;
}

// j[key] when j is an object holding it, else null (the ranking is ours, but never throw).
const json& Field(const json& j, const char* key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

// A number of the ranking's JSON, or null.
json NumberAt(const json& j, const char* key, const std::string& method) {
  const json& v = Field(Field(j, key), method.c_str());
  return v.is_number() ? v : json(nullptr);
}

// What the page shows of the board's Plackett-Luce ranking (PlackettLuceRankings): per
// method its final posterior mean of theta with the credible band, P(Pareto member), whether it
// is in the anytime Pareto set and which method eliminated it, highest mean first. No curves,
// no pairs. {"error": why} when there is no ranking.
json PlackettLuceView(const absl::StatusOr<std::shared_ptr<const json>>& ranking) {
  if (!ranking.ok()) return {{"error", std::string(ranking.status().message())}};
  const json& pl = **ranking;
  if (Field(pl, "error").is_string()) return {{"error", Field(pl, "error")}};
  const json& final_ = Field(pl, "final");
  std::set<std::string> pareto;
  json pareto_set = json::array();
  for (const json& m : Field(pl, "pareto_set")) {
    if (m.is_string() && pareto.insert(m.get<std::string>()).second) pareto_set.push_back(m);
  }
  std::vector<std::pair<double, json>> rows;
  for (const json& m : Field(pl, "methods")) {
    if (!m.is_string()) continue;
    const std::string name = m.get<std::string>();
    json mean = NumberAt(final_, "posterior_mean", name);
    const json& by = Field(Field(Field(pl, "decisions"), "eliminated_by"), name.c_str());
    rows.emplace_back(mean.is_number() ? -mean.get<double>() : 0.0,
                      json{{"name", name},
                           {"posterior_mean", mean},
                           {"lower", NumberAt(final_, "lower", name)},
                           {"upper", NumberAt(final_, "upper", name)},
                           {"p_pareto", NumberAt(pl, "p_pareto", name)},
                           {"pareto", pareto.count(name) > 0},
                           {"eliminated_by", by.is_string() ? by : json(nullptr)}});
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  json methods = json::array();
  for (auto& [key, row] : rows) methods.push_back(std::move(row));
  const json& model = Field(pl, "model");
  return {{"band", Field(final_, "band")},
          {"time", Field(final_, "time")},
          {"unit", Field(Field(pl, "anytime"), "unit")},
          {"runs", Field(model, "runs")},
          {"inference", Field(model, "inference")},
          {"pareto_set", std::move(pareto_set)},
          {"methods", std::move(methods)}};
}

}  // namespace

json WebViews::Me(const Identity& who) const {
  return {{"role", RoleName(who)},
          {"name", who.name},
          {"competition", coordinator_->competition().name()}};
}

absl::StatusOr<json> WebViews::Competition(const Identity& who) const {
  bbo::Competition& competition = coordinator_->competition();
  json list = json::array();
  for (const PhaseView& v : competition.Describe()) {
    ASSIGN_OR_RETURN(Phase * phase, competition.Get(v.name));
    absl::StatusOr<bool> shows = phase->ShowsScores(who);
    json boards = json::array();
    for (const std::string& b : phase->boards()) boards.push_back(BoardDisplayName(b));
    list.push_back({{"name", v.name},
                    {"title", v.title},
                    {"rules", v.rules},
                    {"start_s", OptionalTime(v.start)},
                    {"end_s", OptionalTime(v.end)},
                    {"current", v.current},
                    {"open", v.open},
                    {"accepts_submissions", v.accepts_submissions},
                    {"hidden", v.hidden},
                    {"board_hidden_until_published", v.board_hidden_until_published},
                    {"published", v.published},
                    {"migrate_from", v.migrate_from},
                    {"migrated_at_s", v.migrated_at > 0 ? json(v.migrated_at) : json(nullptr)},
                    {"shows_scores", shows.ok() && *shows},
                    {"per_problem", phase->ShowsPerProblemResults(who)},
                    {"boards", std::move(boards)}});
    // A publication that was withdrawn: when and why (participants are told, not left guessing).
    absl::StatusOr<PublicationState> pub = phase->Publication();
    if (pub.ok() && !pub->published && pub->at > 0) {
      list.back()["unpublished_at_s"] = pub->at;
      list.back()["unpublished_reason"] = pub->detail;
    }
  }
  return json{{"competition", competition.name()},
              {"title", competition.title()},
              {"description", competition.description()},
              {"terms", competition.terms()},
              {"registration", RegistrationModeName(coordinator_->registrations().mode())},
              {"now_s", EpochSeconds(competition.calendar()->Now())},
              {"phases", std::move(list)}};
}

absl::StatusOr<json> WebViews::Leaderboard(const Identity& who, const std::string& phase_name,
                                           const std::string& board) const {
  ASSIGN_OR_RETURN(Phase * phase, coordinator_->competition().Get(phase_name));
  ASSIGN_OR_RETURN(LeaderboardReport report, phase->Leaderboard(who, board));
  json rows = json::array();
  int rank = 0;
  for (const scoring::MethodResult& r : report.board.rows) {
    json problems = json::array();
    for (const scoring::ProblemResult& p : r.problems) {
      problems.push_back({{"problem", p.problem}, {"score", Number(p.score)}, {"trials", p.trials}});
    }
    rows.push_back({{"rank", ++rank},
                    {"name", r.method},
                    {"score", Number(r.score)},
                    {"score_error", r.mean_perf_eb.empty() ? json(nullptr)
                                                           : Number(100 * r.mean_perf_eb.back())},
                    {"median_score", Number(r.median_score)},
                    {"baseline", r.is_baseline},
                    {"complete", r.complete},
                    {"problems", std::move(problems)}});
    auto e = report.entries.find(r.method);
    rows.back()["team"] = e == report.entries.end() ? json(nullptr) : json(e->second.team);
    rows.back()["state"] = e == report.entries.end() ? json(nullptr) : json(e->second.state);
    rows.back()["id"] = e == report.entries.end() ? json(nullptr) : json(e->second.id);
  }
  json removed = json::array();
  for (const LeaderboardReport::Removed& r : report.removed) {
    removed.push_back({{"name", r.name}, {"team", r.team}, {"why", r.why}});
  }
  json pending = json::array();
  for (const LeaderboardReport::Pending& p : report.pending) {
    pending.push_back({{"name", p.name},
                       {"jobs_total", p.jobs.total},
                       {"jobs_done", p.jobs.done},
                       {"jobs_failed", p.jobs.lost()},
                       {"jobs_withdrawn", p.jobs.withdrawn}});
  }
  // Shown to exactly those who see this board's scores (Snapshot checks as Leaderboard did).
  return json{{"phase", phase->options().phase},
              {"board", BoardDisplayName(phase->BoardKey(board))},
              {"batch_size", report.batch_size},
              {"n_batches", report.n_batches},
              {"per_problem", report.per_problem},
              {"rows", std::move(rows)},
              {"rows_rule", report.rows},
              {"rows_not_shown", report.rows_not_shown},
              {"pending", std::move(pending)},
              {"removed", std::move(removed)},
              {"plackett_luce", PlackettLuceView(rankings_->Get(phase, who, board))}};
}

json WebViews::PlackettLuceOf(Phase* phase, const Identity& who) const {
  return PlackettLuceView(rankings_->Get(phase, who, ""));
}

absl::StatusOr<json> WebViews::Submissions(const Identity& who, const std::string& phase) const {
  ASSIGN_OR_RETURN(std::vector<PhaseSubmission> list, coordinator_->competition().List(who, phase));
  list.erase(std::remove_if(list.begin(), list.end(),
                            [](const PhaseSubmission& s) { return s.status.submission.is_baseline; }),
             list.end());
  const bool truncated = list.size() > static_cast<size_t>(kMaxSubmissions);
  // Newest first; only the newest kMaxSubmissions.
  std::reverse(list.begin(), list.end());
  if (truncated) list.resize(kMaxSubmissions);
  // Scores of the phases that appear, as `who` may see them (each board once, from its cache).
  std::map<std::string, std::map<std::string, double>> scores;
  for (const PhaseSubmission& s : list) {
    if (scores.count(s.phase)) continue;
    absl::StatusOr<Phase*> c = coordinator_->competition().Get(s.phase);
    scores[s.phase] = c.ok() ? VisibleScores(*c, who) : std::map<std::string, double>{};
  }
  json out = json::array();
  for (const PhaseSubmission& ps : list) {
    const SubmissionStatus& s = ps.status;
    const auto& phase_scores = scores[ps.phase];
    auto score = phase_scores.find(s.submission.name);
    out.push_back({{"id", s.submission.id},
                   {"name", s.submission.name},
                   {"team", s.submission.team},
                   {"phase", ps.phase},
                   {"state", SubmissionStateName(StateOf(s))},
                   {"state_detail", DescribeState(s)},
                   {"hidden", s.submission.hidden},
                   {"chosen", ps.chosen},
                   {"finalist", ps.finalist},
                   {"next_phase", ps.next_phase},
                   {"migrated_from", s.submission.migrated_from},
                   {"created_at_s", s.submission.created_at},
                   {"jobs_total", s.jobs.total},
                   {"jobs_queued", s.jobs.queued},
                   {"jobs_running", s.jobs.leased},
                   {"jobs_done", s.jobs.done},
                   {"jobs_failed", s.jobs.lost()},
                   {"jobs_withdrawn", s.jobs.withdrawn},
                   {"studies_with_errors", s.studies_with_errors},
                   {"score", score == phase_scores.end() ? json(nullptr) : Number(score->second)}});
  }
  return json{{"submissions", std::move(out)}, {"truncated", truncated},
              {"limit", kMaxSubmissions}};
}

absl::StatusOr<json> WebViews::Log(const Identity& who, int64_t id) const {
  // Competition::Log decides: its team's or an organizer's (NotFound otherwise, as for an unknown id);
  // a team in a hidden phase sees problems as "problem-K".
  ASSIGN_OR_RETURN(bbo::SubmissionLog log, coordinator_->competition().Log(who, id, kMaxErrors));
  return LogJson(log);
}

json WebViews::LogJson(const bbo::SubmissionLog& log) {
  json errors = json::array();
  for (const SubmissionLogError& e : log.errors) {
    errors.push_back({{"problem", e.problem},
                      {"study_id", e.study_id},
                      {"batch", e.batch},
                      {"kind", e.kind},
                      {"message", e.message}});
  }
  json studies = json::array();
  for (const StudySummary& s : log.studies) {
    if (studies.size() >= static_cast<size_t>(kMaxStudies)) break;
    studies.push_back({{"study_id", s.study_id},
                       {"problem", s.problem},
                       {"trial", s.trial},
                       {"board", BoardDisplayName(s.board)},
                       {"state", StudyStateName(s.state)},
                       {"batches_done", s.batches_done},
                       {"n_batches", s.n_batches},
                       {"end_reason", s.end_reason}});
  }
  return json{{"id", log.submission.id},
              {"name", log.submission.name},
              {"phase", log.submission.phase},
              {"jobs_total", log.jobs.total},
              {"jobs_done", log.jobs.done},
              {"jobs_failed", log.jobs.lost()},
              {"jobs_withdrawn", log.jobs.withdrawn},
              {"studies_by_state", log.studies_by_state},
              {"studies_with_errors", log.studies_with_errors},
              {"errors_by_kind", log.errors_by_kind},
              {"total_errors", log.total_errors},
              {"errors", std::move(errors)},
              {"errors_limit", kMaxErrors},
              {"studies", std::move(studies)},
              {"studies_total", log.studies.size()},
              {"studies_limit", kMaxStudies}};
}

absl::StatusOr<json> WebViews::Queue(const Identity& who) const {
  // The queue tells how busy the workers are and how much is running: the organizers' page.
  if (absl::Status s = AccessPolicy().RequireOrganizer(who, "the queue"); !s.ok()) return s;
  const QueueView q = coordinator_->competition().Queue(who);
  json out = {{"jobs_queued", q.jobs_queued},
              {"jobs_running", q.jobs_running},
              {"workers_connected", q.workers_connected},
              {"worker_slots", q.worker_slots},
              {"estimated_wait_s", q.estimated_wait_s}};
  if (q.details) {
    const MetricsGauges& g = *q.details;
    out["jobs_leased"] = g.jobs_leased;
    out["jobs_done"] = g.jobs_done;
    out["jobs_failed"] = g.jobs_failed;
    out["jobs_withdrawn"] = g.jobs_withdrawn;
    out["running_studies"] = g.running_studies;
    // Registered since the coordinator started, and heard from within the lease time.
    out["workers"] = g.workers;
    out["epoch"] = g.epoch;
  }
  return out;
}

absl::StatusOr<json> WebViews::Report(const Identity& who, const std::string& phase_name,
                                      const std::string& board) const {
  ASSIGN_OR_RETURN(Phase * phase, coordinator_->competition().Get(phase_name));
  ReportRequest request;
  request.phase = phase->options().phase;
  request.board = board;
  ASSIGN_OR_RETURN(std::vector<scoring::ReportFile> files, phase->ReportFiles(who, request, "html"));
  for (scoring::ReportFile& f : files) {
    if (f.media_type.rfind("text/html", 0) == 0) {
      return json{{"phase", request.phase},
                  {"board", BoardDisplayName(phase->BoardKey(board))},
                  {"html", std::move(f.content)}};
    }
  }
  return absl::InternalError("the report has no HTML page");
}

}  // namespace bbo::web
