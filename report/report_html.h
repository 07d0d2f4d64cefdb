#ifndef BBO_REPORT_REPORT_HTML_H_
#define BBO_REPORT_REPORT_HTML_H_

// The HTML rendering of a report JSON (layout documented in report/report.h): one self-contained
// page with the leaderboard, the bootstrap and Borda tables, inline SVG plots of the score,
// anytime and attainment curves, the Bayesian Plackett-Luce rating of every method over time with
// its credible band and the anytime Pareto set, and every method's score on every problem.
//
// Scores shown are Turner et al. (2021) eq. 7: 100 x (1 - mean-perf), where 100 means the best
// known value was found every time and 0 means no better than one random guess (the median of
// single random-search evaluations, Bayesmark's clip value).
//
// All functions are pure and thread-safe; none throws.

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"

namespace bbo::scoring {

// Renders `report` as one HTML5 document that needs nothing else: inline <style> and inline
// <svg> only, no scripts, and no fonts, stylesheets or images fetched from elsewhere.
// Tolerates any missing section or key, nulls in place of numbers and values of the wrong JSON
// type: an unreadable number shows as "–", a section without data is left out. Every string
// taken from `report` is escaped. Plots draw at most the best 12 methods (attainment: 6) plus the
// random-search baseline and say so when they leave methods out; tables and the per-problem
// heatmap list every method.
std::string RenderReportHtml(const nlohmann::json& report);

// `text` with &, <, >, " and ' replaced by character references: safe as element text and as a
// quoted attribute value.
std::string HtmlEscape(std::string_view text);

// Colour `index` (>= 0) of the Okabe-Ito colour-blind-safe categorical palette, as "#rrggbb".
// The palette has 8 colours; larger indices cycle (callers vary the dash pattern per cycle).
std::string CategoricalColor(int index);

// Diverging colour of a score as "#rrggbb": <= 0 (random search or worse) orange, 50 near-white,
// >= 100 purple (ColorBrewer PuOr, readable with the common colour-vision deficiencies). A
// non-finite score is grey.
std::string ScoreColor(double score);

// One line of a LineChart. y[i] is drawn at x = i + 1 (batches count from 1). Non-finite values
// leave a gap. band_lo / band_hi, when the size of y, draw a translucent band wherever both are
// finite, clamped to the plot area.
struct LineSeries {
  std::string name;  // raw text; the renderer escapes it
  std::string color = "#000000";
  std::string dash;  // SVG stroke-dasharray; "" = solid
  std::vector<double> y;
  std::vector<double> band_lo;
  std::vector<double> band_hi;
};

// A dashed horizontal reference line, drawn only when `y` lies inside the axis range.
struct ReferenceLine {
  double y = 0;
  std::string label;
};

struct LineChart {
  std::string x_label = "batch";
  std::string y_label;
  // Axis range. NaN = fitted to the finite line values (bands never widen it). Values outside a
  // fixed range are clamped to its edge.
  double y_min = std::numeric_limits<double>::quiet_NaN();
  double y_max = std::numeric_limits<double>::quiet_NaN();
  std::vector<ReferenceLine> references;
  // Drawn in order, so later series lie on top; the legend lists them in the same order.
  std::vector<LineSeries> series;
  int width = 920;   // px, including the legend on the right
  int height = 400;  // px; grows when the legend needs more room
};

// An <svg> element drawing `chart` with axis ticks, axis labels, a legend and a <title> tooltip
// on every line. Returns "" when no series has a finite value.
std::string RenderLineChartSvg(const LineChart& chart);

}  // namespace bbo::scoring

#endif  // BBO_REPORT_REPORT_HTML_H_
