#ifndef BBO_SCORING_PLACKETT_LUCE_INTERNAL_HELMERT_H_
#define BBO_SCORING_PLACKETT_LUCE_INTERNAL_HELMERT_H_

// The Helmert contrast matrix Q (n x (n - 1)) of Wurth et al., "Pareto-Optimal Anytime Algorithms
// via Bayesian Racing" (PolarBear) Appendix A, eq. 38 (Lancaster 1965): Q^T Q = I and every column
// sums to zero, so mu = Q eta has sum_i mu_i = 0 for any eta.

#include <cmath>

#include "Eigen/Dense"

namespace bbo::scoring::pl::internal {

inline Eigen::MatrixXd Helmert(int n) {
  Eigen::MatrixXd Q = Eigen::MatrixXd::Zero(n, n > 1 ? n - 1 : 0);
  for (int k = 1; k <= n - 1; ++k) {  // column k - 1
    for (int i = 1; i <= k; ++i) Q(i - 1, k - 1) = std::sqrt(1.0 / (k * (k + 1.0)));
    Q(k, k - 1) = -std::sqrt(k / (k + 1.0));
  }
  return Q;
}

}  // namespace bbo::scoring::pl::internal

#endif  // BBO_SCORING_PLACKETT_LUCE_INTERNAL_HELMERT_H_
