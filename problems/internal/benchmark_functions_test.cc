#include "problems/internal/benchmark_functions.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace bbo::problems_internal {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Expected values off the optimum were computed by hand from the formulas (and cross-checked
// with numpy); values at the optimum are the literature's f*.

TEST(BraninTest, MatchesFormulaAndAllThreeMinima) {
  // At the origin: (-6)^2 + 10 (1 - 1/(8 pi)) + 10 = 56 - 10/(8 pi).
  EXPECT_NEAR(Branin(0.0, 0.0), 56.0 - 10.0 / (8.0 * kPi), 1e-12);
  const double f_star = 5.0 / (4.0 * kPi);
  EXPECT_NEAR(Branin(-kPi, 12.275), f_star, 1e-12);
  EXPECT_NEAR(Branin(kPi, 2.275), f_star, 1e-12);
  EXPECT_NEAR(Branin(3 * kPi, 2.475), f_star, 1e-12);
}

TEST(HartmannTest, MatchesReferenceValues) {
  EXPECT_NEAR(Hartmann3({0.5, 0.5, 0.5}), -0.6280220150705937, 1e-12);
  EXPECT_NEAR(Hartmann3({0.114614, 0.555649, 0.852547}), -3.86278, 1e-5);
  EXPECT_NEAR(Hartmann6({0.5, 0.5, 0.5, 0.5, 0.5, 0.5}), -0.5053149917022333, 1e-12);
  EXPECT_NEAR(Hartmann6({0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573}), -3.32237, 1e-5);
}

TEST(AckleyTest, ZeroAtOriginAndKnownValueAtOnes) {
  EXPECT_NEAR(Ackley(std::vector<double>(5, 0.0)), 0.0, 1e-12);
  // All coordinates 1: cos(2 pi) = 1, so f = 20 - 20 exp(-0.2), independent of d.
  EXPECT_NEAR(Ackley(std::vector<double>{1.0, 1.0}), 20.0 - 20.0 * std::exp(-0.2), 1e-12);
  EXPECT_NEAR(Ackley(std::vector<double>(5, 1.0)), 20.0 - 20.0 * std::exp(-0.2), 1e-12);
}

TEST(RosenbrockTest, MatchesHandComputedValues) {
  EXPECT_EQ(Rosenbrock(std::vector<double>(4, 1.0)), 0.0);
  EXPECT_EQ(Rosenbrock(std::vector<double>{0.0, 0.0}), 1.0);
  // (-1, 1, 1): 100 (1 - 1)^2 + (1 + 1)^2 + 100 (1 - 1)^2 + 0 = 4.
  EXPECT_EQ(Rosenbrock(std::vector<double>{-1.0, 1.0, 1.0}), 4.0);
}

TEST(RastriginTest, MatchesHandComputedValues) {
  EXPECT_NEAR(Rastrigin(std::vector<double>(4, 0.0)), 0.0, 1e-12);
  // 20 + (1 - 10 cos 2pi) + (0.25 - 10 cos pi) = 20 - 9 + 10.25.
  EXPECT_NEAR(Rastrigin(std::vector<double>{1.0, 0.5}), 21.25, 1e-12);
}

TEST(LevyTest, MatchesHandComputedValues) {
  EXPECT_NEAR(Levy(std::vector<double>(4, 1.0)), 0.0, 1e-15);
  // d = 1, x = 0: w = 0.75, sin^2(0.75 pi) + 0.0625 (1 + sin^2(1.5 pi)) = 0.5 + 0.125.
  EXPECT_NEAR(Levy(std::vector<double>{0.0}), 0.625, 1e-12);
  EXPECT_NEAR(Levy(std::vector<double>{0.0, 0.0}), 0.7158445541169747, 1e-12);
  EXPECT_NEAR(Levy(std::vector<double>{-3.0, 2.0, 5.0}), 9.739889628618736, 1e-12);
}

TEST(StyblinskiTangTest, MatchesHandComputedValuesAndMinimum) {
  // (1 - 16 + 5 + 16 - 64 + 10) / 2.
  EXPECT_EQ(StyblinskiTang(std::vector<double>{1.0, 2.0}), -24.0);
  EXPECT_NEAR(StyblinskiTang(std::vector<double>{-2.903534}), -39.16617, 1e-5);
  EXPECT_NEAR(StyblinskiTang(std::vector<double>(4, -2.903534)), 4 * kStyblinskiTangMinPerDim,
              1e-9);
  // The stored constant is a minimum: nearby points are not lower.
  for (double dx : {-1e-3, 1e-3}) {
    EXPECT_GT(StyblinskiTang(std::vector<double>{-2.903534 + dx}), kStyblinskiTangMinPerDim);
  }
}

TEST(SixHumpCamelTest, MatchesHandComputedValuesAndBothMinima) {
  // (4 - 2.1 + 1/3) + 1 + 0.
  EXPECT_NEAR(SixHumpCamel(1.0, 1.0), 4.0 - 2.1 + 1.0 / 3.0 + 1.0, 1e-12);
  EXPECT_NEAR(SixHumpCamel(0.0898, -0.7126), -1.0316, 1e-4);
  EXPECT_NEAR(SixHumpCamel(-0.0898, 0.7126), -1.0316, 1e-4);
  EXPECT_NEAR(SixHumpCamel(0.08984201, -0.7126564), -1.0316284534898774, 1e-12);
}

TEST(GoldsteinPriceTest, MatchesHandComputedValues) {
  EXPECT_EQ(GoldsteinPrice(0.0, -1.0), 3.0);
  EXPECT_EQ(GoldsteinPrice(0.0, 0.0), 600.0);   // (1 + 19) * 30
  EXPECT_EQ(GoldsteinPrice(1.0, 1.0), 1876.0);  // (1 + 9 * 3) * (30 + 1 * 37)
}

TEST(SphereTest, SumsSquares) {
  EXPECT_EQ(Sphere(std::vector<double>{3.0, -4.0}), 25.0);
  EXPECT_EQ(Sphere(std::vector<double>{0.0}), 0.0);
}

}  // namespace
}  // namespace bbo::problems_internal
