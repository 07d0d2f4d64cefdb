#ifndef BBO_REPORT_REPORT_JSON_H_
#define BBO_REPORT_REPORT_JSON_H_

// JSON of a leaderboard for `bbo score --json` and reports. Stable layout (keys may be added,
// never renamed):
//   {"methods": [{"method", "leaderboard_score", "median_score", "table2_median_score",
//                 "mean_perf": [t], "mean_perf_error_bar": [t], "normalized_mean_perf": [t],
//                 "median_perf": [t], "rs_equivalent_evals", "rs_equivalent_bound",
//                 "rs_efficiency", "complete",
//                 "problems": [{"problem", "trials", "score", "normalized_mean": [t],
//                               "normalized_median": [t], "normalized_median_lb": [t],
//                               "normalized_median_ub": [t]}]}],
//    "batch_size", "n_batches", "alpha", "rand_mean_perf": [t],
//    "baselines": {problem: {"opt", "clip"}}}
// Non-finite numbers are written as null.

#include "nlohmann/json.hpp"
#include "scoring/leaderboard.h"

namespace bbo::scoring {

// A number, or null when it is not finite; and the same element-wise.
nlohmann::json JsonNumber(double v);
nlohmann::json JsonNumbers(const std::vector<double>& v);

nlohmann::json LeaderboardJson(const Leaderboard& board, const ScoringInput& input);

}  // namespace bbo::scoring

#endif  // BBO_REPORT_REPORT_JSON_H_
