#include "problems/ml/ml_suite.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "gtest/gtest.h"
#include "problems/ml/ml_problem.h"

namespace bbo::ml {
namespace {

bool AllClassicFilesPresent() {
  for (const char* f : {"iris.csv", "wine_data.csv", "breast_cancer.csv", "digits.csv.gz",
                        "diabetes_data_raw.csv.gz", "diabetes_target.csv.gz"}) {
    if (!std::filesystem::exists(std::string(kDefaultSklearnDataDir) + "/" + f)) return false;
  }
  return true;
}

TEST(MlSuiteTest, DefaultGridHas182Problems) {
  if (!AllClassicFilesPresent()) GTEST_SKIP() << "python3-sklearn data files not installed";
  const MlSuiteOptions options;
  const std::vector<std::string> names = MlSuiteProblemNames(options);
  // 7 classification datasets x 9 models x 2 metrics + 4 regression datasets x 7 models x 2.
  EXPECT_EQ(names.size(), 182u);
  EXPECT_EQ(MlSuiteSize(options), 182);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  for (const char* expected : {"ml_svm_wine_nll", "ml_xgb_gen-clf-s1_err", "ml_knn_diabetes_mae",
                               "ml_mlp_gen-reg-s3_mse", "ml_svm-kernel_digits_err"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
  EXPECT_EQ(std::find(names.begin(), names.end(), "ml_ada_diabetes_mae"), names.end());
  EXPECT_EQ(names.front(), "ml_svm_iris_nll");
}

TEST(MlSuiteTest, MakeMlSuiteMatchesTheNames) {
  if (!AllClassicFilesPresent()) GTEST_SKIP() << "python3-sklearn data files not installed";
  MlSuiteOptions options;
  std::vector<std::string> skipped;
  const std::vector<std::unique_ptr<Problem>> problems = MakeMlSuite(options, &skipped);
  EXPECT_TRUE(skipped.empty());
  const std::vector<std::string> names = MlSuiteProblemNames(options);
  ASSERT_EQ(problems.size(), names.size());
  for (size_t i = 0; i < problems.size(); ++i) {
    EXPECT_EQ(problems[i]->name(), names[i]);
    EXPECT_EQ(problems[i]->family(), "ml");
    EXPECT_NE(dynamic_cast<const MlProblem*>(problems[i].get()), nullptr);
  }
}

TEST(MlSuiteTest, MissingDataSkipsTheClassicDatasetsWithAMessage) {
  MlSuiteOptions options;
  options.sklearn_data_dir = "/nonexistent-sklearn-data";
  std::vector<std::string> skipped;
  const std::vector<std::unique_ptr<Problem>> problems = MakeMlSuite(options, &skipped);
  // Generated only: 3 x 9 x 2 + 3 x 7 x 2.
  EXPECT_EQ(problems.size(), 96u);
  EXPECT_EQ(MlSuiteSize(options), 96);
  ASSERT_EQ(skipped.size(), 5u);
  EXPECT_NE(skipped[0].find("dataset \"iris\" skipped: NOT_FOUND"), std::string::npos)
      << skipped[0];
  EXPECT_NE(skipped[0].find("/nonexistent-sklearn-data/iris.csv"), std::string::npos);
}

TEST(MlSuiteTest, FiltersModelsAndDatasets) {
  MlSuiteOptions options;
  options.include_classic = false;
  options.generated_seeds = {5};
  options.model_ids = {"knn", "ada"};
  EXPECT_EQ(MlSuiteProblemNames(options),
            (std::vector<std::string>{"ml_ada_gen-clf-s5_nll", "ml_ada_gen-clf-s5_err",
                                      "ml_knn_gen-clf-s5_nll", "ml_knn_gen-clf-s5_err",
                                      "ml_knn_gen-reg-s5_mae", "ml_knn_gen-reg-s5_mse"}));
  options.dataset_names = {"gen-reg-s5"};
  EXPECT_EQ(MlSuiteSize(options), 2);
  EXPECT_EQ(MlModelIds().size(), 9u);
}

TEST(MlSuiteTest, InvalidSplitOptionsSkipEveryDataset) {
  MlSuiteOptions options;
  options.include_classic = false;
  options.cv_folds = 1;
  std::vector<std::string> skipped;
  EXPECT_TRUE(MakeMlSuite(options, &skipped).empty());
  EXPECT_EQ(skipped.size(), 6u);
  EXPECT_EQ(MlSuiteSize(options), 0);
}

TEST(MlSuiteTest, EveryIrisProblemEvaluatesAtItsCentrePoint) {
  if (!AllClassicFilesPresent()) GTEST_SKIP() << "python3-sklearn data files not installed";
  MlSuiteOptions options;
  options.generated_seeds = {};
  options.dataset_names = {"iris"};
  const std::vector<std::unique_ptr<Problem>> problems = MakeMlSuite(options);
  ASSERT_EQ(problems.size(), 18u);
  for (const auto& problem : problems) {
    std::vector<double> centre;
    for (const auto& [lo, hi] : problem->space().WarpedBounds()) {
      centre.push_back(0.5 * (lo + hi));
    }
    const double value = problem->Evaluate(problem->space().Unwarp(centre));
    EXPECT_TRUE(std::isfinite(value)) << problem->name();
    EXPECT_GE(value, 0.0) << problem->name();
  }
}

}  // namespace
}  // namespace bbo::ml
