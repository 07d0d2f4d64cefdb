#include "scoring/bootstrap.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::scoring {
namespace {

// One problem (random evals 1..8, batch 2 x 2 batches) and methods with given last values.
ScoringInput Input(const std::map<std::string, std::vector<double>>& finals) {
  ScoringInput in;
  in.batch_size = 2;
  in.n_batches = 2;
  in.problems["p"] = ProblemBaselineInput{{1, 2, 3, 4, 5, 6, 7, 8}, 0.0};
  for (const auto& [m, values] : finals) {
    for (double v : values) in.methods[m]["p"].trials.push_back({{v, v}});
  }
  return in;
}

TEST(BootstrapTest, SeparatedMethodsHaveCertainRanks) {
  ScoringInput in = Input({{"good", {0.1, 0.2, 0.3}}, {"bad", {3, 3.5, 4}}});
  auto board = *ComputeLeaderboard(in, "rs");
  BootstrapOptions opts;
  opts.replicates = 2000;
  opts.top_k = 1;
  auto r = BootstrapRanks(board, in, opts);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->methods, ::testing::ElementsAre("good", "bad"));  // baseline row left out
  EXPECT_EQ(r->rank_counts[0][0], 2000);
  EXPECT_EQ(r->p_top_k[0], 1.0);
  EXPECT_EQ(r->p_top_k[1], 0.0);
  ASSERT_FALSE(r->top_rankings.empty());
  EXPECT_EQ(r->top_rankings[0].second, 1.0);
}

TEST(BootstrapTest, OverlappingMethodsShareRanksAndResultsIgnoreThreadCount) {
  // Same trial scores in a different order: exchangeable, so each is first about half the time.
  ScoringInput in = Input({{"a", {1, 2, 3, 4}}, {"b", {4, 3, 2, 1}}});
  auto board = *ComputeLeaderboard(in, "");
  BootstrapOptions opts;
  opts.replicates = 4000;
  opts.top_k = 1;
  opts.threads = 1;
  auto one = BootstrapRanks(board, in, opts);
  opts.threads = 3;
  auto three = BootstrapRanks(board, in, opts);
  ASSERT_TRUE(one.ok() && three.ok());
  EXPECT_EQ(one->rank_counts, three->rank_counts);
  EXPECT_NEAR(one->p_top_k[0], 0.5, 0.06);
  EXPECT_NEAR(one->p_top_k[0] + one->p_top_k[1], 1.0, 1e-12);
  opts.replicates = 0;
  EXPECT_FALSE(BootstrapRanks(board, in, opts).ok());
}

}  // namespace
}  // namespace bbo::scoring
