// InMemoryStore: the StudyStore and ScoringStore methods.

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "server/store/memory_store.h"

namespace bbo {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

absl::Status UnknownStudyError(int64_t study_id) {
  return absl::AlreadyExistsError(absl::StrCat("constraint failed: no study with id ", study_id));
}

}  // namespace

absl::StatusOr<int64_t> InMemoryStore::CreateStudy(const StudyRecord& s) {
  absl::MutexLock l(&mu_);
  if (s.job_id && !jobs_.count(*s.job_id)) {
    return absl::AlreadyExistsError(absl::StrCat("constraint failed: no job with id ", *s.job_id));
  }
  if (s.job_id) {
    if (const int64_t final_study = FinalStudyOf(*s.job_id); final_study != 0) {
      return absl::AlreadyExistsError(
          absl::StrCat("job ", *s.job_id, " already has its final study ", final_study));
    }
  }
  const int64_t id = studies_.empty() ? 1 : studies_.rbegin()->first + 1;
  Study& study = studies_[id];
  study.record = s;
  study.record.id = id;
  study.record.state = StudyState::kRunning;
  return id;
}

absl::StatusOr<StudyRecord> InMemoryStore::GetStudy(int64_t study_id) {
  absl::MutexLock l(&mu_);
  auto it = studies_.find(study_id);
  if (it == studies_.end()) {
    return absl::NotFoundError(absl::StrCat("no study with id ", study_id));
  }
  return it->second.record;
}

absl::Status InMemoryStore::RecordBatch(const BatchRecord& b) {
  absl::MutexLock l(&mu_);
  auto it = studies_.find(b.study_id);
  if (it == studies_.end()) return UnknownStudyError(b.study_id);
  Study& study = it->second;
  if (study.batches.count(b.batch)) {
    return absl::AlreadyExistsError(absl::StrCat("constraint failed: study ", b.study_id,
                                                 " has a batch ", b.batch, " already"));
  }
  Batch& batch = study.batches[b.batch];
  batch.source = b.source;
  batch.turn_time_s = b.turn_time_s;
  batch.host_suggest_time_s = b.host_suggest_time_s;
  batch.host_observe_time_s = b.host_observe_time_s;
  batch.figures = b.figures;
  batch.eval_time_s = b.eval_time_s;
  batch.evaluations = b.evaluations;
  for (EvaluationRecord& e : batch.evaluations) {
    e.value = StoredValue(e.value);
    if (e.generalization) e.generalization = StoredValue(*e.generalization);
  }
  for (const std::string& msg : b.errors) errors_.push_back({b.study_id, b.batch, "batch", msg});
  study.batches_done = b.batch + 1;
  study.optimizer_time_s = b.optimizer_time_s;
  study.best_value = StoredValue(b.best_value);
  return absl::OkStatus();
}

absl::Status InMemoryStore::RecordStudyError(const StudyErrorRecord& e) {
  absl::MutexLock l(&mu_);
  if (!studies_.count(e.study_id)) return UnknownStudyError(e.study_id);
  errors_.push_back(e);
  return absl::OkStatus();
}

absl::StatusOr<StudyState> InMemoryStore::EndStudy(int64_t study_id, StudyState state,
                                                   const std::string& reason, double ended_at,
                                                   double optimizer_time_s) {
  absl::MutexLock l(&mu_);
  auto it = studies_.find(study_id);
  if (it == studies_.end()) {
    return absl::NotFoundError(absl::StrCat("no study with id ", study_id));
  }
  Study& study = it->second;
  if (study.record.state != StudyState::kRunning) return study.record.state;
  study.record.state = state;
  study.end_reason = reason;
  study.ended_at = ended_at;
  study.optimizer_time_s = std::max(study.optimizer_time_s, optimizer_time_s);
  if (IsScoredState(state)) study.final_seq = ++last_final_seq_;
  return state;
}

absl::StatusOr<std::vector<StudyErrorRecord>> InMemoryStore::ListStudyErrors(int64_t study_id) {
  absl::MutexLock l(&mu_);
  std::vector<StudyErrorRecord> out;
  for (const StudyErrorRecord& e : errors_) {
    if (e.study_id == study_id) out.push_back(e);
  }
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, StudyErrorRecord>>>
InMemoryStore::ListSubmissionErrors(int64_t submission_id, int limit) {
  absl::MutexLock l(&mu_);
  std::vector<std::pair<std::string, StudyErrorRecord>> out;
  for (const StudyErrorRecord& e : errors_) {
    // A negative limit is no limit (SQLite's LIMIT -1).
    if (limit >= 0 && static_cast<int>(out.size()) >= limit) break;
    const Study& study = studies_.at(e.study_id);
    if (study.record.submission_id == submission_id) out.emplace_back(study.record.problem, e);
  }
  return out;
}

absl::StatusOr<std::vector<StudySummary>> InMemoryStore::ListSubmissionStudies(
    int64_t submission_id) {
  absl::MutexLock l(&mu_);
  std::vector<StudySummary> out;
  for (const auto& [id, study] : studies_) {
    const StudyRecord& r = study.record;
    if (r.submission_id != submission_id) continue;
    StudySummary s{id, r.job_id.value_or(0), r.problem, r.trial, r.board, r.state,
                   study.batches_done, r.budget.n_batches, study.end_reason};
    for (const auto& [index, batch] : study.batches) {
      int replaced = 0;
      for (const EvaluationRecord& e : batch.evaluations) replaced += e.replaced ? 1 : 0;
      s.replaced_points += replaced;
      if (batch.source == BatchSource::kRandomFill ||
          (replaced > 0 && replaced == static_cast<int>(batch.evaluations.size()))) {
        s.random_batches++;
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

absl::StatusOr<int> InMemoryStore::CountStudiesWithErrors(int64_t submission_id) {
  absl::MutexLock l(&mu_);
  std::set<int64_t> with_errors;
  for (const StudyErrorRecord& e : errors_) {
    const StudyRecord& s = studies_.at(e.study_id).record;
    if (s.submission_id == submission_id && IsScoredState(s.state)) {
      with_errors.insert(e.study_id);
    }
  }
  return static_cast<int>(with_errors.size());
}

absl::StatusOr<std::vector<std::vector<double>>> InMemoryStore::StudyValues(int64_t study_id) {
  absl::MutexLock l(&mu_);
  std::vector<std::vector<double>> out;
  auto it = studies_.find(study_id);
  if (it == studies_.end()) return out;
  for (const auto& [b, batch] : it->second.batches) {
    if (batch.evaluations.empty()) continue;
    if (out.size() <= static_cast<size_t>(b)) out.resize(b + 1);
    for (const EvaluationRecord& e : batch.evaluations) out[b].push_back(e.value);
  }
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
InMemoryStore::ProblemSignatures() {
  absl::MutexLock l(&mu_);
  std::set<std::pair<std::string, std::string>> out;
  for (const auto& [id, study] : studies_) {
    if (!study.record.problem_signature.empty()) {
      out.insert({study.record.problem, study.record.problem_signature});
    }
  }
  return std::vector<std::pair<std::string, std::string>>(out.begin(), out.end());
}

absl::StatusOr<std::vector<int64_t>> InMemoryStore::ListStudyIds() {
  absl::MutexLock l(&mu_);
  std::vector<int64_t> out;
  for (const auto& [id, study] : studies_) out.push_back(id);
  return out;
}

absl::StatusOr<std::vector<std::pair<int, EvaluationRecord>>> InMemoryStore::StudyEvaluations(
    int64_t study_id) {
  absl::MutexLock l(&mu_);
  std::vector<std::pair<int, EvaluationRecord>> out;
  auto it = studies_.find(study_id);
  if (it == studies_.end()) return out;
  for (const auto& [b, batch] : it->second.batches) {
    for (EvaluationRecord e : batch.evaluations) {
      e.suggested_json.clear();  // not read back (as SqliteStore)
      out.push_back({b, std::move(e)});
    }
  }
  return out;
}

// --- scoring

std::vector<std::pair<const InMemoryStore::Study*, const InMemoryStore::Submission*>>
InMemoryStore::ScoredStudies(const std::string& board) {
  // The latest scored study of each job.
  std::map<int64_t, int64_t> latest;
  for (const auto& [id, study] : studies_) {
    if (study.record.job_id && IsScoredState(study.record.state)) latest[*study.record.job_id] = id;
  }
  std::vector<std::pair<const Study*, const Submission*>> out;
  for (const auto& [id, study] : studies_) {
    auto sub = submissions_.find(study.record.submission_id);
    if (sub == submissions_.end()) continue;
    const bool scored = sub->second.record.is_baseline
                            ? study.record.state == StudyState::kCompleted &&
                                  study.record.board == MainBoardKey(PhaseKeyOfBoard(board))
                            : sub->second.record.on_board() && study.record.board == board &&
                                  study.record.job_id &&
                                  latest.count(*study.record.job_id) &&
                                  latest[*study.record.job_id] == id;
    if (scored) out.emplace_back(&study, &sub->second);
  }
  return out;
}

absl::StatusOr<ScoringData> InMemoryStore::LoadScoringData(const std::vector<std::string>& problems,
                                                           const std::string& board) {
  absl::MutexLock l(&mu_);
  std::vector<std::pair<const Study*, const Submission*>> scored = ScoredStudies(board);
  // Methods by (name, problem, study id); the baseline by (submission, problem, study id).
  std::vector<std::pair<const Study*, const Submission*>> methods, baseline;
  for (const auto& entry : scored)
    (entry.second->record.is_baseline ? baseline : methods).push_back(entry);
  std::stable_sort(methods.begin(), methods.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second->record.name, a.first->record.problem) <
           std::tie(b.second->record.name, b.first->record.problem);
  });
  std::stable_sort(baseline.begin(), baseline.end(), [](const auto& a, const auto& b) {
    return a.second->record.id < b.second->record.id;
  });
  ScoringData data;
  std::vector<std::optional<std::string>> filters;
  if (problems.empty()) filters.push_back(std::nullopt);
  for (const std::string& p : problems) filters.push_back(p);
  for (const auto& filter : filters) {
    for (const auto& [study, sub] : methods) {
      if (filter && study->record.problem != *filter) continue;
      StudyCurve curve{study->record.id, study->record.trial, {}, {}, {}};
      curve.planned_batches = study->record.budget.n_batches;
      double optimizer_s = 0;  // as SqliteStore sums it: batches with evaluations, in order
      for (const auto& [b, batch] : study->batches) {
        if (batch.evaluations.empty()) continue;
        double m = kInf;
        for (const EvaluationRecord& e : batch.evaluations) m = std::min(m, e.value);
        if (curve.batch_min.size() <= static_cast<size_t>(b)) {
          curve.batch_min.resize(b + 1, kInf);
          curve.batch_end_seconds.resize(b + 1, optimizer_s);
          curve.batch_figures.resize(b + 1);
        }
        curve.batch_min[b] = m;
        optimizer_s += batch.turn_time_s;
        curve.batch_end_seconds[b] = optimizer_s;
        curve.batch_figures[b] = batch.figures;
      }
      data.methods[sub->record.name][study->record.problem].push_back(std::move(curve));
    }
    for (const auto& [study, sub] : baseline) {
      if (filter && study->record.problem != *filter) continue;
      for (const auto& [b, batch] : study->batches) {
        for (const EvaluationRecord& e : batch.evaluations) {
          data.baseline_evals[study->record.problem].push_back(e.value);
        }
      }
    }
  }
  return data;
}

void InMemoryStore::MarkScoringChangedLocked(int64_t submission_id) {
  std::map<std::string, Study*> per_problem;  // the latest final study of each problem
  for (auto& [id, study] : studies_) {
    if (study.record.submission_id == submission_id && study.final_seq > 0) {
      per_problem[study.record.problem] = &study;
    }
  }
  if (per_problem.empty()) return;
  ++last_final_seq_;
  for (auto& [problem, study] : per_problem) study->final_seq = last_final_seq_;
}

absl::StatusOr<ScoringChanges> InMemoryStore::ScoringChangesSince(int64_t after_seq) {
  absl::MutexLock l(&mu_);
  ScoringChanges out;
  out.seq = last_final_seq_;
  if (out.seq <= after_seq) return out;
  std::set<std::string> problems;
  for (const auto& [id, study] : studies_) {
    if (study.final_seq > after_seq) problems.insert(study.record.problem);
  }
  out.problems.assign(problems.begin(), problems.end());
  return out;
}

absl::StatusOr<std::vector<ScoredEvaluationRecord>> InMemoryStore::ScoredEvaluations(
    const std::string& board) {
  absl::MutexLock l(&mu_);
  // Rows with the study id as the last sort key.
  std::vector<std::pair<ScoredEvaluationRecord, int64_t>> rows;
  for (const auto& [study, sub] : ScoredStudies(board)) {
    ScoredEvaluationRecord r;
    r.problem = study->record.problem;
    r.method = sub->record.name;
    r.trial = study->record.trial;
    r.planned_batches = study->record.budget.n_batches;
    r.has_evaluation = false;
    bool any = false;
    for (const auto& [b, batch] : study->batches) {
      for (size_t i = 0; i < batch.evaluations.size(); ++i) {
        ScoredEvaluationRecord e = r;
        e.has_evaluation = true;
        e.batch = b;
        e.suggestion = static_cast<int>(i);
        e.value = batch.evaluations[i].value;
        e.generalization = batch.evaluations[i].generalization;
        e.figures = batch.figures;
        rows.push_back({std::move(e), study->record.id});
        any = true;
      }
    }
    if (!any) rows.push_back({r, study->record.id});
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    const ScoredEvaluationRecord &x = a.first, &y = b.first;
    return std::tie(x.problem, x.method, x.trial, x.has_evaluation, x.batch, x.suggestion,
                    a.second) < std::tie(y.problem, y.method, y.trial, y.has_evaluation, y.batch,
                                         y.suggestion, b.second);
  });
  std::vector<ScoredEvaluationRecord> out;
  for (auto& row : rows) out.push_back(std::move(row.first));
  return out;
}

}  // namespace bbo
