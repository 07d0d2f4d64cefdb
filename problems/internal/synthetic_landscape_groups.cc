#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "problems/internal/benchmark_functions.h"
#include "problems/internal/params.h"
#include "problems/internal/synthetic_groups.h"

namespace bbo::problems_internal::synthetic {

void AddMostlyBoring(SuiteBuilder& b) {
  {
    const std::string name = "syn_boring_well_rot_d4";
    std::mt19937_64 rng = b.Rng(name);
    const int d = 4;
    AffineMap map{OffGridVector(rng, d, -3, 3), RandomOrthogonalMatrix(d, rng), {}};
    std::vector<double> sigma(d);
    for (double& s : sigma) s = Uniform(rng, 0.15, 0.5);
    AddContinuous(b, ContinuousSpec{
                         name,
                         "4-d narrow rotated Gaussian well on [-5,5]^4: flat ~0 almost everywhere, "
                         "-1 at the bottom",
                         {"mostly boring", "unimodal"},
                         Cube(d, -5, 5),
                         std::move(map),
                         [sigma](absl::Span<const double> z) {
                           double q = 0.0;
                           for (size_t i = 0; i < z.size(); ++i) q += Square(z[i] / sigma[i]);
                           return -std::exp(-0.5 * q);
                         },
                         -1.0,
                         {}});
  }
  {
    const std::string name = "syn_boring_plateau_rot_d6";
    std::mt19937_64 rng = b.Rng(name);
    const int d = 6;
    AffineMap map{OffGridVector(rng, d, -3, 3), RandomOrthogonalMatrix(d, rng), {}};
    std::vector<double> rho(d);
    for (double& r : rho) r = Uniform(rng, 0.5, 1.5);
    AddContinuous(
        b, ContinuousSpec{name,
                          "6-d plateau at 1 on [-5,5]^6 with a small rotated ellipsoidal quadratic "
                          "basin",
                          {"mostly boring", "nonsmooth"},
                          Cube(d, -5, 5),
                          std::move(map),
                          [rho](absl::Span<const double> z) {
                            double q = 0.0;
                            for (size_t i = 0; i < z.size(); ++i) q += Square(z[i] / rho[i]);
                            return std::min(1.0, q);
                          },
                          0.0,
                          {}});
  }
  {
    const std::string name = "syn_boring_two_wells_d3";
    std::mt19937_64 rng = b.Rng(name);
    const int d = 3;
    constexpr double kDecoyRadius = 1.5, kDecoyDepth = 0.6, kWellRadius = 0.5;
    const std::vector<double> c = OffGridVector(rng, d, -3.5, 3.5);
    std::vector<double> a(d);
    // The decoy's support must not reach the deep well, so the minimum stays -1 at c.
    do {
      for (double& ai : a) ai = Uniform(rng, -3.5, 3.5);
    } while (Distance(a, c) <= kDecoyRadius + kWellRadius + 0.5);
    AddContinuous(
        b, ContinuousSpec{name,
                          "3-d flat landscape on [-5,5]^3 with a broad shallow decoy well and a "
                          "small deep well",
                          {"mostly boring", "multimodal"},
                          Cube(d, -5, 5),
                          AffineMap{c, {}, {}},
                          [a, c](absl::Span<const double> z) {
                            // z = x - c.
                            std::vector<double> x(z.size());
                            for (size_t i = 0; i < z.size(); ++i) x[i] = z[i] + c[i];
                            const double zero[3] = {0.0, 0.0, 0.0};
                            return -kDecoyDepth * Bump(Distance(x, a) / kDecoyRadius) -
                                   Bump(Distance(z, zero) / kWellRadius);
                          },
                          -1.0,
                          {}});
  }
}

void AddNonsmooth(SuiteBuilder& b) {
  AddShifted(b, "syn_abs_sum_rot_d8", "Rotated L1 norm 8-d on [-5,5]^8: kinks off the axes",
             {"nonsmooth", "unimodal"}, 8, -5, 5, true, AbsEllipsoid(0.0),
             std::vector<double>(8, 0.0));
  AddShifted(b, "syn_abs_ellipsoid_rot_d12",
             "Rotated weighted L1 norm 12-d on [-5,5]^12 with weights spanning 1e3",
             {"nonsmooth", "unimodal", "ill-conditioned"}, 12, -5, 5, true, AbsEllipsoid(3.0),
             std::vector<double>(12, 0.0));
  AddShifted(b, "syn_abs_rastrigin_d6",
             "6-d sum of |z| plus cosine ripples on [-5.12,5.12]^6, shifted",
             {"nonsmooth", "multimodal", "oscillatory", "separable"}, 6, -5.12, 5.12, false,
             AbsRastrigin, std::vector<double>(6, 0.0));
  {
    const std::string name = "syn_chebyshev_d5";
    std::mt19937_64 rng = b.Rng(name);
    const int d = 5;
    std::vector<double> c = OffGridVector(rng, d, -3, 3);
    std::vector<double> w(d);
    for (double& wi : w) wi = Uniform(rng, 1.0, 4.0);
    AddContinuous(b, ContinuousSpec{name,
                                    "5-d weighted max-norm max_i w_i |x_i - c_i| on [-5,5]^5",
                                    {"nonsmooth", "unimodal"},
                                    Cube(d, -5, 5),
                                    AffineMap{std::move(c), {}, {}},
                                    [w](absl::Span<const double> z) {
                                      double m = 0.0;
                                      for (size_t i = 0; i < z.size(); ++i) {
                                        m = std::max(m, w[i] * std::fabs(z[i]));
                                      }
                                      return m;
                                    },
                                    0.0,
                                    {}});
  }
}

namespace {

// Random box bounds with non-integer ends, so that boundary optima are off the integer grid.
Bounds OffGridBox(std::mt19937_64& rng, int dim) {
  Bounds box(dim);
  for (auto& [lo, hi] : box) {
    lo = OffGrid(rng, -5.8, -4.2);
    hi = OffGrid(rng, 4.2, 5.8);
  }
  return box;
}

// A linear function whose optimum is a random corner of the box.
void AddLinearSlope(SuiteBuilder& b) {
  const std::string name = "syn_linear_slope_d6";
  std::mt19937_64 rng = b.Rng(name);
  const int d = 6;
  const Bounds box = OffGridBox(rng, d);
  std::vector<double> corner(d), slope(d);
  for (int i = 0; i < d; ++i) {
    corner[i] = UniformDouble(rng) < 0.5 ? box[i].first : box[i].second;
    // Signed so that the function decreases towards the chosen bound.
    slope[i] = std::pow(10.0, static_cast<double>(i) / (d - 1)) *
               (corner[i] == box[i].first ? 1.0 : -1.0);
  }
  b.Add(
      name, "6-d linear slope on an off-grid box, gradients spanning 1e1: optimum at a corner",
      BoxConfig(box), 0.0, {"boundary optimum", "unimodal", "separable"},
      [d, corner, slope](const Point& p) {
        const std::vector<double> x = RealVector(p, d);
        double sum = 0.0;
        for (int i = 0; i < d; ++i) sum += slope[i] * (x[i] - corner[i]);
        return sum;
      },
      RealPoint(corner));
}

// A weighted sphere centred outside the box: its optimum lies on a face.
void AddBoundarySphere(SuiteBuilder& b) {
  const std::string name = "syn_boundary_sphere_d4";
  std::mt19937_64 rng = b.Rng(name);
  const int d = 4;
  const Bounds box = OffGridBox(rng, d);
  std::vector<double> c(d), w(d), argmin(d);
  double fstar = 0.0;
  for (int i = 0; i < d; ++i) {
    w[i] = Uniform(rng, 1.0, 5.0);
    // Half of the coordinates (at least two) put the unconstrained centre outside the box.
    if (i % 2 == 0) {
      const double overshoot = Uniform(rng, 0.3, 2.0);
      c[i] = UniformDouble(rng) < 0.5 ? box[i].first - overshoot : box[i].second + overshoot;
    } else {
      c[i] = OffGrid(rng, box[i].first + 1.0, box[i].second - 1.0);
    }
    argmin[i] = std::clamp(c[i], box[i].first, box[i].second);
  }
  // Same summation as the objective, so Evaluate(argmin) reproduces fstar exactly.
  for (int i = 0; i < d; ++i) fstar += w[i] * Square(argmin[i] - c[i]);
  b.Add(
      name,
      "4-d weighted sphere whose centre lies outside the off-grid box in two coordinates: "
      "optimum on a face",
      BoxConfig(box), fstar, {"boundary optimum", "unimodal", "separable"},
      [d, c, w](const Point& p) {
        const std::vector<double> x = RealVector(p, d);
        double sum = 0.0;
        for (int i = 0; i < d; ++i) sum += w[i] * Square(x[i] - c[i]);
        return sum;
      },
      RealPoint(argmin));
}

// Styblinski-Tang on a box that cuts off its global minimizer.
void AddBoundaryStyblinskiTang(SuiteBuilder& b) {
  // Per coordinate u = x - t ranges over [a, a + width] with a in [-2.75, -2.3], to the right
  // of Styblinski-Tang's global minimizer -2.9035: the lower bound (g(a) <= -34.1) beats the
  // interior local minimum at u = 2.7468 (g = -25.03), which the box still contains.
  const std::string name = "syn_boundary_styblinski_tang_d3";
  std::mt19937_64 rng = b.Rng(name);
  const int d = 3;
  Bounds box(d);
  std::vector<double> t(d), argmin(d), u_opt(d);
  for (int i = 0; i < d; ++i) {
    const double lo = OffGrid(rng, -4.5, 1.5);
    const double a = Uniform(rng, -2.75, -2.3);
    t[i] = lo - a;
    box[i] = {lo, lo + Uniform(rng, 6.0, 7.5)};
    argmin[i] = lo;
    u_opt[i] = lo - t[i];
  }
  b.Add(
      name,
      "Styblinski-Tang 3-d on a box cutting off its global minimizer: optimum at the lower "
      "corner, a local minimum inside",
      BoxConfig(box), StyblinskiTang(u_opt), {"boundary optimum", "multimodal", "separable"},
      [d, t](const Point& p) {
        std::vector<double> u = RealVector(p, d);
        for (int i = 0; i < d; ++i) u[i] -= t[i];
        return StyblinskiTang(u);
      },
      RealPoint(argmin));
}

}  // namespace

void AddBoundaryOptimum(SuiteBuilder& b) {
  AddLinearSlope(b);
  AddBoundarySphere(b);
  AddBoundaryStyblinskiTang(b);
}

}  // namespace bbo::problems_internal::synthetic
