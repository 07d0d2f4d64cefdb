#ifndef BBO_SCORING_INTERNAL_RNG_H_
#define BBO_SCORING_INTERNAL_RNG_H_

// Random numbers for the bootstrap resampling of scoring/: a fast generator with per-replicate
// seeding (so results do not depend on the number of threads) and exactly uniform indices.

#include <cstdint>

namespace bbo::scoring::internal {

inline uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// xoshiro256+ (Blackman & Vigna): fast, and plenty for resampling indices.
class Xoshiro {
 public:
  explicit Xoshiro(uint64_t seed) {
    for (uint64_t& w : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      w = z ^ (z >> 31);
    }
  }
  // The generator of replicate `replicate` of a computation seeded with `seed`.
  static Xoshiro ForReplicate(uint64_t seed, uint64_t replicate) {
    return Xoshiro(SplitMix(seed ^ SplitMix(replicate)));
  }
  uint64_t Next() {
    const uint64_t result = s_[0] + s_[3];
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = (s_[3] << 45) | (s_[3] >> 19);
    return result;
  }
  // Uniform index in [0, n), n >= 1, exactly: Lemire's multiply-shift with rejection.
  uint32_t Below(uint32_t n) {
    const uint32_t reject_below = static_cast<uint32_t>((uint64_t{1} << 32) % n);
    while (true) {
      const uint64_t prod = (Next() >> 32) * static_cast<uint64_t>(n);
      if (static_cast<uint32_t>(prod) >= reject_below) return static_cast<uint32_t>(prod >> 32);
    }
  }
  // For std::shuffle.
  using result_type = uint64_t;
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return ~0ULL; }
  uint64_t operator()() { return Next(); }

 private:
  uint64_t s_[4];
};

// Calls f(i) for `count` indices i drawn uniformly from [0, n), n <= 65536: four exactly uniform
// 16-bit draws per 64-bit number (Lemire's multiply-shift; a lane whose low product bits fall
// below 2^16 mod n is rejected, at most n / 2^16 of them).
template <typename F>
inline void DrawIndices16(Xoshiro& rng, uint32_t n, uint32_t count, F&& f) {
  const uint32_t reject_below = 65536u % n;
  uint32_t done = 0;
  while (done < count) {
    uint64_t r = rng.Next();
    for (int lane = 0; lane < 4 && done < count; ++lane, r >>= 16) {
      const uint32_t prod = static_cast<uint32_t>(r & 0xffff) * n;
      if ((prod & 0xffff) < reject_below) continue;
      f(prod >> 16);
      ++done;
    }
  }
}

}  // namespace bbo::scoring::internal

#endif  // BBO_SCORING_INTERNAL_RNG_H_
