"""Driver of bench/hosts_scaling_bench.sh (see there). Debian's /usr/bin/python3, run as root.

  hosts_scaling_bench.py BUILD full|smoke     the benchmark
  hosts_scaling_bench.py --cleanup            removes whatever a run left behind (idempotent)

Everything it creates has a fixed name (the wrapper holds a lock, so one run at a time): the
namespaces bbo-bench-h1..4, the bridge bbo-bench-br with 10.201.0.1/24, the veth pairs
bbo-bench-r<i> / bbo-bench-v<i>, the cgroups bbo-bench-h<i>, and STATE, the pids it started.
"""
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

TICK = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count() or 1
MAX_HOSTS = 4
BRIDGE = "bbo-bench-br"
COORDINATOR_IP = "10.201.0.1"
STATE = "/tmp/bbo-hosts-scaling-bench.pids"
CG_ROOT = "/sys/fs/cgroup"
PERIOD_US, QUOTA_US = 100000, 40000  # 0.4 core per host
HOST_CORES = QUOTA_US / PERIOD_US
# The host groups get a large CPU weight (and the coordinator nice -10): a host is a dedicated
# machine whose quota is its only limit, so a compile job elsewhere on this box must not starve
# it (the "other processes" column says how busy the box was anyway).
HOST_SHARES_V1, HOST_WEIGHT_V2, COORDINATOR_NICE = 10240, 10000, -10
# OpenCV ml problems costing ~5-35 ms of CPU per evaluation at random points (5-fold CV;
# build/problems/ml/ml_problems_bench --random=40); every N runs the same mix per host.
PROBLEMS = ["ml_svm_breast_nll", "ml_dt_breast_nll", "ml_knn_breast_nll", "ml_rf_iris_nll"]
CONFIGS = {  # mode: (host counts, studies per host, batches per study of 8 points)
    "full": ((1, 2, 4), 24, 16),
    "smoke": ((1, 2), 4, 8),
}
GOAL = 0.8


class Failed(Exception):
    pass


class Stop(BaseException):
    """A signal asked the driver to stop (cleanup still runs)."""


def ns(i):
    return "bbo-bench-h%d" % i


def sh(argv, check=True):
    r = subprocess.run(argv, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise Failed("%s: %s" % (" ".join(argv), (r.stderr or r.stdout).strip()))
    return r


# ---- cgroups: v1 (cpu and cpuacct, separate or co-mounted) or v2 (cpu.max) ----

def cgroup_layout():
    """('v1', [dirs holding cpu and cpuacct groups]) or ('v2', [root]); None when neither."""
    cpu, acct = os.path.join(CG_ROOT, "cpu"), os.path.join(CG_ROOT, "cpuacct")
    if os.path.exists(os.path.join(cpu, "cpu.cfs_quota_us")) and \
            os.path.exists(os.path.join(acct, "cpuacct.usage")):
        dirs = [os.path.realpath(cpu)]
        if os.path.realpath(acct) not in dirs:
            dirs.append(os.path.realpath(acct))
        return "v1", dirs
    controllers = os.path.join(CG_ROOT, "cgroup.controllers")
    if os.path.exists(controllers) and "cpu" in open(controllers).read().split():
        return "v2", [CG_ROOT]
    return None


def host_groups(i, layout):
    return [os.path.join(d, ns(i)) for d in layout[1]]


def write(path, value):
    with open(path, "w") as f:
        f.write(str(value))


def make_host_group(i, layout):
    if layout[0] == "v2":
        write(os.path.join(CG_ROOT, "cgroup.subtree_control"), "+cpu")
    for g in host_groups(i, layout):
        os.makedirs(g, exist_ok=True)
        if layout[0] == "v2":
            write(os.path.join(g, "cpu.max"), "%d %d" % (QUOTA_US, PERIOD_US))
            write(os.path.join(g, "cpu.weight"), HOST_WEIGHT_V2)
        elif os.path.exists(os.path.join(g, "cpu.cfs_quota_us")):
            write(os.path.join(g, "cpu.cfs_period_us"), PERIOD_US)
            write(os.path.join(g, "cpu.cfs_quota_us"), QUOTA_US)
            write(os.path.join(g, "cpu.shares"), HOST_SHARES_V1)


def host_cpu_s(i, layout):
    """CPU seconds used so far by every process of host i (its cgroup)."""
    for g in host_groups(i, layout):
        if layout[0] == "v1" and os.path.exists(os.path.join(g, "cpuacct.usage")):
            return int(open(os.path.join(g, "cpuacct.usage")).read()) / 1e9
        if layout[0] == "v2":
            for line in open(os.path.join(g, "cpu.stat")):
                if line.startswith("usage_usec "):
                    return int(line.split()[1]) / 1e6
    raise Failed("no CPU accounting for host %d" % i)


def move_into(groups):
    """preexec_fn: the child joins `groups` before it execs (its children stay there)."""
    def join():
        for g in groups:
            write(os.path.join(g, "cgroup.procs"), os.getpid())
    return join


# ---- processes ----

def start_time(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def proc_cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def machine_busy_s():
    """CPU seconds the whole machine spent busy so far (all cores; /proc/stat)."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / TICK


def spawn(argv, log, **kwargs):
    """Starts argv in its own session, records it in STATE (for --cleanup) and returns it."""
    p = subprocess.Popen(argv, stdout=open(log, "w"), stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True, **kwargs)
    with open(STATE, "a") as f:
        f.write("%d %s\n" % (p.pid, start_time(p.pid)))
    return p


def stop(procs):
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except OSError:
                pass
    for p in procs:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()


def kill_pids(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def cleanup():
    """Kills every process a run started and deletes its namespaces, links and cgroups."""
    if os.path.exists(STATE):
        for line in open(STATE):
            pid, started = line.split()
            if start_time(int(pid)) == started:  # still the process we started
                try:
                    os.killpg(int(pid), signal.SIGKILL)
                except OSError:
                    kill_pids([int(pid)])
        os.remove(STATE)
    layout = cgroup_layout()
    for i in range(1, MAX_HOSTS + 1):
        if os.path.exists("/run/netns/" + ns(i)):
            pids = sh(["ip", "netns", "pids", ns(i)], check=False).stdout.split()
            kill_pids(int(p) for p in pids)
        groups = host_groups(i, layout) if layout else []
        for _ in range(50):
            left = []
            for g in groups:
                if os.path.exists(os.path.join(g, "cgroup.procs")):
                    left += [int(p) for p in open(os.path.join(g, "cgroup.procs")).read().split()]
            if not left:
                break
            kill_pids(left)
            time.sleep(0.1)
        for g in groups:
            if os.path.isdir(g):
                try:
                    os.rmdir(g)
                except OSError as e:
                    print("hosts_scaling_bench: cannot remove %s: %s" % (g, e), file=sys.stderr)
        if os.path.exists("/run/netns/" + ns(i)):
            sh(["ip", "netns", "del", ns(i)], check=False)
        if os.path.exists("/sys/class/net/bbo-bench-r%d" % i):
            sh(["ip", "link", "del", "bbo-bench-r%d" % i], check=False)
    if os.path.exists("/sys/class/net/" + BRIDGE):
        sh(["ip", "link", "del", BRIDGE], check=False)


# ---- the private network: a bridge in this namespace, one veth per host namespace ----

def make_network(hosts):
    sh(["ip", "link", "add", BRIDGE, "type", "bridge"])
    sh(["ip", "addr", "add", COORDINATOR_IP + "/24", "dev", BRIDGE])
    sh(["ip", "link", "set", BRIDGE, "up"])
    for i in range(1, hosts + 1):
        sh(["ip", "netns", "add", ns(i)])
        sh(["ip", "-n", ns(i), "link", "set", "lo", "up"])
        sh(["ip", "link", "add", "bbo-bench-r%d" % i, "type", "veth", "peer", "name",
            "bbo-bench-v%d" % i, "netns", ns(i)])
        sh(["ip", "link", "set", "bbo-bench-r%d" % i, "master", BRIDGE, "up"])
        sh(["ip", "-n", ns(i), "addr", "add", "10.201.0.%d/24" % (10 + i), "dev",
            "bbo-bench-v%d" % i])
        sh(["ip", "-n", ns(i), "link", "set", "bbo-bench-v%d" % i, "up"])


# ---- one run: a fresh coordinator and N hosts ----

def query(db, sql, args=()):
    with sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10) as c:
        return c.execute(sql, args).fetchall()


def log_tail(paths):
    out = []
    for p in paths:
        if os.path.exists(p):
            out.append("--- %s\n%s" % (p, open(p, errors="replace").read()[-1500:]))
    return "\n".join(out)


def wait_for(what, predicate, procs, logs, timeout_s):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        for p in procs:
            if p.poll() is not None:
                raise Failed("%s: a process exited (rc %s) while waiting for %s\n%s" %
                             (" ".join(p.args[:5]), p.returncode, what, log_tail(logs)))
        time.sleep(0.25)
    raise Failed("timed out after %d s waiting for %s\n%s" % (timeout_s, what, log_tail(logs)))


def studies_started(log):
    """Distinct jobs whose study a worker started, evaluating the objective itself."""
    jobs = set()
    for line in open(log, errors="replace"):
        if "event=study_start " in line and "evaluates=worker" in line:
            jobs.update(w for w in line.split() if w.startswith("job="))
    return len(jobs)


def run(build, hosts, per_host, n_batches, layout, work):
    """One measurement: returns a dict of what it measured; raises Failed."""
    os.makedirs(work)
    db = os.path.join(work, "arena.sqlite")
    bbo = os.path.join(build, "client", "bbo")
    tokens = {}
    for kind, name in (("team", "bench"), ("worker", "bench-hosts")):
        tokens[kind] = os.path.join(work, kind + ".token")
        out = sh([bbo, "admin", "--db", db, kind, "add", name]).stdout.strip()
        with open(tokens[kind], "w") as f:
            f.write(out + "\n")
    port_file = os.path.join(work, "port")
    logs = [os.path.join(work, "server.log")]
    server = spawn([os.path.join(build, "server", "bbo-server"),
                    "--listen=%s:0" % COORDINATOR_IP, "--insecure", "--db=" + db,
                    "--port_file=" + port_file, "--suite=ml", "--problems=" + ",".join(PROBLEMS),
                    "--baseline_trials=0", "--default_trials=1", "--n_batches=%d" % n_batches],
                   logs[0], preexec_fn=lambda: os.nice(COORDINATOR_NICE))
    procs = [server]
    try:
        wait_for("bbo-server's port", lambda: os.path.exists(port_file), procs, logs, 120)
        target = "%s:%s" % (COORDINATOR_IP, open(port_file).read().strip())
        for i in range(1, hosts + 1):
            logs.append(os.path.join(work, "worker%d.log" % i))
            procs.append(spawn(
                ["ip", "netns", "exec", ns(i), os.path.join(build, "worker", "bbo-worker"),
                 "--coordinator=" + target, "--insecure", "--token_file=" + tokens["worker"],
                 "--work_dir=" + os.path.join(work, "host%d" % i), "--cgroups=off",
                 "--slots=1", "--eval_slots=1"],
                logs[-1], preexec_fn=move_into(host_groups(i, layout))))
        wait_for("%d workers to register" % hosts,
                 lambda: query(db, "SELECT COUNT(*) FROM workers")[0][0] >= hosts,
                 procs, logs, 60)
        studies = per_host * hosts
        trials = studies // len(PROBLEMS)
        server_cpu0, busy0, t0 = proc_cpu_s(server.pid), machine_busy_s(), time.monotonic()
        host0 = [host_cpu_s(i, layout) for i in range(1, hosts + 1)]
        sh([bbo, "--token_file", tokens["team"], "submit",
            os.path.join(build, "examples", "random-search-cpp"), "--name", "random-search-cpp",
            "--trials", str(trials), "--server", target, "--insecure"])

        def finished():
            (total, open_), = query(db, "SELECT COUNT(*), SUM(state NOT IN ('done', 'failed'))"
                                        " FROM jobs")
            return total == studies and open_ == 0
        wait_for("%d studies" % studies, finished, procs, logs, 600)
        elapsed = time.monotonic() - t0
        server_cpu = proc_cpu_s(server.pid) - server_cpu0
        busy = machine_busy_s() - busy0
        host_cpu = sum(host_cpu_s(i, layout) - host0[i - 1] for i in range(1, hosts + 1))
    finally:
        stop(procs[1:])  # the workers first: they hand their leases back to the coordinator
        stop(procs[:1])
    done = query(db, "SELECT COUNT(*), MIN(s.started_at), MAX(s.ended_at) FROM studies s JOIN"
                     " jobs j ON j.id = s.job_id WHERE s.state = 'completed' AND"
                     " s.batches_done = ? AND j.state = 'done'", (n_batches,))[0]
    if done[0] != studies:
        bad = query(db, "SELECT s.problem, s.trial, s.state, s.batches_done, s.end_reason FROM"
                        " studies s WHERE s.state != 'completed' OR s.batches_done != ?"
                        " LIMIT 5", (n_batches,))
        raise Failed("N=%d: %d of %d studies completed all %d batches; e.g. %r (logs in %s)" %
                     (hosts, done[0], studies, n_batches, bad, work))
    # The jobs table forgets the worker once a job is done; the workers' logs say who ran what.
    per_worker = [studies_started(log) for log in logs[1:]]
    if min(per_worker) == 0:
        raise Failed("N=%d: a host ran no study evaluating on the worker (%r)" %
                     (hosts, per_worker))
    wall = done[2] - done[1]
    return {"hosts": hosts, "studies": studies, "wall": wall, "elapsed": elapsed,
            "rate": studies / (wall / 3600) / (hosts * HOST_CORES),
            "server_cpu": server_cpu, "host_cpu": host_cpu,
            "other": max(0.0, busy - server_cpu - host_cpu) / elapsed,
            "per_worker": per_worker}


def report(results, mode, n_batches):
    base = results[0]["rate"]
    print("hosts_scaling_bench: random-search-cpp, %d x 8 per study, on %s; one coordinator, "
          "N hosts of %.1f core each (cgroup quota), network namespaces, %d cores here" %
          (n_batches, ",".join(PROBLEMS), HOST_CORES, CORES))
    print("%2s %8s %7s %16s %10s %16s %12s %11s %11s %12s  %s" %
          ("N", "studies", "wall s", "studies/h/hcore", "ratio N=1", "coord CPU share",
           "coord CPU s", "host CPU s", "quota used", "other cores", "studies per host"))
    for r in results:
        print("%2d %8d %7.1f %16.1f %10.3f %15.2f%% %12.2f %11.1f %10.0f%% %12.2f  %s" %
              (r["hosts"], r["studies"], r["wall"], r["rate"], r["rate"] / base,
               100 * r["server_cpu"] / r["host_cpu"], r["server_cpu"], r["host_cpu"],
               100 * r["host_cpu"] / (r["elapsed"] * r["hosts"] * HOST_CORES), r["other"],
               "/".join(str(n) for n in r["per_worker"])))
    last = results[-1]
    ratio = last["rate"] / base
    if mode == "full":
        print("N=%d / N=1 = %.3f (goal >= %.1f)" % (last["hosts"], ratio, GOAL))
        if ratio < GOAL:
            raise Failed("N=%d / N=1 = %.3f < %.1f" % (last["hosts"], ratio, GOAL))
    else:
        print("N=%d / N=1 = %.3f (smoke: the goal, N=4 / N=1 >= %.1f, is checked by a full run)"
              % (last["hosts"], ratio, GOAL))


STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGALRM)


def on_signal(signum, frame):
    for s in STOP_SIGNALS:
        signal.signal(s, signal.SIG_IGN)  # one stop; the cleanup is not interrupted
    raise Stop("signal %d%s" % (signum, ", the time limit" if signum == signal.SIGALRM else ""))


def main():
    if sys.argv[1:] == ["--cleanup"]:
        cleanup()
        return 0
    build, mode = sys.argv[1], sys.argv[2]
    host_counts, per_host, n_batches = CONFIGS[mode]
    for s in STOP_SIGNALS:
        # The wrapper starts this in the background (SIGINT ignored) and forwards Ctrl-C as
        # SIGTERM; run by hand, Ctrl-C stops it too.
        if signal.getsignal(s) != signal.SIG_IGN:
            signal.signal(s, on_signal)
    signal.alarm(900 if mode == "full" else 170)  # the whole run, setup and cleanup included
    layout = cgroup_layout()
    if layout is None:
        print("hosts_scaling_bench: SKIPPED: no cgroup cpu controller (v1 cpu+cpuacct or v2 "
              "cpu) under %s" % CG_ROOT, file=sys.stderr)
        return 77
    work_root = tempfile.mkdtemp(prefix="hosts_scaling_bench_")
    os.chmod(work_root, 0o711)  # the sandbox's unprivileged user passes through to the worker
    ok = False  # True: remove work_root at the end (else its logs are kept)
    try:
        cleanup()  # whatever a killed run left
        try:
            make_network(max(host_counts))
        except Failed as e:
            print("hosts_scaling_bench: SKIPPED: cannot create network namespaces: %s" % e,
                  file=sys.stderr)
            ok = True  # nothing worth keeping
            return 77
        try:
            for i in range(1, max(host_counts) + 1):
                make_host_group(i, layout)
        except OSError as e:
            print("hosts_scaling_bench: SKIPPED: cannot create the hosts' cgroups: %s" % e,
                  file=sys.stderr)
            ok = True
            return 77
        results = []
        for hosts in host_counts:
            results.append(run(build, hosts, per_host, n_batches, layout,
                               os.path.join(work_root, "n%d" % hosts)))
        report(results, mode, n_batches)
        ok = True
        return 0
    except Failed as e:
        print("hosts_scaling_bench: FAILED: %s" % e, file=sys.stderr)
        return 1
    except Stop as e:
        print("hosts_scaling_bench: stopped (%s); cleaning up" % e, file=sys.stderr)
        return 1
    finally:
        for s in STOP_SIGNALS:
            signal.signal(s, signal.SIG_IGN)  # let the cleanup finish
        cleanup()
        if ok:
            shutil.rmtree(work_root, ignore_errors=True)
        else:
            print("hosts_scaling_bench: logs kept in %s" % work_root, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
