#include "worker/child_process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace bbo {
namespace {

constexpr size_t kMaxLine = 64u << 20;
constexpr size_t kStderrTail = 64u << 10;

class PosixChildProcess : public ChildProcess {
 public:
  PosixChildProcess(pid_t pid, int in_fd, int out_fd, int err_fd, LineCallback on_stderr)
      : pid_(pid), in_fd_(in_fd), out_fd_(out_fd) {
    stderr_thread_ = std::thread([this, err_fd, cb = std::move(on_stderr)] {
      DrainStderr(err_fd, cb);
    });
  }

  ~PosixChildProcess() override {
    Kill();
    Wait(absl::Seconds(2));
    if (in_fd_ >= 0) close(in_fd_);
    if (out_fd_ >= 0) close(out_fd_);
    if (stderr_thread_.joinable()) stderr_thread_.join();
  }

  absl::Status WriteLine(absl::string_view line) override {
    if (in_fd_ < 0) return absl::UnavailableError("optimizer stdin is closed");
    std::string data = absl::StrCat(line, "\n");
    size_t off = 0;
    while (off < data.size()) {
      // MSG_NOSIGNAL is for sockets; for a pipe SIGPIPE is ignored process-wide (see Launch).
      ssize_t n = write(in_fd_, data.data() + off, data.size() - off);
      if (n < 0) {
        if (errno == EINTR) continue;
        return absl::UnavailableError(Exited("cannot write to the optimizer"));
      }
      off += static_cast<size_t>(n);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> ReadLine(absl::Time deadline) override {
    while (true) {
      size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        return line;
      }
      if (buf_.size() > kMaxLine) {
        return absl::ResourceExhaustedError("optimizer printed a line longer than 64 MiB");
      }
      if (eof_) return absl::UnavailableError(Exited("optimizer closed its stdout"));
      absl::Duration left = deadline - absl::Now();
      if (left <= absl::ZeroDuration()) {
        return absl::DeadlineExceededError("optimizer did not answer in time");
      }
      struct pollfd p = {out_fd_, POLLIN, 0};
      int ms = static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 1000));
      int r = poll(&p, 1, ms);
      if (r < 0 && errno != EINTR) return absl::InternalError("poll failed");
      if (r <= 0) continue;
      char chunk[65536];
      ssize_t n = read(out_fd_, chunk, sizeof(chunk));
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        eof_ = true;
      } else if (n == 0) {
        eof_ = true;
      } else {
        buf_.append(chunk, static_cast<size_t>(n));
      }
    }
  }

  void Kill() override {
    if (reaped_) return;
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
  }

  int Wait(absl::Duration timeout) override {
    if (reaped_) return status_;
    absl::Time until = absl::Now() + timeout;
    while (true) {
      int st = 0;
      pid_t r = waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        reaped_ = true;
        status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        signaled_ = WIFSIGNALED(st);
        // The group may hold other processes (the sandbox's init and children).
        ::kill(-pid_, SIGKILL);
        return status_;
      }
      if (r < 0 && errno == ECHILD) {
        reaped_ = true;
        return status_;
      }
      if (absl::Now() >= until) {
        Kill();
        until = absl::Now() + absl::Seconds(5);
      }
      absl::SleepFor(absl::Milliseconds(5));
    }
  }

  std::string StderrTail() override {
    std::lock_guard<std::mutex> l(err_mu_);
    return err_tail_;
  }

  pid_t pid() const override { return pid_; }

 private:
  std::string Exited(absl::string_view what) {
    int st = Wait(absl::Milliseconds(500));
    std::string how = signaled_ ? absl::StrCat("killed by signal ", st - 128)
                                : absl::StrCat("exited with status ", st);
    std::string tail = StderrTail();
    if (tail.size() > 2000) tail = "..." + tail.substr(tail.size() - 2000);
    return absl::StrCat(what, ": ", how, tail.empty() ? "" : "; stderr: ", tail);
  }

  void DrainStderr(int fd, const LineCallback& cb) {
    std::string partial;
    char chunk[8192];
    while (true) {
      ssize_t n = read(fd, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      {
        std::lock_guard<std::mutex> l(err_mu_);
        err_tail_.append(chunk, static_cast<size_t>(n));
        if (err_tail_.size() > kStderrTail) err_tail_.erase(0, err_tail_.size() - kStderrTail);
      }
      if (cb) {
        partial.append(chunk, static_cast<size_t>(n));
        size_t nl;
        while ((nl = partial.find('\n')) != std::string::npos) {
          cb(absl::string_view(partial.data(), nl));
          partial.erase(0, nl + 1);
        }
        if (partial.size() > kStderrTail) partial.clear();
      }
    }
    if (cb && !partial.empty()) cb(partial);
    close(fd);
  }

  pid_t pid_;
  int in_fd_;
  int out_fd_;
  std::string buf_;
  bool eof_ = false;
  bool reaped_ = false;
  bool signaled_ = false;
  int status_ = -1;
  std::mutex err_mu_;
  std::string err_tail_;
  std::thread stderr_thread_;
};

void SetLimit(int resource, uint64_t value) {
  if (value == 0) return;
  struct rlimit rl;
  if (getrlimit(resource, &rl) != 0) return;
  rlim_t v = static_cast<rlim_t>(value);
  // Without CAP_SYS_RESOURCE a hard limit can only be lowered.
  if (rl.rlim_max != RLIM_INFINITY && v > rl.rlim_max) v = rl.rlim_max;
  rl.rlim_cur = v;
  rl.rlim_max = v;
  setrlimit(resource, &rl);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ChildProcess>> PosixProcessLauncher::Launch(
    const ProcessSpec& spec, LineCallback on_stderr_line) {
  if (spec.argv.empty()) return absl::InvalidArgumentError("argv: empty");
  // A dead optimizer must not kill the worker when it writes to the closed pipe.
  signal(SIGPIPE, SIG_IGN);
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    return absl::ResourceExhaustedError(absl::StrCat("pipe: ", strerror(errno)));
  }
  // Everything the child needs is prepared before fork: only async-signal-safe calls after it.
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const char* cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  const ResourceLimits lim = spec.limits;

  pid_t pid = fork();
  if (pid < 0) return absl::ResourceExhaustedError(absl::StrCat("fork: ", strerror(errno)));
  if (pid == 0) {
    setsid();
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    syscall(SYS_close_range, 3, ~0U, 0);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    SetLimit(RLIMIT_CPU, lim.cpu_seconds);
    SetLimit(RLIMIT_AS, lim.address_space_bytes);
    SetLimit(RLIMIT_NPROC, lim.max_processes);
    SetLimit(RLIMIT_FSIZE, lim.file_size_bytes);
    SetLimit(RLIMIT_NOFILE, lim.open_files);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    if (cwd != nullptr && chdir(cwd) != 0) _exit(126);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  return std::unique_ptr<ChildProcess>(
      new PosixChildProcess(pid, in[1], out[0], err[0], std::move(on_stderr_line)));
}

}  // namespace bbo
