#ifndef BBO_REPORT_INTERNAL_LEADERBOARD_SECTION_H_
#define BBO_REPORT_INTERNAL_LEADERBOARD_SECTION_H_

// The leaderboard table of the HTML report. Pure and thread-safe.

#include <string>
#include <vector>

#include "report/internal/method_styles.h"

namespace bbo::scoring::internal {

// One row per method, best first: score, error bar, median scores, random-search equivalents
// and completeness; the baseline row is shaded. Never "": says so when there are no methods.
std::string RenderLeaderboard(const std::vector<MethodRow>& rows);

}  // namespace bbo::scoring::internal

#endif  // BBO_REPORT_INTERNAL_LEADERBOARD_SECTION_H_
