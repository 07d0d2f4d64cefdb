#include "common/study_budget.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace bbo {

absl::Status StudyBudget::Validate() const {
  if (batch_size < 1 || batch_size > kMaxBatchSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch_size must be in [1, ", kMaxBatchSize, "], got ", batch_size));
  }
  if (n_batches < 1 || n_batches > kMaxBatches) {
    return absl::InvalidArgumentError(
        absl::StrCat("n_batches must be in [1, ", kMaxBatches, "], got ", n_batches));
  }
  if (std::isnan(suggest_budget_s) || suggest_budget_s <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("suggest_budget_s must be > 0 seconds, got ", suggest_budget_s));
  }
  if (std::isnan(study_budget_s) || study_budget_s <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("study_budget_s must be > 0 seconds, got ", study_budget_s));
  }
  return absl::OkStatus();
}

}  // namespace bbo
