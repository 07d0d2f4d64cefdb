#!/usr/bin/python3
"""Soak run (issue 24): a coordinator, two workers and remote clients under steady load for a
bounded time, with faults mixed in, watching for growth and for lost or doubled results.

  bench/soak.py [BUILD=build] [--minutes M] [--smoke] [--keep]

Default 30 minutes; --smoke is CI's 2-minute run (its growth figures are printed, judged only
by a full run, as short runs are still warming up). Root only: every process it starts runs in
a memory (6 GiB) and pids (4,000) control group it makes, so a leak cannot take the machine
down, and the whole tree is killed at the end; without them it exits 77 (skipped).

The load, on loopback:
  * bench's soak_client: practice clients (OpenStudy, SubmitBatch x 16, retried through
    restarts with the same request id; every answered batch is recorded) and a thread of
    malformed gRPC calls (random bytes, truncated and over-long messages, bad tokens, unknown
    methods, 20 MiB once a minute);
  * `bbo submit` of random-search-cpp every few seconds (its jobs run on the two workers, in
    their sandboxes), `bbo leaderboard` and the web pages' JSON read by participants;
  * raw junk on the gRPC and web ports (bytes, HTTP/1 on the HTTP/2 port, bad frames, bad
    request lines, huge headers, lying Content-Length, a slow sender).
The faults: a random worker SIGKILLed every ~45 s (restarted after 0.5-3 s), the coordinator
SIGKILLed at 20 % of the run and stopped with SIGTERM at 40 % (restarted at once each time).

Sampled every few seconds: the coordinator's RSS, open descriptors and threads, the workers'
(summed), the database's size (with its WAL), evaluations recorded, and orphans (processes of
the run whose parent is gone). At the end, after the queue drained and everything stopped:
  lost     an acknowledged batch missing or changed in the database, an accepted submission
           missing, a job not done, a done job without one complete study;
  doubled  a job with two final studies, a batch with more evaluations than points;
  growth   (full run) the coordinator's peak RSS / descriptors / threads in the last third of
           its final lifetime against the middle third (the first is warm-up).
Exit 0 when all hold, 1 otherwise (logs kept), 77 when it cannot run here.
"""
import json
import math
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

MODES = {
    "full": dict(minutes=30, sample_s=10, kill_mean_s=45, submit_every_s=6, read_every_s=3,
                 junk_every_s=1, clients=4, batches_per_s=10, malformed_per_s=4, drain_s=300),
    "smoke": dict(minutes=2, sample_s=2, kill_mean_s=20, submit_every_s=4, read_every_s=2,
                  junk_every_s=0.5, clients=2, batches_per_s=8, malformed_per_s=4, drain_s=120),
}
RESTARTS = ((0.2, signal.SIGKILL), (0.4, signal.SIGTERM))  # fraction of the run, signal
# Submissions on the board at once: an organizer hides older ones (a real board keeps growing
# with its submissions, and so does what scoring it takes; a steady run needs a steady board).
BOARD_ROWS = 8
PROBLEMS = "branin,warped_mix,hartmann3"
PRACTICE = "branin,warped_mix"
# The run's control groups (the workers make theirs as CG_NAME-w1, -w2): one name per driver, so
# that two runs never empty each other's groups.
CG_PREFIX = "bbo-soak-"
CG_NAME = CG_PREFIX + str(os.getpid())
MEMORY_LIMIT, PIDS_LIMIT = 6 << 30, 4000
MIB = 1 << 20
# The board's answer until the random-search baseline has finished (a fresh coordinator).
NOT_READY = "is not finished yet"


class Failed(Exception):
    pass


class Stop(BaseException):
    pass


def now():
    return time.monotonic()


# ---- limits: a v1 memory and pids group holding every process of the run ----

def cgroup_dirs(name=None):
    return [os.path.join("/sys/fs/cgroup", c, name or CG_NAME) for c in ("memory", "pids")]


def stale_runs():
    """The names of groups left by runs whose driver is gone (killed before its cleanup)."""
    out = []
    root = os.path.join("/sys/fs/cgroup", "memory")
    for name in os.listdir(root) if os.path.isdir(root) else []:
        pid = name[len(CG_PREFIX):]
        if name.startswith(CG_PREFIX) and pid.isdigit() and not os.path.exists("/proc/" + pid):
            out.append(name)
    return out


def make_limits():
    """Creates the groups; None when this host cannot (not root, no v1 memory/pids)."""
    if os.geteuid() != 0:
        return "not root"
    mem, pids = cgroup_dirs()
    if not os.path.isdir(os.path.dirname(mem)) or not os.path.isdir(os.path.dirname(pids)):
        return "no cgroup v1 memory and pids controllers"
    for d in (mem, pids):
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(mem, "memory.limit_in_bytes"), "w") as f:
        f.write(str(MEMORY_LIMIT))
    with open(os.path.join(pids, "pids.max"), "w") as f:
        f.write(str(PIDS_LIMIT))
    return None


def join_limits():
    for d in cgroup_dirs():
        with open(os.path.join(d, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))


def group_pids(name=None):
    """Every process in the run's groups, nested study groups included."""
    out = set()
    for root, _dirs, files in os.walk(cgroup_dirs(name)[1]):
        if "cgroup.procs" in files:
            try:
                out.update(int(p) for p in open(os.path.join(root, "cgroup.procs")).read().split())
            except OSError:
                pass
    return out


def remove_limits(name=None):
    """Kills every process of the run `name` (default: this one) and removes its groups and the
    workers' own groups (made under each controller's root for the controllers the run does not
    limit)."""
    name = name or CG_NAME
    names = (name, name + "-w1", name + "-w2")
    for _ in range(100):
        left = set(group_pids(name))
        for controller in os.listdir("/sys/fs/cgroup"):
            for group in names:
                for root, _dirs, files in os.walk(os.path.join("/sys/fs/cgroup", controller, group)):
                    if "freezer.state" in files:  # a frozen task cannot die
                        try:
                            with open(os.path.join(root, "freezer.state"), "w") as f:
                                f.write("THAWED")
                        except OSError:
                            pass
                    if "cgroup.procs" in files:
                        try:
                            left.update(int(p) for p in
                                        open(os.path.join(root, "cgroup.procs")).read().split())
                        except OSError:
                            pass
        left.discard(os.getpid())
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.1)
    for controller in os.listdir("/sys/fs/cgroup"):
        for group in names:
            top = os.path.join("/sys/fs/cgroup", controller, group)
            for root, _dirs, _files in sorted(os.walk(top), key=lambda w: -len(w[0])):
                try:
                    os.rmdir(root)
                except OSError:
                    pass


# ---- /proc ----

def proc_status(pid):
    """(RSS bytes, threads) of pid, or None when it is gone."""
    try:
        rss = threads = 0
        for line in open("/proc/%d/status" % pid):
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) * 1024
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
        return rss, threads
    except OSError:
        return None


def proc_fds(pid):
    try:
        return len(os.listdir("/proc/%d/fd" % pid))
    except OSError:
        return 0


def ppid(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def orphans():
    """Processes of the run whose parent is not in the run: left behind by a killed parent."""
    pids = group_pids()
    me = os.getpid()
    return sorted(p for p in pids
                  if p != me and ppid(p) is not None and ppid(p) not in pids and ppid(p) != me)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log_tail(path, n=2000):
    try:
        return open(path, errors="replace").read()[-n:]
    except OSError:
        return ""


# ---- the processes ----

class Proc:
    """A process of the run that may be killed and started again."""

    def __init__(self, name, argv, log):
        self.name, self.argv, self.log = name, argv, log
        self.p, self.expected_exit, self.starts = None, False, 0

    def start(self):
        self.p = subprocess.Popen(self.argv, stdout=open(self.log, "a"), stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, start_new_session=True)
        self.expected_exit, self.starts = False, self.starts + 1

    def pid(self):
        return self.p.pid if self.p is not None and self.p.poll() is None else None

    def kill(self, sig):
        self.expected_exit = True
        try:
            os.kill(self.p.pid, sig)
        except OSError:
            pass

    def wait(self, timeout):
        try:
            return self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def check(self):
        """Raises when it exited without being asked to."""
        if self.p is not None and not self.expected_exit and self.p.poll() is not None:
            raise Failed("%s exited by itself (rc %s); its log ends:\n%s" %
                         (self.name, self.p.returncode, log_tail(self.log)))


class Run:
    def __init__(self, build, mode, cfg, work):
        self.build, self.mode, self.cfg, self.work = build, mode, cfg, work
        self.db = os.path.join(work, "arena.sqlite")
        self.bbo = os.path.join(build, "client", "bbo")
        self.port, self.web_port = free_port(), free_port()
        self.target = "127.0.0.1:%d" % self.port
        self.load_s = cfg["minutes"] * 60
        self.down = []           # [start, end] of each coordinator outage
        self.samples = []        # dicts
        self.pending = []        # (kind, name, Popen, started, log)
        self.accepted, self.refused = [], []
        self.counts = {"junk_grpc": 0, "junk_web": 0, "web_reads": 0, "leaderboard_reads": 0,
                       "worker_kills": 0, "coordinator_restarts": 0, "web_5xx": 0,
                       "not_ready": 0, "hidden": 0}
        self.unexpected = []
        self.lifetime_start = None  # when the coordinator last came up

    # -- setup --

    def token(self, kind, name):
        r = subprocess.run([self.bbo, "admin", "--db", self.db, kind, "add", name],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise Failed("bbo admin %s add: %s" % (kind, r.stderr.strip()))
        path = os.path.join(self.work, kind + ".token")
        with open(path, "w") as f:
            f.write(r.stdout.strip() + "\n")
        return path

    def setup(self):
        self.team = self.token("team", "soak")
        self.organizer = self.token("organizer", "soak-ops")
        self.worker_token = self.token("worker", "soak-hosts")
        self.port_file = os.path.join(self.work, "port")
        # BBO_SOAK_COORDINATOR_WRAPPER="heaptrack" (say) runs the coordinator under a profiler.
        wrapper = os.environ.get("BBO_SOAK_COORDINATOR_WRAPPER", "").split()
        self.coordinator = Proc("the coordinator", wrapper + [
            os.path.join(self.build, "server", "bbo-server"), "--listen=" + self.target,
            "--db=" + self.db, "--port_file=" + self.port_file, "--problems=" + PROBLEMS,
            "--baseline_trials=1", "--default_trials=1", "--lease_ttl_s=5",
            "--web_listen=127.0.0.1:%d" % self.web_port], os.path.join(self.work, "server.log"))
        self.workers = [Proc("worker %d" % i, [
            os.path.join(self.build, "worker", "bbo-worker"), "--coordinator=" + self.target,
            "--token_file=" + self.worker_token, "--work_dir=" + os.path.join(self.work, "w%d" % i),
            "--slots=2", "--cgroups=auto", "--cgroup_parent=%s-w%d" % (CG_NAME, i)],
            os.path.join(self.work, "worker%d.log" % i)) for i in (1, 2)]
        self.start_coordinator()
        for w in self.workers:
            w.start()
        self.wait_for("2 workers to register",
                      lambda: self.query("SELECT COUNT(*) FROM workers")[0][0] >= 2, 60)

    def start_coordinator(self):
        if os.path.exists(self.port_file):
            os.remove(self.port_file)
        t = now()
        self.coordinator.start()
        self.wait_for("the coordinator's port", lambda: os.path.exists(self.port_file), 60)
        self.lifetime_start = now()
        return t

    def query(self, sql, args=()):
        with sqlite3.connect("file:%s?mode=ro" % self.db, uri=True, timeout=30) as c:
            return c.execute(sql, args).fetchall()

    def wait_for(self, what, predicate, timeout_s):
        deadline = now() + timeout_s
        while now() < deadline:
            try:
                if predicate():
                    return
            except sqlite3.OperationalError:
                pass  # not created yet
            self.check_alive()
            time.sleep(0.2)
        raise Failed("timed out after %d s waiting for %s" % (timeout_s, what))

    def check_alive(self):
        self.coordinator.check()
        for w in self.workers:
            w.check()

    def coordinator_up_during(self, t0, t1):
        return not any(a <= t1 and (b is None or b >= t0) for a, b in self.down)

    # -- faults --

    def restart_coordinator(self, sig):
        self.down.append([now(), None])
        self.coordinator.kill(sig)
        rc = self.coordinator.wait(60)
        if rc is None:
            raise Failed("the coordinator did not stop within 60 s of %s" % sig.name)
        if sig == signal.SIGTERM and rc != 0:
            raise Failed("the coordinator exited %s on SIGTERM:\n%s" %
                         (rc, log_tail(self.coordinator.log)))
        self.start_coordinator()
        self.down[-1][1] = now()
        self.counts["coordinator_restarts"] += 1
        print("soak: coordinator restarted after %s (down %.1f s)" %
              (sig.name, self.down[-1][1] - self.down[-1][0]), flush=True)

    def kill_worker(self, rng):
        w = rng.choice(self.workers)
        w.kill(signal.SIGKILL)
        w.wait(10)
        self.counts["worker_kills"] += 1
        time.sleep(rng.uniform(0.5, 3.0))
        w.start()

    # -- the participants' side --

    def submit(self, n):
        name = "soak-%04d" % n
        log = os.path.join(self.work, "cli", name + ".log")
        p = subprocess.Popen([self.bbo, "--token_file", self.team, "submit",
                              os.path.join(self.build, "examples", "random-search-cpp"),
                              "--name", name, "--trials", "1", "--server", self.target],
                             stdout=open(log, "w"), stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL)
        self.pending.append(("submit", name, p, now(), log))

    def hide(self, name):
        (sid,), = self.query("SELECT id FROM submissions WHERE name = ?", (name,))
        log = os.path.join(self.work, "cli", "hide-%s.log" % name)
        p = subprocess.Popen([self.bbo, "--token_file", self.organizer, "admin", "hide", str(sid),
                              "--reason", "soak: the board keeps %d rows" % BOARD_ROWS,
                              "--server", self.target], stdout=open(log, "w"),
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.pending.append(("hide", name, p, now(), log))

    def read_leaderboard(self, n):
        log = os.path.join(self.work, "cli", "leaderboard-%05d.log" % n)
        p = subprocess.Popen([self.bbo, "--token_file", self.team, "leaderboard", "--server",
                              self.target], stdout=open(log, "w"), stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL)
        self.pending.append(("leaderboard", str(n), p, now(), log))

    def reap(self, block=False):
        current, self.pending = self.pending, []  # hide() adds to self.pending meanwhile
        for kind, name, p, started, log in current:
            if block:
                try:
                    p.wait(timeout=120)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            if p.poll() is None:
                self.pending.append((kind, name, p, started, log))
                continue
            if p.returncode == 0:
                if kind == "submit":
                    self.accepted.append(name)
                    if len(self.accepted) > BOARD_ROWS:
                        self.hide(self.accepted[-BOARD_ROWS - 1])
                elif kind == "hide":
                    self.counts["hidden"] += 1
                else:
                    self.counts["leaderboard_reads"] += 1
            elif kind == "leaderboard" and NOT_READY in log_tail(log, 500):
                self.counts["not_ready"] += 1
            elif self.coordinator_up_during(started, now()):
                self.unexpected.append("bbo %s %s failed (rc %d) with the coordinator up: %s" %
                                       (kind, name, p.returncode, log_tail(log, 500).strip()))
            elif kind == "submit":
                self.refused.append(name)  # refused while the coordinator was down: not lost
            if p.returncode == 0:
                os.remove(log)
        if block and self.pending:
            self.reap(block=True)  # the hides the last submissions asked for

    def read_web(self, n):
        path = ("/api/leaderboard", "/api/queue", "/api/phases", "/api/submissions")[n % 4]
        started = now()
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.web_port, path),
                                     headers={"Authorization": "Bearer " +
                                              open(self.team).read().strip()})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                json.loads(r.read())
            self.counts["web_reads"] += 1
        except urllib.error.HTTPError as e:
            if e.code == 409 and NOT_READY in e.read().decode(errors="replace"):
                self.counts["not_ready"] += 1
            elif self.coordinator_up_during(started, now()):
                self.unexpected.append("GET %s: HTTP %d with the coordinator up" % (path, e.code))
        except (OSError, ValueError) as e:
            if self.coordinator_up_during(started, now()):
                self.unexpected.append("GET %s failed with the coordinator up: %s" % (path, e))

    # -- junk on the ports --

    def junk(self, rng):
        web = rng.random() < 0.5
        started = now()
        payload, hold = junk_payload(rng, web)
        port = self.web_port if web else self.port
        answer = b""
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
                if hold:  # a slow sender: a byte now and then, then gone
                    for b in payload[:hold]:
                        s.sendall(bytes([b]))
                        time.sleep(0.2)
                else:
                    s.sendall(payload)
                s.shutdown(socket.SHUT_WR)
                while len(answer) < 65536:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    answer += chunk
        except OSError:
            pass  # refused, reset or timed out: all fine answers to junk
        self.counts["junk_web" if web else "junk_grpc"] += 1
        if web and answer.startswith(b"HTTP/1.1 5") and self.coordinator_up_during(started, now()):
            self.counts["web_5xx"] += 1
            self.unexpected.append("junk %r answered %r" % (payload[:80], answer[:80]))

    # -- sampling --

    def sample(self, t0):
        c = self.coordinator.pid()
        cs = proc_status(c) if c else None
        ws = [proc_status(w.pid()) for w in self.workers if w.pid()]
        size = sum(os.path.getsize(self.db + s) for s in ("", "-wal", "-shm")
                   if os.path.exists(self.db + s))
        wal = os.path.getsize(self.db + "-wal") if os.path.exists(self.db + "-wal") else 0
        try:
            evals = self.query("SELECT MAX(rowid) FROM evaluations")[0][0] or 0
        except sqlite3.Error:
            evals = None
        s = {"t": now() - t0, "up": now() - self.lifetime_start if cs else None,
             "rss": cs[0] if cs else None, "threads": cs[1] if cs else None,
             "fds": proc_fds(c) if cs else None,
             "w_rss": sum(x[0] for x in ws if x), "w_threads": sum(x[1] for x in ws if x),
             "w_fds": sum(proc_fds(w.pid()) for w in self.workers if w.pid()),
             "db": size, "wal": wal, "evals": evals, "orphans": len(orphans()),
             "restarts": self.counts["coordinator_restarts"]}
        self.samples.append(s)
        print_sample(s, len(self.samples) == 1)

    # -- the run --

    def load(self, rng):
        t0 = now()
        end = t0 + self.load_s
        client_out = open(os.path.join(self.work, "soak_client.json"), "w")
        client = subprocess.Popen([
            os.path.join(self.build, "bench", "soak_client"), "--target=" + self.target,
            "--token_file=" + self.team, "--seconds=%d" % self.load_s,
            "--acked=" + os.path.join(self.work, "acked.txt"), "--problems=" + PRACTICE,
            "--clients=%d" % self.cfg["clients"], "--batches_per_s=%g" % self.cfg["batches_per_s"],
            "--malformed_per_s=%g" % self.cfg["malformed_per_s"], "--seed=%d" % rng.randrange(1 << 30)],
            stdout=client_out, stderr=open(os.path.join(self.work, "soak_client.log"), "w"))
        restarts = [(t0 + f * self.load_s, sig) for f, sig in RESTARTS]
        due = {"kill": t0 + rng.expovariate(1 / self.cfg["kill_mean_s"]), "submit": t0,
               "read": t0 + 1, "junk": t0 + 0.5, "sample": t0}
        n = {"submit": 0, "read": 0}
        while now() < end:
            self.check_alive()
            if client.poll() is not None:
                raise Failed("soak_client exited early (rc %s): %s" % (
                    client.returncode, log_tail(os.path.join(self.work, "soak_client.log"))))
            if restarts and now() >= restarts[0][0]:
                self.restart_coordinator(restarts.pop(0)[1])
            if now() >= due["kill"]:
                self.kill_worker(rng)
                due["kill"] = now() + rng.expovariate(1 / self.cfg["kill_mean_s"])
            if now() >= due["submit"]:
                n["submit"] += 1
                self.submit(n["submit"])
                due["submit"] += self.cfg["submit_every_s"]
            if now() >= due["read"]:
                n["read"] += 1
                if n["read"] % 2:
                    self.read_leaderboard(n["read"])
                else:
                    self.read_web(n["read"])
                due["read"] += self.cfg["read_every_s"]
            if now() >= due["junk"]:
                self.junk(rng)
                due["junk"] += self.cfg["junk_every_s"]
            if now() >= due["sample"]:
                self.sample(t0)
                due["sample"] += self.cfg["sample_s"]
            self.reap()
            time.sleep(0.05)
        self.load_end = now() - t0
        try:
            client.wait(timeout=200)
        except subprocess.TimeoutExpired:
            client.kill()
            raise Failed("soak_client did not finish within 200 s of the end")
        client_out.close()
        self.client_rc = client.returncode
        self.client = json.load(open(os.path.join(self.work, "soak_client.json")))
        self.reap(block=True)
        # Drain: every job of an accepted submission ends.
        deadline = now() + self.cfg["drain_s"]
        while now() < deadline:
            self.check_alive()
            if self.query("SELECT COUNT(*) FROM jobs WHERE state IN ('queued', 'leased')")[0][0] == 0:
                break
            if now() >= due["sample"]:
                self.sample(t0)
                due["sample"] += self.cfg["sample_s"]
            time.sleep(0.5)
        self.sample(t0)
        self.drained_s = now() - t0 - self.load_end

    def stop_all(self):
        for w in self.workers:
            w.kill(signal.SIGTERM)
        for w in self.workers:
            if w.wait(60) is None:
                w.kill(signal.SIGKILL)
                self.unexpected.append("%s did not stop within 60 s of SIGTERM" % w.name)
        deadline = now() + 15
        while orphans() and now() < deadline:
            time.sleep(0.5)
        self.final_orphans = orphans()
        self.coordinator.kill(signal.SIGTERM)
        rc = self.coordinator.wait(60)
        if rc != 0:
            self.unexpected.append("the coordinator exited %s on the final SIGTERM" % rc)


def junk_payload(rng, web):
    """(bytes, hold): junk for the web (HTTP/1.1) or the gRPC (HTTP/2) port; hold > 0 sends that
    many bytes slowly."""
    if web:
        choices = [
            b"GARBAGE / HTTP/9.9\r\n\r\n",
            b"GET /api/leaderboard HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 70000 + b"\r\n\r\n",
            b"POST /api/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 9\r\n\r\n{\"team\":[",
            b"POST /api/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000000000\r\n\r\nab",
            b"POST /api/submit HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"ffffffff\r\nabc",
            b"GET /../../../etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            b"GET /api/submissions/\xff\xfe%00%ZZ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4096))),
        ]
    else:
        preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
        choices = [
            bytes(rng.randrange(256) for _ in range(rng.randrange(1, 65536))),
            b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            preface + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 512))),
            # a SETTINGS frame that claims 16 MiB of payload, then stops
            preface + b"\xff\xff\xff\x04\x00\x00\x00\x00\x00" + b"\x00" * 100,
            # HEADERS on stream 1 with a broken HPACK block
            preface + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00" + b"\x00\x00\x10\x01\x05\x00\x00"
            b"\x00\x01" + b"\xff" * 16,
        ]
    i = rng.randrange(len(choices) + 1)
    if i == len(choices):  # slow sender
        return (b"GET /api/phases HTTP/1.1\r\nHost: 127.0.0.1\r\n" if web else preface) * 4, 10
    return choices[i], 0


def print_sample(s, header):
    if header:
        print("%7s %7s %9s %5s %7s %9s %5s %7s %9s %8s %10s %7s" % (
            "t s", "up s", "coord MiB", "fds", "threads", "wrk MiB", "fds", "threads", "DB MiB",
            "WAL MiB", "evals", "orphans"), flush=True)
    print("%7.0f %7s %9s %5s %7s %9.1f %5d %7d %9.1f %8.1f %10s %7d" % (
        s["t"], "-" if s["up"] is None else "%.0f" % s["up"],
        "-" if s["rss"] is None else "%.1f" % (s["rss"] / MIB),
        "-" if s["fds"] is None else s["fds"], "-" if s["threads"] is None else s["threads"],
        s["w_rss"] / MIB, s["w_fds"], s["w_threads"], s["db"] / MIB, s["wal"] / MIB,
        "-" if s["evals"] is None else s["evals"], s["orphans"]), flush=True)


# ---- the verdict ----

def read_acked(path):
    """{(study, batch): [values]} of every batch the coordinator answered; a batch answered twice
    must carry the same values."""
    out, twice = {}, []
    if not os.path.exists(path):
        return out, twice
    for line in open(path):
        f = line.split()
        key, values = (int(f[0]), int(f[1])), [float(v) for v in f[2:]]
        if key in out and out[key] != values:
            twice.append(key)
        out[key] = values
    return out, twice


def same(a, b):
    return a == b or (math.isnan(a) and math.isnan(b))


def check_acked(run, lost, doubled):
    acked, twice = read_acked(os.path.join(run.work, "acked.txt"))
    doubled += ["batch %s answered twice with different values" % (k,) for k in twice]
    with sqlite3.connect("file:%s?mode=ro" % run.db, uri=True) as c:
        for (study, batch), values in acked.items():
            rows = c.execute("SELECT value FROM evaluations WHERE study_id = ? AND batch = ?"
                             " ORDER BY idx", (study, batch)).fetchall()
            stored = [r[0] if r[0] is not None else math.inf for r in rows]
            if len(stored) > len(values):
                doubled.append("study %d batch %d: %d evaluations for %d points" %
                               (study, batch, len(stored), len(values)))
            elif len(stored) < len(values) or not all(map(same, stored, values)):
                lost.append("study %d batch %d: answered %r, recorded %r" %
                            (study, batch, values, stored))
    return len(acked)


def check_jobs(run, lost, doubled):
    q = run.query
    names = {r[0] for r in q("SELECT name FROM submissions WHERE is_baseline = 0")}
    lost += ["submission %s was accepted but is not recorded" % n for n in run.accepted
             if n not in names]
    jobs = q("SELECT j.id, j.state, j.last_error, s.name FROM jobs j JOIN submissions s ON"
             " s.id = j.submission_id WHERE s.is_baseline = 0")
    lost += ["job %d (%s) ended %s: %s" % (j, name, state, err) for j, state, err, name in jobs
             if state != "done"]
    finals = q("SELECT job_id, COUNT(*), SUM(state = 'completed' AND batches_done = n_batches)"
               " FROM studies WHERE job_id IS NOT NULL AND state IN ('completed', 'cut_off',"
               " 'failed') GROUP BY job_id")
    by_job = {j: (n, complete) for j, n, complete in finals}
    for j, state, _err, name in jobs:
        n, complete = by_job.get(j, (0, 0))
        if n > 1:
            doubled.append("job %d (%s) has %d final studies" % (j, name, n))
        elif state == "done" and complete != 1:
            lost.append("job %d (%s) is done without a complete study" % (j, name))
    short = q("SELECT s.id, s.n_batches * s.batch_size, COUNT(e.idx) FROM studies s JOIN"
              " evaluations e ON e.study_id = s.id WHERE s.job_id IS NOT NULL AND s.state ="
              " 'completed' GROUP BY s.id HAVING COUNT(e.idx) != s.n_batches * s.batch_size")
    for sid, want, got in short:
        (doubled if got > want else lost).append("study %d: %d evaluations, %d expected" %
                                                 (sid, got, want))
    abandoned = q("SELECT COUNT(*) FROM studies WHERE state = 'abandoned'")[0][0]
    return len(jobs), abandoned


def peaks(samples, key, lo, hi):
    vals = [s[key] for s in samples if lo <= s["t"] < hi and s[key] is not None]
    return max(vals) if vals else None


def growth(run):
    """[(what, middle-third peak, last-third peak, allowed, ok)] over the final lifetime."""
    last = [s for s in run.samples if s["restarts"] == len(RESTARTS) and s["up"] is not None
            and s["t"] <= run.load_end]
    if len(last) < 6:
        return []
    a, b = last[0]["t"], last[-1]["t"]
    third = (b - a) / 3
    out = []
    for key, what, slack in (("rss", "coordinator RSS (MiB)", lambda m: m * 0.05 + 8 * MIB),
                             ("fds", "coordinator descriptors", lambda m: 4),
                             ("threads", "coordinator threads", lambda m: 4)):
        mid, end = peaks(last, key, a + third, a + 2 * third), peaks(last, key, a + 2 * third,
                                                                     b + 1)
        if mid is None or end is None:
            continue
        allowed = mid + slack(mid)
        scale = MIB if key == "rss" else 1
        out.append((what, mid / scale, end / scale, allowed / scale, end <= allowed))
    return out


def verdict(run):
    lost, doubled, problems = [], [], list(run.unexpected)
    batches = check_acked(run, lost, doubled)
    jobs, abandoned = check_jobs(run, lost, doubled)
    integrity = run.query("PRAGMA integrity_check")[0][0]
    if integrity != "ok":
        problems.append("integrity_check: %s" % integrity)
    c = run.client
    if run.client_rc != 0:
        problems.append("soak_client: %s" % c.get("first_unexpected"))
    allowed = run.cfg["clients"] * len(RESTARTS)
    if c.get("studies_interrupted", 0) > allowed:
        problems.append("%d practice studies ended under their clients, more than the %d the "
                        "restarts explain" % (c["studies_interrupted"], allowed))
    for log in [run.coordinator.log] + [w.log for w in run.workers]:
        bad = [l for l in open(log, errors="replace") if "BUG" in l or "[critical]" in l]
        if bad:
            problems.append("%s has %d lines reporting a bug, e.g. %s" % (
                os.path.basename(log), len(bad), bad[0].strip()[:300]))
    if run.counts["leaderboard_reads"] == 0 or run.counts["web_reads"] == 0:
        problems.append("no leaderboard was read (bbo %d, web %d)" % (
            run.counts["leaderboard_reads"], run.counts["web_reads"]))
    if run.final_orphans:
        problems.append("processes left behind after the workers stopped: %s" %
                        run.final_orphans)
    s = run.samples
    print()
    print("soak: %s run, %.0f s of load + %.0f s to drain; %d coordinator restarts, %d worker "
          "SIGKILLs" % (run.mode, run.load_end, run.drained_s, run.counts["coordinator_restarts"],
                        run.counts["worker_kills"]))
    print("  practice clients: %d studies opened, %d completed, %d interrupted by restarts, "
          "%d batches answered, %d retries" % (
              c.get("studies_opened", 0), c.get("studies_completed", 0),
              c.get("studies_interrupted", 0), batches, c.get("retries", 0)))
    print("  submissions: %d accepted (%d hidden by the organizer), %d refused while the "
          "coordinator was down; %d jobs, %d studies abandoned by killed workers and run again" % (
              len(run.accepted), run.counts["hidden"], len(run.refused), jobs, abandoned))
    print("  malformed gRPC calls: %d (answers by code: %s); junk connections: %d gRPC, %d web; "
          "reads: %d leaderboard, %d web, %d before the baseline was ready" % (
              c.get("malformed_calls", 0), c.get("malformed_by_code"), run.counts["junk_grpc"],
              run.counts["junk_web"], run.counts["leaderboard_reads"], run.counts["web_reads"],
              run.counts["not_ready"]))
    for code, text in sorted(c.get("malformed_first_message", {}).items()):
        print("    code %s, e.g.: %s" % (code, text[:150]))
    print("  database: %.1f MiB for %s evaluations (%.0f bytes each), integrity %s; peak WAL "
          "%.1f MiB; orphans at most %d during the run, %d at the end" % (
              s[-1]["db"] / MIB, s[-1]["evals"], s[-1]["db"] / max(1, s[-1]["evals"] or 1),
              integrity, max(x["wal"] for x in s) / MIB, max(x["orphans"] for x in s),
              len(run.final_orphans)))
    print("  lost: %d, doubled: %d" % (len(lost), len(doubled)))
    for line in (lost + doubled)[:20]:
        print("    " + line)
    grown = growth(run)
    judged = run.mode == "full"
    for what, mid, end, allowed, ok in grown:
        print("  %s: peak %.1f in the middle third of the final lifetime, %.1f in the last "
              "(allowed %.1f)%s" % (what, mid, end, allowed,
                                    "" if ok else (" GREW" if judged else " (higher; a smoke "
                                                   "run is still warming up: judged by a full run)")))
        if judged and not ok:
            problems.append("%s grew: %.1f -> %.1f" % (what, mid, end))
    if judged and not grown:
        problems.append("too few samples in the final lifetime to judge growth")
    problems += ["lost: " + x for x in lost] + ["doubled: " + x for x in doubled]
    return problems


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    build = args[0] if args else "build"
    mode = "smoke" if "--smoke" in argv else "full"
    cfg = dict(MODES[mode])
    if "--minutes" in argv:
        cfg["minutes"] = float(argv[argv.index("--minutes") + 1])
        args.remove(argv[argv.index("--minutes") + 1])
    for binary in ("server/bbo-server", "worker/bbo-worker", "client/bbo", "bench/soak_client",
                   "examples/random-search-cpp/optimizer"):
        if not os.path.exists(os.path.join(build, binary)):
            print("soak: build first (missing %s/%s)" % (build, binary), file=sys.stderr)
            return 2
    for stale in stale_runs():
        remove_limits(stale)
    why = make_limits()
    if why:
        print("soak: SKIPPED: cannot set up the run's limits (%s)" % why, file=sys.stderr)
        return 77

    def on_signal(signum, _frame):
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)
        raise Stop("signal %d%s" % (signum, " (the run's time limit)"
                                    if signum == signal.SIGALRM else ""))
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGHUP):
        signal.signal(s, on_signal)
    signal.alarm(int(cfg["minutes"] * 60 + cfg["drain_s"] + 420))
    join_limits()
    work = tempfile.mkdtemp(prefix="bbo_soak_")
    os.chmod(work, 0o711)  # the sandbox's unprivileged user passes through to the workers
    os.makedirs(os.path.join(work, "cli"))
    keep = "--keep" in argv
    run = Run(build, mode, cfg, work)
    rng = random.Random(int.from_bytes(os.urandom(8), "little"))
    print("soak: %s run of %g min; coordinator %s, web %d; logs in %s" % (
        mode, cfg["minutes"], run.target, run.web_port, work), flush=True)
    try:
        run.setup()
        run.load(rng)
        run.stop_all()
        problems = verdict(run)
        if problems:
            keep = True
            print("soak: FAILED: %d problems:" % len(problems), file=sys.stderr)
            for p in problems[:30]:
                print("  " + p, file=sys.stderr)
            return 1
        print("soak: passed (0 lost, 0 doubled%s)" % (
            ", no growth after warm-up" if mode == "full" else ""))
        return 0
    except (Failed, Stop) as e:
        keep = True
        print("soak: FAILED: %s" % e, file=sys.stderr)
        return 1
    except Exception:  # the driver's own error: still a failed run, still cleaned up
        keep = True
        traceback.print_exc()
        print("soak: FAILED: the driver stopped on an error (above)", file=sys.stderr)
        return 1
    finally:
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)
        # Leave the groups before emptying them (this process is in them too).
        for d in cgroup_dirs():
            with open(os.path.join(os.path.dirname(d), "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        remove_limits()
        if keep:
            print("soak: logs kept in %s" % work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
