#ifndef BBO_COMMON_SUBPROCESS_H_
#define BBO_COMMON_SUBPROCESS_H_

// Subprocess: a program started with fork + execve in its own session and process group, its
// stdin, stdout and stderr connected to the parent, resource limits applied before exec. The
// parent writes to stdin and reads stdout lines with deadlines; a thread drains stderr into a
// bounded tail (and optional callbacks), so the child can never block on a full stderr pipe.
// Killing signals the whole process group, so grandchildren that stay in the group die too.
//
// Used by the server's external problems (organizer executables) and the worker's optimizer
// processes; each wraps it in its own protocol and error messages.
//
// Thread safety: a Subprocess is used by one thread at a time, except StderrTail() and
// WaitStderrClosed(), which any thread may call. The callbacks run on the internal drain thread.

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace bbo {

struct SubprocessOptions {
  // One setrlimit applied in the child before exec: soft and hard limit both set to `value`,
  // lowered to the current hard limit when above it (as a process without CAP_SYS_RESOURCE must).
  struct Limit {
    int resource = 0;  // RLIMIT_*
    uint64_t value = 0;
  };

  // argv[0] is the path execve runs: absolute, or relative to `cwd`; there is no PATH search.
  // Required.
  std::vector<std::string> argv;
  // The child's complete environment, "KEY=value"; nothing is inherited.
  std::vector<std::string> env;
  // Working directory of the child. Default: empty = the parent's.
  std::string cwd;
  // Applied in this order. Core dumps stay as they are unless listed (RLIMIT_CORE, 0).
  std::vector<Limit> limits;
  // true: stdin is one end of an AF_UNIX stream socket, so writing to a dead child fails with
  // EPIPE without raising SIGPIPE, and CloseStdin() half-closes it. false (default): a pipe; the
  // parent must ignore SIGPIPE, or a write to a dead child kills it.
  bool stdin_is_socket = false;
  // The host identity the child runs as, set after the limits and before chdir and exec: its
  // supplementary groups become just `gid`, then setgid(gid), setuid(uid). Needs a root parent
  // (CAP_SETUID/CAP_SETGID); a child that cannot switch exits 126 (ExecError kCredentials)
  // rather than run as the parent. Unset (default): the parent's identity.
  struct Identity {
    uid_t uid = 0;
    gid_t gid = 0;
  };
  std::optional<Identity> run_as;
  // Descriptors the child keeps open across exec under the same numbers (close-on-exec is
  // cleared in the child only), e.g. a seccomp filter for `bwrap --seccomp FD`. Each must be
  // >= 3 and open in the parent until Spawn returns; the caller keeps ownership. Every other
  // descriptor above 2 is closed in the child.
  std::vector<int> inherited_fds;
  // cgroup.procs files the child joins before anything else (it writes "0" into each, right
  // after fork, while it still has the parent's privileges), so the program and everything it
  // forks start inside those control groups with no window outside them. A child that cannot
  // join exits 126 (ExecError kCgroup) rather than run unconfined.
  std::vector<std::string> cgroup_procs_files;
  // How many of the latest stderr bytes StderrTail() keeps. Default 4 KiB.
  size_t stderr_tail_bytes = 4096;
  // If set, called with every chunk of stderr as it is read.
  std::function<void(absl::string_view chunk)> on_stderr_chunk;
  // If set, called with every stderr line (without '\n'), and with an unterminated last line at
  // the end. A partial line longer than stderr_tail_bytes is dropped.
  std::function<void(absl::string_view line)> on_stderr_line;
};

class Subprocess {
 public:
  // Why the child did not get to run its program (it then exits with status 126 or 127, which
  // the parent still has to reap).
  struct ExecError {
    enum class Stage {
      kChdir,        // chdir(cwd) failed: exit status 126
      kCredentials,  // switching to run_as failed: exit status 126
      kCgroup,       // joining a cgroup_procs_files entry failed: exit status 126
      kExec,   // execve(argv[0]) failed: exit status 127
    };
    Stage stage = Stage::kExec;
    int error_number = 0;  // errno of the failed call
  };

  // Forks and execs, and waits until the exec has happened or failed. Errors:
  //   InvalidArgument: empty argv, or an inherited descriptor below 3 or not open;
  //   ResourceExhausted: the pipes or the fork could not be created ("cannot create pipes: ...",
  //     "fork: ...").
  // A failed chdir or exec is not an error of Spawn: see exec_error().
  static absl::StatusOr<std::unique_ptr<Subprocess>> Spawn(SubprocessOptions options);

  // Kills the process group, reaps the child (waiting at most 5 s: a process stuck in the kernel
  // is left to init), reads what stderr already holds, and closes the descriptors.
  ~Subprocess();

  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  // The child's pid, which is also its process group and session id.
  pid_t pid() const { return pid_; }

  // Set when the child failed before running the program.
  const std::optional<ExecError>& exec_error() const { return exec_error_; }

  // Writes all of `data` to the child's stdin. Unavailable when the child no longer reads it
  // (closed or exited; the message is strerror's), or after CloseStdin(); DeadlineExceeded when
  // the child did not take the data by `deadline` (part of it may have been written).
  absl::Status Write(absl::string_view data, absl::Time deadline);

  // End of input for the child: half-closes a socket, closes a pipe.
  void CloseStdin();

  // The next stdout line, without '\n' (and without a '\r' before it). Errors:
  //   Unavailable: stdout closed before a complete line;
  //   DeadlineExceeded: no complete line by `deadline`;
  //   ResourceExhausted: more than `max_line_bytes` buffered without a newline;
  //   Internal: poll failed.
  absl::StatusOr<std::string> ReadLine(absl::Time deadline, size_t max_line_bytes);

  // SIGKILL to the process group and to the child. Does not wait; a no-op once reaped.
  void KillGroup();

  // Waits until the child exits or `deadline` passes; true once it is reaped. When it exits,
  // what it left running in its group is killed before the reaping, while the unreaped child
  // still pins the group id (so the kill cannot hit a new group that reused it).
  bool WaitExit(absl::Time deadline);

  bool reaped() const { return reaped_; }
  // The wait status (waitpid's encoding) once reaped; nullopt before, or when the status was
  // lost because something else reaped the child.
  std::optional<int> wait_status() const { return wait_status_; }

  // The latest stderr_tail_bytes of stderr.
  std::string StderrTail() const;

  // Waits until the drain thread has seen the end of stderr (every process holding it has
  // exited or closed it) or `deadline` passes; true if it has.
  bool WaitStderrClosed(absl::Time deadline);

 private:
  Subprocess(SubprocessOptions options, pid_t pid, int stdin_fd, int stdout_fd, int stderr_fd);

  // Runs on drain_: feeds the tail and the callbacks until stderr closes or stop_drain_.
  void DrainStderr(int fd);

  const SubprocessOptions options_;
  const pid_t pid_;
  int stdin_fd_;
  const int stdout_fd_;
  std::optional<ExecError> exec_error_;
  std::string stdout_buffer_;
  // ReadLine: where the next line starts, and how far the buffer was searched for its end.
  size_t stdout_pos_ = 0;
  size_t stdout_scan_ = 0;
  bool stdout_eof_ = false;
  bool reaped_ = false;
  std::optional<int> wait_status_;

  std::thread drain_;
  // Asks the drain thread to stop once stderr holds nothing more: a descendant that escaped the
  // process group may keep the pipe open for ever.
  std::atomic<bool> stop_drain_{false};
  mutable absl::Mutex stderr_mu_;
  std::string stderr_tail_ ABSL_GUARDED_BY(stderr_mu_);
  bool stderr_closed_ ABSL_GUARDED_BY(stderr_mu_) = false;
};

}  // namespace bbo

#endif  // BBO_COMMON_SUBPROCESS_H_
