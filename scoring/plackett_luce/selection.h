#ifndef BBO_SCORING_PLACKETT_LUCE_SELECTION_H_
#define BBO_SCORING_PLACKETT_LUCE_SELECTION_H_

// Selection under time preferences and risk profiles, single methods and portfolios (Wurth et al.,
// "Pareto-Optimal Anytime Algorithms via Bayesian Racing" (PolarBear) §4 eq. 17, §4.4 eqs. 33-37).
// A preference u maps a rating trajectory to a value V_A^u = u(theta_A(t_1), ..., theta_A(t_T))
// (eq. 17); its posterior is the image of the posterior draws. Linear preferences are weights
// w_t >= 0 summing to 1, V = sum_t w_t theta(t):
//   uniform       u = integral of theta(t) dt / (t_T - t_1): trapezoid weights on the t axis;
//   log-uniform   the same on the log t axis (t_1 > 0);
//   final time    u = theta(t_T);
//   budget        u = E_{t ~ B}[theta(t)] for a budget distribution B given by its CDF F: a budget
//                 in [t_i, t_{i+1}) gets theta(t_i) (the last timepoint reached), so w_i =
//                 F(t_{i+1}) - F(t_i); budgets below t_1 count as t_1, above t_T as t_T;
//   custom        given weights (normalised).
// A nonlinear u can be passed as a function of the trajectory instead.
// Risk profiles: probability of being best (eq. 33), expected value (eq. 34), lower gamma-quantile
// (eq. 35). Portfolios of size k are multisets S with theta_S(t) = sum_{A in S} theta_A(t)
// (eq. 36), chosen by eq. 37: exhaustive over all C(m + k - 1, k) multisets when there are at
// most `max_enumerated`, else greedily (add the member that maximizes the criterion, k times).
// Pure functions; thread-safe.

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "scoring/plackett_luce/posterior.h"

namespace bbo::scoring::pl {

struct TimePreference {
  enum class Kind { kUniform, kLogUniform, kFinal, kBudget, kCustom };
  Kind kind = Kind::kUniform;
  // kBudget: the CDF of the budget distribution over the grid's time unit.
  std::function<double(double)> budget_cdf;
  // kCustom: one weight >= 0 per timepoint, not all zero.
  std::vector<double> weights;

  static TimePreference Uniform() { return {}; }
  static TimePreference LogUniform() { return {Kind::kLogUniform, {}, {}}; }
  static TimePreference Final() { return {Kind::kFinal, {}, {}}; }
  static TimePreference Budget(std::function<double(double)> cdf) {
    return {Kind::kBudget, std::move(cdf), {}};
  }
  static TimePreference Custom(std::vector<double> w) { return {Kind::kCustom, {}, std::move(w)}; }
};

// The weights w_t (summing to 1) of a linear preference on `grid`. InvalidArgument: log-uniform on
// a grid with t_1 <= 0, a missing or non-monotone budget CDF (values outside [0, 1] or
// decreasing), or custom weights of the wrong size, negative, non-finite or all zero.
absl::StatusOr<std::vector<double>> PreferenceWeights(const TimeGrid& grid,
                                                      const TimePreference& preference);

// A nonlinear preference: the value of one trajectory theta(t_1..t_T). Must be strictly
// increasing (PolarBear §4) for the Pareto set to contain its optimum; not checked.
using PreferenceFunctional = std::function<double(absl::Span<const double>)>;

struct RiskProfile {
  enum class Kind { kProbabilityBest, kExpected, kLowerQuantile };
  Kind kind = Kind::kExpected;
  // kLowerQuantile: gamma in (0, 1), e.g. 0.05.
  double gamma = 0.05;
};

struct SelectionResult {
  // The options compared: candidate method names, or portfolios written "A+A+B".
  std::vector<std::string> options;
  // Members (method indices) of each option, with multiplicity.
  std::vector<std::vector<int>> members;
  // Per option: E[V] (eq. 34), P(V is the largest among the options) (eq. 33; ties split),
  // Q_gamma[V] (eq. 35), and the criterion the risk profile uses.
  std::vector<double> expected;
  std::vector<double> p_best;
  std::vector<double> lower_quantile;
  std::vector<double> score;
  // Index into `options` of the choice (argmax of score; first on ties).
  int best = -1;
};

// Single methods among `candidates` (indices; empty = all), e.g. the Pareto set. Either `weights`
// (from PreferenceWeights, size T) or `functional` must be given. InvalidArgument: both or neither,
// weights of the wrong size, gamma outside (0, 1), bad candidates.
absl::StatusOr<SelectionResult> SelectMethod(const RatingPosterior& posterior,
                                             const std::vector<double>& weights,
                                             const PreferenceFunctional& functional,
                                             const RiskProfile& risk,
                                             std::vector<int> candidates = {});

// Portfolios of k >= 1 methods (multisets over `candidates`). The result lists every enumerated
// portfolio (or, greedily, the ones compared at the last step). InvalidArgument as SelectMethod,
// or k < 1.
absl::StatusOr<SelectionResult> SelectPortfolio(const RatingPosterior& posterior, int k,
                                                const std::vector<double>& weights,
                                                const PreferenceFunctional& functional,
                                                const RiskProfile& risk,
                                                std::vector<int> candidates = {},
                                                int max_enumerated = 20000);

}  // namespace bbo::scoring::pl

#endif  // BBO_SCORING_PLACKETT_LUCE_SELECTION_H_
