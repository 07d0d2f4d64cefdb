#ifndef BBO_PROBLEMS_ML_METRICS_H_
#define BBO_PROBLEMS_ML_METRICS_H_

// Losses the ML problems minimize. Classification metrics take class probabilities as a
// row-major n x K matrix P (row i: the model's distribution over the K classes for sample i;
// rows are expected to sum to 1 and are not renormalized) and labels y_i in [0, K).
//
//   nll: NLL = -(1/n) sum_i log(clip(P[i][y_i], 1e-15, 1))      (sklearn's log_loss clipping)
//   err: error rate = (1/n) #{i : argmax_k P[i][k] != y_i}, ties -> the lowest class index
//   mae: (1/n) sum_i |f_i - y_i|
//   mse: (1/n) sum_i (f_i - y_i)^2
//
// Errors: InvalidArgument naming the argument when sizes disagree, n = 0, K < 1 or a label is out
// of range. A NaN prediction or probability makes the result NaN (the evaluator records +inf);
// infinite probabilities are clipped (nll) or compared as-is (err).
// Thread safety: pure functions.

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "problems/ml/dataset.h"

namespace bbo::ml {

enum class MlMetric { kNll, kErrorRate, kMae, kMse };

// The probability floor of the nll metric.
inline constexpr double kMinProbability = 1e-15;

// "nll", "err", "mae", "mse": the last component of problem names.
absl::string_view MetricId(MlMetric metric);
// "negative log-likelihood", "error rate", "mean absolute error", "mean squared error".
absl::string_view MetricDescription(MlMetric metric);
// kClassification for nll/err, kRegression for mae/mse.
MlTask MetricTask(MlMetric metric);
// {nll, err} or {mae, mse}.
std::vector<MlMetric> MetricsFor(MlTask task);

absl::StatusOr<double> NegativeLogLikelihood(absl::Span<const double> probabilities,
                                             absl::Span<const int> labels, int num_classes);
absl::StatusOr<double> ErrorRate(absl::Span<const double> probabilities,
                                 absl::Span<const int> labels, int num_classes);
absl::StatusOr<double> MeanAbsoluteError(absl::Span<const double> predictions,
                                         absl::Span<const double> targets);
absl::StatusOr<double> MeanSquaredError(absl::Span<const double> predictions,
                                        absl::Span<const double> targets);

}  // namespace bbo::ml

#endif  // BBO_PROBLEMS_ML_METRICS_H_
