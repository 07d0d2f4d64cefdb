#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "report/report_html.h"

namespace bbo::scoring {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ScoreColorTest, DivergesFromRandomToBest) {
  EXPECT_EQ(ScoreColor(0), "#b35806");
  EXPECT_EQ(ScoreColor(-250), "#b35806");
  EXPECT_EQ(ScoreColor(50), "#f7f7f7");
  EXPECT_EQ(ScoreColor(100), "#542788");
  EXPECT_EQ(ScoreColor(180), "#542788");
  EXPECT_EQ(ScoreColor(kNaN), "#bdbdbd");
  EXPECT_EQ(ScoreColor(kInf), "#bdbdbd");
  EXPECT_EQ(ScoreColor(-kInf), "#bdbdbd");
  EXPECT_NE(ScoreColor(60), ScoreColor(70));
}

TEST(CategoricalColorTest, CyclesAfterEightColours) {
  EXPECT_EQ(CategoricalColor(0), CategoricalColor(8));
  EXPECT_NE(CategoricalColor(0), CategoricalColor(1));
  for (int i = 0; i < 8; ++i) {
    for (int j = i + 1; j < 8; ++j) EXPECT_NE(CategoricalColor(i), CategoricalColor(j));
  }
  EXPECT_EQ(CategoricalColor(-3), CategoricalColor(0));
}

}  // namespace
}  // namespace bbo::scoring
