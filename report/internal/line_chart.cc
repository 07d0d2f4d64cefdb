// RenderLineChartSvg, declared with LineChart in report/report_html.h.

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "report/internal/chart_axis.h"
#include "report/internal/format.h"
#include "report/report_html.h"

namespace bbo::scoring {

using internal::Coord;
using internal::Fixed;
using internal::IntegerTicks;
using internal::NiceStep;
using internal::StepDecimals;
using internal::Truncate;

namespace {

constexpr double kLeft = 60, kTop = 12, kBottom = 46, kLegendWidth = 240, kLegendRow = 17;

// The chart's size, its y range rounded to ticks of `step`, and the map from (batch, value) to
// SVG coordinates.
struct Frame {
  size_t n;  // the longest series
  double lo, hi, step;
  double width, height, plot_w, plot_h;
  double x_lo, x_hi;

  double X(double batch) const { return kLeft + (batch - x_lo) / (x_hi - x_lo) * plot_w; }
  double Y(double v) const { return kTop + (hi - std::clamp(v, lo, hi)) / (hi - lo) * plot_h; }
};

// Empty if no series has a finite value.
std::optional<Frame> MakeFrame(const LineChart& chart) {
  // Values this large only come from a broken input; bounding them keeps the tick arithmetic
  // finite.
  constexpr double kBound = 1e12;
  Frame f;
  f.n = 0;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const LineSeries& s : chart.series) {
    f.n = std::max(f.n, s.y.size());
    for (double v : s.y) {
      if (!std::isfinite(v)) continue;
      v = std::clamp(v, -kBound, kBound);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (!(lo <= hi)) return std::nullopt;
  const bool fixed_lo = std::isfinite(chart.y_min);
  const bool fixed_hi = std::isfinite(chart.y_max);
  if (fixed_lo) lo = chart.y_min;
  if (fixed_hi) hi = chart.y_max;
  if (!(hi > lo)) {
    double pad = lo != 0 ? std::abs(lo) * 0.1 : 1.0;
    if (!fixed_lo) lo -= pad;
    if (!fixed_hi || !(hi > lo)) hi = lo + 2 * pad;
  }
  f.step = NiceStep(hi - lo, 6);
  if (!fixed_lo) lo = std::floor(lo / f.step + 1e-9) * f.step;
  if (!fixed_hi) hi = std::ceil(hi / f.step - 1e-9) * f.step;
  f.lo = lo;
  f.hi = hi;
  f.width = std::max(chart.width, 400);
  f.height = std::max<double>(std::max(chart.height, 200),
                              kTop + kLegendRow * static_cast<double>(chart.series.size()) + 12);
  f.plot_w = f.width - kLeft - kLegendWidth - 16;
  f.plot_h = f.height - kTop - kBottom;
  f.x_lo = f.n <= 1 ? 0.5 : 1.0;
  f.x_hi = f.n <= 1 ? 1.5 : static_cast<double>(f.n);
  return f;
}

// The plot area, the y grid with its tick labels, the batch ticks and the axis labels.
void AppendAxes(const LineChart& chart, const Frame& f, std::string* svg) {
  absl::StrAppend(svg, "<rect x=\"", Coord(kLeft), "\" y=\"", Coord(kTop), "\" width=\"",
                  Coord(f.plot_w), "\" height=\"", Coord(f.plot_h),
                  "\" fill=\"#fff\" stroke=\"#999\"/>\n");
  const int decimals = StepDecimals(f.step);
  for (double k = std::ceil(f.lo / f.step - 1e-9); k * f.step <= f.hi + f.step * 1e-9; ++k) {
    const double y = f.Y(k * f.step);
    absl::StrAppend(svg, "<line x1=\"", Coord(kLeft), "\" x2=\"", Coord(kLeft + f.plot_w),
                    "\" y1=\"", Coord(y), "\" y2=\"", Coord(y), "\" stroke=\"#e6e6e6\"/>",
                    "<text x=\"", Coord(kLeft - 5), "\" y=\"", Coord(y + 4),
                    "\" text-anchor=\"end\">", Fixed(k * f.step, decimals), "</text>\n");
  }
  for (int b : IntegerTicks(static_cast<int>(std::max<size_t>(f.n, 1)))) {
    const double x = f.X(b);
    absl::StrAppend(svg, "<line x1=\"", Coord(x), "\" x2=\"", Coord(x), "\" y1=\"",
                    Coord(kTop + f.plot_h), "\" y2=\"", Coord(kTop + f.plot_h + 4),
                    "\" stroke=\"#666\"/><text x=\"", Coord(x), "\" y=\"",
                    Coord(kTop + f.plot_h + 16), "\" text-anchor=\"middle\">", b, "</text>\n");
  }
  absl::StrAppend(svg, "<text x=\"", Coord(kLeft + f.plot_w / 2), "\" y=\"",
                  Coord(f.height - 8), "\" text-anchor=\"middle\" font-size=\"12\">",
                  HtmlEscape(chart.x_label), "</text>\n");
  absl::StrAppend(svg, "<text transform=\"translate(14 ", Coord(kTop + f.plot_h / 2),
                  ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">",
                  HtmlEscape(chart.y_label), "</text>\n");
}

// Dashed horizontal lines at the references inside the y range.
void AppendReferences(const LineChart& chart, const Frame& f, std::string* svg) {
  for (const ReferenceLine& ref : chart.references) {
    if (!(ref.y >= f.lo && ref.y <= f.hi)) continue;
    const double y = f.Y(ref.y);
    absl::StrAppend(svg, "<line x1=\"", Coord(kLeft), "\" x2=\"", Coord(kLeft + f.plot_w),
                    "\" y1=\"", Coord(y), "\" y2=\"", Coord(y),
                    "\" stroke=\"#888\" stroke-dasharray=\"5 4\"/><text x=\"",
                    Coord(kLeft + f.plot_w - 4), "\" y=\"", Coord(y - 3),
                    "\" text-anchor=\"end\" fill=\"#666\" font-size=\"10\">", HtmlEscape(ref.label),
                    "</text>\n");
  }
}

// Calls f(begin, end) for each maximal run [begin, end) of indices below `size` where ok(k).
template <typename Ok, typename F>
void ForEachRun(size_t size, Ok ok, F f) {
  size_t i = 0;
  while (i < size) {
    if (!ok(i)) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < size && ok(end)) ++end;
    f(i, end);
    i = end;
  }
}

// Each series' band as polygons over its runs of finite values (of two points or more).
void AppendBands(const LineChart& chart, const Frame& f, std::string* svg) {
  // Fainter when many overlap.
  const std::string band_opacity =
      Fixed(std::clamp(0.5 / static_cast<double>(chart.series.size()), 0.06, 0.15), 2);
  for (const LineSeries& s : chart.series) {
    if (s.band_lo.size() != s.y.size() || s.band_hi.size() != s.y.size()) continue;
    auto ok = [&](size_t k) {
      return std::isfinite(s.band_lo[k]) && std::isfinite(s.band_hi[k]) && std::isfinite(s.y[k]);
    };
    ForEachRun(s.y.size(), ok, [&](size_t i, size_t end) {
      if (end - i < 2) return;
      std::string points;
      for (size_t k = i; k < end; ++k) {
        absl::StrAppend(&points, points.empty() ? "" : " ", Coord(f.X(k + 1.0)), ",",
                        Coord(f.Y(s.band_hi[k])));
      }
      for (size_t k = end; k-- > i;) {
        absl::StrAppend(&points, " ", Coord(f.X(k + 1.0)), ",", Coord(f.Y(s.band_lo[k])));
      }
      absl::StrAppend(svg, "<polygon points=\"", points, "\" fill=\"", s.color,
                      "\" fill-opacity=\"", band_opacity, "\" stroke=\"none\"/>\n");
    });
  }
}

// Each series as polylines over its runs of finite values, a lone point as a dot.
void AppendLines(const LineChart& chart, const Frame& f, std::string* svg) {
  for (const LineSeries& s : chart.series) {
    const std::string title = absl::StrCat("<title>", HtmlEscape(s.name), "</title>");
    const std::string dash =
        s.dash.empty() ? "" : absl::StrCat(" stroke-dasharray=\"", s.dash, "\"");
    auto ok = [&](size_t k) { return std::isfinite(s.y[k]); };
    ForEachRun(s.y.size(), ok, [&](size_t i, size_t end) {
      if (end - i == 1) {
        // A lone point has no line to show it.
        absl::StrAppend(svg, "<circle cx=\"", Coord(f.X(i + 1.0)), "\" cy=\"", Coord(f.Y(s.y[i])),
                        "\" r=\"2.5\" fill=\"", s.color, "\">", title, "</circle>\n");
        return;
      }
      std::string points;
      for (size_t k = i; k < end; ++k) {
        absl::StrAppend(&points, points.empty() ? "" : " ", Coord(f.X(k + 1.0)), ",",
                        Coord(f.Y(s.y[k])));
      }
      absl::StrAppend(svg, "<polyline points=\"", points, "\" fill=\"none\" stroke=\"", s.color,
                      "\" stroke-width=\"1.8\"", dash, ">", title, "</polyline>\n");
    });
  }
}

void AppendLegend(const LineChart& chart, const Frame& f, std::string* svg) {
  const double legend_x = kLeft + f.plot_w + 14;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const LineSeries& s = chart.series[i];
    const double y = kTop + 8 + kLegendRow * static_cast<double>(i);
    absl::StrAppend(
        svg, "<line x1=\"", Coord(legend_x), "\" x2=\"", Coord(legend_x + 24), "\" y1=\"",
        Coord(y), "\" y2=\"", Coord(y), "\" stroke=\"", s.color, "\" stroke-width=\"2.2\"",
        s.dash.empty() ? "" : absl::StrCat(" stroke-dasharray=\"", s.dash, "\""), "/><text x=\"",
        Coord(legend_x + 30), "\" y=\"", Coord(y + 4), "\">", HtmlEscape(Truncate(s.name, 30)),
        "<title>", HtmlEscape(s.name), "</title></text>\n");
  }
}

}  // namespace

std::string RenderLineChartSvg(const LineChart& chart) {
  const std::optional<Frame> frame = MakeFrame(chart);
  if (!frame) return "";
  const Frame& f = *frame;
  std::string svg = absl::StrCat("<svg width=\"", Coord(f.width), "\" height=\"",
                                 Coord(f.height), "\" viewBox=\"0 0 ", Coord(f.width), " ",
                                 Coord(f.height),
                                 "\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n");
  AppendAxes(chart, f, &svg);
  AppendReferences(chart, f, &svg);
  // Bands first, so no band hides another method's line.
  AppendBands(chart, f, &svg);
  AppendLines(chart, f, &svg);
  AppendLegend(chart, f, &svg);
  absl::StrAppend(&svg, "</svg>\n");
  return svg;
}

}  // namespace bbo::scoring
