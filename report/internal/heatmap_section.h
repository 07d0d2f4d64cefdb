#ifndef BBO_REPORT_INTERNAL_HEATMAP_SECTION_H_
#define BBO_REPORT_INTERNAL_HEATMAP_SECTION_H_

// The per-problem heatmap of the HTML report. Pure and thread-safe.

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "report/internal/method_styles.h"

namespace bbo::scoring::internal {

// One SVG cell per method (rows, leaderboard order) and problem (columns: report["problems"]
// first, then problems only a method row mentions), coloured by ScoreColor, hatched grey where
// there is no score, with a <title> per cell. "" when no method row lists a problem.
std::string RenderHeatmap(const std::vector<MethodRow>& rows, const nlohmann::json& report);

}  // namespace bbo::scoring::internal

#endif  // BBO_REPORT_INTERNAL_HEATMAP_SECTION_H_
