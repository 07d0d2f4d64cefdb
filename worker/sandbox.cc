#include "worker/sandbox.h"

#include <unistd.h>

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "worker/env.h"
#include "worker/optimizer_host.h"
#include "worker/seccomp_filter.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;

// The few files of /etc a program needs: the dynamic loader's cache, alternatives (python3,
// BLAS), and name/locale basics. Missing ones are skipped.
constexpr const char* kEtcFiles[] = {"/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime",
                                     "/etc/nsswitch.conf", "/etc/mime.types"};

void AddEnv(std::vector<std::string>& argv, const std::string& kv) {
  size_t eq = kv.find('=');
  if (eq == std::string::npos) return;
  argv.insert(argv.end(), {"--setenv", kv.substr(0, eq), kv.substr(eq + 1)});
}

}  // namespace

Sandbox::Sandbox(SandboxOptions options, ProcessLauncher* launcher)
    : options_(std::move(options)),
      launcher_(launcher != nullptr ? launcher : Env::Default()->launcher()),
      seccomp_bpf_(options_.seccomp && !options_.insecure_no_sandbox ? CompileSeccompBpf()
                                                                      : std::string()) {}

ProcessSpec Sandbox::BuildCommand(const SandboxedCommand& cmd, int seccomp_fd) const {
  ProcessSpec spec;
  spec.name = "optimizer";
  spec.limits = options_.limits;
  // The reader refuses longer stdout lines before buffering them (docs/hosting-protocol.md).
  spec.max_line_bytes = kMaxLineBytes;
  std::vector<std::string> env = {"HOME=/tmp", "PATH=/usr/bin:/bin", "LANG=C.UTF-8",
                                  "TMPDIR=/tmp"};
  env.insert(env.end(), cmd.env.begin(), cmd.env.end());
  if (options_.insecure_no_sandbox) {
    spec.argv = cmd.argv;
    if (!spec.argv.empty() && absl::StartsWith(spec.argv[0], "./")) {
      spec.argv[0] = (fs::path(cmd.submission_dir) / spec.argv[0].substr(2)).string();
    }
    spec.env = env;
    spec.cwd = cmd.submission_dir;
    return spec;
  }
  std::vector<std::string>& a = spec.argv;
  a = {options_.bwrap_path,
       "--unshare-all",
       "--die-with-parent",
       "--new-session",
       "--cap-drop", "ALL",
       "--uid", std::to_string(options_.uid),
       "--gid", std::to_string(options_.gid),
       "--hostname", "sandbox",
       "--ro-bind", "/usr", "/usr",
       "--symlink", "usr/lib", "/lib",
       "--symlink", "usr/lib64", "/lib64",
       "--symlink", "usr/bin", "/bin",
       "--symlink", "usr/sbin", "/sbin"};
  std::error_code ec;
  for (const char* f : kEtcFiles) {
    if (fs::exists(f, ec)) a.insert(a.end(), {"--ro-bind", f, f});
  }
  // /proc/sys read-only whatever the kernel makes per-namespace (pid_max is per pid namespace
  // on recent kernels, and the sandbox owns its pid namespace): the host's, bound read-only.
  a.insert(a.end(), {"--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--dev", "/dev"});
  if (cmd.tmp_dir.empty()) {
    a.insert(a.end(), {"--tmpfs", "/tmp", "--tmpfs", "/dev/shm"});
  } else {
    // One size-limited tmpfs serves /tmp and /dev/shm: together they cannot exceed its size.
    a.insert(a.end(), {"--bind", cmd.tmp_dir, "/tmp", "--bind", cmd.tmp_dir, "/dev/shm"});
  }
  a.insert(a.end(), {"--ro-bind", cmd.submission_dir, "/sub"});
  for (const auto& [host, inside] : options_.ro_binds) {
    a.insert(a.end(), {"--ro-bind", host, inside});
  }
  for (const auto& [host, inside] : cmd.extra_ro_binds) {
    a.insert(a.end(), {"--ro-bind", host, inside});
  }
  // Nothing but /tmp (and /dev/shm) is writable: bubblewrap's own root and /dev are tmpfs
  // mounts writable by the sandbox's user until remounted read-only (non-recursively: the
  // binds below them keep their own modes).
  a.insert(a.end(), {"--remount-ro", "/dev", "--remount-ro", "/"});
  if (seccomp_fd >= 0) a.insert(a.end(), {"--seccomp", std::to_string(seccomp_fd)});
  a.insert(a.end(), {"--chdir", "/sub", "--clearenv"});
  for (const std::string& kv : env) AddEnv(a, kv);
  a.push_back("--");
  a.insert(a.end(), cmd.argv.begin(), cmd.argv.end());
  // bwrap itself needs no environment; the child's comes from --setenv.
  spec.env = {"PATH=/usr/bin:/bin"};
  // Never host root: a root worker starts bwrap as the unprivileged sandbox user.
  if (geteuid() == 0) {
    spec.run_as = SubprocessOptions::Identity{options_.host_uid, options_.host_gid};
  }
  return spec;
}

absl::StatusOr<std::unique_ptr<ChildProcess>> Sandbox::Launch(const SandboxedCommand& cmd,
                                                              LineCallback on_stderr_line) {
  if (cmd.argv.empty()) return absl::InvalidArgumentError("argv: empty");
  std::error_code ec;
  if (!fs::is_directory(cmd.submission_dir, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("submission_dir: ", cmd.submission_dir, " is not a folder"));
  }
  // A fresh descriptor per launch: bubblewrap reads the filter from the current offset.
  int seccomp_fd = -1;
  if (options_.seccomp && !options_.insecure_no_sandbox) {
    if (!seccomp_bpf_.ok()) {
      return absl::UnavailableError(
          absl::StrCat("cannot build the seccomp filter: ", seccomp_bpf_.status().message()));
    }
    absl::StatusOr<int> fd = MakeSeccompFd(*seccomp_bpf_);
    if (!fd.ok()) {
      return absl::UnavailableError(
          absl::StrCat("cannot pass the seccomp filter: ", fd.status().message()));
    }
    seccomp_fd = *fd;
  }
  ProcessSpec spec = BuildCommand(cmd, seccomp_fd);
  if (seccomp_fd >= 0) spec.inherited_fds = {seccomp_fd};
  spec.cgroup_procs_files = cmd.cgroup_procs_files;
  spec.on_stderr_line = std::move(on_stderr_line);
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = launcher_->Launch(spec);
  if (seccomp_fd >= 0) close(seccomp_fd);
  if (!child.ok()) {
    return absl::UnavailableError(absl::StrCat("cannot start the sandbox: ",
                                               child.status().message()));
  }
  return child;
}

absl::Status Sandbox::Probe(const SandboxOptions& options,
                            const std::vector<std::string>& readable_dirs) {
  std::error_code ec;
  if (!fs::exists(options.bwrap_path, ec)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "bubblewrap is not installed (", options.bwrap_path, "): apt-get install bubblewrap"));
  }
  SandboxOptions probe = options;
  probe.insecure_no_sandbox = false;
  Sandbox sandbox(probe);
  SandboxedCommand cmd;
  cmd.submission_dir = fs::temp_directory_path().string();
  cmd.argv = {"/usr/bin/true"};
  for (size_t i = 0; i < readable_dirs.size(); ++i) {
    cmd.extra_ro_binds.emplace_back(readable_dirs[i], absl::StrCat("/probe", i));
  }
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = sandbox.Launch(cmd);
  if (!child.ok()) return absl::FailedPreconditionError(child.status().message());
  int status = (*child)->Wait(absl::Seconds(10));
  if (status != 0) {
    const uid_t uid = geteuid() == 0 ? options.host_uid : geteuid();
    const std::string tail = (*child)->StderrTail();
    if (absl::StrContains(tail, "Permission denied")) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the sandbox's user (host uid ", uid, ") cannot reach a folder it needs: ", tail,
          " Make these folders and every parent traversable by that uid (chmod o+x, or a "
          "umask of 022 when creating them): ", cmd.submission_dir,
          readable_dirs.empty() ? "" : ", ", absl::StrJoin(readable_dirs, ", ")));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "bubblewrap, started as host uid ", uid, ", cannot set up the sandbox (exit status ",
        status, "): ", (*child)->StderrTail(),
        " Enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 and "
        "user.max_user_namespaces > 0), and make these folders and their parents readable by "
        "uid ", uid, ": ", cmd.submission_dir, readable_dirs.empty() ? "" : ", ",
        absl::StrJoin(readable_dirs, ", ")));
  }
  return absl::OkStatus();
}

}  // namespace bbo
