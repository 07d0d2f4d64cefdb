#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "Eigen/Dense"
#include "absl/strings/str_cat.h"
#include "problems/internal/benchmark_functions.h"
#include "problems/internal/params.h"
#include "problems/internal/synthetic_groups.h"

namespace bbo::problems_internal::synthetic {

namespace {

// 3 reals r0..r2 and 2 integers i0, i1: f = sum_j W_j (R (v - c))_j^2 with v = (r0, r1, r2, i0,
// i1), condition 10^1.5. For fixed integers the reals' minimizer has the closed form
// u = c_r - M_rr^-1 M_ri (k - c_i) with M = R^T W R, so the mixed optimum is found by
// enumerating the 21^2 integer pairs; instances whose optimal reals leave the box or land near
// integers are redrawn.
void AddMixedRotatedEllipsoid(SuiteBuilder& b) {
  const std::string name = "syn_mixed_ellipsoid_rot_d5";
  std::mt19937_64 rng = b.Rng(name);
  constexpr int kReals = 3, kDim = 5;
  constexpr int64_t kIntLo = -10, kIntHi = 10;
  std::vector<double> weights(kDim);
  for (int j = 0; j < kDim; ++j) weights[j] = std::pow(10.0, 1.5 * j / (kDim - 1));
  auto objective_at = [weights](const std::vector<double>& rotation, const std::vector<double>& c,
                                const std::vector<double>& v) {
    std::vector<double> diff(kDim);
    for (int j = 0; j < kDim; ++j) diff[j] = v[j] - c[j];
    const std::vector<double> z = MatVec(rotation, diff);
    double sum = 0.0;
    for (int j = 0; j < kDim; ++j) sum += weights[j] * z[j] * z[j];
    return sum;
  };
  auto off_grid_in_box = [](double x) {
    const double frac = x - std::floor(x);
    return std::fabs(x) <= 5.0 && frac >= 0.05 && frac <= 0.95;
  };
  while (true) {
    std::vector<double> c(kDim);
    for (int j = 0; j < kDim; ++j) c[j] = j < kReals ? OffGrid(rng, -3, 3) : OffGrid(rng, -6, 6);
    const std::vector<double> rotation = RandomOrthogonalMatrix(kDim, rng);
    const Eigen::Map<const Eigen::Matrix<double, kDim, kDim, Eigen::RowMajor>> r(rotation.data());
    const Eigen::Matrix<double, kDim, kDim> m =
        r.transpose() *
        Eigen::Map<const Eigen::Matrix<double, kDim, 1>>(weights.data()).asDiagonal() * r;
    const Eigen::Matrix<double, kReals, kReals> m_rr = m.topLeftCorner<kReals, kReals>();
    const Eigen::Matrix<double, kReals, kDim - kReals> m_ri =
        m.topRightCorner<kReals, kDim - kReals>();
    const Eigen::LLT<Eigen::Matrix<double, kReals, kReals>> llt(m_rr);
    double fstar = std::numeric_limits<double>::infinity();
    std::vector<double> best;
    for (int64_t k0 = kIntLo; k0 <= kIntHi; ++k0) {
      for (int64_t k1 = kIntLo; k1 <= kIntHi; ++k1) {
        const Eigen::Vector2d delta(static_cast<double>(k0) - c[3], static_cast<double>(k1) - c[4]);
        const Eigen::Vector3d u = Eigen::Vector3d(c[0], c[1], c[2]) - llt.solve(m_ri * delta);
        const std::vector<double> v = {u[0], u[1], u[2], static_cast<double>(k0),
                                       static_cast<double>(k1)};
        const double value = objective_at(rotation, c, v);
        if (value < fstar) {
          fstar = value;
          best = v;
        }
      }
    }
    if (!off_grid_in_box(best[0]) || !off_grid_in_box(best[1]) || !off_grid_in_box(best[2])) {
      continue;
    }
    nlohmann::json config = nlohmann::json::object();
    Point optimum;
    for (int j = 0; j < kReals; ++j) {
      config[absl::StrCat("r", j)] = RealSpec(-5, 5);
      optimum[absl::StrCat("r", j)] = best[j];
    }
    for (int j = kReals; j < kDim; ++j) {
      config[absl::StrCat("i", j - kReals)] = IntSpec(kIntLo, kIntHi);
      optimum[absl::StrCat("i", j - kReals)] = static_cast<int64_t>(best[j]);
    }
    b.Add(
        name,
        "5-d rotated ellipsoid (condition 10^1.5) coupling 3 reals with 2 integers; the "
        "integers' continuous optimum is non-integer",
        config, fstar, {"mixed integer", "unimodal"},
        [objective_at, rotation, c](const Point& p) {
          std::vector<double> v(kDim);
          for (int j = 0; j < kReals; ++j) v[j] = RealParam(p, absl::StrCat("r", j));
          for (int j = kReals; j < kDim; ++j) {
            v[j] = static_cast<double>(IntParam(p, absl::StrCat("i", j - kReals)));
          }
          return objective_at(rotation, c, v);
        },
        std::move(optimum));
    return;
  }
}

void AddIntSphere(SuiteBuilder& b) {
  // Integer coordinates see the same quadratic; their optimum is the rounded continuous one.
  const std::string name = "syn_int_sphere_d6";
  std::mt19937_64 rng = b.Rng(name);
  const std::vector<double> cr = OffGridVector(rng, 3, -3.5, 3.5);
  const std::vector<double> ci = OffGridVector(rng, 3, -6, 6);
  nlohmann::json config = nlohmann::json::object();
  Point optimum;
  double fstar = 0.0;
  for (int i = 0; i < 3; ++i) {
    config[absl::StrCat("r", i)] = RealSpec(-5, 5);
    optimum[absl::StrCat("r", i)] = cr[i];
  }
  for (int i = 0; i < 3; ++i) {
    config[absl::StrCat("i", i)] = IntSpec(-8, 8);
    const double k = std::round(ci[i]);
    optimum[absl::StrCat("i", i)] = static_cast<int64_t>(k);
    fstar += Square(k - ci[i]);
  }
  b.Add(
      name,
      "6-d shifted sphere over 3 reals and 3 integers whose continuous optimum is "
      "non-integer",
      config, fstar, {"mixed integer", "unimodal", "separable"},
      [cr, ci](const Point& p) {
        double sum = 0.0;
        for (int i = 0; i < 3; ++i) sum += Square(RealParam(p, absl::StrCat("r", i)) - cr[i]);
        for (int i = 0; i < 3; ++i) {
          sum += Square(static_cast<double>(IntParam(p, absl::StrCat("i", i))) - ci[i]);
        }
        return sum;
      },
      std::move(optimum));
}

void AddIntRastrigin(SuiteBuilder& b) {
  // Integer coordinates enter Rastrigin scaled by 0.41, so their cosine term varies too.
  const std::string name = "syn_int_rastrigin_d8";
  std::mt19937_64 rng = b.Rng(name);
  constexpr double kIntScale = 0.41;
  constexpr int64_t kIntLo = -12, kIntHi = 12;
  const std::vector<double> cr = OffGridVector(rng, 4, -3.5, 3.5);
  const std::vector<double> ci = OffGridVector(rng, 4, -8, 8);
  nlohmann::json config = nlohmann::json::object();
  Point optimum;
  double fstar = 0.0;
  for (int i = 0; i < 4; ++i) {
    config[absl::StrCat("r", i)] = RealSpec(-5.12, 5.12);
    optimum[absl::StrCat("r", i)] = cr[i];
    fstar += Rastrigin1(0.0);
  }
  for (int i = 0; i < 4; ++i) {
    config[absl::StrCat("i", i)] = IntSpec(kIntLo, kIntHi);
    int64_t best_k = kIntLo;
    double best = std::numeric_limits<double>::infinity();
    for (int64_t k = kIntLo; k <= kIntHi; ++k) {
      const double v = Rastrigin1(kIntScale * (static_cast<double>(k) - ci[i]));
      if (v < best) {
        best = v;
        best_k = k;
      }
    }
    optimum[absl::StrCat("i", i)] = best_k;
    fstar += best;
  }
  b.Add(
      name, "8-d shifted Rastrigin over 4 reals and 4 integers (integer step 0.41)", config,
      fstar, {"mixed integer", "multimodal", "oscillatory", "separable"},
      [cr, ci](const Point& p) {
        double sum = 0.0;
        for (int i = 0; i < 4; ++i) {
          sum += Rastrigin1(RealParam(p, absl::StrCat("r", i)) - cr[i]);
        }
        for (int i = 0; i < 4; ++i) {
          sum += Rastrigin1(kIntScale *
                            (static_cast<double>(IntParam(p, absl::StrCat("i", i))) - ci[i]));
        }
        return sum;
      },
      std::move(optimum));
}

void AddCatFamily(SuiteBuilder& b) {
  // A categorical choice between four differently shaped, differently shifted bowls; which
  // one holds the global minimum 0 is drawn from the seed, the others sit 0.25..1.25 higher.
  const std::string name = "syn_cat_family_d5";
  std::mt19937_64 rng = b.Rng(name);
  const std::vector<std::string> kShapes = {"bowl", "ridge", "wave", "cone"};
  const int d = 4;
  std::vector<std::vector<double>> centers;
  std::vector<double> offsets;
  const int best = UniformIndex(rng, 4);
  for (int k = 0; k < 4; ++k) {
    centers.push_back(OffGridVector(rng, d, -3.5, 3.5));
    offsets.push_back(k == best ? 0.0 : Uniform(rng, 0.25, 1.25));
  }
  nlohmann::json config = BoxConfig(d, -5, 5);
  config["shape"] = CatSpec(kShapes);
  Point optimum = RealPoint(centers[best]);
  optimum["shape"] = kShapes[best];
  b.Add(
      name,
      "5-d: a categorical 'shape' picks one of four shifted bowls (sphere, ridge, rippled, "
      "cone) over 4 reals; one category holds the optimum",
      config, 0.0, {"mixed integer", "multimodal"},
      [kShapes, centers, offsets, d](const Point& p) {
        const std::string& shape = CatParam(p, "shape");
        const int k =
            static_cast<int>(std::find(kShapes.begin(), kShapes.end(), shape) - kShapes.begin());
        if (k == 4) throw std::invalid_argument("parameter \"shape\": unknown " + shape);
        std::vector<double> z = RealVector(p, d);
        for (int i = 0; i < d; ++i) z[i] -= centers[k][i];
        double v = 0.0;
        switch (k) {
          case 0:
            v = Sphere(z);
            break;
          case 1:
            v = Ellipsoid(2.0)(z);
            break;
          case 2:
            for (double zi : z) v += zi * zi + 1.0 - std::cos(2.0 * kPi * zi);
            break;
          default:
            v = std::sqrt(Sphere(z));
            break;
        }
        return offsets[k] + v;
      },
      std::move(optimum));
}

void AddBoolSwitches(SuiteBuilder& b) {
  const std::string name = "syn_bool_switches_d6";
  std::mt19937_64 rng = b.Rng(name);
  const int d = 3;
  AffineMap map{OffGridVector(rng, d, -3.5, 3.5), RandomOrthogonalMatrix(d, rng), {}};
  // Per-switch costs of either sign, plus a cost when switches 1 and 2 disagree.
  std::vector<double> w(3);
  for (double& wi : w) wi = (UniformDouble(rng) < 0.5 ? -1.0 : 1.0) * Uniform(rng, 0.2, 1.0);
  const double disagree = Uniform(rng, -0.5, 0.5);
  auto switch_cost = [w, disagree](bool b0, bool b1, bool b2) {
    return (b0 ? w[0] : 0.0) + (b1 ? w[1] : 0.0) + (b2 ? w[2] : 0.0) +
           (b1 != b2 ? disagree : 0.0);
  };
  double fstar = std::numeric_limits<double>::infinity();
  Point optimum = RealPoint(map.center);
  for (int mask = 0; mask < 8; ++mask) {
    const bool b0 = mask & 1, b1 = mask & 2, b2 = mask & 4;
    const double v = switch_cost(b0, b1, b2);
    if (v < fstar) {
      fstar = v;
      optimum["b0"] = b0;
      optimum["b1"] = b1;
      optimum["b2"] = b2;
    }
  }
  nlohmann::json config = BoxConfig(d, -5, 5);
  for (int i = 0; i < 3; ++i) config[absl::StrCat("b", i)] = BoolSpec();
  b.Add(
      name,
      "6-d: rotated ellipsoid over 3 reals plus the cost of 3 boolean switches with an "
      "interaction",
      config, fstar, {"mixed integer", "unimodal"},
      [map, switch_cost, d](const Point& p) {
        const std::vector<double> z = map.Apply(RealVector(p, d));
        return Ellipsoid(1.0)(z) +
               switch_cost(BoolParam(p, "b0"), BoolParam(p, "b1"), BoolParam(p, "b2"));
      },
      std::move(optimum));
}

void AddIntLogQuadratic(SuiteBuilder& b) {
  // Hyperparameter-like: a log-scaled integer, a log-scaled real and a linear integer.
  const std::string name = "syn_int_log_quadratic_d3";
  std::mt19937_64 rng = b.Rng(name);
  const double n_star = std::exp(Uniform(rng, std::log(8.0), std::log(512.0)));
  // log10 of the learning rate, kept away from the warped centre (-2.5).
  const double lr_exp = -2.5 + (UniformDouble(rng) < 0.5 ? -1.0 : 1.0) * Uniform(rng, 0.4, 1.6);
  const double lr_star = std::pow(10.0, lr_exp);
  const double depth_star = OffGrid(rng, 2, 20);
  auto n_term = [n_star](double n) { return Square(std::log(n) - std::log(n_star)); };
  const double n_floor = std::floor(n_star), n_ceil = std::ceil(n_star);
  const double n_best = n_term(n_floor) <= n_term(n_ceil) ? n_floor : n_ceil;
  const double depth_best = std::round(depth_star);
  const double fstar = n_term(n_best) + 0.0 + 0.05 * Square(depth_best - depth_star);
  nlohmann::json config = {{"n_units", IntSpec(2, 2048, "log")},
                           {"learning_rate", RealSpec(1e-5, 1.0, "log")},
                           {"depth", IntSpec(1, 24)}};
  Point optimum = {{"n_units", static_cast<int64_t>(n_best)},
                   {"learning_rate", lr_star},
                   {"depth", static_cast<int64_t>(depth_best)}};
  b.Add(
      name,
      "3-d hyperparameter-like quadratic: log-scaled int n_units, log-scaled real "
      "learning_rate, linear int depth",
      config, fstar, {"mixed integer", "unimodal", "separable"},
      [n_term, lr_star, depth_star](const Point& p) {
        return n_term(static_cast<double>(IntParam(p, "n_units"))) +
               Square(std::log10(RealParam(p, "learning_rate")) - std::log10(lr_star)) +
               0.05 * Square(static_cast<double>(IntParam(p, "depth")) - depth_star);
      },
      std::move(optimum));
}

}  // namespace

void AddMixedInteger(SuiteBuilder& b) {
  AddIntSphere(b);
  AddIntRastrigin(b);
  AddCatFamily(b);
  AddMixedRotatedEllipsoid(b);
  AddBoolSwitches(b);
  AddIntLogQuadratic(b);
}

}  // namespace bbo::problems_internal::synthetic
