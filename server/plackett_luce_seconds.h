#ifndef BBO_SERVER_PLACKETT_LUCE_SECONDS_H_
#define BBO_SERVER_PLACKETT_LUCE_SECONDS_H_

// The optimizer-seconds view of the Bayesian Plackett-Luce ranking over time (Wurth, Stegherr,
// Kemper, Heider and Hähner, "Pareto-Optimal Anytime Algorithms via Bayesian Racing"
// (PolarBear) §3.3: "a uniform or log-spaced grid"; docs/plackett-luce.md). The report's batch
// view ("plackett_luce") ranks the methods of a run (problem, trial index) by their best value
// after b batches; this view ranks them by their best value after t seconds of optimizer time,
// so a method that reaches the same values with less optimizer time ranks higher here. Only the
// coordinator has this clock (results CSVs carry no timings): StudyCurve::batch_end_seconds, the
// running sum of the turn times the study budget counts.
//
// Pure computation apart from ReportPlackettLuceSeconds, which reads the store. Thread-safe.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "scoring/plackett_luce/summary.h"
#include "scoring/plackett_luce/traces.h"
#include "server/store/records.h"
#include "server/store/scoring_store.h"

namespace bbo {

struct PlackettLuceSecondsOptions {
  // Timepoints T of the log-spaced grid, >= 2 (PolarBear §3.3: T in [10, 100] suffices).
  int timepoints = 16;
  // The grid's first point, seconds: this quantile (nearest rank, in [0, 1]) of the runs'
  // first-batch end times, and at least min_first_s (> 0: a log grid cannot start at 0). The
  // last point is the largest total optimizer time of any study.
  double first_quantile = 0.05;
  double min_first_s = 1e-3;
  // The independent Dirichlet(1) model, decisions and band, as the batch view's defaults.
  scoring::pl::SummaryOptions summary;
};

// One step trace per (method, run): run (problem, trial) of method m steps to the best batch
// minimum so far at each batch's end on the optimizer's clock (scoring::pl::
// StepTraceFromEvaluations over batch_end_seconds and batch_min). A study without batches has an
// empty trace (+inf throughout: ranked last, as the batch view ranks it); a curve whose
// batch_end_seconds does not match its batch_min (no timings) is left out. InvalidArgument: a
// curve's times are NaN or decrease (named by method, problem and trial).
absl::StatusOr<scoring::pl::TraceSet> SecondsTraces(const ScoringData& data);

// The summary of the seconds view: SecondsTraces, the log grid (unit "seconds"), rankings,
// scoring::pl::FitIndependentDirichlet(options.summary.model), SummarizePlackettLuce.
// FailedPrecondition: fewer than two methods with timed results, or no study used more optimizer
// time than the grid's first point (e.g. nothing was timed). InvalidArgument: an option out of
// range (named) or as SecondsTraces.
absl::StatusOr<scoring::pl::PlackettLuceSummary> PlackettLuceSeconds(
    const ScoringData& data, const PlackettLuceSecondsOptions& options = {});

// The report's "plackett_luce_seconds" value: scoring::pl::PlackettLuceJson(*summary) (layout
// "bbo-arena/plackett-luce/1", "anytime.unit" = "seconds") with "grid": {"spacing": "log",
// "clock": what the seconds measure}; or {"layout", "error": the status message}.
nlohmann::json PlackettLuceSecondsJson(
    const absl::StatusOr<scoring::pl::PlackettLuceSummary>& summary);

// What Phase::Report adds for a board: the board's scored studies (LoadScoringData, the
// ones the batch view ranks) on `problems` (the phase's), with T = n_batches clamped to
// [10, 100], as PlackettLuceSecondsJson; `problems` empty = every problem of the board. Never
// fails: a store error becomes the "error".
nlohmann::json ReportPlackettLuceSeconds(ScoringStore& store,
                                         const std::vector<std::string>& problems,
                                         const std::string& board, int n_batches);

}  // namespace bbo

#endif  // BBO_SERVER_PLACKETT_LUCE_SECONDS_H_
