#ifndef BBO_SCORING_PLACKETT_LUCE_SUMMARY_H_
#define BBO_SCORING_PLACKETT_LUCE_SUMMARY_H_

// The Plackett-Luce view of a leaderboard input for `bbo score --json` and reports (Wurth et al.,
// "Pareto-Optimal Anytime Algorithms via Bayesian Racing" (PolarBear)): one ranking per
// (problem, trial index, batch) of the methods that ran that trial, by best-so-far value (lower is
// better; +inf, NaN last), the independent Dirichlet(alpha = 1) model at every batch, and from it
//  - final.posterior_mean: per method the posterior mean of its normalised rating theta at the last
//    batch, i.e. from the rankings by best value over the whole study, with a credible band;
//  - anytime: per batch mean and band (2.5% / 97.5% by default);
//  - the anytime Pareto set and the decisions behind it (decisions.h), P(Pareto member);
//  - selection under the uniform and the final-time preference (selection.h).
// Pure computation; thread-safe.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "scoring/leaderboard.h"
#include "scoring/plackett_luce/decisions.h"
#include "scoring/plackett_luce/dirichlet_model.h"
#include "scoring/plackett_luce/posterior.h"

namespace bbo::scoring::pl {

struct SummaryOptions {
  // The independent Dirichlet model; alpha = 1 (uniform prior on the simplex).
  DirichletOptions model;
  DecisionOptions decisions;
  // Central credible band: (1 - band) / 2 and (1 + band) / 2 quantiles.
  double band = 0.95;
  // List every pair's probabilities per timepoint in the JSON (n (n - 1) / 2 x T numbers each).
  bool include_pairs = true;
  // Methods decided before this posterior, left out of the decisions (a race's: method -> the
  // method that eliminated it, or "" when its team withdrew it). The decisions and the Pareto set
  // are among the others; these are listed as eliminated (or withdrawn) with the race's reason.
  std::map<std::string, std::string> excluded;
};

struct PlackettLuceSummary {
  SummaryOptions options;
  // "independent_dirichlet"; "gibbs" or "laplace".
  std::string model;
  std::string inference;
  std::vector<std::string> methods;
  // Runs (problem, trial index) with at least two methods.
  int runs = 0;
  TimeGrid grid;
  // final.*: per method at the last timepoint.
  std::map<std::string, double> final_mean, final_lower, final_upper;
  // anytime.*: per method, per timepoint.
  std::map<std::string, std::vector<double>> mean, lower, upper;
  std::vector<std::string> pareto_set;
  std::map<std::string, double> p_pareto;
  // Eliminated method -> the method that dominates it (this posterior's decisions, and the
  // exclusions' eliminations).
  std::map<std::string, std::string> eliminated_by;
  // Methods withdrawn by their teams (exclusions with no eliminator).
  std::vector<std::string> withdrawn;
  Decisions decisions;
  // Selection: preference name ("uniform", "final") -> per method E[V] and P(best).
  std::map<std::string, std::map<std::string, double>> expected_value, p_best;
  std::map<std::string, std::string> best;
  ModelDiagnostics diagnostics;
  // The posterior it summarizes (set by the overloads that fit it), so a caller that decides
  // from it (a race) reads the very draws the report shows.
  std::shared_ptr<const RatingPosterior> posterior;
};

// From a leaderboard input: rankings per batch (BatchTraces, BatchGrid), the independent Dirichlet
// model, decisions over all methods. InvalidArgument: no methods, curve lengths differ from
// n_batches, or options out of range (named).
absl::StatusOr<PlackettLuceSummary> SummarizePlackettLuce(const ScoringInput& input,
                                                          const SummaryOptions& options = {});

// The same from any posterior (e.g. the seconds view, or another model).
absl::StatusOr<PlackettLuceSummary> SummarizePlackettLuce(const RatingPosterior& posterior,
                                                          const SummaryOptions& options = {});

// The JSON layout "bbo-arena/plackett-luce/1" (documented in docs/plackett-luce.md):
// {layout, model: {name, inference, alpha, chains, draws_per_chain, warmup, seed, runs},
//  methods, final: {time, band, posterior_mean, lower, upper},
//  anytime: {time, unit, mean, lower, upper}, pareto_set, p_pareto,
//  decisions: {alpha, epsilon, elimination, resolution, eliminated_by, resolved, pairs},
//  selection: {uniform: {expected, p_best, best}, final: {...}},
//  diagnostics: {max_rhat, min_ess_bulk, seconds}}. Non-finite numbers become null.
nlohmann::json PlackettLuceJson(const PlackettLuceSummary& summary);

}  // namespace bbo::scoring::pl

#endif  // BBO_SCORING_PLACKETT_LUCE_SUMMARY_H_
