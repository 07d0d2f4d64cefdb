#include "common/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace bbo {
namespace {

// Once asked to stop, the drain still reads what stderr already holds, up to this much (a pipe
// holds 64 KiB by default): the last lines a killed child wrote are often the useful ones.
constexpr size_t kFinalStderrBytes = 1u << 20;

// A poll() timeout that ends at `deadline` but at most 200 ms away, so that the loops around it
// re-check the clock.
int PollMillis(absl::Time deadline) {
  const int64_t left = absl::ToInt64Milliseconds(deadline - absl::Now());
  return static_cast<int>(std::clamp<int64_t>(left, 0, 199) + 1);
}

// A pipe or stream socket pair between parent and child, both ends close-on-exec and >= 3 (so
// that the child's dup2 onto 0..2 cannot overwrite an end it still has to dup). Closes what it
// still owns.
struct Channel {
  int parent = -1;
  int child = -1;

  Channel() = default;
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  ~Channel() {
    CloseChild();
    if (parent >= 0) close(parent);
  }

  // 0, or the errno of the failed call.
  int Open(bool socket, bool child_writes) {
    int fds[2];
    int r =
        socket ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) : pipe2(fds, O_CLOEXEC);
    if (r != 0) return errno;
    parent = child_writes ? fds[0] : fds[1];  // fds[0] is a pipe's read end
    child = child_writes ? fds[1] : fds[0];
    for (int* fd : {&parent, &child}) {
      if (*fd >= 3) continue;
      const int moved = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
      if (moved < 0) return errno;
      close(*fd);
      *fd = moved;
    }
    return 0;
  }
  void CloseChild() {
    if (child >= 0) close(child);
    child = -1;
  }
  int ReleaseParent() { return std::exchange(parent, -1); }
};

// Async-signal-safe: runs in the child between fork and exec.
void SetLimit(int resource, uint64_t value) {
  struct rlimit rl;
  if (getrlimit(resource, &rl) != 0) return;
  rlim_t v = static_cast<rlim_t>(value);
  // Without CAP_SYS_RESOURCE a hard limit can only be lowered.
  if (rl.rlim_max != RLIM_INFINITY && v > rl.rlim_max) v = rl.rlim_max;
  rl.rlim_cur = v;
  rl.rlim_max = v;
  setrlimit(resource, &rl);
}

// What a child that did not get to exec reports on the status pipe as {stage, errno}.
constexpr int kChdirFailed = 1;
constexpr int kExecFailed = 2;
constexpr int kCredentialsFailed = 3;
constexpr int kCgroupFailed = 4;

// The child's standard streams and the pipe on which it reports a failure to exec.
struct Channels {
  Channel in, out, err, exec_status;

  // 0, or the errno of the failed call.
  int Open(bool stdin_is_socket) {
    int e = in.Open(stdin_is_socket, /*child_writes=*/false);
    if (e == 0) e = out.Open(false, true);
    if (e == 0) e = err.Open(false, true);
    if (e == 0) e = exec_status.Open(false, true);
    // Non-blocking, so that Write can give up at its deadline. Only the parent's end (its own
    // open file description) is affected.
    if (e == 0 && fcntl(in.parent, F_SETFL, fcntl(in.parent, F_GETFL) | O_NONBLOCK) != 0) {
      e = errno;
    }
    return e;
  }
  void CloseChildEnds() {
    in.CloseChild();
    out.CloseChild();
    err.CloseChild();
    exec_status.CloseChild();
  }
};

// Everything the child needs, built before fork: after it, only async-signal-safe calls.
// Points into the SubprocessOptions it was made from.
struct ChildPlan {
  std::vector<char*> argv, envp;
  const char* cwd = nullptr;
  const std::vector<SubprocessOptions::Limit>* limits = nullptr;
  int status_fd = -1;
  std::optional<SubprocessOptions::Identity> run_as;
  // The descriptors that survive in the child, ascending and unique; the gaps are closed.
  std::vector<int> keep;
  const std::vector<int>* inherited = nullptr;
  std::vector<const char*> cgroup_files;
};

ChildPlan MakeChildPlan(const SubprocessOptions& options, int status_fd) {
  ChildPlan plan;
  for (const std::string& a : options.argv) plan.argv.push_back(const_cast<char*>(a.c_str()));
  plan.argv.push_back(nullptr);
  for (const std::string& v : options.env) plan.envp.push_back(const_cast<char*>(v.c_str()));
  plan.envp.push_back(nullptr);
  plan.cwd = options.cwd.empty() ? nullptr : options.cwd.c_str();
  plan.limits = &options.limits;
  plan.status_fd = status_fd;
  plan.run_as = options.run_as;
  plan.keep = options.inherited_fds;
  plan.keep.push_back(status_fd);
  std::sort(plan.keep.begin(), plan.keep.end());
  plan.keep.erase(std::unique(plan.keep.begin(), plan.keep.end()), plan.keep.end());
  plan.inherited = &options.inherited_fds;
  for (const std::string& f : options.cgroup_procs_files) plan.cgroup_files.push_back(f.c_str());
  return plan;
}

// The child side, async-signal-safe from here on: reports {stage, errno} and exits.
[[noreturn]] void ExitWithFailure(int status_fd, int stage, int error_number, int exit_code) {
  int failure[2] = {stage, error_number};
  ssize_t ignored = write(status_fd, failure, sizeof(failure));
  (void)ignored;
  _exit(exit_code);
}

// Closes every descriptor >= 3 but `keep`, and lets the inherited ones survive exec.
void CloseUnkeptDescriptors(const ChildPlan& plan) {
  // Descriptors the parent opened without O_CLOEXEC must not leak into the child.
  unsigned first = 3;
  for (int fd : plan.keep) {
    if (static_cast<unsigned>(fd) > first) syscall(SYS_close_range, first, fd - 1, 0);
    first = static_cast<unsigned>(fd) + 1;
  }
  syscall(SYS_close_range, first, ~0U, 0);
  for (int fd : *plan.inherited) fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) & ~FD_CLOEXEC);
}

void ResetSignals() {
  // Ignored signals survive exec; the child gets default dispositions and an empty mask.
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD}) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

// Joins the control groups first: everything after, the exec included, happens inside them.
void JoinCgroups(const ChildPlan& plan) {
  for (const char* file : plan.cgroup_files) {
    const int fd = open(file, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1) {
      ExitWithFailure(plan.status_fd, kCgroupFailed, errno, 126);
    }
    close(fd);
  }
}

[[noreturn]] void RunChild(const ChildPlan& plan, const Channels& ch) {
  setsid();
  dup2(ch.in.child, 0);
  dup2(ch.out.child, 1);
  dup2(ch.err.child, 2);
  CloseUnkeptDescriptors(plan);
  ResetSignals();
  JoinCgroups(plan);
  for (const SubprocessOptions::Limit& limit : *plan.limits) SetLimit(limit.resource, limit.value);
  const std::optional<SubprocessOptions::Identity>& run_as = plan.run_as;
  int stage;
  if (run_as.has_value() &&
      (setgroups(1, &run_as->gid) != 0 || setgid(run_as->gid) != 0 ||
       setuid(run_as->uid) != 0 || getuid() != run_as->uid || geteuid() != run_as->uid)) {
    stage = kCredentialsFailed;
  } else if (plan.cwd != nullptr && chdir(plan.cwd) != 0) {
    stage = kChdirFailed;
  } else {
    execve(plan.argv[0], plan.argv.data(), plan.envp.data());
    stage = kExecFailed;
  }
  // The shell's codes for "not found" and "cannot run".
  ExitWithFailure(plan.status_fd, stage, errno, stage == kExecFailed ? 127 : 126);
}

// The parent side: the status pipe closes on a successful exec (O_CLOEXEC) and carries
// {stage, errno} if not.
std::optional<Subprocess::ExecError> ReadExecStatus(int status_fd) {
  int failure[2] = {0, 0};
  ssize_t n;
  do {
    n = read(status_fd, failure, sizeof(failure));
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof(failure))) return std::nullopt;
  using Stage = Subprocess::ExecError::Stage;
  const Stage stage = failure[0] == kChdirFailed         ? Stage::kChdir
                      : failure[0] == kCredentialsFailed ? Stage::kCredentials
                      : failure[0] == kCgroupFailed      ? Stage::kCgroup
                                                         : Stage::kExec;
  return Subprocess::ExecError{stage, failure[1]};
}

}  // namespace

absl::StatusOr<std::unique_ptr<Subprocess>> Subprocess::Spawn(SubprocessOptions options) {
  if (options.argv.empty()) return absl::InvalidArgumentError("argv is empty");
  for (int fd : options.inherited_fds) {
    if (fd < 3 || fcntl(fd, F_GETFD) < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("inherited descriptor ", fd, " is below 3 or not open"));
    }
  }
  Channels ch;
  if (int e = ch.Open(options.stdin_is_socket); e != 0) {
    return absl::ResourceExhaustedError(absl::StrCat("cannot create pipes: ", strerror(e)));
  }
  const ChildPlan plan = MakeChildPlan(options, ch.exec_status.child);
  const pid_t pid = fork();
  if (pid < 0) {
    const int e = errno;
    return absl::ResourceExhaustedError(absl::StrCat("fork: ", strerror(e)));
  }
  if (pid == 0) RunChild(plan, ch);
  ch.CloseChildEnds();
  std::optional<ExecError> exec_error = ReadExecStatus(ch.exec_status.parent);
  std::unique_ptr<Subprocess> process(
      new Subprocess(std::move(options), pid, ch.in.ReleaseParent(), ch.out.ReleaseParent(),
                     ch.err.ReleaseParent()));
  process->exec_error_ = exec_error;
  return process;
}

Subprocess::Subprocess(SubprocessOptions options, pid_t pid, int stdin_fd, int stdout_fd,
                       int stderr_fd)
    : options_(std::move(options)), pid_(pid), stdin_fd_(stdin_fd), stdout_fd_(stdout_fd) {
  drain_ = std::thread([this, stderr_fd] { DrainStderr(stderr_fd); });
}

Subprocess::~Subprocess() {
  KillGroup();
  // After SIGKILL only a process stuck in the kernel (state D) outlives this wait; it is then
  // left to init rather than blocking the caller.
  WaitExit(absl::Now() + absl::Seconds(5));
  stop_drain_.store(true);
  if (drain_.joinable()) drain_.join();
  if (stdin_fd_ >= 0) close(stdin_fd_);
  close(stdout_fd_);
}

absl::Status Subprocess::Write(absl::string_view data, absl::Time deadline) {
  if (stdin_fd_ < 0) return absl::UnavailableError("stdin is closed");
  size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = options_.stdin_is_socket
                          ? send(stdin_fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL)
                          : write(stdin_fd_, data.data() + off, data.size() - off);
    if (n >= 0) {
      off += static_cast<size_t>(n);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return absl::UnavailableError(strerror(errno));
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError("the child did not read its stdin in time");
    }
    struct pollfd p = {stdin_fd_, POLLOUT, 0};
    poll(&p, 1, PollMillis(deadline));
  }
  return absl::OkStatus();
}

void Subprocess::CloseStdin() {
  if (stdin_fd_ < 0) return;
  if (options_.stdin_is_socket) {
    // The descriptor stays valid: later writes fail with EPIPE instead of hitting a reused fd.
    shutdown(stdin_fd_, SHUT_WR);
  } else {
    close(stdin_fd_);
    stdin_fd_ = -1;
  }
}

absl::StatusOr<std::string> Subprocess::ReadLine(absl::Time deadline, size_t max_line_bytes) {
  while (true) {
    // Lines are taken from stdout_pos_ on, and the search resumes where the last one stopped;
    // the consumed front is dropped only once it is half the buffer. So each byte is scanned
    // and moved a bounded number of times, however short the lines (a flood of empty lines
    // costs the worker what it costs the optimizer, not that times the buffer's size).
    const size_t nl = stdout_buffer_.find('\n', stdout_scan_);
    if (nl != std::string::npos) {
      std::string line = stdout_buffer_.substr(stdout_pos_, nl - stdout_pos_);
      stdout_pos_ = stdout_scan_ = nl + 1;
      if (stdout_pos_ >= stdout_buffer_.size() / 2) {
        stdout_buffer_.erase(0, stdout_pos_);
        stdout_pos_ = stdout_scan_ = 0;
      }
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    stdout_scan_ = stdout_buffer_.size();
    if (stdout_buffer_.size() - stdout_pos_ > max_line_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat("stdout line longer than ", max_line_bytes, " bytes"));
    }
    if (stdout_eof_) return absl::UnavailableError("stdout closed");
    if (absl::Now() >= deadline) return absl::DeadlineExceededError("no stdout line in time");
    struct pollfd p = {stdout_fd_, POLLIN, 0};
    const int r = poll(&p, 1, PollMillis(deadline));
    if (r < 0 && errno != EINTR) {
      return absl::InternalError(absl::StrCat("poll: ", strerror(errno)));
    }
    if (r <= 0) continue;
    char chunk[65536];
    const ssize_t n = read(stdout_fd_, chunk, sizeof(chunk));
    if (n > 0) {
      stdout_buffer_.append(chunk, static_cast<size_t>(n));
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      stdout_eof_ = true;
    }
  }
}

void Subprocess::KillGroup() {
  if (reaped_) return;
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);  // in case the child has not called setsid yet
}

bool Subprocess::WaitExit(absl::Time deadline) {
  while (!reaped_) {
    siginfo_t info;
    info.si_pid = 0;
    const int r = waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
    if (r == 0 && info.si_pid == pid_) {
      kill(-pid_, SIGKILL);
      int status = 0;
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      reaped_ = true;
      wait_status_ = status;
      break;
    }
    if (r < 0 && errno != EINTR) {  // ECHILD: reaped elsewhere, the status is lost
      reaped_ = true;
      break;
    }
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(2));
  }
  return true;
}

std::string Subprocess::StderrTail() const {
  absl::MutexLock l(&stderr_mu_);
  return stderr_tail_;
}

bool Subprocess::WaitStderrClosed(absl::Time deadline) {
  absl::MutexLock l(&stderr_mu_);
  return stderr_mu_.AwaitWithDeadline(absl::Condition(&stderr_closed_), deadline);
}

void Subprocess::DrainStderr(int fd) {
  const size_t tail_bytes = options_.stderr_tail_bytes;
  std::string partial_line;
  size_t final_bytes = 0;
  char chunk[8192];
  while (true) {
    const bool stopping = stop_drain_.load();
    if (stopping && final_bytes >= kFinalStderrBytes) break;
    // The timeout lets the destructor stop this thread even when a descendant that escaped the
    // process group keeps the pipe open.
    struct pollfd p = {fd, POLLIN, 0};
    const int r = poll(&p, 1, stopping ? 0 : 100);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 || (r == 0 && stopping)) break;
    if (r == 0) continue;
    const ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    const absl::string_view data(chunk, static_cast<size_t>(n));
    if (stopping) final_bytes += data.size();
    if (options_.on_stderr_chunk) options_.on_stderr_chunk(data);
    {
      absl::MutexLock l(&stderr_mu_);
      stderr_tail_.append(data.data(), data.size());
      if (stderr_tail_.size() > tail_bytes) {
        // Cut on a UTF-8 character's first byte (at most 3 continuation bytes more), so that a
        // quoted tail of valid text starts with a whole character.
        size_t cut = stderr_tail_.size() - tail_bytes;
        for (int i = 0; i < 3 && cut < stderr_tail_.size() &&
                        (static_cast<unsigned char>(stderr_tail_[cut]) & 0xC0) == 0x80;
             ++i) {
          ++cut;
        }
        stderr_tail_.erase(0, cut);
      }
    }
    if (options_.on_stderr_line) {
      partial_line.append(data.data(), data.size());
      // Every line of the chunk, then one erase (linear in the chunk, however short the lines).
      size_t start = 0;
      for (size_t nl; (nl = partial_line.find('\n', start)) != std::string::npos; start = nl + 1) {
        options_.on_stderr_line(absl::string_view(partial_line.data() + start, nl - start));
      }
      partial_line.erase(0, start);
      if (partial_line.size() > tail_bytes) partial_line.clear();
    }
  }
  if (options_.on_stderr_line && !partial_line.empty()) options_.on_stderr_line(partial_line);
  close(fd);
  absl::MutexLock l(&stderr_mu_);
  stderr_closed_ = true;
}

}  // namespace bbo
