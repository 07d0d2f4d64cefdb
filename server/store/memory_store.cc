#include "server/store/memory_store.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/store/internal/job_plan.h"

namespace bbo {
namespace {

// The next id of a table whose ids are 1, 2, ... (SQLite's rowid: the largest id + 1).
template <typename Map>
int64_t NextId(const Map& m) {
  return m.empty() ? 1 : m.rbegin()->first + 1;
}

absl::Status ReferenceError(absl::string_view what) {
  return absl::AlreadyExistsError(absl::StrCat("constraint failed: ", what));
}

// A job leaves its lease: its worker and lease are cleared.
void Unlease(JobRecord& job, JobState next) {
  job.state = next;
  job.worker_id.clear();
  job.lease_expires_at = 0;
}

}  // namespace

// --- submissions

absl::StatusOr<int64_t> InMemoryStore::AddSubmission(const SubmissionRecord& s,
                                                     const std::string& archive,
                                                     const std::vector<std::string>& problems,
                                                     int64_t seed_base,
                                                     const std::vector<std::string>& boards) {
  if (boards.empty()) return absl::InvalidArgumentError("a submission needs at least one board");
  absl::MutexLock l(&mu_);
  for (const auto& [id, sub] : submissions_) {
    if (sub.record.name == s.name && sub.record.phase == s.phase) {
      return absl::AlreadyExistsError(
          absl::StrCat("a submission named \"", s.name, "\" already exists",
                       s.phase.empty() ? "" : absl::StrCat(" in phase \"", s.phase, "\""),
                       "; choose another name"));
    }
  }
  std::set<std::tuple<std::string, int, std::string>> seen;
  for (const auto& j : store_internal::PlanJobs(NextId(submissions_), s.trials, problems,
                                                seed_base, boards)) {
    if (!seen.insert({j.problem, j.trial, j.board}).second) {
      return ReferenceError("a job repeats (submission, problem, trial, board)");
    }
  }
  return InsertSubmissionLocked(s, archive, problems, seed_base, boards);
}

int64_t InMemoryStore::InsertSubmissionLocked(const SubmissionRecord& s,
                                              const std::string& archive,
                                              const std::vector<std::string>& problems,
                                              int64_t seed_base,
                                              const std::vector<std::string>& boards) {
  const int64_t id = NextId(submissions_);
  std::vector<store_internal::PlannedJob> plan =
      store_internal::PlanJobs(id, s.trials, problems, seed_base, boards);
  Submission& sub = submissions_[id];
  sub.record = s;
  sub.record.id = id;
  sub.archive = archive;
  for (const auto& j : plan) {
    const int64_t job_id = NextId(jobs_);
    Job& job = jobs_[job_id];
    job.record.id = job_id;
    job.record.submission_id = id;
    job.record.problem = j.problem;
    job.record.trial = j.trial;
    job.record.seed = j.seed;
    job.record.board = j.board;
    job.builtin = s.kind == SubmissionKind::kBuiltin;
  }
  return id;
}

absl::StatusOr<SubmissionRecord> InMemoryStore::GetSubmission(int64_t id) {
  absl::MutexLock l(&mu_);
  auto it = submissions_.find(id);
  if (it == submissions_.end()) {
    return absl::NotFoundError(absl::StrCat("no submission with id ", id));
  }
  return it->second.record;
}

absl::StatusOr<std::optional<SubmissionRecord>> InMemoryStore::FindSubmission(
    const std::string& name, const std::string& phase) {
  absl::MutexLock l(&mu_);
  for (const auto& [id, sub] : submissions_) {
    if (sub.record.name == name && sub.record.phase == phase) return std::optional<SubmissionRecord>(sub.record);
  }
  return std::optional<SubmissionRecord>();
}

absl::StatusOr<std::string> InMemoryStore::GetSubmissionArchive(int64_t id) {
  absl::MutexLock l(&mu_);
  auto it = submissions_.find(id);
  if (it == submissions_.end()) {
    return absl::NotFoundError(absl::StrCat("no submission with id ", id));
  }
  return it->second.archive;
}

std::vector<SubmissionRecord> InMemoryStore::SubmissionsWhere(bool (*keep)(const SubmissionRecord&,
                                                                           const std::string&),
                                                              const std::string& arg) {
  std::vector<SubmissionRecord> out;
  for (const auto& [id, sub] : submissions_) {
    if (keep(sub.record, arg)) out.push_back(sub.record);
  }
  return out;
}

absl::StatusOr<std::vector<SubmissionRecord>> InMemoryStore::ListSubmissions() {
  absl::MutexLock l(&mu_);
  return SubmissionsWhere([](const SubmissionRecord&, const std::string&) { return true; }, "");
}

absl::StatusOr<std::vector<SubmissionRecord>> InMemoryStore::FindSubmissionsByDigest(
    const std::string& digest) {
  absl::MutexLock l(&mu_);
  return SubmissionsWhere([](const SubmissionRecord& s,
                             const std::string& d) { return s.digest == d && !s.is_baseline; },
                          digest);
}

absl::StatusOr<int> InMemoryStore::CountChargedSubmissions(const std::string& team,
                                                           double created_since,
                                                           const std::string& phase) {
  absl::MutexLock l(&mu_);
  // Submissions with a job that has not failed, or with a scored study.
  std::set<int64_t> charged, with_jobs;
  for (const auto& [id, job] : jobs_) {
    with_jobs.insert(job.record.submission_id);
    if (job.record.state != JobState::kFailed) charged.insert(job.record.submission_id);
  }
  for (const auto& [id, study] : studies_) {
    if (IsScoredState(study.record.state)) charged.insert(study.record.submission_id);
  }
  int n = 0;
  for (const auto& [id, sub] : submissions_) {
    n += sub.record.team == team && sub.record.created_at >= created_since &&
         sub.record.phase == phase &&
         (charged.count(id) > 0 || with_jobs.count(id) == 0);
  }
  return n;
}

// --- jobs

absl::StatusOr<std::optional<JobRecord>> InMemoryStore::LeaseLocked(
    bool builtin, const std::string& owner, double lease_expires_at,
    const std::vector<int64_t>& skip) {
  for (auto& [id, job] : jobs_) {
    if (job.builtin != builtin || job.record.state != JobState::kQueued) continue;
    if (std::find(skip.begin(), skip.end(), id) != skip.end()) continue;
    job.record.state = JobState::kLeased;
    job.record.worker_id = owner;
    job.record.lease_expires_at = lease_expires_at;
    job.record.attempts++;
    return std::optional<JobRecord>(job.record);
  }
  return std::optional<JobRecord>();
}

absl::StatusOr<std::optional<JobRecord>> InMemoryStore::LeaseJob(
    const std::string& worker_id, double lease_expires_at, const std::vector<int64_t>& skip) {
  absl::MutexLock l(&mu_);
  return LeaseLocked(false, worker_id, lease_expires_at, skip);
}

absl::Status InMemoryStore::ReleaseLease(int64_t job_id, const std::string& worker_id) {
  absl::MutexLock l(&mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return absl::NotFoundError(absl::StrCat("no job with id ", job_id));
  Job& job = it->second;
  if (job.record.state != JobState::kLeased || job.record.worker_id != worker_id) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job_id, " is not leased by worker ", worker_id));
  }
  Unlease(job.record, FinalStudyOf(job_id) != 0 ? JobState::kDone : JobState::kQueued);
  job.record.attempts = std::max(0, job.record.attempts - 1);
  AbandonStudiesOfJob(job_id, "lease released by the coordinator", std::nullopt);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<JobRecord>> InMemoryStore::LeaseBuiltinJob(const std::string& owner,
                                                                        double lease_expires_at) {
  absl::MutexLock l(&mu_);
  return LeaseLocked(true, owner, lease_expires_at);
}

absl::StatusOr<JobRecord> InMemoryStore::GetJob(int64_t job_id) {
  absl::MutexLock l(&mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return absl::NotFoundError(absl::StrCat("no job with id ", job_id));
  return it->second.record;
}

absl::Status InMemoryStore::RenewLeases(const std::string& worker_id, double lease_expires_at) {
  absl::MutexLock l(&mu_);
  for (auto& [id, job] : jobs_) {
    if (job.record.state == JobState::kLeased && job.record.worker_id == worker_id) {
      job.record.lease_expires_at = lease_expires_at;
    }
  }
  return absl::OkStatus();
}

int64_t InMemoryStore::FinalStudyOf(int64_t job_id) const {
  for (const auto& [id, study] : studies_) {
    if (study.record.job_id == job_id && IsScoredState(study.record.state)) return id;
  }
  return 0;
}

void InMemoryStore::AbandonStudiesOfJob(int64_t job_id, const std::string& reason,
                                        std::optional<double> ended_at) {
  for (auto& [id, study] : studies_) {
    if (study.record.job_id != job_id || study.record.state != StudyState::kRunning) continue;
    study.record.state = StudyState::kAbandoned;
    study.end_reason = reason;
    if (ended_at) study.ended_at = *ended_at;
  }
}

absl::StatusOr<std::vector<int64_t>> InMemoryStore::ExpireLeases(double now, int max_attempts) {
  absl::MutexLock l(&mu_);
  std::vector<int64_t> requeued;
  for (auto& [id, job] : jobs_) {
    if (job.record.state != JobState::kLeased || !(job.record.lease_expires_at < now)) continue;
    if (FinalStudyOf(id) != 0) {
      Unlease(job.record, JobState::kDone);
      continue;
    }
    const std::string withdrawn = WithdrawnLocked(job.record.submission_id);
    const bool retry = job.record.attempts < max_attempts && withdrawn.empty();
    Unlease(job.record, retry ? JobState::kQueued : JobState::kFailed);
    job.last_error = withdrawn.empty() ? "lease expired" : withdrawn;
    AbandonStudiesOfJob(id, "worker lease expired", now);
    if (retry) requeued.push_back(id);
  }
  return requeued;
}

absl::Status InMemoryStore::FinishJob(int64_t job_id, const std::string& worker_id,
                                      const std::string& error, int max_attempts) {
  absl::MutexLock l(&mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return absl::NotFoundError(absl::StrCat("no job with id ", job_id));
  Job& job = it->second;
  if (job.record.state != JobState::kLeased || job.record.worker_id != worker_id) {
    return absl::FailedPreconditionError(absl::StrCat("job ", job_id, " is not leased by worker ",
                                                      worker_id, " (its lease expired?)"));
  }
  const bool retry =
      job.record.attempts < max_attempts && WithdrawnLocked(job.record.submission_id).empty();
  const JobState next = error.empty() || FinalStudyOf(job_id) != 0 ? JobState::kDone
                        : retry                                     ? JobState::kQueued
                                                                    : JobState::kFailed;
  Unlease(job.record, next);
  const std::string withdrawn = WithdrawnLocked(job.record.submission_id);
  // A job of a withdrawn submission that ends without its study is withdrawn, not lost.
  job.last_error = next == JobState::kFailed && !withdrawn.empty() ? withdrawn : error;
  // Like SqliteStore: the reason is recorded, the end time is not.
  if (!error.empty()) AbandonStudiesOfJob(job_id, error, std::nullopt);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<FailedJob>> InMemoryStore::ListFailedJobs() {
  absl::MutexLock l(&mu_);
  std::vector<FailedJob> out;
  for (const auto& [id, job] : jobs_) {
    if (job.record.state != JobState::kFailed) continue;
    auto sub = submissions_.find(job.record.submission_id);
    out.push_back(
        {job.record, sub != submissions_.end() ? sub->second.record.name : "", job.last_error});
  }
  return out;
}

absl::Status InMemoryStore::RequeueFailedJob(int64_t job_id) {
  absl::MutexLock l(&mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return absl::NotFoundError(absl::StrCat("no job with id ", job_id));
  if (it->second.record.state != JobState::kFailed) {
    return absl::FailedPreconditionError(absl::StrCat("job ", job_id, " has not failed"));
  }
  const std::string withdrawn = WithdrawnLocked(it->second.record.submission_id);
  if (!withdrawn.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job ", job_id, " belongs to submission ", it->second.record.submission_id, ", ",
        withdrawn, ": the jobs of a withdrawn submission stay withdrawn (its team may submit "
        "again)"));
  }
  it->second.record.state = JobState::kQueued;
  it->second.record.attempts = 0;
  return absl::OkStatus();
}

std::string InMemoryStore::WithdrawnLocked(int64_t submission_id) const {
  auto it = submissions_.find(submission_id);
  return it == submissions_.end() ? "" : it->second.record.withdrawn;
}

absl::StatusOr<bool> InMemoryStore::SetHidden(int64_t submission_id, const std::string& reason) {
  absl::MutexLock l(&mu_);
  auto it = submissions_.find(submission_id);
  if (it == submissions_.end() || it->second.record.is_baseline) {
    return absl::NotFoundError(absl::StrCat("no submission with id ", submission_id));
  }
  if (it->second.record.hidden == reason) return false;
  it->second.record.hidden = reason;
  MarkScoringChangedLocked(submission_id);
  return true;
}

absl::StatusOr<int64_t> InMemoryStore::BeginEpoch(double) {
  absl::MutexLock l(&mu_);
  return ++epoch_;
}

absl::StatusOr<RecoveryCounts> InMemoryStore::RecoverAfterRestart(double now) {
  absl::MutexLock l(&mu_);
  RecoveryCounts out;
  for (auto& [id, study] : studies_) {
    if (study.record.state != StudyState::kRunning) continue;
    study.record.state = StudyState::kAbandoned;
    study.end_reason = "coordinator restarted";
    study.ended_at = now;
    ++out.studies_abandoned;
  }
  for (auto& [id, job] : jobs_) {
    if (job.record.state != JobState::kLeased) continue;
    if (FinalStudyOf(id) != 0) {
      Unlease(job.record, JobState::kDone);
      ++out.jobs_done;
    } else if (const std::string w = WithdrawnLocked(job.record.submission_id); !w.empty()) {
      Unlease(job.record, JobState::kFailed);  // never queued again
      job.last_error = w;
    } else {
      Unlease(job.record, JobState::kQueued);
      job.record.attempts = std::max(job.record.attempts - 1, 0);
      job.last_error = "coordinator restarted";
      ++out.jobs_requeued;
    }
  }
  return out;
}

absl::StatusOr<int> InMemoryStore::CancelQueuedJobs(int64_t submission_id,
                                                    const std::string& reason) {
  absl::MutexLock l(&mu_);
  int n = 0;
  for (auto& [id, job] : jobs_) {
    if (job.record.submission_id == submission_id && job.record.state == JobState::kQueued) {
      job.record.state = JobState::kFailed;
      job.last_error = reason;
      ++n;
    }
  }
  auto sub = submissions_.find(submission_id);
  if (sub != submissions_.end() && sub->second.record.withdrawn.empty()) {
    sub->second.record.withdrawn = reason;
  }
  return n;
}

absl::StatusOr<int> InMemoryStore::CountLeases(const std::string& worker_id) {
  absl::MutexLock l(&mu_);
  int n = 0;
  for (const auto& [id, job] : jobs_) {
    n += job.record.state == JobState::kLeased && job.record.worker_id == worker_id;
  }
  return n;
}

absl::StatusOr<JobCounts> InMemoryStore::CountJobs(int64_t submission_id) {
  absl::MutexLock l(&mu_);
  JobCounts c;
  for (const auto& [id, job] : jobs_) {
    if (job.record.submission_id != submission_id) continue;
    c.total++;
    switch (job.record.state) {
      case JobState::kQueued:
        c.queued++;
        break;
      case JobState::kLeased:
        c.leased++;
        break;
      case JobState::kDone:
        c.done++;
        break;
      case JobState::kFailed:
        c.failed++;
        if (absl::StartsWith(job.last_error, "withdrawn")) c.withdrawn++;
        break;
    }
  }
  return c;
}

absl::StatusOr<std::vector<std::string>> InMemoryStore::ListBoards() {
  absl::MutexLock l(&mu_);
  std::set<std::string> boards;
  for (const auto& [id, job] : jobs_) boards.insert(job.record.board);
  return std::vector<std::string>(boards.begin(), boards.end());
}

// --- workers

absl::Status InMemoryStore::RegisterWorker(const std::string& worker_id,
                                           const std::string& hostname, int slots, double now) {
  absl::MutexLock l(&mu_);
  if (workers_.count(worker_id)) {
    return absl::AlreadyExistsError(absl::StrCat("worker ", worker_id, " is registered already"));
  }
  workers_[worker_id] = Worker{hostname, slots, now, now};
  return absl::OkStatus();
}

absl::Status InMemoryStore::TouchWorker(const std::string& worker_id, double now) {
  absl::MutexLock l(&mu_);
  auto it = workers_.find(worker_id);
  if (it == workers_.end()) {
    return absl::NotFoundError(absl::StrCat("unknown worker ", worker_id, "; register again"));
  }
  it->second.last_heartbeat = now;
  return absl::OkStatus();
}

}  // namespace bbo
