// Tree models: cv::ml::DTrees ("dt"), cv::ml::RTrees ("rf") and cv::ml::Boost ("ada").
//
// Probabilities:
//  - dt: the class frequencies of the training rows in the leaf a test row falls into (what
//    sklearn's DecisionTreeClassifier.predict_proba returns). OpenCV only exposes the leaf's
//    majority class, so the leaves are found by walking getNodes()/getSplits() the way
//    DTrees::predict does for ordered features (x[var] <= c goes left).
//  - rf: the fraction of trees voting for each class (RTrees::getVotes).
//  - ada: OpenCV's Boost is two-class only, so K > 2 classes are fit one-vs-rest. The summed
//    weak responses F(x) (PREDICT_SUM; positive = the higher label) estimate half the log-odds
//    for Real, Gentle and Logit boosting (Friedman, Hastie & Tibshirani 2000), so
//    P(class) = sigmoid(2 F); Discrete AdaBoost's weights log((1 - err) / err) are twice as
//    large, so there P(class) = sigmoid(F). One-vs-rest scores are normalized to sum to 1.

#include <algorithm>
#include <cmath>
#include <memory>
#include <opencv2/ml.hpp>
#include <stdexcept>
#include <string>

#include "problems/internal/params.h"
#include "problems/ml/internal/model.h"
#include "problems/ml/internal/opencv_util.h"

namespace bbo::ml_internal {
namespace {

using problems_internal::CatParam;
using problems_internal::IntParam;
using problems_internal::RealParam;

int ToInt(int64_t v) { return static_cast<int>(v); }

// Settings shared by the three models: no pruning (CVFolds = 0 also keeps every node reachable
// for the leaf walk), no surrogate splits, all features ordered. `min_samples_split` has
// sklearn's meaning (a node with at least that many rows may be split); OpenCV splits only nodes
// with more than minSampleCount rows, hence the - 1.
void ConfigureTree(cv::ml::DTrees& tree, int max_depth, int min_samples_split) {
  tree.setMaxDepth(max_depth);
  tree.setMinSampleCount(min_samples_split - 1);
  tree.setCVFolds(0);
  tree.setUseSurrogates(false);
  tree.setUse1SERule(false);
  tree.setTruncatePrunedTree(false);
  tree.setRegressionAccuracy(0.0f);
}

// The node index of the leaf `row` reaches from `root`.
int FindLeaf(const std::vector<cv::ml::DTrees::Node>& nodes,
             const std::vector<cv::ml::DTrees::Split>& splits, int root, const float* row) {
  int n = root;
  while (nodes[n].split >= 0) {
    const cv::ml::DTrees::Split& split = splits[nodes[n].split];
    n = row[split.varIdx] <= split.c ? nodes[n].left : nodes[n].right;
  }
  return n;
}

nlohmann::json TreeSpace() {
  return {
      {"max_depth", {{"type", "int"}, {"space", "linear"}, {"range", {1, 15}}}},
      {"min_samples_split", {{"type", "int"}, {"space", "log"}, {"range", {2, 64}}}},
  };
}

class DecisionTreeModel : public Model {
 public:
  absl::string_view id() const override { return "dt"; }
  std::string description() const override { return "decision tree (CART)"; }
  bool Supports(MlTask) const override { return true; }
  nlohmann::json ApiConfig(MlTask) const override { return TreeSpace(); }

  std::vector<double> FitPredictProba(const ClassificationTrainSet& train, Rows test,
                                      const Point& p, uint64_t seed) const override {
    cv::Ptr<cv::ml::DTrees> tree = Fit(p, seed, MatView(train.x), LabelColumn(train.labels));
    const std::vector<cv::ml::DTrees::Node>& nodes = tree->getNodes();
    const std::vector<cv::ml::DTrees::Split>& splits = tree->getSplits();
    const int root = tree->getRoots().at(0);
    const int k = train.num_classes;
    std::vector<double> leaf_counts(nodes.size() * k, 0.0);
    for (int i = 0; i < train.x.rows; ++i) {
      const int leaf =
          FindLeaf(nodes, splits, root, train.x.data + static_cast<size_t>(i) * train.x.cols);
      leaf_counts[static_cast<size_t>(leaf) * k + train.labels[i]] += 1.0;
    }
    std::vector<double> proba(static_cast<size_t>(test.rows) * k);
    for (int i = 0; i < test.rows; ++i) {
      const int leaf =
          FindLeaf(nodes, splits, root, test.data + static_cast<size_t>(i) * test.cols);
      std::copy_n(&leaf_counts[static_cast<size_t>(leaf) * k], k,
                  &proba[static_cast<size_t>(i) * k]);
    }
    NormalizeRows(proba, k);
    return proba;
  }

  std::vector<double> FitPredict(const RegressionTrainSet& train, Rows test, const Point& p,
                                 uint64_t seed) const override {
    cv::Ptr<cv::ml::DTrees> tree = Fit(p, seed, MatView(train.x), FloatColumn(train.targets));
    return Predict(*tree, test);
  }

 private:
  static cv::Ptr<cv::ml::DTrees> Fit(const Point& p, uint64_t seed, const cv::Mat& x,
                                     const cv::Mat& y) {
    SeedOpenCvRng(seed);
    cv::Ptr<cv::ml::DTrees> tree = cv::ml::DTrees::create();
    ConfigureTree(*tree, ToInt(IntParam(p, "max_depth")), ToInt(IntParam(p, "min_samples_split")));
    tree->train(x, cv::ml::ROW_SAMPLE, y);
    return tree;
  }
};

class RandomForestModel : public Model {
 public:
  absl::string_view id() const override { return "rf"; }
  std::string description() const override { return "random forest"; }
  bool Supports(MlTask) const override { return true; }
  nlohmann::json ApiConfig(MlTask) const override {
    nlohmann::json config = TreeSpace();
    config["max_features"] = {{"type", "real"}, {"space", "linear"}, {"range", {0.05, 1.0}}};
    config["n_estimators"] = {{"type", "int"}, {"space", "log"}, {"range", {5, 200}}};
    return config;
  }

  std::vector<double> FitPredictProba(const ClassificationTrainSet& train, Rows test,
                                      const Point& p, uint64_t seed) const override {
    cv::Ptr<cv::ml::RTrees> forest = Fit(p, seed, MatView(train.x), LabelColumn(train.labels));
    // Row 0 of the votes holds the class labels of the columns; rows 1.. the vote counts.
    cv::Mat votes;
    forest->getVotes(MatView(test), votes, 0);
    const int k = train.num_classes;
    std::vector<double> proba(static_cast<size_t>(test.rows) * k, 0.0);
    for (int c = 0; c < votes.cols; ++c) {
      const int label = votes.at<int>(0, c);
      if (label < 0 || label >= k) throw std::runtime_error("RTrees::getVotes: bad class label");
      for (int i = 0; i < test.rows; ++i) {
        proba[static_cast<size_t>(i) * k + label] = votes.at<int>(i + 1, c);
      }
    }
    NormalizeRows(proba, k);
    return proba;
  }

  std::vector<double> FitPredict(const RegressionTrainSet& train, Rows test, const Point& p,
                                 uint64_t seed) const override {
    cv::Ptr<cv::ml::RTrees> forest = Fit(p, seed, MatView(train.x), FloatColumn(train.targets));
    return Predict(*forest, test);
  }

 private:
  static cv::Ptr<cv::ml::RTrees> Fit(const Point& p, uint64_t seed, const cv::Mat& x,
                                     const cv::Mat& y) {
    SeedOpenCvRng(seed);
    cv::Ptr<cv::ml::RTrees> forest = cv::ml::RTrees::create();
    ConfigureTree(*forest, ToInt(IntParam(p, "max_depth")),
                  ToInt(IntParam(p, "min_samples_split")));
    const int active =
        std::clamp(static_cast<int>(std::lround(RealParam(p, "max_features") * x.cols)), 1, x.cols);
    forest->setActiveVarCount(active);
    forest->setCalculateVarImportance(false);
    forest->setTermCriteria(
        cv::TermCriteria(cv::TermCriteria::MAX_ITER, ToInt(IntParam(p, "n_estimators")), 0.0));
    forest->train(x, cv::ml::ROW_SAMPLE, y);
    return forest;
  }
};

class AdaBoostModel : public Model {
 public:
  absl::string_view id() const override { return "ada"; }
  std::string description() const override { return "AdaBoost (boosted trees)"; }
  bool Supports(MlTask task) const override { return task == MlTask::kClassification; }
  nlohmann::json ApiConfig(MlTask) const override {
    return {
        {"boost_type", {{"type", "cat"}, {"values", {"discrete", "real", "logit", "gentle"}}}},
        {"n_estimators", {{"type", "int"}, {"space", "log"}, {"range", {5, 100}}}},
        {"max_depth", {{"type", "int"}, {"space", "linear"}, {"range", {1, 5}}}},
        {"min_samples_split", {{"type", "int"}, {"space", "log"}, {"range", {2, 64}}}},
    };
  }

  std::vector<double> FitPredictProba(const ClassificationTrainSet& train, Rows test,
                                      const Point& p, uint64_t seed) const override {
    const std::string& type_name = CatParam(p, "boost_type");
    int type;
    double scale = 2.0;  // sigmoid(2 F) for half-log-odds estimators
    if (type_name == "discrete") {
      type = cv::ml::Boost::DISCRETE;
      scale = 1.0;
    } else if (type_name == "real") {
      type = cv::ml::Boost::REAL;
    } else if (type_name == "logit") {
      type = cv::ml::Boost::LOGIT;
    } else if (type_name == "gentle") {
      type = cv::ml::Boost::GENTLE;
    } else {
      throw std::invalid_argument("parameter \"boost_type\": unknown value \"" + type_name + "\"");
    }
    const int k = train.num_classes;
    const cv::Mat x = MatView(train.x), test_mat = MatView(test);
    std::vector<double> proba(static_cast<size_t>(test.rows) * k, 0.0);
    // Two classes: one model for class 1. More: one model per class against the rest.
    const int first = k == 2 ? 1 : 0;
    for (int c = first; c < k; ++c) {
      std::vector<int> labels(train.labels.size());
      for (size_t i = 0; i < labels.size(); ++i) labels[i] = train.labels[i] == c ? 1 : 0;
      SeedOpenCvRng(seed);
      cv::Ptr<cv::ml::Boost> boost = cv::ml::Boost::create();
      ConfigureTree(*boost, ToInt(IntParam(p, "max_depth")),
                    ToInt(IntParam(p, "min_samples_split")));
      boost->setBoostType(type);
      boost->setWeightTrimRate(0.0);
      boost->setWeakCount(ToInt(IntParam(p, "n_estimators")));
      boost->train(x, cv::ml::ROW_SAMPLE, LabelColumn(labels));
      cv::Mat sum;
      boost->predict(test_mat, sum, cv::ml::DTrees::PREDICT_SUM);
      for (int i = 0; i < test.rows; ++i) {
        const double q = Sigmoid(scale * sum.at<float>(i));
        proba[static_cast<size_t>(i) * k + c] = q;
        if (k == 2) proba[static_cast<size_t>(i) * k] = 1.0 - q;
      }
    }
    NormalizeRows(proba, k);
    return proba;
  }
};

}  // namespace

std::unique_ptr<Model> MakeDecisionTreeModel() { return std::make_unique<DecisionTreeModel>(); }
std::unique_ptr<Model> MakeRandomForestModel() { return std::make_unique<RandomForestModel>(); }
std::unique_ptr<Model> MakeAdaBoostModel() { return std::make_unique<AdaBoostModel>(); }

}  // namespace bbo::ml_internal
