#include "scoring/plackett_luce/diagnostics.h"

#include <cmath>
#include <random>

#include "gtest/gtest.h"

namespace bbo::scoring::pl {
namespace {

std::vector<double> Ar1(int chains, int n, double phi, uint64_t seed, double offset_per_chain) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z;
  std::vector<double> x;
  for (int c = 0; c < chains; ++c) {
    double v = z(rng) / std::sqrt(1 - phi * phi);
    for (int k = 0; k < n; ++k) {
      v = phi * v + z(rng);
      x.push_back(v + c * offset_per_chain);
    }
  }
  return x;
}

TEST(DiagnosticsTest, IndependentDrawsHaveRhatOneAndEssNearTheirCount) {
  const std::vector<double> x = Ar1(4, 1000, 0.0, 1, 0);
  const ParameterDiagnostics d = Diagnose(x, 4, 1000);
  EXPECT_LT(d.rhat, 1.01);
  EXPECT_GT(d.ess_bulk, 3000);
  EXPECT_LT(d.ess_bulk, 5000);
  EXPECT_LT(SplitRhat(x, 4, 1000), 1.01);
}

TEST(DiagnosticsTest, Ar1EssMatchesTheoryWithinTenPercent) {
  // ESS of an AR(1) chain: N (1 - phi) / (1 + phi).
  const double phi = 0.8;
  const std::vector<double> x = Ar1(4, 20000, phi, 2, 0);
  const double expected = 80000 * (1 - phi) / (1 + phi);
  EXPECT_NEAR(EffectiveSampleSize(x, 4, 20000), expected, 0.1 * expected);
  EXPECT_NEAR(Diagnose(x, 4, 20000).ess_bulk, expected, 0.1 * expected);
}

TEST(DiagnosticsTest, ChainsStuckApartHaveLargeRhat) {
  const std::vector<double> x = Ar1(4, 500, 0.5, 3, 3.0);
  EXPECT_GT(Diagnose(x, 4, 500).rhat, 1.5);
  EXPECT_GT(SplitRhat(x, 4, 500), 1.5);
  // A trend within each chain shows up through the split halves even with one chain.
  std::vector<double> trend(1000);
  for (int k = 0; k < 1000; ++k) trend[k] = k;
  EXPECT_GT(Diagnose(trend, 1, 1000).rhat, 1.5);
}

TEST(DiagnosticsTest, ConstantAndTooShortChains) {
  std::vector<double> c(400, 0.25);
  EXPECT_EQ(Diagnose(c, 4, 100).rhat, 1);
  EXPECT_EQ(Diagnose(c, 4, 100).ess_bulk, 400);
  EXPECT_TRUE(std::isnan(Diagnose({1, 2, 3}, 1, 3).rhat));
}

}  // namespace
}  // namespace bbo::scoring::pl
