#ifndef BBO_SCORING_MANN_WHITNEY_H_
#define BBO_SCORING_MANN_WHITNEY_H_

// The two-sided Mann-Whitney U test (Dewancker et al. (2016) §2.2), which ranks optimizers per
// problem without assuming normality. Pure functions; thread-safe.

#include <vector>

#include "absl/status/statusor.h"

namespace bbo::scoring {

struct MannWhitneyResult {
  // U of the first sample: the number of pairs (x_i, y_j) with x_i > y_j, ties counting 1/2.
  double u_x = 0;
  // Two-sided p-value.
  double p_value = 1;
  // True when the exact null distribution was used, false for the normal approximation.
  bool exact = false;
};

// Two-sided test of "x and y come from the same distribution".
//   Exact: when both samples have at most `exact_max` (default 25) values and there are no ties,
//   p = 2 P(U >= max(U_x, U_y)) under the exact null distribution of U (computed by the standard
//   counting recursion), capped at 1.
//   Otherwise the normal approximation with tie correction and continuity correction:
//   z = (max(U_x, U_y) - n_x n_y / 2 - 1/2) / sigma, sigma^2 = n_x n_y / 12 ((n + 1) -
//   sum_ties (t^3 - t) / (n (n - 1))), p = 2 (1 - Phi(z)), capped at 1 (scipy's defaults).
// +inf values are ordinary (largest) values. InvalidArgument: an empty sample or NaN.
absl::StatusOr<MannWhitneyResult> MannWhitneyU(const std::vector<double>& x,
                                               const std::vector<double>& y,
                                               int exact_max = 25);

// MannWhitneyU for samples already sorted ascending (O(n) merge instead of a sort per call; for
// ranking many pairs). Same results and errors, plus InvalidArgument when a sample is unsorted.
absl::StatusOr<MannWhitneyResult> MannWhitneyUSorted(const std::vector<double>& xs,
                                                     const std::vector<double>& ys,
                                                     int exact_max = 25);

// The per-test significance that keeps the familywise error of all k(k-1)/2 pairwise tests at
// most `familywise` (Dewancker et al. (2016) §2.2): 1 - (1 - familywise)^(1 / (k(k-1)/2)).
double PairwiseAlpha(double familywise, int k);

}  // namespace bbo::scoring

#endif  // BBO_SCORING_MANN_WHITNEY_H_
