// The page assembler of the HTML report: the stylesheet, the section order and the document
// around them. Sections live in internal/*_section(s).cc, the chart engine in
// internal/line_chart.cc.

#include "report/report_html.h"

#include <exception>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "report/internal/curve_sections.h"
#include "report/internal/heatmap_section.h"
#include "report/internal/json_view.h"
#include "report/internal/leaderboard_section.h"
#include "report/internal/method_styles.h"
#include "report/internal/plackett_luce_section.h"
#include "report/internal/racing_section.h"
#include "report/internal/rank_sections.h"
#include "report/internal/resources_section.h"
#include "report/internal/summary_section.h"

namespace bbo::scoring {
namespace {

using internal::Get;
using internal::MethodRow;
using internal::MethodStyles;
using internal::ReadMethods;
using internal::RenderAttainment;
using internal::RenderBootstrap;
using internal::RenderBorda;
using internal::RenderEcdf;
using internal::RenderFractionalRank;
using internal::RenderHeatmap;
using internal::RenderLeaderboard;
using internal::RenderPlackettLuce;
using internal::RenderPlackettLuceSeconds;
using internal::RenderRacing;
using internal::RenderResources;
using internal::RenderScorePlot;
using internal::RenderSummary;
using internal::Section;
using internal::Str;
using nlohmann::json;

constexpr char kStyle[] = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
 color:#222;background:#f6f6f6;margin:0}
main{max-width:1200px;margin:0 auto;padding:12px 24px 40px}
section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:10px 20px 14px;margin:16px 0}
h1{font-size:22px;margin:4px 0 8px}h2{font-size:18px;margin:4px 0 8px}h3{font-size:15px;margin:14px 0 6px}
.howto{color:#333;background:#f1f5fa;border-left:3px solid #0072b2;padding:6px 10px;margin:6px 0 12px;
 font-size:13px;max-width:980px}
table{border-collapse:collapse;font-size:13px;margin:6px 0}
th,td{padding:2px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
th{background:#f0f0f0;position:sticky;top:0}
.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.m{max-width:360px;overflow-wrap:anywhere}
tr.baseline td{background:#fff4d6}
tr.pareto td{background:#e9f5ee}
.note{color:#8a4b00}
tr.incomplete td.c{color:#b35806;font-weight:600}
.badge{font-size:11px;padding:0 5px;border-radius:3px;background:#e69f00;color:#000;margin-left:6px}
.caption,figcaption,caption{font-size:12.5px;color:#555;text-align:left}
caption{font-weight:600;color:#222;font-size:13px}
figure{margin:8px 0}
svg{max-width:100%;height:auto;display:block}
.scroll{overflow-x:auto}.scroll svg{max-width:none}
.groups{display:flex;flex-wrap:wrap;gap:8px 28px;align-items:flex-start}
.problems{display:block;font-weight:400;font-size:11.5px;color:#666;margin:0 0 4px}
table.compact{font-size:12px;max-width:360px}table.compact td.m{max-width:200px}
.warnings{color:#8a4b00}
dl.meta{display:grid;grid-template-columns:max-content auto;gap:1px 14px;margin:6px 0}
dl.meta dt{font-weight:600}dl.meta dd{margin:0;overflow-wrap:anywhere}
nav{font-size:13px}nav a{margin-right:12px}
)css";

std::string RenderDocument(const json& report) {
  const std::vector<MethodRow> rows = ReadMethods(report);
  MethodStyles styles(rows);
  std::vector<Section> sections = {
      {"leaderboard", "Leaderboard", RenderLeaderboard(rows)},
      {"score-vs-batch", "Score vs batch", RenderScorePlot(rows, styles)},
      {"bootstrap", "Bootstrap ranks", RenderBootstrap(report)},
      {"borda", "Borda", RenderBorda(report, styles)},
      {"ecdf", "ECDF", RenderEcdf(rows, report, styles)},
      {"fractional-rank", "Fractional rank", RenderFractionalRank(rows, report, styles)},
      {"attainment", "Attainment", RenderAttainment(rows, report, styles)},
      {"plackett-luce", "Bayesian ranking over time (Plackett-Luce)",
       RenderPlackettLuce(rows, report, styles)},
      {"plackett-luce-seconds", "Bayesian ranking over optimizer time (Plackett-Luce)",
       RenderPlackettLuceSeconds(rows, report, styles)},
      {"racing", "Racing", RenderRacing(report)},
      {"resources", "Optimizer resources", RenderResources(report)},
      {"heatmap", "Per-problem scores", RenderHeatmap(rows, report)},
  };
  const std::string phase = Str(Get(report, "phase"));
  std::string out = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>bbo-arena report",
      phase.empty() ? "" : absl::StrCat(": ", HtmlEscape(phase)), "</title>\n<style>", kStyle,
      "</style>\n</head>\n<body>\n<main>\n<section id=\"summary\">\n",
      RenderSummary(report, sections), "</section>\n");
  for (const Section& s : sections) {
    if (s.html.empty()) continue;
    absl::StrAppend(&out, "<section id=\"", s.id, "\">\n<h2>", s.title, "</h2>\n", s.html,
                    "</section>\n");
  }
  absl::StrAppend(&out, "</main>\n</body>\n</html>\n");
  return out;
}

}  // namespace

std::string RenderReportHtml(const nlohmann::json& report) {
  // The json view (internal/json_view.h) never throws, but a report is external input rendered
  // inside a server: should a corner of nlohmann's API still throw, a short page beats a crash.
  try {
    return RenderDocument(report);
  } catch (const std::exception& e) {
    return absl::StrCat(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>bbo-arena report</title></head><body><p>The report could not be rendered: ",
        HtmlEscape(e.what()), "</p></body></html>\n");
  }
}

}  // namespace bbo::scoring
