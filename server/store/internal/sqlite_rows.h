#ifndef BBO_SERVER_STORE_INTERNAL_SQLITE_ROWS_H_
#define BBO_SERVER_STORE_INTERNAL_SQLITE_ROWS_H_

// Row codecs shared by the files of SqliteStore: how records map to SQLite columns and text.
// Internal to server/store/.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/sqlite.h"
#include "server/store/records.h"

namespace bbo::store_internal {

// The columns ReadJob reads, in order.
#define BBO_JOB_COLUMNS                                                      \
  "id, submission_id, problem, trial, seed, state, COALESCE(worker_id, '')," \
  " COALESCE(lease_expires_at, 0), attempts, board, max_batches"
// The columns ReadSubmission reads, in order.
#define BBO_SUBMISSION_COLUMNS \
  "id, name, kind, digest, trials, is_baseline, created_at, team, phase, migrated_from, withdrawn," \
  " hidden"

const char* JobStateName(JobState s);
JobState ParseJobState(const std::string& s);
StudyState ParseStudyState(const std::string& s);
const char* BatchSourceName(BatchSource s);

// A REAL column that may be NULL (read as +inf).
double ValueOrInf(const sqlite::Statement& q, int col);

// The per-batch figures' columns of `batches` (common/batch_figures.h), in kBatchFigures order,
// each as ", <alias>.<name>" (alias "" : ", <name>"): appended to a SELECT or INSERT list.
std::string FigureColumns(const std::string& alias = "");
// Binds the figures to parameters first, first + 1, ... (NULL when unknown).
void BindFigures(sqlite::Statement& q, int first, const BatchFigures& figures);
// Reads the figures from columns first, first + 1, ...
BatchFigures ReadFigures(const sqlite::Statement& q, int first);

JobRecord ReadJob(const sqlite::Statement& q);
SubmissionRecord ReadSubmission(const sqlite::Statement& q);
// Every row of a query of BBO_SUBMISSION_COLUMNS; resets the statement.
absl::StatusOr<std::vector<SubmissionRecord>> ReadSubmissions(sqlite::Statement& q);

// Calls f(q) for every row of `q`, then resets it.
template <typename F>
absl::Status ForEachRow(sqlite::Statement& q, F&& f) {
  while (true) {
    absl::StatusOr<bool> row = q.Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    f(q);
  }
  q.Reset();
  return absl::OkStatus();
}

// The first column of the first row of `q` (0 without a row, e.g. COUNT or MAX); resets it.
absl::StatusOr<int64_t> ScalarInt(sqlite::Statement& q);
// The same as text ("" without a row).
absl::StatusOr<std::string> ScalarText(sqlite::Statement& q);

// Why the submission of the job in the row is withdrawn ("" while entered): a column expression
// over `jobs`.
#define BBO_WITHDRAWN_OF_JOB \
  "(SELECT w.withdrawn FROM submissions w WHERE w.id = jobs.submission_id)"

}  // namespace bbo::store_internal

#endif  // BBO_SERVER_STORE_INTERNAL_SQLITE_ROWS_H_
