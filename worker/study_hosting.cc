// Worker's hosting of one study (worker.h): the study's control group and /tmp, the optimizer
// in the sandbox, and its turns relayed to the coordinator.

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/status_macros.h"
#include "common/utf8.h"
#include "spdlog/spdlog.h"
#include "worker/internal/report_text.h"
#include "worker/optimizer_host.h"
#include "worker/study_tmp.h"
#include "worker/worker.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;
using worker_internal::ForCoordinator;
using worker_internal::kMaxReportBytes;

// Paths inside the sandbox.
constexpr char kSandboxPythonDir[] = "/opt/bbo/python";

// The reason a dead optimizer died, when a limit of its group (`cgroup`, may be null) killed
// it: "optimizer exceeded its 4 GiB memory limit (optimizer closed its stdout and was killed by
// signal 9 ...)"; else `prefix` and `s`.
std::string WhyDead(StudyCgroup* cgroup, const absl::Status& s, absl::string_view prefix) {
  if (cgroup != nullptr) {
    absl::StatusOr<CgroupLimitHit> hit = cgroup->LimitHit();
    if (hit.ok() && *hit != CgroupLimitHit::kNone) {
      return TruncateUtf8(absl::StrCat(prefix, DescribeLimitHit(*hit, cgroup->limits()), " (",
                                       s.message(), ")"),
                          kMaxReportBytes);
    }
  }
  return ForCoordinator(s, prefix);
}

// The CPU time of the study's processes so far (nullopt: no group, or it cannot say).
std::optional<double> CpuSeconds(StudyCgroup* cgroup) {
  if (cgroup == nullptr) return std::nullopt;
  absl::StatusOr<double> cpu = cgroup->CpuSeconds();
  return cpu.ok() ? std::optional<double>(*cpu) : std::nullopt;
}

// A turn begins: the group's memory high-water mark restarts (where the kernel allows it).
// Returns the CPU time of the study's processes so far (nullopt: no group, or it cannot say).
std::optional<double> TurnBegins(StudyCgroup* cgroup) {
  if (cgroup != nullptr) cgroup->ResetMemoryPeak().IgnoreError();  // unknown then: no figure
  return CpuSeconds(cgroup);
}

// The most memory the study's processes held at once since the turn began, MiB.
std::optional<double> TurnPeakMiB(StudyCgroup* cgroup) {
  if (cgroup == nullptr) return std::nullopt;
  absl::StatusOr<uint64_t> bytes = cgroup->MemoryPeakSinceReset();
  return bytes.ok() ? std::optional<double>(static_cast<double>(*bytes) / (1 << 20)) : std::nullopt;
}

}  // namespace

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
  if (std::optional<absl::Status> ended = StartOptimizer(host, study, cgroup)) return *ended;
  return RunTurns(host, study, cgroup, problem, generation);
}

std::optional<absl::Status> Worker::StartOptimizer(OptimizerHost& host, const OpenedStudy& study,
                                                   StudyCgroup* cgroup) {
  StartInfo start;
  start.api_config = study.api_config;
  start.budget = study.budget;
  start.remaining_s = study.remaining_s;
  start.startup_timeout = absl::Seconds(options_.startup_timeout_s);
  if (absl::Status s = host.Start(start); !s.ok()) {
    if (stop_) {
      host.End("shutdown");  // killed by HandBack: the study is handed back, not failed
      return absl::UnavailableError("worker shutting down");
    }
    // The participant's program did not start (import error, crash in __init__): the study
    // fails with no result, which scores as random-search clip.
    spdlog::info("event=optimizer_start_failed study={} error={}", study.study_id, s.ToString());
    host.End("error");
    return client_->EndStudy(study.study_id, WhyDead(cgroup, s, "optimizer failed to start: "));
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
  return std::nullopt;
}

absl::Status Worker::RunTurns(OptimizerHost& host, const OpenedStudy& study, StudyCgroup* cgroup,
                              const Problem* problem, uint64_t generation) {
  TurnClock clock;
  clock.remaining_s = study.remaining_s;
  clock.cpu_start_s = TurnBegins(cgroup);
  for (int b = 0; b < study.budget.n_batches && !stop_; ++b) {
    // The coordinator's clock for this turn started before observe; what observe used is gone.
    const double turn_left = std::min(study.budget.suggest_budget_s - clock.observe_s,
                                      clock.remaining_s - clock.observe_s);
    absl::Duration deadline = absl::Seconds(std::max(0.0, turn_left) + options_.kill_grace_s);
    absl::StatusOr<std::vector<nlohmann::json>> x =
        host.Suggest(b, study.budget.batch_size, clock.remaining_s, deadline);
    if (Dropped(generation)) {
      host.End("error");
      return absl::UnavailableError("dropped: the coordinator restarted");
    }
    if (absl::IsUnavailable(x.status())) {
      // A batch system stopping its job signals every process in it, the optimizer included,
      // and this worker's own SIGTERM may be taken a moment after the optimizer has died: give
      // it half a second before calling the death the optimizer's.
      for (int i = 0; i < 10 && !stop_; ++i) env_->SleepFor(absl::Milliseconds(50));
    }
    if (!x.ok() && stop_) {
      // Killed by HandBack (or by a batch system signalling every process of its job): the
      // worker's stop, not the optimizer's failure.
      host.End("shutdown");
      return absl::UnavailableError("worker shutting down");
    }
    absl::StatusOr<BatchValues> values = ReportTurn(host, study, b, x, clock, cgroup, problem);
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
    clock.remaining_s = values->remaining_s;
    if (values->study_done) {
      EndDoneStudy(host, study, b, *values);
      return absl::OkStatus();
    }
    clock.cpu_start_s = TurnBegins(cgroup);
    absl::Status obs = host.Observe(b, values->evaluated, values->values,
                                    absl::Seconds(clock.remaining_s + options_.kill_grace_s));
    clock.observe_s = host.last_observe_seconds();
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

absl::StatusOr<BatchValues> Worker::ReportTurn(OptimizerHost& host, const OpenedStudy& study,
                                               int b,
                                               const absl::StatusOr<std::vector<nlohmann::json>>& x,
                                               const TurnClock& clock, StudyCgroup* cgroup,
                                               const Problem* problem) {
  std::optional<double> turn_cpu_end = CpuSeconds(cgroup);
  std::optional<double> turn_peak_mib = TurnPeakMiB(cgroup);
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
  SetFrozen(cgroup, study.study_id, true);
  if (x.ok() && limit_hit.empty()) {
    TurnReport turn;
    turn.suggest_s = host.last_suggest_seconds();
    turn.observe_s = clock.observe_s;
    if (clock.cpu_start_s && turn_cpu_end) {
      turn.figures.optimizer_cpu_s = *turn_cpu_end - *clock.cpu_start_s;
    }
    turn.figures.optimizer_peak_memory_mb = turn_peak_mib;
    values = client_->SubmitBatch(study.study_id, b, *x, turn);
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
  SetFrozen(cgroup, study.study_id, false);
  return values;
}

void Worker::EndDoneStudy(OptimizerHost& host, const OpenedStudy& study, int b,
                          const BatchValues& values) {
  if (!values.evaluated.empty() && b + 1 == study.budget.n_batches) {
    // As Bayesmark's run_study, the optimizer observes the last batch too (n_batches
    // observes in all). The study is complete: this time is not charged, only bounded.
    absl::Status last =
        host.Observe(b, values.evaluated, values.values,
                     absl::Seconds(study.budget.suggest_budget_s + options_.kill_grace_s));
    if (!last.ok() && last.code() != absl::StatusCode::kAborted) {
      spdlog::info("event=observe_failed study={} batch={} error={}", study.study_id, b,
                   last.ToString());
    }
  }
  host.End(values.evaluated.empty() ? "error" : "done");
}

void Worker::SetFrozen(StudyCgroup* cgroup, int64_t study_id, bool frozen) {
  // While the coordinator evaluates a batch the optimizer is frozen: background threads do not
  // run (nor charge the next turn). Thawed before anything is written to it again.
  if (cgroup == nullptr || !options_.cgroups->Has("freezer")) return;
  if (absl::Status s = cgroup->SetFrozen(frozen); !s.ok()) {
    spdlog::warn("study={}: {}", study_id, s.ToString());
  }
}

}  // namespace bbo
