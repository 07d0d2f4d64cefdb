#ifndef BBO_WORKER_SECCOMP_FILTER_H_
#define BBO_WORKER_SECCOMP_FILTER_H_

// The seccomp filter every sandboxed optimizer runs under: a deny-list, compiled with libseccomp
// into classic BPF and handed to bubblewrap as `--seccomp FD` (bwrap applies it right before it
// execs the optimizer, after setting PR_SET_NO_NEW_PRIVS).
//
// ## What the filter denies, and why (for docs/security.md)
//
// Namespaces, bubblewrap and cgroups confine the optimizer; the filter shrinks the kernel it can
// reach from inside. It allows every system call by default and refuses, on x86-64:
//
// - **New namespaces**: `unshare` and `clone` with any `CLONE_NEW*` flag, `setns`; `clone3`
//   always (its flags sit in memory a filter cannot read; glibc falls back to `clone` when
//   `clone3` says ENOSYS, so threads, fork and posix_spawn keep working). A nested user namespace
//   is how an unprivileged process gets the capabilities that most kernel exploits need.
// - **Mounts**: `mount`, `umount2`, `pivot_root`, `chroot`, the new mount API (`open_tree`,
//   `move_mount`, `fsopen`, `fsconfig`, `fsmount`, `fspick`, `mount_setattr`).
// - **Kernel attack surface with a record of exploits**: `bpf`, `perf_event_open`,
//   `io_uring_setup/enter/register` (ENOSYS: libraries probe for io_uring and fall back),
//   `userfaultfd` (turns races into reliable exploits), `keyctl`/`add_key`/`request_key`.
// - **Host administration** (capability checks already refuse most; the filter makes it
//   independent of how uids and capabilities are mapped): `kexec_load`, `kexec_file_load`,
//   `init_module`, `finit_module`, `delete_module`, `create_module`, `reboot`, `swapon`,
//   `swapoff`, `settimeofday`, `clock_settime`, `clock_adjtime`, `adjtimex`, `acct`,
//   `quotactl`, `quotactl_fd`, `syslog`, `sethostname`, `setdomainname`, `vhangup`, `iopl`,
//   `ioperm`, `fanotify_init`, `nfsservctl`, and the obsolete `sysfs`, `uselib`, `ustat`,
//   `_sysctl`, `lookup_dcookie`.
// - **Other processes' memory**: `ptrace`, `process_vm_readv`, `process_vm_writev`,
//   `process_madvise`, `kcmp`, `pidfd_getfd`.
// - **File handles** (the "shocker" container escape): `open_by_handle_at`, `name_to_handle_at`.
// - **`personality`** with any argument but 0 (turning off ASLR, READ_IMPLIES_EXEC...).
// - **Sockets** of any family but AF_UNIX, AF_INET and AF_INET6 (netlink, packet, vsock,
//   Bluetooth, AF_ALG crypto, ...): `socket` and `socketpair`. The sandbox has no network anyway;
//   AF_UNIX stays for Python's multiprocessing, the inet families for libraries that probe.
// - **32-bit ABIs**: a system call made through the i386 (`int 0x80`) or x32 ABI kills the
//   process (SIGSYS): a deny-list written for x86-64 numbers says nothing about them.
//
// Refused calls fail with EPERM (ENOSYS where noted), as Docker's do, so programs see an
// ordinary error rather than a crash. Threads (`clone` without namespace flags), `fork`, `mmap`,
// `futex`, `sched_*`, NUMA calls (`mbind`, `get_mempolicy`...), AF_UNIX sockets, `prctl` and
// `seccomp` itself stay allowed: numpy, scipy, scikit-learn and torch need them.
//
// Compared with Docker's default profile (an allow-list of ~350 calls that refuses the rest
// with EPERM; moby/moby#46762 dropped io_uring from it in 2023) this filter refuses the same
// dangerous calls a process without capabilities could reach, plus netlink and packet sockets
// (Docker refuses only AF_VSOCK) and every foreign ABI (Docker allows i386 and x32 under the same
// names). Docker allows `personality` with 0, 8, 0x20000, 0x20008 and the query 0xffffffff; a
// deny-list rule cannot except the query, so here only 0 passes (nothing in the Python stack
// calls it). nsjail installs no filter unless given a kafel policy (its example configs are
// deny-lists much like this one); isolate (the IOI sandbox) uses no seccomp at all and relies on
// namespaces, rlimits and cgroups.
//
// Thread safety: the functions are thread-safe (each builds its own libseccomp context).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bbo {

struct SeccompPolicy {
  // The errno of refused calls that do not say ENOSYS. Default EPERM. Tests choose an errno the
  // kernel itself never returns for those calls, to tell the filter's refusal from the kernel's.
  int deny_errno = 1;  // EPERM
  // true (default): a call through the i386 or x32 ABI kills the process with SIGSYS.
  // false: it fails with ENOSYS.
  bool kill_foreign_abi = true;
};

// One row of the table in docs/security.md.
struct DeniedSyscall {
  std::string name;    // "unshare"
  std::string action;  // "EPERM when flags include a CLONE_NEW* flag"
  std::string reason;  // "a nested user namespace hands out capabilities"
};

// Every refused call, in the order of the header comment above. The filter is built from the
// same table, so the list cannot drift from what is enforced.
std::vector<DeniedSyscall> DeniedSyscalls(const SeccompPolicy& policy = {});

// The table as Markdown: "| syscall | action | why |" and one row per call.
std::string DeniedSyscallsMarkdown(const SeccompPolicy& policy = {});

// The filter as classic BPF (struct sock_filter[], native byte order), what `bwrap --seccomp`
// reads. Internal when libseccomp fails (an unknown syscall name, an invalid rule).
absl::StatusOr<std::string> CompileSeccompBpf(const SeccompPolicy& policy = {});

// A memfd holding `bpf` with its offset at 0, O_CLOEXEC set and sealed against writes. The
// caller owns it and closes it after the launch. One descriptor per sandbox launch: bwrap reads
// from the current offset to the end, and the offset is shared by every copy of the descriptor.
// ResourceExhausted when the memfd cannot be created or written.
absl::StatusOr<int> MakeSeccompFd(absl::string_view bpf);

// CompileSeccompBpf + MakeSeccompFd. To launch: keep the descriptor open in the child across
// exec (SubprocessOptions::inherited_fds / ProcessSpec::inherited_fds) and pass
// `--seccomp <fd>` to bwrap.
absl::StatusOr<int> ExportSeccompBpf(const SeccompPolicy& policy = {});

}  // namespace bbo

#endif  // BBO_WORKER_SECCOMP_FILTER_H_
