#include "report/internal/summary_section.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "report/internal/format.h"
#include "report/internal/html_parts.h"
#include "report/internal/json_view.h"
#include "report/internal/method_styles.h"
#include "report/report_html.h"

namespace bbo::scoring::internal {

using nlohmann::json;

std::string RenderSummary(const json& report, const std::vector<Section>& sections) {
  const std::string phase = Str(Get(report, "phase"));
  std::string out = absl::StrCat("<h1>bbo-arena report", phase.empty() ? "" : ": ",
                                 HtmlEscape(phase), "</h1>\n<dl class=\"meta\">\n");
  auto item = [&](absl::string_view term, const std::string& value_html) {
    if (!value_html.empty())
      absl::StrAppend(&out, "<dt>", term, "</dt><dd>", value_html, "</dd>\n");
  };
  item("Phase", HtmlEscape(phase));
  item("Source", HtmlEscape(Str(Get(report, "source"))));
  item("Generated", HtmlEscape(Str(Get(report, "generated_at"))));
  const double batch_size = Num(Get(report, "batch_size"));
  const double n_batches = Num(Get(report, "n_batches"));
  if (std::isfinite(batch_size) || std::isfinite(n_batches)) {
    item("Budget", absl::StrCat(General(batch_size), " × ", General(n_batches),
                                " (suggestions per batch × batches)"));
  }
  const double alpha = Num(Get(report, "alpha"));
  if (std::isfinite(alpha)) {
    item("α", absl::StrCat(General(alpha), " (error bars and rank intervals are ",
                           General(100 * (1 - alpha)), "% intervals)"));
  }
  const std::vector<MethodRow> rows = ReadMethods(report);
  item("Methods", absl::StrCat(rows.size()));
  absl::StrAppend(&out, "</dl>\n");
  absl::StrAppend(
      &out,
      HowTo("Every score on this page is 100 × (1 − mean normalized performance) (Turner et al. "
            "(2021) "
            "eq. 7): 100 = the best known value of every problem found every time, 0 = no "
            "better than one random guess (the median of single random-search evaluations); "
            "negative = worse than one random guess. Each section below says how to read it; "
            "plots draw the best methods only, the tables list all. – marks a value that is "
            "undefined (e.g. an error bar from a single problem)."));
  const json& warnings = Arr(Get(report, "warnings"));
  if (!warnings.empty()) {
    absl::StrAppend(&out, "<div class=\"warnings\"><b>Warnings</b><ul>\n");
    for (const json& w : warnings) absl::StrAppend(&out, "<li>", HtmlEscape(Str(w)), "</li>\n");
    absl::StrAppend(&out, "</ul></div>\n");
  }
  absl::StrAppend(&out, "<nav>");
  for (const Section& s : sections) {
    if (!s.html.empty()) absl::StrAppend(&out, "<a href=\"#", s.id, "\">", s.title, "</a>");
  }
  absl::StrAppend(&out, "</nav>\n");
  return out;
}

}  // namespace bbo::scoring::internal
