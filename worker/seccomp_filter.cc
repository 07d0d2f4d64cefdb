#include "worker/seccomp_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"

namespace bbo {
namespace {

// What a rule compares; every kind but kAlways* looks at the first argument only (libseccomp
// allows one comparison per argument in a rule, so "not in a set" becomes several rules).
enum class Kind {
  kAlways,            // refused with policy.deny_errno
  kAlwaysEnosys,      // refused with ENOSYS, so that callers fall back
  kCloneNamespace,    // clone(flags, ...) with a CLONE_NEW* flag
  kUnshareNamespace,  // unshare(flags) with a CLONE_NEW* flag (CLONE_NEWTIME included)
  kPersonality,       // personality(persona) unless persona == 0
  kSocketFamily,      // socket/socketpair(family, ...) unless AF_UNIX, AF_INET, AF_INET6
};

struct Rule {
  const char* name;
  Kind kind;
  const char* reason;
};

constexpr char kNamespaces[] =
    "a nested user namespace hands out the capabilities most kernel exploits need";
constexpr char kMounts[] = "remounting or re-rooting the file system view";
constexpr char kAdmin[] = "host administration; refused whatever the uid and capability mapping";
constexpr char kPeek[] = "reads or changes another process's memory";
constexpr char kObsolete[] = "obsolete or unused; kernel attack surface";

// In the order of the header comment. Names unknown to libseccomp make CompileSeccompBpf fail.
constexpr Rule kRules[] = {
    {"unshare", Kind::kUnshareNamespace, kNamespaces},
    {"clone", Kind::kCloneNamespace, kNamespaces},
    {"clone3", Kind::kAlwaysEnosys,
     "its flags are in memory a filter cannot read; glibc falls back to clone on ENOSYS"},
    {"setns", Kind::kAlways, "joins another namespace"},
    {"mount", Kind::kAlways, kMounts},
    {"umount2", Kind::kAlways, kMounts},
    {"pivot_root", Kind::kAlways, kMounts},
    {"chroot", Kind::kAlways, kMounts},
    {"open_tree", Kind::kAlways, kMounts},
    {"move_mount", Kind::kAlways, kMounts},
    {"fsopen", Kind::kAlways, kMounts},
    {"fsconfig", Kind::kAlways, kMounts},
    {"fsmount", Kind::kAlways, kMounts},
    {"fspick", Kind::kAlways, kMounts},
    {"mount_setattr", Kind::kAlways, kMounts},
    {"bpf", Kind::kAlways, "eBPF verifier and maps: a long record of kernel exploits"},
    {"perf_event_open", Kind::kAlways, "a long record of kernel exploits; side channels"},
    {"io_uring_setup", Kind::kAlwaysEnosys,
     "a long record of kernel exploits, and its operations bypass seccomp; callers fall back"},
    {"io_uring_enter", Kind::kAlwaysEnosys, "as io_uring_setup"},
    {"io_uring_register", Kind::kAlwaysEnosys, "as io_uring_setup"},
    {"userfaultfd", Kind::kAlways, "stalls the kernel at will: turns races into exploits"},
    {"keyctl", Kind::kAlways, "kernel keyrings are not namespaced"},
    {"add_key", Kind::kAlways, "kernel keyrings are not namespaced"},
    {"request_key", Kind::kAlways, "kernel keyrings are not namespaced"},
    {"kexec_load", Kind::kAlways, kAdmin},
    {"kexec_file_load", Kind::kAlways, kAdmin},
    {"init_module", Kind::kAlways, kAdmin},
    {"finit_module", Kind::kAlways, kAdmin},
    {"delete_module", Kind::kAlways, kAdmin},
    {"create_module", Kind::kAlways, kAdmin},
    {"reboot", Kind::kAlways, kAdmin},
    {"swapon", Kind::kAlways, kAdmin},
    {"swapoff", Kind::kAlways, kAdmin},
    {"settimeofday", Kind::kAlways, "sets the host clock"},
    {"clock_settime", Kind::kAlways, "sets the host clock"},
    {"clock_adjtime", Kind::kAlways, "sets the host clock"},
    {"adjtimex", Kind::kAlways, "sets the host clock"},
    {"acct", Kind::kAlways, kAdmin},
    {"quotactl", Kind::kAlways, kAdmin},
    {"quotactl_fd", Kind::kAlways, kAdmin},
    {"syslog", Kind::kAlways, "reads the kernel log (addresses that defeat KASLR)"},
    {"sethostname", Kind::kAlways, kAdmin},
    {"setdomainname", Kind::kAlways, kAdmin},
    {"vhangup", Kind::kAlways, kAdmin},
    {"iopl", Kind::kAlways, "raw I/O port access"},
    {"ioperm", Kind::kAlways, "raw I/O port access"},
    {"fanotify_init", Kind::kAlways, "watches the whole file system"},
    {"nfsservctl", Kind::kAlways, kObsolete},
    {"sysfs", Kind::kAlways, kObsolete},
    {"uselib", Kind::kAlways, kObsolete},
    {"ustat", Kind::kAlways, kObsolete},
    {"_sysctl", Kind::kAlways, kObsolete},
    {"lookup_dcookie", Kind::kAlways, kObsolete},
    {"ptrace", Kind::kAlways, kPeek},
    {"process_vm_readv", Kind::kAlways, kPeek},
    {"process_vm_writev", Kind::kAlways, kPeek},
    {"process_madvise", Kind::kAlways, kPeek},
    {"kcmp", Kind::kAlways, "compares other processes' kernel objects (KASLR leaks)"},
    {"pidfd_getfd", Kind::kAlways, "takes another process's file descriptors"},
    {"open_by_handle_at", Kind::kAlways,
     "opens files by handle, past the mount namespace (the \"shocker\" escape)"},
    {"name_to_handle_at", Kind::kAlways, "the other half of open_by_handle_at"},
    {"personality", Kind::kPersonality,
     "turns off ASLR (ADDR_NO_RANDOMIZE) or makes data executable (READ_IMPLIES_EXEC)"},
    {"socket", Kind::kSocketFamily,
     "netlink, packet, vsock, AF_ALG...: kernel attack surface; the sandbox has no network"},
    {"socketpair", Kind::kSocketFamily, "as socket"},
};

// CLONE_NEWTIME (0x80) shares its bit with clone's exit signal, so clone is checked without it.
constexpr uint64_t kCloneNamespaceFlags[] = {CLONE_NEWNS,  CLONE_NEWCGROUP, CLONE_NEWUTS,
                                             CLONE_NEWIPC, CLONE_NEWUSER,   CLONE_NEWPID,
                                             CLONE_NEWNET};
constexpr uint64_t kCloneNewTime = 0x80;

std::string ErrnoName(int e) {
  switch (e) {
    case EPERM:
      return "EPERM";
    case ENOSYS:
      return "ENOSYS";
    default:
      return absl::StrCat("errno ", e);
  }
}

std::string ActionText(const Rule& rule, const SeccompPolicy& policy) {
  const std::string deny = ErrnoName(policy.deny_errno);
  switch (rule.kind) {
    case Kind::kAlways:
      return deny;
    case Kind::kAlwaysEnosys:
      return "ENOSYS";
    case Kind::kCloneNamespace:
      return absl::StrCat(deny, " if flags hold a CLONE_NEW* flag");
    case Kind::kUnshareNamespace:
      return absl::StrCat(deny, " if flags hold a CLONE_NEW* flag");
    case Kind::kPersonality:
      return absl::StrCat(deny, " unless the argument is 0 (PER_LINUX)");
    case Kind::kSocketFamily:
      return absl::StrCat(deny, " unless the family is AF_UNIX, AF_INET or AF_INET6");
  }
  return deny;
}

struct CtxDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};
using Ctx = std::unique_ptr<void, CtxDeleter>;

absl::Status LibError(absl::string_view what, int rc) {
  return absl::InternalError(absl::StrCat("libseccomp: ", what, ": ", strerror(-rc)));
}

absl::Status AddRule(scmp_filter_ctx ctx, const Rule& rule, const SeccompPolicy& policy) {
  const int nr = seccomp_syscall_resolve_name(rule.name);
  if (nr == __NR_SCMP_ERROR) {
    return absl::InternalError(absl::StrCat("libseccomp does not know the syscall ", rule.name));
  }
  const uint32_t deny = SCMP_ACT_ERRNO(static_cast<uint32_t>(policy.deny_errno));
  // Each rule is added separately; the filter refuses the call if any of them matches.
  auto add = [&](uint32_t action, unsigned count, const scmp_arg_cmp* cmp) -> absl::Status {
    const int rc = seccomp_rule_add_array(ctx, action, nr, count, cmp);
    if (rc != 0) return LibError(rule.name, rc);
    return absl::OkStatus();
  };
  switch (rule.kind) {
    case Kind::kAlways:
      return add(deny, 0, nullptr);
    case Kind::kAlwaysEnosys:
      return add(SCMP_ACT_ERRNO(ENOSYS), 0, nullptr);
    case Kind::kCloneNamespace:
    case Kind::kUnshareNamespace: {
      for (uint64_t flag : kCloneNamespaceFlags) {
        const scmp_arg_cmp cmp = SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag);
        if (absl::Status s = add(deny, 1, &cmp); !s.ok()) return s;
      }
      if (rule.kind == Kind::kUnshareNamespace) {
        const scmp_arg_cmp cmp = SCMP_A0(SCMP_CMP_MASKED_EQ, kCloneNewTime, kCloneNewTime);
        return add(deny, 1, &cmp);
      }
      return absl::OkStatus();
    }
    case Kind::kPersonality: {
      // The comparison is on all 64 bits, so garbage above the kernel's 32 is refused too.
      const scmp_arg_cmp cmp = SCMP_A0(SCMP_CMP_NE, 0);
      return add(deny, 1, &cmp);
    }
    case Kind::kSocketFamily: {
      // Refused: AF_UNSPEC, every family between AF_INET and AF_INET6, and all above AF_INET6
      // (64-bit comparison: high garbage bits are refused as well).
      for (uint64_t family = 0; family < AF_INET6; ++family) {
        if (family == AF_UNIX || family == AF_INET) continue;
        const scmp_arg_cmp cmp = SCMP_A0(SCMP_CMP_EQ, family);
        if (absl::Status s = add(deny, 1, &cmp); !s.ok()) return s;
      }
      const scmp_arg_cmp cmp = SCMP_A0(SCMP_CMP_GT, static_cast<uint64_t>(AF_INET6));
      return add(deny, 1, &cmp);
    }
  }
  return absl::InternalError("unknown rule kind");
}

absl::StatusOr<std::string> ReadAll(int fd) {
  std::string out;
  char buf[4096];
  for (off_t off = 0;;) {
    const ssize_t n = pread(fd, buf, sizeof(buf), off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::InternalError(absl::StrCat("reading the BPF back: ", strerror(errno)));
    if (n == 0) return out;
    out.append(buf, static_cast<size_t>(n));
    off += n;
  }
}

}  // namespace

std::vector<DeniedSyscall> DeniedSyscalls(const SeccompPolicy& policy) {
  std::vector<DeniedSyscall> out;
  for (const Rule& rule : kRules) {
    out.push_back({rule.name, ActionText(rule, policy), rule.reason});
  }
  out.push_back({"(any call through the i386 or x32 ABI)",
                 policy.kill_foreign_abi ? "kills the process (SIGSYS)" : "ENOSYS",
                 "the rules above are written for x86-64 syscall numbers"});
  return out;
}

std::string DeniedSyscallsMarkdown(const SeccompPolicy& policy) {
  std::string out = "| syscall | action | why |\n|---|---|---|\n";
  for (const DeniedSyscall& d : DeniedSyscalls(policy)) {
    const bool is_call = d.name[0] != '(';
    absl::StrAppend(&out, "| ", is_call ? "`" : "", d.name, is_call ? "`" : "", " | ", d.action,
                    " | ", d.reason, " |\n");
  }
  return out;
}

absl::StatusOr<std::string> CompileSeccompBpf(const SeccompPolicy& policy) {
  if (policy.deny_errno <= 0 || policy.deny_errno > 4095) {
    return absl::InvalidArgumentError(
        absl::StrCat("deny_errno must be in 1..4095, got ", policy.deny_errno));
  }
  Ctx ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (ctx == nullptr) return absl::InternalError("libseccomp: seccomp_init failed");
  // Only the native arch is in the filter: a call made through another ABI (int 0x80, or an x32
  // number with bit 30 set) takes the bad-arch action.
  const uint32_t bad_arch =
      policy.kill_foreign_abi ? SCMP_ACT_KILL_PROCESS : SCMP_ACT_ERRNO(ENOSYS);
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, bad_arch); rc != 0) {
    return LibError("bad-arch action", rc);
  }
  for (const Rule& rule : kRules) {
    if (absl::Status s = AddRule(ctx.get(), rule, policy); !s.ok()) return s;
  }
  const int fd = memfd_create("bbo-seccomp-export", MFD_CLOEXEC);
  if (fd < 0) return absl::ResourceExhaustedError(absl::StrCat("memfd_create: ", strerror(errno)));
  absl::StatusOr<std::string> bpf;
  if (int rc = seccomp_export_bpf(ctx.get(), fd); rc != 0) {
    bpf = LibError("seccomp_export_bpf", rc);
  } else {
    bpf = ReadAll(fd);
  }
  close(fd);
  return bpf;
}

absl::StatusOr<int> MakeSeccompFd(absl::string_view bpf) {
  const int fd = memfd_create("bbo-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return absl::ResourceExhaustedError(absl::StrCat("memfd_create: ", strerror(errno)));
  for (size_t off = 0; off < bpf.size();) {
    const ssize_t n = write(fd, bpf.data() + off, bpf.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : EIO;
      close(fd);
      return absl::ResourceExhaustedError(absl::StrCat("writing the seccomp memfd: ", strerror(e)));
    }
    off += static_cast<size_t>(n);
  }
  // Sealed, so nothing that later holds the descriptor can change the filter of the next
  // reader; rewound, because bwrap reads from the current offset.
  if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0 ||
      lseek(fd, 0, SEEK_SET) != 0) {
    const int e = errno;
    close(fd);
    return absl::ResourceExhaustedError(absl::StrCat("sealing the seccomp memfd: ", strerror(e)));
  }
  return fd;
}

absl::StatusOr<int> ExportSeccompBpf(const SeccompPolicy& policy) {
  absl::StatusOr<std::string> bpf = CompileSeccompBpf(policy);
  if (!bpf.ok()) return bpf.status();
  return MakeSeccompFd(*bpf);
}

}  // namespace bbo
