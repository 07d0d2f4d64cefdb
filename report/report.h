#ifndef BBO_REPORT_REPORT_H_
#define BBO_REPORT_REPORT_H_

// The full scoring report of a competition phase: the Bayesmark leaderboard, bootstrap rank
// confidence sets, the nonparametric (Mann-Whitney / Borda) ranking overall and by group, the
// anytime views and the empirical attainment of best-so-far. ComputeReport is pure computation;
// ReportJson is the single source of every number the CSV and HTML renderings show.
//
// JSON layout ("schema": "bbo-arena/report/1"; keys may be added, never renamed; every
// non-finite number is null):
//   {"schema", "phase", "source", "generated_at" (ISO 8601 UTC),
//    "batch_size", "n_batches", "alpha", "warnings": [str],
//    "methods": [...], "rand_mean_perf": [t], "baselines": {problem: {"opt", "clip"}}
//        (exactly LeaderboardJson's keys, see report_json.h; rows best first, the pooled
//         random-search baseline row has "baseline": true),
//    "problems": [{"problem", "dimension" (0 = unknown), "attributes": [str],
//                  "opt", "clip", "rand_mean_perf": [t], "rand_med_perf": [t]}],
//    "bootstrap": {"replicates", "seed", "top_k",
//                  "methods": [{"method", "rank_counts": [r] (rank r + 1), "p_top_k",
//                               "rank_interval": [lo, hi] (central 1 - alpha interval of rank)}],
//                  "top_rankings": [{"ranking": [method], "frequency"}]},
//    "nonparametric": {"familywise_alpha", "pairwise_alpha",
//                      "rows": [{"method", "borda", "firsts", "top_three"}],
//                      "ballots": {problem: [{"method", "position", "borda"}]},
//                      "groups": [{"kind": "dimension" | "attribute", "group": str,
//                                  "problems": [str], "rows": [as "rows"]}]},
//    "anytime": {"rank_bootstrap_replicates",
//                "methods": {method: {"ecdf_runtime_to_target": [t],
//                                     "avg_fractional_rank": [t]}}},
//    "attainment": {"levels": [0, 0.25, 0.5, 0.75, 1],
//                   "methods": {method: [[t] per level]}}}
// Attainment: per problem and batch the level-quantile over trials (order statistic
// ceil(level * N), level 0 = the best trial) of the clipped normalized best so far, averaged over
// problems. Rendered as a score it is 100 x (1 - value).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "report/report_csv.h"
#include "scoring/anytime.h"
#include "scoring/bootstrap.h"
#include "scoring/borda.h"
#include "scoring/leaderboard.h"

namespace bbo::scoring {

// What the problem library says about a problem (for grouped tables).
struct ProblemInfo {
  int dimension = 0;  // 0 = unknown
  std::vector<std::string> attributes;
};

struct ReportOptions {
  std::string phase = "practice";
  // Free text: where the results came from (a SQLite file, a CSV, a server address).
  std::string source;
  // Name of the pooled random-search row added to the leaderboard ("" = none).
  std::string baseline_row_name = "random-search-baseline";
  BootstrapOptions bootstrap;
  // Bootstrap replicates of the anytime average fractional rank.
  int anytime_replicates = 200;
  // Familywise level of the Mann-Whitney tests (Dewancker et al. (2016) §2.2).
  double familywise_alpha = 0.05;
  std::map<std::string, ProblemInfo> problem_info;
  std::vector<std::string> warnings;
};

struct Attainment {
  std::vector<double> levels;
  // method -> level -> batch.
  std::map<std::string, std::vector<std::vector<double>>> curves;
};

struct GroupRanking {
  std::string kind;  // "dimension" or "attribute"
  std::string group;
  std::vector<std::string> problems;
  std::vector<BordaRow> rows;
};

struct Report {
  ReportOptions options;
  std::string generated_at;
  Leaderboard board;
  BootstrapResult bootstrap;
  NonparametricRanking ranking;
  std::vector<GroupRanking> groups;
  AnytimeResult anytime;
  Attainment attainment;
};

// Attainment of every method of `input` (see the layout comment).
Attainment ComputeAttainment(const Leaderboard& board, const ScoringInput& input,
                             const std::vector<double>& levels);

// Dimension bands used for grouping: "1-3", "4-7", "8-15", "16+".
std::string DimensionBand(int dimension);

// `cache` (optional) memoizes the leaderboard's per-problem work across calls.
absl::StatusOr<Report> ComputeReport(const ScoringInput& input, const ReportOptions& options,
                                     ScoringCache* cache = nullptr);

nlohmann::json ReportJson(const Report& report, const ScoringInput& input);

// ReportCsv (the CSV rendering of a report JSON) is declared in report/report_csv.h.

}  // namespace bbo::scoring

#endif  // BBO_REPORT_REPORT_H_
