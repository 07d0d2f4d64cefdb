#ifndef BBO_PROBLEMS_ML_INTERNAL_PREPARED_DATASET_H_
#define BBO_PROBLEMS_ML_INTERNAL_PREPARED_DATASET_H_

// A Dataset cut into the splits an ML problem fits and scores models on: a fixed held-out test
// part and k cross-validation folds over the remaining training part. Every split carries its own
// standardized copy of the rows (fit on that split's training rows only, so no statistic of the
// scored rows leaks into the model).
//
// Splits: classification data is split stratified (per class: shuffle the rows, send
// round(n_c * test_fraction) to the test part; folds are assigned round-robin over the per-class
// shuffled training rows, classes in order), regression data by one shuffle. All shuffles come
// from Rng(DeriveSeed(seed, ...)), so the same dataset and options give the same splits.
//
// Thread safety: immutable after PrepareDataset; share as std::shared_ptr<const PreparedDataset>.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "problems/ml/dataset.h"

namespace bbo::ml_internal {

using ml::Dataset;
using ml::MlTask;

// One fit-and-score unit.
struct SplitData {
  int num_train = 0;
  int num_eval = 0;
  int num_features = 0;
  // num_train x num_features, row-major: (x - mean) / std with the training rows' statistics
  // (std = 1 for a constant feature).
  std::vector<float> train_x;
  // Classification: class indices of the training rows.
  std::vector<int> train_labels;
  // Regression: standardized training targets (y - target_mean) / target_scale.
  std::vector<float> train_targets;
  // num_eval x num_features, scaled with the training statistics.
  std::vector<float> eval_x;
  // Classification: class indices of the scored rows. Regression: their raw targets.
  std::vector<int> eval_labels;
  std::vector<double> eval_targets;
  // Regression: predictions in standardized units map back as f * target_scale + target_mean.
  double target_mean = 0.0;
  double target_scale = 1.0;
};

struct SplitOptions {
  int folds = 5;               // k >= 2, at most the number of training rows
  double test_fraction = 0.2;  // in [0, 1); 0 = no held-out part
  uint64_t seed = 0;           // seeds the test split and the fold assignment
};

struct PreparedDataset {
  std::string name;
  MlTask task = MlTask::kClassification;
  int num_classes = 0;  // classification only
  int num_samples = 0;  // rows of the whole dataset
  int num_features = 0;
  int num_train = 0;  // rows of the training part (the CV folds partition them)
  int num_test = 0;   // rows of the held-out part
  std::vector<SplitData> folds;
  // Train on the whole training part, score on the held-out part; unset when num_test = 0.
  std::optional<SplitData> holdout;
};

struct TrainTestRows {
  std::vector<int> train;  // ascending row indices
  std::vector<int> test;   // ascending row indices
};

// The held-out split described above.
TrainTestRows SplitTrainTest(const Dataset& dataset, double test_fraction, uint64_t seed);

// fold[i] in [0, k) for each row index rows[i], as described above.
std::vector<int> AssignFolds(const Dataset& dataset, const std::vector<int>& rows, int k,
                             uint64_t seed);

// Builds the standardized split of `train_rows` -> `eval_rows`.
SplitData MakeSplit(const Dataset& dataset, const std::vector<int>& train_rows,
                    const std::vector<int>& eval_rows);

// Validates `dataset` and `options` (InvalidArgument naming the field: folds < 2, more folds
// than training rows, test_fraction outside [0, 1)) and builds every split.
absl::StatusOr<PreparedDataset> PrepareDataset(const Dataset& dataset, const SplitOptions& options);

}  // namespace bbo::ml_internal

#endif  // BBO_PROBLEMS_ML_INTERNAL_PREPARED_DATASET_H_
