#ifndef BBO_SCORING_ANYTIME_H_
#define BBO_SCORING_ANYTIME_H_

// Anytime views of performance (Wurth et al. (PolarBear) §1, Klein et al. (2019, Profet) §4.2), per
// batch t:
//  - ECDF of runtime-to-target: for each problem the targets are random search's expected best
//    after each batch, rand-mean-perf_pt for t = 0..T-1 (targets from a random-search design:
//    "as good as random search after t + 1 batches"). A trial reaches a target at the first batch
//    where its best so far S_t <= target. ECDF_m(t) = fraction of (problem, target, trial)
//    triples of method m reached by batch t.
//  - Average fractional rank: on each problem and batch the methods are ranked by their mean
//    clipped normalized performance over trials (ties share the average rank); the fractional
//    rank is (rank - 1) / (k - 1) (0 = best, 1 = worst); averaged over problems and over B
//    bootstrap resamples of the trials (Klein et al. (2019, Profet) §4.2).
// Pure functions; thread-safe.

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scoring/leaderboard.h"

namespace bbo::scoring {

struct AnytimeResult {
  // method -> per batch.
  std::map<std::string, std::vector<double>> ecdf;
  std::map<std::string, std::vector<double>> avg_fractional_rank;
};

// Uses the baselines (targets, opt, clip) of `board`, which must come from `input`.
// InvalidArgument: replicates < 1.
absl::StatusOr<AnytimeResult> ComputeAnytime(const Leaderboard& board, const ScoringInput& input,
                                             int bootstrap_replicates, uint64_t seed);

}  // namespace bbo::scoring

#endif  // BBO_SCORING_ANYTIME_H_
