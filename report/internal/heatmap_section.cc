#include "report/internal/heatmap_section.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "report/internal/format.h"
#include "report/internal/html_parts.h"
#include "report/internal/json_view.h"
#include "report/report_html.h"

namespace bbo::scoring::internal {

using nlohmann::json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The heatmap's columns: the report's problem list first (its order is the organizer's), then
// any problem only a method row mentions.
struct Columns {
  std::vector<std::string> names;
  std::map<std::string, std::string> info;  // " (dimension d; attributes)" of each problem
  std::set<std::string> seen;
};

Columns ReportColumns(const json& report) {
  Columns c;
  for (const json& p : Arr(Get(report, "problems"))) {
    const std::string name = Str(Get(p, "problem"));
    if (!c.seen.insert(name).second) continue;
    c.names.push_back(name);
    std::vector<std::string> attributes;
    for (const json& a : Arr(Get(p, "attributes"))) attributes.push_back(Str(a));
    const double dimension = Num(Get(p, "dimension"));
    std::string info;
    if (dimension > 0) info = absl::StrCat("dimension ", General(dimension));
    if (!attributes.empty()) {
      absl::StrAppend(&info, info.empty() ? "" : "; ", absl::StrJoin(attributes, ", "));
    }
    if (!info.empty()) c.info[name] = absl::StrCat(" (", info, ")");
  }
  return c;
}

// Each row's score by problem; adds the problems not in the report to `columns`. False if no
// row has any problem.
bool CollectScores(const std::vector<MethodRow>& rows, Columns* columns,
                   std::vector<std::map<std::string, double>>* scores) {
  scores->resize(rows.size());
  bool any = false;
  for (size_t i = 0; i < rows.size(); ++i) {
    for (const json& p : Arr(Get(*rows[i].row, "problems"))) {
      const std::string name = Str(Get(p, "problem"));
      if (columns->seen.insert(name).second) columns->names.push_back(name);
      (*scores)[i][name] = Num(Get(p, "score"));
      any = true;
    }
  }
  return any;
}

struct Layout {
  double cell, left, top, grid_h, width, height;
};

Layout ComputeLayout(const std::vector<MethodRow>& rows, const std::vector<std::string>& columns) {
  Layout l;
  // Cells shrink to 12 px for 60 problems but stay large enough to point at in small reports.
  l.cell = std::clamp(std::floor(720.0 / static_cast<double>(columns.size())), 12.0, 22.0);
  constexpr double kCharWidth = 6.1, kLegendHeight = 48;
  size_t row_chars = 0, column_chars = 0;
  for (const MethodRow& r : rows) row_chars = std::max(row_chars, CodePoints(r.name));
  for (const std::string& c : columns) column_chars = std::max(column_chars, CodePoints(c));
  row_chars = std::min<size_t>(row_chars, 32);
  column_chars = std::min<size_t>(column_chars, 28);
  l.left = 10 + kCharWidth * static_cast<double>(row_chars);
  // Column labels run up and to the right at 60°.
  l.top = 14 + 0.87 * kCharWidth * static_cast<double>(column_chars);
  const double grid_w = l.cell * static_cast<double>(columns.size());
  l.grid_h = l.cell * static_cast<double>(rows.size());
  l.width = std::max(
      l.left + grid_w + 0.5 * kCharWidth * static_cast<double>(column_chars) + 10, l.left + 420);
  l.height = l.top + l.grid_h + kLegendHeight;
  return l;
}

// The <svg> element's opening, with the hatching of empty cells and the colour scale.
std::string SvgOpening(const Layout& l) {
  std::string svg = absl::StrCat(
      "<svg width=\"", Coord(l.width), "\" height=\"", Coord(l.height), "\" viewBox=\"0 0 ",
      Coord(l.width), " ", Coord(l.height),
      "\" font-family=\"sans-serif\" font-size=\"10\" role=\"img\">\n<defs>"
      "<pattern id=\"hm-null\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><rect width=\"4\" height=\"4\" fill=\"#d9d9d9\"/>"
      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"4\" stroke=\"#9e9e9e\" stroke-width=\"1.5\"/>"
      "</pattern><linearGradient id=\"hm-scale\">");
  for (int s = 0; s <= 100; s += 25) {
    absl::StrAppend(&svg, "<stop offset=\"", s, "%\" stop-color=\"", ScoreColor(s), "\"/>");
  }
  absl::StrAppend(&svg, "</linearGradient></defs>\n");
  return svg;
}

void AppendColumnLabels(const Columns& columns, const Layout& l, std::string* svg) {
  for (size_t j = 0; j < columns.names.size(); ++j) {
    const std::string& name = columns.names[j];
    auto info = columns.info.find(name);
    const double x = l.left + l.cell * (static_cast<double>(j) + 0.5) + 3;
    const double y = l.top - 4;
    absl::StrAppend(svg, "<text x=\"", Coord(x), "\" y=\"", Coord(y), "\" transform=\"rotate(-60 ",
                    Coord(x), " ", Coord(y), ")\">", HtmlEscape(Truncate(name, 28)),
                    "<title>", HtmlEscape(name),
                    HtmlEscape(info == columns.info.end() ? "" : info->second),
                    "</title></text>\n");
  }
}

// Row i: its label and one cell per column.
void AppendRow(const MethodRow& row, size_t i, const std::map<std::string, double>& scores,
               const std::vector<std::string>& columns, const Layout& l, std::string* svg) {
  const double y = l.top + l.cell * static_cast<double>(i);
  absl::StrAppend(svg, "<text x=\"", Coord(l.left - 5), "\" y=\"", Coord(y + l.cell / 2 + 3),
                  "\" text-anchor=\"end\"", row.baseline ? " font-style=\"italic\"" : "", ">",
                  HtmlEscape(Truncate(row.name, 32)), "<title>", HtmlEscape(row.name),
                  "</title></text>\n");
  const std::string method = HtmlEscape(row.name);
  for (size_t j = 0; j < columns.size(); ++j) {
    auto it = scores.find(columns[j]);
    const double score = it == scores.end() ? kNaN : it->second;
    absl::StrAppend(svg, "<rect class=\"c\" x=\"", Coord(l.left + l.cell * static_cast<double>(j)),
                    "\" y=\"", Coord(y), "\" width=\"", Coord(l.cell - 1), "\" height=\"",
                    Coord(l.cell - 1), "\" fill=\"",
                    std::isfinite(score) ? ScoreColor(score) : "url(#hm-null)", "\"><title>",
                    method, " / ", HtmlEscape(columns[j]), ": ",
                    it == scores.end()     ? "no trials"
                    : std::isfinite(score) ? Fixed(score, 2)
                                           : "no score",
                    "</title></rect>\n");
  }
}

// The colour legend under the grid, and the end of the <svg> element.
void AppendLegend(const Layout& l, std::string* svg) {
  const double ly = l.top + l.grid_h + 14;
  const double lx = l.left;
  absl::StrAppend(svg, "<rect x=\"", Coord(lx), "\" y=\"", Coord(ly),
                  "\" width=\"300\" "
                  "height=\"10\" fill=\"url(#hm-scale)\" stroke=\"#999\" stroke-width=\"0.5\"/>");
  for (auto [value, label] : {std::pair<double, const char*>{0, "≤ 0 (random search)"},
                              {50, "50"},
                              {100, "100 (best)"}}) {
    absl::StrAppend(svg, "<text x=\"", Coord(lx + 3 * value), "\" y=\"", Coord(ly + 24),
                    "\" text-anchor=\"",
                    value == 0     ? "start"
                    : value == 100 ? "end"
                                   : "middle",
                    "\">", label, "</text>");
  }
  absl::StrAppend(svg, "<rect x=\"", Coord(lx + 330), "\" y=\"", Coord(ly),
                  "\" width=\"11\" "
                  "height=\"11\" fill=\"url(#hm-null)\"/><text x=\"",
                  Coord(lx + 346), "\" y=\"", Coord(ly + 9), "\">no score</text>\n</svg>\n");
}

}  // namespace

std::string RenderHeatmap(const std::vector<MethodRow>& rows, const json& report) {
  Columns columns = ReportColumns(report);
  std::vector<std::map<std::string, double>> scores;
  const bool any = CollectScores(rows, &columns, &scores);
  if (!any || columns.names.empty()) return "";
  const Layout layout = ComputeLayout(rows, columns.names);
  std::string svg = SvgOpening(layout);
  AppendColumnLabels(columns, layout, &svg);
  for (size_t i = 0; i < rows.size(); ++i) {
    AppendRow(rows[i], i, scores[i], columns.names, layout, &svg);
  }
  AppendLegend(layout, &svg);
  return absl::StrCat(
      HowTo("Each cell is one method's score on one problem: 100 × (1 − mean normalized "
            "performance after the last batch), 100 = the best known value found every time "
            "(purple), 0 or below = no better than random search (orange); grey hatching = no "
            "score. Rows follow the leaderboard; hover over a cell for its value."),
      "<div class=\"scroll\">", svg, "</div>\n");
}

}  // namespace bbo::scoring::internal
