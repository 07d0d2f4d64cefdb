// Logistic regression: cv::ml::LogisticRegression (one-vs-rest gradient descent for K > 2).
//
// OpenCV steps by alpha / m times the mean gradient over the m rows of a batch; this model
// passes alpha = learning_rate * m, so learning_rate is the step on the mean gradient whatever
// the dataset size. OpenCV's penalty is fixed (lambda = 1, adding theta / m to the mean gradient,
// identical for its L1 and L2 settings), so regularization is a bool.
//
// Probabilities: RAW_OUTPUT gives sigmoid(theta_k . x) per class (one column, P(class 1), for two
// classes); the one-vs-rest columns are normalized to sum to 1.

#include <memory>
#include <opencv2/ml.hpp>
#include <stdexcept>
#include <string>

#include "problems/internal/params.h"
#include "problems/ml/internal/model.h"
#include "problems/ml/internal/opencv_util.h"

namespace bbo::ml_internal {
namespace {

using problems_internal::BoolParam;
using problems_internal::CatParam;
using problems_internal::IntParam;
using problems_internal::RealParam;

class LogRegModel : public Model {
 public:
  absl::string_view id() const override { return "logreg"; }
  std::string description() const override { return "logistic regression"; }
  bool Supports(MlTask task) const override { return task == MlTask::kClassification; }
  nlohmann::json ApiConfig(MlTask) const override {
    return {
        {"learning_rate", {{"type", "real"}, {"space", "log"}, {"range", {1e-3, 10.0}}}},
        {"iterations", {{"type", "int"}, {"space", "log"}, {"range", {10, 1000}}}},
        {"regularized", {{"type", "bool"}}},
        {"train_method", {{"type", "cat"}, {"values", {"batch", "mini_batch"}}}},
        {"batch_size", {{"type", "int"}, {"space", "log"}, {"range", {1, 64}}}},
    };
  }

  std::vector<double> FitPredictProba(const ClassificationTrainSet& train, Rows test,
                                      const Point& p, uint64_t seed) const override {
    SeedOpenCvRng(seed);
    cv::Ptr<cv::ml::LogisticRegression> lr = cv::ml::LogisticRegression::create();
    const int iterations = static_cast<int>(IntParam(p, "iterations"));
    const std::string& method = CatParam(p, "train_method");
    int rows_per_step;
    if (method == "batch") {
      lr->setTrainMethod(cv::ml::LogisticRegression::BATCH);
      rows_per_step = train.x.rows;
    } else if (method == "mini_batch") {
      lr->setTrainMethod(cv::ml::LogisticRegression::MINI_BATCH);
      rows_per_step = static_cast<int>(std::min<int64_t>(IntParam(p, "batch_size"), train.x.rows));
      lr->setMiniBatchSize(rows_per_step);
    } else {
      throw std::invalid_argument("parameter \"train_method\": unknown value \"" + method + "\"");
    }
    lr->setLearningRate(RealParam(p, "learning_rate") * rows_per_step);
    lr->setIterations(iterations);
    // Mini-batch descent counts its steps with the term criteria, batch descent with iterations.
    lr->setTermCriteria(cv::TermCriteria(cv::TermCriteria::COUNT, iterations, 0.0));
    lr->setRegularization(BoolParam(p, "regularized") ? cv::ml::LogisticRegression::REG_L2
                                                      : cv::ml::LogisticRegression::REG_DISABLE);
    std::vector<float> labels(train.labels.begin(), train.labels.end());
    lr->train(MatView(train.x), cv::ml::ROW_SAMPLE, FloatColumn(labels));
    cv::Mat raw;
    lr->predict(MatView(test), raw, cv::ml::StatModel::RAW_OUTPUT);
    const int k = train.num_classes;
    std::vector<double> proba(static_cast<size_t>(test.rows) * k);
    if (k == 2) {
      for (int i = 0; i < test.rows; ++i) {
        const double p1 = raw.at<float>(i, 0);
        proba[static_cast<size_t>(i) * 2] = 1.0 - p1;
        proba[static_cast<size_t>(i) * 2 + 1] = p1;
      }
    } else {
      proba = ToDoubles(raw);
    }
    NormalizeRows(proba, k);
    return proba;
  }
};

}  // namespace

std::unique_ptr<Model> MakeLogRegModel() { return std::make_unique<LogRegModel>(); }

}  // namespace bbo::ml_internal
