// Per-family checks of the models on tiny hand-made data, where the right answer is known.

#include <cmath>
#include <numeric>
#include <opencv2/ml.hpp>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "problems/ml/generated_datasets.h"
#include "problems/ml/internal/model.h"
#include "problems/ml/internal/opencv_util.h"
#include "problems/ml/internal/prepared_dataset.h"

namespace bbo::ml_internal {
namespace {

const Model& Get(const std::string& id) {
  const Model* m = FindModel(id);
  if (m == nullptr) {
    ADD_FAILURE() << "no model " << id;
    return *AllModels().front();
  }
  return *m;
}

// The centre of the model's space (warped coordinates) with `overrides` applied.
Point PointFor(const Model& model, MlTask task, const Point& overrides = {}) {
  absl::StatusOr<SearchSpace> space = SearchSpace::FromJson(model.ApiConfig(task));
  EXPECT_TRUE(space.ok()) << space.status();
  std::vector<double> centre;
  for (const auto& [lo, hi] : space->WarpedBounds()) centre.push_back(0.5 * (lo + hi));
  Point p = space->Unwarp(centre);
  for (const auto& [k, v] : overrides) {
    EXPECT_TRUE(p.count(k)) << model.id() << " has no parameter " << k;
    p[k] = v;
  }
  EXPECT_TRUE(space->Validate(p).ok()) << space->Validate(p);
  return p;
}

// 1-d data: n points per class, class c around 4c (well separated), deterministic.
struct Toy {
  std::vector<float> x;
  std::vector<int> y;
  int cols = 1;
  Rows rows() const { return {x.data(), static_cast<int>(y.size()), cols}; }
  ClassificationTrainSet set(int k) const { return {rows(), y, k}; }
};

Toy Separable(int classes, int per_class) {
  Toy t;
  for (int c = 0; c < classes; ++c) {
    for (int i = 0; i < per_class; ++i) {
      t.x.push_back(4.0f * c + 0.1f * i - 0.05f * per_class);
      t.y.push_back(c);
    }
  }
  return t;
}

// 2-d data: class c around the vertex (4 cos(2 pi c / k), 4 sin(2 pi c / k)) of a regular
// polygon, so each class is linearly separable from the rest (which 1-d data with k > 2 is not).
Toy Polygon(int classes, int per_class) {
  Toy t;
  t.cols = 2;
  for (int c = 0; c < classes; ++c) {
    const double angle = 2 * M_PI * c / classes;
    for (int i = 0; i < per_class; ++i) {
      t.x.push_back(static_cast<float>(4 * std::cos(angle) + 0.1 * (i % 3)));
      t.x.push_back(static_cast<float>(4 * std::sin(angle) + 0.1 * (i / 3)));
      t.y.push_back(c);
    }
  }
  return t;
}

// Error rate of row-major probabilities against labels (argmax, ties to the lowest class).
double Errors(const std::vector<double>& p, const std::vector<int>& y, int k) {
  int wrong = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const auto row = p.begin() + i * k;
    wrong += static_cast<int>(std::max_element(row, row + k) - row) != y[i];
  }
  return static_cast<double>(wrong) / y.size();
}

void ExpectDistributions(const std::vector<double>& p, int k) {
  ASSERT_EQ(p.size() % k, 0u);
  for (size_t r = 0; r < p.size(); r += k) {
    double sum = 0;
    for (int j = 0; j < k; ++j) {
      EXPECT_GE(p[r + j], 0.0);
      sum += p[r + j];
    }
    EXPECT_NEAR(sum, 1.0, 1e-9);
  }
}

TEST(ModelsTest, RegistryHasEveryFamilyWithValidSpaces) {
  std::vector<std::string> ids;
  for (const auto& m : AllModels()) {
    ids.emplace_back(m->id());
    EXPECT_EQ(std::string(m->id()).find('_'), std::string::npos);
    for (MlTask task : {MlTask::kClassification, MlTask::kRegression}) {
      if (!m->Supports(task)) continue;
      EXPECT_TRUE(SearchSpace::FromJson(m->ApiConfig(task)).ok()) << m->id();
    }
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"svm", "svm-kernel", "dt", "rf", "ada", "knn", "mlp",
                                           "logreg", "xgb"}));
  EXPECT_FALSE(Get("ada").Supports(MlTask::kRegression));
  EXPECT_FALSE(Get("logreg").Supports(MlTask::kRegression));
  EXPECT_EQ(FindModel("nope"), nullptr);
}

TEST(CouplePairwiseTest, RecoversConsistentProbabilities) {
  const std::vector<double> q = {0.5, 0.3, 0.15, 0.05};
  std::vector<double> r(16, 0.5);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      if (i != j) r[i * 4 + j] = q[i] / (q[i] + q[j]);
    }
  }
  const std::vector<double> p = CouplePairwise(r, 4);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(p[i], q[i], 1e-12);
}

TEST(CouplePairwiseTest, TwoClassesKeepThePairwiseProbability) {
  const std::vector<double> p = CouplePairwise({0.5, 0.8, 0.2, 0.5}, 2);
  EXPECT_NEAR(p[0], 0.8, 1e-12);
  EXPECT_NEAR(p[1], 0.2, 1e-12);
}

TEST(CouplePairwiseTest, CertainPairsGiveANearlyCertainClass) {
  // Class 1 beats both others with certainty; 0 vs 2 is a coin flip. Averaging would give 2/3.
  std::vector<double> r = {0.5, 0.0, 0.5,  //
                           1.0, 0.5, 1.0,  //
                           0.5, 0.0, 0.5};
  const std::vector<double> p = CouplePairwise(r, 3);
  EXPECT_GT(p[1], 0.999);
  EXPECT_NEAR(p[0], p[2], 1e-12);
}

TEST(KnnModelTest, UniformAndDistanceWeightedVotesMatchHandValues) {
  // Training x = 0 (class 0), 1 and 3 (class 1); query 0.5. k = 3.
  Toy t{{0, 1, 3}, {0, 1, 1}};
  const float q = 0.5f;
  const Model& knn = Get("knn");
  std::vector<double> p =
      knn.FitPredictProba(t.set(2), {&q, 1, 1},
                          PointFor(knn, MlTask::kClassification,
                                   {{"n_neighbors", int64_t{3}}, {"distance_weighted", false}}),
                          1);
  EXPECT_NEAR(p[0], 1.0 / 3, 1e-12);
  EXPECT_NEAR(p[1], 2.0 / 3, 1e-12);
  // Weights 1/0.5, 1/0.5, 1/2.5 = 2, 2, 0.4.
  p = knn.FitPredictProba(t.set(2), {&q, 1, 1},
                          PointFor(knn, MlTask::kClassification,
                                   {{"n_neighbors", int64_t{3}}, {"distance_weighted", true}}),
                          1);
  EXPECT_NEAR(p[0], 2.0 / 4.4, 1e-6);
  EXPECT_NEAR(p[1], 2.4 / 4.4, 1e-6);
}

TEST(KnnModelTest, ExactMatchTakesAllTheDistanceWeight) {
  Toy t{{0, 1, 3}, {0, 1, 1}};
  const float q = 1.0f;
  const Model& knn = Get("knn");
  const std::vector<double> p =
      knn.FitPredictProba(t.set(2), {&q, 1, 1},
                          PointFor(knn, MlTask::kClassification,
                                   {{"n_neighbors", int64_t{3}}, {"distance_weighted", true}}),
                          1);
  EXPECT_EQ(p, (std::vector<double>{0.0, 1.0}));
}

TEST(KnnModelTest, RegressionAveragesTheNeighbours) {
  const std::vector<float> x = {0, 1, 2}, y = {0, 10, 20};
  const float q = 0.4f;
  const Model& knn = Get("knn");
  const RegressionTrainSet train{{x.data(), 3, 1}, y};
  EXPECT_NEAR(knn.FitPredict(train, {&q, 1, 1},
                             PointFor(knn, MlTask::kRegression,
                                      {{"n_neighbors", int64_t{2}}, {"distance_weighted", false}}),
                             1)[0],
              5.0, 1e-6);
  // Weights 1/0.4 and 1/0.6: (2.5 * 0 + 10 / 0.6) / (2.5 + 1 / 0.6) = 4.
  EXPECT_NEAR(knn.FitPredict(train, {&q, 1, 1},
                             PointFor(knn, MlTask::kRegression,
                                      {{"n_neighbors", int64_t{2}}, {"distance_weighted", true}}),
                             1)[0],
              4.0, 1e-5);
  // k larger than the training set is capped: the mean of all three.
  EXPECT_NEAR(knn.FitPredict(train, {&q, 1, 1},
                             PointFor(knn, MlTask::kRegression,
                                      {{"n_neighbors", int64_t{25}}, {"distance_weighted", false}}),
                             1)[0],
              10.0, 1e-5);
}

TEST(DecisionTreeModelTest, LeafProbabilitiesAreTrainingClassFrequencies) {
  // Labels 0,0,1,0 at x = 0..3. The best depth-1 Gini split is x <= 1.5 (weighted impurity 1/4
  // against 1/3 for the others): left {0, 0}, right {1, 0}.
  Toy t{{0, 1, 2, 3}, {0, 0, 1, 0}};
  const std::vector<float> q = {0.2f, 3.0f};
  const Model& dt = Get("dt");
  const std::vector<double> p =
      dt.FitPredictProba(t.set(2), {q.data(), 2, 1},
                         PointFor(dt, MlTask::kClassification,
                                  {{"max_depth", int64_t{1}}, {"min_samples_split", int64_t{2}}}),
                         1);
  EXPECT_EQ(p, (std::vector<double>{1.0, 0.0, 0.5, 0.5}));
}

TEST(DecisionTreeModelTest, LeafWalkAgreesWithOpenCvPredict) {
  ml::ClassificationSpec spec;
  spec.num_samples = 300;
  spec.flip_y = 0.0;
  absl::StatusOr<Dataset> d = ml::MakeClassificationDataset(spec);
  ASSERT_TRUE(d.ok());
  std::vector<int> labels(d->targets.begin(), d->targets.end());
  const Rows x{d->features.data(), d->num_samples, d->num_features};
  const Point p = PointFor(Get("dt"), MlTask::kClassification,
                           {{"max_depth", int64_t{6}}, {"min_samples_split", int64_t{2}}});
  const std::vector<double> proba = Get("dt").FitPredictProba({x, labels, 3}, x, p, 1);
  cv::Ptr<cv::ml::DTrees> tree = cv::ml::DTrees::create();
  tree->setMaxDepth(6);
  tree->setMinSampleCount(1);  // the model's min_samples_split = 2
  tree->setCVFolds(0);
  tree->setUseSurrogates(false);
  tree->setRegressionAccuracy(0.0f);
  tree->train(MatView(x), cv::ml::ROW_SAMPLE, LabelColumn(labels));
  cv::Mat predicted;
  tree->predict(MatView(x), predicted);
  int disagree = 0;
  for (int i = 0; i < d->num_samples; ++i) {
    const auto row = proba.begin() + i * 3;
    const double best = *std::max_element(row, row + 3);
    // OpenCV's leaf label must be one of the most frequent classes of the leaf.
    disagree += row[static_cast<int>(predicted.at<float>(i))] != best;
  }
  EXPECT_EQ(disagree, 0);
}

TEST(DecisionTreeModelTest, SeparableDataAndRegressionAreFitExactly) {
  const Toy t = Separable(2, 10);
  const Model& dt = Get("dt");
  const Point p = PointFor(dt, MlTask::kClassification,
                           {{"max_depth", int64_t{15}}, {"min_samples_split", int64_t{2}}});
  EXPECT_EQ(Errors(dt.FitPredictProba(t.set(2), t.rows(), p, 1), t.y, 2), 0.0);

  const std::vector<float> x = {0, 1, 2, 3, 4}, y = {3, -1, 4, 1, -5};
  const std::vector<double> f = dt.FitPredict({{x.data(), 5, 1}, y}, {x.data(), 5, 1},
                                              PointFor(dt, MlTask::kRegression, p), 1);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(f[i], y[i], 1e-6);
}

TEST(RandomForestModelTest, VoteFractionsSeparateSeparableClasses) {
  const Toy t = Separable(3, 10);
  const Model& rf = Get("rf");
  const std::vector<double> p = rf.FitPredictProba(
      t.set(3), t.rows(),
      PointFor(rf, MlTask::kClassification,
               {{"min_samples_split", int64_t{2}}, {"n_estimators", int64_t{20}}}),
      1);
  ExpectDistributions(p, 3);
  EXPECT_EQ(Errors(p, t.y, 3), 0.0);
  // With 20 trees every fraction is a multiple of 1/20.
  for (double v : p) EXPECT_NEAR(v * 20, std::round(v * 20), 1e-9);
}

TEST(AdaBoostModelTest, EveryBoostTypeSeparatesTwoAndThreeClasses) {
  const Model& ada = Get("ada");
  for (const char* type : {"discrete", "real", "logit", "gentle"}) {
    for (int k : {2, 3}) {
      const Toy t = Separable(k, 10);
      const std::vector<double> p = ada.FitPredictProba(
          t.set(k), t.rows(),
          PointFor(ada, MlTask::kClassification,
                   {{"boost_type", std::string(type)}, {"min_samples_split", int64_t{2}}}),
          1);
      ExpectDistributions(p, k);
      EXPECT_EQ(Errors(p, t.y, k), 0.0) << type << " k=" << k;
    }
  }
}

TEST(SvmModelTest, SeparableDataReachesZeroTrainingErrorWithTheRightOrientation) {
  for (const char* id : {"svm", "svm-kernel"}) {
    const Model& svm = Get(id);
    for (int k : {2, 3}) {
      const Toy t = Polygon(k, 8);
      Point overrides = {{"C", 100.0}, {"gamma", 0.5}};
      const std::vector<double> p = svm.FitPredictProba(
          t.set(k), t.rows(), PointFor(svm, MlTask::kClassification, overrides), 1);
      ExpectDistributions(p, k);
      EXPECT_EQ(Errors(p, t.y, k), 0.0) << id << " k=" << k;
    }
  }
}

TEST(SvmModelTest, EveryKernelSeparatesTwoClasses) {
  const Toy t = Separable(2, 8);
  const Model& svm = Get("svm-kernel");
  for (const char* kernel : {"linear", "rbf", "poly", "sigmoid"}) {
    const std::vector<double> p = svm.FitPredictProba(
        t.set(2), t.rows(),
        PointFor(svm, MlTask::kClassification,
                 {{"kernel", std::string(kernel)}, {"C", 10.0}, {"gamma", 0.1}, {"coef0", 0.0}}),
        1);
    EXPECT_EQ(Errors(p, t.y, 2), 0.0) << kernel;
  }
}

TEST(SvmModelTest, TwoClassProbabilityIsSigmoidOfTwiceTheDecisionValue) {
  // Linear SVM on x = -1 (class 0) and +1 (class 1) with large C: f(x) = -x for class 0 being
  // positive, so at x = 0.5 P(class 0) = sigmoid(2 * -0.5).
  Toy t{{-1, 1}, {0, 1}};
  const float q = 0.5f;
  const Model& svm = Get("svm-kernel");
  const std::vector<double> p = svm.FitPredictProba(
      t.set(2), {&q, 1, 1},
      PointFor(svm, MlTask::kClassification, {{"kernel", std::string("linear")}, {"C", 1000.0}}),
      1);
  EXPECT_NEAR(p[0], 1.0 / (1.0 + std::exp(1.0)), 1e-4);
  EXPECT_NEAR(p[1], 1.0 - p[0], 1e-12);
}

TEST(SvmModelTest, RegressionFollowsALine) {
  std::vector<float> x, y;
  for (int i = 0; i < 21; ++i) {
    x.push_back(-1.0f + 0.1f * i);
    y.push_back(-1.0f + 0.1f * i);
  }
  const Model& svm = Get("svm-kernel");
  const std::vector<double> f =
      svm.FitPredict({{x.data(), 21, 1}, y}, {x.data(), 21, 1},
                     PointFor(svm, MlTask::kRegression,
                              {{"kernel", std::string("linear")}, {"C", 100.0}, {"epsilon", 0.01}}),
                     1);
  for (int i = 0; i < 21; ++i) EXPECT_NEAR(f[i], y[i], 0.02);
}

TEST(MlpModelTest, SeparableDataReachesZeroTrainingError) {
  const Model& mlp = Get("mlp");
  for (int k : {2, 3}) {
    const Toy t = Polygon(k, 10);
    const std::vector<double> p =
        mlp.FitPredictProba(t.set(k), t.rows(),
                            PointFor(mlp, MlTask::kClassification,
                                     {{"hidden_units", int64_t{8}},
                                      {"activation", std::string("sigmoid_sym")},
                                      {"learning_rate", 0.1},
                                      {"epochs", int64_t{50}}}),
                            1);
    ExpectDistributions(p, k);
    EXPECT_EQ(Errors(p, t.y, k), 0.0) << "k=" << k;
  }
}

TEST(LogRegModelTest, SeparableDataReachesZeroTrainingError) {
  const Model& lr = Get("logreg");
  for (const char* method : {"batch", "mini_batch"}) {
    for (int k : {2, 3}) {
      const Toy t = Polygon(k, 10);
      const std::vector<double> p =
          lr.FitPredictProba(t.set(k), t.rows(),
                             PointFor(lr, MlTask::kClassification,
                                      {{"learning_rate", 1.0},
                                       {"iterations", int64_t{300}},
                                       {"train_method", std::string(method)},
                                       {"batch_size", int64_t{5}}}),
                             1);
      ExpectDistributions(p, k);
      EXPECT_EQ(Errors(p, t.y, k), 0.0) << method << " k=" << k;
    }
  }
}

TEST(LogRegModelTest, TwoClassProbabilitiesAreMonotoneInTheFeature) {
  const Toy t = Separable(2, 10);
  const Model& lr = Get("logreg");
  const std::vector<double> p = lr.FitPredictProba(
      t.set(2), t.rows(), PointFor(lr, MlTask::kClassification, {{"learning_rate", 0.1}}), 1);
  for (size_t i = 1; i < t.y.size(); ++i) EXPECT_GT(p[2 * i + 1], p[2 * (i - 1) + 1]);
}

TEST(XgbModelTest, TrivialDataIsLearned) {
  const Model& xgb = Get("xgb");
  const Point p = PointFor(xgb, MlTask::kClassification,
                           {{"learning_rate", 1.0},
                            {"min_child_weight", 0.01},
                            {"subsample", 1.0},
                            {"colsample_bytree", 1.0},
                            {"n_rounds", int64_t{20}}});
  for (int k : {2, 3}) {
    const Toy t = Separable(k, 10);
    const std::vector<double> proba = xgb.FitPredictProba(t.set(k), t.rows(), p, 1);
    ExpectDistributions(proba, k);
    EXPECT_EQ(Errors(proba, t.y, k), 0.0) << "k=" << k;
    for (size_t i = 0; i < t.y.size(); ++i) EXPECT_GT(proba[i * k + t.y[i]], 0.9);
  }
  // A step function is fit to within 1%.
  std::vector<float> x, y;
  for (int i = 0; i < 10; ++i) {
    x.push_back(i);
    y.push_back(i < 5 ? -1.0f : 1.0f);
  }
  const std::vector<double> f = xgb.FitPredict({{x.data(), 10, 1}, y}, {x.data(), 10, 1},
                                               PointFor(xgb, MlTask::kRegression, p), 1);
  for (int i = 0; i < 10; ++i) EXPECT_NEAR(f[i], y[i], 0.01);
}

TEST(ModelsTest, EveryClassifierReturnsDistributionsOnGeneratedData) {
  ml::ClassificationSpec spec;
  spec.num_samples = 120;
  absl::StatusOr<Dataset> d = ml::MakeClassificationDataset(spec);
  ASSERT_TRUE(d.ok());
  absl::StatusOr<PreparedDataset> prepared = PrepareDataset(*d, {});
  ASSERT_TRUE(prepared.ok());
  const SplitData& s = prepared->folds[0];
  for (const auto& m : AllModels()) {
    const std::vector<double> p = m->FitPredictProba(
        {{s.train_x.data(), s.num_train, s.num_features}, s.train_labels, 3},
        {s.eval_x.data(), s.num_eval, s.num_features}, PointFor(*m, MlTask::kClassification), 1);
    ASSERT_EQ(p.size(), static_cast<size_t>(s.num_eval) * 3) << m->id();
    ExpectDistributions(p, 3);
    // Every model beats chance (2/3 error) at the centre of its space.
    EXPECT_LT(Errors(p, s.eval_labels, 3), 0.6) << m->id();
  }
}

}  // namespace
}  // namespace bbo::ml_internal
