#include "report/report_html.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace bbo::scoring {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A method row whose normalized mean performance falls linearly from `start` to `end`.
json Method(const std::string& name, double start, double end, int batches,
            const std::vector<std::string>& problems, bool baseline = false) {
  json perf = json::array();
  json error_bar = json::array();
  for (int t = 0; t < batches; ++t) {
    perf.push_back(batches == 1 ? end : start + (end - start) * t / (batches - 1));
    error_bar.push_back(0.02);
  }
  json rows = json::array();
  for (size_t p = 0; p < problems.size(); ++p) {
    rows.push_back({{"problem", problems[p]},
                    {"trials", 5},
                    {"score", 100 * (1 - end) - static_cast<double>(p % 7)},
                    {"normalized_mean", perf}});
  }
  return {{"method", name},
          {"leaderboard_score", 100 * (1 - end)},
          {"median_score", 100 * (1 - end) + 1},
          {"table2_median_score", 100 * (1 - end) + 2},
          {"mean_perf", perf},
          {"mean_perf_error_bar", error_bar},
          {"normalized_mean_perf", perf},
          {"median_perf", perf},
          {"rs_equivalent_evals", 1000 * (1.1 - end)},
          {"rs_equivalent_bound", "exact"},
          {"rs_efficiency", 1.1 - end},
          {"complete", true},
          {"baseline", baseline},
          {"problems", rows}};
}

std::vector<std::string> ProblemNames(int n) {
  std::vector<std::string> names;
  for (int p = 0; p < n; ++p) names.push_back(absl::StrCat("problem_", p));
  return names;
}

// Names of `methods` in leaderboard order; the last one is the random-search baseline.
std::vector<std::string> MethodNames(int n) {
  std::vector<std::string> names;
  for (int m = 0; m + 1 < n; ++m) names.push_back(absl::StrCat("optimizer-", m));
  names.push_back("random-search-baseline");
  return names;
}

// A report with every section: `n_methods` rows (the last the baseline), `n_problems`
// problems, `n_batches` batches.
json FullReport(int n_methods, int n_problems, int n_batches) {
  const std::vector<std::string> problems = ProblemNames(n_problems);
  const std::vector<std::string> methods = MethodNames(n_methods);
  json report = {{"schema", "bbo-arena/report/1"},
                 {"phase", "practice"},
                 {"source", "arena.sqlite"},
                 {"generated_at", "2024-05-01T12:00:00Z"},
                 {"batch_size", 8},
                 {"n_batches", n_batches},
                 {"alpha", 0.05},
                 {"warnings", {"ragged input: trial counts differ"}}};
  report["methods"] = json::array();
  for (int m = 0; m < n_methods; ++m) {
    const bool baseline = m + 1 == n_methods;
    const double end = baseline ? 1.0 : 0.05 + 0.9 * m / n_methods;
    report["methods"].push_back(Method(methods[m], 1.0, end, n_batches, problems, baseline));
  }
  report["problems"] = json::array();
  for (int p = 0; p < n_problems; ++p) {
    report["problems"].push_back({{"problem", problems[p]},
                                  {"dimension", 2 + p % 10},
                                  {"attributes", p % 3 == 0 ? json{"noisy"} : json::array()},
                                  {"opt", 0.0},
                                  {"clip", 1.0}});
  }
  json boot_methods = json::array();
  for (int m = 0; m < n_methods; ++m) {
    json counts = json::array();
    for (int r = 0; r < n_methods; ++r) counts.push_back(r == m ? 900 : (r == m + 1 ? 100 : 0));
    boot_methods.push_back({{"method", methods[m]},
                            {"rank_counts", counts},
                            {"p_top_k", m < 5 ? 1.0 : 0.0},
                            {"rank_interval", {m + 1, m + 2}}});
  }
  report["bootstrap"] = {{"replicates", 1000},
                         {"seed", 1},
                         {"top_k", 5},
                         {"methods", boot_methods},
                         {"top_rankings",
                          {{{"ranking", {methods[0], methods[1]}}, {"frequency", 0.6}},
                           {{"ranking", {methods[1], methods[0]}}, {"frequency", 0.4}}}}};
  json borda_rows = json::array();
  for (int m = 0; m < n_methods; ++m) {
    borda_rows.push_back({{"method", methods[m]},
                          {"borda", n_methods - m},
                          {"firsts", m == 0 ? n_problems : 0},
                          {"top_three", m < 3 ? n_problems : 0}});
  }
  report["nonparametric"] = {{"familywise_alpha", 0.05},
                             {"pairwise_alpha", 0.001},
                             {"rows", borda_rows},
                             {"ballots", json::object()},
                             {"groups",
                              {{{"kind", "dimension"},
                                {"group", "4-7"},
                                {"problems", {"problem_2", "problem_3"}},
                                {"rows", borda_rows}},
                               {{"kind", "attribute"},
                                {"group", "noisy"},
                                {"problems", {"problem_0"}},
                                {"rows", borda_rows}}}}};
  json anytime = json::object();
  json attainment = json::object();
  for (int m = 0; m < n_methods; ++m) {
    json ecdf = json::array(), rank = json::array();
    std::vector<json> levels(5, json::array());
    for (int t = 0; t < n_batches; ++t) {
      ecdf.push_back((t + 1.0) / n_batches * (1 - 0.5 * m / n_methods));
      rank.push_back(static_cast<double>(m) / n_methods);
      for (int l = 0; l < 5; ++l) levels[l].push_back(0.1 + 0.15 * l + 0.01 * m);
    }
    anytime[methods[m]] = {{"ecdf_runtime_to_target", ecdf}, {"avg_fractional_rank", rank}};
    attainment[methods[m]] = levels;
  }
  report["anytime"] = {{"rank_bootstrap_replicates", 200}, {"methods", anytime}};
  report["attainment"] = {{"levels", {0, 0.25, 0.5, 0.75, 1}}, {"methods", attainment}};
  return report;
}

// The text of <section id="`id`"> ... </section>, or "" when absent.
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

struct Polyline {
  std::string title;
  std::vector<std::pair<double, double>> points;
};

std::vector<Polyline> Polylines(const std::string& svg) {
  static const std::regex kPolyline(
      R"re(<polyline points="([^"]*)"[^>]*><title>([^<]*)</title>)re");
  std::vector<Polyline> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kPolyline);
       it != std::sregex_iterator(); ++it) {
    Polyline line{(*it)[2], {}};
    std::string points = (*it)[1];
    std::regex pair(R"(([-0-9.]+),([-0-9.]+))");
    for (auto p = std::sregex_iterator(points.begin(), points.end(), pair);
         p != std::sregex_iterator(); ++p) {
      line.points.emplace_back(std::stod((*p)[1]), std::stod((*p)[2]));
    }
    out.push_back(line);
  }
  return out;
}

// True when a NaN or infinity leaked into the text or into an attribute value.
bool HasNonFiniteText(const std::string& html) {
  static const std::regex kWord(R"(\b-?(nan|inf|infinity)\b)", std::regex::icase);
  static const std::regex kAttribute(R"re(="[^"]*(nan|inf)[^"]*")re", std::regex::icase);
  return std::regex_search(html, kWord) || std::regex_search(html, kAttribute);
}

TEST(RenderReportHtmlTest, FullDocumentHasEverySectionInOrder) {
  const std::string html = RenderReportHtml(FullReport(6, 5, 8));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  size_t last = 0;
  for (const char* id : {"summary", "leaderboard", "score-vs-batch", "bootstrap", "borda", "ecdf",
                         "fractional-rank", "attainment", "heatmap"}) {
    const size_t at = html.find(absl::StrCat("<section id=\"", id, "\">"));
    ASSERT_NE(at, std::string::npos) << id;
    EXPECT_GT(at, last) << id;
    last = at;
    EXPECT_THAT(SectionOf(html, id), HasSubstr("How to read this")) << id;
  }
  EXPECT_THAT(html, HasSubstr("ragged input: trial counts differ"));
  EXPECT_THAT(html, HasSubstr("8 × 8"));
  EXPECT_THAT(html, HasSubstr("2024-05-01T12:00:00Z"));
}

TEST(RenderReportHtmlTest, EscapesUserSuppliedNames) {
  json report = FullReport(4, 3, 4);
  const std::string evil = "<script>alert(1)</script>";
  const std::string quoted = "a&b \"q\" 'r'";
  report["methods"][0]["method"] = evil;
  report["methods"][0]["problems"][0]["problem"] = quoted;
  report["bootstrap"]["methods"][0]["method"] = evil;
  report["nonparametric"]["rows"][0]["method"] = evil;
  report["anytime"]["methods"][evil] = report["anytime"]["methods"]["optimizer-0"];
  report["warnings"] = {evil};
  report["phase"] = evil;
  const std::string html = RenderReportHtml(report);
  EXPECT_THAT(html, Not(HasSubstr(evil)));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr(quoted)));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_THAT(html, HasSubstr("a&amp;b &quot;q&quot; &#39;r&#39;"));
}

TEST(RenderReportHtmlTest, NullAndNonFiniteNumbersRenderAsDash) {
  json report = FullReport(4, 3, 5);
  json& row = report["methods"][0];
  row["leaderboard_score"] = nullptr;
  row["median_score"] = kNaN;  // a json built in C++ can hold what JSON text cannot
  row["table2_median_score"] = kInf;
  row["rs_equivalent_evals"] = nullptr;
  row["rs_efficiency"] = -kInf;
  row["mean_perf"] = {1.0, nullptr, kNaN, 0.5, kInf};
  row["mean_perf_error_bar"] = {nullptr, kInf, 0.1, kNaN, nullptr};
  row["problems"][0]["score"] = nullptr;
  row["problems"][1]["score"] = kNaN;
  report["methods"][1]["mean_perf_error_bar"] = {kInf, kInf, kInf, kInf, kInf};
  report["bootstrap"]["methods"][0]["p_top_k"] = nullptr;
  report["bootstrap"]["methods"][0]["rank_interval"] = {nullptr, kInf};
  report["bootstrap"]["replicates"] = nullptr;
  report["nonparametric"]["rows"][0]["borda"] = kNaN;
  report["anytime"]["methods"]["optimizer-0"]["ecdf_runtime_to_target"] = {nullptr, kNaN, 0.5};
  report["attainment"]["methods"]["optimizer-0"][2] = {kNaN, nullptr, 0.3, kInf, 0.2};
  report["alpha"] = nullptr;
  const std::string html = RenderReportHtml(report);
  EXPECT_FALSE(HasNonFiniteText(html));
  const std::string board = SectionOf(html, "leaderboard");
  EXPECT_GE(Count(board, "<td class=\"n\">–</td>"), 5);
  EXPECT_THAT(SectionOf(html, "heatmap"), HasSubstr("optimizer-0 / problem_0: no score"));
  // The lone finite points around the gaps are still drawn.
  EXPECT_THAT(SectionOf(html, "score-vs-batch"), HasSubstr("<circle"));
}

TEST(RenderReportHtmlTest, MethodsOnlyDocumentOmitsOptionalSections) {
  json report = {{"methods", {Method("a", 1, 0.2, 4, {}), Method("b", 1, 0.6, 4, {})}}};
  const std::string html = RenderReportHtml(report);
  EXPECT_THAT(html, HasSubstr("<section id=\"leaderboard\">"));
  EXPECT_THAT(html, HasSubstr("<section id=\"score-vs-batch\">"));
  for (const char* id :
       {"bootstrap", "borda", "ecdf", "fractional-rank", "attainment", "heatmap"}) {
    EXPECT_THAT(html, Not(HasSubstr(absl::StrCat("id=\"", id, "\"")))) << id;
  }
}

TEST(RenderReportHtmlTest, NeverThrowsOnWrongTypes) {
  for (const json& report :
       {json(), json::array({1, 2}), json("text"), json(3.5),
        json{{"methods", "none"}, {"bootstrap", 7}, {"anytime", {1}}},
        json{{"methods",
              {{{"method", 42}, {"mean_perf", "x"}, {"problems", {{{"problem", nullptr}}}}}}},
             {"nonparametric", {{"rows", {1, 2}}, {"groups", "g"}}},
             {"attainment", {{"levels", {"a"}}, {"methods", {1}}}},
             {"warnings", {1, nullptr}},
             {"batch_size", "eight"}}}) {
    std::string html;
    ASSERT_NO_THROW(html = RenderReportHtml(report)) << report.dump();
    EXPECT_THAT(html, HasSubstr("<section id=\"leaderboard\">")) << report.dump();
    EXPECT_FALSE(HasNonFiniteText(html)) << report.dump();
  }
}

TEST(RenderReportHtmlTest, ScorePlotCapsLinesAndSaysSo) {
  const std::string capped = SectionOf(RenderReportHtml(FullReport(21, 3, 6)), "score-vs-batch");
  EXPECT_EQ(Count(capped, "<polyline"), 13);  // 12 best + the baseline
  EXPECT_THAT(capped, HasSubstr("Showing the best 12 of 20 methods and the random-search"));
  const std::vector<Polyline> lines = Polylines(capped);
  ASSERT_EQ(lines.size(), 13u);
  EXPECT_EQ(lines.front().title, "optimizer-0");
  EXPECT_EQ(lines.back().title, "random-search-baseline");

  const std::string uncapped = SectionOf(RenderReportHtml(FullReport(8, 3, 6)), "score-vs-batch");
  EXPECT_EQ(Count(uncapped, "<polyline"), 8);
  EXPECT_THAT(uncapped, Not(HasSubstr("Showing the best")));
}

TEST(RenderReportHtmlTest, AttainmentDrawsAtMostSixMethods) {
  const std::string section = SectionOf(RenderReportHtml(FullReport(10, 3, 6)), "attainment");
  EXPECT_EQ(Count(section, "<polyline"), 6);
  EXPECT_EQ(Count(section, "<polygon"), 6);
  EXPECT_THAT(section, HasSubstr("Showing the best 5 of 9 methods and the random-search"));
}

TEST(RenderReportHtmlTest, HigherScoreIsDrawnHigher) {
  json report = {{"methods", {Method("best", 0.0, 0.0, 4, {}), Method("random", 1.0, 1.0, 4, {})}}};
  const std::vector<Polyline> lines =
      Polylines(SectionOf(RenderReportHtml(report), "score-vs-batch"));
  ASSERT_EQ(lines.size(), 2u);
  ASSERT_EQ(lines[0].title, "best");  // score 100
  ASSERT_EQ(lines[0].points.size(), 4u);
  ASSERT_EQ(lines[1].points.size(), 4u);
  for (size_t t = 0; t < 4; ++t) {
    EXPECT_LT(lines[0].points[t].second, lines[1].points[t].second);  // SVG y grows downwards
    EXPECT_EQ(lines[0].points[t].first, lines[1].points[t].first);
  }
  EXPECT_LT(lines[0].points[0].first, lines[0].points[3].first);
}

TEST(RenderReportHtmlTest, HeatmapHasOneTitledCellPerMethodAndProblem) {
  const std::string heatmap = SectionOf(RenderReportHtml(FullReport(7, 9, 4)), "heatmap");
  EXPECT_EQ(Count(heatmap, "<rect class=\"c\""), 7 * 9);
  EXPECT_EQ(Count(heatmap, "</title></rect>"), 7 * 9);
  EXPECT_THAT(heatmap, HasSubstr("<title>optimizer-2 / problem_4: "));
}

TEST(RenderReportHtmlTest, HeatmapShowsProblemsAMethodLacks) {
  json report = FullReport(3, 4, 4);
  report["methods"][1]["problems"].erase(2);
  const std::string heatmap = SectionOf(RenderReportHtml(report), "heatmap");
  EXPECT_EQ(Count(heatmap, "<rect class=\"c\""), 3 * 4);
  EXPECT_THAT(heatmap, HasSubstr("optimizer-1 / problem_2: no trials"));
}

TEST(RenderReportHtmlTest, IsSelfContained) {
  const std::string html = RenderReportHtml(FullReport(6, 5, 8));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("http://")));
  EXPECT_THAT(html, Not(HasSubstr("https://")));
  EXPECT_THAT(html, Not(HasSubstr("<link")));
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, Not(HasSubstr("@import")));
  EXPECT_THAT(html, Not(HasSubstr(" src=")));
  // url() only for in-document SVG paint servers.
  EXPECT_EQ(Count(html, "url("), Count(html, "url(#"));
}

TEST(RenderReportHtmlTest, LeaderboardShowsBoundsAndMarksBaseline) {
  json report = FullReport(3, 2, 4);
  report["methods"][0]["rs_equivalent_evals"] = 1280;
  report["methods"][0]["rs_equivalent_bound"] = "at_least";
  report["methods"][1]["rs_equivalent_evals"] = 1;
  report["methods"][1]["rs_equivalent_bound"] = "at_most";
  report["methods"][1]["complete"] = false;
  report["methods"][0]["leaderboard_score"] = 95.94389;
  report["methods"][0]["mean_perf_error_bar"].back() = 0.0123;
  const std::string board = SectionOf(RenderReportHtml(report), "leaderboard");
  EXPECT_THAT(board, HasSubstr("&gt; 1280"));
  EXPECT_THAT(board, HasSubstr("≤ 1.0"));
  EXPECT_THAT(board, HasSubstr(">95.94<"));
  EXPECT_THAT(board, HasSubstr(">1.23<"));
  EXPECT_THAT(board, HasSubstr("<tr class=\"incomplete\">"));
  EXPECT_THAT(board, HasSubstr("<tr class=\"baseline\">"));
  EXPECT_THAT(board, HasSubstr("random-search-baseline<span class=\"badge\">baseline</span>"));
}

TEST(RenderReportHtmlTest, BootstrapShowsModalRankAndRankings) {
  const std::string boot = SectionOf(RenderReportHtml(FullReport(4, 2, 4)), "bootstrap");
  EXPECT_THAT(boot, HasSubstr("P(top 5)"));
  // optimizer-1 ranks 2nd in 90% of replicates: modal rank 2, interval 2–3.
  EXPECT_THAT(boot, HasSubstr("<td class=\"m\">optimizer-1</td><td class=\"n\">1.000</td>"
                              "<td class=\"n\">2–3</td><td class=\"n\">2</td>"));
  EXPECT_THAT(boot, HasSubstr("optimizer-0 › optimizer-1"));
  EXPECT_THAT(boot, HasSubstr("60.0%"));
  EXPECT_THAT(boot, HasSubstr("<title>optimizer-1: rank 2 in 90.0% of replicates</title>"));
}

TEST(RenderReportHtmlTest, BordaGroupsAreCaptioned) {
  const std::string borda = SectionOf(RenderReportHtml(FullReport(4, 4, 4)), "borda");
  EXPECT_THAT(borda, HasSubstr("<caption>dimension 4-7 (2 problems)<"));
  EXPECT_THAT(borda, HasSubstr("<caption>attribute: noisy (1 problem)<"));
  EXPECT_THAT(borda, HasSubstr("problem_2, problem_3</span></caption>"));
  EXPECT_EQ(Count(borda, "<table"), 3);
}

TEST(RenderReportHtmlTest, LargeReportStaysSmallAndFast) {
  const json report = FullReport(65, 60, 16);
  const auto start = std::chrono::steady_clock::now();
  const std::string html = RenderReportHtml(report);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(html.size(), 3u << 20);
  EXPECT_LT(seconds, 2.0);
  EXPECT_EQ(Count(SectionOf(html, "heatmap"), "<rect class=\"c\""), 65 * 60);
  EXPECT_FALSE(HasNonFiniteText(html));
}

TEST(LineChartTest, EmptyWhenNoFiniteValue) {
  LineChart chart;
  EXPECT_EQ(RenderLineChartSvg(chart), "");
  chart.series.push_back({"a", "#000000", "", {kNaN, kInf}, {}, {}});
  EXPECT_EQ(RenderLineChartSvg(chart), "");
}

TEST(LineChartTest, ClampsBandsToThePlot) {
  LineChart chart;
  chart.height = 300;
  chart.series.push_back({"a", "#000000", "", {10, 20, 30}, {-1e9, 0, 25}, {1e9, 40, 35}});
  const std::string svg = RenderLineChartSvg(chart);
  std::smatch frame;
  ASSERT_TRUE(std::regex_search(
      svg, frame,
      std::regex(R"re(<rect x="[-0-9.]+" y="([-0-9.]+)" width="[-0-9.]+" height="([-0-9.]+)")re")));
  const double top = std::stod(frame[1]);
  const double bottom = top + std::stod(frame[2]);
  std::smatch polygon;
  ASSERT_TRUE(std::regex_search(svg, polygon, std::regex(R"re(<polygon points="([^"]*)")re")));
  const std::string points = polygon[1];
  std::regex pair(R"(([-0-9.]+),([-0-9.]+))");
  int n = 0;
  for (auto p = std::sregex_iterator(points.begin(), points.end(), pair);
       p != std::sregex_iterator(); ++p, ++n) {
    const double y = std::stod((*p)[2]);
    EXPECT_GE(y, top);
    EXPECT_LE(y, bottom);
  }
  EXPECT_EQ(n, 6);
}

TEST(LineChartTest, LeavesGapsAtNonFiniteValues) {
  LineChart chart;
  chart.series.push_back({"a", "#000000", "", {1, 2, kNaN, 3, 4, 5}, {}, {}});
  const std::string svg = RenderLineChartSvg(chart);
  EXPECT_EQ(Count(svg, "<polyline"), 2);
  EXPECT_FALSE(HasNonFiniteText(svg));
}

}  // namespace
}  // namespace bbo::scoring
