#include "problems/ml/generated_datasets.h"

#include <cmath>

#include "gtest/gtest.h"

namespace bbo::ml {
namespace {

TEST(MakeClassificationDatasetTest, HasTheRequestedShape) {
  ClassificationSpec spec;
  spec.num_samples = 300;
  spec.num_informative = 4;
  spec.num_redundant = 2;
  spec.num_noise = 3;
  spec.num_classes = 3;
  spec.seed = 7;
  absl::StatusOr<Dataset> d = MakeClassificationDataset(spec);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->name, "gen-clf-s7");
  EXPECT_EQ(d->task, MlTask::kClassification);
  EXPECT_EQ(d->num_samples, 300);
  EXPECT_EQ(d->num_features, 9);
  EXPECT_EQ(d->num_classes, 3);
  EXPECT_TRUE(ValidateDataset(*d).ok());
  // Equal shares per class before 5% label noise.
  for (int count : ClassCounts(*d)) EXPECT_NEAR(count, 100, 15);
}

TEST(MakeClassificationDatasetTest, IsDeterministicGivenTheSeed) {
  ClassificationSpec spec;
  spec.seed = 3;
  absl::StatusOr<Dataset> a = MakeClassificationDataset(spec);
  absl::StatusOr<Dataset> b = MakeClassificationDataset(spec);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->features, b->features);
  EXPECT_EQ(a->targets, b->targets);

  spec.seed = 4;
  absl::StatusOr<Dataset> c = MakeClassificationDataset(spec);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(a->features, c->features);
  EXPECT_NE(a->targets, c->targets);
}

TEST(MakeClassificationDatasetTest, FlipYZeroAndLargeSeparationGiveSeparatedClasses) {
  // One informative feature, one cluster per class at -10 / +10 (unit-ish spread), no noise
  // features: the sign of the single feature is the label.
  ClassificationSpec spec;
  spec.num_samples = 200;
  spec.num_informative = 1;
  spec.num_redundant = 0;
  spec.num_noise = 0;
  spec.num_classes = 2;
  spec.clusters_per_class = 1;
  spec.class_sep = 10.0;
  spec.flip_y = 0.0;
  absl::StatusOr<Dataset> d = MakeClassificationDataset(spec);
  ASSERT_TRUE(d.ok()) << d.status();
  // Class 0 sits on one side of 0 and class 1 on the other.
  const bool row0_positive = d->feature(0, 0) > 0;
  for (int i = 0; i < d->num_samples; ++i) {
    const bool same_class_as_row0 = d->targets[i] == d->targets[0];
    EXPECT_EQ(d->feature(i, 0) > 0, same_class_as_row0 == row0_positive) << "row " << i;
  }
}

TEST(MakeClassificationDatasetTest, RejectsImpossibleSpecsNamingTheField) {
  ClassificationSpec spec;
  spec.num_informative = 2;  // 4 vertices < 3 classes x 2 clusters
  absl::StatusOr<Dataset> d = MakeClassificationDataset(spec);
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(d.status().message().find("num_informative"), absl::string_view::npos);

  spec = ClassificationSpec();
  spec.flip_y = 1.5;
  d = MakeClassificationDataset(spec);
  EXPECT_NE(d.status().message().find("flip_y"), absl::string_view::npos);

  spec = ClassificationSpec();
  spec.num_classes = 1;
  EXPECT_EQ(MakeClassificationDataset(spec).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(MakeRegressionDatasetTest, HasTheRequestedShapeAndIsDeterministic) {
  RegressionSpec spec;
  spec.num_samples = 50;
  spec.num_features = 6;
  spec.num_informative = 3;
  spec.seed = 11;
  absl::StatusOr<Dataset> a = MakeRegressionDataset(spec);
  absl::StatusOr<Dataset> b = MakeRegressionDataset(spec);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->name, "gen-reg-s11");
  EXPECT_EQ(a->task, MlTask::kRegression);
  EXPECT_EQ(a->num_samples, 50);
  EXPECT_EQ(a->num_features, 6);
  EXPECT_EQ(a->features, b->features);
  EXPECT_EQ(a->targets, b->targets);
  spec.seed = 12;
  absl::StatusOr<Dataset> c = MakeRegressionDataset(spec);
  EXPECT_NE(a->targets, c->targets);
}

TEST(MakeRegressionDatasetTest, WithoutInformativeFeaturesAndNoiseTheTargetIsTheBias) {
  RegressionSpec spec;
  spec.num_informative = 0;
  spec.noise = 0.0;
  spec.bias = 2.5;
  absl::StatusOr<Dataset> d = MakeRegressionDataset(spec);
  ASSERT_TRUE(d.ok());
  for (double y : d->targets) EXPECT_EQ(y, 2.5);
}

TEST(MakeRegressionDatasetTest, NoiseIsTheResidualStandardDeviation) {
  // With one informative feature y = w x + noise; regress y on each feature and check the
  // residual spread of the best one.
  RegressionSpec spec;
  spec.num_samples = 4000;
  spec.num_features = 3;
  spec.num_informative = 1;
  spec.noise = 2.0;
  absl::StatusOr<Dataset> d = MakeRegressionDataset(spec);
  ASSERT_TRUE(d.ok());
  double best_rss = INFINITY;
  for (int j = 0; j < 3; ++j) {
    double sxx = 0, sxy = 0;
    for (int i = 0; i < d->num_samples; ++i) {
      sxx += d->feature(i, j) * d->feature(i, j);
      sxy += d->feature(i, j) * d->targets[i];
    }
    const double w = sxy / sxx;
    double rss = 0;
    for (int i = 0; i < d->num_samples; ++i) {
      const double r = d->targets[i] - w * d->feature(i, j);
      rss += r * r;
    }
    best_rss = std::min(best_rss, rss);
  }
  EXPECT_NEAR(std::sqrt(best_rss / d->num_samples), 2.0, 0.1);
}

TEST(MakeRegressionDatasetTest, RejectsBadSpecs) {
  RegressionSpec spec;
  spec.num_informative = 30;  // > num_features
  absl::StatusOr<Dataset> d = MakeRegressionDataset(spec);
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(d.status().message().find("num_informative"), absl::string_view::npos);
  spec = RegressionSpec();
  spec.noise = -1;
  EXPECT_EQ(MakeRegressionDataset(spec).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bbo::ml
