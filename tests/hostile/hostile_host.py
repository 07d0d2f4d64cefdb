"""The host side of the hostile suite (tests/hostile/run_hostile.py): the guard control group
around a run, and what is snapshotted and watched on the host (sysctls, sentinel trees, a TCP/UDP
listener, processes, mounts, the host uid of sandboxed processes). Standard library only."""
import hashlib
import os
import shutil
import signal
import socket
import threading
import time

GUARD_MEMORY = 6 << 30
GUARD_PIDS = 2048
GUARD_CPUS = 2
SYSCTLS = ["kernel/core_pattern", "kernel/modprobe", "vm/drop_caches", "kernel/randomize_va_space",
           "vm/overcommit_memory", "kernel/sysrq", "kernel/kptr_restrict", "kernel/hostname",
           "kernel/domainname", "net/ipv4/ip_forward", "user/max_user_namespaces", "kernel/pid_max",
           "kernel/dmesg_restrict", "fs/protected_symlinks"]


def log(msg):
    print(msg, flush=True)


def write(path, value):
    with open(path, "w") as f:
        f.write(str(value))


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def in_ci():
    """CI=true (or 1): the machine the suite is written for, where a setup error is a failure."""
    return os.environ.get("CI", "") in ("true", "1")


def cgroup_unsupported():
    """Why this host cannot make a guard control group, from the host itself (not from the
    guard's own attempt): "not root", no cgroup memory controller mounted, or mounted read-only.
    None when it plainly can: then a guard that cannot be made is a failure, not a skip."""
    if os.geteuid() != 0:
        return "not root"
    read_only = False
    for line in read("/proc/self/mounts").splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        mount_point, fstype, options = fields[1], fields[2], fields[3].split(",")
        if fstype == "cgroup":
            has_memory = "memory" in options
        elif fstype == "cgroup2":
            has_memory = "memory" in read(os.path.join(mount_point, "cgroup.controllers")).split()
        else:
            continue
        if has_memory and "ro" not in options:
            return None
        read_only = read_only or has_memory
    if read_only:
        return "the cgroup file system with the memory controller is mounted read-only"
    return "no cgroup memory controller is mounted (neither cgroup v1 memory nor cgroup2 offering it)"


class Guard:
    """A control group around the runner and everything it starts (the system under test
    included): cgroups v1 (one directory per controller, nested under the runner's own group so
    the limits of whatever runs the runner still apply) or v2."""

    V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct", "freezer")
    # Where the cgroup file systems are mounted. BBO_HOSTILE_CGROUP_ROOT is a test-only seam (a
    # wrong root makes the guard fail on a host that has cgroups: every case must then fail).
    ROOT = os.environ.get("BBO_HOSTILE_CGROUP_ROOT", "/sys/fs/cgroup")

    def __init__(self):
        self.name = "bbo-hostile-guard-%d" % os.getpid()
        self.version = None
        self.dirs = []   # guard directories (distinct)
        self.homes = []  # (controller dir to return to, guard dir)
        self.worker_dir = None  # v2: the worker's own leaf
        self.problem = None  # why setup() failed
        self.unsupported = None  # the host's own reason, when it lacks what a guard needs

    def setup(self):
        """True when the guard is made. Otherwise `problem` says what failed and `unsupported`
        why the host cannot have a guard (None: it can, so the failure is a setup error)."""
        self.unsupported = cgroup_unsupported()
        if os.geteuid() != 0:
            self.problem = "not root"
            return False
        try:
            if os.path.exists(os.path.join(self.ROOT, "cgroup.controllers")):
                self._setup_v2()
            else:
                self._setup_v1()
        except OSError as e:
            self.problem = "cannot create the guard cgroup: %s" % e
            self.teardown()
            return False
        return True

    def _own(self):
        own = {}
        for line in read("/proc/self/cgroup").splitlines():
            parts = line.split(":", 2)
            if len(parts) == 3:
                for c in parts[1].split(","):
                    own[c] = parts[2]
        return own

    def _setup_v1(self):
        own = self._own()
        seen = {}
        for c in self.V1_CONTROLLERS:
            mount = os.path.join(self.ROOT, c)
            if not os.path.isdir(mount):
                if c in ("memory", "pids"):
                    raise OSError("cgroup v1 controller %s is not mounted" % c)
                continue
            real = os.path.realpath(mount)
            if real in seen:
                continue
            home = os.path.join(real, own.get(c, "/").lstrip("/"))
            guard = os.path.join(home, self.name)
            os.makedirs(guard, exist_ok=True)
            seen[real] = guard
            self.dirs.append(guard)
            self.homes.append((home, guard))
            files = set(os.listdir(guard))
            if "memory.limit_in_bytes" in files:
                try:
                    write(os.path.join(guard, "memory.use_hierarchy"), 1)
                except OSError:
                    pass
                write(os.path.join(guard, "memory.limit_in_bytes"), GUARD_MEMORY)
                if "memory.memsw.limit_in_bytes" in files:
                    write(os.path.join(guard, "memory.memsw.limit_in_bytes"), GUARD_MEMORY)
            if "pids.max" in files:
                write(os.path.join(guard, "pids.max"), GUARD_PIDS)
            if "cpu.cfs_quota_us" in files:
                write(os.path.join(guard, "cpu.cfs_period_us"), 100000)
                write(os.path.join(guard, "cpu.cfs_quota_us"), 100000 * GUARD_CPUS)
        for _, guard in self.homes:
            write(os.path.join(guard, "cgroup.procs"), os.getpid())
        self.version = "v1"

    def _setup_v2(self):
        # The "no internal processes" rule: the guard sits at the root (which may hold
        # processes and delegate), the runner in guard/runner and the worker in guard/worker.
        root = self.ROOT
        home = os.path.join(root, self._own().get("", "/").lstrip("/"))
        enabled = read(os.path.join(root, "cgroup.subtree_control")).split()
        need = [c for c in ("memory", "pids", "cpu") if c not in enabled]
        if need:
            write(os.path.join(root, "cgroup.subtree_control"), " ".join("+" + c for c in need))
        guard = os.path.join(root, self.name)
        os.makedirs(guard, exist_ok=True)
        self.dirs.append(guard)
        write(os.path.join(guard, "memory.max"), GUARD_MEMORY)
        if os.path.exists(os.path.join(guard, "memory.swap.max")):
            write(os.path.join(guard, "memory.swap.max"), 0)
        write(os.path.join(guard, "pids.max"), GUARD_PIDS)
        write(os.path.join(guard, "cpu.max"), "%d 100000" % (100000 * GUARD_CPUS))
        write(os.path.join(guard, "cgroup.subtree_control"), "+memory +pids +cpu")
        for leaf in ("runner", "worker"):
            os.makedirs(os.path.join(guard, leaf), exist_ok=True)
        self.worker_dir = os.path.join(guard, "worker")
        write(os.path.join(guard, "runner", "cgroup.procs"), os.getpid())
        self.homes.append((home, guard))
        self.version = "v2"

    def worker_prefix(self):
        """v2: the worker moves itself into its own leaf before exec."""
        if self.version != "v2":
            return []
        return ["/bin/sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', self.worker_dir]

    def all_dirs(self):
        out = []
        for d in self.dirs:
            for dirpath, _, _ in os.walk(d):
                out.append(dirpath)
        return out

    def pids(self):
        pids = set()
        for d in self.all_dirs():
            for line in read(os.path.join(d, "cgroup.procs")).split():
                if line.isdigit():
                    pids.add(int(line))
        return pids

    def study_groups(self):
        """(directory, pids) of every group below a `bbo-arena*` group inside the guard."""
        out = []
        for d in self.all_dirs():
            parts = d.split("/")
            if any(p.startswith("bbo-arena") for p in parts[:-1]):
                procs = [int(x) for x in read(os.path.join(d, "cgroup.procs")).split() if x.isdigit()]
                out.append((d, procs))
        return out

    def kill_all_but_me(self, keep=()):
        me = os.getpid()
        for _ in range(50):
            victims = [p for p in self.pids() if p != me and p not in keep]
            if not victims:
                return
            for d in self.all_dirs():
                if os.path.exists(os.path.join(d, "freezer.state")):
                    try:
                        write(os.path.join(d, "freezer.state"), "THAWED")
                    except OSError:
                        pass
            for p in victims:
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.1)

    def teardown(self):
        if not self.dirs:
            return
        self.kill_all_but_me()
        for home, guard in self.homes:
            try:
                write(os.path.join(home, "cgroup.procs"), os.getpid())
            except OSError:
                pass
        for d in self.dirs:
            for _ in range(20):
                left = []
                for dirpath, _, _ in sorted(os.walk(d), key=lambda w: -w[0].count("/")):
                    try:
                        os.rmdir(dirpath)
                    except FileNotFoundError:
                        pass
                    except OSError:
                        left.append(dirpath)
                if not left:
                    break
                self.kill_all_but_me()
                time.sleep(0.1)
            else:
                log("WARNING: could not remove guard cgroup %s" % d)
        self.dirs = []


# ------------------------------------------------------------------------------------ host state


def sysctls():
    out = {}
    for s in SYSCTLS:
        path = "/proc/sys/" + s
        try:
            with open(path) as f:
                out[s] = f.read()
        except OSError:
            pass
    return out


def tree_digest(root):
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames + filenames):
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            entry = [oct(st.st_mode), st.st_size, st.st_uid, st.st_mtime_ns]
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as f:
                    entry.append(hashlib.sha256(f.read()).hexdigest())
            out[os.path.relpath(path, root)] = entry
    return out


def make_sentinels(pid, secret):
    dirs, files = [], []
    for base in ("/tmp", "/var/tmp"):
        d = os.path.join(base, "bbo-hostile-sentinel-%d" % pid)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(os.path.join(d, "sub"))
        for rel, mode in (("a.txt", 0o644), ("secret.txt", 0o600), ("sub/b.txt", 0o644)):
            p = os.path.join(d, rel)
            with open(p, "w") as f:
                f.write("HOSTILE-SENTINEL %s %s\n" % (secret, rel))
            os.chmod(p, mode)
        dirs.append(d)
        files.append(os.path.join(d, "a.txt"))
    return dirs, files


class Listeners:
    """A TCP listener on 127.0.0.1 and ::1 and a UDP socket on 127.0.0.1 that count what
    reaches them: nothing from inside a sandbox may."""

    def __init__(self):
        self.stop = threading.Event()
        self.events = []
        self.lock = threading.Lock()
        self.threads = []
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(16)
        self.tcp_port = self.tcp.getsockname()[1]
        self.tcp6 = None
        self.tcp6_port = None
        try:
            self.tcp6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            self.tcp6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            self.tcp6.bind(("::1", 0))
            self.tcp6.listen(16)
            self.tcp6_port = self.tcp6.getsockname()[1]
        except OSError:
            self.tcp6 = None
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp_port = self.udp.getsockname()[1]
        for s in (self.tcp, self.tcp6):
            if s is not None:
                self.threads.append(threading.Thread(target=self._accept, args=(s,), daemon=True))
        self.threads.append(threading.Thread(target=self._recv, daemon=True))
        for t in self.threads:
            t.start()

    def _accept(self, s):
        s.settimeout(0.2)
        while not self.stop.is_set():
            try:
                c, addr = s.accept()
            except (socket.timeout, OSError):
                continue
            with self.lock:
                self.events.append("TCP connection from %s" % (addr,))
            c.close()

    def _recv(self):
        self.udp.settimeout(0.2)
        while not self.stop.is_set():
            try:
                data, addr = self.udp.recvfrom(2048)
            except (socket.timeout, OSError):
                continue
            with self.lock:
                self.events.append("UDP datagram from %s: %r" % (addr, data[:40]))

    def close(self):
        self.stop.set()
        for t in self.threads:
            t.join(1)
        for s in (self.tcp, self.tcp6, self.udp):
            if s is not None:
                s.close()


def proc_table():
    """pid -> (real uid, effective uid, start time in clock ticks since boot, cmdline, cgroup)."""
    out = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/status" % p) as f:
                status = f.read()
            with open("/proc/%s/stat" % p) as f:
                stat = f.read()
            with open("/proc/%s/cmdline" % p, "rb") as f:
                cmd = f.read(200).replace(b"\0", b" ").decode("utf-8", "replace").strip()
            cg = read("/proc/%s/cgroup" % p)
        except OSError:
            continue
        uid_line = [l for l in status.splitlines() if l.startswith("Uid:")]
        uids = uid_line[0].split()[1:3] if uid_line else ["-1", "-1"]
        start = int(stat.rsplit(")", 1)[1].split()[19])
        out[int(p)] = (int(uids[0]), int(uids[1]), start, cmd, cg)
    return out


def uptime_ticks():
    return float(read("/proc/uptime").split()[0]) * os.sysconf("SC_CLK_TCK")


def mounts_under(prefix):
    out = []
    for line in read("/proc/self/mountinfo").splitlines():
        f = line.split()
        if len(f) > 4 and (f[4] == prefix or f[4].startswith(prefix + "/")):
            out.append(f[4])
    return out


def vm_hwm_mb(pid):
    for line in read("/proc/%d/status" % pid).splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return None


def find_marker_files(marker, roots_shallow, roots_deep):
    found = []
    for r in roots_shallow:
        try:
            for name in os.listdir(r):
                if marker in name:
                    found.append(os.path.join(r, name))
        except OSError:
            pass
    for r in roots_deep:
        for dirpath, dirnames, filenames in os.walk(r):
            for name in dirnames + filenames:
                if marker in name:
                    found.append(os.path.join(dirpath, name))
    return found


# The limit files of a study's control group (v1 and v2).
LIMIT_FILES = ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "memory.max", "pids.max",
               "cpu.cfs_quota_us", "cpu.cfs_period_us", "cpu.max")


def limit_mismatches(values, limits):
    """What differs between the limit files read from study groups and the limits passed to
    bbo-server ({"memory_mb", "max_tasks", "cpus"}); [] when all match."""
    bad = []
    mem = limits.get("memory_mb")
    by_dir = {}
    for (d, f), v in values.items():
        by_dir.setdefault(d, {})[f] = v
    for d, files in by_dir.items():
        name = "/".join(d.split("/")[-2:])
        for f in ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "memory.max"):
            if mem and f in files and files[f] != str(mem << 20):
                bad.append("%s %s=%s (expected %d)" % (name, f, files[f], mem << 20))
        if limits.get("max_tasks") and "pids.max" in files and files["pids.max"] != str(limits["max_tasks"]):
            bad.append("%s pids.max=%s (expected %s)" % (name, files["pids.max"], limits["max_tasks"]))
        cpus = limits.get("cpus")
        if cpus:
            quota = period = None
            if "cpu.cfs_quota_us" in files and "cpu.cfs_period_us" in files:
                quota, period = files["cpu.cfs_quota_us"], files["cpu.cfs_period_us"]
            elif "cpu.max" in files:
                quota, period = (files["cpu.max"].split() + ["100000"])[:2]
            if quota is not None:
                try:
                    got = int(quota) / float(period)
                except ValueError:
                    got = None
                if got is None or abs(got - cpus) > 0.01:
                    bad.append("%s cpu quota %s/%s (expected %.2f cores)" % (name, quota, period, cpus))
    return bad


class UidSampler:
    """Samples, every 50 ms, the host uid of every process in a study's control group: the
    optimizer must never run as host root (or as any uid but the sandbox's). The worker's own
    fork before it execs bwrap (still the worker's binary) is left out. Also reads each study
    group's limit files once it holds a process (see limit_mismatches)."""

    def __init__(self, guard, worker_bin):
        self.guard = guard
        self.worker_bin = worker_bin
        self.seen = {}  # uid -> example command line
        self.samples = 0
        self.limits = {}  # (study group, limit file) -> value, as first read
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.wait(0.05):
            for d, pids in self.guard.study_groups():
                # Read once the group holds a process: a group just made may not have its limits
                # yet, but none may hold a process without them.
                for f in (LIMIT_FILES if pids else ()):
                    if (d, f) not in self.limits:
                        v = read(os.path.join(d, f), None)
                        if v is not None:
                            self.limits[(d, f)] = v
                for pid in pids:
                    status = read("/proc/%d/status" % pid)
                    try:
                        with open("/proc/%d/cmdline" % pid, "rb") as f:
                            cmd = f.read(200).replace(b"\0", b" ").decode("utf-8", "replace").strip()
                    except OSError:
                        continue
                    if not status or cmd.startswith(self.worker_bin):
                        continue
                    uids = [l.split()[1:3] for l in status.splitlines() if l.startswith("Uid:")]
                    if uids:
                        self.samples += 1
                        for u in set(uids[0]):
                            self.seen.setdefault(int(u), cmd[:100])

    def close(self):
        self.stop.set()
        self.thread.join(2)
