#ifndef BBO_WORKER_WORKER_H_
#define BBO_WORKER_WORKER_H_

// Worker: leases jobs from the coordinator, unpacks each submission into a private directory,
// starts the optimizer in the sandbox and relays the study between it (hosting protocol over
// stdin/stdout) and the coordinator (StudyService). When the lease carries the job's problem
// definition and the worker has a problem library, the worker builds the hidden problem itself
// and evaluates each batch on this, the trusted, side of the sandbox (in parallel on its
// evaluator), reporting the values with ReportValues; the optimizer is frozen meanwhile and
// still sees only the api_config. Thread-safe: Run() may be called from several threads
// (one job each); Stop() and Drain() from any thread.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "problems/evaluator.h"
#include "problems/library.h"
#include "worker/cgroup.h"
#include "worker/coordinator_client.h"
#include "worker/env.h"
#include "worker/fetch_once.h"
#include "worker/optimizer_host.h"
#include "worker/sandbox.h"

namespace bbo {

struct WorkerOptions {
  // Scratch space for unpacked submissions, one folder per submission digest.
  std::string work_dir = "/tmp/bbo-worker";
  // Host folder holding the `bayesmark` package shipped with bbo-arena; bound read-only at
  // /opt/bbo/python inside the sandbox.
  std::string python_dir;
  // The interpreter for Python submissions (inside the sandbox).
  std::string python = "/usr/bin/python3";
  // How long one lease call waits on the coordinator for a job when the queue is empty (a long
  // poll: a job queued meanwhile is answered at once), seconds.
  double idle_poll_s = 10;
  // Stop after the queue has been empty this long (0 = never; `bbo local` and the demo use it).
  double exit_when_idle_s = 0;
  // Grace added to the coordinator's budgets before the worker kills a silent optimizer, s.
  double kill_grace_s = 1.0;
  // Time allowed for the optimizer to start (import numpy, build its model), seconds.
  double startup_timeout_s = 60;
  // Forward the optimizer's stderr lines to this worker's log.
  bool log_optimizer_stderr = true;
  SandboxOptions sandbox;
  // Control groups for the studies (not owned; null = none: the phase's memory, task and CPU
  // limits are then not enforced, only the sandbox's rlimits). With them every study runs in
  // its own group with the phase's OptimizerLimits, frozen while the coordinator evaluates its
  // batch, its CPU time accounted per turn, and killed whole at the end.
  CgroupManager* cgroups = nullptr;
  // Mount a tmpfs of the phase's optimizer_tmp_mb per study for the sandbox's /tmp and
  // /dev/shm (worker/study_tmp.h; needs a root worker). When it cannot, bubblewrap's own tmpfs
  // is used, bounded only by the memory cgroup, and the worker says so once.
  bool sized_tmp = true;
  // Builds the hidden problems of leases that carry a definition (not owned; null = this worker
  // evaluates nothing and the coordinator evaluates its studies).
  ProblemLibrary* problems = nullptr;
  // Evaluates them (not owned; needed with `problems`): its threads are this host's evaluation
  // slots, shared by all its studies.
  Evaluator* evaluator = nullptr;
};

class Worker {
 public:
  // `client`, `sandbox` and `env` are not owned and must outlive the worker. `env` gives the
  // clock and the work-directory operations; the sandbox's launcher is normally env's.
  Worker(CoordinatorClient* client, Sandbox* sandbox, WorkerOptions options,
         Env* env = Env::Default());

  // Registers with the coordinator (once) and starts the heartbeat thread.
  absl::Status Register(const std::string& hostname, int slots);
  // Leases and runs jobs until Stop() or (with exit_when_idle_s) the queue stays empty. A lease
  // that fails is asked again while the coordinator is unreachable or busy (UNAVAILABLE and
  // the like); an error that asking again cannot mend (INTERNAL, DATA_LOSS, a refused token)
  // is returned.
  absl::Status Run();
  // Runs one leased job to its end; exposed for tests.
  absl::Status RunJob(const JobLease& job);
  // Reports the job's end (`error` "" = done) until the coordinator takes it: a coordinator
  // that cannot store it now (restarting, its disk full) is asked again, with backoff up to
  // 5 s, for as long as the worker runs; the heartbeats keep the lease meanwhile. Stops at an
  // answer that retrying cannot change (the lease is gone, the token refused, INTERNAL or
  // DATA_LOSS: the coordinator is broken) and returns it.
  absl::Status FinishJob(int64_t job_id, const std::string& error);
  void Stop();
  // Stop(), and kills the optimizers running now, so that every study is handed back at once
  // (uncharged) instead of after its current turn: what a SIGTERM from a batch system whose
  // SIGKILL follows within seconds needs.
  void HandBack();
  // Takes no new job (Run returns once its current job is over) while current studies run on:
  // a graceful scale-in. Stop() afterwards hands back the studies still running.
  void Drain();
  bool draining() const { return draining_.load(); }
  ~Worker();

  std::string worker_id() {
    absl::MutexLock l(&id_mu_);
    return identity_.worker_id;
  }
  int jobs_run() const { return jobs_run_.load(); }

 private:
  // The job's submission unpacked on this host (fetched once per submission and digest; jobs
  // of other submissions fetch theirs meanwhile).
  absl::StatusOr<std::string> SubmissionDir(const JobLease& job);
  // Fetches and unpacks it into `dir` unless an earlier job did (only one caller per `dir` at a
  // time: fetches_).
  absl::StatusOr<std::string> FetchSubmission(const JobLease& job, const std::string& dir);
  // The job's problem file on this host (fetched once per content address); "" when the
  // problem has none.
  absl::StatusOr<std::string> ProblemFilesPath(const JobLease& job);
  // Fetches it to `path` unless an earlier job did (one caller per `path` at a time).
  absl::StatusOr<std::string> FetchProblemFiles(const JobLease& job, const std::string& path);
  // Makes the study's control group and /tmp, hosts it, and removes them.
  // `problem`: the problem this worker evaluates the study on (null = the coordinator does).
  absl::Status RunStudy(const JobLease& job, const std::string& dir, const OpenedStudy& study,
                        const Problem* problem);
  // Runs the optimizer through the study (`cgroup` may be null).
  absl::Status HostStudy(const OpenedStudy& study, const SandboxedCommand& cmd,
                         StudyCgroup* cgroup, const Problem* problem);
  // Starts the optimizer and tells the coordinator it is ready: the study's end when it ends
  // here (the optimizer did not start, the coordinator refused), nullopt when its turns follow.
  std::optional<absl::Status> StartOptimizer(OptimizerHost& host, const OpenedStudy& study,
                                             StudyCgroup* cgroup);
  // What the worker knows of the coordinator's clocks between turns.
  struct TurnClock {
    double remaining_s = 0;  // of the study's budget, as the coordinator last said
    double observe_s = 0;    // wall time of the optimizer's last observe
    std::optional<double> cpu_start_s;  // the group's CPU time when the turn began
  };
  // The study's turns (suggest, report, observe) until it is done, cut off or dropped.
  absl::Status RunTurns(OptimizerHost& host, const OpenedStudy& study, StudyCgroup* cgroup,
                        const Problem* problem, uint64_t generation);
  // Reports one turn's suggestions `x` (or why there are none) with the optimizer frozen, and
  // evaluates them when this worker does: the batch's values and the study's progress.
  absl::StatusOr<BatchValues> ReportTurn(OptimizerHost& host, const OpenedStudy& study, int b,
                                         const absl::StatusOr<std::vector<nlohmann::json>>& x,
                                         const TurnClock& clock, StudyCgroup* cgroup,
                                         const Problem* problem);
  // The coordinator said the study is done after batch `b`: the optimizer observes the last
  // batch (bounded, not charged) and is ended.
  void EndDoneStudy(OptimizerHost& host, const OpenedStudy& study, int b,
                    const BatchValues& values);
  // Freezes or thaws the study's group (nothing without a group or a freezer).
  void SetFrozen(StudyCgroup* cgroup, int64_t study_id, bool frozen);
  // Evaluates `batch.to_evaluate` on `problem` and reports the values; `batch` then holds the
  // study's progress and its values.
  absl::Status EvaluateBatch(int64_t study_id, int b, const Problem* problem, BatchValues& batch);
  void HeartbeatLoop();
  // The coordinator restarted (or forgot this worker): every study leased before is void. Kills
  // their optimizers at once (their hosts then end without reporting) and registers again.
  void DropStaleWork(const std::string& why);
  // Whether the work of `generation` was dropped since.
  bool Dropped(uint64_t generation) const { return generation_.load() != generation; }

  CoordinatorClient* client_;
  Sandbox* sandbox_;
  Env* env_;
  const WorkerOptions options_;
  absl::Mutex id_mu_;
  WorkerIdentity identity_ ABSL_GUARDED_BY(id_mu_);
  std::atomic<bool> stop_{false};
  std::atomic<bool> draining_{false};
  std::atomic<int> jobs_run_{0};
  std::atomic<bool> warned_tmp_{false};
  std::atomic<uint64_t> study_seq_{0};  // makes each study's group and /tmp names unique
  // The submissions and problem files being fetched now, by their folder on this host: one
  // fetch of each at a time, none holding a lock across its RPC.
  FetchOnce fetches_;
  // Counts DropStaleWork calls: work started under an older value is void.
  std::atomic<uint64_t> generation_{0};
  // The optimizers being hosted now, for DropStaleWork.
  absl::Mutex running_mu_;
  std::set<OptimizerHost*> running_ ABSL_GUARDED_BY(running_mu_);
  // What Register was given, to register again.
  std::string hostname_ ABSL_GUARDED_BY(id_mu_);
  int slots_ ABSL_GUARDED_BY(id_mu_) = 1;
  std::unique_ptr<std::thread> heartbeat_;
};

// Whether `name` is a study's group or /tmp folder ("study-<id>-<worker pid>-<n>") whose worker
// process no longer exists.
bool IsStaleStudyName(const std::string& name);

// Removes what killed workers left behind: their studies' control groups under `cgroups` (null:
// none) and their /tmp folders under <work_dir>/tmp. Logs what it removed.
void RemoveStaleStudies(CgroupManager* cgroups, const std::string& work_dir);

// The default location of the bundled `bayesmark` package: <dir of this executable>/../python,
// else the source tree's python/ folder.
std::string DefaultPythonDir();

}  // namespace bbo

#endif  // BBO_WORKER_WORKER_H_
