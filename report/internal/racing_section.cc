#include "report/internal/racing_section.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "report/internal/format.h"
#include "report/internal/html_parts.h"
#include "report/internal/json_view.h"
#include "report/report_html.h"

namespace bbo::scoring::internal {

using nlohmann::json;

namespace {

// 5120 -> "5,120".
std::string Grouped(double v) {
  std::string digits = General(v);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return digits;
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

}  // namespace

std::string RenderRacing(const json& report) {
  const json& r = Get(report, "racing");
  if (!r.is_object()) return "";
  const double queued = Num(Get(r, "evaluations_queued"));
  const double full = Num(Get(r, "evaluations_full"));
  const double saved = Num(Get(r, "evaluations_saved"));
  std::string out = HowTo(
      "This phase was run as a race (Wurth, Stegherr, Kemper, Heider and Hähner, "
      "<i>Pareto-Optimal Anytime Algorithms via Bayesian Racing</i>, Algorithm 1): in rounds of "
      "fresh (problem, trial) instances, a submission stops once the Bayesian Plackett-Luce "
      "posterior shows another one dominates it, and the remaining submissions form the anytime "
      "Pareto set. The leaderboard above scores what ran: an eliminated submission on the "
      "instances it ran.");
  absl::StrAppend(
      &out, "<p><b>Evaluations: ", Grouped(queued), " run of ", Grouped(full),
      " for running everything; saved ", Grouped(saved), " (",
      full > 0 ? Percent(saved / full) : std::string(kDash), ").</b> ",
      Bool(Get(r, "stopped")) ? "The race has stopped" : "The race is running", " after ",
      General(Num(Get(r, "rounds"))), " round(s); ", General(Num(Get(r, "instances_sampled"))),
      " of ", General(Num(Get(r, "instances_total"))),
      " instances drawn; instances per round now: ", General(Num(Get(r, "batch_size"))),
      ".</p>\n<p>Last round: ", HtmlEscape(Str(Get(r, "note"))), "</p>\n");
  absl::StrAppend(&out, "<table class=\"compact\"><caption>Submissions in the race</caption>",
                  "<thead><tr>", Th("submission"), Th("state"), Th("round", true),
                  "</tr></thead><tbody>\n");
  for (const json& c : Arr(Get(r, "candidates"))) {
    absl::StrAppend(&out, "<tr>", MethodCell(Str(c), false), Td("in the Pareto set"), Td(kDash),
                    "</tr>\n");
  }
  const json& by = Obj(Get(r, "eliminated_by"));
  const json& round = Obj(Get(r, "eliminated_round"));
  for (auto it = by.begin(); it != by.end(); ++it) {
    absl::StrAppend(&out, "<tr>", MethodCell(it.key(), false),
                    Td(absl::StrCat("eliminated by ", HtmlEscape(Str(it.value())))),
                    Td(General(Num(Get(round, it.key()))), true), "</tr>\n");
  }
  absl::StrAppend(&out, "</tbody></table>\n");
  return out;
}

}  // namespace bbo::scoring::internal
