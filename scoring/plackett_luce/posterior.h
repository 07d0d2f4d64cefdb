#ifndef BBO_SCORING_PLACKETT_LUCE_POSTERIOR_H_
#define BBO_SCORING_PLACKETT_LUCE_POSTERIOR_H_

// Posterior draws of the Plackett-Luce ratings theta(t) on the simplex (Wurth et al.,
// "Pareto-Optimal Anytime Algorithms via Bayesian Racing" (PolarBear) eq. 10), whatever model
// produced them, with their convergence diagnostics. Every decision (decisions.h, selection.h) is a
// proportion or quantile over these draws. A plain value type; thread-compatible.

#include <string>
#include <vector>

#include "scoring/plackett_luce/traces.h"

namespace bbo::scoring::pl {

struct ModelDiagnostics {
  // Per rating theta_i(t), index t * n + i (diagnostics.h): rank-normalized split R-hat and bulk
  // ESS over all chains.
  std::vector<double> rhat;
  std::vector<double> ess_bulk;
  // The worst of them (over ratings and the hyperparameter, if sampled).
  double max_rhat = 1;
  double min_ess_bulk = 0;
  // The hyperparameter's (kappa, sigma), when it is sampled by MCMC; NaN otherwise.
  double hyper_rhat = NAN;
  double hyper_ess_bulk = NAN;
  // HMC only: mean acceptance probability after warmup and the number of divergent transitions
  // (energy error > 1000). Gibbs: acceptance 1, no divergences.
  double acceptance_rate = 1;
  int divergences = 0;
  // Wall-clock seconds spent sampling (for benchmarks and logs).
  double seconds = 0;
};

struct RatingPosterior {
  // "independent_dirichlet", "hierarchical_dirichlet" or "random_walk".
  std::string model;
  // How the draws were made: "gibbs" and "hmc" are exact MCMC, "laplace" is the Gaussian
  // approximation at the posterior mode (i.i.d. draws; its R-hat and ESS say nothing about the
  // approximation error).
  std::string inference;
  std::vector<std::string> methods;
  TimeGrid grid;
  int chains = 0;
  int draws_per_chain = 0;
  // True when draw s at every timepoint comes from one joint draw of theta(t_1..t_T), so joint
  // statements over time (joint elimination, PolarBear eq. 24) can be counted draw by draw. True
  // for every model here: the independent Dirichlet model's timepoints are independent a
  // posteriori, so pairing its independently sampled draws is a draw from the joint posterior.
  bool joint_over_time = true;
  // theta_i(t) of draw s (s = chain * draws_per_chain + k): theta[(t * S + s) * n + i].
  std::vector<double> theta;
  // Draws of the model's hyperparameter per draw s (kappa of the hierarchical Dirichlet model,
  // sigma of the random walk), empty for the independent model.
  std::vector<double> hyper;
  std::string hyper_name;
  ModelDiagnostics diagnostics;

  int n() const { return static_cast<int>(methods.size()); }
  int T() const { return grid.size(); }
  int S() const { return chains * draws_per_chain; }
  double Theta(int t, int s, int i) const {
    return theta[(static_cast<size_t>(t) * S() + s) * n() + i];
  }
  // The n ratings of draw s at timepoint t.
  const double* Draw(int t, int s) const {
    return theta.data() + (static_cast<size_t>(t) * S() + s) * n();
  }
};

// Posterior mean and equal-tailed credible band per rating, index t * n + i.
struct RatingSummary {
  std::vector<double> mean;
  std::vector<double> lower;
  std::vector<double> upper;
};

// Quantiles by linear interpolation of the sorted draws (type 7). Precondition: 0 <= lower_q <=
// upper_q <= 1 and at least one draw.
RatingSummary Summarize(const RatingPosterior& posterior, double lower_q = 0.025,
                        double upper_q = 0.975);

// Fills posterior.diagnostics.rhat/ess_bulk/max_rhat/min_ess_bulk (and hyper_* when `hyper` is
// set) from the draws. Runs over ratings on up to `threads` threads (0: hardware concurrency).
void ComputeDiagnostics(RatingPosterior& posterior, int threads = 0);

// Quantile q of a sample (type 7); sorts a copy. NaN for an empty sample.
double SampleQuantile(std::vector<double> x, double q);

}  // namespace bbo::scoring::pl

#endif  // BBO_SCORING_PLACKETT_LUCE_POSTERIOR_H_
