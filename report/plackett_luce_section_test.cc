// The Plackett-Luce part of a report end to end: ComputeReport -> ReportJson -> the HTML section
// and the CSV tables, on inputs whose ranking is known, and its cost at the demo's size.

#include <chrono>
#include <ctime>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/report.h"
#include "report/report_html.h"
#include "scoring/plackett_luce/dirichlet_model.h"
#include "scoring/plackett_luce/rankings.h"
#include "scoring/plackett_luce/traces.h"

namespace bbo::scoring {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

// `problems` problems with `n_batches` batches of one; random search evaluates 1..16 (known
// optimum 0). Method m's value on every trial of every problem after batch b is
// level[m] + 1 / (b + 1) plus noise of size `noise`: lower levels win more often.
ScoringInput RankedInput(const std::vector<std::pair<std::string, double>>& methods,
                         int problems, int trials, int n_batches, double noise, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  ScoringInput in;
  in.n_batches = n_batches;
  in.batch_size = 1;
  for (int p = 0; p < problems; ++p) {
    const std::string name = absl::StrCat("p", p);
    ProblemBaselineInput b;
    for (int v = 1; v <= 16; ++v) b.random_evals.push_back(v);
    b.known_optimum = 0.0;
    in.problems[name] = b;
    for (const auto& [method, level] : methods) {
      for (int n = 0; n < trials; ++n) {
        TrialCurve c;
        for (int t = 0; t < n_batches; ++t) {
          c.batch_min.push_back(level + 1.0 / (t + 1) + noise * u(rng));
        }
        in.methods[method][name].trials.push_back(c);
      }
    }
  }
  return in;
}

ReportOptions FastOptions() {
  ReportOptions o;
  o.bootstrap.replicates = 50;
  o.anytime_replicates = 5;
  return o;
}

std::string SectionOf(const std::string& html, const std::string& id) {
  const size_t begin = html.find(absl::StrCat("<section id=\"", id, "\">"));
  if (begin == std::string::npos) return "";
  return html.substr(begin, html.find("</section>", begin) - begin);
}

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// The stroke colour of the line titled `method` in `svg`, or "".
std::string StrokeOf(const std::string& svg, const std::string& method) {
  std::smatch m;
  const std::regex line(absl::StrCat(R"re(<polyline points="[^"]*" fill="none" stroke="([^"]*)"[^>]*><title>)re",
                                     method, "</title>"));
  return std::regex_search(svg, m, line) ? std::string(m[1]) : "";
}

// "always" wins every run at every batch; "middle" and "noisy" share the rest.
ScoringInput ThreeMethods() {
  ScoringInput in = RankedInput({{"middle", 3}, {"noisy", 3}}, 4, 3, 5, 2.0, 11);
  ScoringInput best = RankedInput({{"always", 0}}, 4, 3, 5, 0.5, 12);
  for (auto& [problem, data] : best.methods["always"]) in.methods["always"][problem] = data;
  return in;
}

TEST(ReportPlackettLuceTest, JsonHasAFinalMeanPerMethodSummingToOneAndTheWinnerLeads) {
  const ScoringInput in = ThreeMethods();
  auto report = ComputeReport(in, FastOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_NE(report->plackett_luce, nullptr);
  ASSERT_TRUE(report->plackett_luce->batches.ok()) << report->plackett_luce->batches.status();
  EXPECT_FALSE(report->plackett_luce->seconds.has_value());  // no timings in this input
  const json j = ReportJson(*report, in);
  const json& pl = j["plackett_luce"];
  EXPECT_EQ(pl["layout"], "bbo-arena/plackett-luce/1");
  EXPECT_FALSE(pl.contains("error"));
  const json& mean = pl["final"]["posterior_mean"];
  double sum = 0;
  for (const char* m : {"always", "middle", "noisy"}) {
    ASSERT_TRUE(mean.contains(m)) << m;
    ASSERT_TRUE(mean[m].is_number()) << m;
    sum += mean[m].get<double>();
    EXPECT_LE(pl["final"]["lower"][m].get<double>(), mean[m].get<double>()) << m;
    EXPECT_GE(pl["final"]["upper"][m].get<double>(), mean[m].get<double>()) << m;
    EXPECT_EQ(pl["anytime"]["mean"][m].size(), 5u) << m;
  }
  // Every draw lies on the simplex, so the means sum to 1 up to rounding (well inside MC error).
  EXPECT_NEAR(sum, 1.0, 1e-6);
  EXPECT_GT(mean["always"].get<double>(), mean["middle"].get<double>());
  EXPECT_GT(mean["always"].get<double>(), mean["noisy"].get<double>());
  // 12 runs, each won by "always": theta ~ Beta-like with mean well above 1/3.
  EXPECT_GT(mean["always"].get<double>(), 0.6);
  EXPECT_THAT(pl["pareto_set"], ::testing::Contains("always"));
  EXPECT_EQ(pl["pareto_set"].size(), 1u) << pl["pareto_set"].dump();
  EXPECT_EQ(pl["decisions"]["eliminated_by"]["middle"], "always");
  EXPECT_EQ(pl["model"]["runs"], 12);
}

TEST(ReportPlackettLuceTest, HtmlHasTheSectionAPlotWithOneBandPerMethodAndTheParetoTable) {
  const ScoringInput in = ThreeMethods();
  auto report = ComputeReport(in, FastOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  const std::string html = RenderReportHtml(ReportJson(*report, in));
  const std::string section = SectionOf(html, "plackett-luce");
  ASSERT_FALSE(section.empty());
  EXPECT_THAT(section, HasSubstr("<h2>Bayesian ranking over time (Plackett-Luce)</h2>"));
  EXPECT_THAT(section, HasSubstr("Wurth, Stegherr, Kemper, Heider and Hähner"));
  EXPECT_THAT(section, HasSubstr("Pareto-Optimal Anytime Algorithms via Bayesian Racing"));
  EXPECT_THAT(html, HasSubstr("<a href=\"#plackett-luce\">"));
  // The rating plot: one line and one credible band per method (3 methods, 5 batches).
  ASSERT_EQ(Count(section, "<svg"), 1);
  EXPECT_EQ(Count(section, "<polygon"), 3);
  EXPECT_EQ(Count(section, "<polyline"), 3);
  EXPECT_THAT(section, HasSubstr("1/n: all methods equal"));
  // The table: every method, the winner first and marked as the only Pareto member.
  EXPECT_THAT(section, HasSubstr("<table id=\"pareto-table\">"));
  EXPECT_EQ(Count(section, "<tr class=\"pareto\">"), 1);
  EXPECT_THAT(section, HasSubstr("<tr class=\"pareto\"><td class=\"n\">1</td><td class=\"m\">always"));
  EXPECT_THAT(section, HasSubstr("<p>Member: always.</p>"));
  EXPECT_THAT(section, HasSubstr("<td>always</td></tr>"));  // eliminated by
  EXPECT_THAT(section, HasSubstr("95% credible band"));
  // A method has the same colour here as in the score plot.
  const std::string always = StrokeOf(section, "always");
  EXPECT_FALSE(always.empty());
  EXPECT_EQ(always, StrokeOf(SectionOf(html, "score-vs-batch"), "always"));
  EXPECT_NE(always, StrokeOf(section, "middle"));
}

TEST(ReportPlackettLuceTest, OneMethodExplainsWhyInsteadOfFailing) {
  const ScoringInput in = RankedInput({{"alone", 1}}, 2, 2, 3, 0.5, 3);
  auto report = ComputeReport(in, FastOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->plackett_luce->batches.status().code(), absl::StatusCode::kFailedPrecondition);
  const json j = ReportJson(*report, in);
  EXPECT_EQ(j["plackett_luce"]["layout"], "bbo-arena/plackett-luce/1");
  EXPECT_THAT(j["plackett_luce"]["error"].get<std::string>(), HasSubstr("at least two methods"));
  const std::string section = SectionOf(RenderReportHtml(j), "plackett-luce");
  EXPECT_THAT(section, HasSubstr("The Bayesian ranking was not computed: "));
  EXPECT_THAT(section, HasSubstr("at least two methods with results, and this report has 1"));
  EXPECT_THAT(section, Not(HasSubstr("<svg")));
  const auto csv = ReportCsv(j);
  ASSERT_EQ(csv.count("plackett_luce.csv"), 1u);
  EXPECT_THAT(csv.at("plackett_luce.csv"), HasSubstr("at least two methods"));
}

TEST(ReportPlackettLuceTest, CanBeSwitchedOffAndOldReportsHaveNoSection) {
  const ScoringInput in = ThreeMethods();
  ReportOptions o = FastOptions();
  o.plackett_luce = false;
  auto report = ComputeReport(in, o);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->plackett_luce, nullptr);
  json j = ReportJson(*report, in);
  EXPECT_THAT(j["plackett_luce"]["error"].get<std::string>(), HasSubstr("not computed"));
  j.erase("plackett_luce");
  EXPECT_EQ(SectionOf(RenderReportHtml(j), "plackett-luce"), "");
  EXPECT_EQ(ReportCsv(j).count("plackett_luce.csv"), 0u);
}

TEST(ReportPlackettLuceTest, CsvHasTheRankingPerMethodPerBatchAndPerPair) {
  const ScoringInput in = ThreeMethods();
  auto report = ComputeReport(in, FastOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  const auto csv = ReportCsv(ReportJson(*report, in));
  ASSERT_EQ(csv.count("plackett_luce.csv"), 1u);
  ASSERT_EQ(csv.count("plackett_luce_anytime.csv"), 1u);
  ASSERT_EQ(csv.count("plackett_luce_pairs.csv"), 1u);
  const std::string& summary = csv.at("plackett_luce.csv");
  EXPECT_EQ(summary.substr(0, summary.find('\n')),
            "method,time,posterior_mean,lower,upper,band,pareto,p_pareto,eliminated_by,resolved,"
            "expected_uniform,p_best_uniform,expected_final,p_best_final,model,inference,"
            "prior_alpha,chains,draws_per_chain,warmup,seed,runs,alpha,epsilon,max_rhat,"
            "min_ess_bulk,seconds,error");
  EXPECT_THAT(summary, HasSubstr("\nalways,5,"));
  EXPECT_THAT(summary, HasSubstr(",0.94999999999999996,true,"));
  EXPECT_THAT(summary, HasSubstr(",false,"));
  EXPECT_EQ(Count(summary, "\n"), 4);
  // 3 methods x 5 batches; 3 pairs x 5 batches.
  EXPECT_EQ(Count(csv.at("plackett_luce_anytime.csv"), "\n"), 1 + 15);
  EXPECT_THAT(csv.at("plackett_luce_anytime.csv"), HasSubstr("\nalways,0,1,"));
  EXPECT_EQ(Count(csv.at("plackett_luce_pairs.csv"), "\n"), 1 + 15);
}

TEST(ReportPlackettLuceTest, SectionEscapesNamesAndToleratesWrongTypes) {
  const ScoringInput in = ThreeMethods();
  auto report = ComputeReport(in, FastOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  json j = ReportJson(*report, in);
  // A name holding markup, everywhere the section reads names.
  const std::string evil = "<script>x</script>";
  std::string dumped = j["plackett_luce"].dump();
  for (size_t at = dumped.find("\"always\""); at != std::string::npos;
       at = dumped.find("\"always\"", at + 1)) {
    dumped.replace(at, 8, "\"<script>x</script>\"");
  }
  j["plackett_luce"] = json::parse(dumped);
  const std::string section = SectionOf(RenderReportHtml(j), "plackett-luce");
  EXPECT_THAT(section, Not(HasSubstr(evil)));
  EXPECT_THAT(section, HasSubstr("&lt;script&gt;x&lt;/script&gt;"));
  for (const json& pl :
       {json(3), json::array(), json{{"error", 5}}, json{{"final", 3}},
        json{{"final", {{"posterior_mean", {{"a", "x"}}}, {"band", "y"}}},
             {"methods", {1, nullptr, "a"}},
             {"pareto_set", "x"},
             {"anytime", {{"mean", {{"a", {nullptr, "z", 0.5}}}}, {"lower", 1}}},
             {"decisions", {{"eliminated_by", {{"a", 7}}}}},
             {"model", {{"runs", "many"}}}}}) {
    json broken = j;
    broken["plackett_luce"] = pl;
    std::string html;
    ASSERT_NO_THROW(html = RenderReportHtml(broken)) << pl.dump();
    EXPECT_THAT(html, HasSubstr("<section id=\"leaderboard\">")) << pl.dump();
    ASSERT_NO_THROW(ReportCsv(broken)) << pl.dump();
    EXPECT_FALSE(std::regex_search(html, std::regex(R"(\b-?(nan|inf)\b)", std::regex::icase)))
        << pl.dump();
  }
}

// The demo's size (4 methods x 13 problems x 5 trials x 16 batches): the ranking must not make
// `bbo report` slow. CPU seconds, which a loaded machine does not inflate as it does wall time.
TEST(ReportPlackettLuceTest, DemoSizeCostsWellUnderTwoSeconds) {
  const ScoringInput in = RankedInput({{"a", 0.5}, {"b", 0.6}, {"c", 0.7}, {"d", 2}}, 13, 5, 16,
                                      1.0, 5);
  const std::clock_t cpu0 = std::clock();
  const auto wall0 = std::chrono::steady_clock::now();
  auto pl = ReportPlackettLuce(in);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  ASSERT_TRUE(pl.ok()) << pl.status();
  EXPECT_EQ(pl->runs, 65);
  EXPECT_EQ(pl->inference, "gibbs");
  std::printf("Plackett-Luce at 4 x 13 x 5 x 16: %.3f s wall, %.3f s CPU\n", wall, cpu);
  EXPECT_LT(cpu, 2.0);
}

// A seconds view as the coordinator writes it (server/plackett_luce_seconds.h): on 4 runs "fast"
// finds what "slow" finds, each batch ten times sooner; a log grid from 0.1 s to 16 s.
json SecondsView() {
  pl::TraceSet traces;
  for (int run = 0; run < 4; ++run) {
    std::vector<double> fast_t, slow_t, values;
    for (int b = 0; b < 16; ++b) {
      fast_t.push_back(0.1 * (b + 1));
      slow_t.push_back(1.0 * (b + 1));
      values.push_back(10.0 - b);
    }
    traces["fast"][{"p", run}] = *pl::StepTraceFromEvaluations(fast_t, values);
    traces["slow"][{"p", run}] = *pl::StepTraceFromEvaluations(slow_t, values);
  }
  const pl::TimeGrid grid = *pl::LogGrid(0.1, 16, 16, "seconds");
  const pl::RankingSet rankings = *pl::RankingsFromTraces(traces, grid);
  pl::PlackettLuceSummary summary =
      *pl::SummarizePlackettLuce(*pl::FitIndependentDirichlet(rankings));
  summary.runs = rankings.runs;
  json j = pl::PlackettLuceJson(summary);
  j["grid"] = {{"spacing", "log"}, {"clock", "optimizer seconds"}};
  return j;
}

TEST(ReportPlackettLuceTest, SecondsViewIsItsOwnSectionAfterTheBatchOneOnALogTimeAxis) {
  const ScoringInput in = ThreeMethods();
  auto report = ComputeReport(in, FastOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  json j = ReportJson(*report, in);
  j["plackett_luce_seconds"] = SecondsView();
  const std::string html = RenderReportHtml(j);
  const std::string section = SectionOf(html, "plackett-luce-seconds");
  ASSERT_FALSE(section.empty());
  EXPECT_THAT(section,
              HasSubstr("<h2>Bayesian ranking over optimizer time (Plackett-Luce)</h2>"));
  EXPECT_THAT(html, HasSubstr("<a href=\"#plackett-luce-seconds\">"));
  // Right after the batch view.
  const size_t batches = html.find("<section id=\"plackett-luce\">");
  const size_t seconds = html.find("<section id=\"plackett-luce-seconds\">");
  ASSERT_NE(batches, std::string::npos);
  EXPECT_LT(batches, seconds);
  EXPECT_EQ(html.find("<section", batches + 1), seconds);
  // Worded for the clock: timepoints of a log grid of optimizer seconds, not batches.
  EXPECT_THAT(section, HasSubstr("at every timepoint t of a log-spaced grid of optimizer "
                                 "seconds (16 timepoints from 0.1 s to 16 s"));
  EXPECT_THAT(section, HasSubstr("of optimizer time"));
  EXPECT_THAT(section, Not(HasSubstr("batch 16")));
  EXPECT_THAT(section, Not(HasSubstr("every batch")));
  // The same plot (one line and band per method), its axis named and its timepoints timed.
  ASSERT_EQ(Count(section, "<svg"), 1);
  EXPECT_EQ(Count(section, "<polyline"), 2);
  EXPECT_EQ(Count(section, "<polygon"), 2);
  EXPECT_THAT(section, HasSubstr("optimizer seconds (log scale): timepoint number, times below"));
  EXPECT_THAT(section, HasSubstr("Timepoints on the horizontal axis (optimizer time, log-spaced: "
                                 "the axis is logarithmic in time): 1 = 0.1 s, 2 = "));
  EXPECT_THAT(section, HasSubstr(", 16 = 16 s.</p>"));
  // The same table; "fast" leads on the clock, and keeps its colour from the other plots.
  EXPECT_THAT(section, HasSubstr("θ at 16 s (posterior mean)"));
  EXPECT_THAT(section, HasSubstr("Highest expected θ averaged over all timepoints: fast"));
  EXPECT_THAT(section, HasSubstr("at every timepoint, exact Gibbs sampling"));
  // The batch view is worded as before.
  const std::string batch_section = SectionOf(html, "plackett-luce");
  EXPECT_THAT(batch_section, HasSubstr("θ after batch 5 (posterior mean)"));
  EXPECT_THAT(batch_section, Not(HasSubstr("Timepoints on the horizontal axis")));
  EXPECT_THAT(batch_section, Not(HasSubstr("optimizer")));
}

TEST(ReportPlackettLuceTest, SecondsSectionIsLeftOutWithoutTheKeyAndExplainsAnError) {
  const ScoringInput in = ThreeMethods();
  auto report = ComputeReport(in, FastOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  // An offline report (results CSV, no timings) has no seconds view and no section for it.
  json j = ReportJson(*report, in);
  EXPECT_FALSE(j.contains("plackett_luce_seconds"));
  std::string html = RenderReportHtml(j);
  EXPECT_EQ(SectionOf(html, "plackett-luce-seconds"), "");
  EXPECT_THAT(html, Not(HasSubstr("#plackett-luce-seconds")));
  EXPECT_FALSE(SectionOf(html, "plackett-luce").empty());
  // The coordinator could not rank: the section says why, in the clock's words.
  j["plackett_luce_seconds"] = {{"layout", "bbo-arena/plackett-luce/1"},
                                {"error", "no optimizer time was recorded <for> the studies"}};
  html = RenderReportHtml(j);
  const std::string section = SectionOf(html, "plackett-luce-seconds");
  EXPECT_THAT(section, HasSubstr("The Bayesian ranking was not computed: no optimizer time was "
                                 "recorded &lt;for&gt; the studies."));
  EXPECT_THAT(section, HasSubstr("seconds of optimizer time"));
  EXPECT_THAT(section, Not(HasSubstr("<svg")));
  // Wrong types anywhere: no exception, no "nan".
  for (const json& broken :
       {json(3), json::array(), json{{"anytime", {{"unit", 5}, {"time", "x"}}}, {"grid", 7}},
        json{{"final", {{"time", "z"}}},
             {"anytime", {{"unit", "seconds"}, {"time", {nullptr, 1, "x"}}}},
             {"grid", {{"spacing", "log"}}},
             {"methods", {"a"}}}}) {
    json k = j;
    k["plackett_luce_seconds"] = broken;
    ASSERT_NO_THROW(html = RenderReportHtml(k)) << broken.dump();
    EXPECT_THAT(html, HasSubstr("<section id=\"leaderboard\">")) << broken.dump();
    EXPECT_FALSE(std::regex_search(html, std::regex(R"(\b-?(nan|inf)\b)", std::regex::icase)))
        << broken.dump();
  }
}

}  // namespace
}  // namespace bbo::scoring
