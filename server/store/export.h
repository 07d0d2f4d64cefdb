#ifndef BBO_SERVER_STORE_EXPORT_H_
#define BBO_SERVER_STORE_EXPORT_H_

// The results CSV of a store: what `bbo export` writes and `bbo score` reads back.

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "report/results_csv.h"
#include "server/store/scoring_store.h"

namespace bbo {

// The results table of the evaluations that ScoringStore::LoadScoringData(board) scores (plus
// the baseline's): one row per evaluation, in ScoredEvaluations order, with the generalization
// column (the held-out loss, or the value itself for problems without one). A scored study
// without any evaluation is one row (batch 0, suggestion 0, value and generalization inf) so
// that its trial still counts.
scoring::ResultsTable ResultsTableOf(const std::vector<ScoredEvaluationRecord>& evaluations);

// Writes ResultsTableOf(store.ScoredEvaluations(board)) with scoring::WriteResultsCsv. Store
// errors as they come; Unavailable when the stream fails.
absl::Status ExportResultsCsv(ScoringStore& store, std::ostream& out,
                              const std::string& board = kMainBoard);

}  // namespace bbo

#endif  // BBO_SERVER_STORE_EXPORT_H_
