#include "server/job_queue.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "common/status_macros.h"
#include "common/utf8.h"
#include "server/submission_state.h"
#include "spdlog/spdlog.h"

namespace bbo {

namespace {

// The answer to a worker id that is unknown or not the caller's: the same either way.
absl::Status UnknownWorker(const std::string& worker_id) {
  return absl::NotFoundError(
      absl::StrCat("unknown worker ", worker_id.substr(0, 64), "; register again"));
}

}  // namespace

absl::StatusOr<WorkerRegistration> JobQueue::RegisterWorker(const Identity& who,
                                                            const std::string& hostname,
                                                            int slots) {
  RETURN_IF_ERROR(access_.RequireWorker(who));
  if (hostname.size() > 255) {
    return absl::InvalidArgumentError(
        absl::StrCat("hostname: at most 255 bytes, got ", hostname.size()));
  }
  if (slots < 0 || slots > 64) {
    return absl::InvalidArgumentError(absl::StrCat("slots: 1 to 64, got ", slots));
  }
  RETURN_IF_ERROR(CheckRegistrations(who));
  std::random_device rd;
  WorkerRegistration reg;
  reg.worker_id = absl::StrFormat("w-%08x%08x", rd(), rd());
  reg.lease_ttl_s = options_.lease_ttl_s;
  reg.heartbeat_interval_s = options_.heartbeat_interval_s;
  reg.epoch = options_.epoch;
  RETURN_IF_ERROR(workers_->RegisterWorker(reg.worker_id, hostname, slots < 1 ? 1 : slots,
                                           clock_->NowSeconds()));
  absl::MutexLock l(&owners_mu_);
  owners_[reg.worker_id] = who.Describe();
  seen_[reg.worker_id] = {absl::Now(), slots < 1 ? 1 : slots};
  return reg;
}

absl::Status JobQueue::CheckRegistrations(const Identity& who) {
  const std::string owner = who.Describe();
  const absl::Time now = absl::Now();
  const absl::Duration live = absl::Seconds(2 * options_.lease_ttl_s);
  absl::MutexLock l(&owners_mu_);
  // Workers not heard from for ten lease times are gone: forgotten (one that comes back is told
  // NotFound and registers again).
  for (auto it = seen_.begin(); it != seen_.end();) {
    if (now - it->second.at > 5 * live) {
      owners_.erase(it->first);
      it = seen_.erase(it);
    } else {
      ++it;
    }
  }
  int registered = 0;
  for (const auto& [id, o] : owners_) {
    auto s = seen_.find(id);
    if (o == owner && s != seen_.end() && now - s->second.at <= live) ++registered;
  }
  if (registered >= kMaxLiveWorkersPerToken) {
    return absl::ResourceExhaustedError(absl::StrCat(
        owner, " has ", registered, " live workers registered, the most one token may have; "
        "give each worker host a token of its own (bbo admin worker add NAME)"));
  }
  return absl::OkStatus();
}

absl::Status JobQueue::CheckSlots(const std::string& worker_id) {
  int slots = 1;
  {
    absl::MutexLock l(&owners_mu_);
    auto it = seen_.find(worker_id);
    if (it != seen_.end()) slots = it->second.slots;
  }
  ASSIGN_OR_RETURN(const int held, jobs_->CountLeases(worker_id));
  if (held < slots) return absl::OkStatus();
  // ResourceExhausted: it frees with time (a worker retries after a back-off).
  return absl::ResourceExhaustedError(absl::StrCat(
      "worker ", worker_id, " holds ", held, " lease(s) and registered ", slots,
      " slot(s): finish or hand back a job before leasing another"));
}

void JobQueue::Seen(const std::string& worker_id, int slots) {
  absl::MutexLock l(&owners_mu_);
  WorkerSeen& w = seen_[worker_id];
  w.at = absl::Now();
  if (slots > 0) w.slots = slots;
}

JobQueue::Connected JobQueue::ConnectedWorkers() const {
  const absl::Time since = absl::Now() - absl::Seconds(options_.lease_ttl_s);
  absl::MutexLock l(&owners_mu_);
  Connected out;
  for (const auto& [id, w] : seen_) {
    if (w.at < since) continue;
    out.workers++;
    out.slots += w.slots;
  }
  return out;
}

double JobQueue::MeanJobSeconds() const {
  absl::MutexLock l(&owners_mu_);
  return mean_job_s_;
}

bool JobQueue::Owns(const Identity& who, const std::string& worker_id) const {
  absl::MutexLock l(&owners_mu_);
  auto it = owners_.find(worker_id);
  return it != owners_.end() && it->second == who.Describe();
}

absl::Status JobQueue::CheckOwner(const Identity& who, const std::string& worker_id) const {
  RETURN_IF_ERROR(access_.RequireWorker(who));
  if (!Owns(who, worker_id)) return UnknownWorker(worker_id);
  return absl::OkStatus();
}

absl::Status JobQueue::Heartbeat(const Identity& who, const std::string& worker_id) {
  RETURN_IF_ERROR(CheckOwner(who, worker_id));
  double now = clock_->NowSeconds();
  RETURN_IF_ERROR(workers_->TouchWorker(worker_id, now));
  Seen(worker_id);
  return jobs_->RenewLeases(worker_id, now + options_.lease_ttl_s);
}

void JobQueue::LogIfSubmissionEnded(int64_t job_id) {
  absl::StatusOr<JobRecord> job = jobs_->GetJob(job_id);
  if (!job.ok()) return;
  absl::StatusOr<JobCounts> c = jobs_->CountJobs(job->submission_id);
  if (!c.ok() || c->queued > 0 || c->leased > 0) return;
  absl::StatusOr<SubmissionRecord> sub = submissions_->GetSubmission(job->submission_id);
  if (!sub.ok()) return;
  absl::StatusOr<int> errors = studies_ != nullptr
                                   ? studies_->CountStudiesWithErrors(job->submission_id)
                                   : absl::StatusOr<int>(0);
  const char* event = SubmissionStateName(StateOf(*sub, *c, errors.ok() ? *errors : 0));
  spdlog::info("event=submission_{} submission={} jobs_done={} jobs_lost={} jobs_withdrawn={}",
               event, job->submission_id, c->done, c->lost(), c->withdrawn);
  if (metrics_ != nullptr) metrics_->CountSubmission(event);
  if (on_submission_ended_) on_submission_ended_(job->submission_id, event);
}

void JobQueue::NotifyChanged() {
  absl::MutexLock l(&change_mu_);
  ++version_;
  changed_.SignalAll();
}

void JobQueue::StopWaits() {
  stopping_ = true;
  NotifyChanged();
}

uint64_t JobQueue::version() {
  absl::MutexLock l(&change_mu_);
  return version_;
}

void JobQueue::WaitForChange(uint64_t seen, absl::Duration timeout) {
  const absl::Time until = absl::Now() + timeout;
  absl::MutexLock l(&change_mu_);
  while (version_ == seen) {
    if (changed_.WaitWithDeadline(&change_mu_, until)) return;  // timed out
  }
}

absl::StatusOr<std::optional<LeasedJob>> JobQueue::Lease(const Identity& who,
                                                         const std::string& worker_id,
                                                         absl::Duration wait,
                                                         const std::function<bool()>& caller_gone) {
  RETURN_IF_ERROR(Heartbeat(who, worker_id));
  RETURN_IF_ERROR(CheckSlots(worker_id));
  const absl::Time until = absl::Now() + std::min(wait, kMaxLeaseWait);
  const auto gone = [&caller_gone] { return caller_gone && caller_gone(); };
  std::optional<JobRecord> job;
  while (true) {
    if (gone()) return std::optional<LeasedJob>();
    const uint64_t seen = version();
    std::vector<int64_t> skip;
    {
      absl::MutexLock l(&refused_mu_);
      auto it = refused_.find(worker_id);
      if (it != refused_.end()) skip = it->second;
    }
    ASSIGN_OR_RETURN(job, jobs_->LeaseJob(worker_id, clock_->NowSeconds() + options_.lease_ttl_s,
                                          skip));
    if (job || stopping_ || absl::Now() >= until) break;
    // Jobs queued by another process (bbo admin jobs requeue) are seen within a second.
    WaitForChange(seen, std::min(until - absl::Now(), absl::Seconds(1)));
  }
  if (!job) return std::optional<LeasedJob>();
  if (gone()) {
    // Nobody would receive it: back to the queue now, not when its lease expires, and without
    // an attempt charged to the team.
    if (jobs_->ReleaseLease(job->id, worker_id).ok()) {
      spdlog::info("event=lease_returned job={} worker={} reason=\"the caller was gone\"", job->id,
                   worker_id);
      NotifyChanged();
    }
    return std::optional<LeasedJob>();
  }
  {
    absl::MutexLock l(&owners_mu_);
    leased_at_[job->id] = absl::Now();
  }
  ASSIGN_OR_RETURN(SubmissionRecord sub, submissions_->GetSubmission(job->submission_id));
  LeasedJob out;
  out.job_id = job->id;
  out.submission_id = job->submission_id;
  out.kind = sub.kind;
  out.digest = sub.digest;
  out.trial = job->trial;
  out.seed = job->seed;
  out.epoch = options_.epoch;
  if (problem_for_lease_) out.problem = problem_for_lease_(*job);
  return std::optional<LeasedJob>(out);
}

void JobQueue::Refuse(int64_t job_id, const std::string& worker_id) {
  {
    absl::MutexLock l(&refused_mu_);
    refused_[worker_id].push_back(job_id);
  }
  absl::Status released = jobs_->ReleaseLease(job_id, worker_id);
  if (released.ok()) {
    spdlog::warn("event=job_refused job={} worker={} reason=\"problem signature mismatch\"",
                 job_id, worker_id);
    NotifyChanged();
  }
}

absl::Status JobQueue::Finish(const Identity& who, const std::string& worker_id, int64_t job_id,
                              const std::string& error, const std::string& request_id,
                              bool hand_back) {
  RETURN_IF_ERROR(CheckOwner(who, worker_id));
  absl::Status s = hand_back ? jobs_->ReleaseLease(job_id, worker_id)
                             : jobs_->FinishJob(job_id, worker_id, error, options_.max_attempts);
  if (s.ok() && hand_back) {
    spdlog::info("event=job_handed_back job={} worker={} reason=\"{}\"", job_id, worker_id,
                 TruncateUtf8(error, 200));
  }
  if (s.ok()) {
    NotifyChanged();  // done, or back in the queue
    LogIfSubmissionEnded(job_id);
    absl::MutexLock l(&owners_mu_);
    auto it = leased_at_.find(job_id);
    if (it != leased_at_.end()) {
      const double took = absl::ToDoubleSeconds(absl::Now() - it->second);
      mean_job_s_ = mean_job_s_ == 0 ? took : 0.95 * mean_job_s_ + 0.05 * took;
      leased_at_.erase(it);
    }
  }
  if (request_id.empty()) return s;
  absl::MutexLock l(&finished_mu_);
  if (s.ok()) {
    auto [it, added] = finished_.try_emplace(job_id);
    it->second = {worker_id, request_id};
    if (added) finished_order_.push_back(job_id);
    while (finished_order_.size() > kRememberedFinishes) {
      finished_.erase(finished_order_.front());
      finished_order_.pop_front();
    }
    return s;
  }
  // A retry of a finish that took effect: the job is no longer leased by this worker.
  auto it = finished_.find(job_id);
  if (absl::IsFailedPrecondition(s) && it != finished_.end() &&
      it->second == std::make_pair(worker_id, request_id)) {
    return absl::OkStatus();
  }
  return s;
}

absl::StatusOr<SubmissionFiles> JobQueue::Fetch(const Identity& who, const std::string& worker_id,
                                                int64_t job_id, int64_t submission_id) {
  RETURN_IF_ERROR(CheckOwner(who, worker_id));
  absl::StatusOr<JobRecord> job = jobs_->GetJob(job_id);
  if (!job.ok() || job->state != JobState::kLeased || job->worker_id != worker_id ||
      job->submission_id != submission_id) {
    return absl::PermissionDeniedError(absl::StrCat(
        "worker ", worker_id, " holds no current lease on job ", job_id, " of submission ",
        submission_id));
  }
  return FilesOf(submission_id);
}

absl::StatusOr<ProblemFiles> JobQueue::FetchProblemFiles(const Identity& who,
                                                         const std::string& worker_id,
                                                         int64_t job_id) {
  RETURN_IF_ERROR(CheckOwner(who, worker_id));
  absl::StatusOr<JobRecord> job = jobs_->GetJob(job_id);
  if (!job.ok() || job->state != JobState::kLeased || job->worker_id != worker_id) {
    return absl::PermissionDeniedError(
        absl::StrCat("worker ", worker_id, " holds no current lease on job ", job_id));
  }
  std::optional<ProblemDefinition> d = problem_for_lease_ ? problem_for_lease_(*job) : std::nullopt;
  if (!d || d->files_digest.empty()) {
    return absl::NotFoundError(absl::StrCat("the problem of job ", job_id, " has no file"));
  }
  std::ifstream in(d->files_path, std::ios::binary);
  ProblemFiles out;
  out.content.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  out.digest = ProblemFilesDigest(out.content);
  if (!in.is_open() || out.digest != d->files_digest) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the problem file of job ", job_id, " changed since the coordinator started (",
        d->files_digest, " then, ", out.digest, " now); restart it to serve the new one"));
  }
  return out;
}

absl::StatusOr<SubmissionFiles> JobQueue::FilesOf(int64_t submission_id) {
  ASSIGN_OR_RETURN(SubmissionRecord sub, submissions_->GetSubmission(submission_id));
  if (sub.is_baseline) {
    return absl::InvalidArgumentError("the built-in baseline has no files");
  }
  SubmissionFiles files;
  files.kind = sub.kind;
  files.digest = sub.digest;
  ASSIGN_OR_RETURN(files.archive, submissions_->GetSubmissionArchive(submission_id));
  return files;
}

absl::StatusOr<int> JobQueue::Sweep() {
  ASSIGN_OR_RETURN(std::vector<int64_t> requeued,
                   jobs_->ExpireLeases(clock_->NowSeconds(), options_.max_attempts));
  if (!requeued.empty()) NotifyChanged();
  if (metrics_ != nullptr) {
    for (size_t i = 0; i < requeued.size(); ++i) {
      metrics_->CountStudyEnd("abandoned", "worker lease expired");
    }
  }
  return static_cast<int>(requeued.size());
}

}  // namespace bbo
