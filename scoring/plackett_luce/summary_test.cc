#include "scoring/plackett_luce/summary.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scoring/plackett_luce/rankings.h"

namespace bbo::scoring::pl {
namespace {

using ::testing::ElementsAre;
constexpr double kInf = std::numeric_limits<double>::infinity();

TrialCurve Curve(std::vector<double> batch_min) {
  TrialCurve c;
  c.batch_min = std::move(batch_min);
  return c;
}

TEST(SummaryTest, TwoMethodsOneTrialGivesTheBetaTwoOneMean) {
  // One problem, one trial: A ends at 1, B at 2. The last batch has one ranking A > B, so under
  // Dirichlet(1) theta_A ~ Beta(2, 1): posterior mean 2/3 (dirichlet_model_test.cc derives it).
  ScoringInput in;
  in.n_batches = 2;
  in.methods["A"]["p"].trials = {Curve({3, 1})};
  in.methods["B"]["p"].trials = {Curve({2, 2})};
  SummaryOptions o;
  o.model.draws_per_chain = 2000;
  auto s = SummarizePlackettLuce(in, o);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->inference, "gibbs");
  EXPECT_EQ(s->runs, 1);
  EXPECT_NEAR(s->final_mean.at("A"), 2.0 / 3, 0.01);
  EXPECT_NEAR(s->final_mean.at("B"), 1.0 / 3, 0.01);
  // Batch 1: B (2) beat A (3).
  EXPECT_NEAR(s->mean.at("B")[0], 2.0 / 3, 0.01);
  EXPECT_NEAR(s->final_mean.at("A") + s->final_mean.at("B"), 1, 1e-12);
  const nlohmann::json j = PlackettLuceJson(*s);
  EXPECT_EQ(j["layout"], "bbo-arena/plackett-luce/1");
  EXPECT_EQ(j["model"]["alpha"], 1.0);
  EXPECT_NEAR(j["final"]["posterior_mean"]["A"].get<double>(), 2.0 / 3, 0.01);
  EXPECT_EQ(j["anytime"]["unit"], "batches");
  EXPECT_EQ(j["anytime"]["mean"]["A"].size(), 2u);
  EXPECT_EQ(j["decisions"]["pairs"].size(), 1u);
  EXPECT_EQ(j["decisions"]["pairs"][0]["relation"].size(), 2u);
  EXPECT_TRUE(j["selection"].contains("uniform"));
  EXPECT_TRUE(j["diagnostics"]["max_rhat"].is_number());
}

TEST(SummaryTest, ClearWinnerIsTheParetoSetAndCrashesRankLast) {
  ScoringInput in;
  in.n_batches = 3;
  for (int n = 0; n < 30; ++n) {
    for (const std::string p : {"p", "q"}) {
      in.methods["good"][p].trials.push_back(Curve({1, 0.5, 0.1}));
      in.methods["slow"][p].trials.push_back(Curve({2, 1, 0.2}));
      in.methods["crash"][p].trials.push_back(Curve({kInf, NAN, kInf}));
    }
  }
  in.methods["late"]["p"].trials = {Curve({5, 5, 0.01})};  // one trial, only on p
  auto s = SummarizePlackettLuce(in);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_THAT(s->methods, ElementsAre("crash", "good", "late", "slow"));
  EXPECT_EQ(s->runs, 60);
  EXPECT_LT(s->final_mean.at("crash"), s->final_mean.at("slow"));
  EXPECT_LT(s->final_mean.at("slow"), s->final_mean.at("good"));
  EXPECT_EQ(s->eliminated_by.at("crash"), "good");
  EXPECT_EQ(s->eliminated_by.at("slow"), "good");
  // "late" won its only run at the last batch: too little data to eliminate it.
  EXPECT_THAT(s->pareto_set, ElementsAre("good", "late"));
  EXPECT_EQ(s->best.at("uniform"), "good");
  const nlohmann::json j = PlackettLuceJson(*s);
  EXPECT_EQ(j["decisions"]["eliminated_by"]["crash"], "good");
  EXPECT_EQ(j["pareto_set"], nlohmann::json({"good", "late"}));
}

TEST(SummaryTest, FinalViewIsTheLastBatchRanking) {
  // FinalRankings (best value over the whole study) and the last batch of the anytime rankings
  // give identical likelihood statistics.
  ScoringInput in;
  in.n_batches = 4;
  in.methods["A"]["p"].trials = {Curve({3, 1, 1, 0.5}), Curve({2, 2, 2, 2})};
  in.methods["B"]["p"].trials = {Curve({2, 2, 0.7, 0.7})};
  in.methods["C"]["p"].trials = {Curve({kInf, 9, 9, 9}), Curve({1, 1, 1, 1})};
  auto fin = FinalRankings(in);
  auto all = RankingsFromTraces(*BatchTraces(in), *BatchGrid(4));
  ASSERT_TRUE(fin.ok() && all.ok());
  auto a = ComputePlStats(*fin), b = ComputePlStats(*all);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)[0].wins, (*b)[3].wins);
  ASSERT_EQ((*a)[0].stages.size(), (*b)[3].stages.size());
  for (size_t k = 0; k < (*a)[0].stages.size(); ++k) {
    EXPECT_EQ((*a)[0].stages[k].members, (*b)[3].stages[k].members);
    EXPECT_EQ((*a)[0].stages[k].weight, (*b)[3].stages[k].weight);
  }
}

TEST(SummaryTest, RejectsEmptyInputAndBadBand) {
  ScoringInput in;
  EXPECT_EQ(SummarizePlackettLuce(in).status().code(), absl::StatusCode::kInvalidArgument);
  in.n_batches = 1;
  in.methods["A"]["p"].trials = {Curve({1})};
  SummaryOptions o;
  o.band = 1;
  EXPECT_EQ(SummarizePlackettLuce(in, o).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bbo::scoring::pl
