#include "scoring/internal/resample.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace bbo::scoring::internal {
namespace {

// Every instruction set this machine runs against the portable code (`isa` at most the best).
void ExpectSameBitsAsPortable(ResampleIsa isa) {
  std::vector<double> x(70000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 1.0 / (1.0 + static_cast<double>(i) * 0.37);
  // Sizes around the 16-candidate steps, powers of two (no rejection) and large n (frequent
  // rejection: 2^16 mod n / 2^16 of the candidates).
  for (uint32_t n : {1u, 2u, 3u, 7u, 15u, 16u, 17u, 31u, 32u, 33u, 100u, 128u, 1000u, 40000u,
                     65535u}) {
    Xoshiro4 a(42 + n), b(42 + n);
    for (int rep = 0; rep < 50; ++rep) {
      const double fast = ResampledSumUsing(isa, a, x.data(), n);
      const double portable = ResampledSumPortable(b, x.data(), n);
      ASSERT_EQ(std::memcmp(&fast, &portable, sizeof(double)), 0) << "n " << n << " rep " << rep;
    }
    ASSERT_EQ(std::memcmp(a.s, b.s, sizeof(a.s)), 0) << "generator state differs, n " << n;
  }
}

TEST(ResampleTest, Avx2AndPortableAgreeBitForBit) {
  if (BestResampleIsa() < ResampleIsa::kAvx2) GTEST_SKIP() << "no AVX2 on this machine";
  ExpectSameBitsAsPortable(ResampleIsa::kAvx2);
}

TEST(ResampleTest, Avx512AndPortableAgreeBitForBit) {
  if (BestResampleIsa() < ResampleIsa::kAvx512) GTEST_SKIP() << "no AVX-512 on this machine";
  ExpectSameBitsAsPortable(ResampleIsa::kAvx512);
}

TEST(ResampleTest, SumPickedRowsMatchesPortableBitForBit) {
  for (int stride : {4, 8, 16, 32, 36}) {
    std::vector<double> rows(50 * stride);
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = std::sin(static_cast<double>(i)) * 1e3;
    std::vector<uint32_t> picks;
    for (uint32_t j = 0; j < 97; ++j) picks.push_back((j * 31) % 50);
    std::vector<double> fast(stride), portable(stride);
    SumPickedRows(rows.data(), stride, picks.data(), picks.size(), fast.data());
    SumPickedRowsPortable(rows.data(), stride, picks.data(), picks.size(), portable.data());
    ASSERT_EQ(std::memcmp(fast.data(), portable.data(), stride * sizeof(double)), 0) << stride;
    // Column 0 by hand: the even picks, the odd picks, then their sum.
    double even = 0, odd = 0;
    for (size_t j = 0; j < picks.size(); ++j) (j % 2 ? odd : even) += rows[picks[j] * stride];
    EXPECT_EQ(fast[0], even + odd);
  }
}

TEST(ResampleTest, EveryIndexIsEquallyLikely) {
  // x = e_j: the sum counts how often index j was drawn. With n = 100 (rejection threshold
  // 2^16 mod 100 = 36) each index is drawn n * reps / n = reps times in expectation.
  constexpr uint32_t kN = 100;
  constexpr int kReps = 20000;
  std::vector<double> counts(kN, 0);
  Xoshiro4 rng(7);
  std::vector<double> x(kN, 0.0);
  for (uint32_t j = 0; j < kN; ++j) {
    x.assign(kN, 0.0);
    x[j] = 1.0;
    for (int r = 0; r < kReps / 100; ++r) counts[j] += ResampledSum(rng, x.data(), kN);
  }
  // Each count ~ Binomial(200 * 100, 1/100): mean 200, sd ~14. 6 sd bounds.
  for (uint32_t j = 0; j < kN; ++j) {
    EXPECT_GT(counts[j], 200 - 6 * 14.1) << j;
    EXPECT_LT(counts[j], 200 + 6 * 14.1) << j;
  }
}

TEST(ResampleTest, SumOfAConstantIsExact) {
  std::vector<double> x(37, 0.25);
  Xoshiro4 rng(1);
  EXPECT_EQ(ResampledSum(rng, x.data(), 37), 37 * 0.25);
  EXPECT_EQ(ResampledSumPortable(rng, x.data(), 1), 0.25);
}

}  // namespace
}  // namespace bbo::scoring::internal
