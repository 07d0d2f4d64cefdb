#include "server/web/plackett_luce_rankings.h"

#include "common/status_macros.h"
#include "report/report.h"

namespace bbo::web {

PlackettLuceRankings::Entry PlackettLuceRankings::Cached(const Key& key) {
  absl::MutexLock l(&mu_);
  auto it = entries_.find(key);
  return it == entries_.end() ? Entry{} : it->second;
}

absl::StatusOr<std::shared_ptr<const nlohmann::json>> PlackettLuceRankings::Get(
    Phase* phase, const Identity& who, const std::string& board) {
  const Key key{phase->options().phase_key, phase->BoardKey(board)};
  const Entry cached = Cached(key);
  // The visibility rule and the board's state: Snapshot decides both.
  ASSIGN_OR_RETURN(Phase::BoardSnapshot snapshot, phase->Snapshot(who, board, cached.seq));
  if (!snapshot.input.has_value()) return cached.ranking;  // no study ended since
  if (!compute_mu_.TryLock()) {
    if (cached.ranking != nullptr) return cached.ranking;
    compute_mu_.Lock();
  }
  // Computed by another call while this one waited?
  const Entry latest = Cached(key);
  if (latest.ranking != nullptr && latest.seq >= snapshot.seq) {
    compute_mu_.Unlock();
    return latest.ranking;
  }
  computations_++;
  auto ranking = std::make_shared<const nlohmann::json>(scoring::PlackettLuceReportJson(
      scoring::ReportPlackettLuce(*snapshot.input, scoring::ReportOptions{}.plackett_luce_options)));
  {
    absl::MutexLock l(&mu_);
    Entry& e = entries_[key];
    if (snapshot.seq >= e.seq) e = {snapshot.seq, ranking};
  }
  compute_mu_.Unlock();
  return ranking;
}

}  // namespace bbo::web
