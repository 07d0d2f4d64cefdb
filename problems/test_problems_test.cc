#include "problems/test_problems.h"

#include <cmath>
#include <random>
#include <stdexcept>

#include "gtest/gtest.h"

namespace bbo {
namespace {

Point X0(double x0) { return Point{{"x0", x0}}; }

TEST(CrashingProblemTest, ThrowsAboveThresholdOnly) {
  auto problem = MakeCrashingProblem(0.25);
  EXPECT_EQ(problem->name(), "test_crashing");
  ASSERT_EQ(problem->space().dims(), 1);
  EXPECT_EQ(problem->known_optimum(), 0.0);
  EXPECT_NEAR(problem->Evaluate(X0(0.3)), 0.0, 1e-15);
  EXPECT_NEAR(problem->Evaluate(X0(0.0)), 0.09, 1e-15);
  EXPECT_NEAR(problem->Evaluate(X0(0.75)), 0.2025, 1e-15);  // boundary itself does not crash
  EXPECT_THROW(problem->Evaluate(X0(0.76)), std::runtime_error);
  EXPECT_THROW(problem->Evaluate(X0(1.0)), std::runtime_error);
}

TEST(CrashingProblemTest, CrashFractionIsTheCrashingShareOfTheRange) {
  std::mt19937_64 rng(1);
  auto problem = MakeCrashingProblem(0.4);
  int crashes = 0;
  const int n = 4000;
  for (const Point& p : problem->space().SampleRandom(n, rng)) {
    try {
      problem->Evaluate(p);
    } catch (const std::runtime_error&) {
      ++crashes;
    }
  }
  EXPECT_NEAR(static_cast<double>(crashes) / n, 0.4, 0.03);  // ~4 sigma
}

TEST(CrashingProblemTest, ZeroFractionNeverCrashesAndHighFractionMovesOptimum) {
  EXPECT_NO_THROW(MakeCrashingProblem(0.0)->Evaluate(X0(1.0)));
  auto problem = MakeCrashingProblem(0.75);
  // Only x0 <= 0.25 survives, so the best value is (0.25 - 0.3)^2.
  EXPECT_NEAR(*problem->known_optimum(), 0.0025, 1e-12);
  EXPECT_NEAR(problem->Evaluate(X0(0.25)), 0.0025, 1e-12);
  EXPECT_THROW(problem->Evaluate(X0(0.3)), std::runtime_error);
}

TEST(CrashingProblemDeathTest, RejectsFractionOutsideUnitInterval) {
  EXPECT_DEATH(MakeCrashingProblem(1.5), "crash_fraction");
  EXPECT_DEATH(MakeCrashingProblem(-0.1), "crash_fraction");
}

TEST(NanProblemTest, ReturnsNanAboveHalf) {
  auto problem = MakeNanProblem();
  EXPECT_EQ(problem->name(), "test_nan");
  EXPECT_NEAR(problem->Evaluate(X0(0.5)), 0.04, 1e-15);
  EXPECT_NEAR(problem->Evaluate(X0(0.3)), 0.0, 1e-15);
  EXPECT_TRUE(std::isnan(problem->Evaluate(X0(0.51))));
  EXPECT_TRUE(std::isnan(problem->Evaluate(X0(1.0))));
}

TEST(SlowProblemTest, SleepsThenReturnsX0) {
  auto problem = MakeSlowProblem(absl::Milliseconds(50));
  EXPECT_EQ(problem->name(), "test_slow");
  const absl::Time start = absl::Now();
  EXPECT_EQ(problem->Evaluate(X0(0.625)), 0.625);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(50));
}

TEST(TrivialProblemTest, IsASphereOfTheRequestedDims) {
  auto two = MakeTrivialProblem();
  EXPECT_EQ(two->name(), "test_sphere");
  ASSERT_EQ(two->space().dims(), 2);
  EXPECT_EQ(two->known_optimum(), 0.0);
  EXPECT_EQ(two->Evaluate(Point{{"x0", 3.0}, {"x1", -4.0}}), 25.0);
  auto one = MakeTrivialProblem(1);
  ASSERT_EQ(one->space().dims(), 1);
  EXPECT_EQ(one->Evaluate(X0(-2.0)), 4.0);
  EXPECT_TRUE(one->space().Validate(X0(5.0)).ok());
  EXPECT_FALSE(one->space().Validate(X0(5.5)).ok());
}

TEST(TrivialProblemDeathTest, RejectsBadDims) { EXPECT_DEATH(MakeTrivialProblem(0), "dims"); }

}  // namespace
}  // namespace bbo
