#ifndef BBO_SERVER_STORE_JOB_STORE_H_
#define BBO_SERVER_STORE_JOB_STORE_H_

// JobStore: the job queue (one job per submission x problem x trial x board, queued by
// SubmissionStore::AddSubmission) and its leases. Part of the Store contract
// (server/store/store.h): every method is one transaction; implementations are thread-safe.
//
// A job is queued -> leased (attempts + 1) -> done, or back to queued on an error or an
// expired lease while attempts < max_attempts, failed otherwise. Ending a job on an error or an
// expired lease abandons its running studies.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/store/records.h"

namespace bbo {

class JobStore {
 public:
  virtual ~JobStore() = default;

  // Leases the oldest (lowest id) queued job of a non-builtin submission, other than those in
  // `skip`, to `worker_id` until `lease_expires_at`. nullopt when none is queued.
  virtual absl::StatusOr<std::optional<JobRecord>> LeaseJob(const std::string& worker_id,
                                                            double lease_expires_at,
                                                            const std::vector<int64_t>& skip) = 0;
  absl::StatusOr<std::optional<JobRecord>> LeaseJob(const std::string& worker_id,
                                                    double lease_expires_at) {
    return LeaseJob(worker_id, lease_expires_at, {});
  }
  // Puts a job leased by `worker_id` back in the queue as if that lease had not happened (its
  // attempt does not count), abandoning its running studies; a job that already has its final
  // study is kDone instead. NotFound for an unknown job,
  // FailedPrecondition when `worker_id` does not hold its lease.
  virtual absl::Status ReleaseLease(int64_t job_id, const std::string& worker_id) = 0;
  // Leases the oldest queued job of builtin submissions (run by the coordinator itself).
  virtual absl::StatusOr<std::optional<JobRecord>> LeaseBuiltinJob(const std::string& owner,
                                                                   double lease_expires_at) = 0;
  // NotFound for an unknown id.
  virtual absl::StatusOr<JobRecord> GetJob(int64_t job_id) = 0;
  // Extends every lease held by `worker_id` (none held: nothing happens).
  virtual absl::Status RenewLeases(const std::string& worker_id, double lease_expires_at) = 0;
  // Returns leased jobs whose lease expired before `now` to the queue (or to kFailed after
  // `max_attempts`) and marks their running studies abandoned (ended at `now`). A job that
  // already has its final study (a study in a scored state) is kDone instead: its holder died
  // between ending the study and finishing the job, and it never runs twice. Returns the
  // requeued job ids, ascending.
  virtual absl::StatusOr<std::vector<int64_t>> ExpireLeases(double now, int max_attempts) = 0;
  // Ends a leased job held by `worker_id`: kDone, or back to the queue when `error` is set and
  // attempts remain (kFailed otherwise); on an error its running studies are abandoned with the
  // error as reason, and a job that already has its final study is kDone whatever the error.
  // NotFound for an unknown job; FailedPrecondition when `worker_id` does not hold its lease.
  virtual absl::Status FinishJob(int64_t job_id, const std::string& worker_id,
                                 const std::string& error, int max_attempts) = 0;
  // The jobs of a submission by state (all zero for an unknown submission).
  virtual absl::StatusOr<JobCounts> CountJobs(int64_t submission_id) = 0;
  // How many jobs `worker_id` holds leased now.
  virtual absl::StatusOr<int> CountLeases(const std::string& worker_id) = 0;
  // Withdraws a submission: marks every still-queued job of it failed with `reason` (leased and
  // finished ones are left alone) and records `reason` as SubmissionRecord::withdrawn, in one
  // transaction (a race reads the mark to run the entry no more). Returns how many jobs.
  virtual absl::StatusOr<int> CancelQueuedJobs(int64_t submission_id,
                                               const std::string& reason) = 0;
  // Jobs in kFailed, by id.
  virtual absl::StatusOr<std::vector<FailedJob>> ListFailedJobs() = 0;
  // Puts failed job `job_id` back in the queue with its attempts reset (which failed jobs may
  // run again is server/requeue.h's rule). NotFound for an unknown job, FailedPrecondition for
  // one that has not failed.
  virtual absl::Status RequeueFailedJob(int64_t job_id) = 0;
  // A coordinator starts: records a new epoch (1, 2, ...) at `now` and returns it.
  virtual absl::StatusOr<int64_t> BeginEpoch(double now) = 0;
  // After a coordinator restart, before anything is served: every running study is abandoned
  // ("coordinator restarted"; the coordinator's state of it is gone), and every leased job goes
  // back to the queue without the lost attempt counting, or to kDone when it already has its
  // final study.
  virtual absl::StatusOr<RecoveryCounts> RecoverAfterRestart(double now) = 0;
  // The boards that have jobs, sorted (kMainBoard, the empty name, first).
  virtual absl::StatusOr<std::vector<std::string>> ListBoards() = 0;
};

}  // namespace bbo

#endif  // BBO_SERVER_STORE_JOB_STORE_H_
