#include "report/report_files.h"

#include "absl/strings/str_cat.h"
#include "report/report_csv.h"
#include "report/report_html.h"

namespace bbo::scoring {

absl::StatusOr<std::vector<ReportFile>> RenderReportFiles(const nlohmann::json& report,
                                                          const std::string& format) {
  std::vector<ReportFile> files;
  if (format == "json") {
    files.push_back({"report.json", "application/json", report.dump(1) + "\n"});
  } else if (format == "html") {
    files.push_back({"report.html", "text/html; charset=utf-8", RenderReportHtml(report)});
  } else if (format == "csv") {
    for (auto& [name, content] : ReportCsv(report)) {
      files.push_back({name, "text/csv", std::move(content)});
    }
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("format: \"", format, "\" is not one of html, json, csv"));
  }
  return files;
}

}  // namespace bbo::scoring
