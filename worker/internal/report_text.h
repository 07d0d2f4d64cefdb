#ifndef BBO_WORKER_INTERNAL_REPORT_TEXT_H_
#define BBO_WORKER_INTERNAL_REPORT_TEXT_H_

// The text the worker sends its coordinator about a failure (worker.cc, study_hosting.cc).

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/utf8.h"

namespace bbo::worker_internal {

// Longest text the worker sends the coordinator (failure messages, end reasons), bytes: an
// optimizer message (kMaxMessageBytes) or a quoted stderr tail plus the worker's own words.
inline constexpr size_t kMaxReportBytes = 8u << 10;

// Text for the coordinator: bounded and valid UTF-8 (protobuf refuses to serialize invalid
// UTF-8), and never empty.
inline std::string ForCoordinator(const absl::Status& s, absl::string_view prefix = "") {
  std::string text = absl::StrCat(prefix, s.message());
  if (s.message().empty()) absl::StrAppend(&text, absl::StatusCodeToString(s.code()));
  return TruncateUtf8(text, kMaxReportBytes);
}

}  // namespace bbo::worker_internal

#endif  // BBO_WORKER_INTERNAL_REPORT_TEXT_H_
