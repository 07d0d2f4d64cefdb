# A minimal hosting-protocol optimizer for optimizer_host tests. Behaviour by env MODE:
#   ok (default)  valid replies, points {"x0": 0.5}
#   slow          sleeps 30 s in suggest
#   dies          exits with status 3 at the second suggest
#   raises        answers suggest with an error message
#   garbage       prints non-JSON lines before each reply
#   nan           suggests NaN (Python's json writes a bare NaN literal)
import json
import os
import sys
import time

mode = os.environ.get("MODE", "ok")
count = 0
for line in sys.stdin:
    msg = json.loads(line)
    t = msg["type"]
    if mode == "garbage":
        print("hello from a stray print", flush=True)
        print("[1, 2, 3]", flush=True)
    if t == "start":
        reply = {"type": "ready", "name": "echo"}
    elif t == "suggest":
        count += 1
        if mode == "slow":
            time.sleep(30)
        if mode == "dies" and count == 2:
            sys.stderr.write("dying now\n")
            sys.exit(3)
        if mode == "raises":
            reply = {"type": "error", "message": "ValueError: no suggestion"}
        elif mode == "nan":
            reply = {"type": "suggestions", "x": [{"x0": float("nan")}] * msg["n"]}
        else:
            reply = {"type": "suggestions", "x": [{"x0": 0.5}] * msg["n"]}
    elif t == "observe":
        ys = [float(v) for v in msg["y"]]
        reply = {"type": "observed", "n_inf": sum(1 for v in ys if v == float("inf"))}
    elif t == "end":
        sys.exit(0)
    print(json.dumps(reply), flush=True)
