#include "scoring/plackett_luce/rankings.h"

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scoring/plackett_luce/traces.h"

namespace bbo::scoring::pl {
namespace {

using ::testing::ElementsAre;
constexpr double kInf = std::numeric_limits<double>::infinity();

TrialCurve Curve(std::vector<double> batch_min) {
  TrialCurve c;
  c.batch_min = std::move(batch_min);
  return c;
}

TEST(RankValuesTest, LowerFirstInfAndNanLastAndTied) {
  Ranking r = RankValues({{0, 3.0}, {1, NAN}, {2, 1.0}, {3, kInf}, {4, 3.0}}, 7);
  EXPECT_EQ(r.timepoint, 7);
  EXPECT_THAT(r.order, ElementsAre(2, 0, 4, 1, 3));
  EXPECT_THAT(r.group, ElementsAre(0, 1, 1, 2, 2));
  EXPECT_EQ(r.weight, 1);
}

TEST(RankingsFromTracesTest, OneRankingPerRunAndTimepointOfTheMethodsPresent) {
  TraceSet traces;
  traces["A"][{"p", 0}] = StepTrace{{1, 3}, {5, 1}};
  traces["B"][{"p", 0}] = StepTrace{{2}, {2}};
  traces["A"][{"p", 1}] = StepTrace{{1}, {4}};
  traces["C"][{"p", 1}] = StepTrace{{1}, {4}};
  traces["C"][{"q", 0}] = StepTrace{{1}, {4}};  // alone on q: no ranking
  auto grid = UniformGrid(1, 3, 3, "seconds");
  auto set = RankingsFromTraces(traces, *grid);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_THAT(set->methods, ElementsAre("A", "B", "C"));
  EXPECT_EQ(set->runs, 2);
  ASSERT_EQ(set->rankings.size(), 6u);
  // t = 1: run p0: A 5, B +inf (nothing yet); run p1: A, C tied at 4.
  EXPECT_EQ(set->rankings[0].timepoint, 0);
  EXPECT_THAT(set->rankings[0].order, ElementsAre(0, 1));
  EXPECT_THAT(set->rankings[0].group, ElementsAre(0, 1));
  EXPECT_THAT(set->rankings[1].order, ElementsAre(0, 2));
  EXPECT_THAT(set->rankings[1].group, ElementsAre(0, 0));
  // t = 2: B 2 beats A 5; t = 3: A 1 beats B 2.
  EXPECT_THAT(set->rankings[2].order, ElementsAre(1, 0));
  EXPECT_THAT(set->rankings[4].order, ElementsAre(0, 1));
  EXPECT_EQ(set->rankings[4].timepoint, 2);
}

TEST(RankingsFromTracesTest, TracesEndAtTheirHorizon) {
  // B was stopped at t = 2 (racing, tau_B): at t = 3 the run ranks A and C only; with C also
  // stopped there is nothing to rank at t = 3.
  TraceSet traces;
  traces["A"][{"p", 0}] = StepTrace{{1}, {3}};
  StepTrace b{{1}, {1}};
  b.horizon = 2;
  traces["B"][{"p", 0}] = b;
  traces["C"][{"p", 0}] = StepTrace{{1}, {2}};
  auto set = RankingsFromTraces(traces, *BatchGrid(3));
  ASSERT_TRUE(set.ok());
  ASSERT_EQ(set->rankings.size(), 3u);
  EXPECT_THAT(set->rankings[1].order, ElementsAre(1, 2, 0));
  EXPECT_THAT(set->rankings[2].order, ElementsAre(2, 0));
  traces["C"][{"p", 0}].horizon = 2.5;
  set = RankingsFromTraces(traces, *BatchGrid(3));
  EXPECT_EQ(set->rankings.size(), 2u);
  traces["C"][{"p", 0}].horizon = NAN;
  EXPECT_EQ(RankingsFromTraces(traces, *BatchGrid(3)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(RankingsFromTracesTest, RejectsBadInput) {
  TraceSet traces;
  auto grid = BatchGrid(2);
  EXPECT_EQ(RankingsFromTraces(traces, *grid).status().code(), absl::StatusCode::kInvalidArgument);
  traces["A"][{"p", 0}] = StepTrace{{2, 1}, {1, 1}};
  EXPECT_EQ(RankingsFromTraces(traces, *grid).status().code(), absl::StatusCode::kInvalidArgument);
  traces["A"][{"p", 0}] = StepTrace{{1}, {1}};
  TimeGrid bad;
  bad.points = {2, 1};
  EXPECT_EQ(RankingsFromTraces(traces, bad).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(FinalRankingsTest, RanksBestOverTheWholeStudyPerProblemAndTrial) {
  ScoringInput in;
  in.n_batches = 2;
  in.methods["A"]["p"].trials = {Curve({3, 1}), Curve({2, 2})};
  in.methods["B"]["p"].trials = {Curve({2, 2})};  // no trial 1: run (p, 1) has A and C
  in.methods["C"]["p"].trials = {Curve({kInf, NAN}), Curve({0, 0})};
  auto set = FinalRankings(in);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_THAT(set->grid.points, ElementsAre(2));
  ASSERT_EQ(set->rankings.size(), 2u);
  EXPECT_THAT(set->rankings[0].order, ElementsAre(0, 1, 2));  // A 1, B 2, C crashed
  EXPECT_THAT(set->rankings[1].order, ElementsAre(2, 0));     // C 0, A 2
}

// The direct batch view is the step-trace view, ranking for ranking: ragged trials (methods
// missing trials and problems), ties, crashes (NaN, +inf) and a held-out loss.
TEST(BatchRankingsTest, AreExactlyTheRankingsOfTheBatchTraces) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> coarse(0, 5);
  ScoringInput in;
  in.n_batches = 4;
  for (int m = 0; m < 6; ++m) {
    for (int p = 0; p < 3; ++p) {
      if ((m + p) % 5 == 4) continue;  // this method never ran this problem
      auto& data = in.methods["m" + std::to_string(m)]["p" + std::to_string(p)];
      for (int n = 0; n < 1 + (m + 2 * p) % 4; ++n) {
        TrialCurve c;
        for (int b = 0; b < in.n_batches; ++b) {
          const int draw = coarse(rng);
          c.batch_min.push_back(draw == 0 ? NAN : draw == 5 ? kInf : draw);  // ties are common
          if (m == 3) c.visible_min.push_back(coarse(rng));
        }
        data.trials.push_back(c);
      }
    }
  }
  auto direct = BatchRankings(in);
  ASSERT_TRUE(direct.ok()) << direct.status();
  auto via_traces = RankingsFromTraces(*BatchTraces(in), *BatchGrid(in.n_batches));
  ASSERT_TRUE(via_traces.ok()) << via_traces.status();
  EXPECT_EQ(direct->methods, via_traces->methods);
  EXPECT_EQ(direct->runs, via_traces->runs);
  EXPECT_EQ(direct->grid.points, via_traces->grid.points);
  ASSERT_EQ(direct->rankings.size(), via_traces->rankings.size());
  ASSERT_GT(direct->rankings.size(), 20u);
  for (size_t k = 0; k < direct->rankings.size(); ++k) {
    EXPECT_EQ(direct->rankings[k].timepoint, via_traces->rankings[k].timepoint) << k;
    EXPECT_EQ(direct->rankings[k].order, via_traces->rankings[k].order) << k;
    EXPECT_EQ(direct->rankings[k].group, via_traces->rankings[k].group) << k;
  }
  in.methods["m1"]["p0"].trials[0].batch_min.pop_back();
  EXPECT_THAT(BatchRankings(in).status().message(),
              ::testing::HasSubstr("methods[m1][p0].trials[0]: curve length != n_batches"));
  EXPECT_EQ(BatchRankings(ScoringInput{}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bbo::scoring::pl
