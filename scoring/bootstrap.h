#ifndef BBO_SCORING_BOOTSTRAP_H_
#define BBO_SCORING_BOOTSTRAP_H_

// Bootstrap rank confidence sets (Turner et al. (2021) §4.1, eq. 1): for each replicate, every
// method's N trial scores on each problem are resampled with replacement, its leaderboard score
// recomputed (mean over problems of the mean clipped normalized performance at the last batch), and
// the methods ranked. Over B replicates this gives each method's rank distribution, its probability
// of being in the top k, and the most frequent top-k rankings (Turner et al. (2021) Table 3).
//
// Replicate i draws from its own generator seeded by (seed, i), so results do not depend on the
// number of threads. Thread-safe (pure function); runs on `threads` threads.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scoring/leaderboard.h"

namespace bbo::scoring {

struct BootstrapOptions {
  // B, the number of bootstrap replicates (Turner et al. (2021): 10^4).
  int replicates = 10000;
  uint64_t seed = 1;
  // Worker threads; 0 = the hardware's.
  int threads = 0;
  // k of "top k" and of the reported top-k rankings.
  int top_k = 5;
  // How many of the most frequent top-k rankings to report.
  int top_rankings = 10;
};

struct BootstrapResult {
  // Methods in leaderboard order (baseline rows excluded).
  std::vector<std::string> methods;
  // rank_counts[m][r]: replicates in which methods[m] had rank r + 1.
  std::vector<std::vector<int>> rank_counts;
  // P(rank <= top_k) per method.
  std::vector<double> p_top_k;
  // The most frequent top-k orderings (method names, best first) with their frequency.
  std::vector<std::pair<std::vector<std::string>, double>> top_rankings;
  int replicates = 0;
};

// InvalidArgument: replicates < 1, top_k < 1, or a board without non-baseline methods.
absl::StatusOr<BootstrapResult> BootstrapRanks(const Leaderboard& board, const ScoringInput& input,
                                               const BootstrapOptions& options);

}  // namespace bbo::scoring

#endif  // BBO_SCORING_BOOTSTRAP_H_
