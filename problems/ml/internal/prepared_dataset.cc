#include "problems/ml/internal/prepared_dataset.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "problems/ml/internal/random.h"

namespace bbo::ml_internal {
namespace {

// Seed streams, so the test split and the fold assignment draw independent permutations.
constexpr uint64_t kTestSplitStream = 1;
constexpr uint64_t kFoldStream = 2;

// Rows of `rows` grouped by class (classification) or as a single group (regression).
std::vector<std::vector<int>> GroupRows(const Dataset& dataset, const std::vector<int>& rows) {
  if (dataset.task != MlTask::kClassification) return {rows};
  std::vector<std::vector<int>> groups(dataset.num_classes);
  for (int r : rows) groups[static_cast<int>(dataset.targets[r])].push_back(r);
  return groups;
}

struct Moments {
  double mean = 0.0;
  double scale = 1.0;
};

// Mean and population standard deviation; scale 1 when the values are constant.
template <typename Get>
Moments ComputeMoments(const std::vector<int>& rows, Get get) {
  Moments m;
  if (rows.empty()) return m;
  double sum = 0.0;
  for (int r : rows) sum += get(r);
  m.mean = sum / rows.size();
  double ss = 0.0;
  for (int r : rows) {
    const double d = get(r) - m.mean;
    ss += d * d;
  }
  const double sd = std::sqrt(ss / rows.size());
  m.scale = sd > 0.0 ? sd : 1.0;
  return m;
}

std::vector<float> ScaledRows(const Dataset& dataset, const std::vector<int>& rows,
                              const std::vector<Moments>& moments) {
  const int d = dataset.num_features;
  std::vector<float> out(rows.size() * d);
  for (size_t i = 0; i < rows.size(); ++i) {
    for (int j = 0; j < d; ++j) {
      out[i * d + j] =
          static_cast<float>((dataset.feature(rows[i], j) - moments[j].mean) / moments[j].scale);
    }
  }
  return out;
}

}  // namespace

TrainTestRows SplitTrainTest(const Dataset& dataset, double test_fraction, uint64_t seed) {
  std::vector<int> all(dataset.num_samples);
  for (int i = 0; i < dataset.num_samples; ++i) all[i] = i;
  Rng rng(DeriveSeed(seed, kTestSplitStream));
  TrainTestRows out;
  for (std::vector<int>& group : GroupRows(dataset, all)) {
    rng.Shuffle(group);
    const size_t n_test =
        static_cast<size_t>(std::llround(static_cast<double>(group.size()) * test_fraction));
    out.test.insert(out.test.end(), group.begin(), group.begin() + n_test);
    out.train.insert(out.train.end(), group.begin() + n_test, group.end());
  }
  std::sort(out.train.begin(), out.train.end());
  std::sort(out.test.begin(), out.test.end());
  return out;
}

std::vector<int> AssignFolds(const Dataset& dataset, const std::vector<int>& rows, int k,
                             uint64_t seed) {
  std::vector<int> position_of_row(dataset.num_samples, -1);
  for (size_t i = 0; i < rows.size(); ++i) position_of_row[rows[i]] = static_cast<int>(i);
  Rng rng(DeriveSeed(seed, kFoldStream));
  std::vector<int> fold(rows.size());
  // The counter runs on across classes, so fold sizes differ by at most one overall and each
  // class is spread over the folds as evenly as possible.
  int counter = 0;
  for (std::vector<int>& group : GroupRows(dataset, rows)) {
    rng.Shuffle(group);
    for (int r : group) fold[position_of_row[r]] = counter++ % k;
  }
  return fold;
}

SplitData MakeSplit(const Dataset& dataset, const std::vector<int>& train_rows,
                    const std::vector<int>& eval_rows) {
  SplitData s;
  s.num_train = static_cast<int>(train_rows.size());
  s.num_eval = static_cast<int>(eval_rows.size());
  s.num_features = dataset.num_features;
  std::vector<Moments> moments(dataset.num_features);
  for (int j = 0; j < dataset.num_features; ++j) {
    moments[j] = ComputeMoments(train_rows, [&](int r) { return dataset.feature(r, j); });
  }
  s.train_x = ScaledRows(dataset, train_rows, moments);
  s.eval_x = ScaledRows(dataset, eval_rows, moments);
  if (dataset.task == MlTask::kClassification) {
    for (int r : train_rows) s.train_labels.push_back(static_cast<int>(dataset.targets[r]));
    for (int r : eval_rows) s.eval_labels.push_back(static_cast<int>(dataset.targets[r]));
  } else {
    const Moments t = ComputeMoments(train_rows, [&](int r) { return dataset.targets[r]; });
    s.target_mean = t.mean;
    s.target_scale = t.scale;
    for (int r : train_rows) {
      s.train_targets.push_back(static_cast<float>((dataset.targets[r] - t.mean) / t.scale));
    }
    for (int r : eval_rows) s.eval_targets.push_back(dataset.targets[r]);
  }
  return s;
}

absl::StatusOr<PreparedDataset> PrepareDataset(const Dataset& dataset,
                                               const SplitOptions& options) {
  if (absl::Status s = ml::ValidateDataset(dataset); !s.ok()) return s;
  if (!(options.test_fraction >= 0.0 && options.test_fraction < 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("test_fraction must be in [0, 1), got ", options.test_fraction));
  }
  if (options.folds < 2) {
    return absl::InvalidArgumentError(absl::StrCat("folds must be >= 2, got ", options.folds));
  }
  TrainTestRows rows = SplitTrainTest(dataset, options.test_fraction, options.seed);
  if (static_cast<int>(rows.train.size()) < options.folds) {
    return absl::InvalidArgumentError(
        absl::StrCat("folds (", options.folds, ") exceeds the ", rows.train.size(),
                     " training rows of dataset \"", dataset.name, "\""));
  }

  PreparedDataset out;
  out.name = dataset.name;
  out.task = dataset.task;
  out.num_classes = dataset.num_classes;
  out.num_samples = dataset.num_samples;
  out.num_features = dataset.num_features;
  out.num_train = static_cast<int>(rows.train.size());
  out.num_test = static_cast<int>(rows.test.size());

  const std::vector<int> fold = AssignFolds(dataset, rows.train, options.folds, options.seed);
  for (int f = 0; f < options.folds; ++f) {
    std::vector<int> fit_rows, eval_rows;
    for (size_t i = 0; i < rows.train.size(); ++i) {
      (fold[i] == f ? eval_rows : fit_rows).push_back(rows.train[i]);
    }
    out.folds.push_back(MakeSplit(dataset, fit_rows, eval_rows));
  }
  if (!rows.test.empty()) out.holdout = MakeSplit(dataset, rows.train, rows.test);
  return out;
}

}  // namespace bbo::ml_internal
