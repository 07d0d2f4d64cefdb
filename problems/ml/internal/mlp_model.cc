// Multi-layer perceptron: cv::ml::ANN_MLP trained by on-line back-propagation with momentum.
//
// Only BACKPROP is offered: OpenCV's RPROP accumulates gradients from parallel chunks in
// thread-scheduling order, so its result is not reproducible, and its RELU activations diverge to
// NaN on standardized data. ANN_MLP seeds its own weight initialization and shuffling with a fixed
// RNG, so a fit is deterministic.
//
// Probabilities: classification trains K outputs on one-hot 0/1 targets (mean squared error, so
// each output estimates P(class | x)); the outputs are clipped to [1e-3, 1] and normalized to
// sum to 1. The floor keeps a confidently wrong network at a finite loss (-log 1e-3 = 6.9 per
// row), as sklearn's softmax MLP never predicts exactly 0 either. Regression has one output on
// the standardized target.

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

// Training also stops once an epoch changes the summed squared error by less than this (per row).
constexpr double kEpochTolerance = 1e-5;
constexpr double kMinOutput = 1e-3;

cv::Ptr<cv::ml::ANN_MLP> FitMlp(const Point& p, uint64_t seed, Rows x, const cv::Mat& targets) {
  SeedOpenCvRng(seed);
  cv::Ptr<cv::ml::ANN_MLP> mlp = cv::ml::ANN_MLP::create();
  const int hidden = static_cast<int>(IntParam(p, "hidden_units"));
  const int layers = static_cast<int>(IntParam(p, "hidden_layers"));
  cv::Mat sizes(layers + 2, 1, CV_32S);
  sizes.at<int>(0) = x.cols;
  for (int l = 1; l <= layers; ++l) sizes.at<int>(l) = hidden;
  sizes.at<int>(layers + 1) = targets.cols;
  mlp->setLayerSizes(sizes);
  const std::string& activation = CatParam(p, "activation");
  if (activation == "sigmoid_sym") {
    mlp->setActivationFunction(cv::ml::ANN_MLP::SIGMOID_SYM);
  } else if (activation == "gaussian") {
    mlp->setActivationFunction(cv::ml::ANN_MLP::GAUSSIAN);
  } else {
    throw std::invalid_argument("parameter \"activation\": unknown value \"" + activation + "\"");
  }
  mlp->setTrainMethod(cv::ml::ANN_MLP::BACKPROP, RealParam(p, "learning_rate"),
                      RealParam(p, "momentum"));
  mlp->setTermCriteria(cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS,
                                        static_cast<int>(IntParam(p, "epochs")), kEpochTolerance));
  mlp->train(MatView(x), cv::ml::ROW_SAMPLE, targets);
  return mlp;
}

class MlpModel : public Model {
 public:
  absl::string_view id() const override { return "mlp"; }
  std::string description() const override { return "multi-layer perceptron (backprop)"; }
  bool Supports(MlTask) const override { return true; }
  nlohmann::json ApiConfig(MlTask) const override {
    return {
        {"hidden_units", {{"type", "int"}, {"space", "log"}, {"range", {2, 32}}}},
        {"hidden_layers", {{"type", "int"}, {"space", "linear"}, {"range", {1, 2}}}},
        {"activation", {{"type", "cat"}, {"values", {"sigmoid_sym", "gaussian"}}}},
        // OpenCV clamps the back-propagation step to [1e-3, 1].
        {"learning_rate", {{"type", "real"}, {"space", "log"}, {"range", {1e-3, 1.0}}}},
        {"momentum", {{"type", "real"}, {"space", "linear"}, {"range", {0.0, 0.95}}}},
        {"epochs", {{"type", "int"}, {"space", "log"}, {"range", {5, 50}}}},
    };
  }

  std::vector<double> FitPredictProba(const ClassificationTrainSet& train, Rows test,
                                      const Point& p, uint64_t seed) const override {
    const int k = train.num_classes;
    cv::Mat one_hot = cv::Mat::zeros(train.x.rows, k, CV_32F);
    for (int i = 0; i < train.x.rows; ++i) one_hot.at<float>(i, train.labels[i]) = 1.0f;
    cv::Ptr<cv::ml::ANN_MLP> mlp = FitMlp(p, seed, train.x, one_hot);
    cv::Mat out;
    mlp->predict(MatView(test), out);
    std::vector<double> proba = ToDoubles(out);
    // NaN (a diverged fit) fails both comparisons and stays NaN, so the loss becomes +inf.
    for (double& v : proba) v = v < kMinOutput ? kMinOutput : (v > 1.0 ? 1.0 : v);
    NormalizeRows(proba, k);
    return proba;
  }

  std::vector<double> FitPredict(const RegressionTrainSet& train, Rows test, const Point& p,
                                 uint64_t seed) const override {
    cv::Ptr<cv::ml::ANN_MLP> mlp = FitMlp(p, seed, train.x, FloatColumn(train.targets));
    return Predict(*mlp, test);
  }
};

}  // namespace

std::unique_ptr<Model> MakeMlpModel() { return std::make_unique<MlpModel>(); }

}  // namespace bbo::ml_internal
