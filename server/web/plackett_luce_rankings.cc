#include "server/web/plackett_luce_rankings.h"

#include "common/status_macros.h"
#include "report/report.h"

namespace bbo::web {

absl::StatusOr<std::shared_ptr<const nlohmann::json>> PlackettLuceRankings::Get(
    Phase* phase, const Identity& who, const std::string& board) {
  // The visibility rule and the board's state: Phase::PlackettLuce decides both.
  ASSIGN_OR_RETURN(std::shared_ptr<const scoring::PlackettLuceFits> fits,
                   phase->PlackettLuce(who, board));
  const Key key{phase->options().phase_key, phase->BoardKey(board)};
  absl::MutexLock l(&mu_);
  Entry& e = entries_[key];
  if (e.fits != fits) {
    computations_++;
    e.ranking = std::make_shared<const nlohmann::json>(scoring::PlackettLuceReportJson(fits->batches));
    e.fits = std::move(fits);
  }
  return e.ranking;
}

}  // namespace bbo::web
