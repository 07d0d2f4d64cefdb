// RenderLineChartSvg, declared with LineChart in report/report_html.h.

#include <algorithm>
#include <cmath>
#include <limits>
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
std::string RenderLineChartSvg(const LineChart& chart) {
  // Values this large only come from a broken input; bounding them keeps the tick arithmetic
  // finite.
  constexpr double kBound = 1e12;
  size_t n = 0;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const LineSeries& s : chart.series) {
    n = std::max(n, s.y.size());
    for (double v : s.y) {
      if (!std::isfinite(v)) continue;
      v = std::clamp(v, -kBound, kBound);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (!(lo <= hi)) return "";
  const bool fixed_lo = std::isfinite(chart.y_min);
  const bool fixed_hi = std::isfinite(chart.y_max);
  if (fixed_lo) lo = chart.y_min;
  if (fixed_hi) hi = chart.y_max;
  if (!(hi > lo)) {
    double pad = lo != 0 ? std::abs(lo) * 0.1 : 1.0;
    if (!fixed_lo) lo -= pad;
    if (!fixed_hi || !(hi > lo)) hi = lo + 2 * pad;
  }
  const double step = NiceStep(hi - lo, 6);
  if (!fixed_lo) lo = std::floor(lo / step + 1e-9) * step;
  if (!fixed_hi) hi = std::ceil(hi / step - 1e-9) * step;

  constexpr double kLeft = 60, kTop = 12, kBottom = 46, kLegendWidth = 240, kLegendRow = 17;
  const double width = std::max(chart.width, 400);
  const double height =
      std::max<double>(std::max(chart.height, 200),
                       kTop + kLegendRow * static_cast<double>(chart.series.size()) + 12);
  const double plot_w = width - kLeft - kLegendWidth - 16;
  const double plot_h = height - kTop - kBottom;
  const double x_lo = n <= 1 ? 0.5 : 1.0;
  const double x_hi = n <= 1 ? 1.5 : static_cast<double>(n);
  auto X = [&](double batch) { return kLeft + (batch - x_lo) / (x_hi - x_lo) * plot_w; };
  auto Y = [&](double v) { return kTop + (hi - std::clamp(v, lo, hi)) / (hi - lo) * plot_h; };

  std::string svg = absl::StrCat("<svg width=\"", Coord(width), "\" height=\"", Coord(height),
                                 "\" viewBox=\"0 0 ", Coord(width), " ", Coord(height),
                                 "\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n");
  absl::StrAppend(&svg, "<rect x=\"", Coord(kLeft), "\" y=\"", Coord(kTop), "\" width=\"",
                  Coord(plot_w), "\" height=\"", Coord(plot_h),
                  "\" fill=\"#fff\" stroke=\"#999\"/>\n");
  // Y grid and tick labels.
  const int decimals = StepDecimals(step);
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; ++k) {
    const double y = Y(k * step);
    absl::StrAppend(&svg, "<line x1=\"", Coord(kLeft), "\" x2=\"", Coord(kLeft + plot_w),
                    "\" y1=\"", Coord(y), "\" y2=\"", Coord(y), "\" stroke=\"#e6e6e6\"/>",
                    "<text x=\"", Coord(kLeft - 5), "\" y=\"", Coord(y + 4),
                    "\" text-anchor=\"end\">", Fixed(k * step, decimals), "</text>\n");
  }
  // X ticks at batch numbers.
  for (int b : IntegerTicks(static_cast<int>(std::max<size_t>(n, 1)))) {
    const double x = X(b);
    absl::StrAppend(&svg, "<line x1=\"", Coord(x), "\" x2=\"", Coord(x), "\" y1=\"",
                    Coord(kTop + plot_h), "\" y2=\"", Coord(kTop + plot_h + 4),
                    "\" stroke=\"#666\"/><text x=\"", Coord(x), "\" y=\"",
                    Coord(kTop + plot_h + 16), "\" text-anchor=\"middle\">", b, "</text>\n");
  }
  absl::StrAppend(&svg, "<text x=\"", Coord(kLeft + plot_w / 2), "\" y=\"", Coord(height - 8),
                  "\" text-anchor=\"middle\" font-size=\"12\">", HtmlEscape(chart.x_label),
                  "</text>\n");
  absl::StrAppend(&svg, "<text transform=\"translate(14 ", Coord(kTop + plot_h / 2),
                  ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">",
                  HtmlEscape(chart.y_label), "</text>\n");
  for (const ReferenceLine& ref : chart.references) {
    if (!(ref.y >= lo && ref.y <= hi)) continue;
    const double y = Y(ref.y);
    absl::StrAppend(&svg, "<line x1=\"", Coord(kLeft), "\" x2=\"", Coord(kLeft + plot_w),
                    "\" y1=\"", Coord(y), "\" y2=\"", Coord(y),
                    "\" stroke=\"#888\" stroke-dasharray=\"5 4\"/><text x=\"",
                    Coord(kLeft + plot_w - 4), "\" y=\"", Coord(y - 3),
                    "\" text-anchor=\"end\" fill=\"#666\" font-size=\"10\">", HtmlEscape(ref.label),
                    "</text>\n");
  }

  // Bands first, so no band hides another method's line; fainter when many overlap.
  const std::string band_opacity =
      Fixed(std::clamp(0.5 / static_cast<double>(chart.series.size()), 0.06, 0.15), 2);
  for (const LineSeries& s : chart.series) {
    if (s.band_lo.size() != s.y.size() || s.band_hi.size() != s.y.size()) continue;
    auto ok = [&](size_t k) {
      return std::isfinite(s.band_lo[k]) && std::isfinite(s.band_hi[k]) && std::isfinite(s.y[k]);
    };
    size_t i = 0;
    while (i < s.y.size()) {
      if (!ok(i)) {
        ++i;
        continue;
      }
      size_t end = i;
      while (end < s.y.size() && ok(end)) ++end;
      if (end - i >= 2) {
        std::string points;
        for (size_t k = i; k < end; ++k) {
          absl::StrAppend(&points, points.empty() ? "" : " ", Coord(X(k + 1.0)), ",",
                          Coord(Y(s.band_hi[k])));
        }
        for (size_t k = end; k-- > i;) {
          absl::StrAppend(&points, " ", Coord(X(k + 1.0)), ",", Coord(Y(s.band_lo[k])));
        }
        absl::StrAppend(&svg, "<polygon points=\"", points, "\" fill=\"", s.color,
                        "\" fill-opacity=\"", band_opacity, "\" stroke=\"none\"/>\n");
      }
      i = end;
    }
  }
  for (const LineSeries& s : chart.series) {
    const std::string title = absl::StrCat("<title>", HtmlEscape(s.name), "</title>");
    const std::string dash =
        s.dash.empty() ? "" : absl::StrCat(" stroke-dasharray=\"", s.dash, "\"");
    size_t i = 0;
    while (i < s.y.size()) {
      if (!std::isfinite(s.y[i])) {
        ++i;
        continue;
      }
      size_t end = i;
      while (end < s.y.size() && std::isfinite(s.y[end])) ++end;
      if (end - i == 1) {
        // A lone point has no line to show it.
        absl::StrAppend(&svg, "<circle cx=\"", Coord(X(i + 1.0)), "\" cy=\"", Coord(Y(s.y[i])),
                        "\" r=\"2.5\" fill=\"", s.color, "\">", title, "</circle>\n");
      } else {
        std::string points;
        for (size_t k = i; k < end; ++k) {
          absl::StrAppend(&points, points.empty() ? "" : " ", Coord(X(k + 1.0)), ",",
                          Coord(Y(s.y[k])));
        }
        absl::StrAppend(&svg, "<polyline points=\"", points, "\" fill=\"none\" stroke=\"", s.color,
                        "\" stroke-width=\"1.8\"", dash, ">", title, "</polyline>\n");
      }
      i = end;
    }
  }
  // Legend.
  const double legend_x = kLeft + plot_w + 14;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const LineSeries& s = chart.series[i];
    const double y = kTop + 8 + kLegendRow * static_cast<double>(i);
    absl::StrAppend(
        &svg, "<line x1=\"", Coord(legend_x), "\" x2=\"", Coord(legend_x + 24), "\" y1=\"",
        Coord(y), "\" y2=\"", Coord(y), "\" stroke=\"", s.color, "\" stroke-width=\"2.2\"",
        s.dash.empty() ? "" : absl::StrCat(" stroke-dasharray=\"", s.dash, "\""), "/><text x=\"",
        Coord(legend_x + 30), "\" y=\"", Coord(y + 4), "\">", HtmlEscape(Truncate(s.name, 30)),
        "<title>", HtmlEscape(s.name), "</title></text>\n");
  }
  absl::StrAppend(&svg, "</svg>\n");
  return svg;
}

}  // namespace bbo::scoring
