#include "worker/child_process.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/status_macros.h"
#include "common/subprocess.h"

namespace bbo {
namespace {

constexpr size_t kMaxLine = 64u << 20;
constexpr size_t kStderrTail = 64u << 10;

class PosixChildProcess : public ChildProcess {
 public:
  explicit PosixChildProcess(std::unique_ptr<Subprocess> process) : process_(std::move(process)) {}

  ~PosixChildProcess() override {
    Kill();
    Wait(absl::Seconds(2));
  }

  absl::Status WriteLine(absl::string_view line) override {
    // SIGPIPE is ignored process-wide (see Launch), so a dead optimizer fails the write.
    if (!process_->Write(absl::StrCat(line, "\n"), absl::InfiniteFuture()).ok()) {
      return absl::UnavailableError(Exited("cannot write to the optimizer"));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> ReadLine(absl::Time deadline) override {
    absl::StatusOr<std::string> line = process_->ReadLine(deadline, kMaxLine);
    if (line.ok()) return line;
    switch (line.status().code()) {
      case absl::StatusCode::kResourceExhausted:
        return absl::ResourceExhaustedError("optimizer printed a line longer than 64 MiB");
      case absl::StatusCode::kUnavailable:
        return absl::UnavailableError(Exited("optimizer closed its stdout"));
      case absl::StatusCode::kDeadlineExceeded:
        return absl::DeadlineExceededError("optimizer did not answer in time");
      default:
        return absl::InternalError("poll failed");
    }
  }

  void Kill() override { process_->KillGroup(); }

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
  std::string Exited(absl::string_view what) {
    const int st = Wait(absl::Milliseconds(500));
    const std::optional<int> status = process_->wait_status();
    const bool signaled = status.has_value() && WIFSIGNALED(*status);
    std::string how = signaled ? absl::StrCat("killed by signal ", st - 128)
                               : absl::StrCat("exited with status ", st);
    std::string tail = StderrTail();
    if (tail.size() > 2000) tail = "..." + tail.substr(tail.size() - 2000);
    return absl::StrCat(what, ": ", how, tail.empty() ? "" : "; stderr: ", tail);
  }

  const std::unique_ptr<Subprocess> process_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ChildProcess>> PosixProcessLauncher::Launch(
    const ProcessSpec& spec, LineCallback on_stderr_line) {
  if (spec.argv.empty()) return absl::InvalidArgumentError("argv: empty");
  // A dead optimizer must not kill the worker when it writes to the closed pipe.
  signal(SIGPIPE, SIG_IGN);
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
  options.stderr_tail_bytes = kStderrTail;
  options.on_stderr_line = std::move(on_stderr_line);
  // A program that cannot be executed is not an error here: its exit status 127 (126 for a
  // missing cwd) surfaces when the host reads from it, as for any optimizer that dies early.
  ASSIGN_OR_RETURN(std::unique_ptr<Subprocess> process, Subprocess::Spawn(std::move(options)));
  return std::unique_ptr<ChildProcess>(new PosixChildProcess(std::move(process)));
}

}  // namespace bbo
