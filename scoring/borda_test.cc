#include "scoring/borda.h"

#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scoring/mann_whitney.h"

namespace bbo::scoring {
namespace {

using ::testing::ElementsAre;

std::vector<double> Range(double from, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(from + i);
  return v;
}

TEST(MannWhitneyTest, ExactSmallSamples) {
  // {1,2,3} vs {4,5,6}: U_x = 0, max U = 9; one of C(6,3) = 20 arrangements has U >= 9:
  // p = 2 / 20.
  auto r = MannWhitneyU({1, 2, 3}, {4, 5, 6});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->exact);
  EXPECT_EQ(r->u_x, 0);
  EXPECT_NEAR(r->p_value, 0.1, 1e-12);
  // {1,2,3,7} vs {4,5,6}: U_x = 3, U_y = 9; of C(7,3) = 35 arrangements, U >= 9 in
  // 1 + 1 + 2 + 3 = 7 (U = 12, 11, 10, 9): p = 14 / 35 = 0.4.
  auto r2 = MannWhitneyU({1, 2, 3, 7}, {4, 5, 6});
  EXPECT_EQ(r2->u_x, 3);
  EXPECT_NEAR(r2->p_value, 0.4, 1e-12);
}

TEST(MannWhitneyTest, NormalApproximationWithTies) {
  // n = 7 + 8; ties: 2 (x3), 5 (x3), 6 (x2), 9 (x2) -> sum(t^3 - t) = 24 + 24 + 6 + 6 = 60.
  // U_x = 12, U = max(12, 44) = 44, mu = 28, var = 56/12 (16 - 60/210) = 73.333,
  // z = (44 - 28 - .5) / 8.5635 = 1.81001, p = 2 (1 - Phi(z)) = 0.0702942.
  auto r = MannWhitneyU({1, 2, 2, 3, 5, 5, 7}, {2, 4, 5, 6, 6, 8, 9, 9});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->exact);
  EXPECT_EQ(r->u_x, 12);
  EXPECT_NEAR(r->p_value, 0.07029422941876672, 1e-9);
  // All equal: no evidence at all.
  EXPECT_EQ(MannWhitneyU({1, 1}, {1, 1})->p_value, 1.0);
  EXPECT_FALSE(MannWhitneyU({}, {1}).ok());
}

// U_x by its definition: pairs with x above y count 1, equal pairs 1/2.
double UByPairs(const std::vector<double>& x, const std::vector<double>& y) {
  double u = 0;
  for (double a : x) {
    for (double b : y) u += a > b ? 1.0 : a == b ? 0.5 : 0.0;
  }
  return u;
}

TEST(MannWhitneyTest, UIsThePairCountWithAndWithoutTiesWithinAndAcrossSamples) {
  // Large samples (normal approximation) drawn on a coarse grid (ties) and a fine one (none);
  // a tie only across the samples, and only within one.
  std::mt19937_64 rng(11);
  for (int grid : {7, 1 << 30}) {
    for (int rep = 0; rep < 40; ++rep) {
      std::uniform_int_distribution<int> size(1, 60), value(0, grid);
      std::vector<double> x(size(rng)), y(size(rng));
      for (double& v : x) v = value(rng);
      for (double& v : y) v = value(rng);
      auto r = MannWhitneyU(x, y);
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(r->u_x, UByPairs(x, y)) << "grid " << grid << " rep " << rep;
    }
  }
  std::vector<double> x = Range(0, 30), y = Range(29, 30);  // 29 in both
  EXPECT_EQ(MannWhitneyU(x, y)->u_x, UByPairs(x, y));
  x[5] = x[4];  // and one within x
  EXPECT_EQ(MannWhitneyU(x, y)->u_x, UByPairs(x, y));
  // Without ties the normal approximation has no tie correction: x = 0..29, y = 28.5..57.5,
  // only x = 29 is above a y: U_x = 1, U = 899, mu = 450, var = 30 * 30 * 61 / 12,
  // z = (899 - 450 - .5) / 67.639 = 6.63081, p = 2 (1 - Phi(z)) = 3.3384e-11.
  std::vector<double> y2 = Range(28.5, 30);
  auto r = MannWhitneyU(Range(0, 30), y2);
  EXPECT_EQ(r->u_x, 1);
  EXPECT_NEAR(r->p_value / 3.3384e-11, 1.0, 1e-3);
}

TEST(MannWhitneyTest, FamilywiseAlpha) {
  // 4 methods: 6 tests; 1 - (1 - .05)^(1/6) = 0.0085124.
  EXPECT_NEAR(PairwiseAlpha(0.05, 4), 0.008512444610847103, 1e-12);
  EXPECT_LE(1 - std::pow(1 - PairwiseAlpha(0.05, 10), 45), 0.05 + 1e-12);
}


TEST(BordaTest, LossesThenAucThenTies) {
  // A and B both clearly beat C and D on Best Found; C beats D; A and B tie on Best Found
  // but A's AUC is clearly lower.
  std::vector<MethodTrials> m = {
      {"A", Range(0, 10), Range(0, 10)},
      {"B", Range(0.5, 10), Range(100, 10)},
      {"C", Range(100, 10), Range(500, 10)},
      {"D", Range(200, 10), Range(500, 10)},
  };
  auto b = RankProblem(m, 0.01);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(b->methods, ElementsAre("A", "B", "C", "D"));
  EXPECT_THAT(b->position, ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(b->borda, ElementsAre(3, 2, 1, 0));
  // Without the AUC difference A and B stay tied and share first place.
  m[1].auc = Range(0, 10);
  auto tied = RankProblem(m, 0.01);
  EXPECT_THAT(tied->position, ElementsAre(1, 1, 3, 4));
  EXPECT_THAT(tied->borda, ElementsAre(2, 2, 1, 0));
}

TEST(BordaTest, AggregationCreditsTies) {
  Ballot b1{{"A", "B", "C"}, {1, 1, 3}, {1, 1, 0}};
  Ballot b2{{"C", "A", "B"}, {1, 2, 3}, {2, 1, 0}};
  auto rows = AggregateBallots({b1, b2});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].method, "A");  // Borda 2, firsts 1
  EXPECT_EQ(rows[0].borda, 2);
  EXPECT_EQ(rows[0].firsts, 1);
  EXPECT_EQ(rows[1].method, "C");  // Borda 2, firsts 1, top three 2
  EXPECT_EQ(rows[2].method, "B");  // Borda 1
  EXPECT_EQ(rows[2].top_three, 2);
}

TEST(BordaTest, RanksAScoringInputPerProblem) {
  ScoringInput in;
  in.batch_size = 1;
  in.n_batches = 2;
  in.problems["p"] = ProblemBaselineInput{{1, 2}, std::nullopt};
  in.problems["q"] = ProblemBaselineInput{{1, 2}, std::nullopt};
  for (int t = 0; t < 8; ++t) {
    // good is always lower than bad on p; on q they draw from the same values.
    in.methods["good"]["p"].trials.push_back({{5.0 + t, 1.0 + 0.01 * t}});
    in.methods["bad"]["p"].trials.push_back({{50.0 + t, 20.0 + t}});
    in.methods["good"]["q"].trials.push_back({{1.0 * t, 1.0 * t}});
    in.methods["bad"]["q"].trials.push_back({{1.0 * t, 1.0 * t}});
  }
  auto r = RankMethods(in, 0.05);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->pairwise_alpha, 0.05, 1e-12);  // two methods: one test
  ASSERT_EQ(r->ballots.size(), 2u);
  EXPECT_THAT(r->ballots[0].ballot.position, ElementsAre(1, 2));  // p: good first
  EXPECT_THAT(r->ballots[1].ballot.position, ElementsAre(1, 1));  // q: a tie
  EXPECT_EQ(r->rows[0].method, "good");
  EXPECT_EQ(r->rows[0].borda, 1);
  EXPECT_EQ(r->rows[0].firsts, 2);
  EXPECT_EQ(r->rows[1].firsts, 1);
}

}  // namespace
}  // namespace bbo::scoring
