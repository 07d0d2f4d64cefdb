#ifndef BBO_PROBLEMS_INTERNAL_MIXED_PROBLEMS_H_
#define BBO_PROBLEMS_INTERNAL_MIXED_PROBLEMS_H_

// Synthetic problems shaped like hyperparameter tuning: mixed real/int/bool/cat parameters and
// every Bayesmark warp (log, logit, bilog, "values"). Each is a sum of separable terms that are
// zero at a known optimizer, so the global minimum is exactly 0 (see each factory's comment).

#include <memory>
#include <vector>

#include "problems/problem.h"

namespace bbo::problems_internal {

// "mixed_sphere": C real log [1e-3, 1e3], alpha real linear [-2, 2], n_layers int linear [1, 8],
// use_bias bool, kernel cat {linear, rbf, poly}.
//   f = (log10 C - 1)^2 + (alpha - 0.5)^2 + (n_layers - 3)^2 / 4 + 0.5 [not use_bias]
//       + offset(kernel),  offset = {linear: 1, rbf: 0, poly: 0.5}.
// f* = 0 at C = 10, alpha = 0.5, n_layers = 3, use_bias = true, kernel = "rbf".
std::unique_ptr<Problem> MakeMixedSphere();

// "discrete_quadratic": n_estimators int log [1, 1000], max_depth int linear [1, 20], shift int
// linear [-10, 10].
//   f = (ln n_estimators - ln 100)^2 + (max_depth - 7)^2 / 4 + |shift + 3|.
// f* = 0 at n_estimators = 100, max_depth = 7, shift = -3.
std::unique_ptr<Problem> MakeDiscreteQuadratic();

// "warped_mix": offset real bilog [-1000, 1000], dropout real logit [0.01, 0.99], batch_size int
// values {16, 32, 64, 128, 256}, optimizer cat {sgd, adam, rmsprop}. With bilog(x) = sign(x)
// ln(1 + |x|) and logit(p) = ln(p / (1 - p)):
//   f = (bilog(offset) - bilog(50))^2 + (logit(dropout) - logit(0.2))^2
//       + (log2 batch_size - 6)^2 + penalty(optimizer),  penalty = {sgd: 0.3, adam: 0, rmsprop:
//       0.1}.
// f* = 0 at offset = 50, dropout = 0.2, batch_size = 64, optimizer = "adam".
std::unique_ptr<Problem> MakeWarpedMix();

}  // namespace bbo::problems_internal

#endif  // BBO_PROBLEMS_INTERNAL_MIXED_PROBLEMS_H_
