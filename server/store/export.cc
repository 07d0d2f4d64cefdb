#include "server/store/export.h"

#include <limits>

#include "common/status_macros.h"

namespace bbo {

scoring::ResultsTable ResultsTableOf(const std::vector<ScoredEvaluationRecord>& evaluations) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  scoring::ResultsTable table;
  table.has_generalization = true;
  table.rows.reserve(evaluations.size());
  for (const ScoredEvaluationRecord& e : evaluations) {
    scoring::ResultsRow r;
    r.problem = e.problem;
    r.method = e.method;
    r.trial = e.trial;
    r.planned_batches = e.planned_batches;
    if (e.has_evaluation) {
      r.batch = e.batch;
      r.suggestion = e.suggestion;
      r.value = e.value;
      r.generalization = e.generalization.value_or(e.value);
      r.figures = e.figures;
    } else {
      r.value = kInf;
      r.generalization = kInf;
    }
    table.rows.push_back(std::move(r));
  }
  return table;
}

absl::Status ExportResultsCsv(ScoringStore& store, std::ostream& out, const std::string& board) {
  ASSIGN_OR_RETURN(std::vector<ScoredEvaluationRecord> evaluations, store.ScoredEvaluations(board));
  return scoring::WriteResultsCsv(out, ResultsTableOf(evaluations));
}

}  // namespace bbo
