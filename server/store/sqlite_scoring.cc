// SqliteStore: the ScoringStore methods.

#include <limits>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/store/internal/sqlite_rows.h"
#include "server/store/sqlite_store.h"

namespace bbo {

using store_internal::FigureColumns;
using store_internal::ForEachRow;
using store_internal::ReadFigures;
using store_internal::ScalarInt;
using store_internal::ValueOrInf;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Both queries below end with the study's planned batches, after the figures from column 7.
constexpr int kPlannedBatchesColumn = 7 + static_cast<int>(kNumBatchFigures);

// Batch minima of the latest finished study of every job of non-baseline submissions; columns
// 7, 8, ...: the batch's figures; then the study's planned batches. ?1 = a problem (NULL: every
// one), ?2 = the board.
const char* CurvesSql() {
  static const std::string* const kSql = new std::string(absl::StrCat(
      "SELECT sub.name, s.problem, s.id, s.trial, e.batch, MIN(e.value), bt.turn_time_s",
      FigureColumns("bt"), R"sql(, s.n_batches
FROM studies s
JOIN submissions sub ON sub.id = s.submission_id
LEFT JOIN evaluations e ON e.study_id = s.id
LEFT JOIN batches bt ON bt.study_id = s.id AND bt.batch = e.batch
WHERE sub.is_baseline = 0 AND sub.hidden = ''
  AND (?1 IS NULL OR s.problem = ?1)
  AND s.board = ?2
  AND s.state IN ('completed', 'cut_off', 'failed')
  AND s.id = (SELECT MAX(s2.id) FROM studies s2
              WHERE s2.job_id = s.job_id AND s2.state IN ('completed', 'cut_off', 'failed'))
GROUP BY s.id, e.batch
ORDER BY sub.name, s.problem, s.id, e.batch)sql"));
  return kSql->c_str();
}

}  // namespace

absl::StatusOr<ScoringData> SqliteStore::LoadScoringData(const std::vector<std::string>& problems,
                                                         const std::string& board) {
  absl::MutexLock l(&mu_);
  ScoringData data;
  // With a filter, the same statements run once per problem (?1 = the problem; unfiltered,
  // ?1 IS NULL matches everything).
  std::vector<std::optional<std::string>> filters;
  if (problems.empty()) {
    filters.push_back(std::nullopt);
  } else {
    for (const std::string& p : problems) filters.push_back(p);
  }
  // Batch minima of the latest finished study of every job of non-baseline submissions.
  ASSIGN_OR_RETURN(auto* q, Stmt(CurvesSql()));
  // The order is the one SQLite's plan gave before it was spelled out (studies_by_submission).
  ASSIGN_OR_RETURN(auto* b, Stmt(R"sql(
SELECT s.problem, e.value FROM evaluations e
JOIN studies s ON s.id = e.study_id
JOIN submissions sub ON sub.id = s.submission_id
WHERE sub.is_baseline = 1 AND s.state = 'completed' AND (?1 IS NULL OR s.problem = ?1)
  AND s.board = ?2
ORDER BY s.submission_id, s.problem, s.id, e.batch, e.idx)sql"));
  for (const auto& filter : filters) {
    if (filter) {
      q->Bind(1, *filter);
      b->Bind(1, *filter);
    } else {
      q->BindNull(1);
      b->BindNull(1);
    }
    q->Bind(2, board);
    // The baseline runs on its phase's main board and serves every board of the phase.
    b->Bind(2, MainBoardKey(PhaseKeyOfBoard(board)));
    // Curves are appended in study order, so the current study's curve is the last one.
    int64_t current_study = 0;
    StudyCurve* curve = nullptr;
    // Rows come in batch order, so the running sum of turn times is the optimizer's time.
    double optimizer_s = 0;
    RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) {
      const int64_t study_id = r.Int(2);
      if (curve == nullptr || study_id != current_study) {
        auto& v = data.methods[r.Text(0)][r.Text(1)];
        v.push_back(StudyCurve{study_id, static_cast<int>(r.Int(3)), {}, {}, {}});
        curve = &v.back();
        curve->planned_batches = static_cast<int>(r.Int(kPlannedBatchesColumn));
        current_study = study_id;
        optimizer_s = 0;
      }
      if (!r.IsNull(4)) {
        size_t bt = static_cast<size_t>(r.Int(4));
        if (curve->batch_min.size() <= bt) {
          curve->batch_min.resize(bt + 1, kInf);
          curve->batch_end_seconds.resize(bt + 1, optimizer_s);
          curve->batch_figures.resize(bt + 1);
        }
        curve->batch_min[bt] = ValueOrInf(r, 5);
        if (!r.IsNull(6)) optimizer_s += r.Double(6);
        curve->batch_end_seconds[bt] = optimizer_s;
        curve->batch_figures[bt] = ReadFigures(r, 7);
      }
    }));
    RETURN_IF_ERROR(ForEachRow(*b, [&](const sqlite::Statement& r) {
      data.baseline_evals[r.Text(0)].push_back(ValueOrInf(r, 1));
    }));
  }
  return data;
}

absl::StatusOr<ScoringChanges> SqliteStore::ScoringChangesSince(int64_t after_seq) {
  absl::MutexLock l(&mu_);
  ScoringChanges out;
  ASSIGN_OR_RETURN(auto* m, Stmt("SELECT COALESCE(MAX(final_seq), 0) FROM studies"));
  ASSIGN_OR_RETURN(out.seq, ScalarInt(*m));
  if (out.seq <= after_seq) return out;
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT DISTINCT problem FROM studies WHERE final_seq > ?"
                                 " ORDER BY problem"));
  q->Bind(1, after_seq);
  RETURN_IF_ERROR(
      ForEachRow(*q, [&](const sqlite::Statement& r) { out.problems.push_back(r.Text(0)); }));
  return out;
}

absl::Status SqliteStore::MarkScoringChanged(int64_t submission_id) {
  // One final study per problem is enough: ScoringChangesSince reports problems.
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE studies SET final_seq ="
                                 " (SELECT MAX(final_seq) FROM studies) + 1 WHERE id IN"
                                 " (SELECT MAX(id) FROM studies WHERE submission_id = ? AND"
                                 " final_seq IS NOT NULL GROUP BY problem)"));
  u->Bind(1, submission_id);
  return u->Run();
}

absl::StatusOr<std::vector<ScoredEvaluationRecord>> SqliteStore::ScoredEvaluations(
    const std::string& board) {
  absl::MutexLock l(&mu_);
  // The same studies LoadScoringData scores: the latest finished study of each job (for the
  // baseline: its completed studies).
  // Columns 7, 8, ...: the figures of the evaluation's batch; then the study's planned batches.
  static const std::string* const kRows = new std::string(
      absl::StrCat("SELECT s.problem, sub.name, s.trial, e.batch, e.idx, e.value, e.generalization",
                   FigureColumns("bt"), R"sql(, s.n_batches
FROM studies s
JOIN submissions sub ON sub.id = s.submission_id
LEFT JOIN evaluations e ON e.study_id = s.id
LEFT JOIN batches bt ON bt.study_id = s.id AND bt.batch = e.batch
WHERE ((sub.is_baseline = 0 AND sub.hidden = '' AND s.board = ?1 AND s.state IN ('completed', 'cut_off', 'failed')
        AND s.id = (SELECT MAX(s2.id) FROM studies s2
                    WHERE s2.job_id = s.job_id AND s2.state IN ('completed', 'cut_off', 'failed')))
       OR (sub.is_baseline = 1 AND s.state = 'completed' AND s.board = ?2))
ORDER BY s.problem, sub.name, s.trial, e.batch, e.idx, s.id)sql"));
  ASSIGN_OR_RETURN(auto* q, Stmt(kRows->c_str()));
  q->Bind(1, board).Bind(2, MainBoardKey(PhaseKeyOfBoard(board)));
  std::vector<ScoredEvaluationRecord> out;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) {
    ScoredEvaluationRecord e;
    e.problem = r.Text(0);
    e.method = r.Text(1);
    e.trial = static_cast<int>(r.Int(2));
    e.planned_batches = static_cast<int>(r.Int(kPlannedBatchesColumn));
    e.has_evaluation = !r.IsNull(3);
    if (e.has_evaluation) {
      e.batch = static_cast<int>(r.Int(3));
      e.suggestion = static_cast<int>(r.Int(4));
      e.value = ValueOrInf(r, 5);
      if (!r.IsNull(6)) e.generalization = r.Double(6);
      e.figures = ReadFigures(r, 7);
    }
    out.push_back(std::move(e));
  }));
  return out;
}

}  // namespace bbo
