#ifndef BBO_SCORING_PLACKETT_LUCE_DIAGNOSTICS_H_
#define BBO_SCORING_PLACKETT_LUCE_DIAGNOSTICS_H_

// MCMC convergence diagnostics for one scalar parameter over several chains: the rank-normalized
// split R-hat and the bulk effective sample size of Vehtari, Gelman, Simpson, Carpenter and
// Bürkner (2021), "Rank-normalization, folding, and localization: An improved R-hat for assessing
// convergence of MCMC" (eqs. 3-4 and 10-13; autocorrelations summed with Geyer's initial monotone
// sequence as Stan does). PolarBear's recommendation (Wurth et al., "Pareto-Optimal Anytime
// Algorithms via Bayesian Racing" §3.3): R-hat < 1.01 and ESS > 400 per parameter.
// Pure functions; thread-safe.

#include <vector>

namespace bbo::scoring::pl {

struct ParameterDiagnostics {
  // Rank-normalized split R-hat; 1 for a constant parameter.
  double rhat = 1;
  // Bulk ESS (of the rank-normalized split chains), in [0, chains x draws x log10(chains x draws)].
  double ess_bulk = 0;
};

// `draws` holds chain c's k-th draw at draws[c * draws_per_chain + k]. Needs draws_per_chain >= 4
// (two halves of at least 2 each); with fewer, returns {NaN, NaN}.
ParameterDiagnostics Diagnose(const std::vector<double>& draws, int chains, int draws_per_chain);

// The classic (not rank-normalized) split R-hat, BDA3 eq. 11.4, for tests and comparisons.
double SplitRhat(const std::vector<double>& draws, int chains, int draws_per_chain);

// Geyer/Stan ESS of the given split or unsplit chains (no rank normalization). Same layout.
double EffectiveSampleSize(const std::vector<double>& draws, int chains, int draws_per_chain);

}  // namespace bbo::scoring::pl

#endif  // BBO_SCORING_PLACKETT_LUCE_DIAGNOSTICS_H_
