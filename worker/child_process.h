#ifndef BBO_WORKER_CHILD_PROCESS_H_
#define BBO_WORKER_CHILD_PROCESS_H_

// ChildProcess: a running program with a pipe to its stdin, a line reader on its stdout and its
// stderr drained into a bounded tail (plus an optional per-line callback). ProcessLauncher is the
// seam tests use to inject failing or stalling processes; PosixProcessLauncher is the real one
// (common/subprocess.h: fork + exec, a new session so the whole group can be killed, rlimits
// applied in the child).
//
// Thread safety: a ChildProcess is used by one thread (its host); the stderr drain runs on an
// internal thread and StderrTail() may be called from any thread.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace bbo {

// Resource limits applied with setrlimit in the child before exec. 0 = leave unchanged.
struct ResourceLimits {
  // CPU time, seconds (RLIMIT_CPU).
  uint64_t cpu_seconds = 3600;
  // Address space, bytes (RLIMIT_AS).
  uint64_t address_space_bytes = 8ull << 30;
  // Processes/threads of the child's real uid (RLIMIT_NPROC). Under bubblewrap started by root
  // that uid is root on the host, whose other processes count too, hence the generous default;
  // the per-sandbox bound belongs to the cgroups pids controller (a later hardening step).
  uint64_t max_processes = 4096;
  // Largest file the child may write, bytes (RLIMIT_FSIZE).
  uint64_t file_size_bytes = 256ull << 20;
  // Open file descriptors (RLIMIT_NOFILE).
  uint64_t open_files = 1024;
};

struct ProcessSpec {
  // argv[0] is the program (absolute path, or found on PATH of `env`... use absolute paths).
  std::vector<std::string> argv;
  // The complete environment ("KEY=value"); nothing is inherited.
  std::vector<std::string> env;
  // Working directory (empty: unchanged).
  std::string cwd;
  ResourceLimits limits;
};

using LineCallback = std::function<void(absl::string_view line)>;

class ChildProcess {
 public:
  virtual ~ChildProcess() = default;
  // Writes `line` plus '\n'. Unavailable when the child has closed its stdin or exited.
  virtual absl::Status WriteLine(absl::string_view line) = 0;
  // The next line from stdout (without '\n'). DeadlineExceeded at `deadline`; Unavailable when
  // stdout closed ("optimizer exited with status N" / "killed by signal S", plus the stderr
  // tail); ResourceExhausted for a line over 64 MiB.
  virtual absl::StatusOr<std::string> ReadLine(absl::Time deadline) = 0;
  // SIGKILL to the whole process group.
  virtual void Kill() = 0;
  // Waits up to `timeout` for the exit, killing the child after it. Returns the exit status
  // (128 + signal when killed by a signal).
  virtual int Wait(absl::Duration timeout) = 0;
  // The last 64 KiB of stderr.
  virtual std::string StderrTail() = 0;
  virtual pid_t pid() const = 0;
};

class ProcessLauncher {
 public:
  virtual ~ProcessLauncher() = default;
  virtual absl::StatusOr<std::unique_ptr<ChildProcess>> Launch(const ProcessSpec& spec,
                                                               LineCallback on_stderr_line) = 0;
};

class PosixProcessLauncher : public ProcessLauncher {
 public:
  absl::StatusOr<std::unique_ptr<ChildProcess>> Launch(const ProcessSpec& spec,
                                                       LineCallback on_stderr_line) override;
};

}  // namespace bbo

#endif  // BBO_WORKER_CHILD_PROCESS_H_
