#include "server/store/internal/sqlite_rows.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace bbo::store_internal {

const char* JobStateName(JobState s) {
  switch (s) {
    case JobState::kQueued:
      return "queued";
    case JobState::kLeased:
      return "leased";
    case JobState::kDone:
      return "done";
    case JobState::kFailed:
      return "failed";
  }
  return "queued";
}

JobState ParseJobState(const std::string& s) {
  if (s == "leased") return JobState::kLeased;
  if (s == "done") return JobState::kDone;
  if (s == "failed") return JobState::kFailed;
  return JobState::kQueued;
}

StudyState ParseStudyState(const std::string& s) {
  if (s == "completed") return StudyState::kCompleted;
  if (s == "cut_off") return StudyState::kCutOff;
  if (s == "failed") return StudyState::kFailed;
  if (s == "abandoned") return StudyState::kAbandoned;
  return StudyState::kRunning;
}

const char* BatchSourceName(BatchSource s) {
  switch (s) {
    case BatchSource::kOptimizer:
      return "optimizer";
    case BatchSource::kRandomFill:
      return "random_fill";
    case BatchSource::kBaseline:
      return "baseline";
  }
  return "optimizer";
}

double ValueOrInf(const sqlite::Statement& q, int col) {
  return q.IsNull(col) ? std::numeric_limits<double>::infinity() : q.Double(col);
}

std::string FigureColumns(const std::string& alias) {
  std::string out;
  for (const BatchFigure& f : kBatchFigures) {
    absl::StrAppend(&out, ", ", alias, alias.empty() ? "" : ".", f.name);
  }
  return out;
}

void BindFigures(sqlite::Statement& q, int first, const BatchFigures& figures) {
  for (size_t i = 0; i < kNumBatchFigures; ++i) {
    const std::optional<double>& v = figures.*kBatchFigures[i].value;
    const int at = first + static_cast<int>(i);
    if (v.has_value()) {
      q.Bind(at, *v);
    } else {
      q.BindNull(at);
    }
  }
}

BatchFigures ReadFigures(const sqlite::Statement& q, int first) {
  BatchFigures out;
  for (size_t i = 0; i < kNumBatchFigures; ++i) {
    const int at = first + static_cast<int>(i);
    if (!q.IsNull(at)) out.*kBatchFigures[i].value = q.Double(at);
  }
  return out;
}

JobRecord ReadJob(const sqlite::Statement& q) {
  JobRecord j;
  j.id = q.Int(0);
  j.submission_id = q.Int(1);
  j.problem = q.Text(2);
  j.trial = static_cast<int>(q.Int(3));
  j.seed = q.Int(4);
  j.state = ParseJobState(q.Text(5));
  j.worker_id = q.Text(6);
  j.lease_expires_at = q.Double(7);
  j.attempts = static_cast<int>(q.Int(8));
  j.board = q.Text(9);
  j.max_batches = static_cast<int>(q.Int(10));
  return j;
}

SubmissionRecord ReadSubmission(const sqlite::Statement& q) {
  SubmissionRecord s;
  s.id = q.Int(0);
  s.name = q.Text(1);
  s.kind = static_cast<SubmissionKind>(q.Int(2));
  s.digest = q.Text(3);
  s.trials = static_cast<int>(q.Int(4));
  s.is_baseline = q.Int(5) != 0;
  s.created_at = q.Double(6);
  s.team = q.Text(7);
  s.phase = q.Text(8);
  s.migrated_from = q.IsNull(9) ? 0 : q.Int(9);
  s.withdrawn = q.Text(10);
  s.hidden = q.Text(11);
  return s;
}

absl::StatusOr<std::vector<SubmissionRecord>> ReadSubmissions(sqlite::Statement& q) {
  std::vector<SubmissionRecord> out;
  RETURN_IF_ERROR(
      ForEachRow(q, [&](const sqlite::Statement& r) { out.push_back(ReadSubmission(r)); }));
  return out;
}

absl::StatusOr<int64_t> ScalarInt(sqlite::Statement& q) {
  ASSIGN_OR_RETURN(bool row, q.Step());
  int64_t v = row ? q.Int(0) : 0;
  q.Reset();
  return v;
}

absl::StatusOr<std::string> ScalarText(sqlite::Statement& q) {
  ASSIGN_OR_RETURN(bool row, q.Step());
  std::string v = row ? q.Text(0) : "";
  q.Reset();
  return v;
}

}  // namespace bbo::store_internal
