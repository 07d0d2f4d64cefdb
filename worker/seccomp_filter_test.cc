#include "worker/seccomp_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "common/subprocess.h"
#include "common/testing/setup_errors.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "worker/testing/sandbox_environment.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// BBO_TEST_BWRAP names another bubblewrap (test-only: e.g. /bin/false, to see a failed probe
// fail every sandboxed case, with the probe's output, instead of skipping them).
const std::string& BwrapBinary() {
  static const std::string* const bwrap = new std::string(
      std::getenv("BBO_TEST_BWRAP") != nullptr ? std::getenv("BBO_TEST_BWRAP") : "/usr/bin/bwrap");
  return *bwrap;
}
constexpr char kPython[] = "/usr/bin/python3";
// An errno the kernel never returns for the probed calls: the filter answered, not the kernel.
constexpr int kMarkErrno = EHWPOISON;

// Owns a descriptor.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

std::unique_ptr<Fd> FilterFd(const SeccompPolicy& policy) {
  absl::StatusOr<int> fd = ExportSeccompBpf(policy);
  EXPECT_TRUE(fd.ok()) << fd.status();
  return std::make_unique<Fd>(fd.value_or(-1));
}

// The sandbox of MACHINE-NOTES.md (the worker's own flags may differ in detail), with the probe
// bound at /probe and, when seccomp_fd >= 0, `--seccomp seccomp_fd`. `extra_fd` is inherited too
// (for a probe that installs the filter itself).
std::vector<std::string> Bwrap(int seccomp_fd, const std::vector<std::string>& command) {
  std::vector<std::string> argv = {BwrapBinary(),
                                   "--unshare-all",
                                   "--die-with-parent",
                                   "--new-session",
                                   "--cap-drop",
                                   "ALL",
                                   "--uid",
                                   "65534",
                                   "--gid",
                                   "65534",
                                   "--ro-bind",
                                   "/usr",
                                   "/usr",
                                   "--symlink",
                                   "usr/lib",
                                   "/lib",
                                   "--symlink",
                                   "usr/lib64",
                                   "/lib64",
                                   "--symlink",
                                   "usr/bin",
                                   "/bin",
                                   "--symlink",
                                   "usr/sbin",
                                   "/sbin",
                                   "--ro-bind",
                                   "/etc/ld.so.cache",
                                   "/etc/ld.so.cache",
                                   "--ro-bind",
                                   "/etc/alternatives",
                                   "/etc/alternatives",
                                   "--proc",
                                   "/proc",
                                   "--dev",
                                   "/dev",
                                   "--tmpfs",
                                   "/tmp",
                                   "--ro-bind",
                                   BBO_SECCOMP_PROBE,
                                   "/probe"};
  if (seccomp_fd >= 0) {
    argv.push_back("--seccomp");
    argv.push_back(std::to_string(seccomp_fd));
  }
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

// Runs the command in the sandbox and returns its stdout lines; stderr goes to `stderr_tail`.
std::vector<std::string> RunSandboxed(std::vector<std::string> argv, std::vector<int> inherited_fds,
                                      std::string* stderr_tail = nullptr) {
  SubprocessOptions options;
  options.argv = std::move(argv);
  options.env = {"PATH=/usr/bin:/bin", "HOME=/tmp", "OMP_NUM_THREADS=2"};
  options.inherited_fds = std::move(inherited_fds);
  // Bounds for whatever runs: CPU, memory, output; the probes themselves are harmless.
  options.limits = {
      {RLIMIT_CPU, 60}, {RLIMIT_AS, 4ull << 30}, {RLIMIT_FSIZE, 1 << 20}, {RLIMIT_CORE, 0}};
  absl::StatusOr<std::unique_ptr<Subprocess>> p = Subprocess::Spawn(std::move(options));
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return {};
  std::vector<std::string> lines;
  const absl::Time deadline = absl::Now() + absl::Seconds(90);
  for (absl::StatusOr<std::string> line = (*p)->ReadLine(deadline, 1 << 16); line.ok();
       line = (*p)->ReadLine(deadline, 1 << 16)) {
    lines.push_back(*line);
  }
  (*p)->WaitExit(deadline);
  if (stderr_tail != nullptr) *stderr_tail = (*p)->StderrTail();
  return lines;
}

// What the probe printed for `call`: under `--seccomp` when `policy` is set, else unfiltered.
// With `userns` the probe enters a nested user + mount namespace first and installs the filter
// itself (bwrap would install it before the probe could create the namespace).
std::string Probe(const std::string& call, const SeccompPolicy* policy, bool userns = false) {
  std::unique_ptr<Fd> filter = policy != nullptr ? FilterFd(*policy) : nullptr;
  std::vector<std::string> command = {"/probe"};
  std::vector<int> inherited;
  int seccomp_fd = -1;
  if (filter != nullptr) {
    inherited.push_back(filter->fd);
    if (userns) {
      command.insert(command.end(), {"--filter-fd", std::to_string(filter->fd)});
    } else {
      seccomp_fd = filter->fd;
    }
  }
  if (userns) command.push_back("--userns");
  command.push_back(call);
  std::string err;
  std::vector<std::string> out = RunSandboxed(Bwrap(seccomp_fd, command), inherited, &err);
  return out.size() == 1
             ? out[0]
             : absl::StrCat("unexpected output [", absl::StrJoin(out, "|"), "] stderr: ", err);
}

// Why the sandbox cannot run the probe: "" when it can, else what went wrong, with the probe's
// own output (probed once; every sandboxed case reports it).
const std::string& BwrapProbeError() {
  static const std::string* const error = [] {
    if (access(BwrapBinary().c_str(), X_OK) != 0) {
      return new std::string(BwrapBinary() + " is not executable");
    }
    if (access(BBO_SECCOMP_PROBE, X_OK) != 0) {
      return new std::string(absl::StrCat("the probe ", BBO_SECCOMP_PROBE, " is not built"));
    }
    const std::string out = Probe("socket_unix", nullptr);
    return new std::string(
        out == "ok" ? ""
                    : absl::StrCat("the unfiltered probe `socket_unix` in bubblewrap (",
                                   BwrapBinary(), ") printed: ", out, " (expected \"ok\")"));
  }();
  return *error;
}

// A failed probe skips a case only where the host lacks bubblewrap or user namespaces, and
// never under CI=true (common/testing/setup_errors.h); otherwise each case fails with it.
#define SKIP_WITHOUT_BWRAP()                                                                   \
  if (!BwrapProbeError().empty()) {                                                            \
    BBO_SKIP_OR_FAIL_SETUP(testing::BwrapUnsupportedReason(BwrapBinary()), BwrapProbeError()); \
  }

// The probe's own failure is one test of its own too, so that it is reported once by name.
TEST(SeccompFilterTest, BubblewrapRunsTheProbe) { SKIP_WITHOUT_BWRAP(); }

TEST(SeccompFilterTest, CompilesToWholeBpfInstructions) {
  absl::StatusOr<std::string> bpf = CompileSeccompBpf();
  ASSERT_TRUE(bpf.ok()) << bpf.status();
  EXPECT_GT(bpf->size(), 8u * 60);    // at least an instruction per rule
  EXPECT_EQ(bpf->size() % 8, 0u);     // struct sock_filter is 8 bytes
  EXPECT_LT(bpf->size(), 8u * 4096);  // BPF_MAXINSNS
  EXPECT_EQ(CompileSeccompBpf({.deny_errno = 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SeccompFilterTest, FdHoldsTheProgramRewoundSealedAndCloseOnExec) {
  const std::string bpf = CompileSeccompBpf().value_or("");
  absl::StatusOr<int> fd = MakeSeccompFd(bpf);
  ASSERT_TRUE(fd.ok()) << fd.status();
  Fd owned(*fd);
  EXPECT_NE(fcntl(owned.fd, F_GETFD) & FD_CLOEXEC, 0);
  EXPECT_EQ(write(owned.fd, "x", 1), -1);  // sealed
  EXPECT_EQ(errno, EPERM);
  std::string back(bpf.size() + 1, '\0');
  EXPECT_EQ(read(owned.fd, back.data(), back.size()), static_cast<ssize_t>(bpf.size()));
  back.resize(bpf.size());
  EXPECT_EQ(back, bpf);
}

TEST(SeccompFilterTest, TableNamesEveryClassAndRendersAsMarkdown) {
  std::vector<std::string> names;
  for (const DeniedSyscall& d : DeniedSyscalls()) {
    names.push_back(d.name);
    EXPECT_FALSE(d.action.empty()) << d.name;
    EXPECT_FALSE(d.reason.empty()) << d.name;
  }
  for (const char* name : {"unshare",
                           "clone",
                           "clone3",
                           "setns",
                           "mount",
                           "umount2",
                           "chroot",
                           "pivot_root",
                           "bpf",
                           "perf_event_open",
                           "io_uring_setup",
                           "userfaultfd",
                           "keyctl",
                           "kexec_load",
                           "init_module",
                           "reboot",
                           "swapon",
                           "clock_settime",
                           "ptrace",
                           "process_vm_readv",
                           "personality",
                           "open_by_handle_at",
                           "socket"}) {
    EXPECT_THAT(names, ::testing::Contains(name));
  }
  const std::string md = DeniedSyscallsMarkdown();
  EXPECT_THAT(md, HasSubstr("| `clone3` | ENOSYS |"));
  EXPECT_THAT(md, HasSubstr("| `mount` | EPERM |"));
  EXPECT_THAT(md, HasSubstr("kills the process (SIGSYS)"));
}

struct Denial {
  const char* call;
  int expected_errno;  // kMarkErrno stands for SeccompPolicy::deny_errno
  bool userns = false;
};

class SeccompDenialTest : public ::testing::TestWithParam<Denial> {};

// Under the filter the call fails with the documented errno; without it the same call in the
// same sandbox does something else (succeeds, or fails with the kernel's own errno).
TEST_P(SeccompDenialTest, FilterRefusesAndControlDiffers) {
  SKIP_WITHOUT_BWRAP();
  const Denial& d = GetParam();
  SeccompPolicy policy;
  policy.deny_errno = kMarkErrno;
  const std::string expected = absl::StrCat("errno ", d.expected_errno);
  EXPECT_EQ(Probe(d.call, &policy, d.userns), expected);
  EXPECT_NE(Probe(d.call, nullptr, d.userns), expected);
}

constexpr int kMark = kMarkErrno;
INSTANTIATE_TEST_SUITE_P(
    Calls, SeccompDenialTest,
    ::testing::Values(
        Denial{"unshare_user", kMark}, Denial{"unshare_net", kMark}, Denial{"clone_newuser", kMark},
        Denial{"clone3", ENOSYS}, Denial{"setns", kMark}, Denial{"mount", kMark, true},
        Denial{"umount2", kMark, true}, Denial{"chroot", kMark, true},
        Denial{"pivot_root", kMark, true}, Denial{"open_tree", kMark, true},
        Denial{"fsopen", kMark, true}, Denial{"bpf", kMark}, Denial{"perf_event_open", kMark},
        Denial{"io_uring_setup", ENOSYS}, Denial{"userfaultfd", kMark}, Denial{"keyctl", kMark},
        Denial{"add_key", kMark}, Denial{"ptrace_traceme", kMark},
        Denial{"process_vm_readv", kMark}, Denial{"personality_no_aslr", kMark},
        Denial{"socket_netlink", kMark}, Denial{"socket_packet", kMark},
        Denial{"socket_vsock", kMark}, Denial{"socket_alg", kMark},
        Denial{"socket_high_bits", kMark}, Denial{"reboot", kMark}, Denial{"swapon", kMark},
        Denial{"init_module", kMark}, Denial{"finit_module", kMark}, Denial{"kexec_load", kMark},
        Denial{"clock_settime", kMark}, Denial{"settimeofday", kMark}, Denial{"adjtimex", kMark},
        Denial{"acct", kMark}, Denial{"syslog", kMark}, Denial{"sethostname", kMark},
        Denial{"name_to_handle_at", kMark}),
    [](const ::testing::TestParamInfo<Denial>& info) { return std::string(info.param.call); });

TEST(SeccompFilterTest, DefaultPolicyRefusesWithEperm) {
  SKIP_WITHOUT_BWRAP();
  const SeccompPolicy policy;
  EXPECT_EQ(Probe("unshare_user", &policy), "errno 1");
  EXPECT_EQ(Probe("socket_netlink", &policy), "errno 1");
  EXPECT_EQ(Probe("io_uring_setup", &policy), "errno 38");
}

TEST(SeccompFilterTest, WhatProgramsNeedStaysAllowed) {
  SKIP_WITHOUT_BWRAP();
  const SeccompPolicy policy;
  for (const char* call : {"socket_unix", "socket_inet", "socket_inet6", "socketpair_unix",
                           "threads", "fork", "unshare_files", "personality_linux"}) {
    EXPECT_EQ(Probe(call, &policy), "ok") << call;
  }
}

TEST(SeccompFilterTest, ForeignAbiCallsKillOrFailWithEnosys) {
  SKIP_WITHOUT_BWRAP();
  const SeccompPolicy kill;
  SeccompPolicy enosys;
  enosys.kill_foreign_abi = false;
  for (const char* call : {"i386_getpid", "x32_getpid"}) {
    const std::string unfiltered = Probe(call, nullptr);
    EXPECT_NE(unfiltered, "signal 31") << call;
    // A kernel without the 32-bit ABI (ia32_emulation off, as on some hosts since Linux 6.7)
    // answers int 0x80 with SIGSEGV before any filter sees it: the call runs nowhere.
    const bool no_ia32 = std::string(call) == "i386_getpid" && unfiltered == "signal 11";
    EXPECT_EQ(Probe(call, &kill), no_ia32 ? "signal 11" : "signal 31") << call;  // SIGSYS
    EXPECT_EQ(Probe(call, &enosys), no_ia32 ? "signal 11" : "errno 38") << call;
  }
}

TEST(SeccompFilterTest, FilterDescriptorDoesNotReachTheSandboxedProgram) {
  SKIP_WITHOUT_BWRAP();
  std::unique_ptr<Fd> filter = FilterFd({});
  const std::vector<std::string> fds =
      RunSandboxed(Bwrap(filter->fd, {"/usr/bin/ls", "-l", "/proc/self/fd"}), {filter->fd});
  EXPECT_THAT(absl::StrJoin(fds, "\n"), HasSubstr("0 ->"));  // the listing ran
  EXPECT_THAT(absl::StrJoin(fds, "\n"), Not(HasSubstr("bbo-seccomp")));
}

// numpy (BLAS threads), scipy, scikit-learn and multiprocessing (fork, AF_UNIX, semaphores) run
// under the filter exactly as without it.
TEST(SeccompFilterTest, ScientificPythonRunsUnderTheFilter) {
  SKIP_WITHOUT_BWRAP();
  if (const std::string reason = testing::NotInstalledReason(kPython, "python3"); !reason.empty()) {
    BBO_SKIP_OR_FAIL_SETUP(reason, "no " + std::string(kPython));
  }
  const char* script =
      "import multiprocessing, numpy, scipy.optimize, sklearn\n"
      "numpy.linalg.svd(numpy.ones((50, 50)))\n"
      "from sklearn.svm import SVC\n"
      "SVC().fit(numpy.random.rand(20, 2), [0, 1] * 10)\n"
      "scipy.optimize.minimize(lambda x: (x ** 2).sum(), numpy.ones(3))\n"
      "with multiprocessing.Pool(2) as pool:\n"
      "    assert pool.map(abs, [-1, -2]) == [1, 2]\n"
      "print('ok')\n";
  std::unique_ptr<Fd> filter = FilterFd({});
  std::string err;
  EXPECT_THAT(RunSandboxed(Bwrap(filter->fd, {kPython, "-c", script}), {filter->fd}, &err),
              ::testing::ElementsAre("ok"))
      << err;
}

TEST(SeccompFilterTest, TorchRunsUnderTheFilter) {
  SKIP_WITHOUT_BWRAP();
  struct stat st;
  if (stat("/usr/lib/python3/dist-packages/torch", &st) != 0) {
    BBO_SKIP_OR_FAIL_SETUP(
        "python3-torch is not installed (apt-get install python3-torch; deploy/install-deps.sh "
        "does)",
        "no /usr/lib/python3/dist-packages/torch");
  }
  const char* script =
      "import torch\n"
      "torch.set_num_threads(2)\n"
      "torch.linalg.svd(torch.rand(50, 50))\n"
      "print('ok')\n";
  std::unique_ptr<Fd> filter = FilterFd({});
  std::string err;
  EXPECT_THAT(RunSandboxed(Bwrap(filter->fd, {kPython, "-c", script}), {filter->fd}, &err),
              ::testing::ElementsAre("ok"))
      << err;
}

}  // namespace
}  // namespace bbo
