#ifndef BBO_SERVER_INTERNAL_WORKER_TEXT_H_
#define BBO_SERVER_INTERNAL_WORKER_TEXT_H_

// What StudyManager's files share: how long a worker's text may be, and +inf.

#include <cstddef>
#include <limits>
#include <string>

#include "absl/strings/string_view.h"
#include "common/utf8.h"

namespace bbo::study_manager_internal {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Longest text from a worker (or the optimizer behind it) that is stored or echoed, bytes: the
// coordinator does not trust workers' strings either (docs/hosting-protocol.md, "Limits").
inline constexpr size_t kMaxWorkerTextBytes = 8u << 10;

inline std::string Bounded(absl::string_view text) {
  return TruncateUtf8(text, kMaxWorkerTextBytes);
}

}  // namespace bbo::study_manager_internal

#endif  // BBO_SERVER_INTERNAL_WORKER_TEXT_H_
