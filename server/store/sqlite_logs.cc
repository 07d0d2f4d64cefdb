// SqliteStore: what a submission's log lists (its studies and how they ended).

#include "common/status_macros.h"
#include "server/store/internal/sqlite_rows.h"
#include "server/store/sqlite_store.h"

namespace bbo {

using store_internal::ForEachRow;
using store_internal::ParseStudyState;

absl::StatusOr<std::vector<StudySummary>> SqliteStore::ListSubmissionStudies(
    int64_t submission_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(
      auto* q,
      Stmt("SELECT s.id, s.job_id, s.problem, s.trial, s.board, s.state, s.batches_done,"
           " s.n_batches, s.end_reason,"
           " (SELECT COUNT(*) FROM batches b WHERE b.study_id = s.id AND (b.source = 'random_fill'"
           "   OR (b.n_replaced > 0 AND b.n_replaced = (SELECT COUNT(*) FROM evaluations e"
           "       WHERE e.study_id = b.study_id AND e.batch = b.batch)))),"
           " (SELECT COALESCE(SUM(b.n_replaced), 0) FROM batches b WHERE b.study_id = s.id)"
           " FROM studies s WHERE s.submission_id = ? ORDER BY s.id"));
  q->Bind(1, submission_id);
  std::vector<StudySummary> out;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) {
    StudySummary s;
    s.study_id = r.Int(0);
    s.job_id = r.IsNull(1) ? 0 : r.Int(1);
    s.problem = r.Text(2);
    s.trial = static_cast<int>(r.Int(3));
    s.board = r.Text(4);
    s.state = ParseStudyState(r.Text(5));
    s.batches_done = static_cast<int>(r.Int(6));
    s.n_batches = static_cast<int>(r.Int(7));
    s.end_reason = r.IsNull(8) ? "" : r.Text(8);
    s.random_batches = static_cast<int>(r.Int(9));
    s.replaced_points = static_cast<int>(r.Int(10));
    out.push_back(std::move(s));
  }));
  return out;
}

}  // namespace bbo
