#include "problems/ml/dataset.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace bbo::ml {

absl::string_view MlTaskName(MlTask task) {
  return task == MlTask::kClassification ? "classification" : "regression";
}

absl::Status ValidateDataset(const Dataset& dataset) {
  const std::string where = absl::StrCat("dataset \"", dataset.name, "\": ");
  if (dataset.name.empty() || dataset.name.find('_') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "name must be non-empty and contain no '_'"));
  }
  if (dataset.num_samples < 1 || dataset.num_features < 1) {
    return absl::InvalidArgumentError(absl::StrCat(where, "num_samples (", dataset.num_samples,
                                                   ") and num_features (", dataset.num_features,
                                                   ") must be positive"));
  }
  if (dataset.features.size() != static_cast<size_t>(dataset.num_samples) * dataset.num_features) {
    return absl::InvalidArgumentError(absl::StrCat(where, "features has ", dataset.features.size(),
                                                   " values, expected ", dataset.num_samples, " x ",
                                                   dataset.num_features));
  }
  if (dataset.targets.size() != static_cast<size_t>(dataset.num_samples)) {
    return absl::InvalidArgumentError(absl::StrCat(where, "targets has ", dataset.targets.size(),
                                                   " values, expected ", dataset.num_samples));
  }
  for (size_t i = 0; i < dataset.features.size(); ++i) {
    if (!std::isfinite(dataset.features[i])) {
      return absl::InvalidArgumentError(absl::StrCat(where, "features[", i, "] is not finite"));
    }
  }
  for (int i = 0; i < dataset.num_samples; ++i) {
    const double y = dataset.targets[i];
    if (!std::isfinite(y)) {
      return absl::InvalidArgumentError(absl::StrCat(where, "targets[", i, "] is not finite"));
    }
    if (dataset.task == MlTask::kClassification &&
        (y != std::floor(y) || y < 0 || y >= dataset.num_classes)) {
      return absl::InvalidArgumentError(absl::StrCat(where, "targets[", i, "] = ", y,
                                                     " is not a class index in [0, ",
                                                     dataset.num_classes, ")"));
    }
  }
  if (dataset.task == MlTask::kClassification) {
    if (dataset.num_classes < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "num_classes (", dataset.num_classes, ") must be at least 2"));
    }
    if (!dataset.class_names.empty() &&
        dataset.class_names.size() != static_cast<size_t>(dataset.num_classes)) {
      return absl::InvalidArgumentError(absl::StrCat(where, "class_names has ",
                                                     dataset.class_names.size(),
                                                     " entries, expected ", dataset.num_classes));
    }
  }
  return absl::OkStatus();
}

std::vector<int> ClassCounts(const Dataset& dataset) {
  if (dataset.task != MlTask::kClassification) return {};
  std::vector<int> counts(dataset.num_classes, 0);
  for (double y : dataset.targets) ++counts[static_cast<int>(y)];
  return counts;
}

}  // namespace bbo::ml
