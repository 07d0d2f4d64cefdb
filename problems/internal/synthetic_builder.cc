#include "problems/internal/synthetic_builder.h"

#include <bit>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "problems/internal/params.h"

namespace bbo::problems_internal::synthetic {
namespace {

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

}  // namespace

uint64_t HashString(uint64_t h, std::string_view s) {
  for (char c : s) h = SplitMix64(h ^ static_cast<unsigned char>(c));
  return SplitMix64(h ^ s.size());
}

void SuiteBuilder::Add(std::string name, std::string description, const nlohmann::json& api_config,
                       double known_optimum, std::vector<std::string> attributes,
                       Objective objective, Point optimum_point, bool noisy) {
  entries_.push_back(Entry{std::make_unique<SyntheticProblem>(
                               std::move(name), std::move(description), api_config, known_optimum,
                               std::move(attributes), "synthetic", std::move(objective)),
                           std::move(optimum_point), noisy});
}

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

nlohmann::json RealSpec(double lo, double hi, const char* space) {
  return {{"type", "real"}, {"space", space}, {"range", {lo, hi}}};
}
nlohmann::json IntSpec(int64_t lo, int64_t hi, const char* space) {
  return {{"type", "int"}, {"space", space}, {"range", {lo, hi}}};
}
nlohmann::json BoolSpec() { return {{"type", "bool"}}; }
nlohmann::json CatSpec(const std::vector<std::string>& values) {
  return {{"type", "cat"}, {"values", values}};
}

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

std::vector<double> AffineMap::Apply(absl::Span<const double> x) const {
  std::vector<double> z(x.size());
  for (size_t i = 0; i < x.size(); ++i) z[i] = x[i] - center[i];
  if (!rotation.empty()) z = MatVec(rotation, z);
  if (!inner.empty()) {
    for (size_t i = 0; i < z.size(); ++i) z[i] += inner[i];
  }
  return z;
}

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

void AddShifted(SuiteBuilder& b, std::string name, std::string description,
                std::vector<std::string> attributes, int dim, double lo, double hi, bool rotated,
                VectorFunction g, std::vector<double> argmin, Output output) {
  std::mt19937_64 rng = b.Rng(name);
  const double margin = 0.2 * (hi - lo);
  AffineMap map{OffGridVector(rng, dim, lo + margin, hi - margin),
                rotated ? RandomOrthogonalMatrix(dim, rng) : std::vector<double>{},
                std::move(argmin)};
  const double gstar = g(map.inner);
  AddContinuous(b, ContinuousSpec{std::move(name), std::move(description), std::move(attributes),
                                  Cube(dim, lo, hi), std::move(map), std::move(g), gstar, output});
}

void AddTranslated(SuiteBuilder& b, std::string name, std::string description,
                   std::vector<std::string> attributes, const Bounds& classic_box, VectorFunction g,
                   std::vector<double> argmin, double gstar, double spread, Output output) {
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

}  // namespace bbo::problems_internal::synthetic
