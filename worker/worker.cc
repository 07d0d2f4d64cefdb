#include "worker/worker.h"

#include <unistd.h>

#include <algorithm>
#include <limits>
#include <filesystem>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/status_macros.h"
#include "common/utf8.h"
#include "spdlog/spdlog.h"
#include "worker/internal/report_text.h"
#include "worker/study_tmp.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;

using worker_internal::ForCoordinator;

// Whether a coordinator call that failed with `s` is asked again (after a pause). By abseil's
// rule (absl/status/status.h) UNAVAILABLE is the code that says "retry the call"; the others
// below are retried for the reason given at each. Not retried: INTERNAL and DATA_LOSS (the
// coordinator's invariants or data are broken: asking again cannot mend them and would hide
// the failure), UNKNOWN, and the codes that say the request or the state must change first.
bool IsRetryable(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kUnavailable:  // unreachable, restarting, its database busy
      return true;
    case absl::StatusCode::kDeadlineExceeded:
      // The calls retried here (Lease, Finish) each have a deadline of their own (the client's
      // call timeout): this code says the coordinator was slow to answer, not that a budget of
      // the work ran out. Finish carries a request id, so a repeat takes effect once.
      return true;
    case absl::StatusCode::kResourceExhausted:
      // A quota that frees with time: the coordinator's disk full (a job's end it cannot store
      // yet; tests/faults_test.cc FullDisk) or its per-caller rate limit. Asked again with
      // backoff, as the quota says.
      return true;
    case absl::StatusCode::kAborted:
      // Abseil's "retry the transaction": each call retried here is a whole transaction.
      return true;
    case absl::StatusCode::kCancelled:
      // The coordinator cancels the calls still running when it shuts down: it is going away,
      // as with UNAVAILABLE. (This worker cancels its own calls only when stopping or
      // draining, which the callers check first.)
      return true;
    default:
      return false;
  }
}

}  // namespace

bool IsStaleStudyName(const std::string& name) {
  const std::vector<std::string> parts = absl::StrSplit(name, '-');
  int pid = 0;
  if (parts.size() != 4 || parts[0] != "study" || !absl::SimpleAtoi(parts[2], &pid) || pid <= 0) {
    return false;
  }
  if (pid == getpid()) return false;
  std::error_code ec;
  return !fs::exists(absl::StrCat("/proc/", pid), ec);
}

void RemoveStaleStudies(CgroupManager* cgroups, const std::string& work_dir) {
  if (cgroups != nullptr) {
    absl::StatusOr<int> groups = cgroups->RemoveStale(IsStaleStudyName);
    if (!groups.ok()) {
      spdlog::warn("stale study groups: {}", groups.status().ToString());
    } else if (*groups > 0) {
      spdlog::info("event=stale_groups_removed count={}", *groups);
    }
  }
  const int tmps = RemoveStaleStudyTmps((fs::path(work_dir) / "tmp").string(), IsStaleStudyName);
  if (tmps > 0) spdlog::info("event=stale_tmp_removed count={}", tmps);
}

std::string DefaultPythonDir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path p : {exe.parent_path().parent_path() / "python",
                       exe.parent_path().parent_path().parent_path() / "python"}) {
      if (fs::exists(p / "bayesmark" / "__init__.py", ec)) return p.string();
    }
  }
#ifdef BBO_SOURCE_PYTHON_DIR
  return BBO_SOURCE_PYTHON_DIR;
#else
  return "python";
#endif
}

Worker::Worker(CoordinatorClient* client, Sandbox* sandbox, WorkerOptions options, Env* env)
    : client_(client), sandbox_(sandbox), env_(env), options_(std::move(options)) {}

Worker::~Worker() { Stop(); }

absl::Status Worker::Register(const std::string& hostname, int slots) {
  ASSIGN_OR_RETURN(WorkerIdentity id, client_->Register(hostname, slots));
  {
    absl::MutexLock l(&id_mu_);
    identity_ = id;
    hostname_ = hostname;
    slots_ = slots;
  }
  spdlog::info("event=registered worker={} coordinator_epoch={}", id.worker_id, id.epoch);
  if (heartbeat_ == nullptr) {
    heartbeat_ = std::make_unique<std::thread>([this] { HeartbeatLoop(); });
  }
  return absl::OkStatus();
}

void Worker::Drain() {
  draining_ = true;
  client_->CancelWaits();
}

void Worker::Stop() {
  stop_ = true;
  client_->StopRetrying();
  client_->CancelWaits();
  if (heartbeat_ != nullptr && heartbeat_->joinable()) heartbeat_->join();
}

void Worker::HandBack() {
  Stop();
  absl::MutexLock l(&running_mu_);
  // A study whose optimizer dies now sees stop_ and is handed back (RunTurns), not reported.
  for (OptimizerHost* host : running_) host->Kill();
}

void Worker::HeartbeatLoop() {
  absl::Time next = env_->Now();
  while (!stop_) {
    if (env_->Now() >= next) {
      WorkerIdentity id;
      {
        absl::MutexLock l(&id_mu_);
        id = identity_;
      }
      absl::StatusOr<int64_t> epoch = client_->Heartbeat(id.worker_id);
      if (epoch.ok() && *epoch != 0 && id.epoch != 0 && *epoch != id.epoch) {
        DropStaleWork(
            absl::StrCat("the coordinator restarted (epoch ", id.epoch, " -> ", *epoch, ")"));
      } else if (absl::IsNotFound(epoch.status())) {
        DropStaleWork("the coordinator no longer knows this worker (it restarted)");
      } else if (!epoch.ok()) {
        spdlog::warn("heartbeat failed: {}", epoch.status().ToString());
      }
      next = env_->Now() + absl::Seconds(std::max(0.1, id.heartbeat_interval_s));
    }
    env_->SleepFor(absl::Milliseconds(50));
  }
}

void Worker::DropStaleWork(const std::string& why) {
  generation_.fetch_add(1);
  int killed = 0;
  {
    absl::MutexLock l(&running_mu_);
    for (OptimizerHost* host : running_) {
      host->Kill();
      ++killed;
    }
  }
  spdlog::warn("event=stale_work_dropped studies={} reason=\"{}\"", killed, why);
  std::string hostname;
  int slots = 1;
  {
    absl::MutexLock l(&id_mu_);
    hostname = hostname_;
    slots = slots_;
  }
  if (absl::Status s = Register(hostname, slots); !s.ok()) {
    spdlog::warn("registering again failed (retried at the next heartbeat or lease): {}",
                 s.ToString());
  }
}

absl::Status Worker::Run() {
  if (worker_id().empty()) {
    return absl::FailedPreconditionError("Register() the worker before Run()");
  }
  absl::Time idle_since = env_->Now();
  absl::Duration backoff = absl::Milliseconds(100);
  while (!stop_ && !draining_) {
    // Waits on the coordinator for a job, no longer than the idle time left.
    double wait_s = options_.idle_poll_s;
    if (options_.exit_when_idle_s > 0) {
      wait_s = std::min(wait_s, std::max(0.0, options_.exit_when_idle_s -
                                                  absl::ToDoubleSeconds(env_->Now() - idle_since)));
    }
    const absl::Time asked = env_->Now();
    absl::StatusOr<std::optional<JobLease>> job = client_->Lease(worker_id(), wait_s);
    if (stop_) break;
    if (draining_ && job.ok() && job->has_value()) {
      // Leased as the drain began: given back at once, unstarted (not charged to anyone).
      absl::Status back = client_->HandBack(
          worker_id(), (*job)->job_id, "worker draining (scale-in): job handed back unstarted");
      if (!back.ok()) spdlog::warn("job={}: {}", (*job)->job_id, back.ToString());
      break;
    }
    if (draining_) break;
    if (job.ok()) backoff = absl::Milliseconds(100);
    if (!job.ok()) {
      if (job.status().code() == absl::StatusCode::kNotFound) {
        // The coordinator forgot us (restarted with a new file): register again.
        std::string hostname;
        int slots = 1;
        {
          absl::MutexLock l(&id_mu_);
          hostname = hostname_;
          slots = slots_;
        }
        RETURN_IF_ERROR(Register(hostname, slots));
        continue;
      }
      if (absl::IsUnauthenticated(job.status()) || absl::IsPermissionDenied(job.status())) {
        // A revoked or wrong token does not heal by retrying: stop, and say why.
        return absl::UnauthenticatedError(absl::StrCat(
            "the coordinator refused this worker's token (", job.status().message(),
            "); ask the organizer for a new one (bbo admin worker rotate NAME)"));
      }
      if (!IsRetryable(job.status())) {
        return absl::Status(job.status().code(),
                            absl::StrCat("the coordinator answered the lease with an error that "
                                         "asking again cannot mend: ",
                                         job.status().message()));
      }
      // The coordinator is unreachable (restarting?): try again soon, then less often.
      spdlog::warn("lease failed: {}", job.status().ToString());
      env_->SleepFor(backoff);
      backoff = std::min(backoff * 2, absl::Seconds(2));
      continue;
    }
    if (!job->has_value()) {
      if (options_.exit_when_idle_s > 0 &&
          env_->Now() - idle_since > absl::Seconds(options_.exit_when_idle_s)) {
        return absl::OkStatus();
      }
      // The coordinator waited already; one that does not long-poll answers at once, and is
      // then asked again only after the rest of the wait (at most 0.5 s).
      const absl::Duration left = absl::Seconds(wait_s) - (env_->Now() - asked);
      if (left > absl::ZeroDuration()) env_->SleepFor(std::min(left, absl::Milliseconds(500)));
      continue;
    }
    absl::Status s = RunJob(**job);
    if (!s.ok()) spdlog::warn("job={} ended with error: {}", (*job)->job_id, s.ToString());
    jobs_run_++;
    idle_since = env_->Now();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Worker::SubmissionDir(const JobLease& job) {
  const std::string dir = (fs::path(options_.work_dir) / "submissions" /
                           absl::StrCat(job.submission_id, "-", job.digest))
                              .string();
  return fetches_.Get(dir, [&] { return FetchSubmission(job, dir); });
}

absl::StatusOr<std::string> Worker::FetchSubmission(const JobLease& job, const std::string& dir) {
  const std::string marker = (fs::path(dir) / ".complete").string();
  if (env_->FileExists(marker)) return dir;
  ASSIGN_OR_RETURN(std::string archive, client_->Fetch(job.submission_id, job.job_id, worker_id()));
  const std::string tmp = dir + ".tmp";
  RETURN_IF_ERROR(env_->RemoveAll(tmp));
  RETURN_IF_ERROR(env_->CreateDirs(tmp));
  RETURN_IF_ERROR(env_->ExtractSubmission(archive, tmp));
  RETURN_IF_ERROR(env_->RemoveAll(dir));
  RETURN_IF_ERROR(env_->Rename(tmp, dir));
  // Without the marker the next job of this submission fetches it again: slower, still right.
  if (absl::Status marked = env_->WriteFile(marker, ""); !marked.ok()) {
    spdlog::warn("submission={}: {}", job.submission_id, marked.ToString());
  }
  return dir;
}

absl::StatusOr<std::string> Worker::ProblemFilesPath(const JobLease& job) {
  if (!job.problem || job.problem->files_digest.empty()) return std::string();
  const std::string& digest = job.problem->files_digest;
  // The name is the content address: it must not lead out of the folder.
  if (digest.find_first_not_of("0123456789abcdef-") != std::string::npos || digest.size() > 64) {
    return absl::InvalidArgumentError("the coordinator sent an invalid problem file digest");
  }
  const std::string path = (fs::path(options_.work_dir) / "problem-files" / digest).string();
  return fetches_.Get(path, [&] { return FetchProblemFiles(job, path); });
}

absl::StatusOr<std::string> Worker::FetchProblemFiles(const JobLease& job,
                                                      const std::string& path) {
  if (env_->FileExists(path)) return path;
  ASSIGN_OR_RETURN(std::string content, client_->FetchProblemFiles(job.job_id, worker_id()));
  if (ProblemFilesDigest(content) != job.problem->files_digest) {
    return absl::DataLossError(absl::StrCat("the problem file fetched for job ", job.job_id,
                                            " is not ", job.problem->files_digest));
  }
  RETURN_IF_ERROR(env_->CreateDirs(fs::path(path).parent_path().string()));
  const std::string tmp = path + ".tmp";
  RETURN_IF_ERROR(env_->WriteFile(tmp, content));
  RETURN_IF_ERROR(env_->Rename(tmp, path));
  return path;
}

absl::Status Worker::RunJob(const JobLease& job) {
  const uint64_t generation = generation_.load();
  absl::StatusOr<std::string> dir = SubmissionDir(job);
  if (!dir.ok()) {
    // A host problem, not the participant's: give the job back.
    return FinishJob(job.job_id, ForCoordinator(dir.status(), "cannot unpack submission: "));
  }
  // The hidden problem, when this worker evaluates it: built from the lease's definition with
  // the problem library this worker shares with the coordinator.
  std::shared_ptr<const Problem> problem;  // kept for the whole study
  std::string signature;
  if (job.problem && options_.problems != nullptr && options_.evaluator != nullptr) {
    ProblemDefinition definition = *job.problem;
    absl::StatusOr<std::string> files = ProblemFilesPath(job);
    if (!files.ok()) {
      spdlog::error("event=problem_fetch_failed job={} problem={} error={}", job.job_id,
                    job.problem->Key(), files.status().ToString());
      return FinishJob(job.job_id, ForCoordinator(files.status(), "cannot fetch the problem: "));
    }
    definition.files_path = *files;
    absl::StatusOr<ProblemLibrary::Built> built = options_.problems->Get(definition);
    if (!built.ok()) {
      // A host problem (a missing package, data): the job goes back for another worker.
      spdlog::error("event=problem_build_failed job={} problem={} error={}", job.job_id,
                    job.problem->Key(), built.status().ToString());
      return FinishJob(job.job_id, ForCoordinator(built.status(), "cannot build the problem: "));
    }
    problem = built->problem;
    signature = built->signature;
  }
  absl::StatusOr<OpenedStudy> study = client_->OpenStudy(job.job_id, worker_id(), signature);
  if (!study.ok() && !signature.empty() && absl::IsFailedPrecondition(study.status())) {
    // Refused: another problem than the coordinator's (it has given the job to the queue).
    spdlog::error("event=problem_signature_refused job={} problem={} error={}", job.job_id,
                  job.problem->Key(), study.status().ToString());
    return study.status();
  }
  if (!study.ok()) {
    absl::Status finished =
        FinishJob(job.job_id, ForCoordinator(study.status(), "cannot open study: "));
    if (!finished.ok()) spdlog::warn("job={}: {}", job.job_id, finished.ToString());
    return study.status();
  }
  spdlog::info("event=study_start job={} study={} trial={} evaluates={}", job.job_id,
               study->study_id, job.trial, problem != nullptr ? "worker" : "coordinator");
  absl::Status s = RunStudy(job, *dir, *study, problem.get());
  if (Dropped(generation)) {
    // Leased from a coordinator that has since restarted: the study was abandoned and the job
    // requeued there; nothing of it is reported.
    spdlog::info("event=study_dropped job={} study={}", job.job_id, study->study_id);
    return absl::OkStatus();
  }
  if (!s.ok()) {
    // The study could not be carried to its end for a host-side reason (coordinator gone,
    // lease lost, the coordinator's store full): a platform failure, not the optimizer's. The
    // study is given up (abandoned, not scored) and the job handed back so it runs again.
    absl::Status ended = client_->GiveUpStudy(study->study_id, ForCoordinator(s, "host error: "));
    if (!ended.ok()) spdlog::warn("study={}: {}", study->study_id, ended.ToString());
    if (stop_ || draining_) {
      // Shutting down (a scale-in whose drain ran out, a SIGTERM): the job goes back whole,
      // its attempt not counted.
      return client_->HandBack(worker_id(), job.job_id,
                               ForCoordinator(s, "worker shutting down: "));
    }
    return FinishJob(job.job_id, ForCoordinator(s));
  }
  return FinishJob(job.job_id, "");
}

absl::Status Worker::FinishJob(int64_t job_id, const std::string& error) {
  absl::Duration pause = absl::Milliseconds(100);
  while (true) {
    absl::Status s = client_->Finish(worker_id(), job_id, error);
    if (s.ok() || !IsRetryable(s) || stop_) return s;
    spdlog::warn("job={}: the coordinator did not take the job's end ({}); asking again in {}",
                 job_id, s.ToString(), absl::FormatDuration(pause));
    env_->SleepFor(pause);
    pause = std::min(pause * 2, absl::Seconds(5));
  }
}

}  // namespace bbo
