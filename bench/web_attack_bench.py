#!/usr/bin/env python3
"""What anonymous attacks on the web port cost the coordinator (issue 34), measured in one run.

Starts a real bbo-server (practice phase, web port on 127.0.0.1, as docs/web.md says), two
workers, and fills the board with two example optimizers. Then, loopback only:

1. peak RSS while 16 concurrent anonymous attackers send, over and over, each kind of request
   that used to inflate the coordinator: a gzip-compressed body, a body without a length, a
   Range header of thousands of overlapping ranges (goal: at most 64 MiB above idle);
2. the p99 latency of GET /api/phases and of a team's `bbo leaderboard` while 1,000 slow
   connections trickle header lines (goal: under 1 s), and the descriptors they hold;
3. an organizer's report latency while 16 anonymous `bbo report` calls with fresh bootstrap
   parameters run (goal: at most 2x idle).

Every attack is bounded in count and time and stops by itself; the coordinator runs in a memory
control group of its own when this host has one (root, cgroups v1 or v2). A case that errors
(an unexpected answer, a server that stopped) makes the run fail and prints no figure for it.
--smoke: short attacks, 200 slow connections, 1 trial (ctest -L bench); it fails on errors and
on the memory goal only, since its latencies come from a busy CI host.

Usage: bench/web_attack_bench.py BUILD_DIR [--smoke] [--json OUT]
"""

import argparse
import json
import os
import random
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zlib

MIB = 1 << 20
CG_NAME = "bbo-webattack-%d" % os.getpid()
MEMORY_LIMIT = 3 << 30


class Failed(Exception):
    pass


# ---- the coordinator's memory, and a group that bounds it ----

def status_kb(pid, key):
    try:
        for line in open("/proc/%d/status" % pid):
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def fds(pid):
    try:
        return len(os.listdir("/proc/%d/fd" % pid))
    except OSError:
        return None


class PeakRss:
    """The peak resident memory of pid from now on: the kernel's own high-water mark (reset
    through clear_refs) and a 5 ms sampler, whichever is higher."""

    def __init__(self, pid):
        self.pid, self.peak, self.stop_ = pid, 0, threading.Event()
        try:
            with open("/proc/%d/clear_refs" % pid, "w") as f:
                f.write("5")
            self.hwm = True
        except OSError:
            self.hwm = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop_.is_set():
            self.peak = max(self.peak, status_kb(self.pid, "VmRSS") or 0)
            time.sleep(0.005)

    def stop(self):
        self.stop_.set()
        self.thread.join()
        if self.hwm:
            self.peak = max(self.peak, status_kb(self.pid, "VmHWM") or 0)
        return self.peak


def make_group():
    """A memory group for the coordinator; (procs file, path) or None with the reason."""
    if os.geteuid() != 0:
        return None, "not root"
    v1 = "/sys/fs/cgroup/memory"
    if os.path.isdir(v1):
        d = os.path.join(v1, CG_NAME)
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, "memory.limit_in_bytes"), "w").write(str(MEMORY_LIMIT))
        return d, None
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        d = os.path.join("/sys/fs/cgroup", CG_NAME)
        os.makedirs(d, exist_ok=True)
        try:
            open(os.path.join(d, "memory.max"), "w").write(str(MEMORY_LIMIT))
        except OSError:
            pass
        return d, None
    return None, "no memory controller"


def remove_group(d):
    if not d:
        return
    for _ in range(50):
        try:
            os.rmdir(d)
            return
        except OSError:
            time.sleep(0.1)


# ---- the competition ----

class Arena:
    def __init__(self, build, work, trials, group):
        self.build, self.work, self.trials, self.group = build, work, trials, group
        self.procs = []
        self.db = os.path.join(work, "arena.sqlite")
        self.tokens = {}

    def bbo(self, *args, token=None, timeout=120, check=True):
        cmd = [os.path.join(self.build, "client", "bbo")]
        if token:
            cmd += ["--token_file", self.tokens[token]]
        cmd += list(args)
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise Failed("%s: exit %d: %s" % (" ".join(args[:2]), r.returncode, r.stderr[-2000:]))
        return r

    def start(self):
        for kind, name in (("team", "red"), ("team", "blue"), ("worker", "workers"),
                           ("organizer", "org")):
            path = os.path.join(self.work, name + ".token")
            r = self.bbo("admin", "--db", self.db, kind, "add", name)
            with open(path, "w") as f:
                f.write(r.stdout.strip() + "\n")
            os.chmod(path, 0o600)
            self.tokens[name] = path
        port_file = os.path.join(self.work, "port")
        web_file = os.path.join(self.work, "web_port")
        log = open(os.path.join(self.work, "server.log"), "w")

        def into_group():
            if self.group:
                with open(os.path.join(self.group, "cgroup.procs"), "w") as f:
                    f.write(str(os.getpid()))

        self.server = subprocess.Popen(
            [os.path.join(self.build, "server", "bbo-server"), "--listen=127.0.0.1:0",
             "--db=" + self.db, "--port_file=" + port_file, "--web_listen=127.0.0.1:0",
             "--web_port_file=" + web_file, "--default_trials=%d" % self.trials],
            stdout=log, stderr=subprocess.STDOUT, preexec_fn=into_group)
        self.procs.append(self.server)
        for _ in range(300):
            if os.path.exists(port_file) and os.path.exists(web_file):
                break
            if self.server.poll() is not None:
                raise Failed("bbo-server exited: " + open(log.name).read()[-2000:])
            time.sleep(0.1)
        time.sleep(0.2)
        self.grpc = "127.0.0.1:" + open(port_file).read().strip()
        self.web = int(open(web_file).read().strip())
        for i in (1, 2):
            wlog = open(os.path.join(self.work, "worker%d.log" % i), "w")
            flags = os.environ.get("WORKER_FLAGS", "").split()
            self.procs.append(subprocess.Popen(
                [os.path.join(self.build, "worker", "bbo-worker"), "--coordinator=" + self.grpc,
                 "--work_dir=" + os.path.join(self.work, "w%d" % i),
                 "--token_file=" + self.tokens["workers"]] + flags,
                stdout=wlog, stderr=subprocess.STDOUT))
        self.bbo("submit", os.path.join(self.build, "examples", "random-search-cpp"), "--name",
                 "rs", "--trials", str(self.trials), "--server", self.grpc, token="red")
        self.bbo("submit", os.path.join(self.build, "examples", "cma-es-cpp"), "--name", "cma",
                 "--trials", str(self.trials), "--server", self.grpc, token="blue")
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            subs = json.loads(self.bbo("status", "--json", "--server", self.grpc,
                                       token="org").stdout)
            if subs and all(s["jobs_done"] >= s["jobs_total"] for s in subs):
                break
            self.alive()
            for p in self.procs[1:]:
                if p.poll() is not None:
                    raise Failed("a bbo-worker exited (exit %s); see its log" % p.returncode)
            time.sleep(1)
        else:
            raise Failed("the board did not fill in 600 s")
        time.sleep(1)

    def alive(self):
        if self.server.poll() is not None:
            raise Failed("bbo-server stopped (exit %s)" % self.server.returncode)

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


# ---- raw HTTP ----

def connect(port, timeout=10):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    return s


def exchange(port, head, body=b"", timeout=10):
    """Sends head and body (as far as the server reads it); the answer's bytes."""
    s = connect(port, timeout)
    try:
        s.sendall(head)
        try:
            for i in range(0, len(body), 65536):
                s.sendall(body[i:i + 65536])
        except OSError:
            pass  # refused before the body was read: the answer is what counts
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        s.close()


def status_of(answer):
    line = answer.split(b"\r\n", 1)[0]
    parts = line.split()
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None


def gzip_bomb(mib):
    """About mib/1000 MiB on the wire that inflates to mib MiB (made a MiB at a time)."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: the gzip format
    zeros = b"\0" * MIB
    out = [z.compress(zeros) for _ in range(mib)]
    out.append(z.flush())
    return b"".join(out)


def attack_gzip(port, stop, errors, bomb):
    head = (b"POST /api/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
            b"\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(bomb))
    while not stop.is_set():
        a = exchange(port, head, bomb)
        if status_of(a) != 415:
            errors.append("gzip body: answered %r" % a[:80])
            return


def attack_no_length(port, stop, errors):
    head = b"POST /api/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\r\n"
    junk = b"{" * 65536
    while not stop.is_set():
        s = connect(port)
        got = b""
        try:
            s.sendall(head)
            s.settimeout(0.01)
            for _ in range(1024):  # at most 64 MiB a connection
                try:
                    s.sendall(junk)
                except socket.timeout:
                    pass
                try:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    got += chunk
                except socket.timeout:
                    pass
        except OSError:
            pass
        finally:
            s.close()
        if got and status_of(got) != 411:
            errors.append("body without a length: answered %r" % got[:80])
            return


def attack_ranges(port, stop, errors, size):
    ranges = ",".join(["0-"] * 2600)
    head = ("GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nRange: bytes=%s"
            "\r\n\r\n" % ranges).encode()
    while not stop.is_set():
        a = exchange(port, head)
        if status_of(a) not in (200, 431) or len(a) > size + 4096:
            errors.append("ranges: answered %d bytes: %r" % (len(a), a[:80]))
            return


def memory_case(arena, name, target, args, seconds):
    pid = arena.server.pid
    time.sleep(0.5)
    idle = status_kb(pid, "VmRSS")
    peak = PeakRss(pid)
    stop, errors = threading.Event(), []
    threads = [threading.Thread(target=target, args=(arena.web, stop, errors) + args, daemon=True)
               for _ in range(16)]
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join(timeout=30)
    top = peak.stop()
    arena.alive()
    if errors:
        raise Failed("%s: %s" % (name, errors[0]))
    if any(t.is_alive() for t in threads):
        raise Failed("%s: an attacker did not stop" % name)
    return {"case": name, "idle_mib": idle / 1024, "peak_mib": top / 1024,
            "growth_mib": (top - idle) / 1024}


# ---- slow connections ----

class Slowloris:
    """n connections, each sending a header line every 2 s, reopened when the server closes
    them, spread over 127.0.0.2-5 (four "hosts")."""

    def __init__(self, port, n):
        self.port, self.n, self.stop_ = port, n, threading.Event()
        self.socks, self.reopened = [], 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _open(self, i):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.%d" % (2 + i % 4), 0))
        s.settimeout(2)
        s.connect(("127.0.0.1", self.port))
        s.sendall(b"GET /api/phases HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        s.setblocking(False)
        return s

    def start(self):
        for i in range(self.n):
            self.socks.append(self._open(i))
        self.thread.start()

    def _run(self):
        k = 0
        while not self.stop_.wait(2.0 / max(1, self.n) * 50):
            for _ in range(50):
                i = k % self.n
                k += 1
                try:
                    self.socks[i].send(b"X-Slow-%d: y\r\n" % k)
                    try:
                        if self.socks[i].recv(1) == b"":
                            raise OSError("closed")
                    except BlockingIOError:
                        pass
                except OSError:
                    self.socks[i].close()
                    self.reopened += 1
                    try:
                        self.socks[i] = self._open(i)
                    except OSError:
                        pass

    def stop(self):
        self.stop_.set()
        self.thread.join()
        for s in self.socks:
            s.close()


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def slow_case(arena, n, requests, cli_calls):
    pid = arena.server.pid
    fds_idle = fds(pid)
    slow = Slowloris(arena.web, n)
    slow.start()
    time.sleep(3)
    fds_held = fds(pid)
    phases = []
    for _ in range(requests):
        t = time.monotonic()
        a = exchange(arena.web, b"GET /api/phases HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: "
                                b"close\r\n\r\n", timeout=10)
        phases.append(time.monotonic() - t)
        if status_of(a) != 200:
            slow.stop()
            raise Failed("GET /api/phases under %d slow connections: %r" % (n, a[:80]))
    boards = []
    for _ in range(cli_calls):
        t = time.monotonic()
        arena.bbo("leaderboard", "--server", arena.grpc, token="red", timeout=30)
        boards.append(time.monotonic() - t)
    slow.stop()
    arena.alive()
    return {"case": "%d slow connections" % n, "fds_idle": fds_idle, "fds_held": fds_held,
            "reopened": slow.reopened,
            "phases_p50_s": percentile(phases, 50), "phases_p99_s": percentile(phases, 99),
            "leaderboard_p50_s": percentile(boards, 50), "leaderboard_p99_s": percentile(boards, 99)}


# ---- reports ----

def organizer_report(arena, out, seed):
    """An organizer's report with a seed of their own (so computed, not cached), in seconds."""
    t = time.monotonic()
    arena.bbo("report", "--server", arena.grpc, "--format", "json", "--out", out, "--seed",
              str(seed), token="org", timeout=300)
    return time.monotonic() - t


def report_case(arena, runs):
    out = os.path.join(arena.work, "report")
    seeds = iter(range(1000, 2000))
    organizer_report(arena, out, next(seeds))
    idle = sorted(organizer_report(arena, out, next(seeds)) for _ in range(runs))[runs // 2]
    stop, errors, calls = threading.Event(), [], [0]

    def anonymous(i):
        rng = random.Random(i)
        d = os.path.join(arena.work, "anon%d" % i)
        while not stop.is_set():
            r = arena.bbo("report", "--server", arena.grpc, "--format", "json", "--out", d,
                          "--bootstrap", str(rng.choice([10 ** 5, 10 ** 6])), "--seed",
                          str(rng.randrange(1, 1 << 30)), timeout=600, check=False)
            calls[0] += 1
            # Refused or answered with the phase's parameters; never a crash.
            if r.returncode != 0 and "parameters" not in r.stderr and "organizer" not in r.stderr:
                errors.append(r.stderr[-500:])
                return
            # A caller on another machine costs this one nothing: here each call starts a
            # process, so the callers pause lest they measure this host's CPU instead.
            stop.wait(1.0)

    threads = [threading.Thread(target=anonymous, args=(i,), daemon=True) for i in range(16)]
    for t in threads:
        t.start()
    time.sleep(2)
    busy = sorted(organizer_report(arena, out, next(seeds)) for _ in range(runs))[runs // 2]
    stop.set()
    for t in threads:
        t.join(timeout=600)
    arena.alive()
    if errors:
        raise Failed("anonymous report: " + errors[0])
    return {"case": "organizer's report, 16 anonymous report calls", "idle_s": idle,
            "busy_s": busy, "ratio": busy / idle if idle > 0 else float("inf"),
            "anonymous_calls": calls[0]}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--cases", default="gzip,unlengthed,ranges,slow,report",
                    help="comma-separated cases to run (default: all)")
    args = ap.parse_args(argv)
    build = os.path.abspath(args.build)
    seconds = 3 if args.smoke else 15
    n_slow = 200 if args.smoke else 1000
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, n_slow + 512)), hard))
    group, why = make_group()
    if why:
        print("web_attack_bench: no memory group (%s): the coordinator runs unbounded" % why)
    work = tempfile.mkdtemp(prefix="bbo-webattack-")
    os.chmod(work, 0o755)  # the sandbox's unprivileged user reaches the workers' folders
    arena = Arena(build, work, 1 if args.smoke else 3, group)
    results, failed = [], []
    try:
        arena.start()
        with open(os.path.join(arena.work, "openapi.json"), "wb") as f:
            f.write(exchange(arena.web, b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                        b"Connection: close\r\n\r\n"))
        size = os.path.getsize(os.path.join(arena.work, "openapi.json"))
        bomb = gzip_bomb(256 if args.smoke else 1024) if "gzip" in args.cases else b""
        cases = args.cases.split(",")
        for key, name, target, extra in (
                ("gzip", "gzip body (1 MB -> 1 GB)", attack_gzip, (bomb,)),
                ("unlengthed", "body without a length", attack_no_length, ()),
                ("ranges", "2,600 overlapping ranges", attack_ranges, (size,))):
            if key not in cases:
                continue
            try:
                results.append(memory_case(arena, name, target, extra, seconds))
            except Failed as e:
                failed.append(str(e))
        try:
            if "slow" in cases:
                results.append(slow_case(arena, n_slow, 50 if args.smoke else 300,
                                         5 if args.smoke else 30))
        except Failed as e:
            failed.append(str(e))
        except OSError:
            failed.append("slow connections: %s" % traceback.format_exc())
        try:
            if "report" in cases:
                results.append(report_case(arena, 3 if args.smoke else 5))
        except Failed as e:
            failed.append(str(e))
    except Failed as e:
        failed.append(str(e))
    except Exception as e:  # the driver's own error: a failed run, never a figure
        failed.append("driver error: %s" % traceback.format_exc())
    finally:
        arena.stop()
        remove_group(group)
    goals = []
    for r in results:
        if "growth_mib" in r:
            print("%-40s idle %7.1f MiB  peak %7.1f MiB  growth %6.1f MiB (goal <= 64)" %
                  (r["case"], r["idle_mib"], r["peak_mib"], r["growth_mib"]))
            if r["growth_mib"] > 64:
                goals.append("%s: %.1f MiB over idle" % (r["case"], r["growth_mib"]))
        elif "phases_p99_s" in r:
            print("%-40s descriptors %d -> %d (%d reopened); GET /api/phases p50 %.3f s p99 "
                  "%.3f s; bbo leaderboard p50 %.3f s p99 %.3f s (goal p99 < 1 s)" %
                  (r["case"], r["fds_idle"], r["fds_held"], r["reopened"], r["phases_p50_s"],
                   r["phases_p99_s"], r["leaderboard_p50_s"], r["leaderboard_p99_s"]))
            if not args.smoke and max(r["phases_p99_s"], r["leaderboard_p99_s"]) >= 1:
                goals.append("%s: p99 over 1 s" % r["case"])
        else:
            print("%-40s idle %.2f s  busy %.2f s  ratio %.2fx (goal <= 2x; %d anonymous calls)" %
                  (r["case"], r["idle_s"], r["busy_s"], r["ratio"], r["anonymous_calls"]))
            if not args.smoke and r["ratio"] > 2:
                goals.append("%s: %.2fx" % (r["case"], r["ratio"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "failed": failed, "over_goal": goals}, f, indent=1)
    for f in failed:
        print("web_attack_bench: FAILED: " + f, file=sys.stderr)
    for g in goals:
        print("web_attack_bench: over goal: " + g, file=sys.stderr)
    if failed or goals:
        print("web_attack_bench: logs kept in " + work, file=sys.stderr)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
