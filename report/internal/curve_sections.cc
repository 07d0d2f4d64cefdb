#include "report/internal/curve_sections.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "report/internal/format.h"
#include "report/internal/html_parts.h"
#include "report/internal/json_view.h"
#include "report/report_html.h"

namespace bbo::scoring::internal {

using nlohmann::json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool AnyFinite(const std::vector<double>& v) {
  return std::any_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// An empty line for `name` in its page-wide style.
LineSeries StyledSeries(const std::string& name, MethodStyles& styles) {
  LineSeries s;
  s.name = name;
  s.color = styles.For(name).color;
  s.dash = styles.For(name).dash;
  return s;
}

// One line per drawn method from anytime.methods[name][key].
std::string AnytimeChart(const std::vector<MethodRow>& rows, const json& methods, const char* key,
                         const std::string& y_label, std::vector<ReferenceLine> references,
                         MethodStyles& styles, std::string* caption) {
  auto series_of = [&](const std::string& name) { return Nums(Get(Get(methods, name), key)); };
  Selection sel = Select(OrderedNames(rows, methods), styles, kMaxLines,
                         [&](const std::string& name) { return AnyFinite(series_of(name)); });
  LineChart chart;
  chart.y_label = y_label;
  chart.y_min = 0;
  chart.y_max = 1;
  chart.references = std::move(references);
  for (const std::string& name : sel.drawn) {
    LineSeries s = StyledSeries(name, styles);
    s.y = series_of(name);
    chart.series.push_back(std::move(s));
  }
  *caption = CapCaption(sel, kMaxLines);
  return RenderLineChartSvg(chart);
}

// Index of `level` in `levels`, or -1.
int LevelIndex(const std::vector<double>& levels, double level) {
  for (size_t i = 0; i < levels.size(); ++i) {
    if (std::abs(levels[i] - level) < 1e-9) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

std::string RenderScorePlot(const std::vector<MethodRow>& rows, MethodStyles& styles) {
  std::map<std::string, const json*> by_name;
  std::vector<std::string> ordered;
  for (const MethodRow& r : rows) {
    if (by_name.emplace(r.name, r.row).second) ordered.push_back(r.name);
  }
  Selection sel = Select(ordered, styles, kMaxLines, [&](const std::string& name) {
    return AnyFinite(Nums(Get(*by_name[name], "mean_perf")));
  });
  LineChart chart;
  chart.y_label = "normalized score";
  chart.references = {{0, "random search"}, {100, "best known, every time"}};
  for (const std::string& name : sel.drawn) {
    const json& row = *by_name[name];
    LineSeries s = StyledSeries(name, styles);
    const std::vector<double> perf = Nums(Get(row, "mean_perf"));
    const std::vector<double> error_bar = Nums(Get(row, "mean_perf_error_bar"));
    for (size_t t = 0; t < perf.size(); ++t) {
      const double score = Score(perf[t]);
      const double half = t < error_bar.size() ? 100 * std::abs(error_bar[t]) : kNaN;
      s.y.push_back(score);
      s.band_lo.push_back(score - half);
      s.band_hi.push_back(score + half);
    }
    chart.series.push_back(std::move(s));
  }
  const std::string svg = RenderLineChartSvg(chart);
  if (svg.empty()) return "";
  return absl::StrCat(
      HowTo("The score of each method after every batch, 100 × (1 − mean normalized performance "
            "at that batch) (Turner et al. (2021) eq. 7): 100 = the best known value found every "
            "time, "
            "0 = no better than one random guess (the median of single random-search "
            "evaluations). Higher is better. The shaded band is ± the error bar (clipped to the plot; absent where the "
            "error bar is undefined)."),
      "<figure>", svg, "</figure>\n", CapCaption(sel, kMaxLines));
}

std::string RenderEcdf(const std::vector<MethodRow>& rows, const json& report,
                       MethodStyles& styles) {
  const json& methods = Get(Get(report, "anytime"), "methods");
  std::string caption;
  const std::string svg = AnytimeChart(rows, methods, "ecdf_runtime_to_target",
                                       "fraction of targets reached", {}, styles, &caption);
  if (svg.empty()) return "";
  return absl::StrCat(
      HowTo("Targets are random search's expected best after 1, 2, … batches on each problem. "
            "The curve is the fraction of (problem, target, trial) triples a method has reached "
            "by each batch (Wurth et al. (PolarBear) §1): 1 = every target reached. Higher and "
            "further left is "
            "better; the area under the curve rewards being good early as well as at the end."),
      "<figure>", svg, "</figure>\n", caption);
}

std::string RenderFractionalRank(const std::vector<MethodRow>& rows, const json& report,
                                 MethodStyles& styles) {
  const json& anytime = Get(report, "anytime");
  std::string caption;
  const std::string svg =
      AnytimeChart(rows, Get(anytime, "methods"), "avg_fractional_rank", "average fractional rank",
                   {{0.5, "middle of the field"}}, styles, &caption);
  if (svg.empty()) return "";
  const double replicates = Num(Get(anytime, "rank_bootstrap_replicates"));
  return absl::StrCat(
      HowTo(absl::StrCat(
          "After each batch the methods are ranked on every problem by their mean normalized "
          "performance; the fractional rank (rank − 1) / (methods − 1) is 0 for the best and 1 "
          "for the worst, averaged over problems and ",
          General(replicates),
          " bootstrap resamples of the trials (Klein et al. (2019, Profet) §4.2). Lower is "
          "better.")),
      "<figure>", svg, "</figure>\n", caption);
}

std::string RenderAttainment(const std::vector<MethodRow>& rows, const json& report,
                             MethodStyles& styles) {
  const json& attainment = Get(report, "attainment");
  const std::vector<double> levels = Nums(Get(attainment, "levels"));
  const json& methods = Get(attainment, "methods");
  const int median = LevelIndex(levels, 0.5);
  const int q25 = LevelIndex(levels, 0.25);
  const int q75 = LevelIndex(levels, 0.75);
  if (median < 0) return "";
  auto level_of = [&](const std::string& name, int level) {
    return level < 0 ? std::vector<double>() : Nums(At(Get(methods, name), level));
  };
  // The baseline counts toward the cap: six overlapping bands are already the readable limit.
  const bool has_baseline = std::any_of(rows.begin(), rows.end(), [&](const MethodRow& r) {
    return r.baseline && Get(methods, r.name).is_array();
  });
  const int cap = kMaxAttainmentMethods - (has_baseline ? 1 : 0);
  Selection sel = Select(OrderedNames(rows, methods), styles, cap, [&](const std::string& name) {
    return AnyFinite(level_of(name, median));
  });
  LineChart chart;
  chart.y_label = "score of the attained level";
  chart.references = {{0, "random search"}, {100, "best known"}};
  for (const std::string& name : sel.drawn) {
    LineSeries s = StyledSeries(name, styles);
    for (double v : level_of(name, median)) s.y.push_back(Score(v));
    const std::vector<double> best_quarter = level_of(name, q25);
    const std::vector<double> worst_quarter = level_of(name, q75);
    if (best_quarter.size() == s.y.size() && worst_quarter.size() == s.y.size()) {
      // Lower normalized values are better, so the 0.75 level is the band's low score.
      for (size_t t = 0; t < s.y.size(); ++t) {
        s.band_lo.push_back(Score(worst_quarter[t]));
        s.band_hi.push_back(Score(best_quarter[t]));
      }
    }
    chart.series.push_back(std::move(s));
  }
  const std::string svg = RenderLineChartSvg(chart);
  if (svg.empty()) return "";
  return absl::StrCat(
      HowTo("On each problem and batch the trials' best-so-far values are normalized and sorted; "
            "the line is the median trial and the band spans the best quarter to the worst "
            "quarter of trials (levels 0.25–0.75), averaged over problems and shown as a score "
            "100 × (1 − value): 100 = best known value, 0 = no better than one random guess. A "
            "narrow band means the method is reliable across seeds."),
      "<figure>", svg, "</figure>\n", CapCaption(sel, cap));
}

}  // namespace bbo::scoring::internal
