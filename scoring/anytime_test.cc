#include "scoring/anytime.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::scoring {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;

TEST(AnytimeTest, EcdfAndFractionalRanksByHand) {
  // Random search {4,1,3,2}, batch 2 x 2 batches, optimum 0: targets rand-mean-perf = {1.5, 1}.
  ScoringInput in;
  in.batch_size = 2;
  in.n_batches = 2;
  in.problems["p"] = ProblemBaselineInput{{4, 1, 3, 2}, 0.0};
  in.methods["A"]["p"].trials = {{{3, 1}}, {{1.5, 2}}};  // S {3, 1} and {1.5, 1.5}
  in.methods["B"]["p"].trials = {{{0.5, 0.5}}};
  auto board = ComputeLeaderboard(in, "");
  ASSERT_TRUE(board.ok());
  auto r = ComputeAnytime(*board, in, 1, 7);
  ASSERT_TRUE(r.ok()) << r.status();
  // A: trial 1 reaches 1.5 and 1 at batch 1; trial 2 reaches 1.5 at batch 0, never 1.
  // 4 (trial, target) pairs: batch 0 -> 1/4, batch 1 -> 3/4.
  EXPECT_THAT(r->ecdf["A"], ElementsAre(DoubleNear(0.25, 1e-12), DoubleNear(0.75, 1e-12)));
  EXPECT_THAT(r->ecdf["B"], ElementsAre(DoubleNear(1.0, 1e-12), DoubleNear(1.0, 1e-12)));
  // One replicate = the data: B's mean normalized perf (.25) beats A's (.875, .625) -> B rank
  // 1 (fraction 0), A rank 2 (fraction 1).
  EXPECT_THAT(r->avg_fractional_rank["A"], ElementsAre(1.0, 1.0));
  EXPECT_THAT(r->avg_fractional_rank["B"], ElementsAre(0.0, 0.0));
  // Ties share the average rank.
  in.methods["B"]["p"].trials = in.methods["A"]["p"].trials;
  auto tied = ComputeAnytime(*ComputeLeaderboard(in, ""), in, 1, 7);
  EXPECT_THAT(tied->avg_fractional_rank["A"], ElementsAre(0.5, 0.5));
  EXPECT_FALSE(ComputeAnytime(*board, in, 0, 7).ok());
}

}  // namespace
}  // namespace bbo::scoring
