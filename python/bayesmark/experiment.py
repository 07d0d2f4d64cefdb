"""experiment_main: runs an optimizer class under bbo-arena's hosting protocol.

The worker starts ``optimizer.py`` in the sandbox; ``experiment_main(MyOptimizer)`` at the end of
the file then serves the protocol of docs/hosting-protocol.md on stdin/stdout: JSON lines
``start`` -> ``ready``; ``suggest`` -> ``suggestions``; ``observe`` -> ``observed``; ``end``.

Standard output is reserved for the protocol: before anything else the real stdout is set
aside and ``sys.stdout`` (and file descriptor 1) are pointed at stderr, so stray ``print()``
calls in participant code land in the log instead of corrupting the protocol.
"""
import json
import math
import os
import sys
import traceback

import numpy as np

from bayesmark import _channel, np_util


def _native(v):
    """numpy scalars -> JSON-native Python values; non-finite floats -> strings."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if isinstance(v, (str, np.str_)):
        return str(v)
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return _native(v.item())
    return v


def _value(v):
    if isinstance(v, str):
        return float(v.replace("Infinity", "inf"))
    return float(v)


class _Channel:
    def __init__(self):
        self.out = _channel.claim().out
        self.inp = sys.stdin

    def send(self, msg):
        self.out.write(json.dumps(msg, allow_nan=False) + "\n")
        self.out.flush()

    def receive(self):
        while True:
            line = self.inp.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                print("bayesmark: ignoring malformed line from the worker: %r" % line[:200], file=sys.stderr)
                continue
            if isinstance(msg, dict):
                return msg


def _error_text(e):
    return "%s: %s" % (type(e).__name__, e)


def experiment_main(opt_class, args=None):
    """Serve the optimizer ``opt_class`` over the hosting protocol until the study ends."""
    channel = _Channel()
    seed = os.environ.get("BBO_SEED")
    if seed is not None:
        try:
            np_util.random.seed(int(seed) % (2 ** 32))
        except ValueError:
            pass
    opt = None
    while True:
        msg = channel.receive()
        if msg is None:
            sys.exit(0)
        kind = msg.get("type")
        if kind == "start":
            try:
                opt = opt_class(msg["api_config"])
            except Exception as e:
                traceback.print_exc(file=sys.stderr)
                channel.send({"type": "error", "message": "__init__ failed: " + _error_text(e)})
                sys.exit(1)
            channel.send({"type": "ready", "name": opt_class.__name__, "version": opt_class.get_version()})
        elif kind == "suggest":
            try:
                points = opt.suggest(int(msg.get("n", 1)))
                x = [{str(k): _native(v) for k, v in dict(p).items()} for p in points]
            except Exception as e:
                traceback.print_exc(file=sys.stderr)
                channel.send({"type": "error", "message": _error_text(e)})
                continue
            channel.send({"type": "suggestions", "x": x})
        elif kind == "observe":
            try:
                y = np.array([_value(v) for v in msg["y"]], dtype=float)
                opt.observe(msg["x"], y)
            except Exception as e:
                traceback.print_exc(file=sys.stderr)
                channel.send({"type": "error", "message": _error_text(e)})
                continue
            channel.send({"type": "observed"})
        elif kind == "end":
            sys.exit(0)
        else:
            print("bayesmark: unknown message type %r" % kind, file=sys.stderr)
