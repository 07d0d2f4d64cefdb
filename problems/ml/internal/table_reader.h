#ifndef BBO_PROBLEMS_ML_INTERNAL_TABLE_READER_H_
#define BBO_PROBLEMS_ML_INTERNAL_TABLE_READER_H_

// Reading the small text tables sklearn ships: plain or gzip-compressed, comma- or
// whitespace-separated.
//
// Thread safety: pure functions.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bbo::ml_internal {

// The whole content of `path`, decompressed if it is gzip (zlib detects the format, so plain files
// read as-is). NotFound if the file does not exist; DataLoss if it cannot be read or decompressed.
absl::StatusOr<std::string> ReadMaybeGzipFile(const std::string& path);

// The lines of `text` (without '\r' / '\n'); blank lines are dropped.
std::vector<absl::string_view> NonEmptyLines(absl::string_view text);

// Parses one line of numbers separated by commas and/or whitespace. InvalidArgument naming the
// 1-based field and `what` (e.g. "iris.csv line 3") when a field is not a number.
absl::StatusOr<std::vector<double>> ParseNumberRow(absl::string_view line, absl::string_view what);

}  // namespace bbo::ml_internal

#endif  // BBO_PROBLEMS_ML_INTERNAL_TABLE_READER_H_
