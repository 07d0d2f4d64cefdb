#include "scoring/baseline.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::scoring {
namespace {

using ::testing::HasSubstr;
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(BaselineTest, HandComputedSmallProblem) {
  // batch_size 2, n_batches 2, evals {4, 1, 3, 2}.
  ProblemBaselineInput in{{4, 1, 3, 2}, std::nullopt};
  auto b = ComputeBaseline(in, kInf, 2, 2);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->clip, 2);  // sorted 1,2,3,4: ceil(4 * 0.5) = 2nd
  // opt = 1 - 10000 ulp(1) = 1 - 10000 * 2^-52.
  EXPECT_DOUBLE_EQ(b->opt, 1 - 10000 * std::ldexp(1.0, -52));
  EXPECT_LT(b->opt, 1);
  // rand-med: m=2: q'=0.2929, ceil(1.17)=2 -> 2; m=4: q'=0.1591, ceil(0.64)=1 -> 1.
  EXPECT_THAT(b->rand_med_perf, ::testing::ElementsAre(2, 1));
  // clipped evals {2,1,2,2}; E[min of 2] = (0*2 + 1*2 + 2*2 + 3*1)/6 = 1.5; E[min of 4] = 1.
  ASSERT_EQ(b->rand_mean_perf.size(), 2u);
  EXPECT_NEAR(b->rand_mean_perf[0], 1.5, 1e-12);
  EXPECT_NEAR(b->rand_mean_perf[1], 1.0, 1e-12);
}

TEST(BaselineTest, KnownOptimumAndBestObservedLowerOpt) {
  ProblemBaselineInput in{{4, 1, 3, 2}, 0.5};
  auto b = ComputeBaseline(in, 0.75, 2, 2);
  EXPECT_DOUBLE_EQ(b->opt, 0.5 - 10000 * std::ldexp(1.0, -53));
  ProblemBaselineInput no_known{{4, 1, 3, 2}, std::nullopt};
  EXPECT_DOUBLE_EQ(ComputeBaseline(no_known, 0.75, 2, 2)->opt,
                   0.75 - 10000 * std::ldexp(1.0, -53));
}

TEST(BaselineTest, CrashedEvaluationsAreClipped) {
  // {inf, 1, 3, 2, inf, 5}: clip = sorted[ceil(3)] = 3; clipped {3,1,3,2,3,3}.
  ProblemBaselineInput in{{kInf, 1, 3, 2, kInf, 5}, std::nullopt};
  auto b = ComputeBaseline(in, kInf, 1, 2);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->clip, 3);
  EXPECT_NEAR(b->rand_mean_perf[0], 15.0 / 6.0, 1e-12);  // mean of clipped values
}

TEST(BaselineTest, RejectsUnusableInput) {
  ProblemBaselineInput few{{1, 2, 3}, std::nullopt};
  EXPECT_THAT(ComputeBaseline(few, kInf, 2, 2).status().message(), HasSubstr("at least"));
  ProblemBaselineInput nan{{1, 2, NAN, 4}, std::nullopt};
  EXPECT_EQ(ComputeBaseline(nan, kInf, 2, 2).status().code(), absl::StatusCode::kInvalidArgument);
  ProblemBaselineInput crashed{{kInf, kInf, kInf, 1}, std::nullopt};
  EXPECT_THAT(ComputeBaseline(crashed, kInf, 2, 2).status().message(), HasSubstr("median"));
  EXPECT_FALSE(ComputeBaseline(few, kInf, 0, 2).ok());
}

}  // namespace
}  // namespace bbo::scoring
