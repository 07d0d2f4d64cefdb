#include "problems/ml/ml_problem.h"

#include <cmath>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "problems/ml/generated_datasets.h"

namespace bbo::ml {
namespace {

// Four 1-d points; with cv_folds = 4 and no held-out part every fold leaves one point out.
Dataset FourPoints(std::vector<double> labels) {
  Dataset d;
  d.name = "four";
  d.task = MlTask::kClassification;
  d.num_classes = 2;
  d.num_features = 1;
  d.num_samples = 4;
  d.features = {0, 1, 10, 11};
  d.targets = std::move(labels);
  return d;
}

Point KnnPoint(int64_t k) { return {{"n_neighbors", k}, {"distance_weighted", false}}; }

std::unique_ptr<MlProblem> Make(const Dataset& d, const char* model, MlMetric metric,
                                MlProblemOptions options = {}) {
  absl::StatusOr<std::unique_ptr<MlProblem>> p = MakeMlProblem(d, model, metric, options);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : nullptr;
}

Dataset SmallClassification(uint64_t seed = 1) {
  ClassificationSpec spec;
  spec.num_samples = 120;
  spec.seed = seed;
  return *MakeClassificationDataset(spec);
}

Point CentrePoint(const Problem& problem) {
  std::vector<double> centre;
  for (const auto& [lo, hi] : problem.space().WarpedBounds()) centre.push_back(0.5 * (lo + hi));
  return problem.space().Unwarp(centre);
}

TEST(MlProblemTest, LeaveOneOutOneNearestNeighbourErrorIsHandComputable) {
  const MlProblemOptions loo{.cv_folds = 4, .test_fraction = 0.0};
  // Labels 0,0,1,1: each point's nearest neighbour shares its class -> error 0.
  auto easy = Make(FourPoints({0, 0, 1, 1}), "knn", MlMetric::kErrorRate, loo);
  ASSERT_NE(easy, nullptr);
  EXPECT_EQ(easy->Evaluate(KnnPoint(1)), 0.0);
  // Labels 0,1,0,1: each point's nearest neighbour has the other class -> error 1, and the
  // true class gets probability 0, clipped to 1e-15.
  auto hard = Make(FourPoints({0, 1, 0, 1}), "knn", MlMetric::kErrorRate, loo);
  EXPECT_EQ(hard->Evaluate(KnnPoint(1)), 1.0);
  auto hard_nll = Make(FourPoints({0, 1, 0, 1}), "knn", MlMetric::kNll, loo);
  EXPECT_NEAR(hard_nll->Evaluate(KnnPoint(1)), -std::log(1e-15), 1e-9);
  // k = 3 on labels 0,0,1,1: leaving 0 out, its neighbours 1, 10, 11 vote 1/3 for class 0.
  EXPECT_NEAR(easy->Evaluate(KnnPoint(3)), 1.0, 1e-12);
  auto easy_nll = Make(FourPoints({0, 0, 1, 1}), "knn", MlMetric::kNll, loo);
  EXPECT_NEAR(easy_nll->Evaluate(KnnPoint(3)), std::log(3.0), 1e-9);
}

TEST(MlProblemTest, DecisionTreeOnSeparableOneDimensionalDataHasZeroCvError) {
  // Class 0 at x = 0..9, class 1 at x = 100..109: any training fold's split lies in the gap.
  Dataset d;
  d.name = "steps";
  d.task = MlTask::kClassification;
  d.num_classes = 2;
  d.num_features = 1;
  for (int i = 0; i < 20; ++i) {
    d.features.push_back(static_cast<float>(i < 10 ? i : 90 + i));
    d.targets.push_back(i < 10 ? 0 : 1);
  }
  d.num_samples = 20;
  auto problem = Make(d, "dt", MlMetric::kErrorRate);
  ASSERT_NE(problem, nullptr);
  const Point p = {{"max_depth", int64_t{3}}, {"min_samples_split", int64_t{2}}};
  EXPECT_EQ(problem->Evaluate(p), 0.0);
  absl::StatusOr<MlEvaluation> full = problem->EvaluateWithGeneralization(p);
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ(full->heldout_loss, 0.0);
}

TEST(MlProblemTest, MetadataFollowsTheNamingScheme) {
  auto problem = Make(SmallClassification(), "xgb", MlMetric::kErrorRate);
  ASSERT_NE(problem, nullptr);
  EXPECT_EQ(problem->name(), "ml_xgb_gen-clf-s1_err");
  EXPECT_EQ(problem->family(), "ml");
  EXPECT_EQ(problem->known_optimum(), std::nullopt);
  EXPECT_EQ(problem->model_id(), "xgb");
  EXPECT_EQ(problem->dataset_name(), "gen-clf-s1");
  EXPECT_EQ(problem->cv_folds(), 5);
  const std::vector<std::string> tags = problem->attributes();
  EXPECT_NE(std::find(tags.begin(), tags.end(), "mixed integer"), tags.end());
  EXPECT_NE(std::find(tags.begin(), tags.end(), "classification"), tags.end());
  EXPECT_NE(std::find(tags.begin(), tags.end(), "generated"), tags.end());
  EXPECT_NE(problem->description().find("5-fold CV error rate"), std::string::npos)
      << problem->description();
  EXPECT_EQ(MlProblemName("svm", "wine", MlMetric::kNll), "ml_svm_wine_nll");
}

TEST(MlProblemTest, EvaluateWithGeneralizationAddsFoldsAndHeldoutLoss) {
  auto problem = Make(SmallClassification(), "knn", MlMetric::kNll);
  const Point p = KnnPoint(5);
  absl::StatusOr<MlEvaluation> full = problem->EvaluateWithGeneralization(p);
  ASSERT_TRUE(full.ok()) << full.status();
  ASSERT_EQ(full->fold_losses.size(), 5u);
  double mean = 0;
  for (double v : full->fold_losses) mean += v / 5;
  EXPECT_DOUBLE_EQ(full->cv_loss, mean);
  EXPECT_EQ(full->cv_loss, problem->Evaluate(p));
  ASSERT_TRUE(full->heldout_loss.has_value());
  EXPECT_TRUE(std::isfinite(*full->heldout_loss));

  auto no_holdout =
      Make(SmallClassification(), "knn", MlMetric::kNll, {.cv_folds = 3, .test_fraction = 0});
  absl::StatusOr<MlEvaluation> cv_only = no_holdout->EvaluateWithGeneralization(p);
  ASSERT_TRUE(cv_only.ok());
  EXPECT_FALSE(cv_only->heldout_loss.has_value());
  EXPECT_EQ(cv_only->fold_losses.size(), 3u);
}

TEST(MlProblemTest, EvaluateWithGeneralizationRejectsANonCanonicalPoint) {
  auto problem = Make(SmallClassification(), "knn", MlMetric::kNll);
  absl::StatusOr<MlEvaluation> r = problem->EvaluateWithGeneralization({{"n_neighbors", 3.5}});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(MlProblemTest, RegressionLossesAreInTargetUnits) {
  // y = 1000 x exactly: kNN with k = 1 between evenly spaced points is off by one step (1000 *
  // 0.1) everywhere but where a neighbour is exact; the loss must be in those units, not in
  // standardized ones.
  Dataset d;
  d.name = "line";
  d.task = MlTask::kRegression;
  d.num_features = 1;
  for (int i = 0; i < 40; ++i) {
    d.features.push_back(0.1f * i);
    d.targets.push_back(100.0 * i);
  }
  d.num_samples = 40;
  auto problem = Make(d, "knn", MlMetric::kMae, {.cv_folds = 40, .test_fraction = 0});
  // Leave-one-out with k = 1: the nearest neighbour is one step away (100), for the two end
  // points too.
  EXPECT_NEAR(problem->Evaluate(KnnPoint(1)), 100.0, 1e-3);
  auto mse = Make(d, "knn", MlMetric::kMse, {.cv_folds = 40, .test_fraction = 0});
  EXPECT_NEAR(mse->Evaluate(KnnPoint(1)), 1e4, 1.0);
}

TEST(MlProblemTest, MakeMlProblemReportsBadRequests) {
  const Dataset d = SmallClassification();
  EXPECT_EQ(MakeMlProblem(d, "nope", MlMetric::kNll, {}).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(MakeMlProblem(d, "svm", MlMetric::kMae, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeMlProblem(d, "svm", MlMetric::kNll, {.cv_folds = 1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  RegressionSpec spec;
  spec.num_samples = 50;
  const Dataset reg = *MakeRegressionDataset(spec);
  EXPECT_EQ(MakeMlProblem(reg, "ada", MlMetric::kMae, {}).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// Every model, classification and regression: the same point gives the same value twice, and
// from two threads at once.
TEST(MlProblemTest, EveryModelIsDeterministicAcrossCallsAndThreads) {
  const Dataset clf = SmallClassification();
  RegressionSpec spec;
  spec.num_samples = 100;
  const Dataset reg = *MakeRegressionDataset(spec);
  for (const Dataset* d : {&clf, &reg}) {
    const MlMetric metric = d == &clf ? MlMetric::kNll : MlMetric::kMse;
    for (const char* model :
         {"svm", "svm-kernel", "dt", "rf", "ada", "knn", "mlp", "logreg", "xgb"}) {
      absl::StatusOr<std::unique_ptr<MlProblem>> made = MakeMlProblem(*d, model, metric, {});
      if (made.status().code() == absl::StatusCode::kFailedPrecondition) continue;
      ASSERT_TRUE(made.ok()) << made.status();
      const MlProblem& problem = **made;
      const Point p = CentrePoint(problem);
      const double first = problem.Evaluate(p);
      EXPECT_TRUE(std::isfinite(first)) << problem.name();
      EXPECT_EQ(problem.Evaluate(p), first) << problem.name();
      double a = NAN, b = NAN;
      std::thread ta([&] { a = problem.Evaluate(p); });
      std::thread tb([&] { b = problem.Evaluate(p); });
      ta.join();
      tb.join();
      EXPECT_EQ(a, first) << problem.name();
      EXPECT_EQ(b, first) << problem.name();
    }
  }
}

TEST(MlProblemTest, SeedChangesTheSplits) {
  const Point p = KnnPoint(3);
  auto a = Make(SmallClassification(), "knn", MlMetric::kNll, {.seed = 1});
  auto b = Make(SmallClassification(), "knn", MlMetric::kNll, {.seed = 2});
  EXPECT_NE(a->Evaluate(p), b->Evaluate(p));
}

}  // namespace
}  // namespace bbo::ml
