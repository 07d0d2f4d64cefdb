#ifndef BBO_SCORING_PLACKETT_LUCE_RANKING_STATS_H_
#define BBO_SCORING_PLACKETT_LUCE_RANKING_STATS_H_

// Sufficient statistics of the Plackett-Luce likelihood at one timepoint, with ties expanded
// (Wurth et al., "Pareto-Optimal Anytime Algorithms via Bayesian Racing" (PolarBear) eqs. 6-7 and
// §3 "ties by expansion", after Rojas-Delgado et al. 2022).
//
// A ranking r = (pi_1, ..., pi_m) of weight w_r contributes, at each stage k < m with remaining
// set S_rk = {pi_k, ..., pi_m}, the factor (lambda_{pi_k} / sum_{j in S_rk} lambda_j)^{w_r}
// (eq. 6; the last stage is 1 and is dropped). Summing the log over all rankings of a timepoint:
//
//   log L(lambda) = sum_i c_i log lambda_i - sum_S W_S log sum_{j in S} lambda_j,        (*)
//
// with c_i the weighted number of stages won by i and W_S the total weight of the stages whose
// remaining set is S. Every model here uses (*) only. Two equivalent storage forms of the second
// sum keep inference cheap: identical stage sets merged (at most 2^n - n - 1 of them, whatever the
// number of runs: best for few methods), or chains, the nested stages of one ranking's strict
// prefix (remaining sets {pi_k, ..., pi_m}) merged over identical orderings, whose sums cost O(m)
// per chain instead of O(m^2) (best for many methods). ComputePlStats picks, per timepoint, the
// form with the smaller estimated sampling cost (StatsOptions::stage_form; beyond 20 methods,
// where identical stage sets are too rare to pay, chains without weighing); stages of expanded
// ties are always stage sets.
//
// Ties. A k-way tie group G followed by the set R of lower-ranked methods is replaced by all k!
// orderings of G, each of weight w_r / k! (PolarBear §3). Under a uniformly random ordering the
// remaining set after j picks is G' u R with G' a uniformly random (k - j)-subset of G, so the
// expansion adds W_{G' u R} += w_r / C(k, |G'|) for every non-empty G' with |G' u R| >= 2, and
// c_i += w_r for i in G (w_r (k - 1) / k when R is empty: the last method of the ranking wins no
// stage). This is exactly the k!-ordering expansion at 2^k cost, and it depends on (G, R) only, so
// each distinct (G, R) of a timepoint is expanded once with its rankings' total weight. Groups of
// k <= StatsOptions::max_exact_tie are expanded exactly. Larger groups are expanded with uniformly
// drawn orderings (unbiased, with extra variance: PolarBear §3): min(sampled_orderings x rankings
// sharing (G, R), max_sampled_orderings) orderings, each of weight (their total weight) / (that
// number), drawn from a generator seeded by StatsOptions::seed, the timepoint and the configuration
// (deterministic).
//
// Pure functions; thread-safe.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "scoring/plackett_luce/rankings.h"

namespace bbo::scoring::pl {

enum class StageForm { kAuto, kSets, kChains };

struct StatsOptions {
  // Tie groups of at most this many methods are expanded exactly (all k! orderings, at 2^k
  // cost). In [1, 20].
  int max_exact_tie = 10;
  // Larger groups: orderings drawn per tied ranking (>= 1), and at most this many per distinct
  // (group, rest) configuration of a timepoint (>= 1).
  int sampled_orderings = 64;
  int max_sampled_orderings = 4096;
  uint64_t seed = 0x5eed;
  // Storage of the strict-prefix stages (see above); kAuto picks the cheaper per timepoint.
  StageForm stage_form = StageForm::kAuto;
};

// One stage set S of (*) and its total weight W_S.
struct StageSet {
  // Method indices, ascending; at least 2.
  std::vector<int> members;
  double weight = 0;
};

// Nested stages: stage k (k < order.size() - 1) has remaining set {order[k], ..., order.back()}
// and total weight weights[k] (0 for a stage that is not there).
struct StageChain {
  // Method indices, best first; at least 2.
  std::vector<int> order;
  std::vector<double> weights;
};

struct PlStats {
  int n_methods = 0;
  // c_i of (*), per method index.
  std::vector<double> wins;
  // The terms of the second sum of (*): stage sets and chains together.
  std::vector<StageSet> stages;
  std::vector<StageChain> chains;
  // Sum of w_r of the rankings at this timepoint.
  double total_weight = 0;
};

// Statistics of every timepoint of `set` (index = timepoint). InvalidArgument: a ranking is
// malformed (sizes, indices, groups, weight <= 0 or not finite, timepoint out of range) or the tie
// options are out of range (parameter named).
absl::StatusOr<std::vector<PlStats>> ComputePlStats(const RankingSet& set,
                                                    const StatsOptions& options = {});

// (*) at ratings exp(log_lambda) (any scale: (*) is invariant to adding a constant), in
// log-sum-exp form. Precondition: log_lambda.size() == stats.n_methods.
double PlLogLikelihood(const PlStats& stats, const std::vector<double>& log_lambda);

// Gradient of (*) with respect to mu = log_lambda:
// d/dmu_i = c_i - sum_{S contains i} W_S softmax_S(mu)_i. Precondition as PlLogLikelihood.
std::vector<double> PlLogLikelihoodGradient(const PlStats& stats, const std::vector<double>& mu);

}  // namespace bbo::scoring::pl

#endif  // BBO_SCORING_PLACKETT_LUCE_RANKING_STATS_H_
