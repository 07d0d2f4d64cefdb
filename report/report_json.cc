#include "report/report_json.h"

#include <cmath>

namespace bbo::scoring {
nlohmann::json JsonNumber(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

nlohmann::json JsonNumbers(const std::vector<double>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (double x : v) a.push_back(JsonNumber(x));
  return a;
}

namespace {

const char* BoundName(MethodResult::Bound b) {
  switch (b) {
    case MethodResult::Bound::kExact: return "exact";
    case MethodResult::Bound::kAtLeast: return "at_least";
    case MethodResult::Bound::kAtMost: return "at_most";
  }
  return "exact";
}

}  // namespace

nlohmann::json LeaderboardJson(const Leaderboard& board, const ScoringInput& input) {
  nlohmann::json methods = nlohmann::json::array();
  for (const MethodResult& r : board.rows) {
    nlohmann::json problems = nlohmann::json::array();
    for (const ProblemResult& p : r.problems) {
      std::vector<double> lb, ub;
      for (const Interval& ci : p.norm_med_ci) {
        lb.push_back(ci.lo);
        ub.push_back(ci.hi);
      }
      problems.push_back({{"problem", p.problem},
                          {"trials", p.trials},
                          {"trials_run", p.trials_run},
                          {"score", JsonNumber(p.score)},
                          {"normalized_mean", JsonNumbers(p.norm_mean_perf)},
                          {"normalized_median", JsonNumbers(p.norm_med_perf)},
                          {"normalized_median_lb", JsonNumbers(lb)},
                          {"normalized_median_ub", JsonNumbers(ub)}});
    }
    methods.push_back({{"method", r.method},
                       {"leaderboard_score", JsonNumber(r.score)},
                       {"median_score", JsonNumber(r.median_score)},
                       {"table2_median_score", JsonNumber(r.table2_median_score)},
                       {"mean_perf", JsonNumbers(r.mean_perf)},
                       {"mean_perf_error_bar", JsonNumbers(r.mean_perf_eb)},
                       {"normalized_mean_perf", JsonNumbers(r.normalized_mean_perf)},
                       {"median_perf", JsonNumbers(r.med_perf)},
                       {"rs_equivalent_evals", JsonNumber(r.rs_equivalent_evals)},
                       {"rs_equivalent_bound", BoundName(r.rs_bound)},
                       {"rs_efficiency", JsonNumber(r.rs_efficiency)},
                       {"complete", r.complete},
                       {"baseline", r.is_baseline},
                       {"problems", problems}});
  }
  nlohmann::json baselines = nlohmann::json::object();
  for (const auto& [name, b] : board.baselines) {
    baselines[name] = {{"opt", JsonNumber(b.opt)}, {"clip", JsonNumber(b.clip)}};
  }
  return {{"methods", methods},
          {"batch_size", input.batch_size},
          {"n_batches", input.n_batches},
          {"alpha", input.alpha},
          {"rand_mean_perf", JsonNumbers(board.rand_mean_perf)},
          {"baselines", baselines}};
}

}  // namespace bbo::scoring
