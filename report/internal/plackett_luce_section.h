#ifndef BBO_REPORT_INTERNAL_PLACKETT_LUCE_SECTION_H_
#define BBO_REPORT_INTERNAL_PLACKETT_LUCE_SECTION_H_

// The "Bayesian ranking over time (Plackett-Luce)" section of the HTML report, from
// report["plackett_luce"] (layout "bbo-arena/plackett-luce/1", docs/plackett-luce.md): each
// method's rating theta (its posterior probability of being the best method on a random run)
// after every batch with its credible band, and a table of the anytime Pareto set, P(Pareto
// member), the final posterior mean with its band and which method eliminated which. The same
// plot and table render the coordinator's optimizer-seconds view, report["plackett_luce_seconds"]
// (server/plackett_luce_seconds.h), worded for the clock its JSON names ("anytime.unit"). Pure
// apart from assigning styles; not thread-safe for a shared `styles`.

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "report/internal/method_styles.h"

namespace bbo::scoring::internal {

// "" when the report has no "plackett_luce" object (a report from an older server); the
// explanation and the recorded reason when the ranking was not computed ("error"); otherwise
// the plot (at most kMaxLines methods, in the page-wide `styles`) and the table (every method).
std::string RenderPlackettLuce(const std::vector<MethodRow>& rows, const nlohmann::json& report,
                               MethodStyles& styles);

// The "Bayesian ranking over optimizer time (Plackett-Luce)" section from
// report["plackett_luce_seconds"], as RenderPlackettLuce: "" when the key is absent (reports
// computed offline from results CSVs, which carry no timings). Its chart draws timepoint k at
// x = k, which on the log-spaced grid is a log scale of time; a caption gives each timepoint's
// time.
std::string RenderPlackettLuceSeconds(const std::vector<MethodRow>& rows,
                                      const nlohmann::json& report, MethodStyles& styles);

}  // namespace bbo::scoring::internal

#endif  // BBO_REPORT_INTERNAL_PLACKETT_LUCE_SECTION_H_
