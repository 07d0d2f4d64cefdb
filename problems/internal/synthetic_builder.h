#ifndef BBO_PROBLEMS_INTERNAL_SYNTHETIC_BUILDER_H_
#define BBO_PROBLEMS_INTERNAL_SYNTHETIC_BUILDER_H_

// How the synthetic suite (synthetic_suite.h) is put together: SuiteBuilder collects the problems
// with their optima; the instance helpers draw each problem's shift, rotation and bounds from its
// own generator; AddShifted / AddTranslated / AddContinuous turn a function of z into a shifted,
// rotated, noisy or quantized problem over a box. Internal to the suite.
//
// Thread safety: a SuiteBuilder is used by one thread; the problems it builds are immutable and
// their Evaluate is reentrant. The free functions are pure.

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "common/search_space.h"
#include "nlohmann/json.hpp"
#include "problems/internal/bbob.h"
#include "problems/internal/synthetic_functions.h"
#include "problems/problem.h"

namespace bbo::problems_internal::synthetic {

using Objective = std::function<double(const Point&)>;
using Bounds = std::vector<std::pair<double, double>>;

// One suite problem and where it attains its known optimum.
struct Entry {
  std::unique_ptr<Problem> problem;
  Point optimum_point;
  bool noisy = false;
};

// SplitMix64 folded over the bytes of `s`, starting from `h`.
uint64_t HashString(uint64_t h, std::string_view s);

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

  // A problem of family "synthetic" whose Evaluate is `objective`.
  void Add(std::string name, std::string description, const nlohmann::json& api_config,
           double known_optimum, std::vector<std::string> attributes, Objective objective,
           Point optimum_point, bool noisy = false);
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

// Uniform in [lo, hi] with a fractional part in [0.05, 0.95]: Dewancker et al. (2016) §3 warns that
// optima on integer coordinates flatter optimizers that probe them. Precondition: hi - lo >= 1.
double OffGrid(std::mt19937_64& rng, double lo, double hi);
std::vector<double> OffGridVector(std::mt19937_64& rng, int dim, double lo, double hi);
double Uniform(std::mt19937_64& rng, double lo, double hi);

// {"x0": x[0], "x1": x[1], ...}.
Point RealPoint(const std::vector<double>& x);
Bounds Cube(int dim, double lo, double hi);

// api_config entries.
nlohmann::json RealSpec(double lo, double hi, const char* space = "linear");
nlohmann::json IntSpec(int64_t lo, int64_t hi, const char* space = "linear");
nlohmann::json BoolSpec();
nlohmann::json CatSpec(const std::vector<std::string>& values);

// A standard normal variate that is a pure function of the point and the seed: the bits of every
// (name, value) pair are hashed, and Box-Muller turns two hash outputs into a Gaussian.
double PointNoise(const Point& p, uint64_t seed);

// ---------------------------------------------------------------------------------------------
// Continuous problems over a box.

// z = R (x - center) + inner, with R the identity when `rotation` is empty. At x = center this is
// exactly `inner`, so the objective at the reported optimum point is exactly g(inner).
struct AffineMap {
  std::vector<double> center;
  std::vector<double> rotation;
  std::vector<double> inner;

  std::vector<double> Apply(absl::Span<const double> x) const;
};

// Post-processing of a continuous objective value v with minimum fstar.
struct Output {
  // > 0: v -> fstar + (v - fstar) exp(noise_beta N(point)), see synthetic_suite.h.
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

// The problem x -> g(map(x)) over spec.bounds, post-processed by spec.output; its optimum is at
// map.center.
void AddContinuous(SuiteBuilder& b, ContinuousSpec spec);

// g(R (x - c) + argmin) over [lo, hi]^dim with c uniform in the middle 60% of the box (off-grid)
// and R a random rotation when `rotated`. g must attain its global minimum over R^dim at argmin,
// so the rotated objective's minimum over the box is g(argmin), at c.
void AddShifted(SuiteBuilder& b, std::string name, std::string description,
                std::vector<std::string> attributes, int dim, double lo, double hi, bool rotated,
                VectorFunction g, std::vector<double> argmin, Output output = {});

// g(x - o + argmin) over the classic box translated by o - argmin, where the optimum o is drawn
// off-grid within +-`spread` of argmin. For functions whose global minimum is only known on their
// classic box; `gstar` is the literature minimum there.
void AddTranslated(SuiteBuilder& b, std::string name, std::string description,
                   std::vector<std::string> attributes, const Bounds& classic_box, VectorFunction g,
                   std::vector<double> argmin, double gstar, double spread, Output output = {});

}  // namespace bbo::problems_internal::synthetic

#endif  // BBO_PROBLEMS_INTERNAL_SYNTHETIC_BUILDER_H_
