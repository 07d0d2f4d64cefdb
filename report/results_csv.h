#ifndef BBO_REPORT_RESULTS_CSV_H_
#define BBO_REPORT_RESULTS_CSV_H_

// Offline scoring input: a results table with one row per evaluation,
//   problem,method,trial,batch,suggestion,value[,generalization][,planned_batches][,<figure>...]
// (a header row naming the columns, in any order; `inf` for a crashed evaluation; a <figure> is
// one of the per-batch figures of common/batch_figures.h, e.g. optimizer_cpu_s, repeated on
// every row of its batch and empty where unknown; planned_batches, repeated on every row of a
// study, is the number of batches a racing phase planned it to run when that is fewer than the
// others': its later batches did not run and are not results (TrialCurve::horizon); other
// columns are ignored). The random-search method supplies the baselines. Used by `bbo score`;
// written by `bbo export`.

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/batch_figures.h"
#include "scoring/leaderboard.h"

namespace bbo::scoring {

struct ResultsRow {
  std::string problem, method;
  int trial = 0, batch = 0, suggestion = 0;
  double value = 0;
  double generalization = 0;  // only meaningful when the table has the column
  // The host's figures of the row's batch (common/batch_figures.h): a column each, written
  // when any row has the figure, empty where unknown.
  BatchFigures figures;
  // The batches the row's study was planned to run; 0 = unknown (all). Written as the
  // planned_batches column when studies were planned to different lengths (a raced board).
  int planned_batches = 0;
};

struct ResultsTable {
  std::vector<ResultsRow> rows;
  bool has_generalization = false;
};

// InvalidArgument naming the line (1-based, the header is line 1) for: a missing header or
// required column, a wrong number of fields, a non-integer or negative trial/batch/suggestion,
// a value that is not a number or inf (NaN is refused: use inf for a crash), a repeated
// (problem, method, trial, batch, suggestion).
absl::StatusOr<ResultsTable> ParseResultsCsv(std::istream& in);

// Writes `table` in the format ParseResultsCsv reads: the header
// problem,method,trial,batch,suggestion,value (plus ,generalization when the table has it), then
// one line per row in the given order. Numbers are written exactly (%.17g; inf and -inf by
// name), so parsing the output gives the same table. Unavailable when the stream fails.
absl::Status WriteResultsCsv(std::ostream& out, const ResultsTable& table);

struct BuiltInput {
  ScoringInput input;
  // Ragged or incomplete data that was scored anyway.
  std::vector<std::string> warnings;
};

// Scoring input from a table: batch size and batch count from the largest indices, per trial
// the minimum of each batch (a missing batch is +inf, so the best so far carries forward), the
// random-search method's evaluations pooled per problem as the baseline, the random-search
// method also scored as a method. With `generalization`, the held-out column is scored at the
// visible argmin (Bayesmark). InvalidArgument: no rows of the random-search method, or a
// problem without random-search rows.
absl::StatusOr<BuiltInput> BuildScoringInput(const ResultsTable& table,
                                             const std::string& random_search_method,
                                             bool generalization);

}  // namespace bbo::scoring

#endif  // BBO_REPORT_RESULTS_CSV_H_
