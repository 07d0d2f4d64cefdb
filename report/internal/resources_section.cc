#include "report/internal/resources_section.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "report/internal/format.h"
#include "report/internal/html_parts.h"
#include "report/internal/json_view.h"
#include "report/report_html.h"

namespace bbo::scoring::internal {

using nlohmann::json;

std::string RenderResources(const json& report) {
  const json& r = Get(report, "resources");
  const json& methods = Arr(Get(r, "methods"));
  const json& figures = Arr(Get(r, "figures"));
  if (methods.empty() || figures.empty()) return "";
  std::string out = HowTo(
      "What each optimizer used per batch (its suggest and the observe before it), as the "
      "worker hosting it measured it from the study's control group: the median and the "
      "maximum over all its batches on all problems and trials. Informational: the budgets "
      "are enforced on the coordinator's clock and the sandbox's limits.");
  absl::StrAppend(&out, "<table class=\"compact\"><thead><tr>", Th("submission"));
  for (const json& f : figures) {
    const std::string heading = HtmlEscape(Str(Get(f, "heading")));
    absl::StrAppend(&out, Th(absl::StrCat(heading, ", median"), true),
                    Th(absl::StrCat(heading, ", max"), true), Th("batches", true));
  }
  absl::StrAppend(&out, "</tr></thead><tbody>\n");
  for (const json& m : methods) {
    absl::StrAppend(&out, "<tr>", MethodCell(Str(Get(m, "method")), false));
    for (const json& f : figures) {
      const json& use = Get(m, Str(Get(f, "name")));
      absl::StrAppend(&out, Td(General(Num(Get(use, "median"))), true),
                      Td(General(Num(Get(use, "max"))), true),
                      Td(General(Num(Get(use, "batches"))), true));
    }
    absl::StrAppend(&out, "</tr>\n");
  }
  absl::StrAppend(&out, "</tbody></table>\n");
  return out;
}

}  // namespace bbo::scoring::internal
