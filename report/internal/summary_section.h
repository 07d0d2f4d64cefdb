#ifndef BBO_REPORT_INTERNAL_SUMMARY_SECTION_H_
#define BBO_REPORT_INTERNAL_SUMMARY_SECTION_H_

// The summary at the top of the HTML report: title, metadata, how scores read, warnings and a
// navigation bar. Pure and thread-safe.

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace bbo::scoring::internal {

// One section of the page. `html` is "" when the report has nothing for it (the page then
// leaves it out, and so does the navigation bar).
struct Section {
  const char* id;
  const char* title;
  std::string html;
};

// The summary of `report`; its navigation bar links every non-empty section of `sections`.
std::string RenderSummary(const nlohmann::json& report, const std::vector<Section>& sections);

}  // namespace bbo::scoring::internal

#endif  // BBO_REPORT_INTERNAL_SUMMARY_SECTION_H_
