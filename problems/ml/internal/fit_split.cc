#include "problems/ml/internal/fit_split.h"

#include <stdexcept>
#include <string>

#include "absl/status/statusor.h"

namespace bbo::ml_internal {

std::vector<double> FitPredictSplit(const Model& model, MlTask task, int num_classes,
                                    const SplitData& split, const Point& p, uint64_t seed) {
  const Rows train_x{split.train_x.data(), split.num_train, split.num_features};
  const Rows eval_x{split.eval_x.data(), split.num_eval, split.num_features};
  if (task == MlTask::kRegression) {
    std::vector<double> f =
        model.FitPredict(RegressionTrainSet{train_x, split.train_targets}, eval_x, p, seed);
    if (f.size() != static_cast<size_t>(split.num_eval)) {
      throw std::runtime_error("model \"" + std::string(model.id()) +
                               "\" returned the wrong number of predictions");
    }
    for (double& v : f) v = v * split.target_scale + split.target_mean;
    return f;
  }

  // Relabel the classes present in this training split to 0..K'-1: models see every class they
  // are asked about at least once.
  std::vector<int> local_of(num_classes, -1), global_of;
  for (int y : split.train_labels) {
    if (local_of[y] < 0) local_of[y] = 0;
  }
  for (int c = 0; c < num_classes; ++c) {
    if (local_of[c] >= 0) {
      local_of[c] = static_cast<int>(global_of.size());
      global_of.push_back(c);
    }
  }
  const int k_local = static_cast<int>(global_of.size());
  std::vector<double> proba(static_cast<size_t>(split.num_eval) * num_classes, 0.0);
  if (k_local == 1) {
    for (int i = 0; i < split.num_eval; ++i) {
      proba[static_cast<size_t>(i) * num_classes + global_of[0]] = 1.0;
    }
    return proba;
  }
  std::vector<int> labels(split.train_labels.size());
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = local_of[split.train_labels[i]];
  const std::vector<double> local =
      model.FitPredictProba(ClassificationTrainSet{train_x, labels, k_local}, eval_x, p, seed);
  if (local.size() != static_cast<size_t>(split.num_eval) * k_local) {
    throw std::runtime_error("model \"" + std::string(model.id()) +
                             "\" returned the wrong number of probabilities");
  }
  for (int i = 0; i < split.num_eval; ++i) {
    for (int c = 0; c < k_local; ++c) {
      proba[static_cast<size_t>(i) * num_classes + global_of[c]] =
          local[static_cast<size_t>(i) * k_local + c];
    }
  }
  return proba;
}

double ScoreSplit(ml::MlMetric metric, const std::vector<double>& predictions,
                  const SplitData& split, int num_classes) {
  absl::StatusOr<double> score;
  switch (metric) {
    case ml::MlMetric::kNll:
      score = ml::NegativeLogLikelihood(predictions, split.eval_labels, num_classes);
      break;
    case ml::MlMetric::kErrorRate:
      score = ml::ErrorRate(predictions, split.eval_labels, num_classes);
      break;
    case ml::MlMetric::kMae:
      score = ml::MeanAbsoluteError(predictions, split.eval_targets);
      break;
    case ml::MlMetric::kMse:
      score = ml::MeanSquaredError(predictions, split.eval_targets);
      break;
  }
  if (!score.ok()) throw std::invalid_argument(std::string(score.status().message()));
  return *score;
}

}  // namespace bbo::ml_internal
