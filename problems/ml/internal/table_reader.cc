#include "problems/ml/internal/table_reader.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace bbo::ml_internal {

absl::StatusOr<std::string> ReadMaybeGzipFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return absl::NotFoundError(absl::StrCat("file not found: ", path));
  }
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    return absl::DataLossError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  std::string content;
  char buffer[1 << 16];
  for (;;) {
    const int n = gzread(file, buffer, sizeof(buffer));
    if (n < 0) {
      int errnum = 0;
      std::string message = gzerror(file, &errnum);
      gzclose(file);
      return absl::DataLossError(absl::StrCat("cannot read ", path, ": ", message));
    }
    if (n == 0) break;
    content.append(buffer, n);
  }
  gzclose(file);
  return content;
}

std::vector<absl::string_view> NonEmptyLines(absl::string_view text) {
  std::vector<absl::string_view> lines;
  for (absl::string_view line : absl::StrSplit(text, absl::ByAnyChar("\r\n"), absl::SkipEmpty())) {
    if (!absl::StripAsciiWhitespace(line).empty()) lines.push_back(line);
  }
  return lines;
}

absl::StatusOr<std::vector<double>> ParseNumberRow(absl::string_view line, absl::string_view what) {
  std::vector<double> row;
  int field = 0;
  for (absl::string_view token : absl::StrSplit(line, absl::ByAnyChar(", \t"), absl::SkipEmpty())) {
    ++field;
    double value;
    if (!absl::SimpleAtod(token, &value)) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " field ", field, ": \"", token, "\" is not a number"));
    }
    row.push_back(value);
  }
  return row;
}

}  // namespace bbo::ml_internal
