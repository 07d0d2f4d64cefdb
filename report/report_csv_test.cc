#include "report/report_csv.h"

#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::scoring {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

TEST(ReportCsvTest, QuotesNamesAndToleratesMissingSections) {
  json j = {{"methods", {{{"method", "a,\"b\""}, {"leaderboard_score", nullptr}}}}};
  auto csv = ReportCsv(j);
  EXPECT_THAT(csv["leaderboard.csv"], HasSubstr("1,\"a,\"\"b\"\"\",,,,"));
  EXPECT_EQ(csv.count("bootstrap_ranks.csv"), 0u);
}

TEST(ReportCsvTest, TheSecondsViewAndTheRaceHaveTheirOwnFiles) {
  json view = {{"methods", {"a", "b"}},
               {"final", {{"time", 2.5}, {"posterior_mean", {{"a", 0.7}, {"b", 0.3}}}}},
               {"anytime",
                {{"time", {0.1, 2.5}}, {"unit", "seconds"}, {"mean", {{"a", {0.6, 0.7}}}}}},
               {"pareto_set", {"a"}}};
  json race = {{"rounds", 3},
               {"stopped", true},
               {"candidates", {"a"}},
               {"eliminated_by", {{"b", "a"}}},
               {"eliminated_round", {{"b", 2}}},
               {"evaluations_queued", 96},
               {"evaluations_full", 160},
               {"evaluations_saved", 64}};
  auto csv = ReportCsv(json{{"plackett_luce_seconds", view}, {"racing", race}});
  ASSERT_EQ(csv.count("plackett_luce_seconds.csv"), 1u);
  EXPECT_THAT(csv["plackett_luce_seconds.csv"], HasSubstr("\na,2.5,0.69999999999999996,"));
  ASSERT_EQ(csv.count("plackett_luce_seconds_anytime.csv"), 1u);
  EXPECT_THAT(csv["plackett_luce_seconds_anytime.csv"],
              HasSubstr("method,timepoint,time,mean,lower,upper\n"
                        "a,0,0.10000000000000001,0.59999999999999998,,\n"));
  EXPECT_EQ(csv.count("plackett_luce.csv"), 0u);
  ASSERT_EQ(csv.count("racing.csv"), 1u);
  EXPECT_THAT(csv["racing.csv"], HasSubstr("\na,candidate,,,3,true,"));
  EXPECT_THAT(csv["racing.csv"], HasSubstr("\nb,eliminated,a,2,3,true,"));
  EXPECT_THAT(csv["racing.csv"], HasSubstr(",96,160,64,"));
}

TEST(ReportCsvTest, EmptyReportWritesHeadersOnly) {
  for (const json& report : {json(), json::object(), json::array(), json("x")}) {
    auto csv = ReportCsv(report);
    ASSERT_EQ(csv.size(), 4u) << report.dump();
    EXPECT_EQ(csv["leaderboard.csv"],
              "rank,method,baseline,complete,leaderboard_score,error_bar,median_score,"
              "table2_median_score,rs_equivalent_evals,rs_equivalent_bound,rs_efficiency,phase\n");
    EXPECT_EQ(csv["curves.csv"],
              "method,batch,mean_perf,mean_perf_error_bar,normalized_mean_perf,median_perf,"
              "rand_mean_perf\n");
    EXPECT_EQ(csv.count("method_problems.csv"), 1u);
    EXPECT_EQ(csv.count("problems.csv"), 1u);
  }
}

TEST(ReportCsvTest, WritesNumbersAtFullPrecisionAndNullsEmpty) {
  json j = {{"phase", "final"},
            {"rand_mean_perf", {0.5, nullptr}},
            {"methods",
             {{{"method", "m"},
               {"leaderboard_score", 0.1},
               {"mean_perf", {0.25, 0.1}},
               {"mean_perf_error_bar", {0.01, 0.02}},
               {"rs_equivalent_evals", 7}}}}};
  auto csv = ReportCsv(j);
  // error_bar is 100 x the last error bar; integers stay integers.
  EXPECT_THAT(csv["leaderboard.csv"], HasSubstr("\n1,m,,,0.10000000000000001,2,,,7,,,final\n"));
  EXPECT_THAT(csv["curves.csv"],
              HasSubstr("\nm,0,0.25,0.01,,,0.5\nm,1,0.10000000000000001,0.02,,,\n"));
}

TEST(ReportCsvTest, ToleratesWrongTypesWithoutThrowing) {
  const json wrong[] = {json(),     json(1),          json("s"),
                        json(true), json::array({1}), json::object({{"k", 1}})};
  for (const json& w : wrong) {
    json j = {{"methods",
               {{{"method", "m"}, {"mean_perf", w}, {"mean_perf_error_bar", w}, {"problems", w}}}},
              {"problems",
               {{{"problem", "p"}, {"attributes", {1, "a", nullptr}}, {"rand_mean_perf", {0.5}}}}},
              {"bootstrap",
               {{"replicates", w},
                {"methods", {{{"method", "m"}, {"rank_counts", {3, nullptr}}}}},
                {"top_rankings", {{{"ranking", {"m", 2}}, {"frequency", w}}}}}},
              {"nonparametric",
               {{"rows", w}, {"ballots", w}, {"groups", {{{"problems", w}, {"rows", w}}}}}},
              {"anytime", {{"methods", {{"m", w}}}}},
              {"attainment", {{"levels", w}, {"methods", {{"m", {w, {0.5, w}}}}}}}};
    std::map<std::string, std::string> csv;
    ASSERT_NO_THROW(csv = ReportCsv(j)) << w.dump();
    EXPECT_EQ(csv.size(), 10u) << w.dump();
    // Non-string attributes and ranking names print as their JSON text.
    EXPECT_THAT(csv["problems.csv"], HasSubstr("p,,1;a;,,,0,0.5,\n"));
    EXPECT_THAT(csv["top_rankings.csv"], HasSubstr("m > 2,"));
    // A rank count with no usable replicate count has no frequency.
    EXPECT_THAT(csv["bootstrap_ranks.csv"], HasSubstr("m,2,,,"));
  }
}

TEST(ReportCsvTest, FrequencyDividesByReplicates) {
  json j = {{"bootstrap",
             {{"replicates", 4}, {"methods", {{{"method", "m"}, {"rank_counts", {3, 1}}}}}}}};
  auto csv = ReportCsv(j);
  EXPECT_THAT(csv["bootstrap_ranks.csv"], HasSubstr("\nm,1,3,0.75,,,,,4,\nm,2,1,0.25,,,,,4,\n"));
}

}  // namespace
}  // namespace bbo::scoring
