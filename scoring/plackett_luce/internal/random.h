#ifndef BBO_SCORING_PLACKETT_LUCE_INTERNAL_RANDOM_H_
#define BBO_SCORING_PLACKETT_LUCE_INTERNAL_RANDOM_H_

// Random variates for the Plackett-Luce samplers: std::mt19937_64 streams derived from a seed and
// a stream index (so results do not depend on thread counts), normal variates by Marsaglia's polar
// method, gamma variates by Marsaglia & Tsang (2000), "A simple method for generating gamma
// variables", with the U^{1/a} boost for shape < 1 done in log space.

#include <cmath>
#include <cstdint>
#include <random>

namespace bbo::scoring::pl::internal {

inline uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The engine of stream (a, b) of a computation seeded with `seed`.
inline std::mt19937_64 Stream(uint64_t seed, uint64_t a, uint64_t b = 0) {
  return std::mt19937_64(Mix(seed ^ Mix(a ^ Mix(b + 0x632be59bd9b4e019ULL))));
}

// One stream of variates. Not thread-safe: one per thread / chain.
class Rng {
 public:
  explicit Rng(std::mt19937_64 engine) : engine_(engine) {}
  Rng(uint64_t seed, uint64_t a, uint64_t b = 0) : engine_(Stream(seed, a, b)) {}

  // Uniform in (0, 1): never 0 or 1, so logs are finite.
  double Uniform01() { return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53; }

  double Normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    while (true) {
      const double u = 2 * Uniform01() - 1, v = 2 * Uniform01() - 1;
      const double s = u * u + v * v;
      if (s < 1 && s > 0) {
        const double f = std::sqrt(-2 * std::log(s) / s);
        spare_ = v * f;
        has_spare_ = true;
        return u * f;
      }
    }
  }

  // A Gamma(shape, 1) variate, shape >= 1.
  double GammaAtLeastOne(double shape) {
    const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
    while (true) {
      double x, v;
      do {
        x = Normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const double u = Uniform01();
      const double x2 = x * x;
      if (u < 1 - 0.0331 * x2 * x2) return d * v;
      if (std::log(u) < 0.5 * x2 + d * (1 - v + std::log(v))) return d * v;
    }
  }

  // log of a Gamma(shape, 1) variate, shape > 0; exact for tiny shapes, whose variate underflows.
  double LogGamma(double shape) {
    if (shape >= 1) return std::log(GammaAtLeastOne(shape));
    return std::log(GammaAtLeastOne(shape + 1)) + std::log(Uniform01()) / shape;
  }

  // A Gamma(shape, 1) variate, shape > 0 (0 when it underflows). Shape 1 (the unit-weight stage
  // of a single ranking) is an exponential variate.
  double Gamma(double shape) {
    if (shape == 1) return -std::log(Uniform01());
    return shape >= 1 ? GammaAtLeastOne(shape) : std::exp(LogGamma(shape));
  }

  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace bbo::scoring::pl::internal

#endif  // BBO_SCORING_PLACKETT_LUCE_INTERNAL_RANDOM_H_
