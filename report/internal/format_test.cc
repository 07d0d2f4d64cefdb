#include "report/internal/format.h"

#include <limits>

#include "gtest/gtest.h"
#include "report/report_html.h"

namespace bbo::scoring::internal {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(FixedTest, RoundsToTheGivenDecimals) {
  EXPECT_EQ(Fixed(3.14159, 2), "3.14");
  EXPECT_EQ(Fixed(2.5, 0), "2");  // round half to even, as printf does
  EXPECT_EQ(Fixed(-12.345, 1), "-12.3");
  EXPECT_EQ(Fixed(1e6, 2), "1000000.00");
}

TEST(FixedTest, NeverPrintsANegativeZero) {
  EXPECT_EQ(Fixed(-0.001, 2), "0.00");
  EXPECT_EQ(Fixed(-0.0, 0), "0");
  EXPECT_EQ(Fixed(-0.004, 1), "0.0");
  EXPECT_EQ(Fixed(-0.01, 2), "-0.01");
}

TEST(FixedTest, NonFiniteIsADash) {
  EXPECT_EQ(Fixed(kNaN, 2), kDash);
  EXPECT_EQ(Fixed(kInf, 2), kDash);
  EXPECT_EQ(Fixed(-kInf, 0), kDash);
}

TEST(GeneralTest, IntegersInFullOthersWithFourDigits) {
  EXPECT_EQ(General(12000), "12000");
  EXPECT_EQ(General(-3), "-3");
  EXPECT_EQ(General(0.05), "0.05");
  EXPECT_EQ(General(0.123456), "0.1235");
  EXPECT_EQ(General(1e20), "1e+20");
  EXPECT_EQ(General(-0.0), "0");
  EXPECT_EQ(General(kNaN), kDash);
  EXPECT_EQ(General(-kInf), kDash);
}

TEST(PercentTest, OneDecimalWithSign) {
  EXPECT_EQ(Percent(0.5), "50.0%");
  EXPECT_EQ(Percent(1), "100.0%");
  EXPECT_EQ(Percent(0.0004), "0.0%");
  EXPECT_EQ(Percent(-0.0001), "0.0%");
  EXPECT_EQ(Percent(kNaN), kDash);
  EXPECT_EQ(Percent(kInf), kDash);
}

TEST(CoordTest, OneDecimalWithoutTrailingZero) {
  EXPECT_EQ(Coord(12), "12");
  EXPECT_EQ(Coord(12.25), "12.2");
  EXPECT_EQ(Coord(12.26), "12.3");
  EXPECT_EQ(Coord(-3.5), "-3.5");
  EXPECT_EQ(Coord(-0.04), "0");
  EXPECT_EQ(Coord(0), "0");
}

TEST(ScoreTest, IsSeed001Equation7) {
  EXPECT_EQ(Score(0), 100);
  EXPECT_EQ(Score(1), 0);
  EXPECT_EQ(Score(1.5), -50);
  EXPECT_TRUE(std::isnan(Score(kNaN)));
}

TEST(TruncateTest, CutsAtCodePointsWithAnEllipsis) {
  EXPECT_EQ(Truncate("abcdef", 3), "abc…");
  EXPECT_EQ(Truncate("abc", 3), "abc");
  EXPECT_EQ(Truncate("", 0), "");
  EXPECT_EQ(Truncate("ab", 0), "…");
  // "ü" and "€" are two and three bytes: never split.
  EXPECT_EQ(Truncate("üü€x", 3), "üü€…");
  EXPECT_EQ(Truncate("üü€x", 2), "üü…");
}

TEST(CodePointsTest, CountsUtf8CodePoints) {
  EXPECT_EQ(CodePoints(""), 0u);
  EXPECT_EQ(CodePoints("abc"), 3u);
  EXPECT_EQ(CodePoints("ü€x"), 3u);
}

TEST(HtmlEscapeTest, EscapesMarkupCharacters) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(HtmlEscape("plain ü"), "plain ü");
}

}  // namespace
}  // namespace bbo::scoring::internal
