#ifndef BBO_REPORT_INTERNAL_RESOURCES_SECTION_H_
#define BBO_REPORT_INTERNAL_RESOURCES_SECTION_H_

// The "Optimizer resources" section of the HTML report: per submission, each per-batch figure
// its hosts measured (median and maximum per batch), from report["resources"]
// (report/resources.h). "" when no figure was measured (a results CSV without them, hosts
// without control groups). Pure and thread-safe.

#include <string>

#include "nlohmann/json.hpp"

namespace bbo::scoring::internal {

std::string RenderResources(const nlohmann::json& report);

}  // namespace bbo::scoring::internal

#endif  // BBO_REPORT_INTERNAL_RESOURCES_SECTION_H_
