#ifndef BBO_REPORT_INTERNAL_RACING_SECTION_H_
#define BBO_REPORT_INTERNAL_RACING_SECTION_H_

// The "Racing" section of the HTML report: what the race of a racing phase did (server/race.h:
// rounds, the remaining submissions, who eliminated whom, the evaluations run against running
// everything), from report["racing"]. "" when the report has no race. Pure and thread-safe.

#include <string>

#include "nlohmann/json.hpp"

namespace bbo::scoring::internal {

std::string RenderRacing(const nlohmann::json& report);

}  // namespace bbo::scoring::internal

#endif  // BBO_REPORT_INTERNAL_RACING_SECTION_H_
