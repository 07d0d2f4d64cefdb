#ifndef BBO_SCORING_PLACKETT_LUCE_RANKINGS_H_
#define BBO_SCORING_PLACKETT_LUCE_RANKINGS_H_

// Rankings of methods from best-so-far traces (Wurth et al., "Pareto-Optimal Anytime Algorithms
// via Bayesian Racing" (PolarBear) §2-3): on each run (problem instance, trial index) and at each
// timepoint t of a grid, the methods present are ordered by g*(t), lower is better. +inf (nothing
// found yet, or every evaluation crashed) and NaN rank last; equal values form a tie group. The
// ranking models (dirichlet_model.h, random_walk_model.h) expand ties as PolarBear §3 describes
// (ranking_stats.h). Pure functions; thread-safe.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scoring/leaderboard.h"
#include "scoring/plackett_luce/traces.h"

namespace bbo::scoring::pl {

// One observed ranking r (PolarBear eq. 6) with its timepoint t_r and weight w_r (eq. 7).
struct Ranking {
  // Index of t_r in the grid.
  int timepoint = 0;
  // Method indices, best first. Only the methods that ran on this run; at least 2.
  std::vector<int> order;
  // group[k]: tie group of order[k]; 0 for the best group, non-decreasing, +1 per new value.
  std::vector<int> group;
  // w_r; 1 for an observed run.
  double weight = 1;
};

struct RankingSet {
  // Method index -> name, sorted by name.
  std::vector<std::string> methods;
  TimeGrid grid;
  // Sorted by timepoint, then run.
  std::vector<Ranking> rankings;
  // Number of runs (instance, trial) ranking at least two methods at some timepoint.
  int runs = 0;

  int n() const { return static_cast<int>(methods.size()); }
  int T() const { return grid.size(); }
};

// Orders (method index, value) pairs: lower first, NaN and +inf last and tied with each other,
// equal values tied. Method index breaks nothing (ties stay ties); order within a group is by
// index, for determinism.
Ranking RankValues(std::vector<std::pair<int, double>> values, int timepoint);

// One ranking per (run, timepoint) of the methods having that run and observed at t (t <= the
// trace's horizon), by ValueAt(trace, t). (Run, timepoint) pairs with fewer than two such methods
// are skipped (nothing to compare). Every method of `traces` gets an
// index even if it never shares a run (it then keeps its prior). InvalidArgument: the grid or a
// trace is invalid (ValidateGrid, ValidateTrace), or there are no methods.
absl::StatusOr<RankingSet> RankingsFromTraces(const TraceSet& traces, const TimeGrid& grid);

// The batch view of a leaderboard input: exactly RankingsFromTraces(BatchTraces(input),
// BatchGrid(input.n_batches)) (the same rankings in the same order), built directly from the
// trials' best-so-far curves without the step traces, one problem at a time. InvalidArgument as
// BatchTraces, or "input.methods: no methods".
absl::StatusOr<RankingSet> BatchRankings(const ScoringInput& input);

// The "final" view of a leaderboard input: one ranking per (problem, trial index) of all methods
// that have that trial, by their best value over the whole study (BestSoFar at the last batch),
// on a one-point grid {n_batches} (unit "batches"). InvalidArgument as BatchTraces.
absl::StatusOr<RankingSet> FinalRankings(const ScoringInput& input);

}  // namespace bbo::scoring::pl

#endif  // BBO_SCORING_PLACKETT_LUCE_RANKINGS_H_
