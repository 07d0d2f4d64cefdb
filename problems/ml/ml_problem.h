#ifndef BBO_PROBLEMS_ML_ML_PROBLEM_H_
#define BBO_PROBLEMS_ML_ML_PROBLEM_H_

// MlProblem: tune one model's hyperparameters on one dataset for one metric, named
// "ml_<model>_<dataset>_<metric>", e.g. "ml_svm_wine_nll", "ml_xgb_gen-clf-s1_err".
//
// The dataset is split once (see internal/prepared_dataset.h) into a held-out test part
// (test_fraction of the rows, stratified for classification) and a training part cut into k
// cross-validation folds (stratified for classification). Features are standardized per split on
// its training rows only; regression targets too, with predictions mapped back to the original
// units before scoring.
//
//  - Evaluate(point) = the visible loss: the mean over the k folds of the metric of a model fit on
//    the other k - 1 folds (k fits).
//  - EvaluateWithGeneralization(point) also returns the held-out loss: the model refit on the
//    whole training part and scored on the test part (one more fit). The optimizer never sees it;
//    it measures overfitting of the CV loss.
//
// Determinism: the splits depend only on the dataset and options.seed; the model of fold f is
// seeded with DeriveSeed(options.seed, 100 + f) and the refit with DeriveSeed(options.seed, 99),
// whatever the point, so a point always gets the same value (common random numbers).
// Thread safety: immutable; the prepared data is shared read-only and every call builds its own
// model objects, so Evaluate may run concurrently from many threads.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "problems/ml/dataset.h"
#include "problems/ml/metrics.h"
#include "problems/problem.h"

namespace bbo::ml_internal {
class Model;
struct PreparedDataset;
}  // namespace bbo::ml_internal

namespace bbo::ml {

struct MlProblemOptions {
  int cv_folds = 5;            // k >= 2
  double test_fraction = 0.2;  // held-out share of the rows, in [0, 1); 0 = no held-out loss
  uint64_t seed = 0;           // seeds the splits and the models
};

struct MlEvaluation {
  double cv_loss = 0.0;                // what Evaluate returns
  std::vector<double> fold_losses;     // one per fold; cv_loss is their mean
  std::optional<double> heldout_loss;  // unset when the problem has no held-out part
};

class MlProblem : public BuiltinProblem {
 public:
  // For MakeMlSuite / MakeMlProblem. `model` must outlive the problem (the models of
  // internal/model.h are static). Precondition: the model supports the data's task and the
  // metric fits it.
  MlProblem(std::shared_ptr<const ml_internal::PreparedDataset> data,
            const ml_internal::Model* model, MlMetric metric, uint64_t seed);
  ~MlProblem() override;

  std::string family() const override { return "ml"; }
  // "mixed integer" / "categorical" by parameter types, plus "nonsmooth" (losses are piecewise
  // constant or jumpy in the hyperparameters), the task, and "classic" or "generated" data.
  std::vector<std::string> attributes() const override;
  // Mean cross-validated loss. Throws if a model fails to train (the evaluator records +inf);
  // NaN when the model predicts NaN.
  double Evaluate(const Point& canonical_point) const override;
  // The CV loss and the held-out loss (k + 1 fits). Throws like Evaluate.
  ProblemEvaluation EvaluateWithHeldOut(const Point& canonical_point) const override;

  // Evaluate plus the per-fold losses and the held-out loss. Internal naming the model, dataset
  // and the library's message when a fit fails; InvalidArgument naming the parameter for a
  // point that is not canonical for space().
  absl::StatusOr<MlEvaluation> EvaluateWithGeneralization(const Point& canonical_point) const;

  absl::string_view model_id() const;
  const std::string& dataset_name() const;
  MlTask task() const;
  MlMetric metric() const { return metric_; }
  int cv_folds() const;

 private:
  double FoldLoss(int fold, const Point& p) const;
  double HeldoutLoss(const Point& p) const;

  std::shared_ptr<const ml_internal::PreparedDataset> data_;
  const ml_internal::Model* model_;
  MlMetric metric_;
  uint64_t seed_;
};

// One problem: `dataset` x the model called `model_id` x `metric`. InvalidArgument when the
// dataset or options are invalid or the metric does not fit the dataset's task; NotFound for an
// unknown model id; FailedPrecondition when the model does not support the task.
absl::StatusOr<std::unique_ptr<MlProblem>> MakeMlProblem(const Dataset& dataset,
                                                         absl::string_view model_id,
                                                         MlMetric metric,
                                                         const MlProblemOptions& options);

// "ml_<model>_<dataset>_<metric>".
std::string MlProblemName(absl::string_view model_id, absl::string_view dataset_name,
                          MlMetric metric);

}  // namespace bbo::ml

#endif  // BBO_PROBLEMS_ML_ML_PROBLEM_H_
