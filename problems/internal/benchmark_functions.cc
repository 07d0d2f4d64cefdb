#include "problems/internal/benchmark_functions.h"

#include <cmath>

namespace bbo::problems_internal {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kE = 2.71828182845904523536;
constexpr double kHartmannAlpha[4] = {1.0, 1.2, 3.0, 3.2};

template <size_t D>
double Hartmann(const std::array<double, D>& x, const double (&a)[4][D], const double (&p)[4][D]) {
  double f = 0.0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0.0;
    for (size_t j = 0; j < D; ++j) inner += a[i][j] * (x[j] - p[i][j]) * (x[j] - p[i][j]);
    f -= kHartmannAlpha[i] * std::exp(-inner);
  }
  return f;
}

}  // namespace

double Branin(double x0, double x1) {
  const double b = 5.1 / (4.0 * kPi * kPi);
  const double c = 5.0 / kPi;
  const double t = 1.0 / (8.0 * kPi);
  const double u = x1 - b * x0 * x0 + c * x0 - 6.0;
  return u * u + 10.0 * (1.0 - t) * std::cos(x0) + 10.0;
}

double Hartmann3(const std::array<double, 3>& x) {
  static constexpr double kA[4][3] = {
      {3.0, 10.0, 30.0}, {0.1, 10.0, 35.0}, {3.0, 10.0, 30.0}, {0.1, 10.0, 35.0}};
  static constexpr double kP[4][3] = {{0.3689, 0.1170, 0.2673},
                                      {0.4699, 0.4387, 0.7470},
                                      {0.1091, 0.8732, 0.5547},
                                      {0.0381, 0.5743, 0.8828}};
  return Hartmann(x, kA, kP);
}

double Hartmann6(const std::array<double, 6>& x) {
  static constexpr double kA[4][6] = {{10.0, 3.0, 17.0, 3.5, 1.7, 8.0},
                                      {0.05, 10.0, 17.0, 0.1, 8.0, 14.0},
                                      {3.0, 3.5, 1.7, 10.0, 17.0, 8.0},
                                      {17.0, 8.0, 0.05, 10.0, 0.1, 14.0}};
  static constexpr double kP[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                                      {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                                      {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                                      {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};
  return Hartmann(x, kA, kP);
}

double Ackley(absl::Span<const double> x) {
  const double a = 20.0, b = 0.2, c = 2.0 * kPi;
  double sum_sq = 0.0, sum_cos = 0.0;
  for (double xi : x) {
    sum_sq += xi * xi;
    sum_cos += std::cos(c * xi);
  }
  const double d = static_cast<double>(x.size());
  return -a * std::exp(-b * std::sqrt(sum_sq / d)) - std::exp(sum_cos / d) + a + kE;
}

double Rosenbrock(absl::Span<const double> x) {
  double f = 0.0;
  for (size_t i = 0; i + 1 < x.size(); ++i) {
    const double u = x[i + 1] - x[i] * x[i];
    f += 100.0 * u * u + (1.0 - x[i]) * (1.0 - x[i]);
  }
  return f;
}

double Rastrigin(absl::Span<const double> x) {
  double f = 10.0 * static_cast<double>(x.size());
  for (double xi : x) f += xi * xi - 10.0 * std::cos(2.0 * kPi * xi);
  return f;
}

double Levy(absl::Span<const double> x) {
  const size_t d = x.size();
  auto w = [&](size_t i) { return 1.0 + (x[i] - 1.0) / 4.0; };
  const double s0 = std::sin(kPi * w(0));
  double f = s0 * s0;
  for (size_t i = 0; i + 1 < d; ++i) {
    const double wi = w(i);
    const double s = std::sin(kPi * wi + 1.0);
    f += (wi - 1.0) * (wi - 1.0) * (1.0 + 10.0 * s * s);
  }
  const double wd = w(d - 1);
  const double sd = std::sin(2.0 * kPi * wd);
  f += (wd - 1.0) * (wd - 1.0) * (1.0 + sd * sd);
  return f;
}

double StyblinskiTang(absl::Span<const double> x) {
  double f = 0.0;
  for (double xi : x) f += xi * xi * xi * xi - 16.0 * xi * xi + 5.0 * xi;
  return 0.5 * f;
}

double SixHumpCamel(double x0, double x1) {
  const double x0_sq = x0 * x0, x1_sq = x1 * x1;
  return (4.0 - 2.1 * x0_sq + x0_sq * x0_sq / 3.0) * x0_sq + x0 * x1 + (-4.0 + 4.0 * x1_sq) * x1_sq;
}

double GoldsteinPrice(double x0, double x1) {
  const double s = x0 + x1 + 1.0;
  const double t = 2.0 * x0 - 3.0 * x1;
  const double first =
      1.0 + s * s * (19.0 - 14.0 * x0 + 3.0 * x0 * x0 - 14.0 * x1 + 6.0 * x0 * x1 + 3.0 * x1 * x1);
  const double second =
      30.0 +
      t * t * (18.0 - 32.0 * x0 + 12.0 * x0 * x0 + 48.0 * x1 - 36.0 * x0 * x1 + 27.0 * x1 * x1);
  return first * second;
}

double Sphere(absl::Span<const double> x) {
  double f = 0.0;
  for (double xi : x) f += xi * xi;
  return f;
}

}  // namespace bbo::problems_internal
