#ifndef BBO_SCORING_LEADERBOARD_H_
#define BBO_SCORING_LEADERBOARD_H_

// The leaderboard: Bayesmark normalized mean and median scores (Bayesmark's "How scoring works";
// Turner et al. (2021) Appendix B eqs. 2-7) computed from per-study batch minima and the pooled
// random-search baseline evaluations. Pure computation: no I/O, no SQLite. Thread-compatible (no
// shared state).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/batch_figures.h"
#include "scoring/baseline.h"
#include "scoring/estimators.h"

namespace bbo::scoring {

// One study (trial n) of one method on one problem.
struct TrialCurve {
  // F_{pmtn}: minimum objective value over the points of batch t, t = 0..n_batches-1. +inf for
  // a batch whose evaluations all crashed, or that never ran because the study was cut off (the
  // cumulative minimum then carries the best so far forward: Turner et al. (2021) §3.4).
  std::vector<double> batch_min;
  // Optional, for scoring a held-out loss (Bayesmark's generalization objective): the visible
  // loss the optimizer saw, per batch its minimum, with batch_min holding the held-out loss of
  // that same point. S_t is then the held-out loss at the running argmin of the visible loss
  // (ties go to the later batch, as in Bayesmark's cummin). Empty: plain cumulative minimum.
  std::vector<double> visible_min;
  // The trial's number (its seed index), or -1 when only its position among the method's trials
  // is known. Runs are matched across methods by it (the Plackett-Luce views).
  int trial = -1;
  // Optional: the optimizer's time at the end of each batch the study ran, seconds (the running
  // sum of the batches' turn times, the time the study budget counts; evaluating the objective is
  // not in it). nullopt: not recorded (a results CSV carries no timings). Its size is the number
  // of batches the study ran, which may be fewer than batch_min's (padded with +inf).
  std::optional<std::vector<double>> batch_end_seconds;
  // Optional: the host's figures of each batch the study ran (common/batch_figures.h: the
  // optimizer's CPU seconds, ...), each unset when not measured. Empty: none recorded.
  std::vector<BatchFigures> batch_figures;
  // The batches that are results, when a racing phase ended the study early because its later
  // batches were already decided (Wurth et al.'s tau_A; not the optimizer's doing): batches from
  // `horizon` on did not run and no view reads them as results. -1: every batch (a study cut off
  // for its budget is not shortened: its best so far stands, as above).
  int horizon = -1;
};

// The batches of `trial` that are results: its horizon when a race shortened it, else all.
inline int BatchesRun(const TrialCurve& trial, int n_batches) {
  return trial.horizon >= 0 && trial.horizon < n_batches ? trial.horizon : n_batches;
}

// All trials of one method (a submission) on one problem.
struct MethodProblemData {
  std::vector<TrialCurve> trials;
};

struct ScoringInput {
  int n_batches = 16;
  int batch_size = 8;
  // Confidence level of the error bars: 1 - alpha.
  double alpha = 0.05;
  // problem -> its baseline data (pooled random-search evaluations, known optimum).
  std::map<std::string, ProblemBaselineInput> problems;
  // method name -> problem -> trials. A method missing a problem is scored without it (and
  // flagged incomplete).
  std::map<std::string, std::map<std::string, MethodProblemData>> methods;
};

struct ProblemResult {
  std::string problem;
  int trials = 0;
  // norm-mean-perf_{pmt} for t = 0..n_batches-1 (Bayesmark's "How scoring works"; per-trial
  // normalized, clipped to
  // [-1, 1] as Bayesmark's compute_aggregates does, then averaged over trials).
  std::vector<double> norm_mean_perf;
  // norm-med-perf_{pmt} for t = 0..n_batches-1, and its (1 - alpha) confidence interval from
  // the order statistics of the trials (Bayesmark's "How scoring works"; Bayesmark
  // quantile_and_CI).
  std::vector<double> norm_med_perf;
  std::vector<Interval> norm_med_ci;
  // 100 x (1 - norm_mean_perf at the last batch).
  double score = 0;
  // median over trials of the clamped normalized S at the last batch (Turner et al. (2021) Table
  // 2).
  double norm_median_clip_last = 0;
  // The trials that ran each batch (all of them but on a raced board: TrialCurve::horizon). At a
  // batch that no trial ran, the per-batch values above are NaN and the problem is left out of
  // the method's means over problems at that batch.
  std::vector<int> trials_run;
};

struct MethodResult {
  std::string method;
  // mean-perf_{mt} (Turner et al. (2021) eq. 6) for every batch t, with its Student-t half-width
  // over problems (+inf with one problem).
  std::vector<double> mean_perf;
  std::vector<double> mean_perf_eb;
  // med-perf_{mt} (Bayesmark's "How scoring works" median-of-medians) for every batch t, with its
  // CI.
  std::vector<double> med_perf;
  std::vector<Interval> med_perf_ci;
  // norm-mean-perf_{mt} = mean-perf_{mt} / rand-mean-perf_t (Bayesmark's "How scoring works"):
  // random search is 1.
  std::vector<double> normalized_mean_perf;
  // RS-equivalent evaluations (Turner et al. (2021) Table 2): the number m of random-search
  // evaluations whose pooled expected performance, mean over problems of (E[min(clip, min of m
  // draws)] - opt) / (clip - opt), equals mean-perf at the last batch; linear between integers.
  // `rs_bound` says whether it is exact, a lower bound (better than the pooled sample can resolve:
  // "> value"), or an upper bound (no better than one random guess: "<= 1").
  double rs_equivalent_evals = 0;
  enum class Bound { kExact, kAtLeast, kAtMost } rs_bound = Bound::kExact;
  // rs_equivalent_evals / (batch_size x n_batches).
  double rs_efficiency = 0;
  // Turner et al. (2021) eq. 7: 100 x (1 - mean-perf_{m,T}) with T the last batch.
  double score = 0;
  // 100 x (1 - med-perf_{m,T}) (Bayesmark's median summary; random search scores 0).
  double median_score = 0;
  // Turner et al. (2021) Table 2's "Median" column: eq. 7 with the median instead of the mean
  // across trials, 100 x (1 - mean_p median_n clamp((S_pTn - opt_p) / (clip_p - opt_p), -1, 1)).
  double table2_median_score = 0;
  std::vector<ProblemResult> problems;
  // False when the method has no trial on some problem of the input (or, on a raced board, none
  // that ran the last batch).
  bool complete = true;
  // True for the pooled random-search row (see ComputeLeaderboard).
  bool is_baseline = false;
};

struct Leaderboard {
  // Sorted by score, best first; ties keep method-name order.
  std::vector<MethodResult> rows;
  std::map<std::string, ProblemBaseline> baselines;
  // rand-mean-perf_t = mean_p (rand-mean-perf_pt - opt_p) / (clip_p - opt_p) (Bayesmark's "How
  // scoring works").
  std::vector<double> rand_mean_perf;
};

// Memo of the per-problem work of ComputeLeaderboard across calls, for a server that rescores
// as studies land: a problem's baseline is recomputed only when its random-search evaluations or
// its best observed value changed, a method's result on a problem only when its trials or that
// baseline changed. Reused results are bit-identical to recomputed ones (inputs are compared in
// full, not hashed). Entries not used by the latest call are dropped. Thread-safe; one cache per
// stream of related inputs.
class ScoringCache {
 public:
  ScoringCache();
  ~ScoringCache();
  ScoringCache(const ScoringCache&) = delete;
  ScoringCache& operator=(const ScoringCache&) = delete;
  // Per-problem computations reused / performed so far.
  int64_t hits() const;
  int64_t misses() const;

  struct Impl;

 private:
  friend absl::StatusOr<Leaderboard> ComputeLeaderboard(const ScoringInput&,
                                                        const std::string&, ScoringCache*);
  std::unique_ptr<Impl> impl_;
};

// S_t of one trial: the cumulative minimum of its batch minima (Turner et al. (2021) eq. 2), or
// with a visible loss the held-out value at its running argmin.
std::vector<double> BestSoFar(const TrialCurve& trial);

// Computes every method's scores. Adds a row named `baseline_row_name` (unless empty) for random
// search whose per-problem curves come from the pooled baseline estimators (rand-mean-perf_{pt}
// from expected_min, rand-med-perf_{pt} from min_quantile), not from averaging trials.
// InvalidArgument when n_batches/batch_size < 1, a trial's curve length differs from n_batches,
// or a problem's baseline cannot be computed (see ComputeBaseline). Problems without any method
// data still get a baseline.
// `cache` (optional) memoizes per-problem work across calls (see ScoringCache).
absl::StatusOr<Leaderboard> ComputeLeaderboard(const ScoringInput& input,
                                               const std::string& baseline_row_name,
                                               ScoringCache* cache = nullptr);

}  // namespace bbo::scoring

#endif  // BBO_SCORING_LEADERBOARD_H_
