#ifndef BBO_SCORING_PLACKETT_LUCE_INTERNAL_RANDOM_H_
#define BBO_SCORING_PLACKETT_LUCE_INTERNAL_RANDOM_H_

// Random variates for the Plackett-Luce samplers: std::mt19937_64 streams derived from a seed and
// a stream index (results do not depend on thread counts), gamma variates by Marsaglia & Tsang
// (2000), "A simple method for generating gamma variables", with the U^{1/a} boost for shape < 1
// done in log space.

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

// The generator of stream (a, b) of a computation seeded with `seed`.
inline std::mt19937_64 Stream(uint64_t seed, uint64_t a, uint64_t b = 0) {
  return std::mt19937_64(Mix(seed ^ Mix(a ^ Mix(b + 0x632be59bd9b4e019ULL))));
}

// Uniform in (0, 1): never 0, so logs are finite.
inline double Uniform01(std::mt19937_64& rng) {
  return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;
}

inline double StdNormal(std::mt19937_64& rng) {
  // Marsaglia's polar method, without caching the second variate (keeps streams simple).
  while (true) {
    const double u = 2 * Uniform01(rng) - 1, v = 2 * Uniform01(rng) - 1;
    const double s = u * u + v * v;
    if (s < 1 && s > 0) return u * std::sqrt(-2 * std::log(s) / s);
  }
}

// log of a Gamma(shape, 1) variate, shape > 0. Exact in log space for tiny shapes, where the
// variate itself underflows.
inline double LogGamma1(std::mt19937_64& rng, double shape) {
  double boost = 0;
  if (shape < 1) {
    boost = std::log(Uniform01(rng)) / shape;
    shape += 1;
  }
  const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  while (true) {
    double x, v;
    do {
      x = StdNormal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = Uniform01(rng);
    if (u < 1 - 0.0331 * x * x * x * x) return std::log(d * v) + boost;
    if (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) return std::log(d * v) + boost;
  }
}

// A Gamma(shape, rate) variate.
inline double Gamma(std::mt19937_64& rng, double shape, double rate) {
  return std::exp(LogGamma1(rng, shape)) / rate;
}

}  // namespace bbo::scoring::pl::internal

#endif  // BBO_SCORING_PLACKETT_LUCE_INTERNAL_RANDOM_H_
