"""Shared helpers of the hostile submissions (tests/hostile/cases/*).

run_hostile.py copies this file and a `target.json` into every case's submission folder before
submitting it, so inside the sandbox it sits next to the optimizer at /sub and `import
hostile_lib` works for both kinds of submission (Bayesmark `optimizer.py` and executable
`optimizer`).

Two things live here:

* Probes: an attack is a function that returns a truthy description when it SUCCEEDED (the
  sandbox leaked) and returns something falsy or raises when it failed (contained). Results are
  reported to the runner through the study's recorded errors: a `suggest` answered with an
  `error` whose message is "HOSTILE-PROBES [...]" (a JSON list, ASCII, under 4 KiB per message).
* Proto: a minimal, fully controllable speaker of the hosting protocol
  (docs/hosting-protocol.md) for executable cases that need to send raw or malformed bytes.

Everything here is bounded in time: each probe has its own timeout where it can block, and
every loop has a cap.
"""
import errno
import json
import math
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def target():
    """What the runner tells the case about the host (ports, paths, pids): target.json."""
    try:
        with open(os.path.join(HERE, "target.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


TARGET = target()
MARKER = TARGET.get("marker", "bbo-hostile-pwned")


def short(x, limit=100):
    """A short ASCII description of an exception or a result."""
    if isinstance(x, OSError) and x.errno is not None:
        s = "%s %s" % (errno.errorcode.get(x.errno, str(x.errno)), x.strerror or "")
    elif isinstance(x, BaseException):
        s = "%s: %s" % (type(x).__name__, x)
    else:
        s = str(x)
    s = s.encode("ascii", "backslashreplace").decode("ascii")
    return s if len(s) <= limit else s[: limit - 3] + "..."


class Probes:
    """Runs attacks and keeps what happened."""

    def __init__(self):
        self.results = []

    def attempt(self, name, fn):
        """Runs `fn`; contained when it raises or returns something falsy."""
        try:
            r = fn()
        except BaseException as e:  # noqa: B902 - SystemExit from a child etc. also counts
            if isinstance(e, KeyboardInterrupt):
                raise
            self.results.append({"n": name, "ok": True, "d": short(e)})
            return False
        if r:
            self.results.append({"n": name, "ok": False, "d": short(r)})
            return True
        self.results.append({"n": name, "ok": True, "d": short(r) if r is not None else "failed"})
        return False

    def record(self, name, contained, detail=""):
        self.results.append({"n": name, "ok": bool(contained), "d": short(detail)})

    def info(self, name, detail):
        """Not asserted; shown by the runner."""
        self.results.append({"n": name, "ok": None, "d": short(detail, 200)})

    def messages(self, limit=3500):
        """The results as "HOSTILE-PROBES [...]" messages, each under `limit` bytes."""
        out, chunk = [], []
        for r in self.results:
            candidate = chunk + [r]
            if chunk and len(json.dumps(candidate)) + 16 > limit:
                out.append(chunk)
                chunk = [r]
            else:
                chunk = candidate
        if chunk or not out:
            out.append(chunk)
        return ["HOSTILE-PROBES " + json.dumps(c, separators=(",", ":")) for c in out]


# ---------------------------------------------------------------- points


def random_point(api_config, rng=random):
    p = {}
    for name, spec in api_config.items():
        t = spec.get("type")
        if t == "bool":
            p[name] = rng.random() < 0.5
        elif t == "cat":
            p[name] = rng.choice(spec["values"])
        elif t == "int":
            lo, hi = spec["range"]
            p[name] = rng.randint(int(math.ceil(lo)), int(math.floor(hi)))
        else:
            lo, hi = spec["range"]
            if spec.get("space") == "log" and lo > 0:
                p[name] = math.exp(rng.uniform(math.log(lo), math.log(hi)))
            else:
                p[name] = rng.uniform(lo, hi)
            p[name] = min(max(p[name], lo), hi)
    return p


def random_points(api_config, n, rng=random):
    return [random_point(api_config, rng) for _ in range(n)]


def problem_index(api_config):
    """Position of this study's problem in target.json's "problems" (the server's order), or -1.
    Lets one case try a different variant in each of several studies."""
    for i, p in enumerate(TARGET.get("problems", [])):
        if p.get("api_config") == api_config:
            return i
    return -1


# ---------------------------------------------------------------- protocol


class Proto:
    """The optimizer side of the hosting protocol with full control over the bytes sent.
    Subclasses override on_start / on_suggest / on_observe / on_end; the defaults are a
    well-behaved random search."""

    def __init__(self):
        self.inp = sys.stdin.buffer
        self.out = os.fdopen(1, "wb", buffering=0, closefd=False)
        self.api_config = {}
        self.rng = random.Random(int(os.environ.get("BBO_SEED", "1")))
        self.probes = Probes()
        self.pending = []  # probe messages still to report

    # --- I/O
    def recv(self):
        while True:
            line = self.inp.readline()
            if not line:
                os._exit(0)
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict):
                return msg

    def send(self, obj):
        self.send_raw(json.dumps(obj, separators=(",", ":")).encode() + b"\n")

    def send_raw(self, data):
        view = memoryview(data)
        while view:
            n = self.out.write(view)
            view = view[n:]

    def points(self, n):
        return random_points(self.api_config, n, self.rng)

    # --- default behaviour
    def ready(self):
        self.send({"type": "ready", "name": type(self).__name__, "version": "hostile"})

    def suggestions(self, msg):
        self.send({"type": "suggestions", "x": self.points(int(msg.get("n", 8)))})

    def report_or_suggest(self, msg):
        """Reports pending probe results as an `error` (one message per turn), else suggests."""
        if not self.pending and self.probes.results:
            self.pending = self.probes.messages()
            self.probes.results = []
        if self.pending:
            self.send({"type": "error", "message": self.pending.pop(0)})
        else:
            self.suggestions(msg)

    def on_start(self, msg):
        self.ready()

    def on_suggest(self, msg):
        self.report_or_suggest(msg)

    def on_observe(self, msg):
        self.send({"type": "observed"})

    def on_end(self, msg):
        pass

    def run(self):
        while True:
            msg = self.recv()
            kind = msg.get("type")
            if kind == "start":
                self.api_config = msg.get("api_config", {})
                self.on_start(msg)
            elif kind == "suggest":
                self.on_suggest(msg)
            elif kind == "observe":
                self.on_observe(msg)
            elif kind == "end":
                self.on_end(msg)
                os._exit(0)


# ---------------------------------------------------------------- Bayesmark cases


def bayesmark_report(probes, state):
    """For optimizer.py cases: call at the top of suggest(); raises the next probe message (the
    batch is then filled by random search and the message recorded) until all are reported."""
    if "pending" not in state:
        state["pending"] = probes.messages()
    if state["pending"]:
        raise RuntimeError(state["pending"].pop(0))


# ---------------------------------------------------------------- small attack helpers


def libc():
    import ctypes
    return ctypes.CDLL(None, use_errno=True)


def syscall(nr, *args):
    """Raw system call; returns the result or raises OSError with errno."""
    import ctypes
    lib = libc()
    lib.syscall.restype = ctypes.c_long
    cargs = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    r = lib.syscall(ctypes.c_long(nr), *cargs)
    if r == -1:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r


def read_some(path, n=64):
    """Truthy (what was read) when `path` is readable: a file with bytes or a listable folder."""
    if os.path.isdir(path):
        entries = os.listdir(path)
        return ("listed %d entries: %s" % (len(entries), ",".join(sorted(entries)[:5]))) if entries else None
    with open(path, "rb") as f:
        data = f.read(n)
    return ("read %d bytes" % len(data)) if data else None


def write_file(path, data=b"x"):
    with open(path, "wb") as f:
        f.write(data)
    return "wrote " + path


def spin_until(deadline):
    while time.time() < deadline:
        pass


# ---------------------------------------------------------------- system call numbers

SYSCALLS = {
    "x86_64": dict(
        ptrace=101, process_vm_readv=310, process_vm_writev=311, kcmp=312, pidfd_open=434,
        pidfd_getfd=438, process_madvise=440, unshare=272, setns=308, clone=56, clone3=435,
        mount=165, umount2=166, pivot_root=155, chroot=161, open_tree=428, move_mount=429,
        fsopen=430, fsconfig=431, fsmount=432, fspick=433, mount_setattr=442,
        io_uring_setup=425, io_uring_enter=426, io_uring_register=427, perf_event_open=298,
        userfaultfd=323, bpf=321, keyctl=250, add_key=248, request_key=249, init_module=175,
        finit_module=313, delete_module=176, kexec_load=246, kexec_file_load=320, reboot=169,
        swapon=167, swapoff=168, settimeofday=164, clock_settime=227, clock_adjtime=305,
        adjtimex=159, acct=163, quotactl=179, syslog=103, sethostname=170, setdomainname=171,
        vhangup=153, iopl=172, ioperm=173, fanotify_init=300, open_by_handle_at=304,
        name_to_handle_at=303, personality=135, lookup_dcookie=212, uselib=134, ustat=136,
        sysfs=139, nfsservctl=180, quotactl_fd=443),
    "aarch64": dict(
        ptrace=117, process_vm_readv=270, process_vm_writev=271, kcmp=272, pidfd_open=434,
        pidfd_getfd=438, process_madvise=440, unshare=97, setns=268, clone=220, clone3=435,
        mount=40, umount2=39, pivot_root=41, chroot=51, open_tree=428, move_mount=429,
        fsopen=430, fsconfig=431, fsmount=432, fspick=433, mount_setattr=442,
        io_uring_setup=425, io_uring_enter=426, io_uring_register=427, perf_event_open=241,
        userfaultfd=282, bpf=280, keyctl=219, add_key=217, request_key=218, init_module=105,
        finit_module=273, delete_module=106, kexec_load=104, kexec_file_load=294, reboot=142,
        swapon=224, swapoff=225, settimeofday=170, clock_settime=112, clock_adjtime=266,
        adjtimex=171, acct=89, quotactl=60, syslog=116, sethostname=161, setdomainname=162,
        vhangup=58, fanotify_init=262, open_by_handle_at=265, name_to_handle_at=264,
        personality=92, quotactl_fd=443),
}


def nr(name):
    """This machine's number of system call `name`, or None."""
    return SYSCALLS.get(os.uname().machine, {}).get(name)


def denied_call(name, *args):
    """A probe for a system call that must be refused: truthy (escaped) when it returns a
    result, or fails with an errno showing the kernel ran it past the permission checks (so a
    harmless argument, e.g. a bad pointer, was all that stopped it). EPERM, EACCES and ENOSYS
    count as refused. Arguments are chosen by the callers to be harmless if ever accepted."""
    number = nr(name)
    if number is None:
        raise OSError(errno.ENOSYS, "no syscall number for %s on %s" % (name, os.uname().machine))
    try:
        r = syscall(number, *args)
    except OSError as e:
        if e.errno in (errno.EPERM, errno.EACCES, errno.ENOSYS):
            raise
        return "%s reached the kernel: %s" % (name, short(e))
    if r >= 0 and name not in ("clone",):
        try:
            if name in ("io_uring_setup", "perf_event_open", "userfaultfd", "bpf", "fsopen",
                        "open_tree", "fanotify_init", "pidfd_getfd", "open_by_handle_at"):
                os.close(r)
        except OSError:
            pass
    return "%s returned %d" % (name, r)


def innocent_optimizer():
    """A well-behaved Bayesmark optimizer class (random search), for cases whose attack is not
    the optimizer (the archive around it). Imports bayesmark only when called."""
    import bayesmark.random_search as rs
    from bayesmark.abstract_optimizer import AbstractOptimizer

    class Innocent(AbstractOptimizer):
        def suggest(self, n_suggestions=1):
            return rs.suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)

        def observe(self, X, y):
            pass

    return Innocent
