#include "report/internal/racing_section.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
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

// A round's time, UTC to the minute.
std::string RoundTime(double unix_seconds) {
  return absl::FormatTime("%Y-%m-%d %H:%M",
                          absl::FromUnixSeconds(static_cast<int64_t>(unix_seconds)),
                          absl::UTCTimeZone());
}

}  // namespace

std::string RenderRacing(const json& report) {
  const json& r = Get(report, "racing");
  if (!r.is_object()) return "";
  const double planned = Num(Get(r, "evaluations_planned"));
  const double run = Num(Get(r, "evaluations_run"));
  const double full = Num(Get(r, "evaluations_full"));
  const double saved = Num(Get(r, "evaluations_saved"));
  std::string out = HowTo(
      "This phase was run as a race (Wurth, Stegherr, Kemper, Heider and Hähner, "
      "<i>Pareto-Optimal Anytime Algorithms via Bayesian Racing</i>, Algorithm 1): in rounds of "
      "fresh (problem, trial) instances, a submission stops once the Bayesian Plackett-Luce "
      "posterior shows another one dominates it, and a study stops at the last batch still "
      "undecided. Every section of this report scores what ran: an eliminated submission on the "
      "instances it ran, a shortened study up to the batch it ran (never its last value carried "
      "forward). The race decides on the posterior of the Plackett-Luce section, and both name "
      "the same Pareto set.");
  absl::StrAppend(
      &out, "<p><b>Evaluations: ", Grouped(run), " run, ", Grouped(planned), " planned, of ",
      Grouped(full), " for running everything; saved ", Grouped(saved), " (",
      full > 0 ? Percent(saved / full) : std::string(kDash), ").</b> ",
      Bool(Get(r, "stopped")) ? "The race has stopped" : "The race is running", " after ",
      General(Num(Get(r, "rounds"))), " round(s); ", General(Num(Get(r, "instances_sampled"))),
      " of ", General(Num(Get(r, "instances_total"))),
      " instances drawn; instances per round now: ", General(Num(Get(r, "batch_size"))),
      ".</p>\n<p>Last round: ", HtmlEscape(Str(Get(r, "note"))), "</p>\n");
  // The Pareto set is the Plackett-Luce section's (one posterior); an entry still racing that the
  // latest fit shows dominated is said so.
  const json& pareto = Get(Get(report, "plackett_luce"), "pareto_set");
  auto in_pareto = [&](const std::string& name) {
    if (!pareto.is_array()) return true;
    for (const json& p : pareto) {
      if (Str(p) == name) return true;
    }
    return false;
  };
  absl::StrAppend(&out, "<table class=\"compact\"><caption>Submissions in the race</caption>",
                  "<thead><tr>", Th("submission"), Th("state"), Th("round", true),
                  "</tr></thead><tbody>\n");
  for (const json& c : Arr(Get(r, "candidates"))) {
    absl::StrAppend(&out, "<tr>", MethodCell(Str(c), false),
                    Td(in_pareto(Str(c)) ? "in the Pareto set"
                                         : "racing; dominated in the latest fit"),
                    Td(kDash), "</tr>\n");
  }
  const json& by = Obj(Get(r, "eliminated_by"));
  const json& round = Obj(Get(r, "eliminated_round"));
  for (auto it = by.begin(); it != by.end(); ++it) {
    absl::StrAppend(&out, "<tr>", MethodCell(it.key(), false),
                    Td(absl::StrCat("eliminated by ", HtmlEscape(Str(it.value())))),
                    Td(General(Num(Get(round, it.key()))), true), "</tr>\n");
  }
  for (const json& w : Arr(Get(r, "withdrawn"))) {
    absl::StrAppend(&out, "<tr>", MethodCell(Str(w), false), Td("withdrawn by its team"),
                    Td(kDash), "</tr>\n");
  }
  absl::StrAppend(&out, "</tbody></table>\n");
  const json& history = Get(r, "history");
  if (!history.is_array() || history.empty()) return out;
  absl::StrAppend(&out, "<table class=\"compact\"><caption>Rounds</caption><thead><tr>",
                  Th("round", true), Th("recorded (UTC)"), Th("instances per round", true),
                  Th("jobs", true), Th("what it decided"), "</tr></thead><tbody>\n");
  for (const json& h : history) {
    absl::StrAppend(&out, "<tr>", Td(General(Num(Get(h, "round"))), true),
                    Td(RoundTime(Num(Get(h, "created_at")))),
                    Td(General(Num(Get(h, "batch_size"))), true),
                    Td(General(Num(Get(h, "jobs"))), true), Td(HtmlEscape(Str(Get(h, "note")))),
                    "</tr>\n");
  }
  absl::StrAppend(&out, "</tbody></table>\n");
  return out;
}

}  // namespace bbo::scoring::internal
