#include "scoring/plackett_luce/dirichlet_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scoring/plackett_luce/diagnostics.h"

namespace bbo::scoring::pl {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

RankingSet OneTimepoint(int n, std::vector<Ranking> rankings) {
  RankingSet set;
  for (int i = 0; i < n; ++i) set.methods.push_back(std::string(1, static_cast<char>('A' + i)));
  set.grid.points = {1.0};
  set.rankings = std::move(rankings);
  return set;
}

DirichletOptions Options(int draws = 2000, uint64_t seed = 11) {
  DirichletOptions o;
  o.draws_per_chain = draws;
  o.seed = seed;
  return o;
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

double Var(const std::vector<double>& x) {
  const double m = Mean(x);
  double s = 0;
  for (double v : x) s += (v - m) * (v - m);
  return s / (x.size() - 1);
}

// Tolerance for a posterior mean estimated from draws: 4 Monte-Carlo standard errors,
// sd / sqrt(ESS) with the bulk ESS of those draws.
double McTolerance(const RatingPosterior& p, int t, int i) {
  const std::vector<double> x = Column(p, t, i);
  return 4 * std::sqrt(Var(x) / p.diagnostics.ess_bulk[t * p.n() + i]);
}

TEST(IndependentDirichletTest, TwoMethodsOneRankingAlphaOneIsBetaTwoOne) {
  // theta_A ~ Dirichlet(1, 1) = Uniform(0, 1) a priori; one ranking A > B has likelihood
  // theta_A / (theta_A + theta_B) = theta_A, so the posterior density is proportional to theta_A:
  // Beta(2, 1), mean 2/3, variance 2 * 1 / (3^2 * 4) = 1/18.
  auto p = FitIndependentDirichlet(OneTimepoint(2, {Ranking{0, {0, 1}, {0, 1}, 1}}), Options());
  ASSERT_TRUE(p.ok()) << p.status();
  const std::vector<double> a = Column(*p, 0, 0);
  EXPECT_NEAR(Mean(a), 2.0 / 3, McTolerance(*p, 0, 0));
  EXPECT_NEAR(Var(a), 1.0 / 18, 0.004);
  EXPECT_NEAR(Mean(Column(*p, 0, 1)), 1.0 / 3, McTolerance(*p, 0, 1));
  EXPECT_LT(p->diagnostics.max_rhat, 1.01);
  EXPECT_GT(p->diagnostics.min_ess_bulk, 400);
}

TEST(IndependentDirichletTest, WinsAndLossesGiveBetaPosteriorForAnyAlpha) {
  // With two methods every ranking is a Bernoulli(theta_A) trial: m wins of A and l of B under
  // Dirichlet(alpha, alpha) give Beta(alpha + m, alpha + l), mean (alpha + m) / (2 alpha + m + l).
  std::vector<Ranking> rs;
  for (int k = 0; k < 7; ++k) rs.push_back(Ranking{0, {0, 1}, {0, 1}, 1});
  for (int k = 0; k < 3; ++k) rs.push_back(Ranking{0, {1, 0}, {0, 1}, 1});
  DirichletOptions o = Options();
  o.alpha = 2.5;
  auto p = FitIndependentDirichlet(OneTimepoint(2, rs), o);
  ASSERT_TRUE(p.ok());
  EXPECT_NEAR(Mean(Column(*p, 0, 0)), (2.5 + 7) / (5 + 10), McTolerance(*p, 0, 0));
}

TEST(IndependentDirichletTest, ThreeMethodsOneRankingFactorizes) {
  // A > B > C, alpha = 1: density proportional to theta_A theta_B / (theta_B + theta_C). With
  // theta_A = a, theta_B = (1 - a) s, theta_C = (1 - a)(1 - s) (Jacobian 1 - a) it is
  // a (1 - a) s: a ~ Beta(2, 2) and s ~ Beta(2, 1) independent, so
  // E theta = (1/2, 1/2 * 2/3, 1/2 * 1/3) = (1/2, 1/3, 1/6).
  auto p =
      FitIndependentDirichlet(OneTimepoint(3, {Ranking{0, {0, 1, 2}, {0, 1, 2}, 1}}), Options());
  ASSERT_TRUE(p.ok());
  EXPECT_NEAR(Mean(Column(*p, 0, 0)), 1.0 / 2, McTolerance(*p, 0, 0));
  EXPECT_NEAR(Mean(Column(*p, 0, 1)), 1.0 / 3, McTolerance(*p, 0, 1));
  EXPECT_NEAR(Mean(Column(*p, 0, 2)), 1.0 / 6, McTolerance(*p, 0, 2));
}

TEST(IndependentDirichletTest, TwoWayTieIsHalfOfEachOrdering) {
  // Both orderings with weight 1/2: likelihood theta_A^(1/2) theta_B^(1/2), posterior
  // Beta(3/2, 3/2): mean 1/2, variance (9/4) / (9 * 4) = 1/16.
  auto p = FitIndependentDirichlet(OneTimepoint(2, {Ranking{0, {0, 1}, {0, 0}, 1}}), Options());
  ASSERT_TRUE(p.ok());
  EXPECT_NEAR(Mean(Column(*p, 0, 0)), 0.5, McTolerance(*p, 0, 0));
  EXPECT_NEAR(Var(Column(*p, 0, 0)), 1.0 / 16, 0.004);
}

// ---------------------------------------------------------------------------------------------
// An independent sampler, written differently: random-walk Metropolis on psi in R^(n-1) with
// theta = softmax(psi, 0). The Dirichlet(alpha) density in psi is prod_i theta_i^alpha (the
// additive-logistic Jacobian is prod_i theta_i), and the likelihood is PolarBear eq. 6 evaluated
// ranking by ranking with every tie expanded into all its orderings (weight 1 / prod k!).
class MetropolisReference {
 public:
  MetropolisReference(int n, double alpha, const std::vector<Ranking>& rankings)
      : n_(n), alpha_(alpha) {
    for (const Ranking& r : rankings) {
      std::vector<std::vector<int>> groups;
      for (size_t k = 0; k < r.order.size(); ++k) {
        if (k == 0 || r.group[k] != r.group[k - 1]) groups.emplace_back();
        groups.back().push_back(r.order[k]);
      }
      std::vector<std::vector<int>> orders;
      std::vector<int> cur;
      std::function<void(size_t)> rec = [&](size_t g) {
        if (g == groups.size()) {
          orders.push_back(cur);
          return;
        }
        std::vector<int> perm = groups[g];
        std::sort(perm.begin(), perm.end());
        do {
          cur.insert(cur.end(), perm.begin(), perm.end());
          rec(g + 1);
          cur.resize(cur.size() - perm.size());
        } while (std::next_permutation(perm.begin(), perm.end()));
      };
      rec(0);
      for (auto& o : orders) {
        orders_.push_back(o);
        weights_.push_back(r.weight / static_cast<double>(orders.size()));
      }
    }
  }

  double LogTarget(const std::vector<double>& psi) const {
    std::vector<double> theta(n_);
    double mx = 0;
    for (int i = 0; i + 1 < n_; ++i) mx = std::max(mx, psi[i]);
    double z = 0;
    for (int i = 0; i < n_; ++i) z += theta[i] = std::exp((i + 1 < n_ ? psi[i] : 0.0) - mx);
    for (double& t : theta) t /= z;
    double lp = 0;
    for (double t : theta) lp += alpha_ * std::log(t);
    for (size_t r = 0; r < orders_.size(); ++r) {
      const std::vector<int>& o = orders_[r];
      double tail = 0;
      for (int i : o) tail += theta[i];
      for (size_t k = 0; k + 1 < o.size(); ++k) {
        lp += weights_[r] * (std::log(theta[o[k]]) - std::log(tail));
        tail -= theta[o[k]];
      }
    }
    return lp;
  }

  // Returns chains x kept draws of theta_i, layout [c * kept + k] per method.
  std::vector<std::vector<double>> Run(int chains, int kept, int thin, double step,
                                       uint64_t seed) const {
    std::vector<std::vector<double>> out(n_, std::vector<double>(chains * kept));
    std::normal_distribution<double> z;
    std::uniform_real_distribution<double> u(0, 1);
    for (int c = 0; c < chains; ++c) {
      std::mt19937_64 rng(seed * 1000 + c);
      std::vector<double> psi(n_ - 1);
      for (double& v : psi) v = z(rng);
      double lp = LogTarget(psi);
      for (int it = 0; it < (kept + kept / 4) * thin; ++it) {
        std::vector<double> prop = psi;
        for (double& v : prop) v += step * z(rng);
        const double lq = LogTarget(prop);
        if (std::log(u(rng)) < lq - lp) {
          psi = prop;
          lp = lq;
        }
        const int k = it / thin - kept / 4;
        if (k >= 0 && it % thin == 0) {
          double mx = 0, s = 0;
          for (double v : psi) mx = std::max(mx, v);
          std::vector<double> th(n_);
          for (int i = 0; i < n_; ++i) s += th[i] = std::exp((i + 1 < n_ ? psi[i] : 0.0) - mx);
          for (int i = 0; i < n_; ++i) out[i][c * kept + k] = th[i] / s;
        }
      }
    }
    return out;
  }

 private:
  int n_;
  double alpha_;
  std::vector<std::vector<int>> orders_;
  std::vector<double> weights_;
};

TEST(IndependentDirichletTest, AgreesWithAnIndependentMetropolisSampler) {
  // 4 methods, 24 rankings with ties, a crashing method tied last, and partial rankings.
  std::mt19937_64 rng(5);
  std::vector<Ranking> rs;
  const std::vector<double> quality = {0.0, 0.4, 0.8, 1.5};
  std::uniform_int_distribution<int> pick(0, 9);
  std::extreme_value_distribution<double> gumbel;
  for (int r = 0; r < 24; ++r) {
    std::vector<std::pair<int, double>> values;
    for (int i = 0; i < 4; ++i) {
      if (r % 6 == 5 && i == 1) continue;  // method 1 missing from some runs
      double v = quality[i] - gumbel(rng);
      if (pick(rng) == 0) v = kInf;          // crashes
      if (pick(rng) < 2) v = std::round(v);  // coarse values: ties
      values.push_back({i, v});
    }
    rs.push_back(RankValues(values, 0));
  }
  for (const double alpha : {1.0, 0.5}) {
    DirichletOptions o = Options(2500, 21);
    o.alpha = alpha;
    // Stage sets for alpha = 1, chains for alpha = 1/2: both storage forms are exact. The second
    // run also leaves out the independence Metropolis-Hastings step (plain Gibbs).
    o.stats.stage_form = alpha == 1.0 ? StageForm::kSets : StageForm::kChains;
    o.independence_mh = alpha == 1.0;
    auto p = FitIndependentDirichlet(OneTimepoint(4, rs), o);
    ASSERT_TRUE(p.ok()) << p.status();
    MetropolisReference ref(4, alpha, rs);
    const int chains = 4, kept = 5000;
    const auto mh = ref.Run(chains, kept, 4, 0.45, 77);
    for (int i = 0; i < 4; ++i) {
      const double ess_mh = EffectiveSampleSize(mh[i], chains, kept);
      const std::vector<double> g = Column(*p, 0, i);
      const double ess_g = p->diagnostics.ess_bulk[i];
      const double se = std::sqrt(Var(g) / ess_g + Var(mh[i]) / ess_mh);
      EXPECT_GT(ess_mh, 1000) << "method " << i;
      EXPECT_NEAR(Mean(g), Mean(mh[i]), 4 * se) << "alpha " << alpha << " method " << i;
      EXPECT_NEAR(std::sqrt(Var(g)), std::sqrt(Var(mh[i])), 0.1 * std::sqrt(Var(mh[i])));
    }
  }
}

TEST(IndependentDirichletTest, OneMethodHasRatingOne) {
  TraceSet traces;
  traces["only"][{"p", 0}] = StepTrace{{1}, {3}};
  auto set = RankingsFromTraces(traces, *BatchGrid(2));
  ASSERT_TRUE(set.ok());
  EXPECT_TRUE(set->rankings.empty());
  auto p = FitIndependentDirichlet(*set, Options(100));
  ASSERT_TRUE(p.ok()) << p.status();
  for (int s = 0; s < p->S(); ++s) EXPECT_EQ(p->Theta(1, s, 0), 1.0);
  EXPECT_EQ(p->diagnostics.max_rhat, 1);
}

TEST(IndependentDirichletTest, AllTiedIsSymmetricAndLargeTiesAreSampled) {
  for (const int n : {3, 12}) {  // 12 > max_exact_tie: sampled orderings
    std::vector<Ranking> rs;
    for (int r = 0; r < 20; ++r) {
      std::vector<std::pair<int, double>> v;
      for (int i = 0; i < n; ++i) v.push_back({i, 1.0});
      rs.push_back(RankValues(v, 0));
    }
    auto p = FitIndependentDirichlet(OneTimepoint(n, rs), Options(n > 10 ? 300 : 1000));
    ASSERT_TRUE(p.ok());
    // Exact expansion (n = 3) is symmetric: only Monte-Carlo error. Sampled orderings (n = 12)
    // add the variance of the sampled expansion itself (PolarBear §3): 15% of 1/n.
    const double extra = n > 10 ? 0.15 / n : 0.0;
    for (int i = 0; i < n; ++i) {
      EXPECT_NEAR(Mean(Column(*p, 0, i)), 1.0 / n, McTolerance(*p, 0, i) + extra) << n;
    }
  }
}

TEST(IndependentDirichletTest, CrashingMethodRanksLastAndNanEqualsInf) {
  TraceSet inf_traces, nan_traces;
  for (int p = 0; p < 10; ++p) {
    const std::string inst = "p" + std::to_string(p);
    for (auto* ts : {&inf_traces, &nan_traces}) {
      (*ts)["good"][{inst, 0}] = StepTrace{{1}, {1.0 + p}};
      (*ts)["ok"][{inst, 0}] = StepTrace{{1}, {2.0 + p}};
    }
    inf_traces["crash"][{inst, 0}] = StepTrace{{1}, {kInf}};
    nan_traces["crash"][{inst, 0}] = StepTrace{{1}, {NAN}};
  }
  auto grid = BatchGrid(1);
  auto a = FitIndependentDirichlet(*RankingsFromTraces(inf_traces, *grid), Options(500));
  auto b = FitIndependentDirichlet(*RankingsFromTraces(nan_traces, *grid), Options(500));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->theta, b->theta);
  const RatingSummary s = Summarize(*a);  // methods sorted: crash, good, ok
  EXPECT_LT(s.mean[0], s.mean[2]);
  EXPECT_LT(s.mean[2], s.mean[1]);
  EXPECT_LT(s.upper[0], 0.1);
}

TEST(IndependentDirichletTest, MethodAbsentFromSomeInstancesUsesItsRunsOnly) {
  TraceSet traces;
  for (int p = 0; p < 20; ++p) {
    const std::string inst = "p" + std::to_string(p);
    traces["A"][{inst, 0}] = StepTrace{{1}, {1}};
    traces["B"][{inst, 0}] = StepTrace{{1}, {2}};
    if (p < 5) traces["C"][{inst, 0}] = StepTrace{{1}, {0}};  // C ran on 5 instances only
  }
  traces["D"][{"elsewhere", 0}] = StepTrace{{1}, {0}};  // never shares a run: keeps its prior
  auto set = RankingsFromTraces(traces, *BatchGrid(1));
  ASSERT_TRUE(set.ok());
  auto p = FitIndependentDirichlet(*set, Options(1000));
  ASSERT_TRUE(p.ok());
  const RatingSummary s = Summarize(*p);
  EXPECT_GT(s.mean[2], s.mean[0]);  // C won all its 5 runs
  EXPECT_GT(s.mean[0], s.mean[1]);  // A beat B 20 times
  // D: no data. Its share of the simplex is the prior's relative to the others; wide band.
  EXPECT_GT(s.upper[3] - s.lower[3], 0.2);
}

TEST(IndependentDirichletTest, ResultsDoNotDependOnThreads) {
  TraceSet traces;
  for (int p = 0; p < 5; ++p) {
    traces["A"][{"p", p}] = StepTrace{{1, 2}, {3.0 - p, 1}};
    traces["B"][{"p", p}] = StepTrace{{1}, {2}};
  }
  auto set = RankingsFromTraces(traces, *BatchGrid(3));
  DirichletOptions o = Options(100);
  o.threads = 1;
  auto one = FitIndependentDirichlet(*set, o);
  o.threads = 3;
  auto three = FitIndependentDirichlet(*set, o);
  ASSERT_TRUE(one.ok() && three.ok());
  EXPECT_EQ(one->theta, three->theta);
}

TEST(IndependentDirichletTest, RejectsBadOptionsWithInvalidArgument) {
  RankingSet set = OneTimepoint(2, {Ranking{0, {0, 1}, {0, 1}, 1}});
  auto code = [&](DirichletOptions o) { return FitIndependentDirichlet(set, o).status().code(); };
  DirichletOptions o;
  o.alpha = 0;
  EXPECT_EQ(code(o), absl::StatusCode::kInvalidArgument);
  o = {};
  o.chains = 0;
  EXPECT_EQ(code(o), absl::StatusCode::kInvalidArgument);
  o = {};
  o.draws_per_chain = 3;
  EXPECT_EQ(code(o), absl::StatusCode::kInvalidArgument);
  o = {};
  o.thin = 0;
  EXPECT_EQ(code(o), absl::StatusCode::kInvalidArgument);
  o = {};
  o.warmup = -1;
  EXPECT_EQ(code(o), absl::StatusCode::kInvalidArgument);
}

TEST(HierarchicalDirichletTest, SharesKappaAndConvergesWithDiagnostics) {
  // Three timepoints of clear differences: the shared kappa is learned from all of them.
  std::vector<Ranking> rs;
  std::mt19937_64 rng(8);
  std::extreme_value_distribution<double> gumbel;
  const std::vector<double> q = {0.0, 1.0, 2.0};
  for (int t = 0; t < 3; ++t) {
    for (int r = 0; r < 40; ++r) {
      std::vector<std::pair<int, double>> v;
      for (int i = 0; i < 3; ++i) v.push_back({i, q[i] - gumbel(rng)});
      rs.push_back(RankValues(v, t));
    }
  }
  RankingSet set = OneTimepoint(3, rs);
  set.grid.points = {1, 2, 3};
  HierarchicalOptions ho;
  ho.gibbs.draws_per_chain = 1000;
  auto p = FitHierarchicalDirichlet(set, ho);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->hyper_name, "kappa");
  ASSERT_EQ(p->hyper.size(), static_cast<size_t>(p->S()));
  EXPECT_LT(p->diagnostics.max_rhat, 1.01);
  EXPECT_GT(p->diagnostics.hyper_ess_bulk, 400);
  // Ratings agree in order with the truth softmax(-q) at every timepoint and with the independent
  // Dirichlet(1) model within a few hundredths (40 rankings per timepoint dominate the prior).
  auto ind = FitIndependentDirichlet(set, ho.gibbs);
  ASSERT_TRUE(ind.ok());
  const RatingSummary h = Summarize(*p), s = Summarize(*ind);
  for (int t = 0; t < 3; ++t) {
    EXPECT_GT(h.mean[t * 3 + 0], h.mean[t * 3 + 1]);  // lower value is better: 0 is best
    EXPECT_GT(h.mean[t * 3 + 1], h.mean[t * 3 + 2]);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(h.mean[t * 3 + i], s.mean[t * 3 + i], 0.05);
  }
  HierarchicalOptions bad;
  bad.kappa_rate = -1;
  EXPECT_EQ(FitHierarchicalDirichlet(set, bad).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(HierarchicalDirichletTest, KappaPriorIsRecoveredWithoutData) {
  // No rankings: kappa's posterior is its Exponential(1/n) prior, mean n = 4.
  RankingSet set = OneTimepoint(4, {});
  HierarchicalOptions ho;
  ho.gibbs.draws_per_chain = 4000;
  auto p = FitHierarchicalDirichlet(set, ho);
  ASSERT_TRUE(p.ok());
  EXPECT_NEAR(Mean(p->hyper), 4.0, 4 * std::sqrt(16.0 / p->diagnostics.hyper_ess_bulk));
}

}  // namespace
}  // namespace bbo::scoring::pl

namespace bbo::scoring::pl {
namespace {

TEST(IndependentDirichletTest, LaplaceApproximationAgreesWithGibbsUnderStrongData) {
  // 200 rankings of 5 methods per timepoint: the posterior is near-Gaussian (PolarBear §3.3).
  std::mt19937_64 rng(31);
  std::extreme_value_distribution<double> gumbel;
  const std::vector<double> q = {0.0, 0.3, 0.6, 1.2, 2.0};
  std::vector<Ranking> rs;
  for (int t = 0; t < 2; ++t) {
    for (int r = 0; r < 200; ++r) {
      std::vector<std::pair<int, double>> v;
      for (int i = 0; i < 5; ++i) {
        if (r % 7 == 3 && i == 4) continue;  // partial rankings
        v.push_back({i, q[i] - gumbel(rng) + (t == 1 && i == 0 ? 1.0 : 0.0)});
      }
      rs.push_back(RankValues(v, t));
    }
  }
  RankingSet set = OneTimepoint(5, rs);
  set.grid.points = {1, 2};
  DirichletOptions gibbs = Options(1000);
  gibbs.inference = DirichletInference::kGibbs;
  DirichletOptions laplace = gibbs;
  laplace.inference = DirichletInference::kLaplace;
  auto g = FitIndependentDirichlet(set, gibbs);
  auto l = FitIndependentDirichlet(set, laplace);
  ASSERT_TRUE(g.ok() && l.ok()) << l.status();
  EXPECT_EQ(g->inference, "gibbs");
  EXPECT_EQ(l->inference, "laplace");
  const RatingSummary a = Summarize(*g), b = Summarize(*l);
  for (size_t k = 0; k < a.mean.size(); ++k) {
    EXPECT_NEAR(a.mean[k], b.mean[k], 0.01) << k;
    EXPECT_NEAR(a.upper[k] - a.lower[k], b.upper[k] - b.lower[k], 0.02) << k;
  }
  // kAuto switches to Laplace above the cost budget.
  DirichletOptions cheap = Options(100);
  cheap.max_gibbs_cost = 0;
  EXPECT_EQ(FitIndependentDirichlet(set, cheap)->inference, "laplace");
  EXPECT_EQ(FitIndependentDirichlet(set, Options(100))->inference, "gibbs");
  // One method: rating 1 either way.
  laplace.draws_per_chain = 10;
  auto one = FitIndependentDirichlet(OneTimepoint(1, {}), laplace);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->Theta(0, 3, 0), 1.0);
}

}  // namespace
}  // namespace bbo::scoring::pl
