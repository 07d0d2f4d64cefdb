#!/usr/bin/python3
"""Structural checks of the worker deployments that need no cluster: deploy/k8s (the base and
its autoscaling components), deploy/slurm and deploy/htcondor. A schema check is out of reach
offline (kubectl asks an API server even with --dry-run=client --validate=false; kubeconform is
not packaged), so this checks the keys the objects need and what ties the files together: the
flags exist in worker/main.cc, the autoscalers read gauges server/metrics.cc serves, their
target is the worker's --slots, the grace before SIGKILL covers --drain_timeout_s, and memory
and CPU cover the phases' optimizer limits per slot plus the scikit-learn problems a worker
evaluates (deploy/competition.json's largest phase). The HTCondor submit file gets a syntax
check (key = value lines and one final queue statement), since condor_submit -dry-run needs
HTCondor. Usage: check-manifests.py k8s|slurm|htcondor. Exits 1 with one line per problem.
Run by deploy/lint.sh."""

import glob
import json
import os
import re
import sys

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
K8S = os.path.join(ROOT, "deploy", "k8s")
# The worker stops on SIGTERM within --drain_timeout_s; handing a study back then takes the
# optimizer's 2 s to exit and one call retried up to 30 s with a 60 s deadline per attempt.
HAND_BACK_S = 100
WORKER_MIB = 512  # the worker process, beside slots x the optimizer's memory limit
# A scikit-learn problem's Python process (RSS after an MLP evaluation on digits, measured). A
# worker keeps one per problem it evaluated and per evaluation slot that ran it at once.
PROBLEM_PROCESS_MIB = 120
BATCH_SIZE = 8  # no more evaluations of one problem run at once on a worker than a batch has
SKLEARN_SUITE_SIZE = 108  # problems of the sklearn suite (README.md's table)
KNOWN_KINDS = {
    ("v1", "Namespace"), ("v1", "Secret"), ("v1", "Service"), ("v1", "ConfigMap"),
    ("apps/v1", "Deployment"), ("apps/v1", "StatefulSet"),
    ("networking.k8s.io/v1", "NetworkPolicy"),
    ("autoscaling/v2", "HorizontalPodAutoscaler"),
    ("keda.sh/v1alpha1", "ScaledObject"),
    ("monitoring.coreos.com/v1", "ServiceMonitor"),
    ("kustomize.config.k8s.io/v1beta1", "Kustomization"),
    ("kustomize.config.k8s.io/v1alpha1", "Component"),
}

problems = []


def problem(where, what):
    problems.append(f"{os.path.relpath(where, ROOT)}: {what}")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def metric_names():
    """The series bbo-server's /metrics serves (server/metrics.cc)."""
    text = read(os.path.join(ROOT, "server", "metrics.cc"))
    return set(re.findall(r'gauge\("(bbo_\w+)"', text)) | set(re.findall(r"# TYPE (bbo_\w+)", text))


def worker_flags():
    text = read(os.path.join(ROOT, "worker", "main.cc"))
    return set(re.findall(r"ABSL_FLAG\(\s*[\w:]+\s*,\s*(\w+)\s*,", text))


def optimizer_limits():
    """The largest --optimizer_memory_mb and --optimizer_cpus of any phase (4096 MiB, 1 core by
    default)."""
    memory, cpus = [4096], [1.0]
    for path in glob.glob(os.path.join(ROOT, "deploy", "phases", "*.flags")):
        text = read(path)
        memory += [int(v) for v in re.findall(r"^--optimizer_memory_mb=(\d+)", text, re.M)]
        cpus += [float(v) for v in re.findall(r"^--optimizer_cpus=([\d.]+)", text, re.M)]
    return max(memory), max(cpus)


def worker_problems():
    """The scikit-learn problems of the largest phase a worker evaluates, in deploy/phases and
    deploy/competition.json (phases evaluated on the coordinator left out)."""
    counts = [0]
    for path in glob.glob(os.path.join(ROOT, "deploy", "phases", "*.flags")):
        text = read(path)
        if re.search(r"^--suite=sklearn$", text, re.M) and "--evaluate_on_coordinator" not in text:
            counts.append(SKLEARN_SUITE_SIZE)
    text = read(os.path.join(ROOT, "deploy", "competition.json"))
    competition = json.loads(re.sub(r"^\s*//.*$", "", text, flags=re.M))  # `//` comment lines
    for phase in competition["phases"]:
        if phase.get("suite") == "sklearn" and phase.get("evaluate_on") != "coordinator":
            counts.append(len(phase.get("problems", [])) or SKLEARN_SUITE_SIZE)
    return max(counts)


def memory_needed(slots, eval_slots, memory_mib):
    """MiB a worker process with `slots` studies needs at most (docs/organizers.md, "Sizing a
    worker")."""
    processes = worker_problems() * min(eval_slots, BATCH_SIZE)
    return slots * memory_mib + WORKER_MIB + processes * PROBLEM_PROCESS_MIB


def check_flags(where, flags, known):
    for name in flags:
        if name.replace("-", "_") not in known:
            problem(where, f"bbo-worker has no flag --{name} (worker/main.cc)")


def check_query(where, query, gauges):
    used = set(re.findall(r"\b(bbo_\w+)", query))
    for name in sorted(used - gauges):
        problem(where, f"query reads {name}, which server/metrics.cc does not serve")
    for name in ("bbo_jobs_queued", "bbo_jobs_leased"):
        if name not in used:
            problem(where, f"query leaves out {name} (demand = queued + leased jobs)")


def mebibytes(quantity, unit=""):
    """MiB of a Kubernetes quantity (5Gi, 512Mi; no suffix: bytes), or with `unit` "Mi" of a
    Slurm or HTCondor size (17G, 17408M, 2GB; no suffix: MiB). None when unreadable."""
    m = re.fullmatch(r"(\d+)\s*([KMGT]?)(i?)B?", str(quantity))
    if not m:
        return None
    if not m.group(2):
        return int(m.group(1)) / (1 if unit == "Mi" else 2**20)
    power = "KMGT".index(m.group(2)) + 1
    base = 1024 if m.group(3) or unit == "Mi" else 1000
    return int(m.group(1)) * base**power / 2**20


def cores(quantity):
    s = str(quantity)
    return int(s[:-1]) / 1000 if s.endswith("m") else float(s)


# ---------------------------------------------------------------------------------- Kubernetes

def load_k8s():
    """{path: [documents]} of every YAML file under deploy/k8s."""
    files = {}
    for path in sorted(glob.glob(os.path.join(K8S, "**", "*.yaml"), recursive=True)):
        try:
            files[path] = [d for d in yaml.safe_load_all(read(path)) if d is not None]
        except yaml.YAMLError as e:
            problem(path, f"not YAML: {e}")
    return files


def check_kustomizations(files):
    """Every path a kustomization names exists, and every object file is named by one (or
    offered in a comment of one, as an optional resource)."""
    named = set()
    for path, docs in files.items():
        if os.path.basename(path) != "kustomization.yaml":
            continue
        (k,) = docs
        here = os.path.dirname(path)
        entries = k.get("resources", []) + k.get("components", [])
        entries += [p["path"] for p in k.get("patches", []) + k.get("patchesJson6902", [])]
        for entry in entries:
            target = os.path.normpath(os.path.join(here, entry))
            if not os.path.exists(target):
                problem(path, f"names {entry}, which does not exist")
            named.add(target)
        # Optional entries, offered commented out: `#   - servicemonitor.yaml`.
        for entry in re.findall(r"^\s*#\s+-\s+([\w./-]+)\s*(?:#.*)?$", read(path), re.M):
            target = os.path.normpath(os.path.join(here, entry))
            if not os.path.exists(target):
                problem(path, f"offers {entry}, which does not exist")
            named.add(target)
    for path, docs in files.items():
        is_object_file = any(isinstance(d, dict) and "kind" in d for d in docs)
        if is_object_file and os.path.basename(path) != "kustomization.yaml" and path not in named:
            problem(path, "no kustomization names it")


def check_objects(files):
    for path, docs in files.items():
        for d in docs:
            if not isinstance(d, (dict, list)):
                problem(path, "a document that is neither a mapping nor a list")
            if not isinstance(d, dict) or "kind" not in d:
                continue  # a JSON patch, or Helm values (no kind)
            if (d.get("apiVersion"), d["kind"]) not in KNOWN_KINDS:
                problem(path, f"unexpected apiVersion/kind {d.get('apiVersion')}/{d['kind']}")
            if d["kind"] not in ("Kustomization", "Component") and not d.get("metadata", {}).get("name"):
                problem(path, f"{d['kind']} without metadata.name")


def objects(files, kind):
    return [(p, d) for p, docs in files.items() for d in docs
            if isinstance(d, dict) and d.get("kind") == kind]


def one(files, kind, name):
    found = [(p, d) for p, d in objects(files, kind) if d["metadata"]["name"] == name]
    if len(found) != 1:
        problem(K8S, f"expected one {kind} {name}, found {len(found)}")
        return None, None
    return found[0]


def flag_values(args):
    return dict(re.match(r"--([\w-]+)(?:=(.*))?$", a).groups() for a in args[1:] if a.startswith("--"))


def check_worker(path, deployment, memory_mib, cpus):
    """Returns the worker's --slots."""
    pod = deployment["spec"]["template"]["spec"]
    (c,) = pod["containers"]
    args = c.get("args", [])
    if "command" in c or not args or args[0] != "bbo-worker":
        problem(path, "bbo-worker must be the container's first process: args starting with "
                      "bbo-worker, no command (SIGTERM goes to it directly)")
    flags = flag_values(args)
    check_flags(path, flags, worker_flags())
    slots = int(flags.get("slots", 1))
    if flags.get("eval_slots") != str(slots):
        problem(path, "--eval_slots must equal --slots (without it the worker counts the node's "
                      "cores, not the pod's)")
    if "exit_when_idle_s" in flags:
        problem(path, "--exit_when_idle_s in a Deployment: the container would be restarted")
    if "preStop" in c.get("lifecycle", {}):
        problem(path, "a preStop hook delays the SIGTERM the worker drains on")
    drain = flags.get("drain_timeout_s")
    grace = pod.get("terminationGracePeriodSeconds", 30)
    if drain is None:
        problem(path, "no --drain_timeout_s")
    elif grace < float(drain) + HAND_BACK_S:
        problem(path, f"terminationGracePeriodSeconds {grace} < --drain_timeout_s {drain} + "
                      f"{HAND_BACK_S} s to hand a study back")
    if not c.get("securityContext", {}).get("privileged"):
        problem(path, "the worker needs a privileged container (bubblewrap, cgroups, tmpfs)")
    res = c.get("resources", {})
    if res.get("requests") != res.get("limits"):
        problem(path, "worker requests differ from limits (Guaranteed QoS expected)")
    limits = res.get("limits", {})
    need_mib = memory_needed(slots, slots, memory_mib)
    if (mebibytes(limits.get("memory", 0)) or 0) < need_mib:
        problem(path, f"memory limit {limits.get('memory')} < {need_mib} MiB for {slots} slots")
    if cores(limits.get("cpu", 0)) < slots * cpus:
        problem(path, f"cpu limit {limits.get('cpu')} < {slots} slots x {cpus} cores")
    return slots


def check_coordinator_metrics(files):
    path, sts = one(files, "StatefulSet", "bbo-coordinator")
    if sts is None:
        return None
    (c,) = sts["spec"]["template"]["spec"]["containers"]
    listen = flag_values(c["args"]).get("metrics_listen", "")
    port = int(listen.rsplit(":", 1)[1]) if ":" in listen else None
    ports = {p.get("name"): p["containerPort"] for p in c.get("ports", [])}
    if port is None or ports.get("metrics") != port:
        problem(path, f"--metrics_listen {listen!r} and the container port 'metrics' differ")
    spath, svc = one(files, "Service", "bbo-coordinator-metrics")
    if svc is not None and [(p["port"], p["targetPort"]) for p in svc["spec"]["ports"]] != [(port, "metrics")]:
        problem(spath, f"expected one port {port} -> targetPort metrics")
    return port, svc


def check_scrape_access(files, port, svc):
    npath, policy = one(files, "NetworkPolicy", "bbo-coordinator-metrics")
    if policy is not None:
        opened = [p["port"] for rule in policy["spec"]["ingress"] for p in rule["ports"]]
        if opened != [port]:
            problem(npath, f"opens {opened}, not the metrics port {port}")
    for mpath, monitor in objects(files, "ServiceMonitor"):
        labels = svc["metadata"]["labels"] if svc else {}
        selector = monitor["spec"]["selector"]["matchLabels"]
        if any(labels.get(k) != v for k, v in selector.items()):
            problem(mpath, "its selector does not match Service bbo-coordinator-metrics")
        if [e.get("port") for e in monitor["spec"]["endpoints"]] != ["metrics"]:
            problem(mpath, "expected one endpoint on port 'metrics'")


def check_replicas_patch(files):
    path = os.path.join(K8S, "autoscaling", "common", "kustomization.yaml")
    (k,) = files.get(path, [{}])
    removes = [p for p in k.get("patches", []) if p.get("target", {}).get("name") == "bbo-worker"]
    ops = [files.get(os.path.join(os.path.dirname(path), p["path"]), [[]])[0] for p in removes]
    if [{"op": "remove", "path": "/spec/replicas"}] not in ops:
        problem(path, "the autoscaling components must drop the worker Deployment's replicas")


def check_scaled_object(files, slots, gauges):
    for path, so in objects(files, "ScaledObject"):
        spec = so["spec"]
        if spec["scaleTargetRef"].get("kind", "Deployment") != "Deployment" or \
                spec["scaleTargetRef"]["name"] != "bbo-worker":
            problem(path, "scaleTargetRef is not the Deployment bbo-worker")
        if not spec.get("minReplicaCount", 0) <= spec.get("maxReplicaCount", 100):
            problem(path, "minReplicaCount > maxReplicaCount")
        for t in spec["triggers"]:
            meta = t.get("metadata", {})
            if t["type"] != "prometheus":
                problem(path, f"trigger type {t['type']}, expected prometheus")
            for key in ("serverAddress", "query", "threshold"):
                if key not in meta:
                    problem(path, f"prometheus trigger without {key}")
            for key, value in meta.items():
                if not isinstance(value, str):
                    problem(path, f"trigger metadata {key} must be a string, got {value!r}")
            check_query(path, meta.get("query", ""), gauges)
            if float(meta.get("threshold", 0)) != slots:
                problem(path, f"threshold {meta.get('threshold')} is not the worker's --slots {slots}")
            if meta.get("ignoreNullValues") != "false":
                problem(path, 'ignoreNullValues must be "false": a lost series is not an empty queue')


def check_hpa(files, slots, gauges):
    external = {}
    for path, docs in files.items():
        for d in docs:
            if isinstance(d, dict) and "rules" in d and "kind" not in d:  # prometheus-adapter values
                for rule in d["rules"].get("external", []):
                    for key in ("seriesQuery", "metricsQuery", "name", "resources"):
                        if key not in rule:
                            problem(path, f"external rule without {key}")
                    check_query(path, rule.get("metricsQuery", ""), gauges)
                    if "<<.LabelMatchers>>" not in rule.get("metricsQuery", ""):
                        problem(path, "metricsQuery without <<.LabelMatchers>> (the namespace)")
                    external[rule.get("name", {}).get("as")] = path
    for path, hpa in objects(files, "HorizontalPodAutoscaler"):
        spec = hpa["spec"]
        ref = spec["scaleTargetRef"]
        if (ref.get("apiVersion"), ref.get("kind"), ref.get("name")) != ("apps/v1", "Deployment", "bbo-worker"):
            problem(path, "scaleTargetRef is not apps/v1 Deployment bbo-worker")
        if not 1 <= spec.get("minReplicas", 1) <= spec["maxReplicas"]:
            problem(path, "expected 1 <= minReplicas <= maxReplicas")
        for m in spec["metrics"]:
            name = m.get("external", {}).get("metric", {}).get("name")
            if m["type"] != "External" or name not in external:
                problem(path, f"metric {name!r} is not an External metric of the adapter's rules")
            target = m.get("external", {}).get("target", {})
            if target.get("type") != "AverageValue" or float(target.get("averageValue", 0)) != slots:
                problem(path, f"target must be AverageValue = the worker's --slots {slots}")
        if "stabilizationWindowSeconds" not in spec.get("behavior", {}).get("scaleDown", {}):
            problem(path, "no scale-down stabilization window")


def check_k8s():
    files = load_k8s()
    check_kustomizations(files)
    check_objects(files)
    memory_mib, cpus = optimizer_limits()
    path, worker = one(files, "Deployment", "bbo-worker")
    slots = check_worker(path, worker, memory_mib, cpus) if worker else 1
    gauges = metric_names()
    metrics = check_coordinator_metrics(files)
    if metrics:
        check_scrape_access(files, *metrics)
    check_replicas_patch(files)
    check_scaled_object(files, slots, gauges)
    check_hpa(files, slots, gauges)
    return worker


def k8s_drain():
    files = load_k8s()
    _, worker = one(files, "Deployment", "bbo-worker")
    (c,) = worker["spec"]["template"]["spec"]["containers"]
    return int(flag_values(c["args"])["drain_timeout_s"])


# --------------------------------------------------------------------------------------- Slurm

def script_flags(text):
    """The --flags a script's argument array passes to bbo-worker."""
    return set(re.findall(r'^\s*"--([\w-]+)=', text, re.M))


def check_slurm():
    path = os.path.join(ROOT, "deploy", "slurm", "bbo-workers.sbatch")
    text = read(path)
    sbatch = dict(re.findall(r"^#SBATCH --([\w-]+)(?:=(\S+))?", text, re.M))
    for key in ("array", "cpus-per-task", "mem", "time", "signal"):
        if key not in sbatch:
            problem(path, f"no #SBATCH --{key}")
    signal = re.fullmatch(r"B:(?:SIG)?TERM@(\d+)", sbatch.get("signal", ""))
    if not signal:
        problem(path, "expected #SBATCH --signal=B:TERM@SECONDS (the batch shell forwards it)")
    drain = int(re.search(r"BBO_DRAIN_TIMEOUT_S:-(\d+)", text).group(1))
    if signal and int(signal.group(1)) < drain + HAND_BACK_S:
        problem(path, f"--signal lead {signal.group(1)} s < drain {drain} + {HAND_BACK_S} s")
    if drain != k8s_drain():
        problem(path, f"drain {drain} s differs from deploy/k8s/worker.yaml's")
    memory_mib, cpus = optimizer_limits()
    slots = int(int(sbatch.get("cpus-per-task", 1)) / cpus)
    need = memory_needed(slots, slots, memory_mib)
    if (mebibytes(sbatch.get("mem", "0"), unit="Mi") or 0) < need:
        problem(path, f"--mem {sbatch.get('mem')} < {need} MiB for {slots} slots")
    flags = script_flags(text)
    check_flags(path, flags, worker_flags())
    for name in ("slots", "eval_slots", "token_file", "ca_file", "exit_when_idle_s",
                 "drain_timeout_s"):
        if name not in flags:
            problem(path, f"bbo-worker is not given --{name}")
    if '"--slots=$slots"' not in text or '"--eval_slots=$slots"' not in text or \
            "SLURM_CPUS_PER_TASK" not in text:
        problem(path, "--slots and --eval_slots must come from SLURM_CPUS_PER_TASK")
    # Forwarded as SIGUSR1 (a drain) to a worker whose own SIGTERM hands back (plain scancel).
    if not re.search(r"^trap .*kill -USR1 .* TERM", text, re.M) or 'wait "$worker_pid"' not in text \
            or '"--on_sigterm=hand_back"' not in text:
        problem(path, "SIGTERM must be trapped and forwarded to the worker as SIGUSR1 (with "
                      "--on_sigterm=hand_back), then waited for")


# ------------------------------------------------------------------------------------ HTCondor

# Submit commands this file may use (condor_submit(1)); custom macros are UPPER_CASE.
SUBMIT_COMMANDS = {
    "universe", "executable", "arguments", "environment", "getenv", "input", "output", "error",
    "log", "request_cpus", "request_memory", "request_disk", "requirements", "rank",
    "kill_sig", "remove_kill_sig", "hold_kill_sig", "job_max_vacate_time",
    "max_job_retirement_time", "want_graceful_removal", "should_transfer_files",
    "when_to_transfer_output", "transfer_input_files", "transfer_executable",
    "encrypt_input_files", "initialdir", "notification", "on_exit_remove", "max_retries",
    "periodic_remove", "job_batch_name", "priority", "accounting_group",
}
BUILTIN_MACROS = {"Cluster", "ClusterId", "Process", "ProcId", "Item", "Step", "Row", "Node"}


def parse_submit(path):
    """{key: value} of a submit file, and its queue statement; syntax problems reported."""
    values, queue, pending = {}, None, ""
    for number, raw in enumerate(read(path).splitlines(), 1):
        line = pending + raw.strip()
        pending = ""
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if not line or line.startswith("#"):
            continue
        if queue is not None:
            problem(path, f"line {number}: nothing may follow the queue statement")
        m = re.fullmatch(r"([A-Za-z_+][\w.]*)\s*=\s*(.*)", line)
        if re.fullmatch(r"queue(\s+\d+)?", line, re.I):
            queue = line
        elif not m:
            problem(path, f"line {number}: neither `key = value` nor a queue statement: {line}")
        elif m.group(1) in values:
            problem(path, f"line {number}: {m.group(1)} set twice")
        else:
            key = m.group(1)
            if not (key in SUBMIT_COMMANDS or key.isupper() or key.startswith("+")):
                problem(path, f"line {number}: unknown submit command {key}")
            if key == "arguments" or key == "environment":
                if not re.fullmatch(r'"[^"]*"', m.group(2)):
                    problem(path, f"line {number}: {key} must be in double quotes (new syntax)")
            values[key] = m.group(2)
    if pending:
        problem(path, "ends with a continuation line")
    if queue is None:
        problem(path, "no queue statement")
    for key, value in values.items():
        for macro in re.findall(r"\$\((\w+)\)", value):
            if macro not in values and macro not in BUILTIN_MACROS:
                problem(path, f"{key} uses $({macro}), which is not defined")
    return values


def expand(values, value):
    return re.sub(r"\$\((\w+)\)", lambda m: values.get(m.group(1), m.group(0)), value)


def check_htcondor():
    folder = os.path.join(ROOT, "deploy", "htcondor")
    path = os.path.join(folder, "bbo-workers.sub")
    v = parse_submit(path)
    for key in ("universe", "executable", "arguments", "environment", "request_cpus",
                "request_memory", "kill_sig", "job_max_vacate_time", "transfer_input_files"):
        if key not in v:
            problem(path, f"no {key}")
    if v.get("kill_sig") != "SIGTERM":
        problem(path, "kill_sig must be SIGTERM (the worker drains on it)")
    if v.get("want_graceful_removal", "").lower() != "true":
        problem(path, "want_graceful_removal = true, or condor_rm kills without a drain")
    drain = int(v.get("DRAIN_TIMEOUT_S", 0))
    if int(v.get("job_max_vacate_time", 0)) < drain + HAND_BACK_S:
        problem(path, f"job_max_vacate_time < DRAIN_TIMEOUT_S {drain} + {HAND_BACK_S} s")
    if drain != k8s_drain():
        problem(path, f"DRAIN_TIMEOUT_S {drain} differs from deploy/k8s/worker.yaml's")
    memory_mib, cpus = optimizer_limits()
    slots = int(int(expand(v, v.get("request_cpus", "1"))) / cpus)
    need = memory_needed(slots, slots, memory_mib)
    if (mebibytes(v.get("request_memory", "0"), unit="Mi") or 0) < need:
        problem(path, f"request_memory {v.get('request_memory')} < {need} MiB for {slots} slots")
    arguments = expand(v, v.get("arguments", "")).strip('"').split()
    if arguments[:1] != [v.get("SLOTS")] or len(arguments) != 3:
        problem(path, "arguments must be SLOTS DRAIN_TIMEOUT_S EXIT_WHEN_IDLE_S (bbo-worker.sh)")
    wrapper = os.path.join(folder, v.get("executable", ""))
    if not os.access(wrapper, os.X_OK):
        problem(path, f"executable {v.get('executable')} is not an executable file beside it")
        return
    text = read(wrapper)
    check_flags(wrapper, script_flags(text), worker_flags())
    if '"--slots=$slots"' not in text or '"--eval_slots=$slots"' not in text:
        problem(wrapper, "--slots and --eval_slots must both be the SLOTS argument")
    if not re.search(r'^exec "\$\{BBO_WORKER', text, re.M):
        problem(wrapper, "must exec bbo-worker, so that kill_sig reaches the worker itself")
    transferred = {os.path.basename(f.strip()) for f in v.get("transfer_input_files", "").split(",")}
    for name in re.findall(r'\$scratch/([\w.]+\.(?:pem|key|token))"', text):
        if name not in transferred:
            problem(path, f"bbo-worker.sh reads {name}, which transfer_input_files leaves out")


def main():
    sections = {"k8s": check_k8s, "slurm": check_slurm, "htcondor": check_htcondor}
    if len(sys.argv) != 2 or sys.argv[1] not in sections:
        print(f"usage: {sys.argv[0]} {'|'.join(sections)}", file=sys.stderr)
        return 2
    sections[sys.argv[1]]()
    for p in problems:
        print(p)
    print(f"check-manifests {sys.argv[1]}: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
