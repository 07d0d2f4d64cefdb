#include "problems/ml/internal/random.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gtest/gtest.h"

namespace bbo::ml_internal {
namespace {

TEST(Mix64Test, MatchesSplitMix64) {
  // The first output of SplitMix64 seeded with 0 (Steele et al. 2014 reference sequence).
  EXPECT_EQ(Mix64(0), 0xe220a8397b1dcdafULL);
  EXPECT_NE(DeriveSeed(1, 1), DeriveSeed(1, 2));
  EXPECT_NE(DeriveSeed(1, 1), DeriveSeed(2, 1));
}

TEST(RngTest, SameSeedSameSequence) {
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    const double x = a.Uniform();
    EXPECT_EQ(x, b.Uniform());
    EXPECT_GE(x, 0.0);
    EXPECT_LT(x, 1.0);
  }
  EXPECT_NE(Rng(42).Normal(), c.Normal());
}

TEST(RngTest, IndexIsInRangeAndRoughlyUniform) {
  Rng rng(1);
  std::vector<int> counts(7, 0);
  for (int i = 0; i < 70000; ++i) {
    const uint64_t k = rng.Index(7);
    ASSERT_LT(k, 7u);
    ++counts[k];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
  EXPECT_EQ(rng.Index(1), 0u);
}

TEST(RngTest, NormalHasZeroMeanAndUnitVariance) {
  Rng rng(2);
  double sum = 0, sum2 = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double z = rng.Normal();
    sum += z;
    sum2 += z * z;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(sum2 / n, 1.0, 0.01);
}

TEST(RngTest, ShuffleIsADeterministicPermutation) {
  std::vector<int> a(50), b(50);
  std::iota(a.begin(), a.end(), 0);
  std::iota(b.begin(), b.end(), 0);
  Rng ra(9), rb(9);
  ra.Shuffle(a);
  rb.Shuffle(b);
  EXPECT_EQ(a, b);
  std::vector<int> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> expected(50);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(sorted, expected);
  EXPECT_NE(a, expected);
}

}  // namespace
}  // namespace bbo::ml_internal
