#include "common/optimizer_limits.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace bbo {

absl::Status OptimizerLimits::Validate() const {
  if (!std::isfinite(cpus)) {
    return absl::InvalidArgumentError(absl::StrCat("optimizer_cpus must be finite, got ", cpus));
  }
  if (tmp_mb < 1) {
    return absl::InvalidArgumentError("optimizer_tmp_mb must be >= 1 MiB, got 0");
  }
  if (memory_mb != 0 && tmp_mb > memory_mb) {
    return absl::InvalidArgumentError(absl::StrCat("optimizer_tmp_mb (", tmp_mb,
                                                   " MiB) must not exceed optimizer_memory_mb (",
                                                   memory_mb, " MiB): /tmp counts as memory"));
  }
  return absl::OkStatus();
}

std::string FormatMebibytes(uint64_t mib) {
  if (mib < 1024 || mib % 512 != 0) return absl::StrCat(mib, " MiB");
  if (mib % 1024 == 0) return absl::StrCat(mib / 1024, " GiB");
  return absl::StrFormat("%.1f GiB", mib / 1024.0);
}

}  // namespace bbo
