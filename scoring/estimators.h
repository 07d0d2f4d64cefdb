#ifndef BBO_SCORING_ESTIMATORS_H_
#define BBO_SCORING_ESTIMATORS_H_

// Distribution-free estimators Bayesmark's scoring uses (Bayesmark's "How scoring works"):
//   quantile      - the q-quantile as an order statistic,
//   min_quantile  - the q-quantile of the minimum of m iid draws, from a pooled sample,
//   expected_min  - the unbiased L-estimator of E[min of m iid draws], from a pooled sample.
// Pure functions; thread-safe.

#include <vector>

#include "absl/status/statusor.h"

namespace bbo::scoring {

// X_(ceil(n q)), the ceil(n q)-th smallest of X (1-based; -inf when n q rounds up to 0), which
// matches the mathematical definition of a quantile (Bayesmark quantiles.quantile).
// InvalidArgument: X empty, q not in (0, 1), NaN in X. +inf is allowed.
absl::StatusOr<double> Quantile(const std::vector<double>& X, double q);

// The q-quantile of min(x_1..x_m) for x_i iid from the distribution sampled by X. The minimum
// of m draws has CDF 1 - (1 - F)^m, so its q-quantile is F's q' quantile with
// q' = 1 - (1 - q)^(1/m) (Bayesmark quantiles.min_quantile_CI point estimate).
// InvalidArgument as Quantile, or m < 1.
absl::StatusOr<double> MinQuantile(const std::vector<double>& X, double q, int m);

// Unbiased estimate of E[min(x_1..x_m)] from n >= m iid samples X (Bayesmark
// expected_max.expected_min): with X sorted descending x_(1) >= ... >= x_(n) (i.e. ascending
// for the max of -X), E[min] = sum_k w_k x_(k), w_k = C(k-1, m-1) / C(n, m) for k = m..n, the
// average of the minimum over all C(n, m) subsets of size m. Weights are computed in log space
// (lgamma, log-sum-exp). Entries of X may be +inf only where their weight is 0 (terms with zero
// weight are skipped, so 0 * inf never appears); otherwise the estimate is +inf.
// InvalidArgument: m < 1, m > n (no unbiased estimate exists), NaN in X.
absl::StatusOr<double> ExpectedMin(const std::vector<double>& X, int m);

// Moves the order statistics ks (1-based; those outside [1, n] are ignored) of `v` to their
// places in sorted order, in linear time: v[k - 1] is then the k-th smallest.
void SelectOrderStats(std::vector<double>& v, std::vector<long> ks);

// ExpectedMin for a sample already sorted in descending order (no checks; m <= n). Same
// estimator, O(n) without lgamma: w_{k-1} / w_k = (k - m) / (k - 1).
double ExpectedMinSortedDesc(const std::vector<double>& desc, int m);

// A confidence interval [lo, hi]; either end may be infinite.
struct Interval {
  double lo = 0;
  double hi = 0;
};

// The (1 - alpha) confidence interval of the q-quantile from order statistics (Bayesmark
// quantiles.quantile_CI). With o[0] = -inf, o[1..n] = X ascending, o[n+1] = +inf and K ~
// Binomial(n, q): lo = o[max(0, PPF(alpha/2))], hi = o[max(0, ISF(alpha/2)) + 1], where PPF(p) is
// the smallest k with P(K <= k) >= p and ISF(p) = PPF(1 - p). Coverage is at least 1 - alpha.
// InvalidArgument as Quantile, or alpha not in (0, 1).
absl::StatusOr<Interval> QuantileCI(const std::vector<double>& X, double q, double alpha);

// Quantile and QuantileCI together, sorting X once (Bayesmark quantiles.quantile_and_CI).
struct QuantileWithCI {
  double estimate = 0;
  Interval ci;
};
absl::StatusOr<QuantileWithCI> QuantileAndCI(const std::vector<double>& X, double q, double alpha);

// QuantileCI of the minimum of m iid draws (q' = 1 - (1 - q)^(1/m)), as in MinQuantile.
absl::StatusOr<Interval> MinQuantileCI(const std::vector<double>& X, double q, int m,
                                       double alpha);

// Half-width of the Student-t confidence interval of the mean (Bayesmark stats.t_EB):
// sem * t_{1 - alpha/2, n-1} with sem = sd(X, ddof=1) / sqrt(n); +inf for n <= 1.
// InvalidArgument: X empty, alpha not in (0, 1).
absl::StatusOr<double> StudentTErrorBar(const std::vector<double>& X, double alpha);

}  // namespace bbo::scoring

#endif  // BBO_SCORING_ESTIMATORS_H_
