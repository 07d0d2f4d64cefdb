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
#include "worker/optimizer_host.h"
#include "worker/study_tmp.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;

// Paths inside the sandbox.
constexpr char kSandboxPythonDir[] = "/opt/bbo/python";

// Longest text the worker sends the coordinator (failure messages, end reasons), bytes: an
// optimizer message (kMaxMessageBytes) or a quoted stderr tail plus the worker's own words.
constexpr size_t kMaxReportBytes = 8u << 10;

// Text for the coordinator: bounded and valid UTF-8 (protobuf refuses to serialize invalid
// UTF-8), and never empty.
std::string ForCoordinator(const absl::Status& s, absl::string_view prefix = "") {
  std::string text = absl::StrCat(prefix, s.message());
  if (s.message().empty()) absl::StrAppend(&text, absl::StatusCodeToString(s.code()));
  return TruncateUtf8(text, kMaxReportBytes);
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
  absl::MutexLock l(&unpack_mu_);
  fs::path dir = fs::path(options_.work_dir) / "submissions" /
                 absl::StrCat(job.submission_id, "-", job.digest);
  const fs::path marker = dir / ".complete";
  if (env_->FileExists(marker.string())) return dir.string();
  ASSIGN_OR_RETURN(std::string archive, client_->Fetch(job.submission_id, job.job_id, worker_id()));
  const std::string tmp = dir.string() + ".tmp";
  RETURN_IF_ERROR(env_->RemoveAll(tmp));
  RETURN_IF_ERROR(env_->CreateDirs(tmp));
  RETURN_IF_ERROR(env_->ExtractSubmission(archive, tmp));
  RETURN_IF_ERROR(env_->RemoveAll(dir.string()));
  RETURN_IF_ERROR(env_->Rename(tmp, dir.string()));
  // Without the marker the next job of this submission fetches it again: slower, still right.
  if (absl::Status marked = env_->WriteFile(marker.string(), ""); !marked.ok()) {
    spdlog::warn("submission={}: {}", job.submission_id, marked.ToString());
  }
  return dir.string();
}

absl::StatusOr<std::string> Worker::ProblemFilesPath(const JobLease& job) {
  if (!job.problem || job.problem->files_digest.empty()) return std::string();
  const std::string& digest = job.problem->files_digest;
  // The name is the content address: it must not lead out of the folder.
  if (digest.find_first_not_of("0123456789abcdef-") != std::string::npos || digest.size() > 64) {
    return absl::InvalidArgumentError("the coordinator sent an invalid problem file digest");
  }
  const fs::path path = fs::path(options_.work_dir) / "problem-files" / digest;
  absl::MutexLock l(&unpack_mu_);
  if (env_->FileExists(path.string())) return path.string();
  ASSIGN_OR_RETURN(std::string content, client_->FetchProblemFiles(job.job_id, worker_id()));
  if (ProblemFilesDigest(content) != digest) {
    return absl::DataLossError(absl::StrCat("the problem file fetched for job ", job.job_id,
                                            " is not ", digest));
  }
  RETURN_IF_ERROR(env_->CreateDirs(path.parent_path().string()));
  const std::string tmp = path.string() + ".tmp";
  RETURN_IF_ERROR(env_->WriteFile(tmp, content));
  RETURN_IF_ERROR(env_->Rename(tmp, path.string()));
  return path.string();
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
    const bool retry = absl::IsUnavailable(s) || absl::IsResourceExhausted(s) ||
                       absl::IsInternal(s) || absl::IsAborted(s) || absl::IsDeadlineExceeded(s) ||
                       absl::IsDataLoss(s);
    if (s.ok() || !retry || stop_) return s;
    spdlog::warn("job={}: the coordinator did not take the job's end ({}); asking again in {}",
                 job_id, s.ToString(), absl::FormatDuration(pause));
    env_->SleepFor(pause);
    pause = std::min(pause * 2, absl::Seconds(5));
  }
}

absl::Status Worker::RunStudy(const JobLease& job, const std::string& dir,
                              const OpenedStudy& study, const Problem* problem) {
  SandboxedCommand cmd;
  cmd.submission_dir = dir;
  cmd.env = {absl::StrCat("BBO_SEED=", job.seed), "BBO_ARENA_HOSTED=1", "OMP_NUM_THREADS=1",
             "OPENBLAS_NUM_THREADS=1", "MKL_NUM_THREADS=1", "PYTHONDONTWRITEBYTECODE=1",
             "PYTHONUNBUFFERED=1", "MPLBACKEND=Agg"};
  if (job.kind == HostedKind::kPython) {
    cmd.argv = {options_.python, "-u", "optimizer.py"};
    cmd.env.push_back(absl::StrCat("PYTHONPATH=", kSandboxPythonDir, ":/sub"));
    cmd.extra_ro_binds.push_back({options_.python_dir, kSandboxPythonDir});
  } else {
    cmd.argv = {"./optimizer"};
  }
  if (options_.sandbox.insecure_no_sandbox && job.kind == HostedKind::kPython) {
    // Without the sandbox there is no /opt/bbo/python: point at the host folder.
    cmd.env.back() = absl::StrCat("PYTHONPATH=", options_.python_dir, ":", dir);
  }

  // The study's own resources: a control group with the phase's limits and a size-limited
  // /tmp. Failing to make them is the host's problem: the job goes back to the queue.
  const std::string name = absl::StrCat("study-", study.study_id, "-", getpid(), "-",
                                        study_seq_.fetch_add(1));
  std::unique_ptr<StudyCgroup> cgroup;
  if (options_.cgroups != nullptr) {
    CgroupLimits limits;
    limits.memory_bytes = study.limits.memory_mb << 20;
    limits.pids = study.limits.max_tasks;
    limits.cpus = study.limits.cpus;
    absl::StatusOr<std::unique_ptr<StudyCgroup>> made = options_.cgroups->Create(name, limits);
    if (!made.ok()) {
      return absl::UnavailableError(
          absl::StrCat("cannot create the study's control group: ", made.status().message()));
    }
    cgroup = *std::move(made);
    cmd.cgroup_procs_files = cgroup->procs_files();
  }
  std::unique_ptr<StudyTmp> tmp;
  if (options_.sized_tmp && !options_.sandbox.insecure_no_sandbox) {
    const std::string parent = (fs::path(options_.work_dir) / "tmp").string();
    absl::Status dirs = env_->CreateDirs(parent);
    absl::StatusOr<std::unique_ptr<StudyTmp>> mounted =
        dirs.ok() ? StudyTmp::Mount((fs::path(parent) / name).string(),
                                    study.limits.tmp_mb << 20,
                                    geteuid() == 0 ? options_.sandbox.host_uid : geteuid(),
                                    geteuid() == 0 ? options_.sandbox.host_gid : getegid())
                  : absl::StatusOr<std::unique_ptr<StudyTmp>>(dirs);
    if (mounted.ok()) {
      tmp = *std::move(mounted);
      cmd.tmp_dir = tmp->dir();
    } else if (!warned_tmp_.exchange(true)) {
      spdlog::warn("the sandbox's /tmp and /dev/shm are NOT size-limited: {}; they are bounded "
                   "only by the study's memory limit{}",
                   std::string(mounted.status().message()),
                   cgroup != nullptr ? "" : ", which is not enforced either (no cgroups)");
    }
  }
  absl::Status hosted = HostStudy(study, cmd, cgroup.get(), problem);
  if (cgroup != nullptr) {
    // Everything the optimizer started, daemons included, ends with the study.
    if (absl::Status removed = cgroup->Remove(); !removed.ok()) {
      spdlog::warn("study={}: {}", study.study_id, removed.ToString());
    }
  }
  return hosted;
}

absl::Status Worker::EvaluateBatch(int64_t study_id, int b, const Problem* problem,
                                   BatchValues& batch) {
  if (problem == nullptr) {
    return absl::InternalError(
        absl::StrCat("study ", study_id, ": the coordinator asked this worker to evaluate batch ",
                     b, " but the worker built no problem for it"));
  }
  std::vector<Point> points;
  std::vector<EvaluatedPoint> results(batch.to_evaluate.size());
  std::vector<size_t> valid;
  for (size_t i = 0; i < batch.to_evaluate.size(); ++i) {
    absl::StatusOr<Point> p = PointFromJson(batch.to_evaluate[i]);
    if (p.ok()) p = problem->space().Canonicalize(*p);
    if (!p.ok()) {
      // The coordinator validated the point: one the problem refuses is a platform bug,
      // evaluated as a crash and said so.
      results[i].value = std::numeric_limits<double>::infinity();
      results[i].error = absl::StrCat("point ", i, " is not in the problem's space: ",
                                      p.status().message());
      continue;
    }
    points.push_back(*std::move(p));
    valid.push_back(i);
  }
  const absl::Time start = absl::Now();
  std::vector<EvaluatedPoint> evaluated = options_.evaluator->EvaluateBatch(*problem, points);
  const double eval_s = absl::ToDoubleSeconds(absl::Now() - start);
  for (size_t k = 0; k < valid.size(); ++k) results[valid[k]] = std::move(evaluated[k]);
  ASSIGN_OR_RETURN(BatchValues progress, client_->ReportValues(study_id, b, results, eval_s));
  batch.values.clear();
  for (const EvaluatedPoint& r : results) batch.values.push_back(r.value);
  batch.study_done = progress.study_done;
  batch.remaining_s = progress.remaining_s;
  return absl::OkStatus();
}

absl::Status Worker::HostStudy(const OpenedStudy& study, const SandboxedCommand& cmd,
                               StudyCgroup* cgroup, const Problem* problem) {
  auto stderr_sink = [this, id = study.study_id](absl::string_view line) {
    if (options_.log_optimizer_stderr) spdlog::info("[study {}] {}", id, std::string(line));
  };
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = sandbox_->Launch(cmd, stderr_sink);
  if (!child.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot start the sandbox: ", child.status().message()));
  }
  OptimizerHost host(*std::move(child), /*on_stray_stdout=*/nullptr, env_);
  // Known to DropStaleWork while it runs.
  const uint64_t generation = generation_.load();
  {
    absl::MutexLock l(&running_mu_);
    running_.insert(&host);
  }
  struct Unlist {
    Worker* w;
    OptimizerHost* h;
    ~Unlist() {
      absl::MutexLock l(&w->running_mu_);
      w->running_.erase(h);
    }
  } unlist{this, &host};
  if (Dropped(generation)) host.Kill();  // dropped between the lease and now
  // The reason a dead optimizer died, when a limit of its group killed it: "optimizer exceeded
  // its 4 GiB memory limit (optimizer closed its stdout and was killed by signal 9 ...)".
  auto why_dead = [&](const absl::Status& s, absl::string_view prefix) {
    if (cgroup != nullptr) {
      absl::StatusOr<CgroupLimitHit> hit = cgroup->LimitHit();
      if (hit.ok() && *hit != CgroupLimitHit::kNone) {
        return TruncateUtf8(absl::StrCat(prefix, DescribeLimitHit(*hit, cgroup->limits()), " (",
                                         s.message(), ")"),
                            kMaxReportBytes);
      }
    }
    return ForCoordinator(s, prefix);
  };
  auto cpu_seconds = [&]() -> std::optional<double> {
    if (cgroup == nullptr) return std::nullopt;
    absl::StatusOr<double> cpu = cgroup->CpuSeconds();
    return cpu.ok() ? std::optional<double>(*cpu) : std::nullopt;
  };
  // While the coordinator evaluates a batch the optimizer is frozen: background threads do not
  // run (nor charge the next turn). Thawed before anything is written to it again.
  const bool can_freeze = cgroup != nullptr && options_.cgroups->Has("freezer");
  auto set_frozen = [&](bool frozen) {
    if (!can_freeze) return;
    if (absl::Status s = cgroup->SetFrozen(frozen); !s.ok()) {
      spdlog::warn("study={}: {}", study.study_id, s.ToString());
    }
  };

  StartInfo start;
  start.api_config = study.api_config;
  start.budget = study.budget;
  start.remaining_s = study.remaining_s;
  start.startup_timeout = absl::Seconds(options_.startup_timeout_s);
  if (absl::Status s = host.Start(start); !s.ok()) {
    // The participant's program did not start (import error, crash in __init__): the study
    // fails with no result, which scores as random-search clip.
    spdlog::info("event=optimizer_start_failed study={} error={}", study.study_id, s.ToString());
    host.End("error");
    return client_->EndStudy(study.study_id, why_dead(s, "optimizer failed to start: "));
  }
  // Batch 0's clock starts now on the coordinator: start-up had its own budget above.
  if (absl::Status ready = client_->OptimizerReady(study.study_id); !ready.ok()) {
    if (absl::IsDeadlineExceeded(ready)) {
      host.End("budget");  // the coordinator's own start-up bound ended the study
      return absl::OkStatus();
    }
    if (!absl::IsUnimplemented(ready)) {
      host.End("error");
      return ready;
    }
    spdlog::debug("study={}: the coordinator charges start-up to batch 0 ({})", study.study_id,
                  ready.ToString());
  }

  double remaining = study.remaining_s;
  double observe_s = 0;
  std::optional<double> turn_cpu_start = cpu_seconds();
  for (int b = 0; b < study.budget.n_batches && !stop_; ++b) {
    // The coordinator's clock for this turn started before observe; what observe used is gone.
    const double turn_left =
        std::min(study.budget.suggest_budget_s - observe_s, remaining - observe_s);
    absl::Duration deadline = absl::Seconds(std::max(0.0, turn_left) + options_.kill_grace_s);
    absl::StatusOr<std::vector<nlohmann::json>> x =
        host.Suggest(b, study.budget.batch_size, remaining, deadline);
    if (Dropped(generation)) {
      host.End("error");
      return absl::UnavailableError("dropped: the coordinator restarted");
    }
    std::optional<double> turn_cpu_end = cpu_seconds();
    // A limit of the study's group hit in this turn (an OOM kill, a fork refused at the task
    // limit) ends the study, even when the optimizer survived it: its best so far stands.
    std::string limit_hit;
    if (cgroup != nullptr) {
      absl::StatusOr<CgroupLimitHit> hit = cgroup->LimitHit();
      if (hit.ok() && *hit != CgroupLimitHit::kNone) {
        limit_hit = DescribeLimitHit(*hit, cgroup->limits());
      }
    }
    absl::StatusOr<BatchValues> values;
    set_frozen(true);
    if (x.ok() && limit_hit.empty()) {
      TurnTiming timing;
      timing.suggest_s = host.last_suggest_seconds();
      timing.observe_s = observe_s;
      if (turn_cpu_start && turn_cpu_end) timing.cpu_s = *turn_cpu_end - *turn_cpu_start;
      values = client_->SubmitBatch(study.study_id, b, *x, timing);
    } else {
      const absl::StatusCode code = x.status().code();
      const bool dead = !limit_hit.empty() || code == absl::StatusCode::kUnavailable ||
                        code == absl::StatusCode::kDeadlineExceeded ||
                        code == absl::StatusCode::kResourceExhausted;
      if (dead) host.Kill();
      std::string message =
          limit_hit.empty() ? ForCoordinator(x.status())
          : x.ok()          ? limit_hit
                   : TruncateUtf8(absl::StrCat(limit_hit, " (", x.status().message(), ")"),
                                  kMaxReportBytes);
      values = client_->ReportSuggestFailure(study.study_id, b, message, dead);
    }
    // A study this worker evaluates: the batch's values are computed here, the optimizer still
    // frozen (its clock is stopped on the coordinator meanwhile).
    if (values.ok() && !values->to_evaluate.empty()) {
      if (absl::Status evaluated = EvaluateBatch(study.study_id, b, problem, *values);
          !evaluated.ok()) {
        values = evaluated;
      }
    }
    set_frozen(false);
    if (!values.ok()) {
      if (values.status().code() == absl::StatusCode::kDeadlineExceeded) {
        spdlog::info("event=study_cut_off study={} batch={}", study.study_id, b);
        host.End("budget");
        return absl::OkStatus();  // the coordinator has ended the study; the job is done
      }
      host.End("error");
      return values.status();
    }
    for (const std::string& e : values->errors) {
      spdlog::debug("study={} batch={} {}", study.study_id, b, e);
    }
    remaining = values->remaining_s;
    if (values->study_done) {
      if (!values->evaluated.empty() && b + 1 == study.budget.n_batches) {
        // As Bayesmark's run_study, the optimizer observes the last batch too (n_batches
        // observes in all). The study is complete: this time is not charged, only bounded.
        absl::Status last = host.Observe(
            b, values->evaluated, values->values,
            absl::Seconds(study.budget.suggest_budget_s + options_.kill_grace_s));
        if (!last.ok() && last.code() != absl::StatusCode::kAborted) {
          spdlog::info("event=observe_failed study={} batch={} error={}", study.study_id, b,
                       last.ToString());
        }
      }
      host.End(values->evaluated.empty() ? "error" : "done");
      return absl::OkStatus();
    }
    turn_cpu_start = cpu_seconds();
    absl::Status obs = host.Observe(b, values->evaluated, values->values,
                                    absl::Seconds(remaining + options_.kill_grace_s));
    observe_s = host.last_observe_seconds();
    if (!obs.ok() && obs.code() != absl::StatusCode::kAborted) {
      // Observe hung or the process died; the next suggest reports it.
      spdlog::info("event=observe_failed study={} batch={} error={}", study.study_id, b,
                   obs.ToString());
    }
  }
  host.End(stop_ ? "shutdown" : "done");
  if (stop_) return absl::UnavailableError("worker shutting down");
  return absl::OkStatus();
}

}  // namespace bbo
