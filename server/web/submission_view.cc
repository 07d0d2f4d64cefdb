// WebViews::Submission: the page of one submission (docs/web.md, "A submission's page").

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "common/status_macros.h"
#include "server/competition.h"
#include "server/phase.h"
#include "server/scoreboard.h"
#include "server/submission_log.h"
#include "server/submission_state.h"
#include "common/submission_verdict.h"
#include "server/web/views.h"

namespace bbo::web {
namespace {

using nlohmann::json;

json Number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json Series(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(Number(x));
  return out;
}

const scoring::MethodResult* Row(const scoring::Leaderboard& board, const std::string& method,
                                 bool baseline) {
  for (const scoring::MethodResult& r : board.rows) {
    if (baseline ? r.is_baseline : (!r.is_baseline && r.method == method)) return &r;
  }
  return nullptr;
}

// Per problem (or over all problems) the normalized best-so-far of `name` and of random search,
// where `who` sees the main board's scores.
json Curves(Phase* phase, const Identity& who, const std::string& name) {
  absl::StatusOr<LeaderboardReport> report = phase->Leaderboard(who, kMainBoard);
  if (!report.ok()) {
    return {{"available", false}, {"why", std::string(report.status().message())}};
  }
  const scoring::MethodResult* row = Row(report->board, name, false);
  const scoring::MethodResult* rs = Row(report->board, name, true);
  if (row == nullptr) {
    return {{"available", false},
            {"why", "not on the board (yet): no study of it has ended there, or the board shows "
                    "another of its team's submissions"}};
  }
  json problems = json::array();
  if (report->per_problem) {
    for (const scoring::ProblemResult& p : row->problems) {
      json baseline = json::array();
      if (rs != nullptr) {
        for (const scoring::ProblemResult& b : rs->problems) {
          if (b.problem == p.problem) baseline = Series(b.norm_mean_perf);
        }
      }
      problems.push_back({{"problem", p.problem},
                          {"submission", Series(p.norm_mean_perf)},
                          {"random_search", std::move(baseline)}});
    }
  } else {
    problems.push_back({{"problem", "all problems"},
                        {"submission", Series(row->mean_perf)},
                        {"random_search", rs != nullptr ? Series(rs->mean_perf) : json::array()}});
  }
  return {{"available", true},
          {"per_problem", report->per_problem},
          {"n_batches", report->n_batches},
          {"problems", std::move(problems)}};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The optimizer's time per batch over the submission's ended studies on the main board (no
// problem names: the same for every reader of the page).
json Timing(Phase* phase, const PhaseSpec* spec, const std::string& name) {
  json out = {{"suggest_budget_s", spec ? json(spec->budget.suggest_budget_s) : json(nullptr)},
              {"study_budget_s", spec ? json(spec->budget.study_budget_s) : json(nullptr)},
              {"studies", 0},
              {"batches", json::array()},
              {"slowest_study_s", nullptr}};
  absl::StatusOr<Scoreboard*> board = phase->Board(kMainBoard);
  if (!board.ok()) return out;
  absl::StatusOr<std::shared_ptr<const ScoreboardSnapshot>> snap = (*board)->Snapshot();
  if (!snap.ok()) return out;
  auto method = (*snap)->input.methods.find(name);
  if (method == (*snap)->input.methods.end()) return out;
  std::vector<std::vector<double>> turns;  // batch -> turn seconds of each study
  int studies = 0;
  double slowest = 0;
  for (const auto& [problem, data] : method->second) {
    for (const scoring::TrialCurve& t : data.trials) {
      if (!t.batch_end_seconds) continue;
      ++studies;
      const std::vector<double>& end = *t.batch_end_seconds;
      for (size_t b = 0; b < end.size(); ++b) {
        if (turns.size() <= b) turns.resize(b + 1);
        turns[b].push_back(std::max(0.0, end[b] - (b == 0 ? 0.0 : end[b - 1])));
      }
      if (!end.empty()) slowest = std::max(slowest, end.back());
    }
  }
  json batches = json::array();
  for (size_t b = 0; b < turns.size(); ++b) {
    if (turns[b].empty()) continue;
    batches.push_back({{"batch", b},
                       {"median_s", Median(turns[b])},
                       {"max_s", *std::max_element(turns[b].begin(), turns[b].end())},
                       {"studies", turns[b].size()}});
  }
  out["studies"] = studies;
  out["batches"] = std::move(batches);
  if (studies > 0) out["slowest_study_s"] = slowest;
  return out;
}

// The submission's row of the board's Plackett-Luce view, or why there is none.
json Rating(const json& leaderboard_pl, const std::string& name) {
  if (!leaderboard_pl.is_object()) return {{"error", "no ranking"}};
  if (leaderboard_pl.contains("error")) return {{"error", leaderboard_pl["error"]}};
  for (const json& m : leaderboard_pl.value("methods", json::array())) {
    if (m.value("name", "") == name) {
      json out = m;
      out["band"] = leaderboard_pl.value("band", json());
      out["unit"] = leaderboard_pl.value("unit", json());
      out["methods"] = leaderboard_pl["methods"].size();
      return out;
    }
  }
  return {{"error", "not in the board's ranking (yet)"}};
}

}  // namespace

absl::StatusOr<json> WebViews::Submission(const Identity& who, int64_t id) const {
  // Competition::Log decides who may see it (its team or an organizer; NotFound otherwise).
  ASSIGN_OR_RETURN(bbo::SubmissionLog log, coordinator_->competition().Log(who, id, kMaxErrors));
  ASSIGN_OR_RETURN(Phase * phase, coordinator_->competition().PhaseOfSubmission(id));
  const SubmissionStatus status{log.submission, log.jobs, log.studies_with_errors};
  const SubmissionVerdict verdict = JudgeSubmission(log);
  const std::string& name = log.submission.name;
  json rating = Rating(PlackettLuceOf(phase, who), name);
  return json{
      {"id", log.submission.id},
      {"name", name},
      {"team", log.submission.team},
      {"phase", phase->options().phase},
      {"state", SubmissionStateName(StateOf(status))},
      {"state_detail", DescribeState(status)},
      {"created_at_s", log.submission.created_at},
      {"trials", log.submission.trials},
      {"log", LogJson(log)},
      {"verdict",
       {{"ok", verdict.ok},
        {"failure", verdict.failure},
        {"traceback", verdict.traceback},
        {"text", VerdictText(verdict, "")}}},
      {"curves", Curves(phase, who, name)},
      {"timing", Timing(phase, coordinator_->competition().SpecOf(phase), name)},
      {"rating", std::move(rating)}};
}

}  // namespace bbo::web
