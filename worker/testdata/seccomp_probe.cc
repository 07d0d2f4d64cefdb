// seccomp_probe: makes one system call, named on the command line, and prints what happened, for
// seccomp_filter_test. Each call is chosen to be harmless even when it succeeds (invalid magic
// numbers, nonexistent paths, a child that exits at once) and runs in a forked child, so that a
// kill by the filter is reported rather than suffered.
//
//   seccomp_probe [--userns] [--filter-fd N] CALL
//     --userns       first enter a new user + mount namespace (root in it, with capabilities),
//                    so that mount-class calls succeed unless the filter refuses them;
//     --filter-fd N  then install the classic BPF program read from descriptor N;
//     prints one line: "ok", "errno N" or "signal N"; exit status 2 when the set-up fails.

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/mount.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <string>

namespace {

// 0 on success, else the errno.
int Result(long rc) { return rc < 0 ? errno : 0; }

// Runs `child` in a fork and returns 0 when it exited with status 0, else the errno it exited
// with (an exit status), for calls that create processes.
int InChild(long rc) {
  if (rc < 0) return errno;
  if (rc == 0) _exit(0);
  int status = 0;
  waitpid(static_cast<pid_t>(rc), &status, __WALL);
  return 0;
}

int Socket(int family, int type) { return Result(socket(family, type, 0)); }

void* Nothing(void*) { return nullptr; }

int I386Getpid() {
  long rc;
  asm volatile("int $0x80" : "=a"(rc) : "a"(20L) : "memory");  // i386 __NR_getpid
  return rc < 0 ? static_cast<int>(-rc) : 0;
}

const std::map<std::string, std::function<int()>>& Calls() {
  static const auto* calls = new std::map<std::string, std::function<int()>>{
      {"unshare_user", [] { return Result(unshare(CLONE_NEWUSER)); }},
      {"unshare_net", [] { return Result(unshare(CLONE_NEWNET)); }},
      {"unshare_files", [] { return Result(unshare(CLONE_FILES | CLONE_FS)); }},
      {"clone_newuser",
       [] { return InChild(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)); }},
      {"clone3",
       [] {
         struct clone_args args;
         memset(&args, 0, sizeof(args));
         args.exit_signal = SIGCHLD;
         return InChild(syscall(SYS_clone3, &args, sizeof(args)));
       }},
      {"setns",
       [] {
         const int fd = open("/proc/self/ns/net", O_RDONLY);
         return Result(setns(fd, CLONE_NEWNET));
       }},
      {"mount", [] { return Result(mount("none", "/tmp", "tmpfs", 0, nullptr)); }},
      {"umount2", [] { return Result(umount2("/proc", MNT_DETACH)); }},
      {"chroot", [] { return Result(chroot("/")); }},
      {"pivot_root", [] { return Result(syscall(SYS_pivot_root, "/tmp", "/tmp")); }},
      {"open_tree",
       [] { return Result(syscall(SYS_open_tree, AT_FDCWD, "/tmp", OPEN_TREE_CLONE)); }},
      {"fsopen", [] { return Result(syscall(SYS_fsopen, "tmpfs", 0)); }},
      {"bpf",
       [] {
         union bpf_attr attr;
         memset(&attr, 0, sizeof(attr));
         attr.map_type = BPF_MAP_TYPE_ARRAY;
         attr.key_size = 4;
         attr.value_size = 4;
         attr.max_entries = 1;
         return Result(syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr)));
       }},
      {"perf_event_open",
       [] {
         struct perf_event_attr attr;
         memset(&attr, 0, sizeof(attr));
         attr.size = sizeof(attr);
         attr.type = PERF_TYPE_SOFTWARE;
         attr.config = PERF_COUNT_SW_TASK_CLOCK;
         attr.exclude_kernel = 1;
         attr.exclude_hv = 1;
         return Result(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
       }},
      {"io_uring_setup",
       [] {
         struct io_uring_params params;
         memset(&params, 0, sizeof(params));
         return Result(syscall(SYS_io_uring_setup, 1, &params));
       }},
      {"userfaultfd",
       [] { return Result(syscall(SYS_userfaultfd, O_CLOEXEC | 1 /*UFFD_USER_MODE_ONLY*/)); }},
      {"keyctl",
       [] {
         return Result(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 1));
       }},
      {"add_key",
       [] {
         return Result(syscall(SYS_add_key, "user", "bbo-probe", "x", 1, KEY_SPEC_PROCESS_KEYRING));
       }},
      {"ptrace_traceme", [] { return Result(ptrace(PTRACE_TRACEME, 0, nullptr, nullptr)); }},
      {"process_vm_readv",
       [] {
         char from[8] = "abcdefg", to[8];
         struct iovec local = {to, sizeof(to)}, remote = {from, sizeof(from)};
         return Result(process_vm_readv(getpid(), &local, 1, &remote, 1, 0));
       }},
      {"personality_no_aslr", [] { return Result(personality(ADDR_NO_RANDOMIZE)); }},
      {"personality_linux", [] { return Result(personality(PER_LINUX)); }},
      {"socket_netlink", [] { return Result(socket(AF_NETLINK, SOCK_RAW, 0)); }},
      {"socket_packet", [] { return Socket(AF_PACKET, SOCK_RAW); }},
      {"socket_vsock", [] { return Socket(AF_VSOCK, SOCK_STREAM); }},
      {"socket_alg", [] { return Socket(AF_ALG, SOCK_SEQPACKET); }},
      {"socket_high_bits",
       [] { return Result(syscall(SYS_socket, (1L << 32) | AF_NETLINK, SOCK_RAW, 0)); }},
      {"socket_unix", [] { return Socket(AF_UNIX, SOCK_STREAM); }},
      {"socket_inet", [] { return Socket(AF_INET, SOCK_STREAM); }},
      {"socket_inet6", [] { return Socket(AF_INET6, SOCK_DGRAM); }},
      {"socketpair_unix",
       [] {
         int fds[2];
         return Result(socketpair(AF_UNIX, SOCK_STREAM, 0, fds));
       }},
      {"reboot", [] { return Result(syscall(SYS_reboot, 0, 0, 0, nullptr)); }},  // bad magic
      {"swapon", [] { return Result(swapon("/nonexistent", 0)); }},
      {"init_module", [] { return Result(syscall(SYS_init_module, nullptr, 0, "")); }},
      {"finit_module", [] { return Result(syscall(SYS_finit_module, -1, "", 0)); }},
      {"kexec_load",
       [] { return Result(syscall(SYS_kexec_load, 0, 0, nullptr, 0xdead0000UL)); }},  // bad flags
      {"clock_settime",
       [] {
         struct timespec ts = {0, -1};  // invalid; glibc would refuse it before the kernel
         return Result(syscall(SYS_clock_settime, CLOCK_REALTIME, &ts));
       }},
      {"settimeofday",
       [] {
         struct timeval tv = {0, -1};  // invalid
         return Result(syscall(SYS_settimeofday, &tv, nullptr));
       }},
      {"adjtimex",
       [] {
         struct timex t;
         memset(&t, 0, sizeof(t));  // modes 0: a read-only query
         return Result(adjtimex(&t));
       }},
      {"acct", [] { return Result(acct("/nonexistent")); }},
      {"syslog", [] { return Result(klogctl(10 /*SYSLOG_ACTION_SIZE_BUFFER*/, nullptr, 0)); }},
      {"sethostname", [] { return Result(sethostname("probe", 5)); }},
      {"name_to_handle_at",
       [] {
         char buf[sizeof(struct file_handle) + 128];
         auto* handle = reinterpret_cast<struct file_handle*>(buf);
         handle->handle_bytes = 128;
         int mount_id;
         return Result(name_to_handle_at(AT_FDCWD, "/proc", handle, &mount_id, 0));
       }},
      {"threads",
       [] {
         pthread_t t;
         const int e = pthread_create(&t, nullptr, Nothing, nullptr);
         if (e == 0) pthread_join(t, nullptr);
         return e;
       }},
      {"fork", [] { return InChild(fork()); }},
      {"i386_getpid", [] { return I386Getpid(); }},
      {"x32_getpid", [] { return Result(syscall(0x40000000L | 39)); }},  // x32 getpid
  };
  return *calls;
}

bool InstallFilter(int fd) {
  std::string bpf;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) bpf.append(buf, static_cast<size_t>(n));
  if (n < 0 || bpf.empty() || bpf.size() % sizeof(struct sock_filter) != 0) return false;
  struct sock_fprog prog = {static_cast<unsigned short>(bpf.size() / sizeof(struct sock_filter)),
                            reinterpret_cast<struct sock_filter*>(bpf.data())};
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0 && close(fd) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool userns = false;
  int filter_fd = -1;
  int i = 1;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; ++i) {
    if (strcmp(argv[i], "--userns") == 0) {
      userns = true;
    } else if (strcmp(argv[i], "--filter-fd") == 0 && i + 1 < argc) {
      filter_fd = atoi(argv[++i]);
    } else {
      fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (i + 1 != argc || Calls().count(argv[i]) == 0) {
    fprintf(stderr, "usage: seccomp_probe [--userns] [--filter-fd N] CALL\n");
    return 2;
  }
  if (userns && unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
    fprintf(stderr, "unshare: %s\n", strerror(errno));
    return 2;
  }
  if (filter_fd >= 0 && !InstallFilter(filter_fd)) {
    fprintf(stderr, "installing the filter: %s\n", strerror(errno));
    return 2;
  }
  fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) return 2;
  if (pid == 0) {
    const int e = Calls().at(argv[i])();
    if (e == 0) {
      printf("ok\n");
    } else {
      printf("errno %d\n", e);
    }
    fflush(stdout);
    _exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return 2;
  if (WIFSIGNALED(status)) printf("signal %d\n", WTERMSIG(status));
  return 0;
}
