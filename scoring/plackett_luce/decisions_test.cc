#include "scoring/plackett_luce/decisions.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scoring/plackett_luce/test_posteriors.h"

namespace bbo::scoring::pl {
namespace {

using ::testing::ElementsAre;
using testing::MakePosterior;

TEST(DecisionsTest, DominanceAndEquivalenceProbabilitiesCountDraws) {
  // t = 0: A > B in 99 of 100 draws. t = 1: A/(A+B) = 0.52 in 99 draws, 0.7 in one.
  RatingPosterior p = MakePosterior(2, 2, 100, [](int t, int s, int i) {
    if (t == 0) return i == 0 ? (s == 0 ? 0.4 : 0.6) : (s == 0 ? 0.6 : 0.4);
    return i == 0 ? (s == 7 ? 0.7 : 0.52) : (s == 7 ? 0.3 : 0.48);
  });
  auto d = Decide(p, DecisionOptions{});
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->pairs.size(), 1u);
  const PairDecision& pd = d->pairs[0];
  EXPECT_THAT(pd.p_a_better, ElementsAre(0.99, 1.0));
  EXPECT_THAT(pd.p_equivalent, ElementsAre(0.0, 0.99));
  // Dominance takes precedence over equivalence (§4.1): at t = 1 A is better in every draw.
  EXPECT_THAT(pd.relation, ElementsAre(Relation::kFirstDominates, Relation::kFirstDominates));
  EXPECT_EQ(d->dominated_by[1], 0);
  EXPECT_THAT(d->pareto_set, ElementsAre(0));
  EXPECT_DOUBLE_EQ(pd.p_a_dominates, 0.99);
  // With alpha = 0.995 nothing dominates at t = 0; at t = 1 still.
  auto strict = Decide(p, DecisionOptions{.alpha = 0.995});
  ASSERT_TRUE(strict.ok());
  EXPECT_THAT(strict->pairs[0].relation,
              ElementsAre(Relation::kUnresolved, Relation::kFirstDominates));
  EXPECT_THAT(strict->pareto_set, ElementsAre(0, 1));
  EXPECT_EQ(strict->tau[0], 0);
  EXPECT_EQ(strict->tau[1], 0);
  EXPECT_FALSE(strict->resolved[0]);
}

TEST(DecisionsTest, EquivalentWhenEvenOddsAndNeitherDominates) {
  // A/(A+B) alternates 0.48 / 0.52: P(A better) = 1/2, always inside the ROPE.
  RatingPosterior p = MakePosterior(2, 1, 100, [](int, int s, int i) {
    return i == 0 ? (s % 2 ? 0.48 : 0.52) : (s % 2 ? 0.52 : 0.48);
  });
  auto d = Decide(p, DecisionOptions{});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->pairs[0].relation[0], Relation::kEquivalent);
  EXPECT_TRUE(d->resolved[0]);
  EXPECT_THAT(d->pareto_set, ElementsAre(0, 1));
  // A narrower ROPE (epsilon 0.01) no longer covers 0.48.
  auto narrow = Decide(p, DecisionOptions{.epsilon = 0.01});
  EXPECT_EQ(narrow->pairs[0].relation[0], Relation::kUnresolved);
}

TEST(DecisionsTest, JointEliminationIsStricterThanPointwise) {
  // B beats A at t = 0 except in draw 0 and at t = 1 except in draw 1: pointwise 0.99 at each t,
  // but jointly only 0.98 (PolarBear eq. 25 and §4.2's negatively correlated posteriors).
  RatingPosterior p = MakePosterior(2, 2, 100, [](int t, int s, int i) {
    const bool a_wins = s == t;
    return (i == 0) == a_wins ? 0.6 : 0.4;
  });
  auto pointwise = Decide(p, DecisionOptions{});
  ASSERT_TRUE(pointwise.ok());
  EXPECT_EQ(pointwise->dominated_by[0], 1);
  EXPECT_THAT(pointwise->pareto_set, ElementsAre(1));
  auto joint = Decide(p, DecisionOptions{.elimination = Elimination::kJoint});
  ASSERT_TRUE(joint.ok());
  EXPECT_DOUBLE_EQ(joint->pairs[0].p_b_dominates, 0.98);
  EXPECT_EQ(joint->dominated_by[0], -1);
  EXPECT_THAT(joint->pareto_set, ElementsAre(0, 1));
  RatingPosterior not_joint = p;
  not_joint.joint_over_time = false;
  EXPECT_EQ(Decide(not_joint, DecisionOptions{.elimination = Elimination::kJoint}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(DecisionsTest, CrossingResolvesThePairAtEveryTimepoint) {
  // A dominates at t = 0, B at t = 1, undecided at t = 2.
  RatingPosterior p = MakePosterior(2, 3, 100, [](int t, int s, int i) {
    if (t == 0) return i == 0 ? 0.8 : 0.2;
    if (t == 1) return i == 0 ? 0.2 : 0.8;
    return (i == 0) == (s % 2 == 0) ? 0.7 : 0.3;
  });
  auto strict = Decide(p, DecisionOptions{});
  ASSERT_TRUE(strict.ok());
  EXPECT_TRUE(strict->pairs[0].crossing);
  EXPECT_THAT(strict->pairs[0].resolved_at, ElementsAre(true, true, false));
  EXPECT_EQ(strict->tau[0], 2);
  EXPECT_THAT(strict->pareto_set, ElementsAre(0, 1));
  auto crossing = Decide(p, DecisionOptions{.resolution = Resolution::kCrossing});
  ASSERT_TRUE(crossing.ok());
  EXPECT_THAT(crossing->pairs[0].resolved_at, ElementsAre(true, true, true));
  EXPECT_EQ(crossing->tau[0], -1);
  EXPECT_TRUE(crossing->resolved[0] && crossing->resolved[1]);
  // Each is non-dominated in every draw.
  EXPECT_THAT(crossing->p_pareto, ElementsAre(1.0, 1.0));
}

TEST(DecisionsTest, EliminatedPairsAreResolvedAndCandidatesRestrictTheComparison) {
  // A best everywhere, C worst everywhere, B in between but close to A at t = 1.
  RatingPosterior p = MakePosterior(3, 2, 100, [](int t, int s, int i) {
    if (i == 0) return 0.5;
    if (i == 1) return t == 1 ? (s % 2 ? 0.56 : 0.47) : 0.3;
    return 0.1;
  });
  auto d = Decide(p, DecisionOptions{});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->dominated_by[2], 0);  // A dominates C more strongly than B does
  EXPECT_EQ(d->dominated_by[1], -1);
  EXPECT_THAT(d->pareto_set, ElementsAre(0, 1));
  EXPECT_TRUE(d->Pair(1, 2)->resolved());
  // A vs B at t = 1: P(A better) = 1/2; A/(A+B) in {0.472, 0.515}: equivalent. On the
  // posterior mean B is ahead at t = 1 (0.461 vs 0.449), so neither mean curve dominates.
  EXPECT_EQ(d->Pair(0, 1)->relation[1], Relation::kEquivalent);
  // Among B and C only, B eliminates C.
  auto bc = Decide(p, DecisionOptions{}, {2, 1});
  ASSERT_TRUE(bc.ok());
  EXPECT_THAT(bc->candidates, ElementsAre(1, 2));
  EXPECT_EQ(bc->dominated_by[2], 1);
  EXPECT_EQ(bc->p_pareto[0], 0);
  EXPECT_THAT(PosteriorMeanParetoSet(p), ElementsAre(0, 1));
}

TEST(DecisionsTest, RejectsBadOptionsAndCandidates) {
  RatingPosterior p = MakePosterior(2, 1, 10, [](int, int, int i) { return i + 1.0; });
  EXPECT_EQ(Decide(p, DecisionOptions{.alpha = 0.5}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Decide(p, DecisionOptions{.alpha = 1.01}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Decide(p, DecisionOptions{.epsilon = 0.5}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Decide(p, DecisionOptions{}, {0, 2}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Decide(p, DecisionOptions{}, {1, 1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Decide(p, DecisionOptions{.alpha = 1.0}).ok());
}

}  // namespace
}  // namespace bbo::scoring::pl
