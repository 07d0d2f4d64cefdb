#include "problems/ml/internal/prepared_dataset.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "gtest/gtest.h"

namespace bbo::ml_internal {
namespace {

// n rows per class, one feature equal to the row index, labels in blocks.
Dataset Blocks(int classes, int per_class) {
  Dataset d;
  d.name = "blocks";
  d.task = MlTask::kClassification;
  d.num_classes = classes;
  d.num_features = 1;
  d.num_samples = classes * per_class;
  for (int i = 0; i < d.num_samples; ++i) {
    d.features.push_back(static_cast<float>(i));
    d.targets.push_back(i / per_class);
  }
  return d;
}

TEST(SplitTrainTestTest, IsStratifiedAndDeterministic) {
  const Dataset d = Blocks(3, 50);
  const TrainTestRows a = SplitTrainTest(d, 0.2, 5);
  const TrainTestRows b = SplitTrainTest(d, 0.2, 5);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.test, b.test);
  ASSERT_EQ(a.test.size(), 30u);
  ASSERT_EQ(a.train.size(), 120u);
  std::vector<int> per_class(3, 0);
  for (int r : a.test) ++per_class[r / 50];
  EXPECT_EQ(per_class, (std::vector<int>{10, 10, 10}));
  EXPECT_NE(SplitTrainTest(d, 0.2, 6).test, a.test);
}

TEST(AssignFoldsTest, FoldsPartitionTheRowsAndSpreadEachClass) {
  const Dataset d = Blocks(3, 40);
  std::vector<int> rows(d.num_samples);
  for (int i = 0; i < d.num_samples; ++i) rows[i] = i;
  const std::vector<int> fold = AssignFolds(d, rows, 5, 1);
  std::vector<std::vector<int>> per_fold_class(5, std::vector<int>(3, 0));
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_GE(fold[i], 0);
    ASSERT_LT(fold[i], 5);
    ++per_fold_class[fold[i]][rows[i] / 40];
  }
  for (const auto& counts : per_fold_class) EXPECT_EQ(counts, (std::vector<int>{8, 8, 8}));
}

TEST(MakeSplitTest, StandardizesWithTrainingStatisticsOnly) {
  // Training rows x = 0 and 2 (mean 1, population std 1); the eval row x = 5 maps to 4.
  Dataset d;
  d.name = "tiny";
  d.task = MlTask::kRegression;
  d.num_features = 2;
  d.num_samples = 3;
  d.features = {0, 7, 2, 7, 5, 9};  // second feature constant on the training rows
  d.targets = {10, 30, 100};
  const SplitData s = MakeSplit(d, {0, 1}, {2});
  EXPECT_EQ(s.num_train, 2);
  EXPECT_EQ(s.num_eval, 1);
  EXPECT_EQ(s.train_x, (std::vector<float>{-1, 0, 1, 0}));
  EXPECT_EQ(s.eval_x, (std::vector<float>{4, 2}));  // constant feature: scale 1
  // Targets 10, 30: mean 20, std 10.
  EXPECT_EQ(s.train_targets, (std::vector<float>{-1, 1}));
  EXPECT_EQ(s.target_mean, 20);
  EXPECT_EQ(s.target_scale, 10);
  EXPECT_EQ(s.eval_targets, (std::vector<double>{100}));
}

TEST(PrepareDatasetTest, BuildsKFoldsAndAHoldout) {
  const Dataset d = Blocks(2, 25);
  absl::StatusOr<PreparedDataset> p = PrepareDataset(d, {.folds = 5, .test_fraction = 0.2});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->num_train, 40);
  EXPECT_EQ(p->num_test, 10);
  ASSERT_EQ(p->folds.size(), 5u);
  int eval_total = 0;
  for (const SplitData& f : p->folds) {
    EXPECT_EQ(f.num_train + f.num_eval, 40);
    eval_total += f.num_eval;
    // Standardized training features have mean 0 and std 1.
    double sum = 0, sum2 = 0;
    for (float v : f.train_x) {
      sum += v;
      sum2 += v * v;
    }
    EXPECT_NEAR(sum / f.num_train, 0.0, 1e-5);
    EXPECT_NEAR(sum2 / f.num_train, 1.0, 1e-5);
  }
  EXPECT_EQ(eval_total, 40);
  ASSERT_TRUE(p->holdout.has_value());
  EXPECT_EQ(p->holdout->num_train, 40);
  EXPECT_EQ(p->holdout->num_eval, 10);
}

TEST(PrepareDatasetTest, ZeroTestFractionHasNoHoldout) {
  absl::StatusOr<PreparedDataset> p =
      PrepareDataset(Blocks(2, 4), {.folds = 8, .test_fraction = 0.0});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->holdout.has_value());
  for (const SplitData& f : p->folds) EXPECT_EQ(f.num_eval, 1);  // leave-one-out
}

TEST(PrepareDatasetTest, RejectsBadOptionsNamingThem) {
  const Dataset d = Blocks(2, 4);
  absl::StatusOr<PreparedDataset> p = PrepareDataset(d, {.folds = 1});
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("folds"), absl::string_view::npos);
  p = PrepareDataset(d, {.folds = 9, .test_fraction = 0.0});
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  p = PrepareDataset(d, {.folds = 2, .test_fraction = 1.0});
  EXPECT_NE(p.status().message().find("test_fraction"), absl::string_view::npos);
  Dataset bad = d;
  bad.targets[0] = 5;
  EXPECT_EQ(PrepareDataset(bad, {}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bbo::ml_internal
