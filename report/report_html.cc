#include "report/report_html.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace bbo::scoring {
namespace {

using nlohmann::json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr char kDash[] = "–";
// Plots beyond a dozen lines stop being readable; the tables keep every method.
constexpr int kMaxLines = 12;
constexpr int kMaxAttainmentMethods = 6;
constexpr char kBaselineColor[] = "#6e6e6e";
constexpr char kBaselineDash[] = "3 3";

// ---------------------------------------------------------------------------------------------
// Tolerant JSON access. nlohmann's value() and get() throw on a key of the wrong type, and the
// report may come from another version of the server, so every read goes through these.

const json& Null() {
  static const json* const kNull = new json();
  return *kNull;
}

const json& EmptyArray() {
  static const json* const kEmpty = new json(json::array());
  return *kEmpty;
}

const json& EmptyObject() {
  static const json* const kEmpty = new json(json::object());
  return *kEmpty;
}

const json& Get(const json& j, std::string_view key) {
  if (!j.is_object()) return Null();
  auto it = j.find(key);
  return it == j.end() ? Null() : *it;
}

const json& Arr(const json& j) { return j.is_array() ? j : EmptyArray(); }
const json& Obj(const json& j) { return j.is_object() ? j : EmptyObject(); }

const json& At(const json& j, size_t i) { return j.is_array() && i < j.size() ? j[i] : Null(); }

double Num(const json& j) { return j.is_number() ? j.get<double>() : kNaN; }

bool Bool(const json& j) { return j.is_boolean() && j.get<bool>(); }

std::string Str(const json& j) {
  if (j.is_string()) return j.get_ref<const std::string&>();
  if (j.is_number() || j.is_boolean()) return j.dump();
  return "";
}

std::vector<double> Nums(const json& j) {
  std::vector<double> out;
  for (const json& v : Arr(j)) out.push_back(Num(v));
  return out;
}

double Last(const std::vector<double>& v) { return v.empty() ? kNaN : v.back(); }

// ---------------------------------------------------------------------------------------------
// Number formatting. Fixed precision keeps a 65-method report small and the columns aligned.

// Drops the sign of a negative zero so "-0.00" does not suggest a below-random score.
std::string StripNegativeZero(std::string s) {
  if (!s.empty() && s[0] == '-' && s.find_first_not_of("0.", 1) == std::string::npos) {
    s.erase(0, 1);
  }
  return s;
}

std::string Fixed(double v, int decimals) {
  if (!std::isfinite(v)) return kDash;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return StripNegativeZero(buf);
}

std::string General(double v) {
  if (!std::isfinite(v)) return kDash;
  char buf[64];
  // Counts (replicates, Borda points) read better in full than as "1e+04".
  const bool integral = std::abs(v) < 1e15 && v == std::floor(v);
  std::snprintf(buf, sizeof(buf), integral ? "%.0f" : "%.4g", v);
  return StripNegativeZero(buf);
}

std::string Percent(double fraction) {
  if (!std::isfinite(fraction)) return kDash;
  return absl::StrCat(Fixed(100 * fraction, 1), "%");
}

// SVG coordinates: a tenth of a pixel is below what a screen shows.
std::string Coord(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s == "-0" ? "0" : s;
}

// Scores are per seed 001 eq. 7.
double Score(double perf) { return 100 * (1 - perf); }

// At most `max_chars` code points of `text`, with an ellipsis when cut; never splits a UTF-8
// sequence, so the escaped result stays valid text.
std::string Truncate(std::string_view text, size_t max_chars) {
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (chars == max_chars) return absl::StrCat(std::string(text.substr(0, i)), "…");
    ++chars;
  }
  return std::string(text);
}

size_t CodePoints(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// ---------------------------------------------------------------------------------------------
// Methods, their plot styles and which of them a plot draws.

struct MethodRow {
  std::string name;
  bool baseline = false;
  const json* row = nullptr;
};

std::vector<MethodRow> ReadMethods(const json& report) {
  std::vector<MethodRow> rows;
  for (const json& m : Arr(Get(report, "methods"))) {
    rows.push_back({Str(Get(m, "method")), Bool(Get(m, "baseline")), &m});
  }
  return rows;
}

struct LineStyle {
  std::string color;
  std::string dash;
};

// One style per method for the whole page, so a method has the same colour in every plot. The
// palette has 8 colours; each further cycle adds a dash pattern to keep lines distinguishable.
class MethodStyles {
 public:
  explicit MethodStyles(const std::vector<MethodRow>& rows) {
    for (const MethodRow& r : rows) {
      if (r.baseline) baselines_.insert(r.name);
    }
    for (const MethodRow& r : rows) For(r.name);
  }

  bool IsBaseline(const std::string& method) const { return baselines_.count(method) > 0; }

  const LineStyle& For(const std::string& method) {
    auto it = styles_.find(method);
    if (it != styles_.end()) return it->second;
    LineStyle style;
    if (IsBaseline(method)) {
      style = {kBaselineColor, kBaselineDash};
    } else {
      static constexpr std::array<const char*, 4> kDashes = {"", "7 3", "2 2", "9 3 2 3"};
      style = {CategoricalColor(next_), kDashes[(next_ / 8) % kDashes.size()]};
      ++next_;
    }
    return styles_.emplace(method, style).first->second;
  }

 private:
  std::set<std::string> baselines_;
  std::map<std::string, LineStyle> styles_;
  int next_ = 0;
};

struct Selection {
  std::vector<std::string> drawn;  // best first, baselines last
  int candidates = 0;              // non-baseline methods that have data
  int drawn_candidates = 0;
  bool baseline_drawn = false;
};

// The best `cap` non-baseline methods of `ordered` (best first) for which `has_data` holds,
// then every baseline that has data.
template <typename HasData>
Selection Select(const std::vector<std::string>& ordered, const MethodStyles& styles, int cap,
                 HasData has_data) {
  Selection s;
  std::vector<std::string> baselines;
  for (const std::string& name : ordered) {
    if (!has_data(name)) continue;
    if (styles.IsBaseline(name)) {
      baselines.push_back(name);
      continue;
    }
    ++s.candidates;
    if (s.drawn_candidates < cap) {
      s.drawn.push_back(name);
      ++s.drawn_candidates;
    }
  }
  s.baseline_drawn = !baselines.empty();
  s.drawn.insert(s.drawn.end(), baselines.begin(), baselines.end());
  return s;
}

// Leaderboard order, then names only `section` (an object keyed by method) knows, in key order.
std::vector<std::string> OrderedNames(const std::vector<MethodRow>& rows, const json& section) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const MethodRow& r : rows) {
    if (seen.insert(r.name).second) names.push_back(r.name);
  }
  for (const auto& [name, value] : Obj(section).items()) {
    if (seen.insert(name).second) names.push_back(name);
  }
  return names;
}

std::string CapCaption(const Selection& s, int cap) {
  if (s.candidates <= cap) return "";
  return absl::StrCat("<p class=\"caption\">Showing the best ", s.drawn_candidates, " of ",
                      s.candidates, " methods",
                      s.baseline_drawn ? " and the random-search baseline" : "",
                      "; the tables and the heatmap list every method.</p>\n");
}

// ---------------------------------------------------------------------------------------------
// Small HTML helpers.

std::string HowTo(absl::string_view html) {
  return absl::StrCat("<p class=\"howto\"><b>How to read this.</b> ", html, "</p>\n");
}

std::string Td(absl::string_view text_html, bool numeric = false) {
  return absl::StrCat(numeric ? "<td class=\"n\">" : "<td>", text_html, "</td>");
}

std::string Th(absl::string_view text_html, bool numeric = false) {
  return absl::StrCat(numeric ? "<th class=\"n\">" : "<th>", text_html, "</th>");
}

std::string MethodCell(const std::string& name, bool baseline) {
  return absl::StrCat("<td class=\"m\">", HtmlEscape(name),
                      baseline ? "<span class=\"badge\">baseline</span>" : "", "</td>");
}

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

// ---------------------------------------------------------------------------------------------
// Line chart geometry.

double NiceStep(double span, int target_ticks) {
  double raw = span / target_ticks;
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double f = raw / magnitude;
  double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return nice * magnitude;
}

int StepDecimals(double step) {
  return std::clamp(static_cast<int>(-std::floor(std::log10(step) + 1e-9)), 0, 12);
}

// Integer axis ticks 1, s, 2s, ... up to n, at most ~10 of them.
std::vector<int> IntegerTicks(int n) {
  int step = 1;
  for (int s : {1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000}) {
    step = s;
    if (n / s <= 10) break;
  }
  std::vector<int> ticks = {1};
  for (int v = step; v <= n; v += step) {
    if (v != 1) ticks.push_back(v);
  }
  return ticks;
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string CategoricalColor(int index) {
  // Okabe & Ito (2008), reordered so the low-contrast yellow comes last.
  static constexpr std::array<const char*, 8> kPalette = {
      "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"};
  return kPalette[static_cast<size_t>(std::max(index, 0)) % kPalette.size()];
}

std::string ScoreColor(double score) {
  if (!std::isfinite(score)) return "#bdbdbd";
  // ColorBrewer PuOr, 5 classes, at scores 0, 25, 50, 75, 100; linear in between.
  static constexpr std::array<std::array<int, 3>, 5> kStops = {
      {{179, 88, 6}, {241, 163, 64}, {247, 247, 247}, {153, 142, 195}, {84, 39, 136}}};
  double pos = std::clamp(score, 0.0, 100.0) / 25.0;
  size_t i = std::min<size_t>(static_cast<size_t>(pos), kStops.size() - 2);
  double f = pos - static_cast<double>(i);
  char buf[8];
  int rgb[3];
  for (int c = 0; c < 3; ++c) {
    rgb[c] = static_cast<int>(std::lround(kStops[i][c] + f * (kStops[i + 1][c] - kStops[i][c])));
  }
  std::snprintf(buf, sizeof(buf), "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buf;
}

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

namespace {

// ---------------------------------------------------------------------------------------------
// Sections. Each returns "" when the report has nothing for it.

struct Section {
  const char* id;
  const char* title;
  std::string html;
};

std::string RenderSummary(const json& report, const std::vector<Section>& sections) {
  const std::string phase = Str(Get(report, "phase"));
  std::string out = absl::StrCat("<h1>bbo-arena report", phase.empty() ? "" : ": ",
                                 HtmlEscape(phase), "</h1>\n<dl class=\"meta\">\n");
  auto item = [&](absl::string_view term, const std::string& value_html) {
    if (!value_html.empty())
      absl::StrAppend(&out, "<dt>", term, "</dt><dd>", value_html, "</dd>\n");
  };
  item("Phase", HtmlEscape(phase));
  item("Source", HtmlEscape(Str(Get(report, "source"))));
  item("Generated", HtmlEscape(Str(Get(report, "generated_at"))));
  const double batch_size = Num(Get(report, "batch_size"));
  const double n_batches = Num(Get(report, "n_batches"));
  if (std::isfinite(batch_size) || std::isfinite(n_batches)) {
    item("Budget", absl::StrCat(General(batch_size), " × ", General(n_batches),
                                " (suggestions per batch × batches)"));
  }
  const double alpha = Num(Get(report, "alpha"));
  if (std::isfinite(alpha)) {
    item("α", absl::StrCat(General(alpha), " (error bars and rank intervals are ",
                           General(100 * (1 - alpha)), "% intervals)"));
  }
  const std::vector<MethodRow> rows = ReadMethods(report);
  item("Methods", absl::StrCat(rows.size()));
  absl::StrAppend(&out, "</dl>\n");
  absl::StrAppend(
      &out,
      HowTo("Every score on this page is 100 × (1 − mean normalized performance) (seed 001 "
            "eq. 7): 100 = the best known value of every problem found every time, 0 = the best "
            "value random search is expected to find with the same number of evaluations; "
            "negative = worse than random search. Each section below says how to read it; "
            "plots draw the best methods only, the tables list all. – marks a value that is "
            "undefined (e.g. an error bar from a single problem)."));
  const json& warnings = Arr(Get(report, "warnings"));
  if (!warnings.empty()) {
    absl::StrAppend(&out, "<div class=\"warnings\"><b>Warnings</b><ul>\n");
    for (const json& w : warnings) absl::StrAppend(&out, "<li>", HtmlEscape(Str(w)), "</li>\n");
    absl::StrAppend(&out, "</ul></div>\n");
  }
  absl::StrAppend(&out, "<nav>");
  for (const Section& s : sections) {
    if (!s.html.empty()) absl::StrAppend(&out, "<a href=\"#", s.id, "\">", s.title, "</a>");
  }
  absl::StrAppend(&out, "</nav>\n");
  return out;
}

std::string RsEquivalent(const json& row) {
  const double evals = Num(Get(row, "rs_equivalent_evals"));
  if (!std::isfinite(evals)) return kDash;
  const std::string value = Fixed(evals, evals >= 100 ? 0 : 1);
  const std::string bound = Str(Get(row, "rs_equivalent_bound"));
  if (bound == "at_least") return absl::StrCat("&gt; ", value);
  if (bound == "at_most") return absl::StrCat("≤ ", value);
  return value;
}

std::string RenderLeaderboard(const std::vector<MethodRow>& rows) {
  std::string out = HowTo(
      "Score = 100 × (1 − mean normalized performance after the last batch) (seed 001 eq. 7): "
      "100 means the best known value of every problem was found every time, 0 means the best "
      "value random search is expected to find with the same budget; negative scores are worse "
      "than random search. ± is the error bar of the score. Median score uses the median over "
      "problems, Table 2 median the median over trials. RS-equivalent evaluations: how many "
      "random-search evaluations would do as well (&gt; N: better than the random-search sample "
      "can resolve; ≤ N: no better than that); RS efficiency divides them by the evaluations "
      "used. Rows are best first; the shaded row is the pooled random-search baseline.");
  if (rows.empty()) return absl::StrCat(out, "<p>The report has no methods.</p>\n");
  absl::StrAppend(&out, "<div class=\"scroll\"><table>\n<thead><tr>", Th("#", true), Th("Method"),
                  Th("Score", true), Th("±", true), Th("Median score", true),
                  Th("Table 2 median", true), Th("RS-equivalent evals", true),
                  Th("RS efficiency", true), Th("Complete"), "</tr></thead>\n<tbody>\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& row = *rows[i].row;
    const bool complete = !Get(row, "complete").is_boolean() || Bool(Get(row, "complete"));
    std::string cls;
    if (rows[i].baseline) cls = "baseline";
    if (!complete) absl::StrAppend(&cls, cls.empty() ? "" : " ", "incomplete");
    absl::StrAppend(&out, cls.empty() ? "<tr>" : absl::StrCat("<tr class=\"", cls, "\">"),
                    Td(absl::StrCat(i + 1), true), MethodCell(rows[i].name, rows[i].baseline),
                    Td(Fixed(Num(Get(row, "leaderboard_score")), 2), true),
                    Td(Fixed(100 * std::abs(Last(Nums(Get(row, "mean_perf_error_bar")))), 2), true),
                    Td(Fixed(Num(Get(row, "median_score")), 2), true),
                    Td(Fixed(Num(Get(row, "table2_median_score")), 2), true),
                    Td(RsEquivalent(row), true), Td(Fixed(Num(Get(row, "rs_efficiency")), 2), true),
                    "<td class=\"c\">", complete ? "yes" : "no", "</td></tr>\n");
  }
  absl::StrAppend(&out, "</tbody></table></div>\n");
  return out;
}

std::string RenderScorePlot(const std::vector<MethodRow>& rows, MethodStyles& styles) {
  std::map<std::string, const json*> by_name;
  std::vector<std::string> ordered;
  for (const MethodRow& r : rows) {
    if (by_name.emplace(r.name, r.row).second) ordered.push_back(r.name);
  }
  Selection sel = Select(ordered, styles, kMaxLines, [&](const std::string& name) {
    for (double v : Nums(Get(*by_name[name], "mean_perf"))) {
      if (std::isfinite(v)) return true;
    }
    return false;
  });
  LineChart chart;
  chart.y_label = "normalized score";
  chart.references = {{0, "random search"}, {100, "best known, every time"}};
  for (const std::string& name : sel.drawn) {
    const json& row = *by_name[name];
    LineSeries s;
    s.name = name;
    s.color = styles.For(name).color;
    s.dash = styles.For(name).dash;
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
            "at that batch) (seed 001 eq. 7): 100 = the best known value found every time, "
            "0 = random search's expected best with the same number of evaluations. Higher is "
            "better. The shaded band is ± the error bar (clipped to the plot; absent where the "
            "error bar is undefined)."),
      "<figure>", svg, "</figure>\n", CapCaption(sel, kMaxLines));
}

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
      " and the leaderboard recomputed (seed 001 §4.1). P(top ", k,
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
      "; seed 000 §2.2). Each problem's ranking is a ballot. Borda = total number of methods "
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

// One line per drawn method from anytime.methods[name][key].
std::string AnytimeChart(const std::vector<MethodRow>& rows, const json& methods, const char* key,
                         const std::string& y_label, std::vector<ReferenceLine> references,
                         MethodStyles& styles, std::string* caption) {
  auto series_of = [&](const std::string& name) { return Nums(Get(Get(methods, name), key)); };
  Selection sel =
      Select(OrderedNames(rows, methods), styles, kMaxLines, [&](const std::string& name) {
        for (double v : series_of(name)) {
          if (std::isfinite(v)) return true;
        }
        return false;
      });
  LineChart chart;
  chart.y_label = y_label;
  chart.y_min = 0;
  chart.y_max = 1;
  chart.references = std::move(references);
  for (const std::string& name : sel.drawn) {
    LineSeries s;
    s.name = name;
    s.color = styles.For(name).color;
    s.dash = styles.For(name).dash;
    s.y = series_of(name);
    chart.series.push_back(std::move(s));
  }
  *caption = CapCaption(sel, kMaxLines);
  return RenderLineChartSvg(chart);
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
            "by each batch (seed 002 §1): 1 = every target reached. Higher and further left is "
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
          " bootstrap resamples of the trials (seed 004 §4.2). Lower is better.")),
      "<figure>", svg, "</figure>\n", caption);
}

// Index of `level` in `levels`, or -1.
int LevelIndex(const std::vector<double>& levels, double level) {
  for (size_t i = 0; i < levels.size(); ++i) {
    if (std::abs(levels[i] - level) < 1e-9) return static_cast<int>(i);
  }
  return -1;
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
    for (double v : level_of(name, median)) {
      if (std::isfinite(v)) return true;
    }
    return false;
  });
  LineChart chart;
  chart.y_label = "score of the attained level";
  chart.references = {{0, "random search"}, {100, "best known"}};
  for (const std::string& name : sel.drawn) {
    LineSeries s;
    s.name = name;
    s.color = styles.For(name).color;
    s.dash = styles.For(name).dash;
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
            "100 × (1 − value): 100 = best known value, 0 = random search's expected best. A "
            "narrow band means the method is reliable across seeds."),
      "<figure>", svg, "</figure>\n", CapCaption(sel, cap));
}

std::string RenderHeatmap(const std::vector<MethodRow>& rows, const json& report) {
  // Columns: the report's problem list first (its order is the organizer's), then any problem
  // only a method row mentions.
  std::vector<std::string> columns;
  std::map<std::string, std::string> column_info;
  std::set<std::string> seen;
  for (const json& p : Arr(Get(report, "problems"))) {
    const std::string name = Str(Get(p, "problem"));
    if (!seen.insert(name).second) continue;
    columns.push_back(name);
    std::vector<std::string> attributes;
    for (const json& a : Arr(Get(p, "attributes"))) attributes.push_back(Str(a));
    const double dimension = Num(Get(p, "dimension"));
    std::string info;
    if (dimension > 0) info = absl::StrCat("dimension ", General(dimension));
    if (!attributes.empty()) {
      absl::StrAppend(&info, info.empty() ? "" : "; ", absl::StrJoin(attributes, ", "));
    }
    if (!info.empty()) column_info[name] = absl::StrCat(" (", info, ")");
  }
  std::vector<std::map<std::string, double>> scores(rows.size());
  bool any = false;
  for (size_t i = 0; i < rows.size(); ++i) {
    for (const json& p : Arr(Get(*rows[i].row, "problems"))) {
      const std::string name = Str(Get(p, "problem"));
      if (seen.insert(name).second) columns.push_back(name);
      scores[i][name] = Num(Get(p, "score"));
      any = true;
    }
  }
  if (!any || columns.empty()) return "";

  // Cells shrink to 12 px for 60 problems but stay large enough to point at in small reports.
  const double cell =
      std::clamp(std::floor(720.0 / static_cast<double>(columns.size())), 12.0, 22.0);
  constexpr double kCharWidth = 6.1, kLegendHeight = 48;
  size_t row_chars = 0, column_chars = 0;
  for (const MethodRow& r : rows) row_chars = std::max(row_chars, CodePoints(r.name));
  for (const std::string& c : columns) column_chars = std::max(column_chars, CodePoints(c));
  row_chars = std::min<size_t>(row_chars, 32);
  column_chars = std::min<size_t>(column_chars, 28);
  const double left = 10 + kCharWidth * static_cast<double>(row_chars);
  // Column labels run up and to the right at 60°.
  const double top = 14 + 0.87 * kCharWidth * static_cast<double>(column_chars);
  const double grid_w = cell * static_cast<double>(columns.size());
  const double grid_h = cell * static_cast<double>(rows.size());
  const double width = std::max(
      left + grid_w + 0.5 * kCharWidth * static_cast<double>(column_chars) + 10, left + 420);
  const double height = top + grid_h + kLegendHeight;

  std::string svg = absl::StrCat(
      "<svg width=\"", Coord(width), "\" height=\"", Coord(height), "\" viewBox=\"0 0 ",
      Coord(width), " ", Coord(height),
      "\" font-family=\"sans-serif\" font-size=\"10\" role=\"img\">\n<defs>"
      "<pattern id=\"hm-null\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><rect width=\"4\" height=\"4\" fill=\"#d9d9d9\"/>"
      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"4\" stroke=\"#9e9e9e\" stroke-width=\"1.5\"/>"
      "</pattern><linearGradient id=\"hm-scale\">");
  for (int s = 0; s <= 100; s += 25) {
    absl::StrAppend(&svg, "<stop offset=\"", s, "%\" stop-color=\"", ScoreColor(s), "\"/>");
  }
  absl::StrAppend(&svg, "</linearGradient></defs>\n");
  for (size_t j = 0; j < columns.size(); ++j) {
    const double x = left + cell * (static_cast<double>(j) + 0.5) + 3;
    const double y = top - 4;
    absl::StrAppend(&svg, "<text x=\"", Coord(x), "\" y=\"", Coord(y), "\" transform=\"rotate(-60 ",
                    Coord(x), " ", Coord(y), ")\">", HtmlEscape(Truncate(columns[j], 28)),
                    "<title>", HtmlEscape(columns[j]), HtmlEscape(column_info[columns[j]]),
                    "</title></text>\n");
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const double y = top + cell * static_cast<double>(i);
    absl::StrAppend(&svg, "<text x=\"", Coord(left - 5), "\" y=\"", Coord(y + cell / 2 + 3),
                    "\" text-anchor=\"end\"", rows[i].baseline ? " font-style=\"italic\"" : "", ">",
                    HtmlEscape(Truncate(rows[i].name, 32)), "<title>", HtmlEscape(rows[i].name),
                    "</title></text>\n");
    const std::string method = HtmlEscape(rows[i].name);
    for (size_t j = 0; j < columns.size(); ++j) {
      auto it = scores[i].find(columns[j]);
      const double score = it == scores[i].end() ? kNaN : it->second;
      absl::StrAppend(&svg, "<rect class=\"c\" x=\"", Coord(left + cell * static_cast<double>(j)),
                      "\" y=\"", Coord(y), "\" width=\"", Coord(cell - 1), "\" height=\"",
                      Coord(cell - 1), "\" fill=\"",
                      std::isfinite(score) ? ScoreColor(score) : "url(#hm-null)", "\"><title>",
                      method, " / ", HtmlEscape(columns[j]), ": ",
                      it == scores[i].end()  ? "no trials"
                      : std::isfinite(score) ? Fixed(score, 2)
                                             : "no score",
                      "</title></rect>\n");
    }
  }
  // Colour legend.
  const double ly = top + grid_h + 14;
  const double lx = left;
  absl::StrAppend(&svg, "<rect x=\"", Coord(lx), "\" y=\"", Coord(ly),
                  "\" width=\"300\" "
                  "height=\"10\" fill=\"url(#hm-scale)\" stroke=\"#999\" stroke-width=\"0.5\"/>");
  for (auto [value, label] : {std::pair<double, const char*>{0, "≤ 0 (random search)"},
                              {50, "50"},
                              {100, "100 (best)"}}) {
    absl::StrAppend(&svg, "<text x=\"", Coord(lx + 3 * value), "\" y=\"", Coord(ly + 24),
                    "\" text-anchor=\"",
                    value == 0     ? "start"
                    : value == 100 ? "end"
                                   : "middle",
                    "\">", label, "</text>");
  }
  absl::StrAppend(&svg, "<rect x=\"", Coord(lx + 330), "\" y=\"", Coord(ly),
                  "\" width=\"11\" "
                  "height=\"11\" fill=\"url(#hm-null)\"/><text x=\"",
                  Coord(lx + 346), "\" y=\"", Coord(ly + 9), "\">no score</text>\n</svg>\n");
  return absl::StrCat(
      HowTo("Each cell is one method's score on one problem: 100 × (1 − mean normalized "
            "performance after the last batch), 100 = the best known value found every time "
            "(purple), 0 or below = no better than random search (orange); grey hatching = no "
            "score. Rows follow the leaderboard; hover over a cell for its value."),
      "<div class=\"scroll\">", svg, "</div>\n");
}

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
  // The accessors above never throw, but a report is external input rendered inside a server:
  // should a corner of nlohmann's API still throw, a short page beats a crash.
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
