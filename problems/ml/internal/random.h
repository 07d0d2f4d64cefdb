#ifndef BBO_PROBLEMS_ML_INTERNAL_RANDOM_H_
#define BBO_PROBLEMS_ML_INTERNAL_RANDOM_H_

// Platform-independent random draws for dataset generation, splits and model seeds.
//
// std::mt19937_64's output sequence is fixed by the standard, but the std:: distributions are
// not (libstdc++ and libc++ differ), so every draw here is derived from raw engine output with a
// fixed formula. Same seed -> same datasets and folds on every platform.
//
// Thread safety: an Rng is not thread-safe; use one per thread. The free functions are pure.

#include <cstdint>
#include <random>
#include <vector>

namespace bbo::ml_internal {

// SplitMix64 finalizer (Steele, Lea & Flood 2014): a bijective 64-bit mix; used to derive
// independent seeds from (seed, stream) pairs.
uint64_t Mix64(uint64_t x);
// A seed for stream `stream` of `seed`: Mix64(seed ^ Mix64(stream + 1)).
uint64_t DeriveSeed(uint64_t seed, uint64_t stream);

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  // Uniform on [0, 1): the top 53 bits of one engine output times 2^-53.
  double Uniform();
  // Uniform on [lo, hi).
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform(); }
  // Uniform integer in [0, n), unbiased (rejection sampling). Precondition: n >= 1.
  uint64_t Index(uint64_t n);
  // Standard normal by the Box-Muller transform; the second variate of each pair is cached.
  double Normal();
  // Fisher-Yates shuffle with Index().
  template <typename T>
  void Shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[Index(i)]);
  }

 private:
  std::mt19937_64 engine_;
  bool has_cached_normal_ = false;
  double cached_normal_ = 0.0;
};

}  // namespace bbo::ml_internal

#endif  // BBO_PROBLEMS_ML_INTERNAL_RANDOM_H_
