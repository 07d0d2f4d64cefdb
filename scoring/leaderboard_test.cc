#include "scoring/leaderboard.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::scoring {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// One problem, batch_size 2, n_batches 2, random evals {4,1,3,2}, known optimum 0:
// clip = 2, opt = 0 - 10000 * 4.9e-324 ~ 0, clip - opt ~ 2, rand-med = {2, 1},
// rand-mean = {1.5, 1}.
ScoringInput Base() {
  ScoringInput in;
  in.batch_size = 2;
  in.n_batches = 2;
  in.problems["p"] = ProblemBaselineInput{{4, 1, 3, 2}, 0.0};
  return in;
}

const MethodResult& Row(const Leaderboard& b, const std::string& name) {
  for (const auto& r : b.rows) {
    if (r.method == name) return r;
  }
  static MethodResult none;
  ADD_FAILURE() << "no row " << name;
  return none;
}

TEST(LeaderboardTest, HandComputedMeanAndMedianWithTies) {
  ScoringInput in = Base();
  // Trial 1: F = {3, 1} -> S = {3, 1} -> normalized {1.5 -> clipped 1, 0.5}.
  // Trial 2: F = {1.5, 2} -> S = {1.5, 1.5} -> {0.75, 0.75}.
  in.methods["A"]["p"].trials = {{{3, 1}}, {{1.5, 2}}};
  auto board = ComputeLeaderboard(in, "rs");
  ASSERT_TRUE(board.ok()) << board.status();
  const MethodResult& a = Row(*board, "A");
  EXPECT_NEAR(a.mean_perf[0], 0.875, 1e-12);  // (1 + 0.75) / 2
  EXPECT_NEAR(a.mean_perf[1], 0.625, 1e-12);  // (0.5 + 0.75) / 2
  EXPECT_NEAR(a.score, 37.5, 1e-9);           // 100 (1 - 0.625)
  // Median over trials (2 trials: the smaller): t0 1.5 / rand-med 2 = 0.75; t1 1 / 1 = 1.
  EXPECT_NEAR(a.med_perf[0], 0.75, 1e-12);
  EXPECT_NEAR(a.med_perf[1], 1.0, 1e-12);
  EXPECT_NEAR(a.median_score, 0.0, 1e-9);
  EXPECT_EQ(a.problems[0].trials, 2);
  // Random search from the pooled estimator: rand-mean {1.5, 1} / 2 -> score 50.
  const MethodResult& rs = Row(*board, "rs");
  EXPECT_TRUE(rs.is_baseline);
  EXPECT_NEAR(rs.score, 50.0, 1e-9);
  EXPECT_NEAR(rs.median_score, 0.0, 1e-9);
  EXPECT_EQ(rs.problems[0].trials, 1);  // 4 evals / (2 x 2)
}

TEST(LeaderboardTest, CrashCutOffSingleTrialAndPerfect) {
  ScoringInput in = Base();
  in.methods["crash"]["p"].trials = {{{kInf, 0.5}}};    // S {inf, .5} -> {1, .25}: 75
  in.methods["cutoff"]["p"].trials = {{{0.4, kInf}}};   // S {.4, .4} -> .2: 80
  in.methods["perfect"]["p"].trials = {{{0, 0}}};       // always the optimum: 100
  in.methods["allcrash"]["p"].trials = {{{kInf, kInf}}};  // never a value: 0
  auto board = ComputeLeaderboard(in, "rs");
  ASSERT_TRUE(board.ok()) << board.status();
  EXPECT_NEAR(Row(*board, "crash").score, 75.0, 1e-9);
  EXPECT_NEAR(Row(*board, "cutoff").score, 80.0, 1e-9);
  EXPECT_NEAR(Row(*board, "perfect").score, 100.0, 1e-9);
  EXPECT_NEAR(Row(*board, "allcrash").score, 0.0, 1e-9);
  EXPECT_EQ(Row(*board, "allcrash").median_score, -kInf);  // median of an infinite loss
  std::vector<std::string> order;
  for (const auto& r : board->rows) order.push_back(r.method);
  EXPECT_THAT(order, ::testing::ElementsAre("perfect", "cutoff", "crash", "rs", "allcrash"));
}

TEST(LeaderboardTest, GrandMeanOverProblemsAndCompleteness) {
  ScoringInput in = Base();
  in.problems["q"] = ProblemBaselineInput{{4, 1, 3, 2}, 0.0};
  in.methods["both"]["p"].trials = {{{0, 0}}};  // 100 on p
  in.methods["both"]["q"].trials = {{{2, 2}}};  // 0 on q
  in.methods["one"]["p"].trials = {{{1, 1}}};   // 50 on p only
  auto board = ComputeLeaderboard(in, "");
  ASSERT_TRUE(board.ok());
  EXPECT_EQ(board->rows.size(), 2u);  // no baseline row requested
  EXPECT_NEAR(Row(*board, "both").score, 50.0, 1e-9);
  EXPECT_TRUE(Row(*board, "both").complete);
  EXPECT_FALSE(Row(*board, "one").complete);
}

TEST(LeaderboardTest, InvariantToLinearRescalingOfAProblem) {
  auto scaled = [](double a, double b) {
    ScoringInput in;
    in.batch_size = 2;
    in.n_batches = 2;
    std::vector<double> evals = {4, 1, 3, 2, 7, 2.5, 1.25, 9};
    for (double& v : evals) v = a * v + b;
    in.problems["p"] = ProblemBaselineInput{evals, a * 0.5 + b};
    in.methods["m"]["p"].trials = {{{a * 3 + b, a * 0.75 + b}}, {{a * 2 + b, a * 1 + b}}};
    return *ComputeLeaderboard(in, "rs");
  };
  Leaderboard x = scaled(1, 0), y = scaled(3, 7);
  EXPECT_NEAR(Row(x, "m").score, Row(y, "m").score, 1e-6);
  EXPECT_NEAR(Row(x, "m").median_score, Row(y, "m").median_score, 1e-6);
  EXPECT_NEAR(Row(x, "rs").score, Row(y, "rs").score, 1e-6);
}

TEST(LeaderboardTest, RejectsInconsistentInput) {
  ScoringInput in = Base();
  in.methods["m"]["p"].trials = {{{1, 2, 3}}};
  EXPECT_EQ(ComputeLeaderboard(in, "rs").status().code(), absl::StatusCode::kInvalidArgument);
  ScoringInput unknown = Base();
  unknown.methods["m"]["nope"].trials = {{{1, 2}}};
  EXPECT_THAT(ComputeLeaderboard(unknown, "rs").status().message(),
              ::testing::HasSubstr("nope"));
  ScoringInput few = Base();
  few.problems["p"].random_evals = {1, 2};
  EXPECT_FALSE(ComputeLeaderboard(few, "rs").ok());
}

}  // namespace
}  // namespace bbo::scoring

namespace bbo::scoring {
namespace {

TEST(LeaderboardSummaryTest, NormalizedMeanErrorBarsAndRsEquivalents) {
  ScoringInput in = Base();
  in.methods["A"]["p"].trials = {{{3, 1}}, {{1.5, 2}}};
  in.methods["perfect"]["p"].trials = {{{0, 0}}};
  in.methods["allcrash"]["p"].trials = {{{kInf, kInf}}};
  auto board = ComputeLeaderboard(in, "rs");
  ASSERT_TRUE(board.ok()) << board.status();
  // rand-mean-perf_t = {1.5, 1} / 2 = {0.75, 0.5}.
  EXPECT_NEAR(board->rand_mean_perf[0], 0.75, 1e-12);
  EXPECT_NEAR(board->rand_mean_perf[1], 0.5, 1e-12);
  const MethodResult& a = Row(*board, "A");
  EXPECT_NEAR(a.normalized_mean_perf[0], 0.875 / 0.75, 1e-12);
  EXPECT_NEAR(a.normalized_mean_perf[1], 0.625 / 0.5, 1e-12);
  EXPECT_EQ(a.mean_perf_eb[1], kInf);  // one problem: no spread across problems
  // Pooled RS after m draws of clipped {2,1,2,2}, divided by clip 2: f(1) = .875, f(2) = .75,
  // f(3) = (1*2 + 3*1)/4 / 2 = .625, f(4) = .5. A's mean-perf .625 = f(3): 3 evaluations.
  EXPECT_NEAR(a.rs_equivalent_evals, 3.0, 1e-9);
  EXPECT_EQ(a.rs_bound, MethodResult::Bound::kExact);
  EXPECT_NEAR(a.rs_efficiency, 0.75, 1e-9);  // 3 / (2 x 2)
  // Random search itself needs exactly its 4 evaluations: efficiency 1 (Turner et al. (2021) Table
  // 2).
  EXPECT_NEAR(Row(*board, "rs").rs_equivalent_evals, 4.0, 1e-9);
  EXPECT_NEAR(Row(*board, "rs").rs_efficiency, 1.0, 1e-9);
  EXPECT_EQ(Row(*board, "perfect").rs_bound, MethodResult::Bound::kAtLeast);
  EXPECT_EQ(Row(*board, "allcrash").rs_bound, MethodResult::Bound::kAtMost);
  // Table 2 median: trials' clamped S_T/2 = {0.5, 0.75} -> the 1st of 2 (ceil(2 x .5)) = 0.5.
  EXPECT_NEAR(a.table2_median_score, 50.0, 1e-9);
  // Two trials: the median's 95% CI is unbounded on both sides.
  EXPECT_EQ(a.problems[0].norm_med_ci[1].lo, -kInf);
  EXPECT_EQ(a.problems[0].norm_med_ci[1].hi, kInf);
}

TEST(LeaderboardSummaryTest, StudentTErrorBarAcrossProblems) {
  ScoringInput in = Base();
  in.problems["q"] = ProblemBaselineInput{{4, 1, 3, 2}, 0.0};
  in.methods["both"]["p"].trials = {{{0, 0}}};  // normalized 0
  in.methods["both"]["q"].trials = {{{2, 2}}};  // normalized 1
  auto board = ComputeLeaderboard(in, "");
  // {0, 1}: sem = .5, t_{.975, 1} = 12.706205 -> 6.353102.
  EXPECT_NEAR(Row(*board, "both").mean_perf_eb[1], 6.3531026, 1e-6);
}

// Incremental recomputation: reused per-problem results must equal a full recomputation.
TEST(ScoringCacheTest, RecomputesOnlyWhatChangedAndMatchesAFullComputation) {
  ScoringInput in = Base();
  in.problems["q"] = ProblemBaselineInput{{8, 2, 6, 4}, 0.0};
  in.methods["A"]["p"].trials = {{{3, 1}}, {{1.5, 2}}};
  in.methods["A"]["q"].trials = {{{3, 3}}};
  in.methods["B"]["p"].trials = {{{2, 2}}};
  in.methods["B"]["q"].trials = {{{5, 1}}};
  auto same = [](const Leaderboard& a, const Leaderboard& b) {
    ASSERT_EQ(a.rows.size(), b.rows.size());
    for (size_t i = 0; i < a.rows.size(); ++i) {
      EXPECT_EQ(a.rows[i].method, b.rows[i].method);
      EXPECT_EQ(a.rows[i].score, b.rows[i].score);
      EXPECT_EQ(a.rows[i].median_score, b.rows[i].median_score);
      EXPECT_EQ(a.rows[i].mean_perf, b.rows[i].mean_perf);
      EXPECT_EQ(a.rows[i].rs_equivalent_evals, b.rows[i].rs_equivalent_evals);
    }
  };
  ScoringCache cache;
  auto first = ComputeLeaderboard(in, "rs", &cache);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(cache.hits(), 0);
  EXPECT_EQ(cache.misses(), 2 + 4);  // two baselines, four (method, problem) results
  auto again = ComputeLeaderboard(in, "rs", &cache);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(cache.hits(), 6);
  EXPECT_EQ(cache.misses(), 6);
  same(*first, *again);

  // A new trial of B on q that does not change opt_q (1 is still the best value on q): only
  // (B, q) is recomputed.
  in.methods["B"]["q"].trials.push_back({{4, 4}});
  auto third = ComputeLeaderboard(in, "rs", &cache);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(cache.misses(), 7);
  same(*third, *ComputeLeaderboard(in, "rs"));

  // A new best value on p moves opt_p: p's baseline and both results on p are recomputed.
  in.methods["A"]["p"].trials.push_back({{-1, -1}});  // below the known optimum 0
  auto fourth = ComputeLeaderboard(in, "rs", &cache);
  ASSERT_TRUE(fourth.ok());
  EXPECT_EQ(cache.misses(), 10);
  same(*fourth, *ComputeLeaderboard(in, "rs"));
  EXPECT_NE(Row(*fourth, "A").score, Row(*third, "A").score);

  // A removed method is forgotten; the board still matches.
  in.methods.erase("B");
  auto fifth = ComputeLeaderboard(in, "rs", &cache);
  ASSERT_TRUE(fifth.ok());
  same(*fifth, *ComputeLeaderboard(in, "rs"));
}

}  // namespace
}  // namespace bbo::scoring
