#ifndef BBO_SCORING_PLACKETT_LUCE_SECONDS_H_
#define BBO_SCORING_PLACKETT_LUCE_SECONDS_H_

// The optimizer-seconds view of the Bayesian Plackett-Luce ranking over time (Wurth, Stegherr,
// Kemper, Heider and Hähner, "Pareto-Optimal Anytime Algorithms via Bayesian Racing"
// (PolarBear) §3.3: "a uniform or log-spaced grid"; docs/plackett-luce.md). The batch view
// (summary.h) ranks the methods of a run (problem, trial) by their best value after b batches;
// this view ranks them by their best value after t seconds of optimizer time, so a method that
// reaches the same values with less optimizer time ranks higher here. It needs the curves'
// TrialCurve::batch_end_seconds, which only a coordinator's records have (a results CSV carries
// no timings). Pure computation; thread-safe.

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "scoring/leaderboard.h"
#include "scoring/plackett_luce/summary.h"
#include "scoring/plackett_luce/traces.h"

namespace bbo::scoring::pl {

struct SecondsOptions {
  // Timepoints T of the log-spaced grid, >= 2 (PolarBear §3.3: T in [10, 100] suffices).
  int timepoints = 16;
  // The grid's first point, seconds: this quantile (nearest rank, in [0, 1]) of the runs'
  // first-batch end times, and at least min_first_s (> 0: a log grid cannot start at 0). The
  // last point is the largest total optimizer time of any study.
  double first_quantile = 0.05;
  double min_first_s = 1e-3;
  // The independent Dirichlet(1) model, decisions and band, as the batch view's defaults.
  SummaryOptions summary;
};

// Whether any curve of `input` carries batch timings.
bool HasTimings(const ScoringInput& input);

// One step trace per (method, run): run (problem, trial) of method m steps to the best batch
// minimum so far at each batch's end on the optimizer's clock (StepTraceFromEvaluations over
// batch_end_seconds and the first batch_end_seconds->size() batch minima). A study that ran no
// batch has an empty trace (+inf throughout: ranked last, as the batch view ranks it); a curve
// without timings is left out. A curve's trial is TrialCurve::trial, or its position when -1.
// InvalidArgument: a curve's times are NaN or decrease, or outnumber its batch minima (named by
// method, problem and trial).
absl::StatusOr<TraceSet> SecondsTraces(const ScoringInput& input);

// The summary of the seconds view: SecondsTraces, the log grid (unit "seconds"), rankings,
// FitIndependentDirichlet(options.summary.model), SummarizePlackettLuce. FailedPrecondition:
// fewer than two methods with timed results, or no study used more optimizer time than the
// grid's first point (e.g. nothing was timed). InvalidArgument: an option out of range (named)
// or as SecondsTraces.
absl::StatusOr<PlackettLuceSummary> PlackettLuceSeconds(const ScoringInput& input,
                                                        const SecondsOptions& options = {});

// The JSON of the seconds view: PlackettLuceJson(*summary) (layout "bbo-arena/plackett-luce/1",
// "anytime.unit" = "seconds") with "grid": {"spacing": "log", "clock": what the seconds
// measure}; or {"layout", "error": the status message}.
nlohmann::json PlackettLuceSecondsJson(const absl::StatusOr<PlackettLuceSummary>& summary);

}  // namespace bbo::scoring::pl

#endif  // BBO_SCORING_PLACKETT_LUCE_SECONDS_H_
