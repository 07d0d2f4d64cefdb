#ifndef BBO_COMMON_CHILD_PROCESS_H_
#define BBO_COMMON_CHILD_PROCESS_H_

// ChildProcess: a running program spoken to in lines: a line writer on its stdin, a line reader
// on its stdout, both with deadlines, and its stderr drained into a bounded tail (plus optional
// per-line and per-chunk callbacks). The one adapter over common/subprocess.h: the worker's
// optimizers and the coordinator's external problems both run through it, each with its own
// protocol on top.
//
// ProcessLauncher is the seam tests use to inject failing, stalling or lying processes;
// PosixProcessLauncher is the real one (fork + exec, a new session so the whole group can be
// killed, rlimits applied in the child).
//
// Error messages name the program as ProcessSpec::name says ("optimizer", "the process"):
//   "<name> closed its stdout and exited with status 3; stderr: "<last bytes, JSON-quoted>"".
//
// A child launched with ProcessSpec::die_with_host is SIGKILLed by the kernel when the process
// that launched it (its host) dies, however it dies, SIGKILL included.
//
// Thread safety: a ChildProcess is used by one thread (its host); the stderr drain runs on an
// internal thread (the callbacks run there) and StderrTail() may be called from any thread.
// Launch may be called concurrently (die_with_host launches are forked one at a time).

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/subprocess.h"

namespace bbo {

// Resource limits applied with setrlimit in the child before exec. 0 = leave unchanged. Core
// dumps are always off.
struct ResourceLimits {
  // CPU time, seconds (RLIMIT_CPU).
  uint64_t cpu_seconds = 3600;
  // Address space, bytes (RLIMIT_AS).
  uint64_t address_space_bytes = 8ull << 30;
  // Processes/threads of the child's real uid (RLIMIT_NPROC). Under bubblewrap started by root
  // that uid is root on the host, whose other processes count too, hence the generous default;
  // the per-sandbox bound is the study cgroup's task limit (worker/cgroup.h).
  uint64_t max_processes = 4096;
  // Largest file the child may write, bytes (RLIMIT_FSIZE).
  uint64_t file_size_bytes = 256ull << 20;
  // Open file descriptors (RLIMIT_NOFILE).
  uint64_t open_files = 1024;

  // Every limit 0: the child inherits the parent's.
  static ResourceLimits Unchanged() { return {0, 0, 0, 0, 0}; }
};

using LineCallback = std::function<void(absl::string_view line)>;

struct ProcessSpec {
  // argv[0] is the program execve runs: an absolute path, or relative to `cwd`; no PATH search.
  std::vector<std::string> argv;
  // The complete environment ("KEY=value"); nothing is inherited.
  std::vector<std::string> env;
  // Working directory (empty: unchanged).
  std::string cwd;
  ResourceLimits limits;
  // Descriptors the child keeps open across exec under the same numbers (each >= 3, owned and
  // kept open by the caller until Launch returns), e.g. `bwrap --seccomp FD`.
  std::vector<int> inherited_fds;
  // cgroup.procs files the child joins before exec (SubprocessOptions::cgroup_procs_files).
  std::vector<std::string> cgroup_procs_files;
  // How error messages call the program. Default "the process".
  std::string name = "the process";
  // true: stdin is a socket, so a write to a dead child fails without SIGPIPE (for hosts that
  // must not change the process-wide SIGPIPE disposition). false (default): a pipe, and Launch
  // ignores SIGPIPE process-wide.
  bool stdin_is_socket = false;
  // The host identity the program runs as (SubprocessOptions::run_as); unset = the launcher's.
  std::optional<SubprocessOptions::Identity> run_as;
  // Longest stdout line ReadLine accepts, bytes. Default 64 MiB.
  size_t max_line_bytes = 64u << 20;
  // How many of the latest stderr bytes StderrTail() keeps. Default 64 KiB.
  size_t stderr_tail_bytes = 64u << 10;
  // If set, called with every stderr line (without '\n').
  LineCallback on_stderr_line;
  // If set, called with every chunk of stderr as it is read.
  std::function<void(absl::string_view chunk)> on_stderr_chunk;
  // true: the kernel SIGKILLs the child when this process dies (PR_SET_PDEATHSIG), even when
  // this process is SIGKILLed, and a child whose host died while it was being forked kills
  // itself. It covers the child only, not what it forks (killing its group stays the host's
  // job), and a credential change (run_as) clears it. Default false: the child may outlive it.
  bool die_with_host = false;
};

class ChildProcess {
 public:
  virtual ~ChildProcess() = default;
  // OK when the program runs; InvalidArgument when the chdir to `cwd` or the exec failed (the
  // child then exits with status 126 / 127, as a read from it also reports).
  virtual absl::Status ExecStatus() const { return absl::OkStatus(); }
  // Writes `line` plus '\n'. Unavailable when the child has closed its stdin or exited (the
  // message says how it ended, with the stderr tail); DeadlineExceeded when it did not take the
  // line by `deadline`.
  virtual absl::Status WriteLine(absl::string_view line, absl::Time deadline) = 0;
  // End of input for the child.
  virtual void CloseStdin() = 0;
  // The next line from stdout (without '\n'). DeadlineExceeded at `deadline` ("<name> did not
  // answer in time"); Unavailable when stdout closed (how the child ended, plus the stderr
  // tail); ResourceExhausted for a line over max_line_bytes; Internal when poll fails.
  virtual absl::StatusOr<std::string> ReadLine(absl::Time deadline) = 0;
  // SIGKILL to the whole process group. Does not wait.
  virtual void Kill() = 0;
  // Waits until the child exits or `deadline` passes; true once it is reaped.
  virtual bool WaitExit(absl::Time deadline) = 0;
  // Waits up to `timeout` for the exit, killing the child after it. Returns the exit status
  // (128 + signal when killed by a signal; -1 when the status was lost).
  virtual int Wait(absl::Duration timeout) = 0;
  // The last stderr_tail_bytes of stderr.
  virtual std::string StderrTail() = 0;
  virtual pid_t pid() const = 0;
};

class ProcessLauncher {
 public:
  virtual ~ProcessLauncher() = default;
  // Starts `spec`. InvalidArgument for an empty argv or a bad inherited descriptor;
  // ResourceExhausted when pipes or the fork fail. A program that cannot be executed is not an error here: see ExecStatus().
  virtual absl::StatusOr<std::unique_ptr<ChildProcess>> Launch(const ProcessSpec& spec) = 0;
};

class PosixProcessLauncher : public ProcessLauncher {
 public:
  absl::StatusOr<std::unique_ptr<ChildProcess>> Launch(const ProcessSpec& spec) override;
};

// "exited with status 3", "was killed by signal 9 (SIGKILL)" for a waitpid status.
std::string WaitStatusText(int wait_status);

}  // namespace bbo

#endif  // BBO_COMMON_CHILD_PROCESS_H_
