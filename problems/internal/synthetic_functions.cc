#include "problems/internal/synthetic_functions.h"

#include <cmath>
#include <cstddef>

namespace bbo::problems_internal::synthetic {

VectorFunction Ellipsoid(double exponent) {
  return [exponent](absl::Span<const double> z) {
    const int d = static_cast<int>(z.size());
    double sum = 0.0;
    for (int i = 0; i < d; ++i) sum += std::pow(10.0, exponent * i / (d - 1)) * z[i] * z[i];
    return sum;
  };
}

VectorFunction AbsEllipsoid(double exponent) {
  return [exponent](absl::Span<const double> z) {
    const int d = static_cast<int>(z.size());
    double sum = 0.0;
    for (int i = 0; i < d; ++i) sum += std::pow(10.0, exponent * i / (d - 1)) * std::fabs(z[i]);
    return sum;
  };
}

double Griewank(absl::Span<const double> z) {
  double sum = 0.0, product = 1.0;
  for (size_t i = 0; i < z.size(); ++i) {
    sum += z[i] * z[i] / 4000.0;
    product *= std::cos(z[i] / std::sqrt(static_cast<double>(i + 1)));
  }
  return 1.0 + sum - product;
}

double RippleBowl(absl::Span<const double> z) {
  double r2 = 0.0;
  for (double zi : z) r2 += zi * zi;
  return r2 + 2.0 * (1.0 - std::cos(3.0 * kPi * std::sqrt(r2)));
}

double AbsRastrigin(absl::Span<const double> z) {
  double sum = 0.0;
  for (double zi : z) sum += std::fabs(zi) + 2.0 * (1.0 - std::cos(2.0 * kPi * zi));
  return sum;
}

double Rastrigin1(double z) { return z * z + 10.0 * (1.0 - std::cos(2.0 * kPi * z)); }

double Bump(double t) { return t < 1.0 ? Square(1.0 - t * t) : 0.0; }

double Distance(absl::Span<const double> a, absl::Span<const double> b) {
  double sum = 0.0;
  for (size_t i = 0; i < a.size(); ++i) sum += Square(a[i] - b[i]);
  return std::sqrt(sum);
}

double StyblinskiTangArgmin() {
  double u = -2.903534;
  for (int i = 0; i < 50; ++i) u -= (4 * u * u * u - 32 * u + 5) / (12 * u * u - 32);
  return u;
}

}  // namespace bbo::problems_internal::synthetic
