#include "report/internal/rank_sections.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "report/internal/chart_axis.h"
#include "report/internal/format.h"
#include "report/internal/html_parts.h"
#include "report/internal/json_view.h"
#include "report/report_html.h"

namespace bbo::scoring::internal {

using nlohmann::json;

namespace {

std::string RenderRankChart(const json& methods, double replicates) {
  const size_t shown = std::min<size_t>(methods.size(), kMaxLines);
  size_t ranks = 0;
  for (size_t i = 0; i < shown; ++i) {
    ranks = std::max(ranks, Arr(Get(methods[i], "rank_counts")).size());
  }
  if (shown == 0 || ranks == 0) return "";
  constexpr double kLabelWidth = 210, kRowHeight = 30, kBarArea = 640, kTop = 6;
  const double bar_step = std::min(40.0, kBarArea / static_cast<double>(ranks));
  const double bar_width = std::max(1.0, bar_step - (bar_step > 4 ? 2 : 0));
  // Wide enough for the axis label however few ranks there are.
  const double width = std::max(kLabelWidth + bar_step * static_cast<double>(ranks), 560.0) + 20;
  const double height = kTop + kRowHeight * static_cast<double>(shown) + 34;
  std::string svg = absl::StrCat("<svg width=\"", Coord(width), "\" height=\"", Coord(height),
                                 "\" viewBox=\"0 0 ", Coord(width), " ", Coord(height),
                                 "\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n");
  for (size_t i = 0; i < shown; ++i) {
    const std::string name = Str(Get(methods[i], "method"));
    const std::vector<double> counts = Nums(Get(methods[i], "rank_counts"));
    double total = replicates;
    if (!(total > 0)) {
      total = 0;
      for (double c : counts) total += std::isfinite(c) ? c : 0;
    }
    const double base = kTop + kRowHeight * static_cast<double>(i + 1) - 4;
    absl::StrAppend(&svg, "<text x=\"", Coord(kLabelWidth - 8), "\" y=\"", Coord(base - 6),
                    "\" text-anchor=\"end\">", HtmlEscape(Truncate(name, 30)), "<title>",
                    HtmlEscape(name), "</title></text><line x1=\"", Coord(kLabelWidth), "\" x2=\"",
                    Coord(kLabelWidth + bar_step * static_cast<double>(ranks)), "\" y1=\"",
                    Coord(base), "\" y2=\"", Coord(base), "\" stroke=\"#bbb\"/>\n");
    for (size_t r = 0; r < counts.size() && total > 0; ++r) {
      const double fraction = counts[r] / total;
      if (!(fraction > 0)) continue;
      const double h = std::min(1.0, fraction) * (kRowHeight - 6);
      absl::StrAppend(&svg, "<rect x=\"", Coord(kLabelWidth + bar_step * static_cast<double>(r)),
                      "\" y=\"", Coord(base - h), "\" width=\"", Coord(bar_width), "\" height=\"",
                      Coord(h), "\" fill=\"#0072B2\"><title>", HtmlEscape(name), ": rank ", r + 1,
                      " in ", Percent(fraction), " of replicates</title></rect>\n");
    }
  }
  const double axis_y = kTop + kRowHeight * static_cast<double>(shown) + 14;
  for (int r : IntegerTicks(static_cast<int>(ranks))) {
    absl::StrAppend(&svg, "<text x=\"", Coord(kLabelWidth + bar_step * (r - 0.5)), "\" y=\"",
                    Coord(axis_y), "\" text-anchor=\"middle\">", r, "</text>\n");
  }
  absl::StrAppend(&svg, "<text x=\"",
                  Coord(std::max(kLabelWidth + bar_step * static_cast<double>(ranks) / 2, 300.0)),
                  "\" y=\"", Coord(axis_y + 16), "\" text-anchor=\"middle\" font-size=\"12\">",
                  "rank (bar height = share of bootstrap replicates)</text>\n</svg>\n");
  std::string caption;
  if (methods.size() > shown) {
    caption = absl::StrCat("<p class=\"caption\">Showing the first ", shown, " of ", methods.size(),
                           " methods; the table above lists every method.</p>\n");
  }
  return absl::StrCat("<h3>Rank distributions</h3>\n<figure class=\"scroll\">", svg, "</figure>\n",
                      caption);
}

std::string BordaTable(const json& rows, const std::string& caption_html,
                       const MethodStyles& styles) {
  std::string out =
      absl::StrCat(caption_html.empty() ? "<table>\n" : "<table class=\"compact\">\n", caption_html,
                   "<thead><tr>", Th("#", true), Th("Method"), Th("Borda", true),
                   Th("Firsts", true), Th("Top three", true), "</tr></thead>\n<tbody>\n");
  int i = 0;
  for (const json& r : Arr(rows)) {
    const std::string name = Str(Get(r, "method"));
    const bool baseline = styles.IsBaseline(name);
    absl::StrAppend(&out, baseline ? "<tr class=\"baseline\">" : "<tr>",
                    Td(absl::StrCat(++i), true), MethodCell(name, baseline),
                    Td(General(Num(Get(r, "borda"))), true),
                    Td(General(Num(Get(r, "firsts"))), true),
                    Td(General(Num(Get(r, "top_three"))), true), "</tr>\n");
  }
  absl::StrAppend(&out, "</tbody></table>\n");
  return out;
}

}  // namespace

std::string RenderBootstrap(const json& report) {
  const json& boot = Get(report, "bootstrap");
  if (!boot.is_object()) return "";
  const json& methods = Arr(Get(boot, "methods"));
  const json& rankings = Arr(Get(boot, "top_rankings"));
  if (methods.empty() && rankings.empty()) return "";
  const double top_k = Num(Get(boot, "top_k"));
  const std::string k = General(top_k);
  const double alpha = Num(Get(report, "alpha"));
  const double replicates = Num(Get(boot, "replicates"));
  std::string out = HowTo(absl::StrCat(
      "Every method's trials were resampled with replacement ", General(replicates), " times",
      Get(boot, "seed").is_null()
          ? ""
          : absl::StrCat(" (random seed ", HtmlEscape(Str(Get(boot, "seed"))), ")"),
      " and the leaderboard recomputed (Turner et al. (2021) §4.1). P(top ", k,
      ") is the share of replicates in which the method ranks among the best ", k,
      "; the rank interval holds the central ",
      std::isfinite(alpha) ? General(100 * (1 - alpha)) : "(1 − α)",
      "% of its ranks; the modal rank is its most frequent rank. Wide intervals mean the "
      "ranking is not settled by the data."));
  if (!methods.empty()) {
    absl::StrAppend(&out, "<div class=\"scroll\"><table>\n<thead><tr>", Th("Method"),
                    Th(absl::StrCat("P(top ", k, ")"), true), Th("Rank interval", true),
                    Th("Modal rank", true), "</tr></thead>\n<tbody>\n");
    for (const json& m : methods) {
      const std::vector<double> counts = Nums(Get(m, "rank_counts"));
      std::string modal = kDash;
      double best = 0;
      for (size_t r = 0; r < counts.size(); ++r) {
        if (counts[r] > best) {
          best = counts[r];
          modal = absl::StrCat(r + 1);
        }
      }
      const json& interval = Get(m, "rank_interval");
      std::string range = kDash;
      if (interval.is_array() && interval.size() == 2) {
        range = absl::StrCat(General(Num(interval[0])), "–", General(Num(interval[1])));
      }
      absl::StrAppend(&out, "<tr>", MethodCell(Str(Get(m, "method")), false),
                      Td(Fixed(Num(Get(m, "p_top_k")), 3), true), Td(range, true), Td(modal, true),
                      "</tr>\n");
    }
    absl::StrAppend(&out, "</tbody></table></div>\n");
  }
  if (!rankings.empty()) {
    absl::StrAppend(&out, "<h3>Most frequent top-", k, " rankings</h3>\n<table>\n<thead><tr>",
                    Th("#", true), Th("Ranking (best first)"), Th("Frequency", true),
                    "</tr></thead>\n<tbody>\n");
    int i = 0;
    for (const json& r : rankings) {
      std::vector<std::string> names;
      for (const json& name : Arr(Get(r, "ranking"))) names.push_back(HtmlEscape(Str(name)));
      absl::StrAppend(&out, "<tr>", Td(absl::StrCat(++i), true), "<td>",
                      absl::StrJoin(names, " › "), "</td>",
                      Td(Percent(Num(Get(r, "frequency"))), true), "</tr>\n");
    }
    absl::StrAppend(&out, "</tbody></table>\n");
  }
  absl::StrAppend(&out, RenderRankChart(methods, replicates));
  return out;
}

std::string RenderBorda(const json& report, const MethodStyles& styles) {
  const json& np = Get(report, "nonparametric");
  if (!np.is_object()) return "";
  const json& rows = Arr(Get(np, "rows"));
  const json& groups = Arr(Get(np, "groups"));
  if (rows.empty() && groups.empty()) return "";
  std::string out = HowTo(absl::StrCat(
      "On each problem the methods are ranked by pairwise Mann-Whitney tests on the best value "
      "found (ties broken by the area under the best-so-far curve) at a familywise level of ",
      General(Num(Get(np, "familywise_alpha"))), " (per test ",
      General(Num(Get(np, "pairwise_alpha"))),
      "; Dewancker et al. (2016) §2.2). Each problem's ranking is a ballot. Borda = total number "
      "of methods "
      "beaten significantly, summed over problems; Firsts and Top three count the problems on "
      "which the method ranked first or in the top three (ties count for everyone tied). Higher "
      "is better in every column."));
  if (!rows.empty()) absl::StrAppend(&out, "<h3>All problems</h3>\n", BordaTable(rows, "", styles));
  if (!groups.empty()) {
    absl::StrAppend(&out, "<h3>By problem group</h3>\n<div class=\"groups\">\n");
    for (const json& g : groups) {
      const std::string kind = Str(Get(g, "kind"));
      const std::string group = Str(Get(g, "group"));
      std::vector<std::string> problems;
      for (const json& p : Arr(Get(g, "problems"))) problems.push_back(HtmlEscape(Str(p)));
      const std::string label = kind == "attribute"
                                    ? absl::StrCat("attribute: ", HtmlEscape(group))
                                    : absl::StrCat(HtmlEscape(kind), " ", HtmlEscape(group));
      absl::StrAppend(&out, "<div>",
                      BordaTable(Get(g, "rows"),
                                 absl::StrCat("<caption>", label, " (", problems.size(),
                                              problems.size() == 1 ? " problem" : " problems",
                                              ")<span class=\"problems\">",
                                              absl::StrJoin(problems, ", "), "</span></caption>\n"),
                                 styles),
                      "</div>\n");
    }
    absl::StrAppend(&out, "</div>\n");
  }
  return out;
}

}  // namespace bbo::scoring::internal
