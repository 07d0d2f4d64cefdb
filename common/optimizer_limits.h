#ifndef BBO_COMMON_OPTIMIZER_LIMITS_H_
#define BBO_COMMON_OPTIMIZER_LIMITS_H_

// The resources one study's optimizer may use on a worker: a phase setting of the coordinator
// (bbo-server --optimizer_memory_mb, --optimizer_max_tasks, --optimizer_cpus,
// --optimizer_tmp_mb), sent to the worker with every study (bbo.v1.OpenStudyResponse) and
// enforced there by the study's control group and its private /tmp (worker/cgroup.h,
// docs/security.md). A plain value type.

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace bbo {

struct OptimizerLimits {
  // Memory of every process of the optimizer, MiB: anonymous memory, page cache, the pages of
  // its /tmp and /dev/shm, and swap. 0 = no limit.
  uint64_t memory_mb = 4096;
  // Processes and threads alive at once. 0 = no limit.
  uint64_t max_tasks = 256;
  // CPU quota in cores (1.0 = one full core). <= 0 = no quota.
  double cpus = 1.0;
  // Size of the sandbox's /tmp, which is also its /dev/shm, MiB (counted in memory_mb too).
  uint64_t tmp_mb = 512;

  // OK, or InvalidArgument naming the first field out of range (cpus finite, tmp_mb >= 1,
  // tmp_mb <= memory_mb when both are set).
  absl::Status Validate() const;

  friend bool operator==(const OptimizerLimits&, const OptimizerLimits&) = default;
};

// "4 GiB" for 4096, "512 MiB" for 512, "1.5 GiB" for 1536.
std::string FormatMebibytes(uint64_t mib);

}  // namespace bbo

#endif  // BBO_COMMON_OPTIMIZER_LIMITS_H_
