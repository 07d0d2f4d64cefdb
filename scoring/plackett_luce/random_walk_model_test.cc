#include "scoring/plackett_luce/random_walk_model.h"

#include <cmath>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scoring/plackett_luce/dirichlet_model.h"
#include "scoring/plackett_luce/internal/helmert.h"

namespace bbo::scoring::pl {
namespace {

RankingSet Set(int n, int T, std::vector<Ranking> rankings) {
  RankingSet set;
  for (int i = 0; i < n; ++i) set.methods.push_back(std::string(1, static_cast<char>('A' + i)));
  for (int t = 0; t < T; ++t) set.grid.points.push_back(t + 1.0);
  set.grid.spacing = GridSpacing::kUniform;
  set.rankings = std::move(rankings);
  return set;
}

// Rankings drawn from PL with log-ratings mu[t][i] by Gumbel perturbation (PolarBear §2/§5.1).
std::vector<Ranking> Draw(const std::vector<std::vector<double>>& mu, int per_t, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::extreme_value_distribution<double> gumbel;
  std::vector<Ranking> out;
  for (size_t t = 0; t < mu.size(); ++t) {
    for (int r = 0; r < per_t; ++r) {
      std::vector<std::pair<int, double>> v;
      for (size_t i = 0; i < mu[t].size(); ++i) v.push_back({int(i), -(mu[t][i] + gumbel(rng))});
      out.push_back(RankValues(v, static_cast<int>(t)));
    }
  }
  return out;
}

std::vector<double> Column(const RatingPosterior& p, int t, int i) {
  std::vector<double> x(p.S());
  for (int s = 0; s < p.S(); ++s) x[s] = p.Theta(t, s, i);
  return x;
}

double Mean(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += v;
  return s / x.size();
}

double Sd(const std::vector<double>& x) {
  const double m = Mean(x);
  double s = 0;
  for (double v : x) s += (v - m) * (v - m);
  return std::sqrt(s / (x.size() - 1));
}

TEST(HelmertTest, OrthonormalColumnsSummingToZero) {
  for (int n : {2, 3, 7}) {
    const Eigen::MatrixXd Q = internal::Helmert(n);
    EXPECT_TRUE((Q.transpose() * Q).isIdentity(1e-12)) << n;
    EXPECT_LT(Q.colwise().sum().cwiseAbs().maxCoeff(), 1e-12) << n;
  }
  // PolarBear eq. 38 for n = 3: column 1 = (1/sqrt 2, -1/sqrt 2, 0).
  const Eigen::MatrixXd Q = internal::Helmert(3);
  EXPECT_NEAR(Q(0, 0), 1 / std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(Q(1, 0), -1 / std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(Q(2, 1), -std::sqrt(2.0 / 3), 1e-15);
}

TEST(RandomWalkTest, HmcMatchesQuadratureForOneTimepointTwoMethods) {
  // n = 2, T = 1: mu = Q eta = (eta, -eta) / sqrt 2, theta_A = logistic(sqrt 2 eta), eta ~
  // N(0, s0^2). With 6 wins of A and 2 of B the posterior of eta is proportional to
  // N(eta; 0, 4) logistic(sqrt2 eta)^6 logistic(-sqrt2 eta)^2; E[theta_A] by quadrature.
  std::vector<Ranking> rs;
  for (int k = 0; k < 6; ++k) rs.push_back(Ranking{0, {0, 1}, {0, 1}, 1});
  for (int k = 0; k < 2; ++k) rs.push_back(Ranking{0, {1, 0}, {0, 1}, 1});
  double z = 0, m1 = 0;
  for (double eta = -12; eta <= 12; eta += 1e-4) {
    const double th = 1 / (1 + std::exp(-std::sqrt(2.0) * eta));
    const double w = std::exp(-eta * eta / 8) * std::pow(th, 6) * std::pow(1 - th, 2);
    z += w;
    m1 += w * th;
  }
  const double expected = m1 / z;
  RandomWalkOptions o;
  o.draws_per_chain = 2000;
  auto p = FitRandomWalk(Set(2, 1, rs), o);
  ASSERT_TRUE(p.ok()) << p.status();
  const std::vector<double> a = Column(*p, 0, 0);
  const double tol = 4 * Sd(a) / std::sqrt(p->diagnostics.ess_bulk[0]);
  EXPECT_NEAR(Mean(a), expected, tol);
  EXPECT_LT(p->diagnostics.max_rhat, 1.01);
  EXPECT_GT(p->diagnostics.min_ess_bulk, 400);
  EXPECT_EQ(p->diagnostics.divergences, 0);
  EXPECT_NEAR(p->diagnostics.acceptance_rate, 0.8, 0.15);
  // The Laplace approximation is close but not exact for so little data.
  o.inference = TemporalInference::kLaplace;
  auto lap = FitRandomWalk(Set(2, 1, rs), o);
  ASSERT_TRUE(lap.ok());
  EXPECT_NEAR(Mean(Column(*lap, 0, 0)), expected, 0.03);
}

TEST(RandomWalkTest, AgreesWithIndependentModelUnderStrongDataAndConverges) {
  const std::vector<std::vector<double>> mu = {
      {0.8, 0.0, -0.8}, {0.6, 0.2, -0.8}, {0.4, 0.4, -0.8}, {0.2, 0.6, -0.8}, {0.0, 0.8, -0.8}};
  RankingSet set = Set(3, 5, Draw(mu, 300, 4));
  RandomWalkOptions o;
  auto rw = FitRandomWalk(set, o);
  ASSERT_TRUE(rw.ok()) << rw.status();
  // The chain form of the statistics gives the same mode, hence the same Laplace posterior.
  RandomWalkOptions sets = o, chains = o;
  sets.inference = chains.inference = TemporalInference::kLaplace;
  sets.stats.stage_form = StageForm::kSets;
  chains.stats.stage_form = StageForm::kChains;
  auto ls = FitRandomWalk(set, sets), lc = FitRandomWalk(set, chains);
  ASSERT_TRUE(ls.ok() && lc.ok());
  EXPECT_NEAR(ls->hyper[0], lc->hyper[0], 1e-6);
  for (size_t k = 0; k < ls->theta.size(); k += 101) EXPECT_NEAR(ls->theta[k], lc->theta[k], 1e-6);
  auto ind = FitIndependentDirichlet(set);
  ASSERT_TRUE(ind.ok());
  const RatingSummary a = Summarize(*rw), b = Summarize(*ind);
  for (size_t k = 0; k < a.mean.size(); ++k) EXPECT_NEAR(a.mean[k], b.mean[k], 0.03) << k;
  EXPECT_LT(rw->diagnostics.max_rhat, 1.01);
  EXPECT_GT(rw->diagnostics.min_ess_bulk, 400);
  EXPECT_EQ(rw->hyper_name, "sigma");
  EXPECT_GT(rw->hyper[0], 0);
  // Ratings sum to one at every timepoint of every draw.
  for (int t = 0; t < 5; ++t) {
    for (int s = 0; s < rw->S(); s += 97) {
      EXPECT_NEAR(rw->Theta(t, s, 0) + rw->Theta(t, s, 1) + rw->Theta(t, s, 2), 1, 1e-12);
    }
  }
}

TEST(RandomWalkTest, BorrowsStrengthAcrossTimeWhereTheIndependentModelCannot) {
  // A beats B at the first and last of 5 timepoints; no rankings in between. The independent
  // model leaves the middle at its prior (1/2); the random walk interpolates (> 1/2).
  std::vector<Ranking> rs;
  for (int k = 0; k < 30; ++k) {
    rs.push_back(Ranking{0, {0, 1}, {0, 1}, 1});
    rs.push_back(Ranking{4, {0, 1}, {0, 1}, 1});
  }
  RandomWalkOptions o;
  o.sigma = 0.5;
  auto rw = FitRandomWalk(Set(2, 5, rs), o);
  ASSERT_TRUE(rw.ok());
  auto ind = FitIndependentDirichlet(Set(2, 5, rs));
  ASSERT_TRUE(ind.ok());
  EXPECT_GT(Mean(Column(*rw, 2, 0)), 0.75);
  EXPECT_NEAR(Mean(Column(*ind, 2, 0)), 0.5, 0.03);
  EXPECT_EQ(rw->hyper[0], 0.5);
}

TEST(RandomWalkTest, EvidencePrefersLargerSigmaWhenRatingsMove) {
  const std::vector<std::vector<double>> steady = {{1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}};
  const std::vector<std::vector<double>> moving = {{2, 0},  {-2, 0}, {2, 0},
                                                   {-2, 0}, {2, 0},  {-2, 0}};
  RandomWalkOptions o;
  o.inference = TemporalInference::kLaplace;
  o.draws_per_chain = 50;
  auto a = FitRandomWalk(Set(2, 6, Draw(steady, 200, 1)), o);
  auto b = FitRandomWalk(Set(2, 6, Draw(moving, 200, 1)), o);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GT(b->hyper[0], 3 * a->hyper[0]);
}

TEST(RandomWalkTest, OneMethodAndBadOptions) {
  auto one = FitRandomWalk(Set(1, 3, {}));
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->Theta(2, 5, 0), 1.0);
  RankingSet set = Set(2, 2, {Ranking{0, {0, 1}, {0, 1}, 1}});
  auto code = [&](RandomWalkOptions o) { return FitRandomWalk(set, o).status().code(); };
  RandomWalkOptions o;
  o.initial_scale = 0;
  EXPECT_EQ(code(o), absl::StatusCode::kInvalidArgument);
  o = {};
  o.sigma = -1;
  EXPECT_EQ(code(o), absl::StatusCode::kInvalidArgument);
  o = {};
  o.target_accept = 1;
  EXPECT_EQ(code(o), absl::StatusCode::kInvalidArgument);
  o = {};
  o.draws_per_chain = 2;
  EXPECT_EQ(code(o), absl::StatusCode::kInvalidArgument);
  o = {};
  o.sigma_prior_log_sd = 0;
  EXPECT_EQ(code(o), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bbo::scoring::pl
