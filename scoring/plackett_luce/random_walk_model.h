#ifndef BBO_SCORING_PLACKETT_LUCE_RANDOM_WALK_MODEL_H_
#define BBO_SCORING_PLACKETT_LUCE_RANDOM_WALK_MODEL_H_

// The Gaussian random-walk temporal Plackett-Luce model (Wurth et al., "Pareto-Optimal Anytime
// Algorithms via Bayesian Racing" (PolarBear) §3.2.2 eq. 15, Table 1):
//
//   mu(t) = Q eta(t) (Helmert, Appendix A eq. 38: sum_i mu_i(t) = 0),  theta(t) = softmax(mu(t)),
//   eta_q(t_1) ~ N(0, s0^2),  eta_q(t_{i+1}) | eta_q(t_i) ~ N(eta_q(t_i), sigma^2 Delta_i),
//
// q = 1..n-1, with Delta_i the grid steps on the grid's own axis (log t for a log grid, t
// otherwise) rescaled so that the whole grid spans 1: sigma is the typical change of a log-rating
// contrast over the grid. The likelihood is the Plackett-Luce stage form (ranking_stats.h).
//
// Inference (PolarBear §3.3 lists both):
//  1. sigma: the maximum over log sigma of its log-normal prior times the Laplace evidence
//     log p(R | sigma) ~ f(eta^) + 1/2 log|P_sigma| - 1/2 log|A| (Tierney & Kadane 1986) found by
//     a grid over +-3 prior sd refined by golden section (empirical Bayes; RandomWalkOptions::sigma
//     fixes it instead). f is the log joint density, P_sigma the prior precision, A = -Hessian of
//     f at the mode eta^ (block tridiagonal; sparse Cholesky).
//  2. eta | sigma: either the Laplace approximation N(eta^, A^-1) (kLaplace; i.i.d. draws) or
//     exact Hamiltonian Monte Carlo (kHmc; Neal 2011) in the whitened coordinates u with
//     eta = eta^ + L^-T u (A = L L^T), where the Laplace approximation makes the target close to
//     N(0, I): identity mass, step size tuned by dual averaging to the target acceptance during
//     warmup (Hoffman & Gelman 2014 §3.2), trajectory length uniformly jittered.
// The objective f is concave in eta (log-sum-exp is convex), so Newton's method with backtracking
// finds the mode from eta = 0.
//
// posterior.hyper holds sigma per draw (constant: sigma is not sampled). Draws of all timepoints
// are joint (joint elimination, PolarBear eq. 24/28, is exact under this model). Chain c uses its
// own generator (seed, c); chains run in parallel. Thread-safe (no shared state).

#include <cstdint>

#include "absl/status/statusor.h"
#include "scoring/plackett_luce/posterior.h"
#include "scoring/plackett_luce/ranking_stats.h"
#include "scoring/plackett_luce/rankings.h"

namespace bbo::scoring::pl {

enum class TemporalInference { kLaplace, kHmc };

struct RandomWalkOptions {
  TemporalInference inference = TemporalInference::kHmc;
  // s0: prior sd of eta_q at the first timepoint (log-rating contrasts).
  double initial_scale = 2.0;
  // log sigma ~ Normal(log sigma_prior_median, sigma_prior_log_sd^2).
  double sigma_prior_median = 1.0;
  double sigma_prior_log_sd = 1.0;
  // > 0: use this sigma and skip the evidence search.
  double sigma = 0;
  // Draws: chains x draws_per_chain (>= 4 each chain). HMC also runs `warmup` iterations per chain.
  int chains = 4;
  int warmup = 300;
  int draws_per_chain = 500;
  // HMC: target mean acceptance probability during warmup, in (0, 1).
  double target_accept = 0.8;
  // HMC: mean trajectory length (in whitened units; pi / 2 is a half period of N(0, 1)).
  double trajectory_length = 2.0;
  uint64_t seed = 1;
  // Worker threads for the chains; 0 = hardware concurrency.
  int threads = 0;
  // How rankings become likelihood statistics (ties, storage form).
  StatsOptions stats;
  // Newton: stop when the largest step is below this (in eta units).
  double newton_tolerance = 1e-8;
};

// InvalidArgument: an option out of range (named), a malformed ranking, or an invalid grid.
// Internal: Newton did not converge in 200 iterations or a factorization failed.
absl::StatusOr<RatingPosterior> FitRandomWalk(const RankingSet& rankings,
                                              const RandomWalkOptions& options = {});

}  // namespace bbo::scoring::pl

#endif  // BBO_SCORING_PLACKETT_LUCE_RANDOM_WALK_MODEL_H_
