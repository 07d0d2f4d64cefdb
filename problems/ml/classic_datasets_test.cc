#include "problems/ml/classic_datasets.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace bbo::ml {
namespace {

// The tests read Debian's python3-sklearn files; without the package they are skipped.
#define REQUIRE_SKLEARN_FILE(file)                                                    \
  if (!std::filesystem::exists(std::string(kDefaultSklearnDataDir) + "/" + (file))) { \
    GTEST_SKIP() << "python3-sklearn data file " << (file) << " is not installed";    \
  }

std::vector<int> Counts(const Dataset& d) { return ClassCounts(d); }

TEST(ClassicDatasetsTest, IrisIs150By4WithThreeClasses) {
  REQUIRE_SKLEARN_FILE("iris.csv");
  absl::StatusOr<Dataset> d = LoadIris(kDefaultSklearnDataDir);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->name, "iris");
  EXPECT_EQ(d->task, MlTask::kClassification);
  EXPECT_EQ(d->num_samples, 150);
  EXPECT_EQ(d->num_features, 4);
  EXPECT_EQ(d->num_classes, 3);
  EXPECT_EQ(d->class_names, (std::vector<std::string>{"setosa", "versicolor", "virginica"}));
  EXPECT_EQ(Counts(*d), (std::vector<int>{50, 50, 50}));
  // First row: 5.1,3.5,1.4,0.2,0.
  EXPECT_FLOAT_EQ(d->feature(0, 0), 5.1f);
  EXPECT_FLOAT_EQ(d->feature(0, 3), 0.2f);
  EXPECT_EQ(d->targets[0], 0.0);
}

TEST(ClassicDatasetsTest, WineIs178By13WithThreeClasses) {
  REQUIRE_SKLEARN_FILE("wine_data.csv");
  absl::StatusOr<Dataset> d = LoadWine(kDefaultSklearnDataDir);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_samples, 178);
  EXPECT_EQ(d->num_features, 13);
  EXPECT_EQ(Counts(*d), (std::vector<int>{59, 71, 48}));
  EXPECT_FLOAT_EQ(d->feature(0, 12), 1065.0f);
}

TEST(ClassicDatasetsTest, BreastCancerIs569By30WithTwoClasses) {
  REQUIRE_SKLEARN_FILE("breast_cancer.csv");
  absl::StatusOr<Dataset> d = LoadBreastCancer(kDefaultSklearnDataDir);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->name, "breast");
  EXPECT_EQ(d->num_samples, 569);
  EXPECT_EQ(d->num_features, 30);
  EXPECT_EQ(d->class_names, (std::vector<std::string>{"malignant", "benign"}));
  EXPECT_EQ(Counts(*d), (std::vector<int>{212, 357}));
}

TEST(ClassicDatasetsTest, DigitsIs1797By64WithTenClasses) {
  REQUIRE_SKLEARN_FILE("digits.csv.gz");
  absl::StatusOr<Dataset> d = LoadDigits(kDefaultSklearnDataDir);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_samples, 1797);
  EXPECT_EQ(d->num_features, 64);
  EXPECT_EQ(d->num_classes, 10);
  EXPECT_EQ(d->targets[0], 0.0);
  EXPECT_FLOAT_EQ(d->feature(0, 2), 5.0f);  // 0,0,5,13,9,1,...
}

TEST(ClassicDatasetsTest, DiabetesIs442By10Regression) {
  REQUIRE_SKLEARN_FILE("diabetes_data_raw.csv.gz");
  absl::StatusOr<Dataset> d = LoadDiabetes(kDefaultSklearnDataDir);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->task, MlTask::kRegression);
  EXPECT_EQ(d->num_samples, 442);
  EXPECT_EQ(d->num_features, 10);
  EXPECT_EQ(d->targets[0], 151.0);
  EXPECT_FLOAT_EQ(d->feature(0, 0), 59.0f);  // age of the first patient
}

TEST(ClassicDatasetsTest, LoadsByName) {
  REQUIRE_SKLEARN_FILE("iris.csv");
  EXPECT_EQ(ClassicDatasetNames(),
            (std::vector<std::string>{"iris", "wine", "breast", "digits", "diabetes"}));
  absl::StatusOr<Dataset> d = LoadClassicDataset("iris", kDefaultSklearnDataDir);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->num_samples, 150);
  EXPECT_EQ(LoadClassicDataset("mnist", kDefaultSklearnDataDir).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(ClassicDatasetsTest, MissingFileIsNotFoundNamingThePath) {
  const absl::StatusOr<Dataset> d = LoadIris("/nonexistent-dir");
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(d.status().message().find("/nonexistent-dir/iris.csv"), absl::string_view::npos);
  EXPECT_EQ(LoadDiabetes("/nonexistent-dir").status().code(), absl::StatusCode::kNotFound);
}

TEST(ClassicDatasetsTest, MalformedFileIsInvalidArgumentNamingTheLine) {
  const std::string dir = ::testing::TempDir() + "/bbo_ml_bad_iris";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/iris.csv") << "2,2,a,b\n1.0,2.0,0\n1.0,oops,1\n";
  absl::StatusOr<Dataset> d = LoadIris(dir);
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(d.status().message().find("line 3"), absl::string_view::npos) << d.status();

  std::ofstream(dir + "/iris.csv") << "3,2,a,b\n1.0,2.0,0\n1.0,3.0,1\n";
  EXPECT_EQ(LoadIris(dir).status().code(), absl::StatusCode::kInvalidArgument);  // row count

  std::ofstream(dir + "/iris.csv") << "2,2,a,b\n1.0,2.0,0\n1.0,3.0,2\n";
  EXPECT_EQ(LoadIris(dir).status().code(), absl::StatusCode::kInvalidArgument);  // label 2
}

}  // namespace
}  // namespace bbo::ml
