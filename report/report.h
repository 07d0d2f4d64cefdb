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
//                   "methods": {method: [[t] per level]}},
//    "resources": what the optimizers used per batch as their hosts measured it
//        (report/resources.h): {"figures": [{"name", "heading"}], "methods": [{"method",
//        <figure name>: {"batches", "median", "max"}}]}, a method listed when any figure of it
//        was measured,
//    "plackett_luce": the Bayesian Plackett-Luce ranking over time of the input's methods (a
//        coordinator's pooled random-search row is not one): scoring::pl::PlackettLuceJson, layout
//        "bbo-arena/plackett-luce/1" (docs/plackett-luce.md §7: "final" {posterior_mean, lower,
//        upper} per method, "anytime" per batch, "pareto_set", "p_pareto",
//        "decisions.eliminated_by", ...); or, when it was not computed (fewer than two methods,
//        an input the model refuses), {"layout", "error": why},
//    "plackett_luce_seconds" (only when the input carries batch timings, as a coordinator's
//        records do; a results CSV has none): the same ranking on the optimizer's clock
//        (scoring/plackett_luce/seconds.h): the same layout with
//        "anytime.unit": "seconds" and "anytime.time" a log-spaced grid of cumulative optimizer
//        seconds (the batches' turn times, as the study budget counts them), plus
//        "grid": {"spacing": "log", "clock"}; or {"layout", "error": why}}
// Attainment: per problem and batch the level-quantile over trials (order statistic
// ceil(level * N), level 0 = the best trial) of the clipped normalized best so far, averaged over
// problems. Rendered as a score it is 100 x (1 - value).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "report/report_csv.h"
#include "report/resources.h"
#include "scoring/anytime.h"
#include "scoring/bootstrap.h"
#include "scoring/borda.h"
#include "scoring/leaderboard.h"
#include "scoring/plackett_luce/summary.h"

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
  // The Bayesian Plackett-Luce ranking over time (ReportPlackettLuce): computed unless false.
  // The defaults (independent Dirichlet(1), 4 x 500 Gibbs draws per batch) take well under a
  // second at 4 methods x 13 problems x 5 trials x 16 batches.
  bool plackett_luce = true;
  pl::SummaryOptions plackett_luce_options;
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

// The Plackett-Luce rankings of one input, fitted once (FitPlackettLuce) and shared by every
// view of that input: the report's two sections, the web board's ranking.
struct PlackettLuceFits {
  // Over batches: ReportPlackettLuce, or why it is missing.
  absl::StatusOr<pl::PlackettLuceSummary> batches =
      absl::FailedPreconditionError("the Plackett-Luce ranking was not computed");
  // Over optimizer seconds (pl::PlackettLuceSeconds with T = n_batches clamped to [10, 100]);
  // nullopt when the input carries no timings.
  std::optional<absl::StatusOr<pl::PlackettLuceSummary>> seconds;
};

// Both rankings of `input` with the model, decisions and band of `options`. Never fails: a
// ranking that cannot be made holds the reason. `same_input` (optional): fits of this same input
// with the same model, whose posteriors are summarized again (other decisions or exclusions)
// instead of fitted anew. Pure; thread-safe.
PlackettLuceFits FitPlackettLuce(const ScoringInput& input, const pl::SummaryOptions& options = {},
                                 const PlackettLuceFits* same_input = nullptr);

struct Report {
  ReportOptions options;
  std::string generated_at;
  Leaderboard board;
  BootstrapResult bootstrap;
  NonparametricRanking ranking;
  std::vector<GroupRanking> groups;
  AnytimeResult anytime;
  Attainment attainment;
  // What the optimizers used per batch, as their hosts measured it (report/resources.h).
  std::vector<MethodResources> resources;
  // The Plackett-Luce rankings of the input (never fails the report); null when
  // options.plackett_luce is false.
  std::shared_ptr<const PlackettLuceFits> plackett_luce;
};

// Attainment of every method of `input` (see the layout comment).
Attainment ComputeAttainment(const Leaderboard& board, const ScoringInput& input,
                             const std::vector<double>& levels);

// Dimension bands used for grouping: "1-3", "4-7", "8-15", "16+".
std::string DimensionBand(int dimension);

// The Plackett-Luce summary of a report's input (pl::SummarizePlackettLuce over every method of
// `input`, one ranking per (problem, trial index, batch)). FailedPrecondition, saying why, when
// fewer than two methods have results; otherwise SummarizePlackettLuce's status. Pure; thread-safe.
absl::StatusOr<pl::PlackettLuceSummary> ReportPlackettLuce(const ScoringInput& input,
                                                           const pl::SummaryOptions& options = {});

// The report's "plackett_luce" value: pl::PlackettLuceJson(*summary), or
// {"layout": "bbo-arena/plackett-luce/1", "error": the status message}.
nlohmann::json PlackettLuceReportJson(const absl::StatusOr<pl::PlackettLuceSummary>& summary);

// `cache` (optional) memoizes the leaderboard's per-problem work across calls. `fits`
// (optional): the Plackett-Luce rankings of this same input, already fitted (FitPlackettLuce with
// options.plackett_luce_options), so one fit serves every view of an input.
absl::StatusOr<Report> ComputeReport(const ScoringInput& input, const ReportOptions& options,
                                     ScoringCache* cache = nullptr,
                                     std::shared_ptr<const PlackettLuceFits> fits = nullptr);

// The report as JSON (the layout above). `racing`: a racing phase's race view (written as
// "racing" when not null).
nlohmann::json ReportJson(const Report& report, const ScoringInput& input,
                          const nlohmann::json& racing = nullptr);

// ReportCsv (the CSV rendering of a report JSON) is declared in report/report_csv.h.

}  // namespace bbo::scoring

#endif  // BBO_REPORT_REPORT_H_
