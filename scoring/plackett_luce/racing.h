#ifndef BBO_SCORING_PLACKETT_LUCE_RACING_H_
#define BBO_SCORING_PLACKETT_LUCE_RACING_H_

// The bookkeeping of PolarBear's racing procedure (Wurth et al., "Pareto-Optimal Anytime
// Algorithms via Bayesian Racing" §4.3, Algorithm 1), as pure functions for a coordinator that
// runs the methods and fits the posterior itself:
//
//   state = StartRace(methods, T, options); plan = FirstRound(state)
//   loop: run plan.runs on plan.new_instances fresh instances (each method up to grid index
//         tau_A, PolarBear eq. 32) and on its cached_instances; rank; fit the posterior of ALL
//         methods on ALL rankings (eliminated methods' data stays: IIA, §4);
//         plan = PlanNextRound(plan.state, posterior, options); stop when plan.stop.
//
// Each round (lines 9-18 of Algorithm 1): surviving candidates dominated by another candidate
// (decisions.h, pointwise or joint) are eliminated and all their pairs marked resolved;
// C(t, {A, B}) is set for every pair and t that the posterior resolves (strict or crossing); marks
// are never undone. The batch size b doubles when no pair became resolved this round and halves
// when more than `shrink_fraction` of the pairs unresolved at the round's start became resolved
// (PolarBear §4.3, "Batch Size"), clipped to [b_min, b_max]; a pair counts as resolved when C is
// true at every t. A method admitted mid-race (AdmitMethod, "Dynamically Adding Algorithms")
// enters unresolved against every candidate; from then on it runs on every fresh instance and, in
// addition, on up to b of the instances sampled before it came per round (cached_begin/end), until
// it has caught up with them (the coordinator ranks it against the cached traces of the others).
// The race stops when no pair of candidates is unresolved at any t.
// Value types; thread-compatible.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scoring/plackett_luce/decisions.h"
#include "scoring/plackett_luce/posterior.h"

namespace bbo::scoring::pl {

struct RacingOptions {
  DecisionOptions decisions;
  // Batch size b of the first round and its bounds (PolarBear §5: 8, 8, 64).
  int initial_batch = 8;
  int b_min = 8;
  int b_max = 64;
  // Halve b when more than this fraction of the unresolved pairs resolve in one round.
  double shrink_fraction = 0.2;
};

struct RaceState {
  // Every method admitted so far, in admission order.
  std::vector<std::string> methods;
  // Number of timepoints of the grid.
  int T = 0;
  // Per method: the round it was eliminated in (-1: still a candidate) and by whom ("" if not,
  // or when it left the race withdrawn by its team: WithdrawMethod).
  std::vector<int> eliminated_round;
  std::vector<std::string> eliminated_by;
  // C(t, {A, B}): resolved[PairIndex(a, b) * T + t] for a < b.
  std::vector<bool> resolved;
  // Current batch size b and completed rounds.
  int batch_size = 0;
  int round = 0;
  // Instances sampled so far, counting those of the plan just issued (instances are numbered in
  // sampling order). Method i runs every instance from first_instance[i] on (the instances sampled
  // before it was admitted are cached) and has been planned on the cached instances
  // [0, backfilled[i]).
  int instances_sampled = 0;
  std::vector<int> first_instance;
  std::vector<int> backfilled;

  int n() const { return static_cast<int>(methods.size()); }
  bool candidate(int i) const { return eliminated_round[i] < 0; }
  bool withdrawn(int i) const { return eliminated_round[i] >= 0 && eliminated_by[i].empty(); }
  bool Resolved(int a, int b, int t) const;
};

// Index of pair a < b in RaceState::resolved: b (b - 1) / 2 + a, so admitting a method appends.
inline int PairIndex(int a, int b) { return b * (b - 1) / 2 + a; }

struct MethodRun {
  std::string method;
  // Run up to grid index tau_A (eq. 32): later timepoints are resolved for this method. Its traces
  // must then end there (StepTrace::horizon), so later rankings leave it out.
  int tau = 0;
  // Run on the fresh instances of this round, numbered [new_begin, new_end).
  bool new_instances = false;
  int new_begin = 0;
  int new_end = 0;
  // Catch-up on instances sampled before the method was admitted: [cached_begin, cached_end).
  int cached_begin = 0;
  int cached_end = 0;
};

struct RoundPlan {
  // The state after this round's decisions (pass it to the next PlanNextRound).
  RaceState state;
  // Methods eliminated this round, and the candidate that eliminated each.
  std::vector<std::string> newly_eliminated;
  std::vector<std::string> eliminated_by;
  // Pairs (of methods that were candidates at the round's start) unresolved at its start, and
  // how many of them became resolved.
  int unresolved_pairs_before = 0;
  int newly_resolved_pairs = 0;
  // Fresh instances to sample for the next round (b, or 0 if nobody needs new ones).
  int new_instances = 0;
  // What to run next; empty when stop.
  std::vector<MethodRun> runs;
  bool stop = false;
};

// A race over `methods` (distinct, non-empty names) on a grid of T >= 1 timepoints.
// InvalidArgument: bad options (b_min < 1, b_max < b_min, initial_batch outside [b_min, b_max],
// shrink_fraction outside (0, 1]), no methods, duplicates, T < 1.
absl::StatusOr<RaceState> StartRace(const std::vector<std::string>& methods, int T,
                                    const RacingOptions& options);

// The first round: every method up to the last timepoint on b fresh instances.
RoundPlan FirstRound(const RaceState& state);

// One round of Algorithm 1 after the previous plan was carried out in full. `posterior` must hold
// every candidate of the state by name (extra methods are ignored; a candidate missing from it,
// e.g. admitted this round, stays unresolved and is not eliminated) on a grid of state.T
// timepoints. InvalidArgument: grid size mismatch or bad decision options.
absl::StatusOr<RoundPlan> PlanNextRound(const RaceState& state, const RatingPosterior& posterior,
                                        const RacingOptions& options);

// Takes a method out of the race because its team withdrew it: it runs nothing more and its pairs
// are resolved, like an eliminated method, with no method eliminating it (eliminated_by ""). A
// method eliminated before stays as it was. NotFound: not in the race.
absl::StatusOr<RaceState> WithdrawMethod(const RaceState& state, const std::string& method);

// Adds a method mid-race (PolarBear §4.3): unresolved against every candidate at every t.
// AlreadyExists: the name is taken. InvalidArgument: empty name.
absl::StatusOr<RaceState> AdmitMethod(const RaceState& state, const std::string& method);

}  // namespace bbo::scoring::pl

#endif  // BBO_SCORING_PLACKETT_LUCE_RACING_H_
