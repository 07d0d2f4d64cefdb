#include "report/internal/leaderboard_section.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "report/internal/format.h"
#include "report/internal/html_parts.h"
#include "report/internal/json_view.h"

namespace bbo::scoring::internal {

using nlohmann::json;

namespace {

std::string RsEquivalent(const json& row) {
  const double evals = Num(Get(row, "rs_equivalent_evals"));
  if (!std::isfinite(evals)) return kDash;
  const std::string value = Fixed(evals, evals >= 100 ? 0 : 1);
  const std::string bound = Str(Get(row, "rs_equivalent_bound"));
  if (bound == "at_least") return absl::StrCat("&gt; ", value);
  if (bound == "at_most") return absl::StrCat("≤ ", value);
  return value;
}

}  // namespace

std::string RenderLeaderboard(const std::vector<MethodRow>& rows) {
  std::string out = HowTo(
      "Score = 100 × (1 − mean normalized performance after the last batch) (Turner et al. (2021) "
      "eq. 7): "
      "100 means the best known value of every problem was found every time, 0 means no better "
      "than one random guess (the clip value: the median of single random-search evaluations, "
      "Bayesmark's \"How scoring works\"); negative scores are worse than one random guess. ± is the error bar of the score. Median score uses the median over "
      "problems, Table 2 median the median over trials. RS-equivalent evaluations: how many "
      "random-search evaluations would do as well (&gt; N: better than the random-search sample "
      "can resolve; ≤ N: no better than that); RS efficiency divides them by the evaluations "
      "used. Rows are best first; the shaded row is the pooled random-search baseline.");
  if (rows.empty()) return absl::StrCat(out, "<p>The report has no methods.</p>\n");
  absl::StrAppend(&out, "<div class=\"scroll\"><table>\n<thead><tr>", Th("#", true), Th("Method"),
                  Th("Score", true), Th("±", true), Th("Median score", true),
                  Th("Table 2 median", true), Th("RS-equivalent evals", true),
                  Th("RS efficiency", true), Th("Complete"), "</tr></thead>\n<tbody>\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& row = *rows[i].row;
    const bool complete = !Get(row, "complete").is_boolean() || Bool(Get(row, "complete"));
    std::string cls;
    if (rows[i].baseline) cls = "baseline";
    if (!complete) absl::StrAppend(&cls, cls.empty() ? "" : " ", "incomplete");
    absl::StrAppend(&out, cls.empty() ? "<tr>" : absl::StrCat("<tr class=\"", cls, "\">"),
                    Td(absl::StrCat(i + 1), true), MethodCell(rows[i].name, rows[i].baseline),
                    Td(Fixed(Num(Get(row, "leaderboard_score")), 2), true),
                    Td(Fixed(100 * std::abs(Last(Nums(Get(row, "mean_perf_error_bar")))), 2), true),
                    Td(Fixed(Num(Get(row, "median_score")), 2), true),
                    Td(Fixed(Num(Get(row, "table2_median_score")), 2), true),
                    Td(RsEquivalent(row), true), Td(Fixed(Num(Get(row, "rs_efficiency")), 2), true),
                    "<td class=\"c\">", complete ? "yes" : "no", "</td></tr>\n");
  }
  absl::StrAppend(&out, "</tbody></table></div>\n");
  return out;
}

}  // namespace bbo::scoring::internal
