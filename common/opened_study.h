#ifndef BBO_COMMON_OPENED_STUDY_H_
#define BBO_COMMON_OPENED_STUDY_H_

// A study as its optimizer sees it: what the coordinator's StudyManager opens, what
// bbo.v1.OpenStudyResponse carries over the wire, and what the worker hands to the optimizer's
// `start` message. The optimizer never sees the problem, only this. A plain value type.

#include <cstdint>

#include "common/optimizer_limits.h"
#include "common/study_budget.h"
#include "nlohmann/json.hpp"

namespace bbo {

struct OpenedStudy {
  int64_t study_id = 0;
  // The search space as a Bayesmark api_config (anonymized in hidden phases).
  nlohmann::json api_config;
  StudyBudget budget;
  // Optimizer seconds left in the study budget.
  double remaining_s = 0;
  // What the worker lets the optimizer use (the phase's settings).
  OptimizerLimits limits;
};

}  // namespace bbo

#endif  // BBO_COMMON_OPENED_STUDY_H_
