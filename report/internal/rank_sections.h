#ifndef BBO_REPORT_INTERNAL_RANK_SECTIONS_H_
#define BBO_REPORT_INTERNAL_RANK_SECTIONS_H_

// The ranking sections of the HTML report: bootstrap rank confidence (table, most frequent
// rankings, rank-distribution bars) and the nonparametric Borda tables, overall and by group.
// Each returns "" when the report has nothing for it. Pure and thread-safe.

#include <string>

#include "nlohmann/json.hpp"
#include "report/internal/method_styles.h"

namespace bbo::scoring::internal {

// From report["bootstrap"].
std::string RenderBootstrap(const nlohmann::json& report);

// From report["nonparametric"]; `styles` marks baseline rows.
std::string RenderBorda(const nlohmann::json& report, const MethodStyles& styles);

}  // namespace bbo::scoring::internal

#endif  // BBO_REPORT_INTERNAL_RANK_SECTIONS_H_
