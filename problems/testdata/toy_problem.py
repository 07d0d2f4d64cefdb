#!/usr/bin/python3
"""A small bbo-problem/1 problem with switchable faults, for external_problem_test.

f(x, n, c, flag) = (x - 1)^2 + n + (0.5 if c == "b" else 0) + (0.25 if flag else 0);
generalization = f + 1. x == 4 answers "nan", x == -4 answers "inf".

Faults (each counts evaluate requests; N answered normally first):
  --crash-after N        exit with status 3 (after a line on stderr) on request N+1
  --kill-after N         SIGKILL itself on request N+1
  --hang-after N         on request N+1 start a grandchild `sleep 600` (pid written to
                         --grandchild-pid-file) and sleep forever
  --garbage-after N --garbage MODE   answer request N+1 with garbage:
                         text | count | type | missing | array | bare-nan | wrong-id
  --error-after N        answer request N+1 with {"error": ...}
  --stderr-flood BYTES   write BYTES of stderr on every evaluate request
  --describe MODE        invalid describe: not-json | no-name | bad-name | bad-api-config |
                         bad-protocol | bad-known-optimum | error | exit | hang
  --fail-if-exists PATH  exit 4 at start when PATH exists; create PATH otherwise
  --rename-if-exists PATH  describe itself as "toy2" when PATH exists; create PATH otherwise
  --pid-file PATH        write this process's pid to PATH at start
  --name NAME            problem name (default "toy")
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

API_CONFIG = {
    "x": {"type": "real", "space": "linear", "range": [-5, 5]},
    "n": {"type": "int", "space": "linear", "range": [0, 10]},
    "c": {"type": "cat", "values": ["a", "b"]},
    "flag": {"type": "bool"},
}


def objective(p):
    if p["x"] == 4:
        return "nan"
    if p["x"] == -4:
        return "inf"
    return (p["x"] - 1.0) ** 2 + p["n"] + (0.5 if p["c"] == "b" else 0.0) + (
        0.25 if p["flag"] else 0.0)


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def describe(name, mode):
    d = {"protocol": "bbo-problem/1", "name": name, "api_config": API_CONFIG,
         "description": "toy quadratic for tests", "known_optimum": 0.0,
         "attributes": ["unimodal", "mixed integer"], "family": "toy"}
    if mode == "not-json":
        sys.stdout.write("hello, I am not JSON\n")
        sys.stdout.flush()
        return
    if mode == "no-name":
        del d["name"]
    elif mode == "bad-name":
        d["name"] = "has space"
    elif mode == "bad-api-config":
        d["api_config"] = {"lr": {"type": "real", "space": "log", "range": [0, 1]}}
    elif mode == "bad-protocol":
        d["protocol"] = "bbo-problem/2"
    elif mode == "bad-known-optimum":
        d["known_optimum"] = "zero"
    elif mode == "error":
        d = {"error": "data set not found"}
    elif mode == "exit":
        sys.stderr.write("cannot load the model\n")
        sys.stderr.flush()
        os._exit(5)
    elif mode == "hang":
        time.sleep(3600)
    send(d)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", default="toy")
    ap.add_argument("--crash-after", type=int)
    ap.add_argument("--kill-after", type=int)
    ap.add_argument("--hang-after", type=int)
    ap.add_argument("--grandchild-pid-file")
    ap.add_argument("--garbage-after", type=int)
    ap.add_argument("--garbage", default="text")
    ap.add_argument("--error-after", type=int)
    ap.add_argument("--stderr-flood", type=int, default=0)
    ap.add_argument("--describe", default="")
    ap.add_argument("--fail-if-exists")
    ap.add_argument("--rename-if-exists")
    ap.add_argument("--pid-file")
    args = ap.parse_args()
    if args.rename_if_exists:
        if os.path.exists(args.rename_if_exists):
            args.name = "toy2"
        open(args.rename_if_exists, "w").close()
    if args.fail_if_exists:
        if os.path.exists(args.fail_if_exists):
            sys.stderr.write("refusing to start again\n")
            sys.exit(4)
        open(args.fail_if_exists, "w").close()
    if args.pid_file:
        with open(args.pid_file, "w") as f:
            f.write(str(os.getpid()))
    answered = 0
    for line in sys.stdin:
        req = json.loads(line)
        kind = req["type"]
        if kind == "describe":
            describe(args.name, args.describe)
            continue
        if kind == "exit":
            return
        assert kind == "evaluate", kind
        if args.stderr_flood:
            sys.stderr.write("e" * args.stderr_flood)
            sys.stderr.flush()
        if args.crash_after is not None and answered == args.crash_after:
            sys.stderr.write("toy: simulated crash\n")
            sys.stderr.flush()
            os._exit(3)
        if args.kill_after is not None and answered == args.kill_after:
            os.kill(os.getpid(), signal.SIGKILL)
        if args.hang_after is not None and answered == args.hang_after:
            child = subprocess.Popen(["/bin/sleep", "600"])
            if args.grandchild_pid_file:
                with open(args.grandchild_pid_file + ".tmp", "w") as f:
                    f.write(str(child.pid))
                os.rename(args.grandchild_pid_file + ".tmp", args.grandchild_pid_file)
            time.sleep(3600)
        values = [objective(p) for p in req["points"]]
        reply = {"id": req["id"], "values": values, "generalization": [
            v if isinstance(v, str) else v + 1.0 for v in values]}
        if args.garbage_after is not None and answered == args.garbage_after:
            mode = args.garbage
            if mode == "text":
                sys.stdout.write("Traceback: something printed to stdout\n")
                sys.stdout.flush()
                answered += 1
                continue
            if mode == "count":
                reply["values"] = values + [1.0]
            elif mode == "type":
                reply["values"] = ["abc"] + values[1:]
            elif mode == "missing":
                del reply["values"]
            elif mode == "array":
                sys.stdout.write("[1, 2, 3]\n")
                sys.stdout.flush()
                answered += 1
                continue
            elif mode == "bare-nan":
                sys.stdout.write('{"values": [NaN]}\n')
                sys.stdout.flush()
                answered += 1
                continue
            elif mode == "wrong-id":
                reply["id"] = req["id"] + 100
        if args.error_after is not None and answered == args.error_after:
            reply = {"id": req["id"], "error": "model fit failed: singular matrix"}
        answered += 1
        send(reply)


if __name__ == "__main__":
    main()
