#include "server/problems/internal/synthetic_suite.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "Eigen/Dense"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "server/problems/internal/bbob.h"
#include "server/problems/internal/benchmark_functions.h"
#include "server/problems/internal/params.h"

namespace bbo::problems_internal {
namespace {

constexpr double kPi = std::numbers::pi;

using Objective = std::function<double(const Point&)>;
using VectorFunction = std::function<double(absl::Span<const double>)>;
using Bounds = std::vector<std::pair<double, double>>;

double Square(double x) { return x * x; }

// ---------------------------------------------------------------------------------------------
// The problem class and the builder.

// A problem whose objective is a closure over immutable instance data, so Evaluate is reentrant.
class SyntheticProblem : public BuiltinProblem {
 public:
  SyntheticProblem(std::string name, std::string description, const nlohmann::json& api_config,
                   double known_optimum, std::vector<std::string> attributes, std::string family,
                   Objective objective)
      : BuiltinProblem(std::move(name), std::move(description), api_config, known_optimum),
        attributes_(std::move(attributes)),
        family_(std::move(family)),
        objective_(std::move(objective)) {}

  std::vector<std::string> attributes() const override { return attributes_; }
  std::string family() const override { return family_; }
  double Evaluate(const Point& canonical_point) const override {
    return objective_(canonical_point);
  }

 private:
  std::vector<std::string> attributes_;
  std::string family_;
  Objective objective_;
};

struct Entry {
  std::unique_ptr<Problem> problem;
  Point optimum_point;
  bool noisy = false;
};

uint64_t HashString(uint64_t h, std::string_view s) {
  for (char c : s) h = SplitMix64(h ^ static_cast<unsigned char>(c));
  return SplitMix64(h ^ s.size());
}

class SuiteBuilder {
 public:
  explicit SuiteBuilder(uint64_t seed) : seed_(seed) {}

  // The instance generator of problem `name`: independent of the other problems and of the
  // order in which they are added.
  std::mt19937_64 Rng(std::string_view name) const {
    return std::mt19937_64(HashString(SplitMix64(seed_), name));
  }
  uint64_t NoiseSeed(std::string_view name) const {
    return HashString(SplitMix64(seed_ ^ 0x6e6f697365ULL /* "noise" */), name);
  }

  void Add(std::string name, std::string description, const nlohmann::json& api_config,
           double known_optimum, std::vector<std::string> attributes, Objective objective,
           Point optimum_point, bool noisy = false) {
    entries_.push_back(Entry{std::make_unique<SyntheticProblem>(
                                 std::move(name), std::move(description), api_config, known_optimum,
                                 std::move(attributes), "synthetic", std::move(objective)),
                             std::move(optimum_point), noisy});
  }
  void AddProblem(std::unique_ptr<Problem> problem, Point optimum_point) {
    entries_.push_back(Entry{std::move(problem), std::move(optimum_point), false});
  }

  uint64_t seed() const { return seed_; }
  std::vector<Entry> Take() { return std::move(entries_); }

 private:
  uint64_t seed_;
  std::vector<Entry> entries_;
};

// ---------------------------------------------------------------------------------------------
// Instance helpers.

// Uniform in [lo, hi] with a fractional part in [0.05, 0.95]: seed 000 §3 warns that optima on
// integer coordinates flatter optimizers that probe them. Precondition: hi - lo >= 1.
double OffGrid(std::mt19937_64& rng, double lo, double hi) {
  while (true) {
    const double v = lo + (hi - lo) * UniformDouble(rng);
    const double frac = v - std::floor(v);
    if (frac >= 0.05 && frac <= 0.95) return v;
  }
}

std::vector<double> OffGridVector(std::mt19937_64& rng, int dim, double lo, double hi) {
  std::vector<double> v(dim);
  for (double& x : v) x = OffGrid(rng, lo, hi);
  return v;
}

double Uniform(std::mt19937_64& rng, double lo, double hi) {
  return lo + (hi - lo) * UniformDouble(rng);
}

Point RealPoint(const std::vector<double>& x) {
  Point p;
  for (size_t i = 0; i < x.size(); ++i) p[absl::StrCat("x", i)] = x[i];
  return p;
}

Bounds Cube(int dim, double lo, double hi) { return Bounds(dim, {lo, hi}); }

nlohmann::json RealSpec(double lo, double hi, const char* space = "linear") {
  return {{"type", "real"}, {"space", space}, {"range", {lo, hi}}};
}
nlohmann::json IntSpec(int64_t lo, int64_t hi, const char* space = "linear") {
  return {{"type", "int"}, {"space", space}, {"range", {lo, hi}}};
}
nlohmann::json BoolSpec() { return {{"type", "bool"}}; }
nlohmann::json CatSpec(const std::vector<std::string>& values) {
  return {{"type", "cat"}, {"values", values}};
}

// A standard normal variate that is a pure function of the point and the seed: the bits of every
// (name, value) pair are hashed, and Box-Muller turns two hash outputs into a Gaussian.
double PointNoise(const Point& p, uint64_t seed) {
  uint64_t h = SplitMix64(seed);
  for (const auto& [name, value] : p) {
    h = HashString(h, name);
    if (const double* d = std::get_if<double>(&value)) {
      // +0.0 and -0.0 are the same point.
      h = SplitMix64(h ^ std::bit_cast<uint64_t>(*d == 0.0 ? 0.0 : *d));
    } else if (const int64_t* i = std::get_if<int64_t>(&value)) {
      h = SplitMix64(h ^ static_cast<uint64_t>(*i));
    } else if (const bool* b = std::get_if<bool>(&value)) {
      h = SplitMix64(h ^ (*b ? 1u : 2u));
    } else {
      h = HashString(h, std::get<std::string>(value));
    }
  }
  const double u1 = (static_cast<double>(SplitMix64(h) >> 11) + 0.5) * 0x1.0p-53;
  const double u2 = static_cast<double>(SplitMix64(h + 1) >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

// z = R (x - center) + inner, with R the identity when `rotation` is empty. At x = center this is
// exactly `inner`, so the objective at the reported optimum point is exactly g(inner).
struct AffineMap {
  std::vector<double> center;
  std::vector<double> rotation;
  std::vector<double> inner;

  std::vector<double> Apply(absl::Span<const double> x) const {
    std::vector<double> z(x.size());
    for (size_t i = 0; i < x.size(); ++i) z[i] = x[i] - center[i];
    if (!rotation.empty()) z = MatVec(rotation, z);
    if (!inner.empty()) {
      for (size_t i = 0; i < z.size(); ++i) z[i] += inner[i];
    }
    return z;
  }
};

// Post-processing of a continuous objective value v with minimum fstar.
struct Output {
  // > 0: v -> fstar + (v - fstar) exp(noise_beta N(point)), see the header.
  double noise_beta = 0.0;
  // > 0: v -> floor(quanta v) / quanta, so that only finitely many values occur on the box.
  // floor is monotone, so the minimum becomes floor(quanta fstar) / quanta.
  double quanta = 0.0;
};

struct ContinuousSpec {
  std::string name;
  std::string description;
  std::vector<std::string> attributes;
  Bounds bounds;
  AffineMap map;
  VectorFunction g;
  // min of g; the objective's minimum before Output.
  double gstar = 0.0;
  Output output;
};

void AddContinuous(SuiteBuilder& b, ContinuousSpec spec) {
  const int dim = static_cast<int>(spec.bounds.size());
  double fstar = spec.gstar;
  if (spec.output.quanta > 0) fstar = std::floor(spec.output.quanta * fstar) / spec.output.quanta;
  const bool noisy = spec.output.noise_beta > 0;
  Objective objective = [dim, map = spec.map, g = spec.g, output = spec.output, fstar,
                         noise_seed = b.NoiseSeed(spec.name)](const Point& p) {
    double v = g(map.Apply(RealVector(p, dim)));
    if (output.quanta > 0) v = std::floor(output.quanta * v) / output.quanta;
    if (output.noise_beta > 0) {
      v = fstar + (v - fstar) * std::exp(output.noise_beta * PointNoise(p, noise_seed));
    }
    return v;
  };
  Point optimum = RealPoint(spec.map.center);
  b.Add(std::move(spec.name), std::move(spec.description), BoxConfig(spec.bounds), fstar,
        std::move(spec.attributes), std::move(objective), std::move(optimum), noisy);
}

// g(R (x - c) + argmin) over [lo, hi]^dim with c uniform in the middle 60% of the box (off-grid)
// and R a random rotation when `rotated`. g must attain its global minimum over R^dim at argmin,
// so the rotated objective's minimum over the box is g(argmin), at c.
void AddShifted(SuiteBuilder& b, std::string name, std::string description,
                std::vector<std::string> attributes, int dim, double lo, double hi, bool rotated,
                VectorFunction g, std::vector<double> argmin, Output output = {}) {
  std::mt19937_64 rng = b.Rng(name);
  const double margin = 0.2 * (hi - lo);
  AffineMap map{OffGridVector(rng, dim, lo + margin, hi - margin),
                rotated ? RandomOrthogonalMatrix(dim, rng) : std::vector<double>{},
                std::move(argmin)};
  const double gstar = g(map.inner);
  AddContinuous(b, ContinuousSpec{std::move(name), std::move(description), std::move(attributes),
                                  Cube(dim, lo, hi), std::move(map), std::move(g), gstar, output});
}

// g(x - o + argmin) over the classic box translated by o - argmin, where the optimum o is drawn
// off-grid within +-`spread` of argmin. For functions whose global minimum is only known on their
// classic box; `gstar` is the literature minimum there.
void AddTranslated(SuiteBuilder& b, std::string name, std::string description,
                   std::vector<std::string> attributes, const Bounds& classic_box, VectorFunction g,
                   std::vector<double> argmin, double gstar, double spread, Output output = {}) {
  std::mt19937_64 rng = b.Rng(name);
  const int dim = static_cast<int>(classic_box.size());
  std::vector<double> o(dim);
  Bounds box(dim);
  for (int i = 0; i < dim; ++i) {
    o[i] = OffGrid(rng, argmin[i] - spread, argmin[i] + spread);
    const double t = o[i] - argmin[i];
    box[i] = {classic_box[i].first + t, classic_box[i].second + t};
  }
  AddContinuous(b, ContinuousSpec{std::move(name), std::move(description), std::move(attributes),
                                  std::move(box), AffineMap{std::move(o), {}, std::move(argmin)},
                                  std::move(g), gstar, output});
}

// ---------------------------------------------------------------------------------------------
// Closed-form functions not in benchmark_functions.h. Each has its global minimum 0 at z = 0.

// sum_i 10^(exponent (i-1)/(D-1)) z_i^2: condition number 10^exponent.
VectorFunction Ellipsoid(double exponent) {
  return [exponent](absl::Span<const double> z) {
    const int d = static_cast<int>(z.size());
    double sum = 0.0;
    for (int i = 0; i < d; ++i) sum += std::pow(10.0, exponent * i / (d - 1)) * z[i] * z[i];
    return sum;
  };
}

// sum_i 10^(exponent (i-1)/(D-1)) |z_i|: a nonsmooth ellipsoid.
VectorFunction AbsEllipsoid(double exponent) {
  return [exponent](absl::Span<const double> z) {
    const int d = static_cast<int>(z.size());
    double sum = 0.0;
    for (int i = 0; i < d; ++i) sum += std::pow(10.0, exponent * i / (d - 1)) * std::fabs(z[i]);
    return sum;
  };
}

// Griewank: 1 + sum_i z_i^2 / 4000 - prod_i cos(z_i / sqrt(i)).
double Griewank(absl::Span<const double> z) {
  double sum = 0.0, product = 1.0;
  for (size_t i = 0; i < z.size(); ++i) {
    sum += z[i] * z[i] / 4000.0;
    product *= std::cos(z[i] / std::sqrt(static_cast<double>(i + 1)));
  }
  return 1.0 + sum - product;
}

// Radial ripples on a bowl: ||z||^2 + 2 (1 - cos(3 pi ||z||)). Local minima on rings.
double RippleBowl(absl::Span<const double> z) {
  double r2 = 0.0;
  for (double zi : z) r2 += zi * zi;
  return r2 + 2.0 * (1.0 - std::cos(3.0 * kPi * std::sqrt(r2)));
}

// sum_i |z_i| + 2 (1 - cos(2 pi z_i)): a nonsmooth separable Rastrigin.
double AbsRastrigin(absl::Span<const double> z) {
  double sum = 0.0;
  for (double zi : z) sum += std::fabs(zi) + 2.0 * (1.0 - std::cos(2.0 * kPi * zi));
  return sum;
}

// One coordinate of Rastrigin: z^2 + 10 (1 - cos(2 pi z)).
double Rastrigin1(double z) { return z * z + 10.0 * (1.0 - std::cos(2.0 * kPi * z)); }

// The compactly supported bump (1 - t^2)^2 for t < 1, else 0 (continuously differentiable).
double Bump(double t) { return t < 1.0 ? Square(1.0 - t * t) : 0.0; }

double Distance(absl::Span<const double> a, absl::Span<const double> b) {
  double sum = 0.0;
  for (size_t i = 0; i < a.size(); ++i) sum += Square(a[i] - b[i]);
  return std::sqrt(sum);
}

// The minimizer of StyblinskiTang per coordinate: the smallest root of 4u^3 - 32u + 5 = 0, by
// Newton's method from the literature value -2.903534.
double StyblinskiTangArgmin() {
  double u = -2.903534;
  for (int i = 0; i < 50; ++i) u -= (4 * u * u * u - 32 * u + 5) / (12 * u * u - 32);
  return u;
}

// ---------------------------------------------------------------------------------------------
// The groups of the suite.

void AddBbob(SuiteBuilder& b) {
  struct Choice {
    int function_id;
    int dim;
  };
  // Every BBOB group, in dimensions 3 to 20. f1 (sphere) and f5 (corner optimum at integer
  // coordinates +-5) are left out; the suite has its own sphere and boundary problems.
  constexpr Choice kChoices[] = {{2, 10}, {3, 5},   {4, 3},   {6, 5},   {7, 4},   {8, 6},  {10, 10},
                                 {11, 8}, {12, 5},  {13, 12}, {14, 6},  {15, 10}, {16, 4}, {17, 8},
                                 {18, 3}, {19, 20}, {20, 5},  {21, 10}, {22, 4},  {23, 3}, {24, 8}};
  for (const Choice& c : kChoices) {
    std::string name = absl::StrFormat("syn_bbob_f%02d_d%d", c.function_id, c.dim);
    absl::StatusOr<BbobFunction> f =
        BbobFunction::CreateFromSeed(c.function_id, c.dim, HashString(SplitMix64(b.seed()), name));
    if (!f.ok()) {
      // The choices above are compile-time constants in range; failing is a bug here.
      std::fprintf(stderr, "FATAL: %s: %s\n", name.c_str(), f.status().ToString().c_str());
      std::abort();
    }
    Point optimum = RealPoint(f->xopt());
    std::string description =
        absl::StrFormat("BBOB f%d %s, %d-d on [-5,5]^%d, instance drawn from the suite seed",
                        c.function_id, BbobFunction::FunctionName(c.function_id), c.dim, c.dim);
    b.AddProblem(WrapBbobFunction(*std::move(f), name, std::move(description)), std::move(optimum));
  }
}

void AddClassic(SuiteBuilder& b) {
  AddShifted(b, "syn_ackley_rot_d10",
             "Ackley 10-d on [-32.768,32.768]^10, shifted and rotated: many regular local minima",
             {"multimodal", "oscillatory"}, 10, -32.768, 32.768, true, Ackley,
             std::vector<double>(10, 0.0));
  AddShifted(b, "syn_rastrigin_rot_d10",
             "Rastrigin 10-d on [-5.12,5.12]^10, shifted and rotated: a grid of local minima "
             "not aligned with the axes",
             {"multimodal", "oscillatory"}, 10, -5.12, 5.12, true, Rastrigin,
             std::vector<double>(10, 0.0));
  AddShifted(b, "syn_rastrigin_shift_d3", "Rastrigin 3-d on [-5.12,5.12]^3, shifted",
             {"multimodal", "oscillatory", "separable"}, 3, -5.12, 5.12, false, Rastrigin,
             std::vector<double>(3, 0.0));
  AddShifted(b, "syn_rosenbrock_rot_d3",
             "Rosenbrock 3-d on [-5,5]^3, shifted and rotated: one curved valley",
             {"unimodal", "ill-conditioned"}, 3, -5, 5, true, Rosenbrock,
             std::vector<double>(3, 1.0));
  AddShifted(b, "syn_rosenbrock_shift_d12",
             "Rosenbrock 12-d on [-5,5]^12, shifted: a curved valley with one local minimum",
             {"multimodal", "ill-conditioned"}, 12, -5, 5, false, Rosenbrock,
             std::vector<double>(12, 1.0));
  AddShifted(b, "syn_levy_rot_d8", "Levy 8-d on [-10,10]^8, shifted and rotated",
             {"multimodal", "oscillatory"}, 8, -10, 10, true, Levy, std::vector<double>(8, 1.0));
  const double st_argmin = StyblinskiTangArgmin();
  AddShifted(b, "syn_styblinski_tang_shift_d6",
             "Styblinski-Tang 6-d on [-5,5]^6, shifted: 2^6 local minima",
             {"multimodal", "separable"}, 6, -5, 5, false, StyblinskiTang,
             std::vector<double>(6, st_argmin));
  AddShifted(b, "syn_styblinski_tang_rot_d16",
             "Styblinski-Tang 16-d on [-5,5]^16, shifted and rotated", {"multimodal"}, 16, -5, 5,
             true, StyblinskiTang, std::vector<double>(16, st_argmin));
  AddShifted(b, "syn_ellipsoid_rot_d16",
             "Rotated ellipsoid 16-d on [-5,5]^16 with condition number 1e6",
             {"unimodal", "ill-conditioned"}, 16, -5, 5, true, Ellipsoid(6.0),
             std::vector<double>(16, 0.0));
  AddShifted(b, "syn_ellipsoid_sep_d20",
             "Axis-aligned ellipsoid 20-d on [-5,5]^20 with condition number 1e6, shifted",
             {"unimodal", "ill-conditioned", "separable"}, 20, -5, 5, false, Ellipsoid(6.0),
             std::vector<double>(20, 0.0));
  AddShifted(b, "syn_griewank_rot_d10",
             "Griewank 10-d on [-60,60]^10, shifted and rotated: a bowl with fine cosine ripples",
             {"multimodal", "oscillatory"}, 10, -60, 60, true, Griewank,
             std::vector<double>(10, 0.0));
  AddShifted(b, "syn_ripple_bowl_d2",
             "2-d bowl with radial cosine ripples on [-4,4]^2, shifted: rings of local minima",
             {"multimodal", "oscillatory"}, 2, -4, 4, false, RippleBowl,
             std::vector<double>(2, 0.0));

  // Functions known only on their classic box: translated with their box.
  AddTranslated(
      b, "syn_branin_shift_d2", "Branin 2-d on a translated [-5,10]x[0,15]: three global minima",
      {"multimodal"}, {{-5, 10}, {0, 15}},
      [](absl::Span<const double> x) { return Branin(x[0], x[1]); }, {-kPi, 12.275},
      5.0 / (4.0 * kPi), 3.0);
  AddTranslated(
      b, "syn_six_hump_camel_shift_d2",
      "Six-hump camel 2-d on a translated [-3,3]x[-2,2]: two global and four local minima",
      {"multimodal"}, {{-3, 3}, {-2, 2}},
      [](absl::Span<const double> x) { return SixHumpCamel(x[0], x[1]); }, {0.0898420, -0.7126564},
      -1.0316284534898774, 2.0);
  AddTranslated(
      b, "syn_goldstein_price_shift_d2",
      "Goldstein-Price 2-d on a translated [-2,2]^2: raw values spanning six decades",
      {"multimodal"}, Cube(2, -2, 2),
      [](absl::Span<const double> x) { return GoldsteinPrice(x[0], x[1]); }, {0.0, -1.0}, 3.0, 2.0);
  AddTranslated(
      b, "syn_hartmann3_shift_d3", "Hartmann 3-d on a translated unit cube: four local minima",
      {"multimodal"}, Cube(3, 0, 1),
      [](absl::Span<const double> x) {
        return Hartmann3({x[0], x[1], x[2]});
      },
      {0.114589, 0.555649, 0.852547}, -3.8627797873326557, 2.0);
  AddTranslated(
      b, "syn_hartmann6_shift_d6", "Hartmann 6-d on a translated unit cube: six local minima",
      {"multimodal"}, Cube(6, 0, 1),
      [](absl::Span<const double> x) {
        return Hartmann6({x[0], x[1], x[2], x[3], x[4], x[5]});
      },
      {0.201690, 0.150011, 0.476874, 0.275332, 0.311652, 0.657301}, -3.322368011415513, 2.0);
}

void AddNoisy(SuiteBuilder& b) {
  AddShifted(b, "syn_sphere_noisy_d5",
             "Sphere 5-d on [-5,5]^5, shifted, with deterministic multiplicative log-normal "
             "noise (beta 0.1)",
             {"noisy", "unimodal", "separable"}, 5, -5, 5, false, Sphere,
             std::vector<double>(5, 0.0), Output{.noise_beta = 0.1});
  AddShifted(b, "syn_ellipsoid_rot_noisy_d8",
             "Rotated ellipsoid 8-d on [-5,5]^8 (condition 1e4) with deterministic "
             "multiplicative log-normal noise (beta 0.3)",
             {"noisy", "unimodal", "ill-conditioned"}, 8, -5, 5, true, Ellipsoid(4.0),
             std::vector<double>(8, 0.0), Output{.noise_beta = 0.3});
  AddShifted(b, "syn_rastrigin_noisy_d6",
             "Rastrigin 6-d on [-5.12,5.12]^6, shifted, with deterministic multiplicative "
             "log-normal noise (beta 0.1)",
             {"noisy", "multimodal", "oscillatory", "separable"}, 6, -5.12, 5.12, false, Rastrigin,
             std::vector<double>(6, 0.0), Output{.noise_beta = 0.1});
  AddShifted(b, "syn_rosenbrock_rot_noisy_d2",
             "Rosenbrock 2-d on [-5,5]^2, shifted and rotated, with severe deterministic "
             "multiplicative log-normal noise (beta 1)",
             {"noisy", "unimodal"}, 2, -5, 5, true, Rosenbrock, std::vector<double>(2, 1.0),
             Output{.noise_beta = 1.0});
  AddTranslated(
      b, "syn_branin_noisy_d2",
      "Branin 2-d on a translated [-5,10]x[0,15] with deterministic multiplicative log-normal "
      "noise (beta 0.3) on f - f*",
      {"noisy", "multimodal"}, {{-5, 10}, {0, 15}},
      [](absl::Span<const double> x) { return Branin(x[0], x[1]); }, {-kPi, 12.275},
      5.0 / (4.0 * kPi), 3.0, Output{.noise_beta = 0.3});
}

void AddDiscreteValued(SuiteBuilder& b) {
  // log10(1 + f) in quarter decades: fine levels near the optimum, about 20 levels in all.
  AddShifted(
      b, "syn_floor_log_ellipsoid_rot_d5",
      "log10(1 + rotated ellipsoid) 5-d on [-5,5]^5 (condition 1e3) rounded down to "
      "multiples of 0.25",
      {"discrete valued", "unimodal", "ill-conditioned"}, 5, -5, 5, true,
      [](absl::Span<const double> z) { return std::log10(1.0 + Ellipsoid(3.0)(z)); },
      std::vector<double>(5, 0.0), Output{.quanta = 4.0});
  AddShifted(b, "syn_floor_rastrigin_d4",
             "Rastrigin 4-d on [-5.12,5.12]^4, shifted, rounded down to integers",
             {"discrete valued", "multimodal", "oscillatory", "separable"}, 4, -5.12, 5.12, false,
             Rastrigin, std::vector<double>(4, 0.0), Output{.quanta = 1.0});
  AddTranslated(
      b, "syn_floor_hartmann3_d3",
      "Hartmann 3-d on a translated unit cube, rounded down to multiples of 0.05 like a "
      "cross-validation score",
      {"discrete valued", "multimodal"}, Cube(3, 0, 1),
      [](absl::Span<const double> x) {
        return Hartmann3({x[0], x[1], x[2]});
      },
      {0.114589, 0.555649, 0.852547}, -3.8627797873326557, 2.0, Output{.quanta = 20.0});
}

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

// Random box bounds with non-integer ends, so that boundary optima are off the integer grid.
Bounds OffGridBox(std::mt19937_64& rng, int dim) {
  Bounds box(dim);
  for (auto& [lo, hi] : box) {
    lo = OffGrid(rng, -5.8, -4.2);
    hi = OffGrid(rng, 4.2, 5.8);
  }
  return box;
}

void AddBoundaryOptimum(SuiteBuilder& b) {
  {
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
  {
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
  {
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
}

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

void AddMixedInteger(SuiteBuilder& b) {
  {
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
  {
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
  {
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
  AddMixedRotatedEllipsoid(b);
  {
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
  {
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
}

std::vector<Entry> BuildSuite(uint64_t seed) {
  SuiteBuilder b(seed);
  AddBbob(b);
  AddClassic(b);
  AddNoisy(b);
  AddDiscreteValued(b);
  AddMostlyBoring(b);
  AddNonsmooth(b);
  AddBoundaryOptimum(b);
  AddMixedInteger(b);
  return b.Take();
}

}  // namespace

std::vector<std::unique_ptr<Problem>> MakeSyntheticSuite(uint64_t seed) {
  std::vector<std::unique_ptr<Problem>> out;
  for (Entry& e : BuildSuite(seed)) out.push_back(std::move(e.problem));
  return out;
}

std::vector<SyntheticInfo> SyntheticOptima(uint64_t seed) {
  std::vector<SyntheticInfo> out;
  for (Entry& e : BuildSuite(seed)) {
    out.push_back(SyntheticInfo{e.problem->name(), std::move(e.optimum_point),
                                e.problem->known_optimum().value_or(0.0), e.noisy});
  }
  return out;
}

}  // namespace bbo::problems_internal
