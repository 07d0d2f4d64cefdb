#ifndef BBO_PROBLEMS_ML_INTERNAL_MODEL_H_
#define BBO_PROBLEMS_ML_INTERNAL_MODEL_H_

// Model: one family of learners (SVM, trees, kNN, ...) with its Bayesmark-style hyperparameter
// space. A Model is stateless: every FitPredict call builds, trains and discards its own OpenCV /
// XGBoost objects, so one Model is shared by all problems and threads.
//
// Inputs are already standardized (see prepared_dataset.h); regression targets too, and
// predictions are returned in the same standardized units.
//
// Determinism: the result depends only on the data, the point and `seed`. OpenCV models reseed
// the calling thread's cv::theRNG() from `seed` before training; XGBoost gets `seed` and
// nthread = 1.
//
// Errors: the fit functions throw (cv::Exception, std::runtime_error, std::invalid_argument for a
// bad point); MlProblem turns that into +inf / a Status.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/search_space.h"
#include "nlohmann/json.hpp"
#include "problems/ml/dataset.h"

namespace bbo::ml_internal {

using ml::MlTask;

// Row-major rows x cols floats, not owned.
struct Rows {
  const float* data = nullptr;
  int rows = 0;
  int cols = 0;
};

// Precondition: labels in [0, num_classes), num_classes >= 2, every class occurs at least once.
struct ClassificationTrainSet {
  Rows x;
  absl::Span<const int> labels;
  int num_classes = 0;
};

struct RegressionTrainSet {
  Rows x;
  absl::Span<const float> targets;
};

class Model {
 public:
  virtual ~Model();

  // "svm", "svm-kernel", "dt", "rf", "ada", "knn", "mlp", "logreg", "xgb": the second component of
  // problem names (no '_').
  virtual absl::string_view id() const = 0;
  // One line for problem descriptions, e.g. "SVM (RBF kernel)".
  virtual std::string description() const = 0;
  virtual bool Supports(MlTask task) const = 0;
  // The api_config of the hyperparameters for `task`. Precondition: Supports(task).
  virtual nlohmann::json ApiConfig(MlTask task) const = 0;

  // Fits on `train` with the canonical point `p` and returns the class probabilities of the rows
  // of `test`: row-major test.rows x train.num_classes, each row a distribution. Precondition:
  // Supports(kClassification).
  virtual std::vector<double> FitPredictProba(const ClassificationTrainSet& train, Rows test,
                                              const Point& p, uint64_t seed) const;
  // Fits on `train` and returns one prediction per row of `test`. Precondition:
  // Supports(kRegression).
  virtual std::vector<double> FitPredict(const RegressionTrainSet& train, Rows test, const Point& p,
                                         uint64_t seed) const;
};

std::unique_ptr<Model> MakeSvmModel();        // "svm": RBF kernel, Bayesmark's SVM space
std::unique_ptr<Model> MakeSvmKernelModel();  // "svm-kernel": kernel is a cat parameter
std::unique_ptr<Model> MakeDecisionTreeModel();
std::unique_ptr<Model> MakeRandomForestModel();
std::unique_ptr<Model> MakeAdaBoostModel();
std::unique_ptr<Model> MakeKnnModel();
std::unique_ptr<Model> MakeMlpModel();
std::unique_ptr<Model> MakeLogRegModel();
std::unique_ptr<Model> MakeXgbModel();

// Every model, in the order above. Built once; thread-safe.
const std::vector<std::unique_ptr<Model>>& AllModels();
// The model with `id`, or nullptr.
const Model* FindModel(absl::string_view id);

// Helpers for implementations.
// Rescales each row of a row-major n x k matrix to sum to 1 after clamping negatives to 0; a row
// with no positive finite mass becomes uniform, a row holding a NaN becomes all NaN (a diverged
// model: the metric turns NaN and the evaluator records +inf).
void NormalizeRows(std::vector<double>& p, int k);
// Class probabilities from pairwise ones by Wu, Lin & Weng's second coupling method ("Probability
// estimates for multi-class classification by pairwise coupling", JMLR 5, 2004; the one libsvm
// uses): p minimizes sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2 subject to sum_i p_i = 1, where
// r[i * k + j] = P(class i | class i or j, x) and r_ji = 1 - r_ij. Solved as the (k+1) x (k+1)
// linear system [Q 1; 1' 0] [p; b] = [0; 1] with Q_ii = sum_{j != i} r_ji^2, Q_ij = -r_ji r_ij;
// r is first clipped to [1e-7, 1 - 1e-7]. Consistent inputs r_ij = q_i / (q_i + q_j) give p = q.
std::vector<double> CouplePairwise(const std::vector<double>& r, int k);
// 1 / (1 + exp(-x)), computed without overflow.
double Sigmoid(double x);

}  // namespace bbo::ml_internal

#endif  // BBO_PROBLEMS_ML_INTERNAL_MODEL_H_
