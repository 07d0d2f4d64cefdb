#ifndef BBO_COMMON_STUDY_BUDGET_H_
#define BBO_COMMON_STUDY_BUDGET_H_

// The shape and time budget of one study, shared by the coordinator (which enforces it), the
// worker (which passes it to the optimizer) and `bbo local`. Defaults are the NeurIPS 2020 BBO
// challenge's (Turner et al. 2021, §3): 16 batches of 8 points, 40 s per turn, 640 s per study.
// A plain value type.

#include "absl/status/status.h"

namespace bbo {

// Upper bounds on a study's shape: every request, store row and report is sized by them.
inline constexpr int kMaxBatchSize = 1024;
inline constexpr int kMaxBatches = 1000;

struct StudyBudget {
  int batch_size = 8;            // points per batch
  int n_batches = 16;            // batches per study
  double suggest_budget_s = 40;  // optimizer seconds for one turn (observe + suggest)
  double study_budget_s = 640;   // optimizer seconds for the whole study

  // OK, or InvalidArgument naming the first field that is out of range (sizes in
  // [1, kMaxBatchSize] and [1, kMaxBatches], budgets finite or +inf and > 0).
  absl::Status Validate() const;

  friend bool operator==(const StudyBudget&, const StudyBudget&) = default;
};

}  // namespace bbo

#endif  // BBO_COMMON_STUDY_BUDGET_H_
