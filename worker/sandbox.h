#ifndef BBO_WORKER_SANDBOX_H_
#define BBO_WORKER_SANDBOX_H_

// Sandbox: runs a submitted optimizer under bubblewrap with every namespace unshared (no
// network at all: the sandbox has its own empty loopback), a new session, all capabilities
// dropped, an unprivileged uid, rlimits, and a file system view of only what a program needs:
// /usr (and the /lib, /bin symlinks), a minimal /etc, /proc, /dev, a private /tmp, the
// submission at /sub (read-only) and explicitly listed read-only binds (the bundled bayesmark
// package). Nothing else of the host is visible: not the coordinator's SQLite file, problem
// data, other submissions, /root, /home, /var, /srv or the project checkout.
//
// The sandbox's user is never host root: a root worker starts bubblewrap as an unprivileged
// host user (SandboxOptions::host_uid). A seccomp deny-list (worker/seccomp_filter.h) is handed
// to bubblewrap with `--seccomp FD`: namespaces, mounts, bpf, perf, io_uring, keyrings, ptrace,
// kernel modules, clock setting, netlink/packet/vsock sockets and 32-bit system calls are refused.
//
// Thread-safe: Launch may be called concurrently.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/child_process.h"

namespace bbo {

struct SandboxOptions {
  std::string bwrap_path = "/usr/bin/bwrap";
  // Runs the optimizer directly, without namespaces. Trusted code only.
  bool insecure_no_sandbox = false;
  // The unprivileged identity inside the sandbox (nobody).
  uint32_t uid = 65534;
  uint32_t gid = 65534;
  // The host identity of the sandbox when the worker runs as root: bubblewrap is started as
  // this unprivileged user, so the optimizer is never host root (its user namespace maps to
  // this uid; /proc/sys and every root-owned file stay read-only to it). Ignored when the
  // worker is not root: the sandbox then maps to the worker's own unprivileged uid. The
  // submission folder and the read-only binds must be readable by it.
  uint32_t host_uid = 65534;
  uint32_t host_gid = 65534;
  ResourceLimits limits;
  // Host path -> sandbox path, bound read-only for every launch.
  std::vector<std::pair<std::string, std::string>> ro_binds;
  // Hand the seccomp deny-list to bubblewrap (worker/seccomp_filter.h). Default on.
  bool seccomp = true;
};

struct SandboxedCommand {
  // Host folder of the unpacked submission; bound read-only at /sub, the working directory.
  std::string submission_dir;
  // The program and its arguments as seen inside the sandbox, e.g. {"/usr/bin/python3", "-u",
  // "optimizer.py"} or {"./optimizer"}.
  std::vector<std::string> argv;
  // "KEY=value" entries; the environment is otherwise empty (HOME=/tmp, PATH=/usr/bin:/bin).
  std::vector<std::string> env;
  // Extra read-only binds for this launch (host path -> sandbox path).
  std::vector<std::pair<std::string, std::string>> extra_ro_binds;
  // Host folder (a size-limited tmpfs, worker/study_tmp.h) bound read-write at both /tmp and
  // /dev/shm. Empty: bubblewrap's own tmpfs at /tmp (unbounded but for the memory cgroup).
  std::string tmp_dir;
  // cgroup.procs files of the study's control group (StudyCgroup::procs_files()): bubblewrap
  // and everything it starts run inside the group from the first instruction.
  std::vector<std::string> cgroup_procs_files;
};

class Sandbox {
 public:
  // `launcher` (not owned) null -> Env::Default()'s, the real PosixProcessLauncher.
  explicit Sandbox(SandboxOptions options, ProcessLauncher* launcher = nullptr);

  // Starts `cmd` in the sandbox. Unavailable when the process cannot be started.
  absl::StatusOr<std::unique_ptr<ChildProcess>> Launch(const SandboxedCommand& cmd,
                                                       LineCallback on_stderr_line = nullptr);

  // The full command line Launch runs (for logs and tests); `seccomp_fd` >= 0 adds
  // `--seccomp FD` (Launch passes the descriptor it made for the launch).
  ProcessSpec BuildCommand(const SandboxedCommand& cmd, int seccomp_fd = -1) const;

  // OK when bubblewrap can create its namespaces on this host; FailedPrecondition with what to
  // do otherwise.
  // `readable_dirs` (e.g. the worker's submissions folder and the bundled Python package) are
  // bound into the probe too, so a folder the sandbox's unprivileged host user cannot read is
  // reported at start-up rather than by every study.
  static absl::Status Probe(const SandboxOptions& options,
                            const std::vector<std::string>& readable_dirs = {});

  const SandboxOptions& options() const { return options_; }

 private:
  SandboxOptions options_;
  ProcessLauncher* launcher_;
  // The compiled seccomp filter (BPF), made once; an error here fails every Launch.
  absl::StatusOr<std::string> seccomp_bpf_;
};

}  // namespace bbo

#endif  // BBO_WORKER_SANDBOX_H_
