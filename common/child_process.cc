#include "common/child_process.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <deque>
#include <optional>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/status_macros.h"
#include "common/subprocess.h"
#include "common/utf8.h"
#include "nlohmann/json.hpp"

namespace bbo {
namespace {

// How much of the stderr tail an error message quotes, bytes.
constexpr size_t kQuotedTail = 2000;
// How long a child whose stdout closed may take to exit before it counts as still running.
constexpr absl::Duration kExitGrace = absl::Seconds(1);
// How long to let the drain thread catch up with what the child wrote just before it ended.
constexpr absl::Duration kStderrCatchUp = absl::Milliseconds(300);

std::string QuoteJson(absl::string_view text) {
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Children that die with their host (ProcessSpec::die_with_host).
//
// PR_SET_PDEATHSIG fires when the *thread* that forked the child exits, not when the process
// does. Children are launched by whichever thread needs one (an evaluation thread of an
// external problem's pool, a short-lived start-up thread) and kept after that thread ends, so a
// death signal tied to the launching thread would kill healthy idle children, and the next
// request on one would fail. These children are therefore forked by one spawner thread that
// never exits: it ends only with the process, which is exactly when the signal must fire.
//
// Subprocess::Spawn forks and runs only its own code in the child before exec, so the setting
// is made by a pthread_atfork child handler, which runs in the child inside fork() itself
// (Subprocess uses fork(), which runs the handlers). It acts only in children of the spawner
// thread (a thread-local the child inherits from the thread that forked it): every other fork in
// the process is left alone.

// The host's pid on the spawner thread, 0 on every other thread.
thread_local pid_t death_signal_host = 0;

// The pthread_atfork child handler: async-signal-safe calls only.
void SetDeathSignalInChild() {
  const pid_t host = death_signal_host;
  if (host == 0) return;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The host may have died between fork and prctl: nothing would ever signal this child then.
  if (getppid() != host) kill(getpid(), SIGKILL);
}

// Registers SetDeathSignalInChild once per process; false if that failed.
bool DeathSignalHandlerInstalled() {
  static const bool installed = pthread_atfork(nullptr, nullptr, &SetDeathSignalInChild) == 0;
  return installed;
}

// The thread that forks die_with_host children, one at a time. It never exits, and is never
// destroyed.
class SpawnerThread {
 public:
  // This process's spawner, started on first use. A child forked without exec (a test's host)
  // starts its own: the parent's spawner thread does not exist there.
  static SpawnerThread& OfThisProcess() {
    static absl::Mutex* const mu = new absl::Mutex();
    static SpawnerThread* spawner = nullptr;
    absl::MutexLock l(mu);
    if (spawner == nullptr || spawner->pid_ != getpid()) spawner = new SpawnerThread();
    return *spawner;
  }

  // Runs `fork_child` on the spawner thread; returns once it has run.
  void Run(absl::FunctionRef<void()> fork_child) {
    Job job{fork_child};
    absl::MutexLock l(&mu_);
    queue_.push_back(&job);
    mu_.Await(absl::Condition(&job.done));
  }

 private:
  struct Job {
    absl::FunctionRef<void()> fork_child;
    bool done = false;
  };

  SpawnerThread() : pid_(getpid()) {
    std::thread([this] { Loop(); }).detach();
  }

  void Loop() {
    // Signals sent to the process are for its other threads; a child starts with an empty mask.
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    death_signal_host = pid_;
    while (true) {
      Job* job;
      {
        absl::MutexLock l(&mu_);
        mu_.Await(absl::Condition(this, &SpawnerThread::HasJob));
        job = queue_.front();
        queue_.pop_front();
      }
      job->fork_child();
      absl::MutexLock l(&mu_);
      job->done = true;
    }
  }

  bool HasJob() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !queue_.empty(); }

  const pid_t pid_;
  absl::Mutex mu_;
  std::deque<Job*> queue_ ABSL_GUARDED_BY(mu_);
};

class PosixChildProcess : public ChildProcess {
 public:
  PosixChildProcess(std::unique_ptr<Subprocess> process, const ProcessSpec& spec)
      : process_(std::move(process)),
        name_(spec.name),
        program_(spec.argv[0]),
        cwd_(spec.cwd),
        max_line_(spec.max_line_bytes) {}

  ~PosixChildProcess() override {
    Kill();
    Wait(absl::Seconds(2));
  }

  absl::Status ExecStatus() const override {
    const std::optional<Subprocess::ExecError>& failure = process_->exec_error();
    if (!failure.has_value()) return absl::OkStatus();
    const char* reason = strerror(failure->error_number);
    if (failure->stage == Subprocess::ExecError::Stage::kCredentials) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot run ", QuoteJson(program_), " as an unprivileged user: ", reason));
    }
    if (failure->stage == Subprocess::ExecError::Stage::kCgroup) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot place ", QuoteJson(program_), " in its control group: ", reason));
    }
    if (failure->stage == Subprocess::ExecError::Stage::kChdir) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot change to the working directory ", QuoteJson(cwd_), ": ", reason));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("cannot execute ", QuoteJson(program_), ": ", reason));
  }

  absl::Status WriteLine(absl::string_view line, absl::Time deadline) override {
    absl::Status written = process_->Write(absl::StrCat(line, "\n"), deadline);
    if (absl::IsDeadlineExceeded(written)) {
      return absl::DeadlineExceededError(absl::StrCat(name_, " did not read its input in time"));
    }
    if (!written.ok()) return absl::UnavailableError(Ended("could not be written to"));
    return absl::OkStatus();
  }

  void CloseStdin() override { process_->CloseStdin(); }

  absl::StatusOr<std::string> ReadLine(absl::Time deadline) override {
    absl::StatusOr<std::string> line = process_->ReadLine(deadline, max_line_);
    if (line.ok()) return line;
    switch (line.status().code()) {
      case absl::StatusCode::kResourceExhausted:
        return absl::ResourceExhaustedError(
            absl::StrCat(name_, " printed a line longer than ", max_line_ >> 20, " MiB"));
      case absl::StatusCode::kUnavailable:
        return absl::UnavailableError(Ended("closed its stdout"));
      case absl::StatusCode::kDeadlineExceeded:
        return absl::DeadlineExceededError(absl::StrCat(name_, " did not answer in time"));
      default:
        return absl::InternalError(absl::StrCat("reading from ", name_, ": ",
                                                line.status().message()));
    }
  }

  void Kill() override { process_->KillGroup(); }

  bool WaitExit(absl::Time deadline) override { return process_->WaitExit(deadline); }

  int Wait(absl::Duration timeout) override {
    absl::Time until = absl::Now() + timeout;
    while (!process_->WaitExit(until)) {
      process_->KillGroup();
      until = absl::Now() + absl::Seconds(5);
    }
    const std::optional<int> status = process_->wait_status();
    if (!status.has_value()) return -1;
    return WIFEXITED(*status) ? WEXITSTATUS(*status) : 128 + WTERMSIG(*status);
  }

  std::string StderrTail() override { return process_->StderrTail(); }

  pid_t pid() const override { return process_->pid(); }

 private:
  // "<name> <what> and exited with status 3; stderr: "..."".
  std::string Ended(absl::string_view what) {
    std::string how;
    if (process_->WaitExit(absl::Now() + kExitGrace)) {
      const std::optional<int> status = process_->wait_status();
      how = status.has_value() ? WaitStatusText(*status) : "exited";
    } else {
      process_->KillGroup();
      // After SIGKILL only a process stuck in the kernel outlives this wait; it is left to init.
      process_->WaitExit(absl::Now() + absl::Seconds(5));
      how = "was still running (killed)";
    }
    process_->WaitStderrClosed(absl::Now() + kStderrCatchUp);
    const std::string tail = StderrBlock(process_->StderrTail(), kQuotedTail);
    return absl::StrCat(name_, " ", what, " and ", how,
                        tail.empty() ? "; no stderr" : "; its stderr ended with:" + tail);
  }

  const std::unique_ptr<Subprocess> process_;
  const std::string name_;
  const std::string program_;
  const std::string cwd_;
  const size_t max_line_;
};

}  // namespace

std::string WaitStatusText(int wait_status) {
  if (WIFEXITED(wait_status)) return absl::StrCat("exited with status ", WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    const char* abbrev = sigabbrev_np(WTERMSIG(wait_status));
    return absl::StrCat("was killed by signal ", WTERMSIG(wait_status), " (SIG",
                        abbrev != nullptr ? abbrev : "?", ")");
  }
  return "stopped";
}

absl::StatusOr<std::unique_ptr<ChildProcess>> PosixProcessLauncher::Launch(
    const ProcessSpec& spec) {
  if (spec.argv.empty()) return absl::InvalidArgumentError("argv: empty");
  // A dead child must not kill this process when it writes to the closed pipe.
  if (!spec.stdin_is_socket) signal(SIGPIPE, SIG_IGN);
  SubprocessOptions options;
  options.argv = spec.argv;
  options.env = spec.env;
  options.cwd = spec.cwd;
  const ResourceLimits& lim = spec.limits;
  using Limit = SubprocessOptions::Limit;
  for (const Limit& limit :
       {Limit{RLIMIT_CPU, lim.cpu_seconds}, Limit{RLIMIT_AS, lim.address_space_bytes},
        Limit{RLIMIT_NPROC, lim.max_processes}, Limit{RLIMIT_FSIZE, lim.file_size_bytes},
        Limit{RLIMIT_NOFILE, lim.open_files}}) {
    if (limit.value != 0) options.limits.push_back(limit);  // 0 = leave unchanged
  }
  options.limits.push_back({RLIMIT_CORE, 0});
  options.stdin_is_socket = spec.stdin_is_socket;
  options.run_as = spec.run_as;
  options.inherited_fds = spec.inherited_fds;
  options.cgroup_procs_files = spec.cgroup_procs_files;
  options.stderr_tail_bytes = spec.stderr_tail_bytes;
  options.on_stderr_line = spec.on_stderr_line;
  options.on_stderr_chunk = spec.on_stderr_chunk;
  absl::StatusOr<std::unique_ptr<Subprocess>> spawned = absl::UnknownError("not spawned");
  if (spec.die_with_host) {
    if (!DeathSignalHandlerInstalled()) {
      return absl::ResourceExhaustedError("pthread_atfork failed: cannot tie a child to its host");
    }
    SpawnerThread::OfThisProcess().Run([&] { spawned = Subprocess::Spawn(std::move(options)); });
  } else {
    spawned = Subprocess::Spawn(std::move(options));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Subprocess> process, std::move(spawned));
  return std::unique_ptr<ChildProcess>(new PosixChildProcess(std::move(process), spec));
}

}  // namespace bbo
