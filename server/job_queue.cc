#include "server/job_queue.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"

namespace bbo {

absl::StatusOr<WorkerRegistration> JobQueue::RegisterWorker(const std::string& hostname,
                                                            int slots) {
  std::random_device rd;
  WorkerRegistration reg;
  reg.worker_id = absl::StrFormat("w-%08x%08x", rd(), rd());
  reg.lease_ttl_s = options_.lease_ttl_s;
  reg.heartbeat_interval_s = options_.heartbeat_interval_s;
  RETURN_IF_ERROR(
      workers_->RegisterWorker(reg.worker_id, hostname, slots < 1 ? 1 : slots, clock_->NowSeconds()));
  return reg;
}

absl::Status JobQueue::Heartbeat(const std::string& worker_id) {
  double now = clock_->NowSeconds();
  RETURN_IF_ERROR(workers_->TouchWorker(worker_id, now));
  return jobs_->RenewLeases(worker_id, now + options_.lease_ttl_s);
}

absl::StatusOr<std::optional<LeasedJob>> JobQueue::Lease(const std::string& worker_id) {
  RETURN_IF_ERROR(Heartbeat(worker_id));
  ASSIGN_OR_RETURN(std::optional<JobRecord> job,
                   jobs_->LeaseJob(worker_id, clock_->NowSeconds() + options_.lease_ttl_s));
  if (!job) return std::optional<LeasedJob>();
  ASSIGN_OR_RETURN(SubmissionRecord sub, submissions_->GetSubmission(job->submission_id));
  LeasedJob out;
  out.job_id = job->id;
  out.submission_id = job->submission_id;
  out.kind = sub.kind;
  out.digest = sub.digest;
  out.trial = job->trial;
  out.seed = job->seed;
  return std::optional<LeasedJob>(out);
}

absl::Status JobQueue::Finish(const std::string& worker_id, int64_t job_id,
                              const std::string& error) {
  return jobs_->FinishJob(job_id, worker_id, error, options_.max_attempts);
}

absl::StatusOr<SubmissionFiles> JobQueue::Fetch(int64_t submission_id) {
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
  return static_cast<int>(requeued.size());
}

}  // namespace bbo
