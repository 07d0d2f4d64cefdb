#include "problems/ml/metrics.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace bbo::ml {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(MetricsTest, NamesAndTasks) {
  EXPECT_EQ(MetricId(MlMetric::kNll), "nll");
  EXPECT_EQ(MetricId(MlMetric::kErrorRate), "err");
  EXPECT_EQ(MetricId(MlMetric::kMae), "mae");
  EXPECT_EQ(MetricId(MlMetric::kMse), "mse");
  EXPECT_EQ(MetricTask(MlMetric::kNll), MlTask::kClassification);
  EXPECT_EQ(MetricTask(MlMetric::kMse), MlTask::kRegression);
  EXPECT_EQ(MetricsFor(MlTask::kClassification),
            (std::vector<MlMetric>{MlMetric::kNll, MlMetric::kErrorRate}));
  EXPECT_EQ(MetricsFor(MlTask::kRegression),
            (std::vector<MlMetric>{MlMetric::kMae, MlMetric::kMse}));
}

TEST(NegativeLogLikelihoodTest, MatchesHandValue) {
  // -(log 0.5 + log 0.1) / 2.
  const std::vector<double> p = {0.5, 0.5, 0.9, 0.1};
  EXPECT_NEAR(*NegativeLogLikelihood(p, std::vector<int>{0, 1}, 2),
              (std::log(2.0) + std::log(10.0)) / 2, 1e-12);
  // A certain and correct prediction costs nothing.
  EXPECT_EQ(*NegativeLogLikelihood(std::vector<double>{0, 1, 0}, std::vector<int>{1}, 3), 0.0);
}

TEST(NegativeLogLikelihoodTest, ClipsZeroAndInfiniteProbabilities) {
  EXPECT_NEAR(*NegativeLogLikelihood(std::vector<double>{1, 0}, std::vector<int>{1}, 2),
              -std::log(1e-15), 1e-9);
  EXPECT_NEAR(-std::log(1e-15), 34.538776394910684, 1e-9);
  EXPECT_EQ(*NegativeLogLikelihood(std::vector<double>{0, kInf}, std::vector<int>{1}, 2), 0.0);
}

TEST(NegativeLogLikelihoodTest, NanProbabilityGivesNan) {
  EXPECT_TRUE(
      std::isnan(*NegativeLogLikelihood(std::vector<double>{kNan, 1}, std::vector<int>{1}, 2)));
}

TEST(NegativeLogLikelihoodTest, RejectsBadShapesAndLabels) {
  EXPECT_EQ(NegativeLogLikelihood(std::vector<double>{0.5, 0.5}, std::vector<int>{0, 1}, 2)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      NegativeLogLikelihood(std::vector<double>{0.5, 0.5}, std::vector<int>{2}, 2).status().code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(NegativeLogLikelihood({}, {}, 2).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(NegativeLogLikelihood({}, {}, 0).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ErrorRateTest, CountsArgmaxMistakes) {
  // Predictions: 0, 1, 2, 0 against labels 0, 2, 2, 1 -> 2 errors of 4.
  const std::vector<double> p = {0.6, 0.3, 0.1,  //
                                 0.2, 0.5, 0.3,  //
                                 0.1, 0.1, 0.8,  //
                                 0.4, 0.3, 0.3};
  EXPECT_EQ(*ErrorRate(p, std::vector<int>{0, 2, 2, 1}, 3), 0.5);
}

TEST(ErrorRateTest, TiesGoToTheLowestClass) {
  const std::vector<double> p = {0.5, 0.5};
  EXPECT_EQ(*ErrorRate(p, std::vector<int>{0}, 2), 0.0);
  EXPECT_EQ(*ErrorRate(p, std::vector<int>{1}, 2), 1.0);
}

TEST(ErrorRateTest, NanGivesNanAndInfinityWins) {
  EXPECT_TRUE(std::isnan(*ErrorRate(std::vector<double>{kNan, 1}, std::vector<int>{1}, 2)));
  EXPECT_EQ(*ErrorRate(std::vector<double>{0, kInf}, std::vector<int>{1}, 2), 0.0);
}

TEST(RegressionMetricsTest, MatchHandValues) {
  const std::vector<double> f = {1, 2, 3};
  const std::vector<double> y = {1, 3, 5};
  EXPECT_DOUBLE_EQ(*MeanAbsoluteError(f, y), 1.0);       // (0 + 1 + 2) / 3
  EXPECT_DOUBLE_EQ(*MeanSquaredError(f, y), 5.0 / 3.0);  // (0 + 1 + 4) / 3
  EXPECT_EQ(*MeanSquaredError(y, y), 0.0);
}

TEST(RegressionMetricsTest, PropagateNanAndInfinity) {
  EXPECT_TRUE(std::isnan(*MeanAbsoluteError(std::vector<double>{kNan}, std::vector<double>{0})));
  EXPECT_EQ(*MeanSquaredError(std::vector<double>{kInf}, std::vector<double>{0}), kInf);
}

TEST(RegressionMetricsTest, RejectsSizeMismatchAndEmpty) {
  EXPECT_EQ(MeanAbsoluteError(std::vector<double>{1}, std::vector<double>{1, 2}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MeanSquaredError({}, {}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bbo::ml
