#ifndef BBO_PROBLEMS_INTERNAL_BENCHMARK_FUNCTIONS_H_
#define BBO_PROBLEMS_INTERNAL_BENCHMARK_FUNCTIONS_H_

// Classic global-optimization test functions, in their raw (unscaled) form. Definitions and
// constants follow Surjanovic & Bingham, "Virtual Library of Simulation Experiments: Test
// Functions and Datasets" (sfu.ca/~ssurjano); each comment states the formula and the global
// minimum f* at x* on the usual domain.
//
// Pure functions; thread-safe. Variable-dimension functions accept any non-empty `x`.

#include <array>

#include "absl/types/span.h"

namespace bbo::problems_internal {

// f = (x1 - 5.1 x0^2 / (4 pi^2) + 5 x0 / pi - 6)^2 + 10 (1 - 1/(8 pi)) cos(x0) + 10.
// Domain [-5, 10] x [0, 15]; f* = 5 / (4 pi) = 0.397887... at (-pi, 12.275), (pi, 2.275),
// (3 pi, 2.475).
double Branin(double x0, double x1);

// f = -sum_i alpha_i exp(-sum_j A_ij (x_j - P_ij)^2) with the standard 4x3 A and P.
// Domain [0, 1]^3; f* = -3.86278 at (0.114589, 0.555649, 0.852547).
double Hartmann3(const std::array<double, 3>& x);

// As Hartmann3 with the standard 4x6 A and P. Domain [0, 1]^6; f* = -3.32237 at
// (0.201690, 0.150011, 0.476874, 0.275332, 0.311652, 0.657301).
double Hartmann6(const std::array<double, 6>& x);

// f = -a exp(-b sqrt(mean(x^2))) - exp(mean(cos(c x))) + a + e with a = 20, b = 0.2, c = 2 pi.
// f* = 0 at x = 0.
double Ackley(absl::Span<const double> x);

// f = sum_{i<d-1} 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2. f* = 0 at x = 1. Needs d >= 2.
double Rosenbrock(absl::Span<const double> x);

// f = 10 d + sum_i (x_i^2 - 10 cos(2 pi x_i)). f* = 0 at x = 0.
double Rastrigin(absl::Span<const double> x);

// With w_i = 1 + (x_i - 1) / 4: f = sin^2(pi w_0) + sum_{i<d-1} (w_i - 1)^2 (1 + 10 sin^2(pi w_i
// + 1)) + (w_{d-1} - 1)^2 (1 + sin^2(2 pi w_{d-1})). f* = 0 at x = 1.
double Levy(absl::Span<const double> x);

// f = sum_i (x_i^4 - 16 x_i^2 + 5 x_i) / 2. f* = -39.16616570377142 d at x_i = -2.903534.
double StyblinskiTang(absl::Span<const double> x);
// The per-dimension minimum of StyblinskiTang, refined numerically from the literature value.
inline constexpr double kStyblinskiTangMinPerDim = -39.16616570377142;

// f = (4 - 2.1 x0^2 + x0^4 / 3) x0^2 + x0 x1 + (-4 + 4 x1^2) x1^2.
// Domain [-3, 3] x [-2, 2]; f* = -1.0316284534898774 at (0.0898420, -0.7126564) and its negation.
double SixHumpCamel(double x0, double x1);

// f = [1 + (x0 + x1 + 1)^2 (19 - 14 x0 + 3 x0^2 - 14 x1 + 6 x0 x1 + 3 x1^2)]
//   * [30 + (2 x0 - 3 x1)^2 (18 - 32 x0 + 12 x0^2 + 48 x1 - 36 x0 x1 + 27 x1^2)].
// Domain [-2, 2]^2; f* = 3 at (0, -1).
double GoldsteinPrice(double x0, double x1);

// f = sum_i x_i^2. f* = 0 at x = 0.
double Sphere(absl::Span<const double> x);

}  // namespace bbo::problems_internal

#endif  // BBO_PROBLEMS_INTERNAL_BENCHMARK_FUNCTIONS_H_
