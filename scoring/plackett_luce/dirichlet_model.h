#ifndef BBO_SCORING_PLACKETT_LUCE_DIRICHLET_MODEL_H_
#define BBO_SCORING_PLACKETT_LUCE_DIRICHLET_MODEL_H_

// The independent and the hierarchical Dirichlet Plackett-Luce models (Wurth et al.,
// "Pareto-Optimal Anytime Algorithms via Bayesian Racing" (PolarBear) §3.2.1, Table 1), sampled
// EXACTLY by the gamma-latent Gibbs sampler of Caron & Doucet (2012), "Efficient Bayesian
// inference for generalized Bradley-Terry models" (J. Comput. Graph. Stat. 21(1), §3-4):
//
//   Unnormalised ratings lambda_i ~ Gamma(a, 1) i.i.d., so theta = lambda / sum(lambda) ~
//   Dirichlet(a, ..., a) (a = alpha; a = kappa / n in the hierarchical model). With the stage
//   statistics of ranking_stats.h, log L = sum_i c_i log lambda_i - sum_S W_S log lambda(S), one
//   sweep is
//     1. Z_S | lambda ~ Gamma(W_S, lambda(S)) for every stage set S, lambda(S) = sum_{j in S}
//        lambda_j (the sum over all stages with remaining set S of their Gamma(w_r, lambda(S))
//        latent variables; Exp(lambda(S)) for a single unit-weight stage);
//     2. lambda_i | Z ~ Gamma(a + c_i, 1 + sum_{S contains i} Z_S);
//     3. rescale: Lambda ~ Gamma(n a, 1), lambda <- lambda * Lambda / sum(lambda) (the total is
//        independent of theta a posteriori; Caron & Doucet §3.3, it speeds up mixing).
//   Independent model only, optional (on by default): after each sweep, one independence
//   Metropolis-Hastings step on theta whose proposal is a multivariate t (7 degrees of freedom)
//   centred at the posterior mode with the Laplace scale (see below). It leaves the exact
//   posterior invariant, so the sampler stays exact, and where the posterior is near-Gaussian
//   the step is accepted most of the time and gives almost independent draws: the Gibbs sweeps
//   alone mix like EM, slowly for weak methods with much data.
//   Hierarchical model (kappa ~ Exponential(lambda_kappa), theta(t) ~ Dirichlet(kappa / n)
//   independently given kappa): each sweep updates every timepoint by 1-3, then log kappa by slice
//   sampling (Neal 2003, stepping out) from p(kappa | theta) proportional to
//   exp(-lambda_kappa kappa) prod_t Dirichlet(theta(t); kappa / n), then redraws every total
//   Lambda(t) ~ Gamma(kappa, 1).
//
// For many methods and runs the Gibbs sampler becomes slow (each sweep costs O(runs x methods) and
// it mixes like EM, slower as the data grow). The Laplace approximation is then the practical
// choice (PolarBear §3.3: the independent Dirichlet model's posteriors "are typically
// well-behaved, near-Gaussian ... making Pathfinder and Laplace reliable approximations"): per
// timepoint, in Helmert coordinates mu = Q eta, theta = softmax(mu), the Dirichlet(alpha) prior
// is the pseudo-data "every method wins alpha stages of one all-methods stage of weight n alpha"
// (its log density is alpha sum_i log theta_i), Newton's method finds the mode of the concave log
// posterior, and draws are eta^ + L^-T z with L L^T the negative Hessian at the mode.
// DirichletInference::kAuto uses Gibbs when its estimated cost (sweeps x stage sizes) is at most
// max_gibbs_cost, else Laplace; RatingPosterior::inference says which was used.
//
// Chains start from prior draws (overdispersed). Chain c of timepoint t uses its own generator
// (seed, t, c), so draws do not depend on the number of threads. Inference for the independent
// model runs timepoints in parallel (PolarBear §3.2.1: "embarrassingly parallel"); the
// hierarchical model runs its chains in parallel. Thread-safe (no shared state).

#include <cstdint>

#include "absl/status/statusor.h"
#include "scoring/plackett_luce/posterior.h"
#include "scoring/plackett_luce/ranking_stats.h"
#include "scoring/plackett_luce/rankings.h"

namespace bbo::scoring::pl {

enum class DirichletInference { kAuto, kGibbs, kLaplace };

struct DirichletOptions {
  DirichletInference inference = DirichletInference::kAuto;
  // kAuto: Gibbs up to this estimated cost (additions; 2e9 is about 1-3 s on one core).
  double max_gibbs_cost = 2e9;
  // Dirichlet concentration alpha > 0 of the independent model (PolarBear §3.2.1). 1 = uniform
  // on the simplex.
  double alpha = 1.0;
  // Chains (>= 1), warmup sweeps per chain (>= 0, discarded; Gibbs only), kept draws per chain
  // (>= 4).
  int chains = 4;
  int warmup = 100;
  int draws_per_chain = 500;
  // Keep every `thin`-th sweep (>= 1).
  int thin = 1;
  // Gibbs: interleave the independence Metropolis-Hastings step (see above).
  bool independence_mh = true;
  uint64_t seed = 1;
  // Worker threads; 0 = hardware concurrency.
  int threads = 0;
  // How rankings become likelihood statistics (ties, storage form).
  StatsOptions stats;
};

// Independent Dirichlet(alpha) prior at every timepoint. With Gibbs and independence_mh,
// diagnostics.acceptance_rate is the Metropolis-Hastings step's. InvalidArgument: an option out of
// range (named) or a malformed ranking (ComputePlStats). Internal: the Laplace approximation failed
// (Newton did not converge in 200 iterations or the Hessian was not positive definite).
absl::StatusOr<RatingPosterior> FitIndependentDirichlet(const RankingSet& rankings,
                                                        const DirichletOptions& options = {});

// The same from precomputed statistics (one per timepoint of `grid`), e.g. to reuse them.
absl::StatusOr<RatingPosterior> FitIndependentDirichlet(const std::vector<PlStats>& stats,
                                                        const std::vector<std::string>& methods,
                                                        const TimeGrid& grid,
                                                        const DirichletOptions& options = {});

struct HierarchicalOptions {
  // alpha and inference are ignored (always Gibbs); chains, warmup, draws, seed, threads and stats
  // are used.
  DirichletOptions gibbs;
  // Rate lambda_kappa of kappa's Exponential prior (PolarBear §3.2.1); 0 = 1 / n, prior mean
  // kappa = n (alpha = kappa / n = 1 on average). kappa is kept in [1e-3, 1e4] numerically.
  double kappa_rate = 0;
};

// Shared concentration kappa across timepoints. posterior.hyper holds the kappa draws.
absl::StatusOr<RatingPosterior> FitHierarchicalDirichlet(const RankingSet& rankings,
                                                         const HierarchicalOptions& options = {});

}  // namespace bbo::scoring::pl

#endif  // BBO_SCORING_PLACKETT_LUCE_DIRICHLET_MODEL_H_
