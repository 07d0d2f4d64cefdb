"""Driver of bench/ml_study_bench.sh (see there). Debian's /usr/bin/python3 with python3-sklearn."""
import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

BUILD, PROBLEM, N_BATCHES = sys.argv[1], sys.argv[2], int(sys.argv[3])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICK = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count() or 1


def fail(message):
    print("ml_study_bench: FAILED: " + message, file=sys.stderr)
    sys.exit(1)


def stat(pid):
    """(ppid, own CPU seconds, reaped children's CPU seconds) of a live process, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # After the command: state ppid ... utime(12) stime(13) cutime(14) cstime(15), 0-based here.
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK, \
        (int(fields[13]) + int(fields[14])) / TICK


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def problem_processes(parent):
    """CPU seconds of every live scikit-learn problem process whose parent is `parent`."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        s = stat(int(name))
        if s and s[0] == parent and "sklearn_pack.py" in cmdline(int(name)):
            out[int(name)] = s[1] + s[2]
    return out


def eval_cpu(parent, before):
    now = problem_processes(parent)
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in now.items())


def run(mode, work):
    """Runs one study; returns a dict of measurements."""
    db = os.path.join(work, "arena.sqlite")
    bbo = os.path.join(BUILD, "client", "bbo")
    tokens = {}
    for kind, name in (("team", "bench"), ("worker", "bench-workers")):
        tokens[kind] = subprocess.run([bbo, "admin", "--db", db, kind, "add", name], check=True,
                                      capture_output=True, text=True).stdout.strip()
    with open(os.path.join(work, "worker.token"), "w") as f:
        f.write(tokens["worker"] + "\n")
    with open(os.path.join(work, "team.token"), "w") as f:
        f.write(tokens["team"] + "\n")
    port_file = os.path.join(work, "port")
    server_cmd = [os.path.join(BUILD, "server", "bbo-server"), "--listen=127.0.0.1:0",
                  "--db=" + db, "--port_file=" + port_file, "--suite=sklearn",
                  "--problems=" + PROBLEM, "--baseline_trials=0", "--default_trials=1",
                  "--n_batches=%d" % N_BATCHES, "--eval_threads=%d" % CORES]
    if mode == "coordinator":
        server_cmd.append("--evaluate_on_coordinator")
    log = open(os.path.join(work, "server.log"), "w")
    server = subprocess.Popen(server_cmd, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)
    procs = [server]
    try:
        for _ in range(1200):
            if os.path.exists(port_file) or server.poll() is not None:
                break
            time.sleep(0.1)
        if not os.path.exists(port_file):
            fail("%s: bbo-server did not start: %s" % (mode, open(log.name).read()[-2000:]))
        target = "127.0.0.1:" + open(port_file).read().strip()
        worker = subprocess.Popen(
            [os.path.join(BUILD, "worker", "bbo-worker"), "--coordinator=" + target,
             "--work_dir=" + os.path.join(work, "worker"),
             "--token_file=" + os.path.join(work, "worker.token"), "--cgroups=auto",
             "--slots=1", "--eval_slots=%d" % CORES],
            stdout=open(os.path.join(work, "worker.log"), "w"), stderr=subprocess.STDOUT,
            start_new_session=True)
        procs.append(worker)
        time.sleep(1.0)  # registered, and (mode coordinator) the problem's process warm
        server_cpu0 = stat(server.pid)[1]
        evals0 = problem_processes(server.pid if mode == "coordinator" else worker.pid)
        subprocess.run([bbo, "--token_file", os.path.join(work, "team.token"), "submit",
                        os.path.join(ROOT, "examples", "random-search-py"), "--name", "rs",
                        "--trials", "1", "--server", target], check=True,
                       stdout=subprocess.DEVNULL)
        deadline = time.time() + 3600
        row = None
        while time.time() < deadline:
            with sqlite3.connect(db, timeout=10) as c:
                row = c.execute("SELECT id, state, batches_done, started_at, ended_at FROM studies"
                                " WHERE job_id IS NOT NULL AND state != 'abandoned'").fetchone()
            if row and row[1] != "running":
                break
            if worker.poll() is not None or server.poll() is not None:
                tails = ""
                for name in ("server.log", "worker.log"):
                    with open(os.path.join(work, name)) as f:
                        tails += "\n--- %s\n%s" % (name, f.read()[-3000:])
                fail("%s: a process exited:%s" % (mode, tails))
            time.sleep(0.5)
        if not row or row[1] != "completed" or row[2] != N_BATCHES:
            fail("%s: the study did not complete: %r (logs in %s)" % (mode, row, work))
        server_cpu = stat(server.pid)[1] - server_cpu0
        evaluation = eval_cpu(server.pid if mode == "coordinator" else worker.pid, evals0)
        with sqlite3.connect(db) as c:
            points = [(json.loads(p), v) for (p, v) in c.execute(
                "SELECT params_json, value FROM evaluations WHERE study_id = ? ORDER BY batch, idx",
                (row[0],))]
            optimizer_s = c.execute("SELECT SUM(turn_time_s), SUM(host_suggest_time_s + "
                                    "host_observe_time_s) FROM batches WHERE study_id = ?",
                                    (row[0],)).fetchone()
        return {"wall": row[4] - row[3], "server_cpu": server_cpu, "eval_cpu": evaluation,
                "points": points, "charged": optimizer_s[0], "host": optimizer_s[1]}
    finally:
        for p in reversed(procs):
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except OSError:
                pass
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)


def serial(points):
    """Evaluates the study's (point, value) pairs one after another in one process, as Bayesmark's
    run_study does; returns the seconds it took. An evaluation may raise only where the study
    recorded a crash (+inf) too: any other exception fails the run, since a baseline that skipped
    work would make the ratio a figure of nothing."""
    sys.path.insert(0, os.path.join(ROOT, "python", "problems"))
    import sklearn_pack  # noqa: E402
    p = sklearn_pack.SklearnProblem(PROBLEM, random_state=0, shuffle_seed=0)
    start = time.monotonic()
    for i, (x, study_value) in enumerate(points):
        try:
            p.evaluate(x)
        except Exception as e:  # noqa: BLE001 - reported, never swallowed
            if not math.isinf(study_value):
                fail("serial baseline: evaluation %d of %d raised %s: %s, where the study got %r" %
                     (i, len(points), type(e).__name__, e, study_value))
    return time.monotonic() - start


def main():
    with tempfile.TemporaryDirectory(prefix="ml_study_bench_") as tmp:
        # The sandbox's unprivileged user must traverse it to reach the worker's folders.
        os.chmod(tmp, 0o711)
        results = {}
        for mode in ("worker", "coordinator"):
            work = os.path.join(tmp, mode)
            os.makedirs(work)
            results[mode] = run(mode, work)
        serial_s = serial(results["worker"]["points"])
    a, b = results["worker"], results["coordinator"]
    if a["eval_cpu"] <= 0 or b["eval_cpu"] <= 0:
        fail("no evaluation CPU measured (problem processes not found)")
    wall_ratio = a["wall"] / serial_s
    share_after = a["server_cpu"] / a["eval_cpu"]
    share_before = b["server_cpu"] / b["eval_cpu"]
    print("ml_study_bench: one random-search study of %d x 8 on %s, %d cores" %
          (N_BATCHES, PROBLEM, CORES))
    print("  serial evaluation of its %d points in one process: %.1f s" %
          (len(a["points"]), serial_s))
    print("  study wall time, worker evaluates in parallel: %.1f s = %.2fx serial (goal <= 0.6x)"
          % (a["wall"], wall_ratio))
    print("  coordinator CPU per study / evaluation CPU: before (coordinator evaluates) %.3f s / "
          "%.1f s = %.1f%%; after (worker evaluates) %.3f s / %.1f s = %.2f%% (goal <= 1%%)" %
          (b["server_cpu"] + b["eval_cpu"], b["eval_cpu"],
           100 * (b["server_cpu"] + b["eval_cpu"]) / b["eval_cpu"], a["server_cpu"],
           a["eval_cpu"], 100 * share_after))
    print("  optimizer time charged: %.3f s; the worker measured %.3f s of suggest + observe" %
          (a["charged"], a["host"]))
    del share_before
    missed = []
    if N_BATCHES >= 16 and wall_ratio > 0.6:
        missed.append("wall ratio %.2f > 0.6" % wall_ratio)
    if N_BATCHES >= 16 and share_after > 0.01:
        missed.append("coordinator share %.2f%% > 1%%" % (100 * share_after))
    if abs(a["charged"] - a["host"]) > 0.1:
        missed.append("charged %.3f s is not within 0.1 s of the optimizer's %.3f s" %
                      (a["charged"], a["host"]))
    if missed:
        fail("; ".join(missed))


if __name__ == "__main__":
    main()
