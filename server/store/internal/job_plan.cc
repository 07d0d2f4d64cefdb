#include "server/store/internal/job_plan.h"

namespace bbo::store_internal {

std::vector<PlannedJob> PlanJobs(int64_t submission_id, int trials,
                                 const std::vector<std::string>& problems, int64_t seed_base,
                                 const std::vector<std::string>& boards) {
  std::vector<PlannedJob> out;
  for (const std::string& board : boards) {
    for (int t = 0; t < trials; ++t) {
      for (size_t p = 0; p < problems.size(); ++p) {
        int64_t seed =
            seed_base * 1000003 + submission_id * 7919 + t * 104729 + static_cast<int64_t>(p);
        out.push_back({problems[p], t, seed & 0x7fffffff, board});
      }
    }
  }
  return out;
}

}  // namespace bbo::store_internal
