// PolarBear §5.1 (Wurth et al., "Pareto-Optimal Anytime Algorithms via Bayesian Racing"):
// synthetic ground truth. Ratings theta*(t) = softmax(Q eta(t)) with eta_q ~ GP(0, Matérn-3/2),
// sigma ~ LogNormal(0, 0.5), lengthscale ~ Inv-Gamma(5, 3) on uniformly spaced timepoints in
// [0, 1]; each sampled instance yields at every timepoint the ranking of log theta* + Gumbel noise
// (the exact PL process). A race driven by the racing planner (racing.h) must recover the true
// anytime Pareto set the way the paper reports it: no true Pareto member is ever eliminated, and
// the dominated methods left in P^ are exactly those within the ROPE of their dominator somewhere
// (the paper's Example 3: G and J stay) or still unresolved when the instance cap is hit.

#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include "Eigen/Dense"
#include "gtest/gtest.h"
#include "scoring/plackett_luce/dirichlet_model.h"
#include "scoring/plackett_luce/internal/helmert.h"
#include "scoring/plackett_luce/racing.h"
#include "scoring/plackett_luce/random_walk_model.h"

namespace bbo::scoring::pl {
namespace {

struct Truth {
  // theta[t][i].
  std::vector<std::vector<double>> theta;
  std::vector<int> pareto;
};

Truth SampleTruth(int n, int T, std::mt19937_64& rng) {
  std::normal_distribution<double> z;
  std::lognormal_distribution<double> sigma_dist(0.0, 0.5);
  std::gamma_distribution<double> inv_ell(5.0, 1.0 / 3.0);  // 1 / ell ~ Gamma(5, rate 3)
  const double sigma = sigma_dist(rng), ell = 1.0 / inv_ell(rng);
  Eigen::MatrixXd K(T, T);
  for (int a = 0; a < T; ++a) {
    for (int b = 0; b < T; ++b) {
      const double r = std::abs(a - b) / (T - 1.0) * std::sqrt(3.0) / ell;
      K(a, b) = sigma * sigma * (1 + r) * std::exp(-r) + (a == b ? 1e-9 : 0.0);
    }
  }
  const Eigen::MatrixXd L = K.llt().matrixL();
  const Eigen::MatrixXd Q = internal::Helmert(n);
  Eigen::MatrixXd eta(T, n - 1);
  for (int q = 0; q < n - 1; ++q) {
    Eigen::VectorXd w(T);
    for (int t = 0; t < T; ++t) w[t] = z(rng);
    eta.col(q) = L * w;
  }
  Truth truth;
  for (int t = 0; t < T; ++t) {
    const Eigen::VectorXd mu = Q * eta.row(t).transpose();
    std::vector<double> th(n);
    double s = 0;
    for (int i = 0; i < n; ++i) s += th[i] = std::exp(mu[i]);
    for (double& v : th) v /= s;
    truth.theta.push_back(th);
  }
  for (int i = 0; i < n; ++i) {
    bool dominated = false;
    for (int j = 0; j < n && !dominated; ++j) {
      bool everywhere = j != i;
      for (int t = 0; t < T && everywhere; ++t) everywhere = truth.theta[t][j] > truth.theta[t][i];
      dominated = everywhere;
    }
    if (!dominated) truth.pareto.push_back(i);
  }
  return truth;
}

struct RaceOutcome {
  std::vector<int> pareto_hat;
  std::vector<int> eliminated;
  int instances = 0;
  int rounds = 0;
  bool stopped = false;
};

enum class Model { kIndependent, kRandomWalk };

RaceOutcome Race(const Truth& truth, int n, int T, Model model, int max_instances, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::extreme_value_distribution<double> gumbel;
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(std::string(1, static_cast<char>('A' + i)));
  RacingOptions opts;                 // alpha 0.99, epsilon 0.05, b 8 in [8, 64] (PolarBear §5)
  if (model == Model::kRandomWalk) {  // §5.1: joint elimination, crossing resolution
    opts.decisions.elimination = Elimination::kJoint;
    opts.decisions.resolution = Resolution::kCrossing;
  }
  RankingSet set;
  set.methods = names;
  for (int t = 0; t < T; ++t) set.grid.points.push_back(t / (T - 1.0));
  set.grid.spacing = GridSpacing::kUniform;
  RoundPlan plan = FirstRound(*StartRace(names, T, opts));
  RaceOutcome out;
  while (!plan.stop && plan.state.instances_sampled <= max_instances) {
    // Run the plan: every method up to its tau on the new instances (no admissions here).
    for (int k = 0; k < plan.new_instances; ++k) {
      for (int t = 0; t < T; ++t) {
        std::vector<std::pair<int, double>> v;
        for (const MethodRun& r : plan.runs) {
          if (r.tau < t) continue;
          const int i = r.method[0] - 'A';
          v.push_back({i, -(std::log(truth.theta[t][i]) + gumbel(rng))});  // lower is better
        }
        if (v.size() >= 2) set.rankings.push_back(RankValues(v, t));
      }
    }
    absl::StatusOr<RatingPosterior> post;
    if (model == Model::kIndependent) {
      DirichletOptions o;  // 4 chains x 250 draws: enough for alpha = 0.99 decisions here
      o.warmup = 100;
      o.draws_per_chain = 250;
      o.seed = seed + plan.state.round;
      post = FitIndependentDirichlet(set, o);
    } else {
      RandomWalkOptions o;
      o.inference = TemporalInference::kLaplace;
      o.draws_per_chain = 250;
      o.seed = seed + plan.state.round;
      post = FitRandomWalk(set, o);
    }
    EXPECT_TRUE(post.ok()) << post.status();
    if (!post.ok()) break;
    auto next = PlanNextRound(plan.state, *post, opts);
    EXPECT_TRUE(next.ok()) << next.status();
    if (!next.ok()) break;
    plan = *std::move(next);
  }
  out.stopped = plan.stop;
  out.rounds = plan.state.round;
  out.instances = plan.state.instances_sampled - plan.new_instances;
  for (int i = 0; i < n; ++i) {
    (plan.state.candidate(i) ? out.pareto_hat : out.eliminated).push_back(i);
  }
  return out;
}

// A truly dominated method A that stays in P^ is explained by the ROPE when for each method B
// that dominates it in truth, the pairwise win probability theta_B / (theta_A + theta_B) is
// within epsilon of 1/2 at some timepoint (there (epsilon, alpha)-equivalence can resolve it).
bool WithinRopeOfEveryDominator(const Truth& truth, int a, int n, int T, double eps) {
  for (int b = 0; b < n; ++b) {
    bool dominates = b != a;
    for (int t = 0; t < T && dominates; ++t) dominates = truth.theta[t][b] > truth.theta[t][a];
    if (!dominates) continue;
    bool near = false;
    for (int t = 0; t < T && !near; ++t) {
      near = truth.theta[t][b] / (truth.theta[t][a] + truth.theta[t][b]) <= 0.5 + eps;
    }
    if (!near) return false;
  }
  return true;
}

void CheckRecovery(Model model, int replicates, int n, int T, int max_instances, int min_exact) {
  int exact = 0, false_eliminations = 0;
  for (int r = 0; r < replicates; ++r) {
    std::mt19937_64 rng(1000 + r);
    const Truth truth = SampleTruth(n, T, rng);
    const RaceOutcome race = Race(truth, n, T, model, max_instances, 77 + r);
    const std::set<int> p(truth.pareto.begin(), truth.pareto.end());
    const std::set<int> hat(race.pareto_hat.begin(), race.pareto_hat.end());
    for (int i : truth.pareto) {
      if (!hat.count(i)) ++false_eliminations;
      EXPECT_TRUE(hat.count(i)) << "replicate " << r << ": true Pareto member " << i
                                << " eliminated";
    }
    for (int i : race.pareto_hat) {
      if (p.count(i)) continue;
      EXPECT_TRUE(!race.stopped || WithinRopeOfEveryDominator(truth, i, n, T, 0.05))
          << "replicate " << r << ": dominated method " << i << " kept without a reason";
    }
    exact += hat == p;
    std::printf("replicate %d: |P| = %zu, |P^| = %zu, %s after %d rounds, %d instances\n", r,
                truth.pareto.size(), race.pareto_hat.size(), race.stopped ? "resolved" : "capped",
                race.rounds, race.instances);
  }
  std::printf("exact recovery %d / %d, true Pareto members eliminated: %d\n", exact, replicates,
              false_eliminations);
  EXPECT_EQ(false_eliminations, 0);
  EXPECT_GE(exact, min_exact);
}

TEST(SyntheticGroundTruthTest, IndependentModelRaceRecoversTheParetoSet) {
  // Independent Dirichlet model, pointwise elimination, strict resolution (the MA-BBOB set-up of
  // PolarBear §5.2) on §5.1's ground truth: 8 replicates, 5 methods, 10 timepoints, at most 1024
  // instances each.
  CheckRecovery(Model::kIndependent, 8, 5, 10, 1024, 6);
}

TEST(SyntheticGroundTruthTest, TemporalModelRaceRecoversTheParetoSet) {
  // Random-walk model (Laplace), joint elimination and crossing resolution as in §5.1.
  CheckRecovery(Model::kRandomWalk, 4, 5, 10, 1024, 3);
}

}  // namespace
}  // namespace bbo::scoring::pl
