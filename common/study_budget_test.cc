#include "common/study_budget.h"

#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;

TEST(StudyBudgetTest, DefaultsAreTheChallengeBudget) {
  StudyBudget b;
  EXPECT_EQ(b.batch_size, 8);
  EXPECT_EQ(b.n_batches, 16);
  EXPECT_EQ(b.suggest_budget_s, 40);
  EXPECT_EQ(b.study_budget_s, 640);
  EXPECT_TRUE(b.Validate().ok());
}

TEST(StudyBudgetTest, ValidateNamesTheFieldOutOfRange) {
  StudyBudget b;
  b.batch_size = 0;
  EXPECT_EQ(b.Validate().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(b.Validate().message(), HasSubstr("batch_size"));
  b.batch_size = kMaxBatchSize;
  EXPECT_TRUE(b.Validate().ok());
  b.batch_size = kMaxBatchSize + 1;
  EXPECT_THAT(b.Validate().message(), HasSubstr("batch_size must be in [1, 1024], got 1025"));
  b = {};
  b.n_batches = -1;
  EXPECT_THAT(b.Validate().message(), HasSubstr("n_batches"));
  b.n_batches = kMaxBatches + 1;
  EXPECT_THAT(b.Validate().message(), HasSubstr("n_batches must be in [1, 1000], got 1001"));
  b = {};
  b.suggest_budget_s = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(b.Validate().message(), HasSubstr("suggest_budget_s"));
  b = {};
  b.study_budget_s = 0;
  EXPECT_THAT(b.Validate().message(), HasSubstr("study_budget_s"));
  b = {};
  b.study_budget_s = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(b.Validate().ok());
}

}  // namespace
}  // namespace bbo
