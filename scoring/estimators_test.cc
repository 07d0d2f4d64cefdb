#include "scoring/estimators.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>
#include <limits>
#include <random>

#include "gtest/gtest.h"

namespace bbo::scoring {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(QuantileTest, OrderStatisticDefinition) {
  EXPECT_EQ(*Quantile({5}, 0.5), 5);                // n = 1: ceil(0.5) = 1
  EXPECT_EQ(*Quantile({4, 1, 3, 2}, 0.5), 2);        // ceil(4 * 0.5) = 2 -> 2nd smallest
  EXPECT_EQ(*Quantile({4, 1, 3, 2}, 0.51), 3);       // ceil(2.04) = 3
  EXPECT_EQ(*Quantile({2, 2, 2, 7}, 0.5), 2);        // ties
  EXPECT_EQ(*Quantile({kInf, 1, kInf}, 0.5), kInf);  // ceil(1.5) = 2 -> inf
  EXPECT_EQ(*Quantile({kInf, 1, kInf}, 0.3), 1);     // ceil(0.9) = 1
}

TEST(QuantileTest, RejectsBadInput) {
  EXPECT_EQ(Quantile({}, 0.5).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Quantile({1}, 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Quantile({1}, 1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Quantile({1, NAN}, 0.5).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(MinQuantileTest, MatchesHandComputation) {
  std::vector<double> x = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_EQ(*MinQuantile(x, 0.5, 1), *Quantile(x, 0.5));  // m = 1 is the plain quantile
  // m = 2: q' = 1 - sqrt(0.5) = 0.29289; ceil(10 * 0.29289) = 3 -> 3rd smallest = 3.
  EXPECT_EQ(*MinQuantile(x, 0.5, 2), 3);
  // m = 16: q' = 1 - 0.5^(1/16) = 0.04240; ceil(0.424) = 1 -> 1.
  EXPECT_EQ(*MinQuantile(x, 0.5, 16), 1);
  EXPECT_FALSE(MinQuantile(x, 0.5, 0).ok());
}

TEST(ExpectedMinTest, AveragesTheMinimumOverAllSubsets) {
  // Pairs of {1,2,3,4}: minima 1,1,1,2,2,3 -> 10/6.
  EXPECT_NEAR(*ExpectedMin({4, 1, 3, 2}, 2), 10.0 / 6.0, 1e-12);
  EXPECT_NEAR(*ExpectedMin({4, 1, 3, 2}, 1), 2.5, 1e-12);  // m = 1: the mean
  EXPECT_NEAR(*ExpectedMin({4, 1, 3, 2}, 4), 1.0, 1e-12);  // m = n: the minimum
  EXPECT_NEAR(*ExpectedMin({2, 2, 2, 2}, 3), 2.0, 1e-12);  // ties
}

TEST(ExpectedMinTest, InfWithZeroWeightStaysFinite) {
  // Pairs of {1,2,3,inf}: minima 1,1,1,2,2,3 -> 10/6; inf is never a pair's minimum.
  EXPECT_NEAR(*ExpectedMin({1, 2, 3, kInf}, 2), 10.0 / 6.0, 1e-12);
  // m = 1 includes the inf itself: the mean is infinite.
  EXPECT_EQ(*ExpectedMin({1, 2, 3, kInf}, 1), kInf);
}

TEST(ExpectedMinTest, LargeSampleMatchesClosedForm) {
  // Minimum of m draws without replacement from {1..n} has mean (n + 1) / (m + 1).
  std::vector<double> x;
  for (int i = 1; i <= 5000; ++i) x.push_back(i);
  EXPECT_NEAR(*ExpectedMin(x, 128), 5001.0 / 129.0, 1e-8);
}

TEST(ExpectedMinTest, StoppingAtNegligibleWeightsKeepsFullPrecision) {
  // Against the full sum with log-space weights in long double: w_k ∝ Γ(k) / Γ(k - m + 1) on the
  // ascending order statistics of the negated sample (the definition), for a pooled sample of
  // the size a competition produces.
  std::vector<double> x;
  uint64_t state = 12345;
  for (int i = 0; i < 12800; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    x.push_back(std::exp(static_cast<double>(state >> 11) * 0x1p-53 * 6.0 - 3.0));
  }
  std::vector<double> asc = x;
  std::sort(asc.begin(), asc.end());
  const double range = asc.back() - asc.front();
  for (int m : {1, 2, 8, 128, 1000, 6000, 12800}) {
    // E_min(x) = -E_max(-x); -x ascending is x descending, so y_(k) = -asc[n - k].
    const int n = static_cast<int>(asc.size());
    long double z = 0, e = 0;
    for (int k = m; k <= n; ++k) {
      const long double w = std::exp(std::lgamma(static_cast<long double>(k)) -
                                     std::lgamma(static_cast<long double>(k - m + 1)) -
                                     (std::lgamma(static_cast<long double>(n)) -
                                      std::lgamma(static_cast<long double>(n - m + 1))));
      z += w;
      e += w * -static_cast<long double>(asc[n - k]);
    }
    const double reference = static_cast<double>(-(e / z));
    EXPECT_NEAR(*ExpectedMin(x, m), reference, 1e-12 * range) << "m " << m;
  }
}

TEST(ExpectedMinTest, RejectsTooFewSamplesAndNan) {
  EXPECT_EQ(ExpectedMin({1, 2}, 3).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(ExpectedMin({1, NAN}, 1).ok());
  EXPECT_FALSE(ExpectedMin({1}, 0).ok());
}

}  // namespace
}  // namespace bbo::scoring

namespace bbo::scoring {
namespace {

TEST(QuantileCITest, BinomialOrderStatisticBounds) {
  std::vector<double> x = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  // n = 10, q = .5: PPF(.025) = 2 and ISF(.025) = 8 for Binomial(10, .5) -> o[2], o[9].
  auto ci = QuantileCI(x, 0.5, 0.05);
  ASSERT_TRUE(ci.ok());
  EXPECT_EQ(ci->lo, 2);
  EXPECT_EQ(ci->hi, 9);
  // n = 4: P(K = 0) = 1/16 > .025 -> lo = o[0] = -inf; hi = o[5] = +inf.
  auto wide = QuantileCI({1, 2, 3, 4}, 0.5, 0.05);
  EXPECT_EQ(wide->lo, -HUGE_VAL);
  EXPECT_EQ(wide->hi, HUGE_VAL);
  // A single trial has no information about its spread.
  auto one = QuantileCI({3}, 0.5, 0.05);
  EXPECT_EQ(one->lo, -HUGE_VAL);
  EXPECT_EQ(one->hi, HUGE_VAL);
  EXPECT_FALSE(QuantileCI(x, 0.5, 0).ok());
}

TEST(QuantileCITest, ShuffledSamplesGiveTheOrderStatisticsOfTheSortedOnes) {
  // The order statistics are selected, not sorted: every order of a sample (with ties and
  // infinities) gives what its sorted copy gives, for several n and levels.
  std::mt19937_64 rng(3);
  for (int n : {1, 2, 5, 10, 37, 100, 101}) {
    for (double q : {0.1, 0.5, 0.9}) {
      std::vector<double> x;
      for (int i = 0; i < n; ++i) x.push_back(i % 7 == 3 ? kInf : static_cast<double>(i % 11));
      std::vector<double> sorted = x;
      std::sort(sorted.begin(), sorted.end());
      const QuantileWithCI want = *QuantileAndCI(sorted, q, 0.05);
      EXPECT_EQ(want.estimate, sorted[static_cast<size_t>(std::ceil(n * q)) - 1]);
      for (int rep = 0; rep < 5; ++rep) {
        std::shuffle(x.begin(), x.end(), rng);
        const QuantileWithCI got = *QuantileAndCI(x, q, 0.05);
        EXPECT_EQ(got.estimate, want.estimate) << n << " " << q;
        EXPECT_EQ(got.ci.lo, want.ci.lo) << n << " " << q;
        EXPECT_EQ(got.ci.hi, want.ci.hi) << n << " " << q;
        EXPECT_EQ(*Quantile(x, q), want.estimate) << n << " " << q;
      }
    }
  }
}

TEST(QuantileCITest, MinQuantileUsesTheAdjustedLevel) {
  std::vector<double> x;
  for (int i = 1; i <= 100; ++i) x.push_back(i);
  // m = 1 is the plain quantile CI: Binomial(100, .5), alpha .1 -> PPF(.05) = 42, ISF = 58.
  auto ci = MinQuantileCI(x, 0.5, 1, 0.1);
  EXPECT_EQ(ci->lo, 42);
  EXPECT_EQ(ci->hi, 59);
}

TEST(StudentTErrorBarTest, MatchesHandComputation) {
  // sem = sqrt(5/3) / 2 = 0.645497; t_{.975, 3} = 3.182446 -> 2.054260.
  EXPECT_NEAR(*StudentTErrorBar({1, 2, 3, 4}, 0.05), 2.054260256760879, 1e-9);
  // sem = 0.15; t_{.975, 1} = 12.706205 -> 1.905931.
  EXPECT_NEAR(*StudentTErrorBar({0.2, 0.5}, 0.05), 1.9059307104648142, 1e-9);
  EXPECT_EQ(*StudentTErrorBar({7}, 0.05), HUGE_VAL);  // one problem: unbounded
  EXPECT_FALSE(StudentTErrorBar({}, 0.05).ok());
}

}  // namespace
}  // namespace bbo::scoring
