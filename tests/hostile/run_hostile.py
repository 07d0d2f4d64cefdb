#!/usr/bin/python3
"""Hostile-submission runner: one case of tests/hostile/cases per run (ctest HostileTest.<case>).

For a case it
 1. puts itself in a guard control group (6 GiB memory, 2048 tasks, 2 cores) so that nothing a
    case does can take the host down even if the system under test fails to contain it;
 2. snapshots the host: sysctls, sentinel files under /tmp and /var/tmp, a TCP/UDP listener of
    its own on 127.0.0.1 (and ::1), the processes;
 3. starts a real bbo-server (temporary SQLite file, small optimizer limits) and one bbo-worker,
    submits the case (an archive it builds, for archive attacks) and then a well-behaved
    reference (examples/random-search-py), and waits for both;
 4. checks: the outcome recorded in SQLite is the one in the case's expect.json, every probe the
    optimizer reported is contained, the host is unchanged, no process of the sandbox is left,
    the worker is alive and ran the reference after the case, the leaderboard is intact;
 5. stops everything and deletes its files, always.

Exit status: 0 pass, 1 fail, 77 skipped (a dangerous case on a host that cannot have a guard:
not root, or no cgroup memory controller mounted; never under CI=true, where a guard that cannot
be made fails every case).
Standard library only; /usr/bin/python3. The guard and the host snapshot are in hostile_host.py,
the archive attacks in hostile_archives.py, the helpers copied into every submission in
hostile_lib.py.
"""
import argparse
import errno
import json
import math
import os
import re
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

import hostile_host
from hostile_archives import build_archive
from hostile_host import (Guard, Listeners, UidSampler, find_marker_files, limit_mismatches, make_sentinels,
                          mounts_under, proc_table, read, sysctls, tree_digest, uptime_ticks, vm_hwm_mb, write)

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = os.path.join(HERE, "cases")
SKIP = 77
SANDBOX_UID = 65534
LIMITS = {"memory_mb": 512, "max_tasks": 64, "cpus": 1.0, "tmp_mb": 64}
LIMIT_FLAGS = {"memory_mb": "optimizer_memory_mb", "max_tasks": "optimizer_max_tasks",
               "cpus": "optimizer_cpus", "tmp_mb": "optimizer_tmp_mb"}
SERVER_FLAGS = ["--problems=branin", "--n_batches=4", "--batch_size=8", "--default_trials=1",
                "--baseline_trials=2", "--suggest_budget_s=10", "--study_budget_s=40",
                "--startup_budget_s=20"]
WAIT_JOBS_S = 120
HARD_DEADLINE_S = 170  # ctest's TIMEOUT is 180: leave time to clean up
EXPECT_KEYS = {"description", "dangerous", "outcome", "reason_contains", "errors_contain", "no_errors",
               "probes", "best_so_far_stands", "server_flags", "studies", "max_error_bytes",
               "errors_valid_utf8", "max_worker_rss_mb", "max_worker_log_mb", "max_cpu_cores",
               "min_replaced", "archive", "error_contains", "timeout_s"}
T0 = time.monotonic()


def log(msg):
    print("[%6.2fs] %s" % (time.monotonic() - T0, msg), flush=True)


hostile_host.log = log


class Deadline(Exception):
    pass


# ------------------------------------------------------------------------------------ results


class Results:
    def __init__(self):
        self.failures = []
        self.notes = []

    def ok(self, check, detail=""):
        log("PASS %s%s" % (check, (": " + detail) if detail else ""))

    def fail(self, check, detail):
        self.failures.append("%s: %s" % (check, detail))
        log("FAIL %s: %s" % (check, detail))

    def check(self, cond, check, detail):
        (self.ok if cond else self.fail)(check, detail)
        return cond

    def note(self, msg):
        self.notes.append(msg)
        log("NOTE " + msg)


# ------------------------------------------------------------------------------------ processes


class Proc:
    def __init__(self, argv, logpath, env=None):
        self.argv = argv
        self.logpath = logpath
        self.logf = open(logpath, "wb")
        for attempt in range(60):
            try:
                self.p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.logf, stderr=subprocess.STDOUT,
                                          env=env, start_new_session=True)
                break
            except OSError as e:  # a binary being rebuilt
                if e.errno not in (errno.EACCES, errno.ETXTBSY, errno.ENOENT) or attempt == 59:
                    raise
                time.sleep(1)
        self.pid = self.p.pid

    def alive(self):
        return self.p.poll() is None

    def stop(self, grace=8):
        if self.p.poll() is None:
            try:
                self.p.send_signal(signal.SIGTERM)
                self.p.wait(grace)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait(5)
            except OSError:
                pass
        self.logf.close()

    def tail(self, n=40):
        try:
            with open(self.logpath, "rb") as f:
                f.seek(max(0, os.path.getsize(self.logpath) - 64000))
                lines = f.read().decode("utf-8", "replace").splitlines()
            return "\n".join(l[:400] for l in lines[-n:])
        except OSError:
            return ""


def run(argv, timeout=30, env=None):
    # A binary being rebuilt is briefly missing or not executable: retry for up to a minute.
    for attempt in range(60):
        try:
            r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout, env=env)
            break
        except OSError as e:
            if e.errno not in (errno.EACCES, errno.ETXTBSY, errno.ENOENT) or attempt == 59:
                raise
            time.sleep(1)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


# ------------------------------------------------------------------------------------ the store


def db_connect(path):
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=10)
    con.text_factory = bytes
    return con


def text(b):
    if b is None:
        return ""
    return b.decode("utf-8", "replace") if isinstance(b, bytes) else str(b)


def studies_of(con, sub_id):
    rows = con.execute("SELECT id, state, end_reason, best_value, batches_done, started_at, ended_at, job_id "
                       "FROM studies WHERE submission_id = ? AND board = '' ORDER BY id", (sub_id,)).fetchall()
    keys = ("id", "state", "end_reason", "best_value", "batches_done", "started_at", "ended_at", "job_id")
    out = []
    for r in rows:
        s = dict(zip(keys, r))
        s["state"] = text(s["state"])
        s["errors"] = [m for (m,) in con.execute("SELECT message FROM study_errors WHERE study_id = ? ORDER BY id", (s["id"],))]
        job = con.execute("SELECT last_error, worker_id FROM jobs WHERE id = ?", (s["job_id"],)).fetchone()
        s["job_error"], s["worker_id"] = (job if job else (None, None))
        out.append(s)
    return out


def submission_id(con, name):
    r = con.execute("SELECT id FROM submissions WHERE name = ?", (name,)).fetchone()
    return r[0] if r else None


PROBE_RE = re.compile(r"HOSTILE-PROBES (\[)")


def parse_probes(messages):
    found = []
    for m in messages:
        s = text(m)
        for mt in PROBE_RE.finditer(s):
            try:
                value, _ = json.JSONDecoder().raw_decode(s[mt.start(1):])
                found.extend(v for v in value if isinstance(v, dict))
            except ValueError:
                found.append({"n": "<unparsable probe report>", "ok": False, "d": s[mt.start():][:200]})
    return found


def find_rows(node, name):
    """Dicts anywhere in a JSON document whose "name" is `name`."""
    out = []
    if isinstance(node, dict):
        if node.get("name") == name or node.get("method") == name:
            out.append(node)
        for v in node.values():
            out += find_rows(v, name)
    elif isinstance(node, list):
        for v in node:
            out += find_rows(v, name)
    return out


# ------------------------------------------------------------------------------------ the case


class Case:
    def __init__(self, name, args):
        self.name = name
        self.args = args
        self.dir = os.path.join(CASES_DIR, name)
        with open(os.path.join(self.dir, "expect.json")) as f:
            self.expect = json.load(f)
        unknown = set(self.expect) - EXPECT_KEYS
        if unknown:
            raise ValueError("%s/expect.json: unknown keys %s" % (name, sorted(unknown)))
        self.archive = self.expect.get("archive")
        if not self.archive and not (os.path.exists(os.path.join(self.dir, "optimizer.py")) or
                                     os.access(os.path.join(self.dir, "optimizer"), os.X_OK)):
            raise ValueError("%s has neither optimizer.py nor an executable optimizer" % name)
        self.build = os.path.abspath(args.build_dir)
        self.source = os.path.abspath(args.source_dir)
        self.bins = {"server": os.path.join(self.build, "server", "bbo-server"),
                     "worker": os.path.join(self.build, "worker", "bbo-worker"),
                     "cli": os.path.join(self.build, "client", "bbo")}
        self.r = Results()
        self.guard = None
        self.tmp = None
        self.server = None
        self.worker = None
        self.listeners = None
        self.sentinel_dirs = []
        self.sysctl_before = {}
        self.port = None
        self.tokens = {}  # team or worker name -> token

    # --- helpers
    def cli(self, *argv, timeout=60, team=None):
        """bbo ... --server, with the team's token (BBO_TOKEN) when the coordinator has identities."""
        env = dict(os.environ)
        env.pop("BBO_TOKEN", None)
        token = self.tokens.get(team or self.name)
        if token:
            env["BBO_TOKEN"] = token
        return run([self.bins["cli"]] + list(argv) + ["--server", "127.0.0.1:%d" % self.port], timeout=timeout,
                   env=env)

    def remaining(self):
        return HARD_DEADLINE_S - (time.monotonic() - T0)

    def team_args(self, team=None):
        return ["--team", team or self.name] if self.tokens else []

    def case_limits(self):
        """Limits the case's own server_flags override."""
        out = {}
        for flag in self.expect.get("server_flags", []):
            for k, name in LIMIT_FLAGS.items():
                if flag.startswith("--%s=" % name):
                    v = flag.split("=", 1)[1]
                    out[k] = float(v) if k == "cpus" else int(v)
        return out

    def flags_of(self, binary):
        try:
            r = subprocess.run([self.bins[binary], "--helpfull"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=20)
            out = r.stdout.decode("utf-8", "replace")
        except (OSError, subprocess.TimeoutExpired):
            return set()
        return set(re.findall(r"--([a-z_0-9]+)", out))

    def wait_binaries(self):
        for _ in range(60):
            if all(os.access(b, os.X_OK) for b in self.bins.values()):
                return True
            time.sleep(1)
        return False

    # --- the run
    def run(self):
        log("case %s: %s" % (self.name, self.expect.get("description", "")))
        self.guard = Guard()
        guarded = self.guard.setup()
        if guarded:
            log("guard cgroup (%s): %s" % (self.guard.version, ", ".join(self.guard.dirs)))
        elif hostile_host.in_ci() or self.guard.unsupported is None:
            # CI's machine has root and cgroups, and so does a host where the guard failed for
            # no reason of the host's own: a setup error there fails the case, it never skips.
            why = ("CI=true: a setup error is a failure" if hostile_host.in_ci() else
                   "this host is root with cgroup controllers mounted read-write")
            log("FAIL: no guard cgroup (%s); %s" % (self.guard.problem, why))
            return 1
        else:
            why = self.guard.problem
            if self.guard.unsupported != why:
                why += "; " + self.guard.unsupported
            log("WARNING: NO GUARD CGROUP (%s): only cases that cannot hurt the host are run" % why)
            if self.expect.get("dangerous"):
                log("SKIP: %s is marked dangerous and cannot run without a guard (%s)" %
                    (self.name, self.guard.unsupported))
                return SKIP
        if not self.wait_binaries():
            self.r.fail("binaries", "missing: %s" % [b for b in self.bins.values() if not os.access(b, os.X_OK)])
            return 1
        try:
            self._run()
        except Deadline:
            self.r.fail("deadline", "the case did not finish within %d s" % HARD_DEADLINE_S)
        except Exception as e:  # a runner bug or an unexpected state: report it, clean up
            import traceback
            traceback.print_exc()
            self.r.fail("runner", "%s: %s" % (type(e).__name__, e))
        finally:
            self.cleanup()
        if self.r.failures:
            log("RESULT %s: FAIL (%d)" % (self.name, len(self.r.failures)))
            for f in self.r.failures:
                print("  - " + f)
            return 1
        log("RESULT %s: PASS" % self.name)
        return 0

    def _run(self):
        r = self.r
        supported = self.flags_of("server")
        limits = {}
        limit_flags = []
        for k, flag in LIMIT_FLAGS.items():
            if flag in supported:
                limits[k] = LIMITS[k]
                limit_flags.append("--%s=%s" % (flag, LIMITS[k]))
        if len(limits) < len(LIMITS):
            r.note("bbo-server lacks %s: the case runs with the default optimizer limits"
                   % [LIMIT_FLAGS[k] for k in LIMITS if k not in limits])

        self.tmp = tempfile.mkdtemp(prefix="bbo-hostile-%s-" % self.name)
        os.chmod(self.tmp, 0o755)  # the sandbox's host user must reach the worker's folder
        private = os.path.join(self.tmp, "private")
        os.makedirs(private, mode=0o700)
        db = os.path.join(private, "arena.sqlite")
        work = os.path.join(self.tmp, "w")
        os.makedirs(work)
        server_tmp = os.path.join(private, "tmp")
        os.makedirs(server_tmp)
        marker = "bbo-hostile-pwned-%d" % os.getpid()
        secret = secrets.token_hex(8)

        # Host snapshot.
        self.sysctl_before = sysctls()
        self.sentinel_dirs, sentinel_files = make_sentinels(os.getpid(), secret)
        sentinels_before = {d: tree_digest(d) for d in self.sentinel_dirs}
        self.listeners = Listeners()
        case_start_ticks = uptime_ticks()
        procs_before = set(proc_table())
        mounts_before = mounts_under(self.tmp)

        # Identities (when the coordinator has them): a team token for the case, one for the
        # reference and a worker token, all in the 0700 folder the sandbox never sees.
        worker_token_file = None
        anonymous = []
        if "token_secret_file" in supported and "token_file" not in self.flags_of("worker"):
            # The coordinator has identities but this worker cannot present a token yet.
            if "allow_anonymous" in supported:
                anonymous = ["--allow_anonymous"]
                r.note("bbo-worker has no --token_file: the coordinator runs with --allow_anonymous")
        elif "token_secret_file" in supported:
            for kind, name in (("team", self.name), ("team", "reference"), ("worker", "hostile-worker")):
                code, out, err = run([self.bins["cli"], "admin", "--db", db, kind, "add", name])
                toks = [l.strip() for l in out.splitlines() if l.strip().startswith("bbo_")]
                if code != 0 or not toks:
                    r.fail("identities", "bbo admin %s add %s: exit %d %s" % (kind, name, code, (out + err)[:300]))
                    return
                self.tokens[name] = toks[-1]
            worker_token_file = os.path.join(private, "worker.token")
            with open(os.open(worker_token_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
                f.write(self.tokens["hostile-worker"] + "\n")
            log("identities: teams %s and reference, worker hostile-worker" % self.name)

        # Coordinator.
        port_file = os.path.join(private, "port")
        env = dict(os.environ, TMPDIR=server_tmp)
        argv = [self.bins["server"], "--listen=127.0.0.1:0", "--port_file=" + port_file, "--db=" + db] + \
            SERVER_FLAGS + limit_flags + anonymous + self.expect.get("server_flags", [])
        log("server: " + " ".join(argv[1:]))
        self.server = Proc(argv, os.path.join(private, "server.log"), env=env)
        for _ in range(200):
            if os.path.exists(port_file) and read(port_file):
                break
            if not self.server.alive():
                break
            time.sleep(0.1)
        if not read(port_file):
            r.fail("server_start", "bbo-server did not start:\n" + self.server.tail())
            return
        self.port = int(read(port_file))

        # Worker, with a canary in its environment.
        canary = "BBO_HOSTILE_CANARY_%s" % secrets.token_hex(4)
        wenv = dict(os.environ)
        wenv[canary] = secrets.token_hex(8)
        argv = self.guard.worker_prefix() + [
            self.bins["worker"], "--coordinator=127.0.0.1:%d" % self.port, "--work_dir=" + work,
            "--exit_when_idle_s=0", "--python_dir=" + os.path.join(self.source, "python")]
        if worker_token_file:
            argv.append("--token_file=" + worker_token_file)
        if not self.guard.dirs and "cgroups" in self.flags_of("worker"):
            # No guard (not root): only harmless cases run, and the worker has no cgroups to use.
            argv.append("--cgroups=auto")
            r.note("no guard: bbo-worker runs with --cgroups=auto (no per-study limits)")
        self.worker = Proc(argv, os.path.join(self.tmp, "worker.log"), env=wenv)

        code, out, err = self.cli("problems", "--json")
        problems = []
        if code == 0:
            try:
                problems = [{"name": p["name"], "api_config": p["api_config"]} for p in json.loads(out)]
            except (ValueError, KeyError, TypeError):
                problems = []
        target = {
            "marker": marker, "host_tcp_port": self.listeners.tcp_port, "host_tcp6_port": self.listeners.tcp6_port,
            "host_udp_port": self.listeners.udp_port, "server_port": self.port, "db_path": db,
            "work_dir": work, "source_dir": self.source, "build_dir": self.build,
            "sentinel_dirs": self.sentinel_dirs, "sentinel_files": sentinel_files,
            "worker_pid": self.worker.pid, "server_pid": self.server.pid, "runner_pid": os.getpid(),
            "canary_name": canary, "host_pid_ns": os.readlink("/proc/self/ns/pid"), "limits": limits,
            "secret_files": [db + ".secret"] + ([worker_token_file] if worker_token_file else []),
            "problems": problems,
        }

        # Submissions: the case first, then the reference.
        subs = os.path.join(self.tmp, "subs")
        os.makedirs(subs)
        ref_dir = os.path.join(subs, "reference")
        shutil.copytree(os.path.join(self.source, "examples", "random-search-py"), ref_dir)
        ref_name = "reference"
        case_name = self.name
        if self.archive:
            path = build_archive(self.archive, self.dir, subs, self.sentinel_dirs, sentinel_files, marker)
            log("archive %s: %s (%d bytes)" % (self.archive, os.path.basename(path), os.path.getsize(path)))
            code, out, err = self.cli("submit", path, "--name", case_name, "--trials", "1", *self.team_args(), timeout=90)
            msg = (out + err).strip()
            r.check(code != 0, "archive_refused", "bbo submit exit %d: %s" % (code, msg[:300]))
            want = self.expect.get("error_contains", "")
            r.check(want in msg, "archive_error_clear", "error mentions %r" % want)
            r.check(self.server.alive(), "server_alive_after_archive", "bbo-server still running")
        else:
            case_sub = os.path.join(subs, case_name)
            shutil.copytree(self.dir, case_sub, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            os.remove(os.path.join(case_sub, "expect.json"))
            shutil.copy(os.path.join(HERE, "hostile_lib.py"), case_sub)
            with open(os.path.join(case_sub, "target.json"), "w") as f:
                json.dump(target, f, indent=1)
            code, out, err = self.cli("submit", case_sub, "--name", case_name, "--trials", "1", *self.team_args())
            if not r.check(code == 0, "submit", (out + err).strip()[:300]):
                return
        sampler = UidSampler(self.guard, self.bins["worker"]) if self.guard.dirs else None
        code, out, err = self.cli("submit", ref_dir, "--name", ref_name, "--trials", "1",
                                  *self.team_args("reference"), team="reference")
        if not r.check(code == 0, "submit_reference", (out + err).strip()[:300]):
            return

        # Wait for both.
        names = [ref_name] + ([] if self.archive else [case_name])
        limit = min(self.expect.get("timeout_s", WAIT_JOBS_S), self.remaining() - 35)
        t_wait = time.monotonic()
        done = False
        status = []
        while time.monotonic() - t_wait < limit:
            if not self.worker.alive() or not self.server.alive():
                break
            # With identities a team sees only its own submissions: ask as each team.
            status = []
            for team in ([self.name, "reference"] if self.tokens else [None]):
                code, out, _ = self.cli("status", "--json", timeout=20, team=team)
                if code == 0:
                    try:
                        status += json.loads(out)
                    except ValueError:
                        pass
            fin = {s["name"]: s.get("finished") for s in status}
            if all(fin.get(n) for n in names):
                done = True
                break
            time.sleep(0.5)
        log("waited %.1f s for %s" % (time.monotonic() - t_wait, names))
        if sampler is not None:
            sampler.close()
            if sampler.samples:
                bad = {u: c for u, c in sampler.seen.items() if u != SANDBOX_UID}
                r.check(not bad, "sandbox_host_uid", ("host uids %s" % bad) if bad else
                        "%d samples of study processes, all host uid %d" % (sampler.samples, SANDBOX_UID))
            else:
                r.note("no process of a study group was sampled: host uid not checked")
            groups = {d for d, _ in sampler.limits}
            if not groups:
                r.note("no study group was seen: its limits not checked")
            elif limits:
                bad = limit_mismatches(sampler.limits, dict(limits, **self.case_limits()))
                r.check(not bad, "study_cgroup_limits", "; ".join(bad[:4]) or
                        "%d study group dir(s) with memory %s MiB, %s tasks, %s cores" % (
                            len(groups), limits.get("memory_mb"), limits.get("max_tasks"), limits.get("cpus")))
        r.check(self.server.alive(), "server_alive", "bbo-server pid %d %s" % (
            self.server.pid, "running" if self.server.alive() else "exited %s" % self.server.p.returncode))
        r.check(self.worker.alive(), "worker_alive", "bbo-worker pid %d %s" % (
            self.worker.pid, "running" if self.worker.alive() else "exited %s" % self.worker.p.returncode))
        if not r.check(done, "jobs_done", "both submissions finished within %d s" % limit):
            log("status: %s" % json.dumps(status)[:1000])

        # No process left: nothing of the sandbox's uid started during the case, nothing in a
        # study group (polled: the worker may still be killing a group it just ended).
        keep = {os.getpid(), self.server.pid, self.worker.pid}
        # A root worker runs sandboxes as uid 65534; an unprivileged one as its own uid.
        sandbox_uid = SANDBOX_UID if os.geteuid() == 0 else os.getuid()
        survivors, extra, study = [], [], []
        for _ in range(40):
            table = proc_table()
            survivors = ["%d uid=%d %s" % (pid, info[0], info[3][:80]) for pid, info in table.items()
                         if sandbox_uid in (info[0], info[1]) and info[2] >= case_start_ticks - 1
                         and pid not in procs_before and pid not in keep
                         and (not guarded_name(self.guard) or guarded_name(self.guard) in info[4])]
            if self.guard.dirs:
                extra = ["%d %s" % (p, table.get(p, (0, 0, 0, "?"))[3][:80]) for p in self.guard.pids() - keep]
                study = ["%s: %s" % (d, procs) for d, procs in self.guard.study_groups()
                         if procs and set(procs) - {self.worker.pid}]
            if not survivors and not extra and not study:
                break
            time.sleep(0.2)
        r.check(not survivors, "no_sandbox_process_left", "; ".join(survivors) or "no process of uid %d" % sandbox_uid)
        if self.guard.dirs:
            r.check(not extra, "no_process_left_in_guard", "; ".join(extra) or "only runner, server, worker")
            r.check(not study, "study_cgroups_empty", "; ".join(study) or "%d study group(s) left, all empty"
                    % len(self.guard.study_groups()))
        mounts = [m for m in mounts_under(self.tmp) if m not in mounts_before]
        r.check(not mounts, "no_mount_left", ", ".join(mounts) or "no mount under the case's folder")

        # Worker memory and log.
        hwm = vm_hwm_mb(self.worker.pid)
        if "max_worker_rss_mb" in self.expect:
            if hwm is None:
                r.fail("worker_memory", "cannot read the worker's VmHWM")
            else:
                r.check(hwm <= self.expect["max_worker_rss_mb"], "worker_memory",
                        "peak RSS %.0f MiB (limit %d)" % (hwm, self.expect["max_worker_rss_mb"]))
        if "max_worker_log_mb" in self.expect:
            size = os.path.getsize(self.worker.logpath) / 1048576.0
            r.check(size <= self.expect["max_worker_log_mb"], "worker_log_size",
                    "%.2f MiB (limit %d)" % (size, self.expect["max_worker_log_mb"]))

        # The store.
        con = db_connect(db)
        try:
            self.check_store(con, case_name, ref_name)
        finally:
            con.close()

        # The leaderboard.
        code, out, err = self.cli("leaderboard", "--json", timeout=60)
        scores = []
        if code == 0:
            try:
                rows = find_rows(json.loads(out), ref_name)
                scores = [row.get("score") for row in rows if isinstance(row.get("score"), (int, float))]
            except ValueError:
                pass
        r.check(code == 0 and any(math.isfinite(s) for s in scores), "leaderboard",
                "reference score %s" % (scores[:1] if scores else "missing (exit %d) %s" % (code, (err or out)[:200])))

        # Host unchanged.
        after = sysctls()
        changed = {k: (self.sysctl_before.get(k), v) for k, v in after.items() if self.sysctl_before.get(k) != v
                   and k != "vm/drop_caches"}
        r.check(not changed, "sysctls_unchanged", ", ".join("%s %r -> %r" % (k, a, b) for k, (a, b) in changed.items())
                or "%d sysctls unchanged" % len(after))
        for d in self.sentinel_dirs:
            now = tree_digest(d) if os.path.isdir(d) else {}
            before = sentinels_before[d]
            diff = sorted(k for k in set(now) | set(before) if now.get(k) != before.get(k))
            r.check(not diff, "sentinel_unchanged " + d, ("changed or new: %s" % diff[:8]) if diff else "intact")
        found = find_marker_files(marker, ["/", "/tmp", "/var/tmp", "/etc", "/usr", "/usr/lib/python3/dist-packages",
                                           "/root", self.source, self.tmp],
                                  [os.path.join(self.source, "python"), os.path.join(work, "submissions")])
        r.check(not found, "no_marker_file_on_host", ", ".join(found) or "none")
        with self.listeners.lock:
            events = list(self.listeners.events)
        r.check(not events, "host_listener_untouched", "; ".join(events[:5]) or "no connection, no datagram")

    def check_store(self, con, case_name, ref_name):
        r, e = self.r, self.expect
        for name in (case_name, ref_name):
            sid = submission_id(con, name)
            if sid is None:
                continue
            for job in con.execute("SELECT id, problem, state, attempts, last_error FROM jobs WHERE submission_id = ?",
                                   (sid,)):
                log("job %s of %s: %s %s attempts=%s%s" % (job[0], name, text(job[1]), text(job[2]), job[3],
                                                           (" error=%r" % text(job[4])[:300]) if job[4] else ""))
        ref_id = submission_id(con, ref_name)
        ref = studies_of(con, ref_id) if ref_id else []
        if self.archive:
            r.check(submission_id(con, case_name) is None, "archive_not_registered", "no submission %r" % case_name)
            hostile = []
        else:
            sid = submission_id(con, case_name)
            hostile = studies_of(con, sid) if sid else []
            want_n = e.get("studies")
            r.check(hostile and (want_n is None or len(hostile) == want_n), "study_count",
                    "%d studies (expected %s)" % (len(hostile), want_n or ">= 1"))
            for s in hostile:
                reason = text(s["end_reason"])
                log("study %d: state=%s batches=%s best=%s reason=%r" % (
                    s["id"], s["state"], s["batches_done"], s["best_value"], reason[:300]))
                for m in s["errors"][:20]:
                    log("   error: %r" % text(m)[:300])
                if s["job_error"]:
                    log("   job error: %r" % text(s["job_error"])[:300])
            want = e.get("outcome")
            if want:
                states = [s["state"] for s in hostile]
                r.check(hostile and all(st == want for st in states), "outcome", "states %s (expected %s)" % (states, want))
            subs = e.get("reason_contains")
            if subs:
                subs = [subs] if isinstance(subs, str) else subs
                bad = []
                for s in hostile:
                    blob = "\n".join([text(s["end_reason"]), text(s["job_error"])] + [text(m) for m in s["errors"]])
                    if not any(x in blob for x in subs):
                        bad.append("study %d: %r" % (s["id"], text(s["end_reason"])[:200]))
                r.check(hostile and not bad, "reason", ("; ".join(bad) + " lacks %s" % subs) if bad else "mentions %s" % subs)
            all_text = [text(s["end_reason"]) for s in hostile] + [text(m) for s in hostile for m in s["errors"]] + \
                [text(s["job_error"]) for s in hostile]
            blob = "\n".join(all_text)
            for x in e.get("errors_contain", []):
                r.check(x in blob, "errors_contain", repr(x))
            if e.get("no_errors"):
                n = sum(len(s["errors"]) for s in hostile)
                r.check(n == 0, "no_errors", "%d recorded errors" % n)
            if e.get("best_so_far_stands"):
                bad = [s["id"] for s in hostile if s["best_value"] is None or not math.isfinite(s["best_value"])
                       or not s["batches_done"]]
                r.check(hostile and not bad, "best_so_far_stands", "studies without a standing best value: %s" % bad
                        if bad else "best %s after %s batches" % ([s["best_value"] for s in hostile], [s["batches_done"] for s in hostile]))
            raw = [s["end_reason"] for s in hostile] + [m for s in hostile for m in s["errors"]] + \
                [s["job_error"] for s in hostile]
            raw = [x for x in raw if x]
            if "max_error_bytes" in e:
                longest = max([len(x) for x in raw] or [0])
                r.check(longest <= e["max_error_bytes"], "stored_text_bounded", "longest %d bytes (limit %d)" % (longest, e["max_error_bytes"]))
            if e.get("errors_valid_utf8"):
                bad = []
                for x in raw:
                    try:
                        (x if isinstance(x, bytes) else str(x).encode()).decode("utf-8", "strict")
                    except UnicodeDecodeError as ex:
                        bad.append(repr(x[max(0, ex.start - 20):ex.start + 20]))
                r.check(not bad, "stored_text_valid_utf8", "; ".join(bad[:3]) or "%d texts valid" % len(raw))
            if "min_replaced" in e:
                ids = [s["id"] for s in hostile]
                n = con.execute("SELECT COUNT(*) FROM evaluations WHERE replaced = 1 AND study_id IN (%s)"
                                % ",".join("?" * len(ids)), ids).fetchone()[0] if ids else 0
                r.check(n >= e["min_replaced"], "replaced_points", "%d replaced (at least %d)" % (n, e["min_replaced"]))
            if "max_cpu_cores" in e:
                self.check_cpu(con, hostile, e["max_cpu_cores"])
            # Probes.
            probes = parse_probes([m for s in hostile for m in s["errors"]])
            reported = {}
            for p in probes:
                reported.setdefault(p.get("n"), []).append(p)
                state = {True: "contained", False: "ESCAPED", None: "info"}.get(p.get("ok"), "?")
                log("   probe %-40s %-9s %s" % (p.get("n"), state, p.get("d", "")))
            escaped = ["%s (%s)" % (p.get("n"), p.get("d")) for p in probes if p.get("ok") is False]
            missing = [n for n in e.get("probes", []) if n not in reported]
            if e.get("probes") or probes:
                r.check(not escaped, "probes_contained", "; ".join(escaped) or "%d probes contained" %
                        sum(1 for p in probes if p.get("ok") is True))
            if e.get("probes"):
                r.check(not missing, "probes_reported", ("not reported: %s" % missing) if missing else
                        "all %d expected probes reported" % len(e["probes"]))
        # The reference: completed, no errors, after the case, on the same worker.
        states = [s["state"] for s in ref]
        r.check(ref and all(st == "completed" for st in states), "reference_completed", "states %s" % states)
        errs = [text(m)[:200] for s in ref for m in s["errors"]]
        r.check(not errs, "reference_no_errors", "; ".join(errs[:3]) or "none")
        if hostile and ref:
            last_end = max((s["ended_at"] or 0) for s in hostile)
            first_ref = min(s["started_at"] for s in ref)
            r.check(first_ref >= last_end - 0.01, "reference_after_case",
                    "reference started %.2f s after the case's last study ended" % (first_ref - last_end))
        # Every study, the case's and then the reference's, was run by our one worker.
        try:
            with open(self.worker.logpath, "rb") as f:
                wlog = f.read().decode("utf-8", "replace")
        except OSError:
            wlog = ""
        started = set(int(x) for x in re.findall(r"event=study_start job=\d+ study=(\d+)", wlog))
        missing = [s["id"] for s in hostile + ref if s["id"] not in started]
        r.check(hostile + ref and not missing, "worker_ran_all",
                ("studies not started by our worker: %s" % missing) if missing else
                "our worker ran studies %s" % [s["id"] for s in hostile + ref])

    def check_cpu(self, con, hostile, cores):
        cols = [text(c[1]) for c in con.execute("PRAGMA table_info(batches)")]
        if "optimizer_cpu_s" not in cols:
            self.r.note("batches.optimizer_cpu_s does not exist: CPU per turn not checked from the store")
            return
        ids = [s["id"] for s in hostile]
        rows = con.execute("SELECT study_id, batch, turn_time_s, optimizer_cpu_s FROM batches WHERE study_id IN (%s)"
                           % ",".join("?" * len(ids)), ids).fetchall() if ids else []
        measured = [(b, t, c) for (_, b, t, c) in rows if c is not None and t and t > 0.05]
        if not measured:
            self.r.note("no optimizer CPU time recorded per batch: CPU per turn not checked from the store")
            return
        worst = max(measured, key=lambda x: x[2] / x[1])
        self.r.check(worst[2] / worst[1] <= cores, "optimizer_cpu_per_turn",
                     "worst batch %d: %.2f s CPU in a %.2f s turn (%.2f cores, limit %.2f)" %
                     (worst[0], worst[2], worst[1], worst[2] / worst[1], cores))

    def cleanup(self):
        signal.alarm(0)
        for p, what in ((self.worker, "worker"), (self.server, "server")):
            if p is not None:
                p.stop()
        if self.r.failures:
            for p, what in ((self.server, "server"), (self.worker, "worker")):
                if p is not None:
                    print("----- %s log (tail) -----\n%s" % (what, p.tail()))
        if self.listeners is not None:
            self.listeners.close()
        if self.guard is not None:
            self.guard.kill_all_but_me()
        if self.tmp:
            for m in sorted(mounts_under(self.tmp), key=len, reverse=True):
                subprocess.run(["umount", "-l", m], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            shutil.rmtree(self.tmp, ignore_errors=True)
        # Undo any sysctl a case managed to change (it has already failed the case).
        if self.sysctl_before and os.geteuid() == 0:
            for k, v in sysctls().items():
                if k != "vm/drop_caches" and k in self.sysctl_before and self.sysctl_before[k] != v:
                    try:
                        write("/proc/sys/" + k, self.sysctl_before[k])
                        log("RESTORED sysctl %s to %r" % (k, self.sysctl_before[k]))
                    except OSError as e:
                        log("WARNING: cannot restore sysctl %s: %s" % (k, e))
        for d in self.sentinel_dirs:
            shutil.rmtree(d, ignore_errors=True)
        if self.guard is not None:
            self.guard.teardown()


def guarded_name(guard):
    return guard.name if guard is not None and guard.dirs else None


def list_cases():
    return sorted(d for d in os.listdir(CASES_DIR) if os.path.isfile(os.path.join(CASES_DIR, d, "expect.json")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--case", help="the case to run (a folder of tests/hostile/cases)")
    ap.add_argument("--all", action="store_true", help="run every case, one process each, and summarize")
    ap.add_argument("--list", action="store_true", help="list the cases")
    ap.add_argument("--table", action="store_true", help="print the cases as README.md's Markdown table rows")
    ap.add_argument("--build-dir", default=os.path.join(HERE, "..", "..", "build"))
    ap.add_argument("--source-dir", default=os.path.join(HERE, "..", ".."))
    args = ap.parse_args()
    if args.list:
        for c in list_cases():
            with open(os.path.join(CASES_DIR, c, "expect.json")) as f:
                print("%-32s %s" % (c, json.load(f).get("description", "")))
        return 0
    if args.table:
        for c in list_cases():
            with open(os.path.join(CASES_DIR, c, "expect.json")) as f:
                e = json.load(f)
            tries, _, must = e.get("description", "").partition(": ")
            kind = "archive" if e.get("archive") else (
                "optimizer.py" if os.path.exists(os.path.join(CASES_DIR, c, "optimizer.py")) else "optimizer")
            rc = e.get("reason_contains") or []
            rc = rc if isinstance(rc, str) else " / ".join(rc)
            want = ('refused: "%s"' % e.get("error_contains", "")) if e.get("archive") else \
                e.get("outcome", "") + ((' ("%s")' % rc) if rc else "")
            print("| `%s`%s | %s | %s | %s — **%s** |" % (c, " ⚠" if e.get("dangerous") else "", kind,
                                                        tries.replace("|", "\\|"), must.replace("|", "\\|"), want))
        return 0
    if args.all:
        results = {}
        for c in list_cases():
            t = time.monotonic()
            code = subprocess.call([sys.executable, os.path.abspath(__file__), "--case", c,
                                    "--build-dir", args.build_dir, "--source-dir", args.source_dir])
            results[c] = (code, time.monotonic() - t)
        print("\n===== hostile suite =====")
        for c, (code, dt) in results.items():
            print("%-32s %-5s %5.1f s" % (c, {0: "PASS", SKIP: "SKIP"}.get(code, "FAIL"), dt))
        return 1 if any(code not in (0, SKIP) for code, _ in results.values()) else 0
    if not args.case:
        ap.error("--case, --all or --list")

    def on_alarm(signum, frame):
        raise Deadline()

    def on_term(signum, frame):
        raise SystemExit("terminated")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.signal(signal.SIGTERM, on_term)
    signal.alarm(HARD_DEADLINE_S)
    case = Case(args.case, args)
    try:
        return case.run()
    finally:
        signal.alarm(0)


if __name__ == "__main__":
    sys.exit(main())
