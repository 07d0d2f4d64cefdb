#ifndef BBO_SERVER_JOB_QUEUE_H_
#define BBO_SERVER_JOB_QUEUE_H_

// JobQueue: what workers see of the coordinator. Workers register, lease jobs (submission x
// problem x trial) with a time-limited lease kept alive by heartbeats, fetch the submission's
// files and report the end of each job. A job whose worker vanished (lease expired) goes back to
// the queue, its running study abandoned, up to `max_attempts` leases. Workers are never told
// which problem a job is on. Thread-safe (all state is in the Store).

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "problems/definition.h"
#include "server/access.h"
#include "server/metrics.h"
#include "server/store/job_store.h"
#include "server/store/store.h"
#include "server/store/submission_store.h"
#include "server/store/worker_store.h"

namespace bbo {

struct JobQueueOptions {
  // A lease lasts this long after the last heartbeat, seconds.
  double lease_ttl_s = 30;
  // Workers are asked to heartbeat this often, seconds.
  double heartbeat_interval_s = 5;
  // Leases per job before it is marked failed.
  int max_attempts = 3;
  // No identities: anonymous callers may act as workers (AccessPolicy).
  bool allow_anonymous = false;
  // The coordinator's epoch (JobStore::BeginEpoch), told to workers with every registration,
  // heartbeat and lease. 0 = none.
  int64_t epoch = 0;
};

struct WorkerRegistration {
  std::string worker_id;
  double lease_ttl_s = 0;
  double heartbeat_interval_s = 0;
  int64_t epoch = 0;
};

struct LeasedJob {
  int64_t job_id = 0;
  int64_t submission_id = 0;
  SubmissionKind kind = SubmissionKind::kUnspecified;
  std::string digest;
  int trial = 0;
  int64_t seed = 0;
  int64_t epoch = 0;
  // Set when the worker evaluates the job's objective: how to build its problem.
  std::optional<ProblemDefinition> problem;
};

// A leased job's problem file (ProblemDefinition::files_digest).
struct ProblemFiles {
  std::string content;
  std::string digest;
};

struct SubmissionFiles {
  SubmissionKind kind = SubmissionKind::kUnspecified;
  std::string archive;  // uncompressed tar of the submission folder
  std::string digest;
};

class JobQueue {
 public:
  // Dependencies are not owned and must outlive the queue. `submissions` is read only.
  JobQueue(JobStore* jobs, WorkerStore* workers, SubmissionStore* submissions, Clock* clock,
           JobQueueOptions options)
      : jobs_(jobs), workers_(workers), submissions_(submissions), clock_(clock),
        options_(options) {}
  JobQueue(Store* store, Clock* clock, JobQueueOptions options)
      : JobQueue(store, store, store, clock, options) {
    studies_ = store;
  }

  // Registers a worker for `who` (a worker token, AccessPolicy::RequireWorker): the worker id
  // is bound to that identity, and every later call on it must come from the same identity.
  // InvalidArgument for a host name over 255 bytes or slots outside 1..64; ResourceExhausted
  // when the token has kMaxLiveWorkersPerToken live workers already.
  absl::StatusOr<WorkerRegistration> RegisterWorker(const Identity& who,
                                                    const std::string& hostname, int slots);
  // Renews the worker's leases. NotFound for an unknown worker or one of another identity
  // (the same answer: ids are not confirmed to strangers).
  absl::Status Heartbeat(const Identity& who, const std::string& worker_id);
  // The next queued job, or nullopt. With `wait` > 0 and nothing queued, waits up to `wait`
  // (at most kMaxLeaseWait) for a job to be queued (NotifyChanged) before answering nullopt.
  // `caller_gone` (the transport's: the call was cancelled or its deadline passed) is asked
  // while waiting and once a job is leased: a caller that is gone gets nothing, and a job leased
  // for it goes back to the queue at once without its attempt counting. NotFound as Heartbeat.
  // ResourceExhausted when the worker already holds as many leases as its registered slots.
  absl::StatusOr<std::optional<LeasedJob>> Lease(
      const Identity& who, const std::string& worker_id, absl::Duration wait = absl::ZeroDuration(),
      const std::function<bool()>& caller_gone = nullptr);
  static constexpr absl::Duration kMaxLeaseWait = absl::Seconds(30);
  // Live workers (heard from within two lease times) one worker token may register.
  static constexpr int kMaxLiveWorkersPerToken = 256;

  // Something in the queue may have changed (jobs queued, requeued, finished): wakes long-poll
  // leases and WaitForChange. Called by the queue itself and by whoever adds jobs.
  void NotifyChanged();
  // The server is shutting down: every waiting lease answers now (nullopt) and later ones do
  // not wait.
  void StopWaits();
  // Waits until NotifyChanged is called after `seen` (a version()), or `timeout`.
  void WaitForChange(uint64_t seen, absl::Duration timeout);
  uint64_t version();
  // FailedPrecondition when the worker no longer holds the lease. NotFound as Heartbeat.
  // `request_id` ("" = none) makes it idempotent: repeating a finish that took effect (same
  // worker, job and id) answers OK again.
  // `hand_back`: the worker gives the job back unfinished for a reason of its own (it is
  // shutting down or draining for a scale-in): the job is queued again without the attempt
  // counting (JobStore::ReleaseLease), so the team is never charged for it.
  absl::Status Finish(const Identity& who, const std::string& worker_id, int64_t job_id,
                      const std::string& error, const std::string& request_id = "",
                      bool hand_back = false);
  // The files of the submission of `job_id`, for the worker that holds the job's lease.
  // PermissionDenied otherwise (another worker, a stale lease, another submission).
  absl::StatusOr<SubmissionFiles> Fetch(const Identity& who, const std::string& worker_id,
                                        int64_t job_id, int64_t submission_id);
  // How a leased job's worker builds its problem (StudyManager::DefinitionForWorker); unset:
  // leases carry no definition and the coordinator evaluates every job. Set before use.
  void set_problem_for_lease(
      std::function<std::optional<ProblemDefinition>(const JobRecord&)> definition) {
    problem_for_lease_ = std::move(definition);
  }
  // `worker_id` cannot run job `job_id` as it should (it built another problem than the
  // job's): the job goes back to the queue without the attempt counting, and this worker is
  // not given it again while the coordinator runs. Best effort: a job whose lease is already
  // gone is left alone.
  void Refuse(int64_t job_id, const std::string& worker_id);
  // The file of the problem of `job_id` (a generated suite's design file), for the worker that
  // holds the job's lease. PermissionDenied otherwise; NotFound when the problem has none;
  // FailedPrecondition when the file no longer has the content address it started with.
  absl::StatusOr<ProblemFiles> FetchProblemFiles(const Identity& who,
                                                 const std::string& worker_id, int64_t job_id);
  // Whether `worker_id` was registered by `who`.
  bool Owns(const Identity& who, const std::string& worker_id) const;

  // Requeues jobs whose lease expired. Returns how many.
  absl::StatusOr<int> Sweep();

  const JobQueueOptions& options() const { return options_; }
  // Where lost leases and finished submissions are counted (not owned; null = nowhere). Set
  // before use.
  void set_metrics(Metrics* metrics) { metrics_ = metrics; }
  // Called when a submission ends (none of its jobs is left queued or running) with its id and
  // its state's name (SubmissionStateName: "finished", "partial", "failed", "withdrawn"), on
  // the thread of the call that finished its last job, after no lock of the queue is held.
  // May be called more than once for one submission (jobs ending together, a race's rounds,
  // requeued jobs). Set before use.
  void set_on_submission_ended(
      std::function<void(int64_t submission_id, const std::string& state)> f) {
    on_submission_ended_ = std::move(f);
  }
  // Workers registered with this queue since it started.
  int64_t RegisteredWorkers() const {
    absl::MutexLock l(&owners_mu_);
    return static_cast<int64_t>(owners_.size());
  }
  int64_t epoch() const { return options_.epoch; }

  // Workers heard from (registration, heartbeat, lease, finish) within the lease time, and the
  // job slots they registered.
  struct Connected {
    int workers = 0;
    int slots = 0;
  };
  Connected ConnectedWorkers() const;
  // The mean time from lease to finish of the jobs that finished since the start (an
  // exponential moving average of the last ~20), seconds; 0 before the first.
  double MeanJobSeconds() const;

 private:
  // The files of a submission (Fetch, once the lease is checked).
  absl::StatusOr<SubmissionFiles> FilesOf(int64_t submission_id);
  absl::Status CheckOwner(const Identity& who, const std::string& worker_id) const;
  // Logs (and counts) the end of the submission of `job_id` when none of its jobs is left
  // queued or running.
  void LogIfSubmissionEnded(int64_t job_id);

  std::function<std::optional<ProblemDefinition>(const JobRecord&)> problem_for_lease_;
  // Jobs each worker refused (Refuse): never leased to it again.
  absl::Mutex refused_mu_;
  std::map<std::string, std::vector<int64_t>> refused_ ABSL_GUARDED_BY(refused_mu_);
  Metrics* metrics_ = nullptr;
  std::function<void(int64_t, const std::string&)> on_submission_ended_;
  JobStore* jobs_;
  WorkerStore* workers_;
  SubmissionStore* submissions_;
  // For the state a submission ended in (its studies with errors); null: lost jobs only.
  StudyStore* studies_ = nullptr;
  Clock* clock_;
  const JobQueueOptions options_;
  const AccessPolicy access_{false, options_.allow_anonymous};
  mutable absl::Mutex owners_mu_;
  // worker id -> Identity::Describe() of who registered it.
  std::map<std::string, std::string> owners_ ABSL_GUARDED_BY(owners_mu_);
  // Calls `worker_id` made now: it counts as connected for a lease time.
  void Seen(const std::string& worker_id, int slots = 0);
  struct WorkerSeen {
    absl::Time at;
    int slots = 1;
  };
  std::map<std::string, WorkerSeen> seen_ ABSL_GUARDED_BY(owners_mu_);
  // RegisterWorker's bound per token (forgetting workers long gone), and Lease's per worker.
  absl::Status CheckRegistrations(const Identity& who);
  absl::Status CheckSlots(const std::string& worker_id);
  // Lease times of jobs in progress, and the moving average of lease-to-finish times.
  std::map<int64_t, absl::Time> leased_at_ ABSL_GUARDED_BY(owners_mu_);
  double mean_job_s_ ABSL_GUARDED_BY(owners_mu_) = 0;
  // Finishes that took effect, for idempotent retries: job id -> (worker id, request id); the
  // most recent kRememberedFinishes.
  static constexpr size_t kRememberedFinishes = 4096;
  absl::Mutex finished_mu_;
  std::map<int64_t, std::pair<std::string, std::string>> finished_ ABSL_GUARDED_BY(finished_mu_);
  std::deque<int64_t> finished_order_ ABSL_GUARDED_BY(finished_mu_);
  // NotifyChanged's counter, and the waiters on it.
  absl::Mutex change_mu_;
  absl::CondVar changed_;
  uint64_t version_ ABSL_GUARDED_BY(change_mu_) = 0;
  std::atomic<bool> stopping_{false};
};

}  // namespace bbo

#endif  // BBO_SERVER_JOB_QUEUE_H_
