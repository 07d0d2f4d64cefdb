#include "report/internal/plackett_luce_section.h"

#include <algorithm>
#include <cmath>
#include <map>
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

constexpr char kCitation[] =
    "Wurth, Stegherr, Kemper, Heider and Hähner, <i>Pareto-Optimal Anytime Algorithms via "
    "Bayesian Racing</i>";

bool AnyFinite(const std::vector<double>& v) {
  return std::any_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// "95%" from a band of 0.95; "the" when unreadable.
std::string BandName(double band) {
  return std::isfinite(band) ? absl::StrCat(General(100 * band), "%") : "the";
}

// The time axis of a ranking: batches (the report's own view), or the optimizer's clock (the
// coordinator's seconds view), named by the JSON's "anytime.unit" or, without one, the section's
// default.
struct Axis {
  bool batches = true;
  std::string unit;  // "seconds", ...
  std::vector<double> points;
  bool log_spaced = false;

  // "every batch" / "every timepoint".
  std::string Every() const { return batches ? "every batch" : "every timepoint"; }
  // A time on this clock: "12.5 s", "30 evaluations".
  std::string Time(double t) const {
    return absl::StrCat(
        General(t), unit == "seconds" ? std::string(" s") : absl::StrCat(" ", HtmlEscape(unit)));
  }
};

Axis ReadAxis(const json& pl, const std::string& default_unit) {
  Axis a;
  a.unit = Str(Get(Get(pl, "anytime"), "unit"));
  if (a.unit.empty()) a.unit = default_unit;
  a.batches = a.unit == "batches";
  a.points = Nums(Get(Get(pl, "anytime"), "time"));
  a.log_spaced = Str(Get(Get(pl, "grid"), "spacing")) == "log";
  return a;
}

// How runs are ranked on the optimizer's clock, and what that changes against the batch view.
std::string ClockSentence(const Axis& axis) {
  const std::string grid =
      absl::StrCat(axis.log_spaced ? "a log-spaced grid of optimizer " : "a grid of optimizer ",
                   HtmlEscape(axis.unit));
  std::string range;
  if (axis.points.size() >= 2 && std::isfinite(axis.points.front()) &&
      std::isfinite(axis.points.back())) {
    range = absl::StrCat(" (", axis.points.size(), " timepoints from ",
                         axis.Time(axis.points.front()), " to ", axis.Time(axis.points.back()),
                         ", the longest study's optimizer time)");
  }
  return absl::StrCat(
      "On every run (a problem and a trial index) and at every timepoint t of ", grid, range,
      ", the methods that ran it are ranked by their best value after t ", HtmlEscape(axis.unit),
      " of optimizer time: the time the optimizer held the turn, summed over its batches (what "
      "the study budget counts; evaluating the objective is not in it). A method that has not "
      "finished its first batch by t ranks last; a study that has ended keeps its final value. "
      "A method that finds the same values with less optimizer time ranks higher here than in "
      "the ranking over batches.");
}

std::string Explanation(const json& pl, const Axis& axis) {
  const std::string band = BandName(Num(Get(Get(pl, "final"), "band")));
  const double alpha = Num(Get(Get(pl, "decisions"), "alpha"));
  const std::string every = axis.Every();
  return HowTo(absl::StrCat(
      axis.batches ? "On every run (a problem and a trial index) and after every batch, the "
                     "methods that ran it are ranked by their best value so far."
                   : ClockSentence(axis),
      " A Bayesian Plackett-Luce model of these rankings (", kCitation,
      "; an independent Dirichlet(1) prior at ", every,
      ") gives each method a rating θ: the probability that it is the best method on a random "
      "run ",
      axis.batches ? std::string("after that many batches")
                   : absl::StrCat("after that many ", HtmlEscape(axis.unit), " of optimizer time"),
      ". The ratings of all methods sum to 1; the dashed line 1/n is what n equally good methods "
      "would get. The line is the posterior mean of θ, the shaded band its central ",
      band,
      " credible interval. Unlike the score, θ needs no normalization, no known optimum and no "
      "random-search baseline: it only counts who beat whom, run by run. A method is eliminated "
      "when another one has a higher θ at ",
      every, " with posterior probability at least ", std::isfinite(alpha) ? General(alpha) : "α",
      " at each ", axis.batches ? "batch" : "timepoint",
      "; the methods nobody eliminates form the anytime Pareto set, the methods that are best "
      "for some budget. P(Pareto member) is the posterior probability that no other method "
      "beats it at ",
      every, "."));
}

// The chart draws timepoint k at x = k, so on a log grid its axis is logarithmic in time; its
// ticks are the timepoints' numbers, which this caption turns into times.
std::string TimepointCaption(const Axis& axis) {
  if (axis.batches || axis.points.empty()) return "";
  const size_t n = axis.points.size();
  const size_t step = n <= 20 ? 1 : (n + 9) / 10;
  std::vector<std::string> parts;
  for (size_t k = 0; k < n; k += step) {
    parts.push_back(absl::StrCat(k + 1, " = ", axis.Time(axis.points[k])));
  }
  if ((n - 1) % step != 0) parts.push_back(absl::StrCat(n, " = ", axis.Time(axis.points.back())));
  return absl::StrCat("<p class=\"caption\">Timepoints on the horizontal axis (optimizer time",
                      axis.log_spaced ? ", log-spaced: the axis is logarithmic in time" : "",
                      "): ", absl::StrJoin(parts, ", "), ".</p>\n");
}

std::string ModelCaption(const json& pl, const Axis& axis) {
  const json& model = Get(pl, "model");
  const json& diag = Get(pl, "diagnostics");
  const std::string inference = Str(Get(model, "inference"));
  const std::string how =
      inference == "gibbs"
          ? absl::StrCat("exact Gibbs sampling, ", General(Num(Get(model, "chains"))), " chains × ",
                         General(Num(Get(model, "draws_per_chain"))), " draws after ",
                         General(Num(Get(model, "warmup"))), " warm-up sweeps")
      : inference == "laplace" ? std::string("the Laplace approximation")
                               : HtmlEscape(inference);
  const double rhat = Num(Get(diag, "max_rhat"));
  const double ess = Num(Get(diag, "min_ess_bulk"));
  std::string out =
      absl::StrCat("<p class=\"caption\">Model: independent Dirichlet(",
                   General(Num(Get(model, "alpha"))), ") at ", axis.Every(), ", ", how, "; ",
                   General(Num(Get(model, "runs"))), " runs with at least two methods.");
  if (std::isfinite(rhat) || std::isfinite(ess)) {
    absl::StrAppend(&out, " Largest R-hat ", Fixed(rhat, 3),
                    ", smallest bulk effective sample size ", Fixed(ess, 0),
                    " (below 1.01 and above 400: the sampler has converged).");
  }
  const json& selection = Get(pl, "selection");
  const std::string uniform = Str(Get(Get(selection, "uniform"), "best"));
  const std::string final_best = Str(Get(Get(selection, "final"), "best"));
  if (!uniform.empty() && !final_best.empty()) {
    absl::StrAppend(&out, " Highest expected θ averaged over all ",
                    axis.batches ? "batches" : "timepoints", ": ", HtmlEscape(uniform),
                    axis.batches ? "; after the last batch: " : "; at the last timepoint: ",
                    HtmlEscape(final_best), ".");
  }
  absl::StrAppend(&out, "</p>\n");
  return out;
}

// θ after every batch, one line and band per drawn method.
std::string RatingPlot(const std::vector<MethodRow>& rows, const json& pl, const Axis& axis,
                       MethodStyles& styles) {
  const json& anytime = Get(pl, "anytime");
  const json& mean = Get(anytime, "mean");
  const json& lower = Get(anytime, "lower");
  const json& upper = Get(anytime, "upper");
  Selection sel = Select(OrderedNames(rows, mean), styles, kMaxLines,
                         [&](const std::string& name) { return AnyFinite(Nums(Get(mean, name))); });
  LineChart chart;
  if (!axis.batches) {
    chart.x_label = absl::StrCat("optimizer ", axis.unit,
                                 axis.log_spaced ? " (log scale): timepoint number, times below"
                                                 : ": timepoint number, times below");
  }
  chart.y_label = "θ = P(best on a random run)";
  chart.y_min = 0;
  double top = 0;
  for (const std::string& name : sel.drawn) {
    LineSeries s;
    s.name = name;
    s.color = styles.For(name).color;
    s.dash = styles.For(name).dash;
    s.y = Nums(Get(mean, name));
    s.band_lo = Nums(Get(lower, name));
    s.band_hi = Nums(Get(upper, name));
    for (const std::vector<double>* v : {&s.y, &s.band_hi}) {
      for (double x : *v) {
        if (std::isfinite(x)) top = std::max(top, x);
      }
    }
    chart.series.push_back(std::move(s));
  }
  // Up to the highest band (θ <= 1), on a tenth, so bands are not cut at the top.
  chart.y_max = std::clamp(std::ceil(top * 10 - 1e-9) / 10, 0.1, 1.0);
  const size_t n = Arr(Get(pl, "methods")).size();
  if (n >= 2) chart.references = {{1.0 / static_cast<double>(n), "1/n: all methods equal"}};
  const std::string svg = RenderLineChartSvg(chart);
  if (svg.empty()) return "";
  return absl::StrCat("<figure>", svg, "</figure>\n", TimepointCaption(axis),
                      CapCaption(sel, kMaxLines));
}

// Every method, highest final posterior mean first; Pareto members marked.
std::string ParetoTable(const json& pl, const Axis& axis) {
  const json& final_ = Get(pl, "final");
  const json& mean = Get(final_, "posterior_mean");
  const json& lower = Get(final_, "lower");
  const json& upper = Get(final_, "upper");
  const json& p_pareto = Get(pl, "p_pareto");
  const json& eliminated_by = Get(Get(pl, "decisions"), "eliminated_by");
  std::map<std::string, bool> pareto;
  for (const json& m : Arr(Get(pl, "pareto_set"))) pareto[Str(m)] = true;
  std::vector<std::pair<double, std::string>> order;
  for (const json& m : Arr(Get(pl, "methods"))) {
    const std::string name = Str(m);
    const double v = Num(Get(mean, name));
    order.emplace_back(std::isfinite(v) ? -v : 0.0, name);
  }
  if (order.empty()) return "";
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const double time = Num(Get(final_, "time"));
  const std::string band = BandName(Num(Get(final_, "band")));
  std::string out = absl::StrCat(
      "<div class=\"scroll\"><table id=\"pareto-table\">\n<thead><tr>", Th("#", true), Th("Method"),
      Th("Anytime Pareto set"), Th("P(Pareto member)", true),
      Th(axis.batches ? absl::StrCat("θ after batch ", General(time), " (posterior mean)")
                      : absl::StrCat("θ at ", axis.Time(time), " (posterior mean)"),
         true),
      Th(absl::StrCat(band, " credible band"), true), Th("Eliminated by"),
      "</tr></thead>\n<tbody>\n");
  int i = 0;
  for (const auto& [key, name] : order) {
    const bool member = pareto.count(name) > 0;
    const std::string by = Str(Get(eliminated_by, name));
    absl::StrAppend(&out, member ? "<tr class=\"pareto\">" : "<tr>", Td(absl::StrCat(++i), true),
                    MethodCell(name, false), Td(member ? "✓ member" : ""),
                    Td(Fixed(Num(Get(p_pareto, name)), 3), true),
                    Td(Fixed(Num(Get(mean, name)), 3), true),
                    Td(absl::StrCat("[", Fixed(Num(Get(lower, name)), 3), ", ",
                                    Fixed(Num(Get(upper, name)), 3), "]"),
                       true),
                    Td(by.empty() ? "" : HtmlEscape(by)), "</tr>\n");
  }
  absl::StrAppend(&out, "</tbody></table></div>\n");
  return out;
}

// One ranking from its JSON `pl`; `default_unit` names its clock when the JSON does not.
std::string RenderRanking(const std::vector<MethodRow>& rows, const json& pl,
                          const std::string& default_unit, MethodStyles& styles) {
  if (!pl.is_object()) return "";
  const Axis axis = ReadAxis(pl, default_unit);
  const std::string error = Str(Get(pl, "error"));
  if (!error.empty() || !Get(pl, "final").is_object()) {
    return absl::StrCat(
        Explanation(pl, axis), "<p class=\"note\">The Bayesian ranking was not computed: ",
        HtmlEscape(error.empty() ? "the report holds no ratings" : error), ".</p>\n");
  }
  std::vector<std::string> pareto;
  for (const json& m : Arr(Get(pl, "pareto_set"))) pareto.push_back(HtmlEscape(Str(m)));
  return absl::StrCat(Explanation(pl, axis), RatingPlot(rows, pl, axis, styles),
                      "<h3>Anytime Pareto set</h3>\n<p>",
                      pareto.empty() ? std::string("No method is in the anytime Pareto set.")
                                     : absl::StrCat(pareto.size() == 1 ? "Member: " : "Members: ",
                                                    absl::StrJoin(pareto, ", "), "."),
                      "</p>\n", ParetoTable(pl, axis), ModelCaption(pl, axis));
}

}  // namespace

std::string RenderPlackettLuce(const std::vector<MethodRow>& rows, const json& report,
                               MethodStyles& styles) {
  return RenderRanking(rows, Get(report, "plackett_luce"), "batches", styles);
}

std::string RenderPlackettLuceSeconds(const std::vector<MethodRow>& rows, const json& report,
                                      MethodStyles& styles) {
  return RenderRanking(rows, Get(report, "plackett_luce_seconds"), "seconds", styles);
}

}  // namespace bbo::scoring::internal
