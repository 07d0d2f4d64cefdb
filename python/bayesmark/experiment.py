"""Running studies: ``run_study`` (as Bayesmark's) and ``experiment_main`` (hosted by bbo-arena).

The worker starts ``optimizer.py`` in the sandbox; ``experiment_main(MyOptimizer)`` at the end of
the file then serves the protocol of docs/hosting-protocol.md on stdin/stdout: JSON lines
``start`` -> ``ready``; ``suggest`` -> ``suggestions``; ``observe`` -> ``observed``; ``end``.
The optimizer sees what Bayesmark's ``run_study`` gives it:

* the global ``random`` and ``numpy.random`` streams are seeded from the study's seed
  (``BBO_SEED``) just before the optimizer is built, the way Bayesmark seeds them from the
  study's uuid;
* ``suggest(n)`` is called with the batch size; if it raises, the global stream advances as
  Bayesmark's random-search fallback advances it (the worker fills the batch);
* ``observe(X, y)``: ``y`` is a list of floats (``inf`` for a crashed evaluation); ``X`` is the
  very list ``suggest`` returned when every point was evaluated as suggested, otherwise a list
  holding the optimizer's own dict for each point evaluated as suggested and the evaluated point
  (native Python values) for each replaced one.

A suggested value that JSON cannot carry (a set, an object, NaN inside a list...) is sent as a
string naming it, so the worker reports that parameter as invalid and replaces the point by
random search; the study goes on.

Standard output is reserved for the protocol: before anything else the real stdout is set
aside and ``sys.stdout`` (and file descriptor 1) are pointed at stderr, so stray ``print()``
calls in participant code land in the log instead of corrupting the protocol.
"""
import json
import logging
import math
import numbers
import os
import random as pyrandom
import sys
import traceback
from time import time

import numpy as np

import bayesmark.random_search as rs
from bayesmark import _channel
from bayesmark.np_util import argmin_2d, random_seed
from bayesmark.space import JointSpace

logger = logging.getLogger(__name__)

# The key Bayesmark logs iteration numbers under.
ITER = "iter"

# Longest description of an unserialisable value sent in its place.
_MAX_REPR = 200


def run_study(optimizer, test_problem, n_calls, n_suggestions, n_obj=1, callback=None):
    """Run ``n_calls`` batches of ``n_suggestions`` points of ``optimizer`` on ``test_problem``.

    As Bayesmark's ``run_study``: ``test_problem`` has ``get_api_config()`` and
    ``evaluate(point)`` returning an array of shape ``(n_obj,)`` (objective 0 is the one the
    optimizer sees; an evaluation that raises counts as ``inf``). A suggest that raises is
    replaced by random search; points outside the space raise ``ValueError("Optimizer suggestion
    is out of range.")``; an observe that raises is ignored. ``observe(X, y)`` is called after
    every batch, the last one included, with the suggested list and a list of floats.
    ``callback(best_evals, n_done)`` is called with inf before the first batch, then after each.

    Returns ``(function_evals, (suggest_time, eval_time, observe_time), suggest_log)``: arrays of
    shape (n_calls, n_suggestions, n_obj); (n_calls,), (n_calls, n_suggestions), (n_calls,) in
    seconds; and the list of each batch's points.
    """
    if n_suggestions < 1:
        raise AssertionError("batch size must be at least 1")
    if n_obj < 1:
        raise AssertionError("Must be at least one objective")
    space_for_validate = JointSpace(test_problem.get_api_config())
    if callback is not None:
        callback(np.full((n_obj,), np.inf, dtype=float), 0)

    suggest_time = np.zeros(n_calls)
    observe_time = np.zeros(n_calls)
    eval_time = np.zeros((n_calls, n_suggestions))
    function_evals = np.zeros((n_calls, n_suggestions, n_obj))
    suggest_log = [None] * n_calls
    for ii in range(n_calls):
        tt = time()
        try:
            next_points = optimizer.suggest(n_suggestions)
        except Exception as e:
            logger.warning("Failure in optimizer suggest. Falling back to random search.")
            logger.exception(e, exc_info=True)
            print(json.dumps({"optimizer_suggest_exception": {ITER: ii}}))
            next_points = rs.suggest_dict([], [], test_problem.get_api_config(), n_suggestions=n_suggestions)
        suggest_time[ii] = time() - tt
        if len(next_points) != n_suggestions:
            raise AssertionError("invalid number of suggestions provided by the optimizer")
        try:
            space_for_validate.validate(next_points)
        except Exception:
            raise ValueError("Optimizer suggestion is out of range.")

        for jj, next_point in enumerate(next_points):
            tt = time()
            try:
                f_current_eval = test_problem.evaluate(next_point)
            except Exception as e:
                logger.warning("Failure in function eval. Setting to inf.")
                logger.exception(e, exc_info=True)
                f_current_eval = np.full((n_obj,), np.inf, dtype=float)
            eval_time[ii, jj] = time() - tt
            if np.shape(f_current_eval) != (n_obj,):
                raise AssertionError("evaluate must return shape (%d,)" % n_obj)
            function_evals[ii, jj, :] = f_current_eval
        suggest_log[ii] = next_points

        # The optimizer sees objective 0 only, as Python floats (inf for a crashed evaluation).
        eval_list = function_evals[ii, :, 0].tolist()
        if callback is not None:
            idx_ii, idx_jj = argmin_2d(function_evals[: ii + 1, :, 0])
            callback(function_evals[idx_ii, idx_jj, :], ii + 1)

        tt = time()
        try:
            optimizer.observe(next_points, eval_list)
        except Exception as e:
            logger.warning("Failure in optimizer observe. Ignoring these observations.")
            logger.exception(e, exc_info=True)
            print(json.dumps({"optimizer_observe_exception": {ITER: ii}}))
        observe_time[ii] = time() - tt

    return function_evals, (suggest_time, eval_time, observe_time), suggest_log


def _setup_seeds(seed):
    """Seed the global ``random`` and ``numpy.random`` streams from the integer ``seed``.

    As Bayesmark does from a study's uuid: a master ``random.Random(seed)`` draws one seed for
    each global stream with ``np_util.random_seed`` (different streams, no correlation).
    """
    master_stream = pyrandom.Random(seed)
    pyrandom.seed(random_seed(master_stream))
    np.random.seed(random_seed(master_stream))


def _seed_from_env():
    """Seed the global streams from ``BBO_SEED`` (an integer) when it is set."""
    seed = os.environ.get("BBO_SEED")
    if seed is None:
        return
    try:
        value = int(seed)
    except ValueError:
        print("bayesmark: BBO_SEED=%r is not an integer; random streams left unseeded" % seed, file=sys.stderr)
        return
    _setup_seeds(value)


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
    if isinstance(v, np.ndarray):
        return _native(v.item()) if v.ndim == 0 else v.tolist()
    if isinstance(v, numbers.Integral):
        return _native(int(v))
    if isinstance(v, numbers.Real):
        return _native(float(v))
    return v


def _unserialisable(v):
    text = repr(v)
    if len(text) > _MAX_REPR:
        text = text[:_MAX_REPR] + "..."
    return "<not JSON-serialisable %s: %s>" % (type(v).__name__, text)


def _wire_value(v, where):
    """``v`` as a JSON value; a value JSON cannot carry becomes a string naming it (invalid for
    every parameter type, so the worker reports it and replaces the point)."""
    try:
        out = _native(v)
        json.dumps(out, allow_nan=False)
        return out
    except Exception as e:
        print("bayesmark: %s: %s cannot be sent as JSON (%s); the worker will replace the point by "
              "random search" % (where, _unserialisable(v), _error_text(e)), file=sys.stderr)
        return _unserialisable(v)


def _wire_point(i, p):
    """Suggested point ``p`` as a JSON object (or, if it is no mapping, a string the worker refuses)."""
    if not hasattr(p, "keys"):
        return _wire_value(p, "suggestion %d" % i)
    return {str(k): _wire_value(p[k], "suggestion %d, parameter %r" % (i, k)) for k in p.keys()}


def _same_point(sent, evaluated):
    """True when the worker evaluated ``sent`` (up to its snapping within np.isclose)."""
    if not isinstance(sent, dict) or not isinstance(evaluated, dict) or sent.keys() != evaluated.keys():
        return False
    for k, a in sent.items():
        b = evaluated[k]
        if a == b:
            continue
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
        try:
            if not (numeric and np.isclose(a, b)):
                return False
        except (TypeError, OverflowError):
            return False
    return True


def _bayesmark_native(point, api_config):
    """A point from the worker with the Python types Bayesmark's random search gives."""
    if not isinstance(point, dict):
        return point
    out = {}
    for k, v in point.items():
        spec = api_config.get(k) if isinstance(api_config, dict) else None
        kind = spec.get("type") if isinstance(spec, dict) else None
        try:
            if kind == "real":
                v = float(v)
            elif kind == "int":
                v = int(v)
            elif kind == "bool":
                v = bool(v)
            elif kind in ("cat", "ordinal"):
                v = str(v)
        except (TypeError, ValueError):
            pass
        out[k] = v
    return out


def _observed_points(evaluated, pending, api_config):
    """The ``X`` Bayesmark would pass to observe (see the module's doc)."""
    if pending is None:
        return [_bayesmark_native(p, api_config) for p in evaluated]
    returned, as_list, sent = pending
    same = [i < len(sent) and _same_point(sent[i], e) for i, e in enumerate(evaluated)]
    if all(same) and len(sent) == len(evaluated):
        return returned if isinstance(returned, (list, tuple)) else as_list
    return [as_list[i] if ok else _bayesmark_native(e, api_config) for i, (ok, e) in enumerate(zip(same, evaluated))]


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


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _error_text(e):
    """The exception, then the traceback frames in the submission's own files (not this package's
    or the standard library's), innermost last, as Python prints them."""
    text = "%s: %s" % (type(e).__name__, e)
    frames = []
    for f in traceback.extract_tb(e.__traceback__):
        path = os.path.abspath(f.filename)
        if path.startswith(_PACKAGE_DIR) or "/lib/python3" in path or path.startswith("<"):
            continue
        frames.append('  File "%s", line %d, in %s' % (f.filename, f.lineno, f.name))
        if f.line:
            frames.append("    " + f.line.strip())
    return text + ("\n" + "\n".join(frames[-12:]) if frames else "")


def experiment_main(opt_class, args=None):
    """Serve the optimizer ``opt_class`` over the hosting protocol until the study ends."""
    channel = _Channel()
    opt = None
    api_config = None
    pending = None  # (what suggest returned, it as a list, what was sent) for the next observe
    while True:
        msg = channel.receive()
        if msg is None:
            sys.exit(0)
        kind = msg.get("type")
        if kind == "start":
            api_config = msg["api_config"]
            _seed_from_env()
            try:
                opt = opt_class(api_config)
            except Exception as e:
                traceback.print_exc(file=sys.stderr)
                channel.send({"type": "error", "message": "__init__ failed: " + _error_text(e)})
                sys.exit(1)
            channel.send({"type": "ready", "name": opt_class.__name__, "version": opt_class.get_version()})
        elif kind == "suggest":
            n = int(msg.get("n", 1))
            pending = None
            try:
                returned = opt.suggest(n)
                as_list = list(returned)
                x = [_wire_point(i, p) for i, p in enumerate(as_list)]
                line = json.dumps({"type": "suggestions", "x": x}, allow_nan=False)
            except Exception as e:
                traceback.print_exc(file=sys.stderr)
                _advance_as_random_fallback(api_config, n)
                channel.send({"type": "error", "message": _error_text(e)})
                continue
            pending = (returned, as_list, x)
            channel.out.write(line + "\n")
            channel.out.flush()
        elif kind == "observe":
            try:
                X = _observed_points(msg["x"], pending, api_config)
                y = [_value(v) for v in msg["y"]]
                opt.observe(X, y)
            except Exception as e:
                traceback.print_exc(file=sys.stderr)
                channel.send({"type": "error", "message": _error_text(e)})
                continue
            finally:
                pending = None
            channel.send({"type": "observed"})
        elif kind == "end":
            sys.exit(0)
        else:
            print("bayesmark: unknown message type %r" % kind, file=sys.stderr)


def _advance_as_random_fallback(api_config, n):
    """Draw (and drop) the random-search batch Bayesmark draws from the global stream when
    suggest raises, so the optimizer's later draws are the ones they would be under Bayesmark."""
    try:
        rs.suggest_dict([], [], api_config, n_suggestions=n)
    except Exception:
        pass
