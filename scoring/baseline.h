#ifndef BBO_SCORING_BASELINE_H_
#define BBO_SCORING_BASELINE_H_

// The per-problem reference values every score is normalized with (Bayesmark
// experiment_baseline.compute_baseline; Bayesmark's "How scoring works"; Turner et al. (2021) App.
// B, where clip_p enters eq. 3, S'_ptn = min(S_ptn, clip_p), and opt_p and clip_p the normalization
// of eq. 5, norm-mean-perf_pt = (mean-perf_pt - opt_p) / (clip_p - opt_p)):
//   clip_p            = the median of single random-search evaluations (Bayesmark's "How scoring
//   works": "the median
//                       score after a single function evaluation", rand-med-perf_p0 for a batch
//                       size of 1),
//   opt_p             = an estimate of the global minimum: the best value any method (random
//                       search included) has found (Bayesmark's estimator), or the problem's best
//                       known optimum if the caller passes one and it is lower, minus
//                       Bayesmark's pad of 10000 ulps so that opt_p is strictly below every
//                       observation,
//   rand-med-perf_pt  = min_quantile(random evals, 0.5, m_t), m_t = batch_size (t + 1),
//   rand-mean-perf_pt = cumulative minimum over t of min(clip_p, expected_min(min(clip_p,
//                       random evals), m_t)).
// Random-search evaluations are iid across batches and trials, so the pooled estimators use all
// of them at once instead of averaging random-search trials (Bayesmark's "How scoring works").

#include <cmath>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"

namespace bbo::scoring {

struct ProblemBaselineInput {
  // Every single random-search evaluation F on the problem, pooled over batches and trials;
  // +inf for a crashed evaluation.
  std::vector<double> random_evals;
  // The problem's best known global minimum, if it declares one.
  std::optional<double> known_optimum;
  // The minimum over every evaluation of every method, when the methods' curves do not show it
  // (scoring a held-out loss at the visible argmin). +inf: derive it from the curves.
  double all_evals_min = HUGE_VAL;
};

struct ProblemBaseline {
  double opt = 0;   // opt_p
  double clip = 0;  // clip_p
  std::vector<double> rand_mean_perf;  // t = 0..n_batches-1
  std::vector<double> rand_med_perf;   // t = 0..n_batches-1
};

// `best_observed`: the minimum over every evaluation of every method on the problem (+inf if
// none). InvalidArgument: batch_size or n_batches < 1, fewer than batch_size x n_batches random
// evaluations (the unbiased estimator needs them), NaN in the evaluations, a median random
// evaluation that is not finite, or no finite best value.
absl::StatusOr<ProblemBaseline> ComputeBaseline(const ProblemBaselineInput& input,
                                                double best_observed, int batch_size,
                                                int n_batches);

}  // namespace bbo::scoring

#endif  // BBO_SCORING_BASELINE_H_
