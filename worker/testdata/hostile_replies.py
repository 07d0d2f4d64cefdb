# A hostile hosting-protocol optimizer for the worker's robustness tests: valid replies except
# where MODE says otherwise. Points are {"x0": 0.5}. MODE is "<message>_<what>", e.g.
# suggest_type_int: the reply to `suggest` is {"type": 7}.
import json
import os
import sys
import time

mode = os.environ.get("MODE", "ok")
out = sys.stdout.buffer


def put(raw):
    out.write(raw if isinstance(raw, bytes) else raw.encode())
    out.write(b"\n")
    out.flush()


def hostile(kind, n):
    """The hostile reply for this mode, or None for the valid one."""
    what = mode.split("_", 1)[1] if mode.startswith(kind + "_") else None
    if what is None:
        return None
    return {
        "type_int": lambda: '{"type": 7}',
        "type_missing": lambda: '{"x": []}',
        "type_list": lambda: '{"type": ["suggestions"]}',
        "x_string": lambda: '{"type": "suggestions", "x": "abc"}',
        "x_missing": lambda: '{"type": "suggestions"}',
        "x_object": lambda: '{"type": "suggestions", "x": {"x0": 0.5}}',
        "points_bad": lambda: '{"type": "suggestions", "x": [1, "a", null, {"x0": [1, {"y": 2}]}]}',
        "msg_obj": lambda: '{"type": "error", "message": {"a": 1}}',
        "msg_num": lambda: '{"type": "error", "message": 3}',
        "msg_10mb": lambda: '{"type": "error", "message": "' + "\u20ac" * (3 << 20) + '"}',
        "msg_60mb": lambda: '{"type": "error", "message": "' + "m" * (60 << 20) + '"}',
        "msg_badutf8": lambda: b'{"type": "error", "message": "bad \xff\xfe bytes \xc3"}',
        "line_20mb": lambda: '{"type": "suggestions", "x": [], "pad": "' + "p" * (20 << 20) + '"}',
        "deep": lambda: "[" * 100000,
        "deep_object": lambda: '{"type": "suggestions", "x": ' + "[" * 100000,
        "million": lambda: '{"type": "suggestions", "x": [' + ",".join(['{"x0": 0.5}'] * 1000000) + "]}",
        "long_key": lambda: '{"type": "suggestions", "x": [{"' + "k" * 100000 + '": 0.5}]}',
    }[what]()


if mode == "slow_start":
    pass
elif mode == "stderr_badutf8":
    sys.stderr.buffer.write(("Fehler \u20ac\u20ac\u20ac" * 2000).encode() + b"\xff\xfe\xc3\n")
    sys.stderr.flush()
    sys.exit(4)

for line in sys.stdin:
    msg = json.loads(line)
    t = msg["type"]
    if t == "start":
        if mode == "slow_start":
            time.sleep(3)
        reply = hostile("start", 0)
        put(reply if reply is not None else '{"type": "ready"}')
    elif t == "suggest":
        reply = hostile("suggest", msg["n"])
        put(reply if reply is not None else json.dumps(
            {"type": "suggestions", "x": [{"x0": 0.5}] * msg["n"]}))
    elif t == "observe":
        reply = hostile("observe", 0)
        put(reply if reply is not None else '{"type": "observed"}')
    elif t == "end":
        sys.exit(0)
