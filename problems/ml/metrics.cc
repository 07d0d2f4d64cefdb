#include "problems/ml/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace bbo::ml {
namespace {

absl::Status CheckClassification(absl::Span<const double> probabilities,
                                 absl::Span<const int> labels, int num_classes) {
  if (num_classes < 1) {
    return absl::InvalidArgumentError(absl::StrCat("num_classes must be >= 1, got ", num_classes));
  }
  if (labels.empty()) return absl::InvalidArgumentError("labels is empty");
  if (probabilities.size() != labels.size() * num_classes) {
    return absl::InvalidArgumentError(absl::StrCat("probabilities has ", probabilities.size(),
                                                   " values, expected ", labels.size(),
                                                   " labels x ", num_classes, " classes"));
  }
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] < 0 || labels[i] >= num_classes) {
      return absl::InvalidArgumentError(
          absl::StrCat("labels[", i, "] = ", labels[i], " is outside [0, ", num_classes, ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckRegression(absl::Span<const double> predictions,
                             absl::Span<const double> targets) {
  if (targets.empty()) return absl::InvalidArgumentError("targets is empty");
  if (predictions.size() != targets.size()) {
    return absl::InvalidArgumentError(absl::StrCat("predictions has ", predictions.size(),
                                                   " values, targets has ", targets.size()));
  }
  return absl::OkStatus();
}

bool AnyNan(absl::Span<const double> v) {
  return std::any_of(v.begin(), v.end(), [](double x) { return std::isnan(x); });
}

}  // namespace

absl::string_view MetricId(MlMetric metric) {
  switch (metric) {
    case MlMetric::kNll:
      return "nll";
    case MlMetric::kErrorRate:
      return "err";
    case MlMetric::kMae:
      return "mae";
    case MlMetric::kMse:
      return "mse";
  }
  return "?";
}

absl::string_view MetricDescription(MlMetric metric) {
  switch (metric) {
    case MlMetric::kNll:
      return "negative log-likelihood";
    case MlMetric::kErrorRate:
      return "error rate";
    case MlMetric::kMae:
      return "mean absolute error";
    case MlMetric::kMse:
      return "mean squared error";
  }
  return "?";
}

MlTask MetricTask(MlMetric metric) {
  return metric == MlMetric::kNll || metric == MlMetric::kErrorRate ? MlTask::kClassification
                                                                    : MlTask::kRegression;
}

std::vector<MlMetric> MetricsFor(MlTask task) {
  if (task == MlTask::kClassification) return {MlMetric::kNll, MlMetric::kErrorRate};
  return {MlMetric::kMae, MlMetric::kMse};
}

absl::StatusOr<double> NegativeLogLikelihood(absl::Span<const double> probabilities,
                                             absl::Span<const int> labels, int num_classes) {
  if (absl::Status s = CheckClassification(probabilities, labels, num_classes); !s.ok()) return s;
  if (AnyNan(probabilities)) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0.0;
  for (size_t i = 0; i < labels.size(); ++i) {
    const double p = probabilities[i * num_classes + labels[i]];
    sum -= std::log(std::clamp(p, kMinProbability, 1.0));
  }
  return sum / static_cast<double>(labels.size());
}

absl::StatusOr<double> ErrorRate(absl::Span<const double> probabilities,
                                 absl::Span<const int> labels, int num_classes) {
  if (absl::Status s = CheckClassification(probabilities, labels, num_classes); !s.ok()) return s;
  if (AnyNan(probabilities)) return std::numeric_limits<double>::quiet_NaN();
  int errors = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    const double* row = &probabilities[i * num_classes];
    // max_element returns the first maximum: ties go to the lowest class index.
    const int predicted = static_cast<int>(std::max_element(row, row + num_classes) - row);
    if (predicted != labels[i]) ++errors;
  }
  return static_cast<double>(errors) / static_cast<double>(labels.size());
}

absl::StatusOr<double> MeanAbsoluteError(absl::Span<const double> predictions,
                                         absl::Span<const double> targets) {
  if (absl::Status s = CheckRegression(predictions, targets); !s.ok()) return s;
  double sum = 0.0;
  for (size_t i = 0; i < targets.size(); ++i) sum += std::fabs(predictions[i] - targets[i]);
  return sum / static_cast<double>(targets.size());
}

absl::StatusOr<double> MeanSquaredError(absl::Span<const double> predictions,
                                        absl::Span<const double> targets) {
  if (absl::Status s = CheckRegression(predictions, targets); !s.ok()) return s;
  double sum = 0.0;
  for (size_t i = 0; i < targets.size(); ++i) {
    const double e = predictions[i] - targets[i];
    sum += e * e;
  }
  return sum / static_cast<double>(targets.size());
}

}  // namespace bbo::ml
