#include "scoring/plackett_luce/ranking_stats.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::scoring::pl {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;

RankingSet OneTimepoint(int n, std::vector<Ranking> rankings) {
  RankingSet set;
  set.grid.points = {1.0};
  for (int i = 0; i < n; ++i) set.methods.push_back(std::string(1, static_cast<char>('A' + i)));
  set.rankings = std::move(rankings);
  return set;
}

// PolarBear eq. 6 for a strict order, written directly.
double StrictLogLik(const std::vector<int>& order, const std::vector<double>& log_lambda) {
  double ll = 0;
  for (size_t k = 0; k + 1 < order.size(); ++k) {
    double denom = 0;
    for (size_t j = k; j < order.size(); ++j) denom += std::exp(log_lambda[order[j]]);
    ll += log_lambda[order[k]] - std::log(denom);
  }
  return ll;
}

// The k!-ordering expansion of a tied ranking, enumerated: mean over every ordering of each group.
double ExpandedLogLik(const Ranking& r, const std::vector<double>& log_lambda) {
  std::vector<std::vector<int>> groups;
  for (size_t k = 0; k < r.order.size(); ++k) {
    if (k == 0 || r.group[k] != r.group[k - 1]) groups.emplace_back();
    groups.back().push_back(r.order[k]);
  }
  // Enumerate the product of permutations recursively.
  double sum = 0;
  int count = 0;
  std::vector<int> order;
  std::function<void(size_t)> rec = [&](size_t g) {
    if (g == groups.size()) {
      sum += StrictLogLik(order, log_lambda);
      ++count;
      return;
    }
    std::vector<int> perm = groups[g];
    std::sort(perm.begin(), perm.end());
    do {
      order.insert(order.end(), perm.begin(), perm.end());
      rec(g + 1);
      order.resize(order.size() - perm.size());
    } while (std::next_permutation(perm.begin(), perm.end()));
  };
  rec(0);
  return r.weight * sum / count;
}

TEST(PlStatsTest, StrictRankingGivesOneStagePerPositionButTheLast) {
  auto stats = ComputePlStats(OneTimepoint(3, {Ranking{0, {0, 1, 2}, {0, 1, 2}, 1}}));
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_EQ(stats->size(), 1u);
  const PlStats& s = (*stats)[0];
  EXPECT_THAT(s.wins, ElementsAre(1, 1, 0));
  ASSERT_EQ(s.stages.size(), 2u);
  EXPECT_THAT(s.stages[0].members, ElementsAre(0, 1, 2));
  EXPECT_THAT(s.stages[1].members, ElementsAre(1, 2));
  EXPECT_EQ(s.stages[0].weight, 1);
  EXPECT_EQ(s.total_weight, 1);
}

TEST(PlStatsTest, IdenticalStagesAreMerged) {
  auto stats = ComputePlStats(
      OneTimepoint(3, {Ranking{0, {0, 1, 2}, {0, 1, 2}, 1}, Ranking{0, {1, 0, 2}, {0, 1, 2}, 2}}));
  ASSERT_TRUE(stats.ok());
  const PlStats& s = (*stats)[0];
  // A wins {A,B,C} once and {A,C} twice; B wins {B,C} once and {A,B,C} twice.
  EXPECT_THAT(s.wins, ElementsAre(3, 3, 0));
  ASSERT_EQ(s.stages.size(), 3u);  // {A,B,C} x3, {B,C} x1, {A,C} x2
  EXPECT_EQ(s.stages[0].weight, 3);
  EXPECT_EQ(s.stages[1].weight, 1);
  EXPECT_EQ(s.stages[2].weight, 2);
}

TEST(PlStatsTest, ExactTieExpansionEqualsEnumeratingAllOrderings) {
  // Ties in the middle, at the end, a full tie, and a partial ranking (method 4 absent).
  std::vector<Ranking> rs = {
      Ranking{0, {2, 0, 1, 3, 4}, {0, 1, 1, 1, 2}, 1},
      Ranking{0, {4, 3, 0, 1, 2}, {0, 1, 2, 2, 2}, 0.5},
      Ranking{0, {0, 1, 2, 3, 4}, {0, 0, 0, 0, 0}, 1},
      Ranking{0, {3, 1, 0, 2}, {0, 0, 1, 1}, 1},
  };
  auto stats = ComputePlStats(OneTimepoint(5, rs));
  ASSERT_TRUE(stats.ok()) << stats.status();
  std::mt19937_64 rng(3);
  std::normal_distribution<double> z;
  for (int rep = 0; rep < 5; ++rep) {
    std::vector<double> mu(5);
    for (double& m : mu) m = z(rng);
    double expected = 0;
    for (const Ranking& r : rs) expected += ExpandedLogLik(r, mu);
    EXPECT_NEAR(PlLogLikelihood((*stats)[0], mu), expected, 1e-10);
    // Invariant to a common shift.
    std::vector<double> shifted = mu;
    for (double& m : shifted) m += 3;
    EXPECT_NEAR(PlLogLikelihood((*stats)[0], shifted), expected, 1e-10);
  }
}

TEST(PlStatsTest, LargeTiesAreSampledWithoutBiasAndDeterministically) {
  // A 6-way tie above one method, expanded by 4000 sampled orderings vs exactly.
  std::vector<Ranking> rs = {Ranking{0, {0, 1, 2, 3, 4, 5, 6}, {0, 0, 0, 0, 0, 0, 1}, 1}};
  StatsOptions sampled{.max_exact_tie = 2, .sampled_orderings = 4000, .seed = 9};
  sampled.max_sampled_orderings = 4000;
  auto exact = ComputePlStats(OneTimepoint(7, rs));
  auto approx = ComputePlStats(OneTimepoint(7, rs), sampled);
  auto again = ComputePlStats(OneTimepoint(7, rs), sampled);
  ASSERT_TRUE(exact.ok() && approx.ok() && again.ok());
  std::vector<double> mu = {0.3, -1, 2, 0.1, -0.5, 1.2, 0};
  const double e = PlLogLikelihood((*exact)[0], mu), a = PlLogLikelihood((*approx)[0], mu);
  EXPECT_NEAR(a, e, 0.05 * std::abs(e));
  EXPECT_EQ(a, PlLogLikelihood((*again)[0], mu));
  // Every method of the group wins exactly one stage in each ordering (R is non-empty).
  for (int i = 0; i < 6; ++i) EXPECT_NEAR((*approx)[0].wins[i], 1, 1e-12);
  EXPECT_EQ((*approx)[0].wins[6], 0);
}

TEST(PlStatsTest, ChainsAndStageSetsGiveTheSameLikelihood) {
  // Random rankings of 6 methods with ties anywhere and partial rankings.
  std::mt19937_64 rng(12);
  std::uniform_int_distribution<int> value(0, 8);
  std::vector<Ranking> rs;
  for (int r = 0; r < 60; ++r) {
    std::vector<std::pair<int, double>> v;
    for (int i = 0; i < 6; ++i) {
      if (value(rng) > 0) v.push_back({i, static_cast<double>(value(rng))});
    }
    if (v.size() >= 2) rs.push_back(RankValues(v, 0));
  }
  StatsOptions sets, chains;
  sets.stage_form = StageForm::kSets;
  chains.stage_form = StageForm::kChains;
  auto a = ComputePlStats(OneTimepoint(6, rs), sets);
  auto b = ComputePlStats(OneTimepoint(6, rs), chains);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE((*a)[0].chains.empty());
  EXPECT_FALSE((*b)[0].chains.empty());
  EXPECT_EQ((*a)[0].wins, (*b)[0].wins);
  std::normal_distribution<double> z;
  for (int rep = 0; rep < 5; ++rep) {
    std::vector<double> mu(6);
    for (double& m : mu) m = 2 * z(rng);
    EXPECT_NEAR(PlLogLikelihood((*a)[0], mu), PlLogLikelihood((*b)[0], mu), 1e-9);
    const std::vector<double> ga = PlLogLikelihoodGradient((*a)[0], mu);
    const std::vector<double> gb = PlLogLikelihoodGradient((*b)[0], mu);
    for (int i = 0; i < 6; ++i) EXPECT_NEAR(ga[i], gb[i], 1e-9);
  }
}

TEST(PlStatsTest, GradientMatchesFiniteDifferences) {
  std::vector<Ranking> rs = {Ranking{0, {2, 0, 1, 3}, {0, 1, 1, 2}, 1},
                             Ranking{0, {3, 0, 1}, {0, 1, 2}, 2}};
  auto stats = ComputePlStats(OneTimepoint(4, rs));
  ASSERT_TRUE(stats.ok());
  std::vector<double> mu = {0.2, -0.4, 1.0, 0.3};
  std::vector<double> g = PlLogLikelihoodGradient((*stats)[0], mu);
  for (int i = 0; i < 4; ++i) {
    std::vector<double> hi = mu, lo = mu;
    hi[i] += 1e-6;
    lo[i] -= 1e-6;
    const double fd = (PlLogLikelihood((*stats)[0], hi) - PlLogLikelihood((*stats)[0], lo)) / 2e-6;
    EXPECT_NEAR(g[i], fd, 1e-6);
  }
}

TEST(PlStatsTest, RejectsMalformedRankingsAndOptions) {
  auto code = [](const Ranking& r, StatsOptions t = {}) {
    return ComputePlStats(OneTimepoint(3, {r}), t).status().code();
  };
  EXPECT_EQ(code(Ranking{1, {0, 1}, {0, 1}, 1}), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Ranking{0, {0, 3}, {0, 1}, 1}), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Ranking{0, {0, 0}, {0, 1}, 1}), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Ranking{0, {0, 1}, {0, 2}, 1}), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Ranking{0, {0, 1}, {0}, 1}), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Ranking{0, {0, 1}, {0, 1}, 0}), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Ranking{0, {0, 1}, {0, 1}, NAN}), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Ranking{0, {0, 1}, {0, 1}, 1}, StatsOptions{.max_exact_tie = 0}),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Ranking{0, {0, 1}, {0, 1}, 1}, StatsOptions{.sampled_orderings = 0}),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bbo::scoring::pl
