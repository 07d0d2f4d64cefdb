#include "report/internal/chart_axis.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::scoring::internal {
namespace {

using ::testing::ElementsAre;

TEST(NiceStepTest, PicksOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_DOUBLE_EQ(NiceStep(100, 6), 20);  // raw 16.7
  EXPECT_DOUBLE_EQ(NiceStep(1, 6), 0.2);   // raw 0.167
  EXPECT_DOUBLE_EQ(NiceStep(6, 6), 1);     // raw 1
  EXPECT_DOUBLE_EQ(NiceStep(24, 6), 5);    // raw 4
  EXPECT_DOUBLE_EQ(NiceStep(42, 6), 10);   // raw 7
}

TEST(StepDecimalsTest, PrintsMultiplesOfTheStepExactly) {
  EXPECT_EQ(StepDecimals(20), 0);
  EXPECT_EQ(StepDecimals(1), 0);
  EXPECT_EQ(StepDecimals(0.2), 1);
  EXPECT_EQ(StepDecimals(0.1), 1);
  EXPECT_EQ(StepDecimals(0.005), 3);
  EXPECT_EQ(StepDecimals(1e-20), 12);
}

TEST(IntegerTicksTest, StartsAtOneAndKeepsAboutTenTicks) {
  EXPECT_THAT(IntegerTicks(1), ElementsAre(1));
  EXPECT_THAT(IntegerTicks(0), ElementsAre(1));
  EXPECT_THAT(IntegerTicks(5), ElementsAre(1, 2, 3, 4, 5));
  EXPECT_THAT(IntegerTicks(16), ElementsAre(1, 2, 4, 6, 8, 10, 12, 14, 16));
  EXPECT_THAT(IntegerTicks(100), ElementsAre(1, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100));
  EXPECT_LE(IntegerTicks(100000).size(), 101u);
}

}  // namespace
}  // namespace bbo::scoring::internal
