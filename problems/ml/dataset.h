#ifndef BBO_PROBLEMS_ML_DATASET_H_
#define BBO_PROBLEMS_ML_DATASET_H_

// Dataset: a table of numeric features with one target per row, the input of every ML problem.
//
// Classification targets are class indices 0..num_classes-1 (stored as doubles); regression
// targets are real numbers. Features are stored raw: problems standardize them per split, fitting
// the scaling on the training rows only.
//
// Thread safety: a Dataset is a plain value; share it as `const`.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace bbo::ml {

enum class MlTask { kClassification, kRegression };

// "classification" or "regression".
absl::string_view MlTaskName(MlTask task);

struct Dataset {
  // Stable identifier used in problem names: "iris", "gen-clf-s1". No '_' (the name separator).
  std::string name;
  MlTask task = MlTask::kClassification;
  int num_samples = 0;
  int num_features = 0;
  // num_samples x num_features, row-major.
  std::vector<float> features;
  // num_samples targets: class index (classification) or value (regression).
  std::vector<double> targets;
  // Classification only: number of classes, and one name per class (may be empty).
  int num_classes = 0;
  std::vector<std::string> class_names;

  float feature(int row, int col) const {
    return features[static_cast<size_t>(row) * num_features + col];
  }
};

// OK iff the sizes agree, every value is finite, the name is non-empty without '_', and (for
// classification) num_classes >= 2, every target is an integer in [0, num_classes) and
// class_names is empty or has num_classes entries. Otherwise InvalidArgument naming the field.
absl::Status ValidateDataset(const Dataset& dataset);

// Number of rows of each class (classification only; empty for regression).
std::vector<int> ClassCounts(const Dataset& dataset);

}  // namespace bbo::ml

#endif  // BBO_PROBLEMS_ML_DATASET_H_
