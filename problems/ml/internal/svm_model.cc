// SVMs: cv::ml::SVM C-SVC for classification, eps-SVR for regression.
//
// Probabilities: OpenCV's SVM has no probability estimates, and with RAW_OUTPUT it returns a
// decision value only for two-class models. So classification trains one binary C-SVC per class
// pair (i, j) (the same one-vs-one decomposition OpenCV uses internally), reads its decision
// value f_ij(x) (positive = class i, OpenCV's sign convention for the lower label), maps it to a
// pairwise probability r_ij = sigmoid(2 f_ij) (a fixed Platt slope: a point on the margin,
// |f| = 1, gets 0.88; fitting the slope as libsvm does would need an inner cross-validation) and
// couples the pairs into K class probabilities with Wu, Lin & Weng's method (CouplePairwise in
// model.h). Simple averaging of the r_ij would cap every probability at 2 / K.

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

// Bounds the SMO solver's work per fit; a fit that stops here is simply a worse model.
constexpr int kMaxSmoIterations = 20000;
constexpr double kPlattSlope = 2.0;

class SvmModel : public Model {
 public:
  explicit SvmModel(bool kernel_is_param) : kernel_is_param_(kernel_is_param) {}

  absl::string_view id() const override { return kernel_is_param_ ? "svm-kernel" : "svm"; }
  std::string description() const override {
    return kernel_is_param_ ? "SVM (kernel linear/rbf/poly/sigmoid)" : "SVM (RBF kernel)";
  }
  bool Supports(MlTask) const override { return true; }

  nlohmann::json ApiConfig(MlTask task) const override {
    nlohmann::json config;
    if (kernel_is_param_) {
      config = {
          {"C", {{"type", "real"}, {"space", "log"}, {"range", {1e-2, 1e3}}}},
          {"gamma", {{"type", "real"}, {"space", "log"}, {"range", {1e-4, 1.0}}}},
          {"kernel", {{"type", "cat"}, {"values", {"linear", "rbf", "poly", "sigmoid"}}}},
          {"degree", {{"type", "int"}, {"space", "linear"}, {"range", {2, 4}}}},
          {"coef0", {{"type", "real"}, {"space", "linear"}, {"range", {0.0, 1.0}}}},
      };
    } else {
      // Bayesmark's SVM space, with gamma widened upwards: features are standardized here, and
      // Bayesmark's [1e-4, 1e-3] leaves the RBF kernel nearly linear.
      config = {
          {"C", {{"type", "real"}, {"space", "log"}, {"range", {1.0, 1e3}}}},
          {"gamma", {{"type", "real"}, {"space", "log"}, {"range", {1e-4, 1.0}}}},
          {"tol", {{"type", "real"}, {"space", "log"}, {"range", {1e-5, 1e-1}}}},
      };
    }
    if (task == MlTask::kRegression) {
      // Targets are standardized, so epsilon is in units of the target's standard deviation.
      config["epsilon"] = {{"type", "real"}, {"space", "log"}, {"range", {1e-3, 1.0}}};
    }
    return config;
  }

  std::vector<double> FitPredictProba(const ClassificationTrainSet& train, Rows test,
                                      const Point& p, uint64_t seed) const override {
    SeedOpenCvRng(seed);
    const int k = train.num_classes;
    std::vector<std::vector<int>> rows_of_class(k);
    for (size_t i = 0; i < train.labels.size(); ++i) {
      rows_of_class[train.labels[i]].push_back(static_cast<int>(i));
    }
    const cv::Mat test_mat = MatView(test);
    // r[i][a * k + b] = P(class a | class a or b, row i).
    std::vector<std::vector<double>> r(test.rows, std::vector<double>(k * k, 0.5));
    for (int a = 0; a < k; ++a) {
      for (int b = a + 1; b < k; ++b) {
        std::vector<int> rows = rows_of_class[a];
        std::vector<int> labels(rows.size(), 0);
        rows.insert(rows.end(), rows_of_class[b].begin(), rows_of_class[b].end());
        labels.resize(rows.size(), 1);
        cv::Ptr<cv::ml::SVM> svm = Configure(p, cv::ml::SVM::C_SVC);
        svm->train(SelectRows(train.x, rows), cv::ml::ROW_SAMPLE, LabelColumn(labels));
        cv::Mat raw;
        svm->predict(test_mat, raw, cv::ml::StatModel::RAW_OUTPUT);
        for (int i = 0; i < test.rows; ++i) {
          const double r_ab = Sigmoid(kPlattSlope * raw.at<float>(i));
          r[i][a * k + b] = r_ab;
          r[i][b * k + a] = 1.0 - r_ab;
        }
      }
    }
    std::vector<double> proba;
    proba.reserve(static_cast<size_t>(test.rows) * k);
    for (int i = 0; i < test.rows; ++i) {
      const std::vector<double> p_i = CouplePairwise(r[i], k);
      proba.insert(proba.end(), p_i.begin(), p_i.end());
    }
    return proba;
  }

  std::vector<double> FitPredict(const RegressionTrainSet& train, Rows test, const Point& p,
                                 uint64_t seed) const override {
    SeedOpenCvRng(seed);
    cv::Ptr<cv::ml::SVM> svm = Configure(p, cv::ml::SVM::EPS_SVR);
    svm->setP(RealParam(p, "epsilon"));
    svm->train(MatView(train.x), cv::ml::ROW_SAMPLE, FloatColumn(train.targets));
    return Predict(*svm, test);
  }

 private:
  cv::Ptr<cv::ml::SVM> Configure(const Point& p, int type) const {
    cv::Ptr<cv::ml::SVM> svm = cv::ml::SVM::create();
    svm->setType(type);
    svm->setC(RealParam(p, "C"));
    svm->setGamma(RealParam(p, "gamma"));
    double tol = 1e-3;
    if (kernel_is_param_) {
      const std::string& kernel = CatParam(p, "kernel");
      if (kernel == "linear") {
        svm->setKernel(cv::ml::SVM::LINEAR);
      } else if (kernel == "rbf") {
        svm->setKernel(cv::ml::SVM::RBF);
      } else if (kernel == "poly") {
        svm->setKernel(cv::ml::SVM::POLY);
      } else if (kernel == "sigmoid") {
        svm->setKernel(cv::ml::SVM::SIGMOID);
      } else {
        throw std::invalid_argument("parameter \"kernel\": unknown value \"" + kernel + "\"");
      }
      svm->setDegree(static_cast<double>(IntParam(p, "degree")));
      svm->setCoef0(RealParam(p, "coef0"));
    } else {
      svm->setKernel(cv::ml::SVM::RBF);
      tol = RealParam(p, "tol");
    }
    svm->setTermCriteria(cv::TermCriteria(cv::TermCriteria::MAX_ITER + cv::TermCriteria::EPS,
                                          kMaxSmoIterations, tol));
    return svm;
  }

  bool kernel_is_param_;
};

}  // namespace

std::unique_ptr<Model> MakeSvmModel() { return std::make_unique<SvmModel>(false); }
std::unique_ptr<Model> MakeSvmKernelModel() { return std::make_unique<SvmModel>(true); }

}  // namespace bbo::ml_internal
