#include "problems/internal/bbob.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include "Eigen/Dense"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "problems/internal/params.h"

namespace bbo::problems_internal {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr int kMaxDim = 1000;

uint64_t InstanceSeed(int function_id, int dim, int instance) {
  uint64_t h = SplitMix64(0x62626f62ULL /* "bbob" */ ^ static_cast<uint64_t>(function_id));
  h = SplitMix64(h ^ static_cast<uint64_t>(instance));
  return SplitMix64(h ^ static_cast<uint64_t>(dim));
}

double Square(double x) { return x * x; }

// T_osz, the oscillation transformation of the definitions (section 0.2), on one coordinate.
double Tosz(double x) {
  if (x == 0.0) return 0.0;
  const double xhat = std::log(std::fabs(x));
  const double c1 = x > 0 ? 10.0 : 5.5;
  const double c2 = x > 0 ? 7.9 : 3.1;
  return std::copysign(std::exp(xhat + 0.049 * (std::sin(c1 * xhat) + std::sin(c2 * xhat))), x);
}

std::vector<double> Tosz(std::vector<double> x) {
  for (double& xi : x) xi = Tosz(xi);
  return x;
}

// T_asy^beta: x_i -> x_i^(1 + beta (i-1)/(D-1) sqrt(x_i)) for x_i > 0.
std::vector<double> Tasy(std::vector<double> x, double beta) {
  const int d = static_cast<int>(x.size());
  for (int i = 0; i < d; ++i) {
    if (x[i] > 0) x[i] = std::pow(x[i], 1.0 + beta * i / (d - 1) * std::sqrt(x[i]));
  }
  return x;
}

// The i-th (0-based) diagonal element of Lambda^alpha: alpha^(1/2 (i-1)/(D-1)) in 1-based terms.
double Lambda(double alpha, int i, int d) { return std::pow(alpha, 0.5 * i / (d - 1)); }

std::vector<double> ScaleLambda(std::vector<double> x, double alpha) {
  const int d = static_cast<int>(x.size());
  for (int i = 0; i < d; ++i) x[i] *= Lambda(alpha, i, d);
  return x;
}

// f_pen(x) = sum_i max(0, |x_i| - 5)^2.
double Fpen(absl::Span<const double> x) {
  double sum = 0.0;
  for (double xi : x) sum += Square(std::max(0.0, std::fabs(xi) - 5.0));
  return sum;
}

std::vector<double> Minus(absl::Span<const double> a, const std::vector<double>& b) {
  std::vector<double> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] - b[i];
  return out;
}

// 10 (D - sum cos(2 pi z_i)) + ||z||^2, the Rastrigin core of f3, f4 and f15.
double RastriginCore(const std::vector<double>& z) {
  double cos_sum = 0.0, sq_sum = 0.0;
  for (double zi : z) {
    cos_sum += std::cos(2.0 * kPi * zi);
    sq_sum += zi * zi;
  }
  return 10.0 * (static_cast<double>(z.size()) - cos_sum) + sq_sum;
}

double RosenbrockCore(const std::vector<double>& z) {
  double sum = 0.0;
  for (size_t i = 0; i + 1 < z.size(); ++i) {
    sum += 100.0 * Square(z[i] * z[i] - z[i + 1]) + Square(z[i] - 1.0);
  }
  return sum;
}

// sum_i 10^(exponent (i-1)/(D-1)) z_i^2.
double EllipsoidCore(const std::vector<double>& z, double exponent) {
  const int d = static_cast<int>(z.size());
  double sum = 0.0;
  for (int i = 0; i < d; ++i) sum += std::pow(10.0, exponent * i / (d - 1)) * z[i] * z[i];
  return sum;
}

// The inner Weierstrass sum sum_{k=0}^{11} 2^-k cos(2 pi 3^k (z + 1/2)) of f16. f0 is this sum at
// z = 0, computed with the same expression so that f16(x_opt) = f_opt to rounding.
double WeierstrassSum(double z) {
  double sum = 0.0, half_k = 1.0, three_k = 1.0;
  for (int k = 0; k < 12; ++k) {
    sum += half_k * std::cos(2.0 * kPi * three_k * (z + 0.5));
    half_k *= 0.5;
    three_k *= 3.0;
  }
  return sum;
}

// The Schaffers F7 core of f17 and f18.
double SchaffersCore(const std::vector<double>& z) {
  const int d = static_cast<int>(z.size());
  double sum = 0.0;
  for (int i = 0; i + 1 < d; ++i) {
    const double s = std::sqrt(z[i] * z[i] + z[i + 1] * z[i + 1]);
    const double root = std::sqrt(s);
    sum += root + root * Square(std::sin(50.0 * std::pow(s, 0.2)));
  }
  return Square(sum / (d - 1));
}

double RosenbrockScale(int d) { return std::max(1.0, std::sqrt(static_cast<double>(d)) / 8.0); }

}  // namespace

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double UniformDouble(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

double StandardNormal(std::mt19937_64& rng) {
  // 1 - U is in (0, 1], so the log is finite.
  const double u1 = 1.0 - UniformDouble(rng);
  const double u2 = UniformDouble(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

int UniformIndex(std::mt19937_64& rng, int n) { return static_cast<int>(UniformDouble(rng) * n); }

std::vector<double> RandomOrthogonalMatrix(int dim, std::mt19937_64& rng) {
  Eigen::MatrixXd g(dim, dim);
  for (int i = 0; i < dim; ++i) {
    for (int j = 0; j < dim; ++j) g(i, j) = StandardNormal(rng);
  }
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
  Eigen::MatrixXd q = qr.householderQ();
  const Eigen::MatrixXd& packed = qr.matrixQR();
  for (int j = 0; j < dim; ++j) {
    if (packed(j, j) < 0) q.col(j) *= -1.0;
  }
  std::vector<double> out(static_cast<size_t>(dim) * dim);
  for (int i = 0; i < dim; ++i) {
    for (int j = 0; j < dim; ++j) out[static_cast<size_t>(i) * dim + j] = q(i, j);
  }
  return out;
}

std::vector<double> MatVec(const std::vector<double>& m, absl::Span<const double> x) {
  const size_t d = x.size();
  std::vector<double> y(d, 0.0);
  for (size_t i = 0; i < d; ++i) {
    double sum = 0.0;
    for (size_t j = 0; j < d; ++j) sum += m[i * d + j] * x[j];
    y[i] = sum;
  }
  return y;
}

absl::StatusOr<BbobFunction> BbobFunction::Create(int function_id, int dim, int instance) {
  if (instance < 1) {
    return absl::InvalidArgumentError(absl::StrCat("instance: must be >= 1, got ", instance));
  }
  absl::StatusOr<BbobFunction> f =
      CreateFromSeed(function_id, dim, InstanceSeed(function_id, dim, instance));
  if (f.ok()) f->instance_ = instance;
  return f;
}

absl::StatusOr<BbobFunction> BbobFunction::CreateFromSeed(int function_id, int dim,
                                                          uint64_t rng_seed) {
  if (function_id < 1 || function_id > kBbobNumFunctions) {
    return absl::InvalidArgumentError(
        absl::StrCat("function_id: must be in [1, 24], got ", function_id));
  }
  if (dim < 2 || dim > kMaxDim) {
    return absl::InvalidArgumentError(
        absl::StrCat("dim: must be in [2, ", kMaxDim, "], got ", dim));
  }
  BbobFunction f;
  f.Initialize(function_id, dim, 0, rng_seed);
  return f;
}

void BbobFunction::Initialize(int function_id, int dim, int instance, uint64_t rng_seed) {
  function_id_ = function_id;
  dim_ = dim;
  instance_ = instance;
  std::mt19937_64 rng(rng_seed);
  const int d = dim;

  // f_opt: Cauchy(0, 100) rounded to 2 decimals, clipped to [-1000, 1000].
  const double g1 = StandardNormal(rng), g2 = StandardNormal(rng);
  fopt_ = std::clamp(std::round(100.0 * 100.0 * g1 / g2) / 100.0, -1000.0, 1000.0);
  if (std::isnan(fopt_)) fopt_ = 0.0;  // 0/0, probability zero

  r_ = RandomOrthogonalMatrix(d, rng);
  q_ = RandomOrthogonalMatrix(d, rng);
  xopt_.resize(d);
  for (double& x : xopt_) x = -4.0 + 8.0 * UniformDouble(rng);
  signs_.resize(d);
  for (double& s : signs_) s = UniformDouble(rng) < 0.5 ? -1.0 : 1.0;

  if (function_id == 21 || function_id == 22) {
    InitializeGallagherPeaks(rng);
  } else {
    PlaceOptimum();
  }
}

void BbobFunction::PlaceOptimum() {
  const int d = dim_;
  switch (function_id_) {
    case 4:
      // The skewed coordinates (odd in 1-based terms) have a positive optimum, as in COCO.
      for (int i = 0; i < d; i += 2) xopt_[i] = std::fabs(xopt_[i]);
      break;
    case 5:
      // x_opt = z_opt = 5 * 1_+^-, slopes s_i = sign(x_opt_i) 10^((i-1)/(D-1)).
      for (int i = 0; i < d; ++i) {
        xopt_[i] = 5.0 * signs_[i];
        signs_[i] *= std::pow(10.0, static_cast<double>(i) / (d - 1));
      }
      break;
    case 8:
      for (double& x : xopt_) x *= 0.75;
      break;
    case 9:
    case 19: {
      // z = s R x + 1/2 has its optimum at z = 1, i.e. x_opt = R^T 1 / (2 s).
      const double c = 0.5 / RosenbrockScale(d);
      for (int j = 0; j < d; ++j) {
        double sum = 0.0;
        for (int i = 0; i < d; ++i) sum += r_[static_cast<size_t>(i) * d + j] * c;
        xopt_[j] = sum;
      }
      break;
    }
    case 20:
      for (int i = 0; i < d; ++i) xopt_[i] = 4.2096874633 / 2.0 * signs_[i];
      break;
    case 24:
      for (int i = 0; i < d; ++i) xopt_[i] = 2.5 / 2.0 * signs_[i];
      break;
    default:
      break;
  }
}

void BbobFunction::InitializeGallagherPeaks(std::mt19937_64& rng) {
  const int d = dim_;
  const bool many = function_id_ == 21;
  const int n = many ? 101 : 21;
  const double y1_half_width = many ? 4.0 : 3.92;
  const double yi_half_width = many ? 5.0 : 4.9;
  // alpha_i for i >= 2: a random permutation of {1000^(2j/(n-2)), j = 0..n-2}.
  std::vector<double> alphas(n - 1);
  for (int j = 0; j < n - 1; ++j) alphas[j] = std::pow(1000.0, 2.0 * j / (n - 2));
  for (int j = n - 2; j > 0; --j) std::swap(alphas[j], alphas[UniformIndex(rng, j + 1)]);
  alphas.insert(alphas.begin(), many ? 1000.0 : 1000.0 * 1000.0);
  for (int p = 0; p < n; ++p) {
    const double half_width = p == 0 ? y1_half_width : yi_half_width;
    std::vector<double> y(d);
    for (double& yj : y) yj = half_width * (2.0 * UniformDouble(rng) - 1.0);
    if (p == 0) xopt_ = y;
    // Stored rotated (R y_i) so that Evaluate computes R x once.
    peaks_.push_back(MatVec(r_, y));
    peak_weights_.push_back(p == 0 ? 10.0 : 1.1 + 8.0 * (p - 1) / (n - 2));
    std::vector<double> scales(d);
    for (int j = 0; j < d; ++j) {
      scales[j] = Lambda(alphas[p], j, d) / std::pow(alphas[p], 0.25);
    }
    for (int j = d - 1; j > 0; --j) std::swap(scales[j], scales[UniformIndex(rng, j + 1)]);
    peak_scales_.push_back(std::move(scales));
  }
}

double BbobFunction::Evaluate(absl::Span<const double> x) const {
  const std::vector<double> z0 = Minus(x, xopt_);
  if (function_id_ >= 1 && function_id_ <= 5) return EvaluateSeparable(x, z0);
  if (function_id_ >= 6 && function_id_ <= 9) return EvaluateModerateConditioning(x, z0);
  if (function_id_ >= 10 && function_id_ <= 14) return EvaluateHighConditioning(z0);
  if (function_id_ >= 15 && function_id_ <= 19) return EvaluateAdequateStructure(x, z0);
  if (function_id_ >= 20 && function_id_ <= 24) return EvaluateWeakStructure(x, z0);
  return std::nan("");
}

// f1-f5.
double BbobFunction::EvaluateSeparable(absl::Span<const double> x,
                                       const std::vector<double>& z0) const {
  const int d = dim_;
  switch (function_id_) {
    case 1: {
      double sum = 0.0;
      for (double zi : z0) sum += zi * zi;
      return sum + fopt_;
    }
    case 2:
      return EllipsoidCore(Tosz(z0), 6.0) + fopt_;
    case 3:
      return RastriginCore(ScaleLambda(Tasy(Tosz(z0), 0.2), 10.0)) + fopt_;
    case 4: {
      std::vector<double> z = Tosz(z0);
      for (int i = 0; i < d; ++i) {
        // s_i gets the extra factor 10 on the odd (1-based) coordinates where z_i > 0.
        const double s = (z[i] > 0 && i % 2 == 0 ? 10.0 : 1.0) * Lambda(10.0, i, d);
        z[i] *= s;
      }
      return RastriginCore(z) + 100.0 * Fpen(x) + fopt_;
    }
    case 5: {
      double sum = 0.0;
      for (int i = 0; i < d; ++i) {
        const double z = xopt_[i] * x[i] < 25.0 ? x[i] : xopt_[i];
        sum += 5.0 * std::fabs(signs_[i]) - signs_[i] * z;
      }
      return sum + fopt_;
    }
    default:
      return std::nan("");
  }
}

// f6-f9.
double BbobFunction::EvaluateModerateConditioning(absl::Span<const double> x,
                                                  const std::vector<double>& z0) const {
  const int d = dim_;
  switch (function_id_) {
    case 6: {
      const std::vector<double> z = MatVec(q_, ScaleLambda(MatVec(r_, z0), 10.0));
      double sum = 0.0;
      for (int i = 0; i < d; ++i) sum += Square((z[i] * xopt_[i] > 0 ? 100.0 : 1.0) * z[i]);
      return std::pow(Tosz(sum), 0.9) + fopt_;
    }
    case 7: {
      const std::vector<double> zhat = ScaleLambda(MatVec(r_, z0), 10.0);
      std::vector<double> ztilde(d);
      for (int i = 0; i < d; ++i) {
        ztilde[i] = std::fabs(zhat[i]) > 0.5 ? std::floor(0.5 + zhat[i])
                                             : std::floor(0.5 + 10.0 * zhat[i]) / 10.0;
      }
      const double core = EllipsoidCore(MatVec(q_, ztilde), 2.0);
      return 0.1 * std::max(std::fabs(zhat[0]) / 1e4, core) + Fpen(x) + fopt_;
    }
    case 8: {
      std::vector<double> z = z0;
      for (double& zi : z) zi = RosenbrockScale(d) * zi + 1.0;
      return RosenbrockCore(z) + fopt_;
    }
    case 9: {
      std::vector<double> z = MatVec(r_, x);
      for (double& zi : z) zi = RosenbrockScale(d) * zi + 0.5;
      return RosenbrockCore(z) + fopt_;
    }
    default:
      return std::nan("");
  }
}

// f10-f14.
double BbobFunction::EvaluateHighConditioning(const std::vector<double>& z0) const {
  const int d = dim_;
  switch (function_id_) {
    case 10:
      return EllipsoidCore(Tosz(MatVec(r_, z0)), 6.0) + fopt_;
    case 11: {
      const std::vector<double> z = Tosz(MatVec(r_, z0));
      double sum = 1e6 * z[0] * z[0];
      for (int i = 1; i < d; ++i) sum += z[i] * z[i];
      return sum + fopt_;
    }
    case 12: {
      const std::vector<double> z = MatVec(r_, Tasy(MatVec(r_, z0), 0.5));
      double sum = 0.0;
      for (int i = 1; i < d; ++i) sum += z[i] * z[i];
      return z[0] * z[0] + 1e6 * sum + fopt_;
    }
    case 13: {
      const std::vector<double> z = MatVec(q_, ScaleLambda(MatVec(r_, z0), 10.0));
      double sum = 0.0;
      for (int i = 1; i < d; ++i) sum += z[i] * z[i];
      return z[0] * z[0] + 100.0 * std::sqrt(sum) + fopt_;
    }
    case 14: {
      const std::vector<double> z = MatVec(r_, z0);
      double sum = 0.0;
      for (int i = 0; i < d; ++i) sum += std::pow(std::fabs(z[i]), 2.0 + 4.0 * i / (d - 1));
      return std::sqrt(sum) + fopt_;
    }
    default:
      return std::nan("");
  }
}

// f15-f19 (multimodal with adequate global structure).
double BbobFunction::EvaluateAdequateStructure(absl::Span<const double> x,
                                               const std::vector<double>& z0) const {
  const int d = dim_;
  switch (function_id_) {
    case 15: {
      const std::vector<double> z =
          MatVec(r_, ScaleLambda(MatVec(q_, Tasy(Tosz(MatVec(r_, z0)), 0.2)), 10.0));
      return RastriginCore(z) + fopt_;
    }
    case 16: {
      const std::vector<double> z = MatVec(r_, ScaleLambda(MatVec(q_, Tosz(MatVec(r_, z0))), 0.01));
      const double f0 = WeierstrassSum(0.0);
      double sum = 0.0;
      for (double zi : z) sum += WeierstrassSum(zi);
      return 10.0 * std::pow(sum / d - f0, 3.0) + 10.0 / d * Fpen(x) + fopt_;
    }
    case 17:
    case 18: {
      const double alpha = function_id_ == 17 ? 10.0 : 1000.0;
      const std::vector<double> z = ScaleLambda(MatVec(q_, Tasy(MatVec(r_, z0), 0.5)), alpha);
      return SchaffersCore(z) + 10.0 * Fpen(x) + fopt_;
    }
    case 19: {
      std::vector<double> z = MatVec(r_, x);
      for (double& zi : z) zi = RosenbrockScale(d) * zi + 0.5;
      double sum = 0.0;
      for (int i = 0; i + 1 < d; ++i) {
        const double s = 100.0 * Square(z[i] * z[i] - z[i + 1]) + Square(z[i] - 1.0);
        sum += s / 4000.0 - std::cos(s);
      }
      return 10.0 / (d - 1) * sum + 10.0 + fopt_;
    }
    default:
      return std::nan("");
  }
}

// f20-f24 (multimodal with weak global structure).
double BbobFunction::EvaluateWeakStructure(absl::Span<const double> x,
                                           const std::vector<double>& z0) const {
  const int d = dim_;
  switch (function_id_) {
    case 20: {
      std::vector<double> xhat(d);
      for (int i = 0; i < d; ++i) xhat[i] = 2.0 * signs_[i] * x[i];
      std::vector<double> zhat = xhat;
      for (int i = 1; i < d; ++i) {
        zhat[i] += 0.25 * (xhat[i - 1] - 2.0 * std::fabs(xopt_[i - 1]));
      }
      std::vector<double> z(d), z_over_100(d);
      double sum = 0.0;
      for (int i = 0; i < d; ++i) {
        const double two_abs_xopt = 2.0 * std::fabs(xopt_[i]);
        z[i] = 100.0 * (Lambda(10.0, i, d) * (zhat[i] - two_abs_xopt) + two_abs_xopt);
        z_over_100[i] = z[i] / 100.0;
        sum += z[i] * std::sin(std::sqrt(std::fabs(z[i])));
      }
      return -sum / (100.0 * d) + 4.189828872724339 + 100.0 * Fpen(z_over_100) + fopt_;
    }
    case 21:
    case 22: {
      const std::vector<double> rx = MatVec(r_, x);
      double best = 0.0;
      for (size_t p = 0; p < peaks_.size(); ++p) {
        double quad = 0.0;
        for (int j = 0; j < d; ++j) quad += peak_scales_[p][j] * Square(rx[j] - peaks_[p][j]);
        best = std::max(best, peak_weights_[p] * std::exp(-quad / (2.0 * d)));
      }
      return Square(Tosz(10.0 - best)) + Fpen(x) + fopt_;
    }
    case 23: {
      const std::vector<double> z = MatVec(q_, ScaleLambda(MatVec(r_, z0), 100.0));
      const double exponent = 10.0 / std::pow(static_cast<double>(d), 1.2);
      double product = 1.0;
      for (int i = 0; i < d; ++i) {
        double sum = 0.0, two_j = 1.0;
        for (int j = 1; j <= 32; ++j) {
          two_j *= 2.0;
          const double t = two_j * z[i];
          sum += std::fabs(t - std::nearbyint(t)) / two_j;
        }
        product *= std::pow(1.0 + (i + 1) * sum, exponent);
      }
      const double scale = 10.0 / (static_cast<double>(d) * d);
      return scale * product - scale + Fpen(x) + fopt_;
    }
    case 24: {
      constexpr double kMu0 = 2.5;
      const double s = 1.0 - 1.0 / (2.0 * std::sqrt(d + 20.0) - 8.2);
      const double mu1 = -std::sqrt((kMu0 * kMu0 - 1.0) / s);
      std::vector<double> xhat(d), shifted(d);
      double sum0 = 0.0, sum1 = 0.0;
      for (int i = 0; i < d; ++i) {
        xhat[i] = 2.0 * signs_[i] * x[i];
        shifted[i] = xhat[i] - kMu0;
        sum0 += Square(xhat[i] - kMu0);
        sum1 += Square(xhat[i] - mu1);
      }
      const std::vector<double> z = MatVec(q_, ScaleLambda(MatVec(r_, shifted), 100.0));
      double cos_sum = 0.0;
      for (double zi : z) cos_sum += std::cos(2.0 * kPi * zi);
      return std::min(sum0, d + s * sum1) + 10.0 * (d - cos_sum) + 1e4 * Fpen(x) + fopt_;
    }
    default:
      return std::nan("");
  }
}

std::string BbobFunction::FunctionName(int function_id) {
  static const char* const kNames[kBbobNumFunctions] = {
      "Sphere",
      "Ellipsoidal (separable)",
      "Rastrigin (separable)",
      "Bueche-Rastrigin",
      "Linear slope",
      "Attractive sector",
      "Step ellipsoidal",
      "Rosenbrock (original)",
      "Rosenbrock (rotated)",
      "Ellipsoidal (rotated)",
      "Discus",
      "Bent cigar",
      "Sharp ridge",
      "Different powers",
      "Rastrigin (rotated)",
      "Weierstrass",
      "Schaffers F7",
      "Schaffers F7, moderately ill-conditioned",
      "Composite Griewank-Rosenbrock F8F2",
      "Schwefel x*sin(x)",
      "Gallagher 101 peaks",
      "Gallagher 21 peaks",
      "Katsuura",
      "Lunacek bi-Rastrigin",
  };
  return kNames[function_id - 1];
}

std::vector<std::string> BbobFunction::Attributes(int function_id, int dim) {
  std::vector<std::string> out;
  if (function_id <= 5) {
    out = {"separable"};
  } else if (function_id <= 9) {
    out = {"moderate conditioning"};
  } else if (function_id <= 14) {
    out = {"ill-conditioned"};
  } else if (function_id <= 19) {
    out = {"multimodal with adequate global structure"};
  } else {
    out = {"multimodal with weak global structure"};
  }
  const bool rosenbrock = function_id == 8 || function_id == 9;
  const bool unimodal =
      function_id <= 14 && !(rosenbrock && dim > 3) && function_id != 3 && function_id != 4;
  out.push_back(unimodal ? "unimodal" : "multimodal");
  auto add = [&out](const char* tag) {
    if (std::find(out.begin(), out.end(), tag) == out.end()) out.push_back(tag);
  };
  switch (function_id) {
    case 2:
      add("ill-conditioned");
      break;
    case 3:
    case 4:
    case 15:
    case 17:
    case 19:
      add("oscillatory");
      break;
    case 5:
      add("boundary optimum");
      break;
    case 7:
      add("nonsmooth");
      add("plateaus");
      break;
    case 13:
      add("nonsmooth");
      break;
    case 16:
    case 23:
      add("oscillatory");
      add("nonsmooth");
      break;
    case 18:
      add("oscillatory");
      add("ill-conditioned");
      break;
    case 20:
      add("deceptive");
      break;
    case 22:
      add("ill-conditioned");
      break;
    case 24:
      add("oscillatory");
      add("deceptive");
      break;
    default:
      break;
  }
  return out;
}

namespace {

// The BBOB function over x0..x{d-1} in [-5, 5]. The function object is immutable, so Evaluate is
// reentrant.
class BbobProblem : public BuiltinProblem {
 public:
  BbobProblem(BbobFunction function, std::string name, std::string description)
      : BuiltinProblem(std::move(name), std::move(description),
                       BoxConfig(function.dim(), -5.0, 5.0), function.fopt()),
        function_(std::move(function)),
        attributes_(BbobFunction::Attributes(function_.function_id(), function_.dim())) {}

  std::vector<std::string> attributes() const override { return attributes_; }
  std::string family() const override { return "bbob"; }
  double Evaluate(const Point& canonical_point) const override {
    return function_.Evaluate(RealVector(canonical_point, function_.dim()));
  }

 private:
  BbobFunction function_;
  std::vector<std::string> attributes_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Problem>> MakeBbobProblem(int function_id, int dim, int instance) {
  absl::StatusOr<BbobFunction> f = BbobFunction::Create(function_id, dim, instance);
  if (!f.ok()) return f.status();
  std::string name = absl::StrFormat("bbob_f%02d_i%d_d%d", function_id, instance, dim);
  std::string description =
      absl::StrFormat("BBOB f%d %s, %d-d on [-5,5]^%d, instance %d", function_id,
                      BbobFunction::FunctionName(function_id), dim, dim, instance);
  return WrapBbobFunction(*std::move(f), std::move(name), std::move(description));
}

std::unique_ptr<Problem> WrapBbobFunction(BbobFunction function, std::string name,
                                          std::string description) {
  return std::make_unique<BbobProblem>(std::move(function), std::move(name),
                                       std::move(description));
}

}  // namespace bbo::problems_internal
