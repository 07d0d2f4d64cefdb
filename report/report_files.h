#ifndef BBO_REPORT_REPORT_FILES_H_
#define BBO_REPORT_REPORT_FILES_H_

// A report JSON (report/report.h layout) rendered as the files of one output format, shared by
// the scoring gRPC service and `bbo report`.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace bbo::scoring {

struct ReportFile {
  std::string name;
  std::string media_type;
  std::string content;
};

// format: "json" (report.json), "html" (report.html), "csv" (one file per table).
// InvalidArgument for any other format.
absl::StatusOr<std::vector<ReportFile>> RenderReportFiles(const nlohmann::json& report,
                                                          const std::string& format);

}  // namespace bbo::scoring

#endif  // BBO_REPORT_REPORT_FILES_H_
