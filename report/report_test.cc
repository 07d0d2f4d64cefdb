#include "report/report.h"

#include <cmath>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::scoring {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TrialCurve Curve(std::vector<double> batch_min) { return TrialCurve{std::move(batch_min), {}}; }

// Two problems whose random search has the evaluations 1..16 (clip = 8.5 -> median of 16 is
// o[8] = 8), known optimum 0.
ScoringInput TinyInput() {
  ScoringInput in;
  in.n_batches = 2;
  in.batch_size = 1;
  for (const char* p : {"p1", "p2"}) {
    ProblemBaselineInput b;
    for (int v = 1; v <= 16; ++v) b.random_evals.push_back(v);
    b.known_optimum = 0.0;
    in.problems[p] = b;
  }
  return in;
}

TEST(DimensionBandTest, Bands) {
  EXPECT_EQ(DimensionBand(0), "unknown");
  EXPECT_EQ(DimensionBand(1), "1-3");
  EXPECT_EQ(DimensionBand(3), "1-3");
  EXPECT_EQ(DimensionBand(4), "4-7");
  EXPECT_EQ(DimensionBand(8), "8-15");
  EXPECT_EQ(DimensionBand(16), "16+");
}

TEST(AttainmentTest, OrderStatisticsOfNormalizedBestSoFar) {
  ScoringInput in = TinyInput();
  // clip = 8 (o[ceil(16 * 0.5)] = o[8]), opt = 0 - pad: normalized = value / 8 up to 1e-300.
  // Trials on p1: best so far (4, 2), (8, 8), (16 -> clipped 1, 1) -> batch 0: {0.5, 1, 1},
  // batch 1: {0.25, 1, 1}.
  in.methods["m"]["p1"].trials = {Curve({4, 2}), Curve({8, 9}), Curve({16, 16})};
  in.methods["m"]["p2"].trials = {Curve({0, 0}), Curve({0, 0}), Curve({0, 0})};
  auto board = ComputeLeaderboard(in, "");
  ASSERT_TRUE(board.ok()) << board.status();
  Attainment a = ComputeAttainment(*board, in, {0, 0.5, 1});
  ASSERT_EQ(a.curves.count("m"), 1u);
  const auto& c = a.curves.at("m");
  // Level 0: best trial; 0.5: o[ceil(1.5)] = o[2]; 1: worst. p2 is 0 everywhere: mean halves.
  EXPECT_NEAR(c[0][0], 0.5 / 2, 1e-12);
  EXPECT_NEAR(c[0][1], 0.25 / 2, 1e-12);
  EXPECT_NEAR(c[1][0], 1.0 / 2, 1e-12);
  EXPECT_NEAR(c[1][1], 1.0 / 2, 1e-12);
  EXPECT_NEAR(c[2][0], 1.0 / 2, 1e-12);
}

TEST(ReportTest, GroupsRankIntervalsJsonAndCsv) {
  ScoringInput in = TinyInput();
  in.problems["p3"] = in.problems["p1"];
  // "good" always finds 1, "bad" always 12: good wins every problem.
  for (const char* p : {"p1", "p2", "p3"}) {
    for (int n = 0; n < 6; ++n) {
      in.methods["good"][p].trials.push_back(Curve({3, 1}));
      in.methods["bad"][p].trials.push_back(Curve({12, 12}));
    }
  }
  ReportOptions o;
  o.phase = "feedback";
  o.source = "unit test";
  o.bootstrap.replicates = 50;
  o.anytime_replicates = 5;
  o.problem_info["p1"] = {2, {"noisy", "unimodal"}};
  o.problem_info["p2"] = {10, {"noisy"}};
  o.warnings = {"ragged"};
  auto report = ComputeReport(in, o);
  ASSERT_TRUE(report.ok()) << report.status();
  nlohmann::json j = ReportJson(*report, in);
  EXPECT_EQ(j["schema"], "bbo-arena/report/1");
  EXPECT_EQ(j["phase"], "feedback");
  EXPECT_EQ(j["warnings"][0], "ragged");
  EXPECT_EQ(j["methods"][0]["method"], "good");
  // Baseline row present and flagged.
  bool has_baseline = false;
  for (const auto& m : j["methods"]) has_baseline |= m["baseline"].get<bool>();
  EXPECT_TRUE(has_baseline);
  // good is rank 1 in every replicate: interval [1, 1]; bad [2, 2].
  EXPECT_EQ(j["bootstrap"]["methods"][0]["method"], "good");
  EXPECT_EQ(j["bootstrap"]["methods"][0]["rank_interval"], nlohmann::json({1, 1}));
  EXPECT_EQ(j["bootstrap"]["methods"][1]["rank_interval"], nlohmann::json({2, 2}));
  EXPECT_EQ(j["bootstrap"]["methods"][0]["rank_counts"], nlohmann::json({50, 0}));
  // Groups: dimension bands 1-3 {p1}, 8-15 {p2}, unknown {p3}; attributes noisy {p1, p2},
  // unimodal {p1}.
  std::map<std::string, std::vector<std::string>> groups;
  for (const auto& g : j["nonparametric"]["groups"]) {
    groups[g["kind"].get<std::string>() + ":" + g["group"].get<std::string>()] =
        g["problems"].get<std::vector<std::string>>();
    EXPECT_EQ(g["rows"][0]["method"], "good");
    EXPECT_EQ(g["rows"][0]["firsts"], g["problems"].size());
  }
  EXPECT_THAT(groups["dimension:1-3"], ElementsAre("p1"));
  EXPECT_THAT(groups["dimension:8-15"], ElementsAre("p2"));
  EXPECT_THAT(groups["dimension:unknown"], ElementsAre("p3"));
  EXPECT_THAT(groups["attribute:noisy"], ElementsAre("p1", "p2"));
  EXPECT_THAT(groups["attribute:unimodal"], ElementsAre("p1"));
  // Problems carry their metadata and baselines.
  EXPECT_EQ(j["problems"][0]["problem"], "p1");
  EXPECT_EQ(j["problems"][0]["dimension"], 2);
  EXPECT_EQ(j["problems"][0]["clip"], 8.0);
  // Attainment and anytime for both methods.
  EXPECT_EQ(j["attainment"]["methods"]["good"].size(), 5u);
  EXPECT_EQ(j["anytime"]["methods"]["bad"]["ecdf_runtime_to_target"].size(), 2u);

  auto csv = ReportCsv(j);
  for (const char* f : {"leaderboard.csv", "curves.csv", "method_problems.csv", "problems.csv",
                        "bootstrap_ranks.csv", "top_rankings.csv", "borda.csv", "ballots.csv",
                        "anytime.csv", "attainment.csv"}) {
    ASSERT_EQ(csv.count(f), 1u) << f;
  }
  EXPECT_THAT(csv["leaderboard.csv"], HasSubstr("\n1,good,false,true,"));
  EXPECT_THAT(csv["problems.csv"], HasSubstr("p1,2,noisy;unimodal,"));
  EXPECT_THAT(csv["top_rankings.csv"], HasSubstr("good > bad,1\n"));
  EXPECT_THAT(csv["borda.csv"], HasSubstr("attribute,noisy,2,good,2,2,2,"));
}

// --- End to end on generated results with known distributions. ---
//
// Every evaluation on problem p is X = U^a_p with U uniform on (0, 1), so the known optimum is 0,
// the median single evaluation is 0.5^a and the best of m independent evaluations, min of m
// draws, has E[min] = Gamma(m + 1) Gamma(a + 1) / Gamma(m + a + 1). Random search's normalized
// performance after batch t is therefore E[min of b (t + 1)] / 0.5^a (the clip at the median
// only matters with probability 2^-m), and its leaderboard score is
// 100 (1 - mean_p E[min of b T] / 0.5^a).
double ExpectedMinPower(int m, double a) {
  return std::exp(std::lgamma(m + 1.0) + std::lgamma(a + 1.0) - std::lgamma(m + a + 1.0));
}

TEST(ReportKnownDistributionTest, RandomSearchMatchesItsAnalyticExpectation) {
  constexpr int kBatch = 8, kBatches = 16, kRsTrials = 200, kTrials = 100;
  const std::vector<double> exponents = {0.25, 0.5, 1.0};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto draw = [&](double a) { return std::pow(u(rng), a); };
  ScoringInput in;
  in.n_batches = kBatches;
  in.batch_size = kBatch;
  for (size_t p = 0; p < exponents.size(); ++p) {
    const std::string name = "power" + std::to_string(p);
    const double a = exponents[p];
    ProblemBaselineInput b;
    for (int i = 0; i < kRsTrials * kBatch * kBatches; ++i) b.random_evals.push_back(draw(a));
    b.known_optimum = 0.0;
    in.problems[name] = b;
    for (int n = 0; n < kTrials; ++n) {
      TrialCurve rs, better, worse;
      for (int t = 0; t < kBatches; ++t) {
        double rs_min = HUGE_VAL, better_min = HUGE_VAL;
        for (int i = 0; i < kBatch; ++i) {
          rs_min = std::min(rs_min, draw(a));
          // "better" evaluates the best of 4 random points per suggestion: as good as random
          // search with 4x the evaluations, so its RS-equivalent is about 4 x 128.
          for (int k = 0; k < 4; ++k) better_min = std::min(better_min, draw(a));
        }
        rs.batch_min.push_back(rs_min);
        better.batch_min.push_back(better_min);
        worse.batch_min.push_back(1.0);  // never better than a random guess
      }
      in.methods["random"][name].trials.push_back(rs);
      in.methods["better"][name].trials.push_back(better);
      in.methods["never-beats-random"][name].trials.push_back(worse);
    }
  }
  ReportOptions o;
  o.bootstrap.replicates = 300;
  o.anytime_replicates = 10;
  auto report = ComputeReport(in, o);
  ASSERT_TRUE(report.ok()) << report.status();

  // Analytic expectations.
  std::vector<double> rand_mean(kBatches, 0.0);
  for (double a : exponents) {
    for (int t = 0; t < kBatches; ++t) {
      rand_mean[t] += ExpectedMinPower(kBatch * (t + 1), a) / std::pow(0.5, a) / exponents.size();
    }
  }
  const double rs_score = 100 * (1 - rand_mean.back());

  std::map<std::string, const MethodResult*> rows;
  for (const MethodResult& r : report->board.rows) rows[r.method] = &r;
  ASSERT_EQ(rows.size(), 4u);

  // The pooled baseline's estimators (25,600 evaluations per problem) are close to exact: the
  // clip estimate has a relative standard error of about 1 / sqrt(25600) = 0.6% of the median.
  for (int t = 0; t < kBatches; ++t) {
    EXPECT_NEAR(report->board.rand_mean_perf[t], rand_mean[t], 0.03 * rand_mean[t]) << t;
  }
  EXPECT_NEAR(rows["random-search-baseline"]->score, rs_score, 0.3);

  // The "random" method's score is a mean over 300 trials: within 4 standard errors of the
  // analytic expectation (standard error computed from the trials themselves).
  const MethodResult& random = *rows["random"];
  double var = 0;
  for (const ProblemResult& pr : random.problems) {
    const auto& b = report->board.baselines.at(pr.problem);
    std::vector<double> x;
    for (const TrialCurve& c : in.methods["random"][pr.problem].trials) {
      x.push_back(std::clamp((BestSoFar(c).back() - b.opt) / (b.clip - b.opt), -1.0, 1.0));
    }
    double mean = 0, ss = 0;
    for (double v : x) mean += v / x.size();
    for (double v : x) ss += (v - mean) * (v - mean);
    var += ss / (x.size() - 1) / x.size() / (exponents.size() * exponents.size());
  }
  const double se = 100 * std::sqrt(var);
  EXPECT_GT(se, 0.0);
  EXPECT_NEAR(random.score, rs_score, 4 * se + 0.3) << "se " << se;
  for (int t = 0; t < kBatches; ++t) {
    EXPECT_NEAR(random.normalized_mean_perf[t], 1.0, 0.15) << t;
  }
  // RS-equivalent of random search ~ 128 evaluations; of "better" ~ 512.
  EXPECT_GT(random.rs_equivalent_evals, 128 * 0.75);
  EXPECT_LT(random.rs_equivalent_evals, 128 * 1.33);
  const MethodResult& better = *rows["better"];
  EXPECT_EQ(better.rs_bound, MethodResult::Bound::kExact);
  EXPECT_GT(better.rs_equivalent_evals, 512 * 0.75);
  EXPECT_LT(better.rs_equivalent_evals, 512 * 1.33);
  EXPECT_NEAR(better.rs_efficiency, better.rs_equivalent_evals / 128, 1e-9);
  // Its expected normalized performance is E[min of 4 * 128] / median.
  double better_expected = 0;
  for (double a : exponents) {
    better_expected += ExpectedMinPower(4 * kBatch * kBatches, a) / std::pow(0.5, a) / 3;
  }
  EXPECT_NEAR(better.score, 100 * (1 - better_expected), 1.0);
  // A method that never beats one random guess scores exactly 0, RS-equivalent <= 1.
  const MethodResult& worse = *rows["never-beats-random"];
  EXPECT_DOUBLE_EQ(worse.score, 0.0);
  EXPECT_EQ(worse.rs_bound, MethodResult::Bound::kAtMost);
  // Ranks: better first in (nearly) every bootstrap replicate; the nonparametric ranking agrees.
  ASSERT_EQ(report->bootstrap.methods[0], "better");
  EXPECT_GT(report->bootstrap.p_top_k[0], 0.99);
  EXPECT_GT(report->bootstrap.rank_counts[0][0], 295);
  EXPECT_EQ(report->ranking.rows[0].method, "better");
  EXPECT_EQ(report->ranking.rows[0].firsts, 3);
  EXPECT_EQ(report->ranking.rows.back().method, "never-beats-random");
  // Anytime: "better" reaches more random-search targets than "random" at every batch.
  for (int t = 0; t < kBatches; ++t) {
    EXPECT_GE(report->anytime.ecdf.at("better")[t], report->anytime.ecdf.at("random")[t]);
  }
  EXPECT_EQ(report->anytime.ecdf.at("never-beats-random").back(), 0.0);
}

}  // namespace
}  // namespace bbo::scoring
