#include "scoring/plackett_luce/racing.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scoring/plackett_luce/test_posteriors.h"

namespace bbo::scoring::pl {
namespace {

using ::testing::ElementsAre;
using testing::MakePosterior;

RacingOptions Options(int b = 8, int b_min = 4, int b_max = 32) {
  RacingOptions o;
  o.initial_batch = b;
  o.b_min = b_min;
  o.b_max = b_max;
  return o;
}

TEST(RacingTest, StartAndFirstRoundRunEveryMethodToTheEnd) {
  auto s = StartRace({"A", "B", "C"}, 4, Options());
  ASSERT_TRUE(s.ok()) << s.status();
  RoundPlan plan = FirstRound(*s);
  EXPECT_FALSE(plan.stop);
  EXPECT_EQ(plan.new_instances, 8);
  ASSERT_EQ(plan.runs.size(), 3u);
  for (const MethodRun& r : plan.runs) {
    EXPECT_EQ(r.tau, 3);
    EXPECT_TRUE(r.new_instances);
    EXPECT_EQ(r.new_begin, 0);
    EXPECT_EQ(r.new_end, 8);
    EXPECT_EQ(r.cached_begin, r.cached_end);
  }
  EXPECT_EQ(plan.state.instances_sampled, 8);
}

TEST(RacingTest, RejectsBadOptionsAndNames) {
  EXPECT_EQ(StartRace({}, 2, Options()).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(StartRace({"A", "A"}, 2, Options()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(StartRace({"A"}, 0, Options()).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(StartRace({"A"}, 2, Options(2, 4, 8)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(StartRace({"A"}, 2, Options(8, 4, 2)).status().code(),
            absl::StatusCode::kInvalidArgument);
  RacingOptions o = Options();
  o.shrink_fraction = 0;
  EXPECT_EQ(StartRace({"A"}, 2, o).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(RacingTest, EliminatesHalvesBatchAndStopsAtLateTimepointsFirst) {
  // A and B cross: equal-ish early (t = 0, 1 undecided), A better at t = 2, B at t = 3. C is worst
  // everywhere.
  RatingPosterior post = MakePosterior(3, 4, 100, [](int t, int s, int i) {
    if (i == 2) return 0.05;
    if (t < 2) return (i == 0) == (s % 2 == 0) ? 0.6 : 0.4;
    return (i == 0) == (t == 2) ? 0.7 : 0.3;
  });
  auto s = StartRace({"A", "B", "C"}, 4, Options());
  ASSERT_TRUE(s.ok());
  RoundPlan first = FirstRound(*s);
  auto plan = PlanNextRound(first.state, post, Options());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(plan->newly_eliminated, ElementsAre("C"));
  EXPECT_THAT(plan->eliminated_by, ElementsAre("A"));
  EXPECT_EQ(plan->unresolved_pairs_before, 3);
  EXPECT_EQ(plan->newly_resolved_pairs, 2);  // A-C and B-C; A-B still open at t = 0, 1
  EXPECT_EQ(plan->state.batch_size, 4);      // 2 of 3 > 20%: halved
  ASSERT_EQ(plan->runs.size(), 2u);
  EXPECT_EQ(plan->runs[0].method, "A");
  EXPECT_EQ(plan->runs[0].tau, 1);  // t = 2, 3 resolved: stop A and B after t = 1
  EXPECT_EQ(plan->runs[0].new_begin, 8);
  EXPECT_EQ(plan->runs[0].new_end, 12);
  EXPECT_EQ(plan->state.eliminated_round[2], 1);
  EXPECT_TRUE(plan->state.Resolved(0, 1, 3));
  EXPECT_FALSE(plan->state.Resolved(0, 1, 0));

  // Next round: nothing new resolves -> b doubles; marks are never undone.
  RatingPosterior vague = MakePosterior(3, 4, 100, [](int, int s, int i) {
    return i == 2 ? 1.0 : ((i == 0) == (s % 2 == 0) ? 0.6 : 0.4);
  });
  auto again = PlanNextRound(plan->state, vague, Options());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->newly_resolved_pairs, 0);
  EXPECT_EQ(again->state.batch_size, 8);
  EXPECT_TRUE(again->state.Resolved(0, 1, 3));
  EXPECT_EQ(again->state.eliminated_round[2], 1);  // stays eliminated
  EXPECT_FALSE(again->stop);

  // Crossing resolution resolves A-B everywhere: the race stops.
  RacingOptions crossing = Options();
  crossing.decisions.resolution = Resolution::kCrossing;
  auto done = PlanNextRound(plan->state, post, crossing);
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->stop);
  EXPECT_TRUE(done->runs.empty());
  EXPECT_EQ(done->new_instances, 0);
}

TEST(RacingTest, BatchSizeIsClipped) {
  RatingPosterior vague = MakePosterior(
      2, 1, 100, [](int, int s, int i) { return (i == 0) == (s % 2 == 0) ? 0.6 : 0.4; });
  auto s = StartRace({"A", "B"}, 1, Options(16, 4, 32));
  RaceState state = FirstRound(*s).state;
  for (int r = 0; r < 3; ++r) state = PlanNextRound(state, vague, Options(16, 4, 32))->state;
  EXPECT_EQ(state.batch_size, 32);
}

TEST(RacingTest, AdmittedMethodCatchesUpOnCachedInstances) {
  auto s = StartRace({"A", "B"}, 2, Options());
  RaceState state = FirstRound(*s).state;  // instances 0..7 sampled
  auto admitted = AdmitMethod(state, "N");
  ASSERT_TRUE(admitted.ok());
  EXPECT_EQ(AdmitMethod(*admitted, "A").status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(AdmitMethod(*admitted, "").status().code(), absl::StatusCode::kInvalidArgument);
  // The posterior does not know N yet; A and B are still undecided.
  RatingPosterior post = MakePosterior(
      2, 2, 100, [](int, int s, int i) { return (i == 0) == (s % 2 == 0) ? 0.6 : 0.4; });
  auto plan = PlanNextRound(*admitted, post, Options(8, 8, 8));
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->runs.size(), 3u);
  const MethodRun& n = plan->runs[2];
  EXPECT_EQ(n.method, "N");
  EXPECT_EQ(n.tau, 1);
  EXPECT_TRUE(n.new_instances);
  EXPECT_EQ(n.new_begin, 8);
  EXPECT_EQ(n.cached_begin, 0);
  EXPECT_EQ(n.cached_end, 8);
  EXPECT_EQ(plan->runs[0].cached_end, 0);
  EXPECT_EQ(plan->state.eliminated_round[2], -1);
  // A method eliminated before the admission is resolved against the newcomer at once.
  RaceState with_c = *StartRace({"A", "C"}, 1, Options());
  with_c.eliminated_round[1] = 0;
  auto late = AdmitMethod(with_c, "N");
  EXPECT_TRUE(late->Resolved(1, 2, 0));
  EXPECT_FALSE(late->Resolved(0, 2, 0));
}

TEST(RacingTest, PosteriorOnAnotherGridIsRejected) {
  auto s = StartRace({"A", "B"}, 3, Options());
  RatingPosterior post = MakePosterior(2, 2, 10, [](int, int, int) { return 1.0; });
  EXPECT_EQ(PlanNextRound(*s, post, Options()).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bbo::scoring::pl
