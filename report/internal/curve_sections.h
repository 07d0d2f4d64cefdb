#ifndef BBO_REPORT_INTERNAL_CURVE_SECTIONS_H_
#define BBO_REPORT_INTERNAL_CURVE_SECTIONS_H_

// The line-plot sections of the HTML report, one line per method against the batch: score,
// ECDF of runtime to target, average fractional rank and attainment. Each draws at most the best
// kMaxLines methods (attainment: kMaxAttainmentMethods, baseline included) plus the baseline, in
// the page-wide `styles`, and returns "" when no drawn method has a finite value. Pure apart from
// assigning styles; not thread-safe for a shared `styles`.

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "report/internal/method_styles.h"

namespace bbo::scoring::internal {

// Score after every batch with a ± error-bar band, from each row's "mean_perf".
std::string RenderScorePlot(const std::vector<MethodRow>& rows, MethodStyles& styles);

// From report["anytime"]["methods"][m]["ecdf_runtime_to_target"].
std::string RenderEcdf(const std::vector<MethodRow>& rows, const nlohmann::json& report,
                       MethodStyles& styles);

// From report["anytime"]["methods"][m]["avg_fractional_rank"].
std::string RenderFractionalRank(const std::vector<MethodRow>& rows, const nlohmann::json& report,
                                 MethodStyles& styles);

// The median level of report["attainment"] as a score, banded by the 0.25 and 0.75 levels.
std::string RenderAttainment(const std::vector<MethodRow>& rows, const nlohmann::json& report,
                             MethodStyles& styles);

}  // namespace bbo::scoring::internal

#endif  // BBO_REPORT_INTERNAL_CURVE_SECTIONS_H_
