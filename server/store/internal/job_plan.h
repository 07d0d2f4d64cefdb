#ifndef BBO_SERVER_STORE_INTERNAL_JOB_PLAN_H_
#define BBO_SERVER_STORE_INTERNAL_JOB_PLAN_H_

// The jobs a new submission queues, shared by the Store implementations so that both queue the
// same jobs with the same seeds in the same order. Internal to server/store/.

#include <cstdint>
#include <string>
#include <vector>

#include "server/store/records.h"

namespace bbo::store_internal {

struct PlannedJob {
  std::string problem;
  int trial = 0;
  int64_t seed = 0;
  std::string board;
};

// One job per board x trial x problem, in queue order: board by board, trial-major, so that
// partial results cover every problem early and the phase's own board finishes first. The seed
// depends on `seed_base`, the submission id, the trial and the problem's index, not the board
// (boards are paired).
std::vector<PlannedJob> PlanJobs(int64_t submission_id, int trials,
                                 const std::vector<std::string>& problems, int64_t seed_base,
                                 const std::vector<std::string>& boards);

}  // namespace bbo::store_internal

#endif  // BBO_SERVER_STORE_INTERNAL_JOB_PLAN_H_
