#ifndef BBO_SERVER_WEB_PLACKETT_LUCE_RANKINGS_H_
#define BBO_SERVER_WEB_PLACKETT_LUCE_RANKINGS_H_

// PlackettLuceRankings: the Bayesian Plackett-Luce ranking (Wurth, Stegherr, Kemper, Heider and
// Hähner, "Pareto-Optimal Anytime Algorithms via Bayesian Racing"; docs/plackett-luce.md) of each
// board the web leaderboard shows: the batch view of the board's fits (Phase::PlackettLuce, the
// same fit the report uses), as scoring::PlackettLuceReportJson (the "plackett_luce" value of a
// report; {"layout", "error"} when there is none, e.g. with fewer than two submissions). The
// JSON is rendered once per fit.
//
// Thread-safe.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "nlohmann/json.hpp"
#include "server/access.h"
#include "server/phase.h"

namespace bbo::web {

class PlackettLuceRankings {
 public:
  // The ranking of board `board` ("" or "main", "warm-start") of `phase` for `who`, under
  // Phase::PlackettLuce's rule and with its codes (PermissionDenied while the board is hidden
  // from `who`, NotFound, FailedPrecondition while the baseline runs). Never null when OK.
  // `phase` is not owned.
  absl::StatusOr<std::shared_ptr<const nlohmann::json>> Get(Phase* phase, const Identity& who,
                                                            const std::string& board);

  // How many rankings were actually rendered (for tests).
  int computations() const { return computations_.load(); }

 private:
  struct Entry {
    std::shared_ptr<const scoring::PlackettLuceFits> fits;  // what `ranking` renders
    std::shared_ptr<const nlohmann::json> ranking;
  };
  // Phase key and board key -> the latest ranking.
  using Key = std::pair<std::string, std::string>;

  absl::Mutex mu_;
  std::map<Key, Entry> entries_ ABSL_GUARDED_BY(mu_);
  std::atomic<int> computations_{0};
};

}  // namespace bbo::web

#endif  // BBO_SERVER_WEB_PLACKETT_LUCE_RANKINGS_H_
