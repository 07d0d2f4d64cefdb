#include "scoring/baseline.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "scoring/estimators.h"

namespace bbo::scoring {

absl::StatusOr<ProblemBaseline> ComputeBaseline(const ProblemBaselineInput& input,
                                                double best_observed, int batch_size,
                                                int n_batches) {
  if (batch_size < 1) return absl::InvalidArgumentError("batch_size: must be >= 1");
  if (n_batches < 1) return absl::InvalidArgumentError("n_batches: must be >= 1");
  const std::vector<double>& evals = input.random_evals;
  const size_t needed = static_cast<size_t>(batch_size) * n_batches;
  if (evals.size() < needed) {
    return absl::InvalidArgumentError(absl::StrCat(
        "random_evals: ", evals.size(), " random-search evaluations; the pooled estimators need at "
        "least batch_size x n_batches = ", needed));
  }
  for (double v : evals) {
    if (std::isnan(v)) return absl::InvalidArgumentError("random_evals: contains NaN");
  }
  ProblemBaseline b;
  ASSIGN_OR_RETURN(b.clip, Quantile(evals, 0.5));
  if (!std::isfinite(b.clip)) {
    return absl::InvalidArgumentError(
        "random_evals: the median random-search evaluation is not finite (more than half of "
        "the random evaluations crashed)");
  }
  double best = std::min(best_observed, *std::min_element(evals.begin(), evals.end()));
  if (input.known_optimum) best = std::min(best, *input.known_optimum);
  if (!std::isfinite(best)) {
    return absl::InvalidArgumentError("best_observed: no finite evaluation on the problem");
  }
  // Bayesmark's pad: 10000 ulps below the best, so that opt < every observation.
  const double a = std::max(DBL_TRUE_MIN, std::abs(best));
  const double ulp = std::nextafter(a, HUGE_VAL) - a;
  b.opt = best - 10000 * ulp;

  // Sorted once, descending, for the expected minimum at every m.
  std::vector<double> clipped_desc(evals.size());
  std::transform(evals.begin(), evals.end(), clipped_desc.begin(),
                 [&](double v) { return std::min(v, b.clip); });
  std::sort(clipped_desc.begin(), clipped_desc.end(), std::greater<double>());
  std::vector<double> ascending = evals;
  std::sort(ascending.begin(), ascending.end());
  const double n = static_cast<double>(ascending.size());
  double running = HUGE_VAL;
  for (int t = 0; t < n_batches; ++t) {
    const int m = batch_size * (t + 1);
    // min_quantile(evals, 0.5, m): the ceil(n q')-th smallest, q' = 1 - 0.5^(1/m).
    const long idx = static_cast<long>(std::ceil(n * -std::expm1(std::log1p(-0.5) / m)));
    b.rand_med_perf.push_back(idx <= 0 ? -HUGE_VAL
                                       : ascending[std::min<size_t>(idx, ascending.size()) - 1]);
    const double mean = ExpectedMinSortedDesc(clipped_desc, m);
    running = std::min(running, std::min(b.clip, mean));
    b.rand_mean_perf.push_back(running);
  }
  return b;
}

}  // namespace bbo::scoring
