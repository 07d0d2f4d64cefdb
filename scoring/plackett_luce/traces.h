#ifndef BBO_SCORING_PLACKETT_LUCE_TRACES_H_
#define BBO_SCORING_PLACKETT_LUCE_TRACES_H_

// Best-so-far traces and the time grids they are read on, the input of the Plackett-Luce ranking
// models (Wurth, Stegherr, Kemper, Heider, Hähner, "Pareto-Optimal Anytime Algorithms via
// Bayesian Racing" (PolarBear), §2: the best-so-far trajectory g*_A(t) = min_{s <= t} g_A(s)).
//
// Two views of time share one representation, a step function:
//  - batches: the best after b batches (BatchTraces, from the leaderboard's ScoringInput);
//  - optimizer seconds: (time, best) pairs recorded when the best improved
//  (StepTraceFromEvaluations).
// Pure functions; thread-safe.

#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "scoring/leaderboard.h"

namespace bbo::scoring::pl {

// A right-continuous step function: from time[j] until time[j + 1] the best value found so far is
// best[j]. Before time[0] nothing has been found: +inf. `time` is non-decreasing; when several
// steps share a time the last one counts. NaN values read as +inf (a crashed evaluation).
struct StepTrace {
  std::vector<double> time;
  std::vector<double> best;
  // The run was observed up to this time only (e.g. stopped at tau_A by the racing planner):
  // later timepoints leave the method out of the run's ranking instead of extending its last step.
  double horizon = std::numeric_limits<double>::infinity();
};

enum class GridSpacing {
  kUniform,  // equal steps in t
  kLog,      // equal steps in log t
  kCustom,   // given points; temporal models use the linear axis
};

// The timepoints T = (t_1, ..., t_T) at which rankings are observed (PolarBear §3.3: "a uniform
// or log-spaced grid of T in [10 ... 100] timepoints suffices").
struct TimeGrid {
  // Strictly increasing, finite.
  std::vector<double> points;
  GridSpacing spacing = GridSpacing::kCustom;
  // For display only: "batches", "seconds", "evaluations", ...
  std::string unit;

  int size() const { return static_cast<int>(points.size()); }
};

// T points t_first, ..., t_last equally spaced. InvalidArgument: T < 1, non-finite bounds,
// t_last <= t_first when T > 1.
absl::StatusOr<TimeGrid> UniformGrid(double t_first, double t_last, int T, std::string unit);
// T points equally spaced in log t. InvalidArgument as UniformGrid, or t_first <= 0.
absl::StatusOr<TimeGrid> LogGrid(double t_first, double t_last, int T, std::string unit);
// 1, 2, ..., n_batches (uniform, unit "batches"): timepoint b is "after b batches".
// InvalidArgument: n_batches < 1.
absl::StatusOr<TimeGrid> BatchGrid(int n_batches);
// Checks a hand-made grid (non-empty, finite, strictly increasing; positive when kLog).
absl::Status ValidateGrid(const TimeGrid& grid);

// g*(t): the last step at or before t, +inf before the first step or for NaN. Precondition:
// time sorted (not checked; ValidateTrace does).
double ValueAt(const StepTrace& trace, double t);
// InvalidArgument: sizes differ, a time or the horizon is NaN, or times decrease.
absl::Status ValidateTrace(const StepTrace& trace);

// The step trace of a run from its evaluations in order: (time_k, value_k) with non-decreasing
// times (optimizer seconds, or evaluation counts). Keeps only the improvements of the running
// minimum; NaN values are crashes (+inf). InvalidArgument: sizes differ or times decrease.
absl::StatusOr<StepTrace> StepTraceFromEvaluations(const std::vector<double>& times,
                                                   const std::vector<double>& values);

// One run: problem instance and trial (seed) index.
struct RunKey {
  std::string instance;
  int trial = 0;
  friend bool operator<(const RunKey& a, const RunKey& b) {
    return std::tie(a.instance, a.trial) < std::tie(b.instance, b.trial);
  }
  friend bool operator==(const RunKey& a, const RunKey& b) {
    return a.instance == b.instance && a.trial == b.trial;
  }
};

// method name -> run -> its best-so-far trace. A method missing a run simply has no entry; the
// run's rankings then cover the methods present (partial rankings, PolarBear §3).
using TraceSet = std::map<std::string, std::map<RunKey, StepTrace>>;

// The run of each trial of one method on one problem: the trials' numbers (TrialCurve::trial),
// so that methods are compared on the same seeds whatever order they ran them in, or their
// positions when a number is missing or repeated (a results file without trial numbers).
std::vector<int> RunIndices(const std::vector<TrialCurve>& trials);

// The batch view of a leaderboard input: each trial of method m on problem p becomes run
// (p, RunIndices) with the trace of BestSoFar (the leaderboard's S_t, eq. 2 of Turner et al.
// (2021), honouring a held-out loss) stepping at times 1, ..., n_batches (best after t + 1
// batches), observed up to its horizon when a race shortened it (TrialCurve::horizon). NaN batch
// minima are crashes (+inf). InvalidArgument: a trial's curve length differs from n_batches.
absl::StatusOr<TraceSet> BatchTraces(const ScoringInput& input);

}  // namespace bbo::scoring::pl

#endif  // BBO_SCORING_PLACKETT_LUCE_TRACES_H_
