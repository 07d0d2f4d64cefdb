#ifndef BBO_SERVER_STORE_SCORING_STORE_H_
#define BBO_SERVER_STORE_SCORING_STORE_H_

// ScoringStore: the read side that scoring and the results export use. Part of the Store
// contract (server/store/store.h): every method is one read transaction; implementations are
// thread-safe.
//
// What is scored on a board: for each job of a non-baseline submission, its latest (highest id)
// study in a scored final state (completed, cut off, failed), if that study is on the board;
// and every completed study of the baseline submissions, whatever their board (random search
// does not read parameter names).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/store/records.h"

namespace bbo {

class ScoringStore {
 public:
  virtual ~ScoringStore() = default;

  // The scored data of `problems` (every problem when empty; a repeated problem is loaded
  // again) on `board`. Curves of one (method, problem) are in study id order; a batch without
  // evaluations is +inf. Baseline evaluations are in (submission, study, batch, index) order.
  virtual absl::StatusOr<ScoringData> LoadScoringData(const std::vector<std::string>& problems,
                                                      const std::string& board) = 0;
  absl::StatusOr<ScoringData> LoadScoringData(const std::vector<std::string>& problems) {
    return LoadScoringData(problems, kMainBoard);
  }
  absl::StatusOr<ScoringData> LoadScoringData() { return LoadScoringData({}, kMainBoard); }
  // Studies reach a scored final state in a sequence 1, 2, ... Returns the latest sequence
  // number and the problems of the studies finalized after `after_seq` (sorted, distinct).
  // Only these problems' scoring data can have changed.
  virtual absl::StatusOr<ScoringChanges> ScoringChangesSince(int64_t after_seq) = 0;
  // Every evaluation that LoadScoringData(board) scores, baseline included, ordered by problem,
  // method, trial, batch, suggestion (then study id). A scored study without any evaluation
  // gives one row with has_evaluation false, before any other row of its trial.
  virtual absl::StatusOr<std::vector<ScoredEvaluationRecord>> ScoredEvaluations(
      const std::string& board) = 0;
};

}  // namespace bbo

#endif  // BBO_SERVER_STORE_SCORING_STORE_H_
