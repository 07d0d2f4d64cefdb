#ifndef BBO_PROBLEMS_INTERNAL_SYNTHETIC_FUNCTIONS_H_
#define BBO_PROBLEMS_INTERNAL_SYNTHETIC_FUNCTIONS_H_

// Closed-form functions of the synthetic suite (synthetic_suite.h) that benchmark_functions.h
// does not have. Unless a comment says otherwise, each has its global minimum 0 at z = 0.
// Pure and thread-safe. Internal to the suite.

#include <functional>
#include <numbers>

#include "absl/types/span.h"

namespace bbo::problems_internal::synthetic {

inline constexpr double kPi = std::numbers::pi;

using VectorFunction = std::function<double(absl::Span<const double>)>;

inline double Square(double x) { return x * x; }

// sum_i 10^(exponent (i-1)/(D-1)) z_i^2: condition number 10^exponent.
VectorFunction Ellipsoid(double exponent);

// sum_i 10^(exponent (i-1)/(D-1)) |z_i|: a nonsmooth ellipsoid.
VectorFunction AbsEllipsoid(double exponent);

// Griewank: 1 + sum_i z_i^2 / 4000 - prod_i cos(z_i / sqrt(i)).
double Griewank(absl::Span<const double> z);

// Radial ripples on a bowl: ||z||^2 + 2 (1 - cos(3 pi ||z||)). Local minima on rings.
double RippleBowl(absl::Span<const double> z);

// sum_i |z_i| + 2 (1 - cos(2 pi z_i)): a nonsmooth separable Rastrigin.
double AbsRastrigin(absl::Span<const double> z);

// One coordinate of Rastrigin: z^2 + 10 (1 - cos(2 pi z)).
double Rastrigin1(double z);

// The compactly supported bump (1 - t^2)^2 for t < 1, else 0 (continuously differentiable).
// Maximum 1 at t = 0.
double Bump(double t);

// Euclidean distance of two points of the same dimension.
double Distance(absl::Span<const double> a, absl::Span<const double> b);

// The minimizer of StyblinskiTang per coordinate: the smallest root of 4u^3 - 32u + 5 = 0, by
// Newton's method from the literature value -2.903534.
double StyblinskiTangArgmin();

}  // namespace bbo::problems_internal::synthetic

#endif  // BBO_PROBLEMS_INTERNAL_SYNTHETIC_FUNCTIONS_H_
