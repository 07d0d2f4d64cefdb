#include "scoring/plackett_luce/selection.h"

#include <algorithm>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scoring/plackett_luce/test_posteriors.h"

namespace bbo::scoring::pl {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using testing::MakePosterior;

TimeGrid Grid(std::vector<double> points, GridSpacing spacing = GridSpacing::kCustom) {
  TimeGrid g;
  g.points = std::move(points);
  g.spacing = spacing;
  return g;
}

TEST(PreferenceWeightsTest, UniformLogUniformFinalBudgetAndCustom) {
  // Trapezoid on t = {0, 1, 3}: (0.5, 0.5 + 1, 1) / 3.
  EXPECT_THAT(
      *PreferenceWeights(Grid({0, 1, 3}), TimePreference::Uniform()),
      ElementsAre(DoubleNear(1.0 / 6, 1e-12), DoubleNear(0.5, 1e-12), DoubleNear(1.0 / 3, 1e-12)));
  // Trapezoid on log t = {0, ln 10, ln 100}: (1/4, 1/2, 1/4).
  EXPECT_THAT(
      *PreferenceWeights(Grid({1, 10, 100}), TimePreference::LogUniform()),
      ElementsAre(DoubleNear(0.25, 1e-12), DoubleNear(0.5, 1e-12), DoubleNear(0.25, 1e-12)));
  EXPECT_THAT(*PreferenceWeights(Grid({1, 2, 3}), TimePreference::Final()), ElementsAre(0, 0, 1));
  // Budget uniform on [0, 4]: F(1, 2, 3) = (1/4, 1/2, 3/4). Budgets below 2 get theta(t_1)
  // (1/2), [2, 3) theta(t_2) (1/4), from 3 on theta(t_3) (1/4).
  auto budget = TimePreference::Budget([](double t) { return std::clamp(t / 4, 0.0, 1.0); });
  EXPECT_THAT(
      *PreferenceWeights(Grid({1, 2, 3}), budget),
      ElementsAre(DoubleNear(0.5, 1e-12), DoubleNear(0.25, 1e-12), DoubleNear(0.25, 1e-12)));
  EXPECT_THAT(*PreferenceWeights(Grid({1, 2}), TimePreference::Custom({1, 3})),
              ElementsAre(0.25, 0.75));
  EXPECT_THAT(*PreferenceWeights(Grid({5}), TimePreference::LogUniform()), ElementsAre(1));
}

TEST(PreferenceWeightsTest, RejectsBadPreferences) {
  auto code = [](const TimeGrid& g, const TimePreference& p) {
    return PreferenceWeights(g, p).status().code();
  };
  EXPECT_EQ(code(Grid({0, 1}), TimePreference::LogUniform()), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Grid({1, 2}), TimePreference::Budget(nullptr)),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Grid({1, 2}), TimePreference::Budget([](double t) { return 2 - t; })),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Grid({1, 2}), TimePreference::Custom({1})), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Grid({1, 2}), TimePreference::Custom({0, 0})), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Grid({1, 2}), TimePreference::Custom({-1, 2})),
            absl::StatusCode::kInvalidArgument);
}

TEST(SelectMethodTest, RiskProfilesByHand) {
  // One timepoint, 4 draws: theta_A = (0.6, 0.6, 0.3, 0.7), theta_B = 1 - theta_A.
  const double a[] = {0.6, 0.6, 0.3, 0.7};
  RatingPosterior p =
      MakePosterior(2, 1, 4, [&](int, int s, int i) { return i == 0 ? a[s] : 1 - a[s]; });
  RiskProfile expected{RiskProfile::Kind::kExpected};
  auto r = SelectMethod(p, {1.0}, nullptr, expected);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->options, ElementsAre("A", "B"));
  EXPECT_THAT(r->expected, ElementsAre(DoubleNear(0.55, 1e-12), DoubleNear(0.45, 1e-12)));
  EXPECT_THAT(r->p_best, ElementsAre(0.75, 0.25));
  EXPECT_EQ(r->best, 0);
  // Lower quantile gamma = 0.25 (type 7): A sorted (0.3, 0.6, 0.6, 0.7) -> 0.3 + 0.75 * 0.3.
  RiskProfile averse{RiskProfile::Kind::kLowerQuantile, 0.25};
  r = SelectMethod(p, {1.0}, nullptr, averse);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->lower_quantile[0], 0.525, 1e-12);
  EXPECT_NEAR(r->lower_quantile[1], 0.3 + 0.75 * 0.1, 1e-12);
  EXPECT_EQ(r->best, 0);
  EXPECT_EQ(SelectMethod(
                p, {1.0}, [](absl::Span<const double>) { return 0.0; }, expected)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SelectMethod(p, {}, nullptr, expected).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SelectMethod(p, {1.0}, nullptr, RiskProfile{RiskProfile::Kind::kLowerQuantile, 1})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SelectMethodTest, TimePreferenceDecidesBetweenCrossingMethods) {
  // A wins early (t = 0), B late (t = 1): final-time picks B, an early budget picks A.
  RatingPosterior p =
      MakePosterior(2, 2, 10, [](int t, int, int i) { return (i == 0) == (t == 0) ? 0.8 : 0.2; });
  RiskProfile best{RiskProfile::Kind::kProbabilityBest};
  EXPECT_EQ(
      SelectMethod(p, *PreferenceWeights(p.grid, TimePreference::Final()), nullptr, best)->best, 1);
  EXPECT_EQ(
      SelectMethod(p, *PreferenceWeights(p.grid, TimePreference::Custom({3, 1})), nullptr, best)
          ->best,
      0);
}

TEST(SelectPortfolioTest, LinearPreferenceRepeatsTheBestAndNonlinearMixes) {
  // Three methods; A strong early, B strong late, C weak.
  RatingPosterior p = MakePosterior(3, 2, 20, [](int t, int s, int i) {
    const double noise = 0.01 * (s % 5);
    if (i == 0) return (t == 0 ? 0.6 : 0.3) + noise;
    if (i == 1) return (t == 0 ? 0.3 : 0.55) + noise;
    return 0.1;
  });
  RiskProfile expected{RiskProfile::Kind::kExpected};
  auto linear = SelectPortfolio(p, 2, {0.5, 0.5}, nullptr, expected);
  ASSERT_TRUE(linear.ok()) << linear.status();
  EXPECT_EQ(linear->options.size(), 6u);            // C(3 + 2 - 1, 2)
  EXPECT_EQ(linear->options[linear->best], "A+A");  // eq. 37 remark for linear preferences
  // Worst timepoint of the portfolio's rating (min over t): mixing wins.
  auto worst = [](absl::Span<const double> theta) {
    return *std::min_element(theta.begin(), theta.end());
  };
  auto mixed = SelectPortfolio(p, 2, {}, worst, expected);
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(mixed->options[mixed->best], "A+B");
  // Greedy (enumeration capped) agrees in the linear case.
  auto greedy = SelectPortfolio(p, 2, {0.5, 0.5}, nullptr, expected, {}, 1);
  ASSERT_TRUE(greedy.ok());
  EXPECT_EQ(greedy->options[greedy->best], "A+A");
  EXPECT_EQ(SelectPortfolio(p, 0, {0.5, 0.5}, nullptr, expected).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bbo::scoring::pl
