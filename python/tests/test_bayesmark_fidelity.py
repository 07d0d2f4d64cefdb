"""bbo-arena's bayesmark package against real Bayesmark's behaviour (issue 13, item 3).

Each expectation is what Bayesmark 0.0.8 (uber/bayesmark: space.py, np_util.py,
random_search.py, experiment.py) gives on this machine's numpy 1.24 / scipy 1.10, worked out from
its source: the types its functions return, the exceptions they raise, what ``run_study`` passes
to ``observe`` and how ``experiment_main`` seeds the global random streams.

Run with /usr/bin/python3 -m unittest discover -s python/tests.
"""
import contextlib
import io
import json
import math
import os
import random as pyrandom
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
sys.path.insert(0, PYTHON_DIR)

import numpy as np  # noqa: E402

from bayesmark import experiment, np_util, space  # noqa: E402
from bayesmark.random_search import suggest_dict  # noqa: E402
from bayesmark.space import Boolean, Categorical, Integer, JointSpace, Real  # noqa: E402

API_CONFIG = {
    "C": {"type": "real", "space": "log", "range": [1.0, 1e3]},
    "kernel": {"type": "cat", "values": ["rbf", "linear", "poly"]},
    "n_estimators": {"type": "int", "space": "linear", "range": [10, 200]},
    "bootstrap": {"type": "bool"},
    "frac": {"type": "real", "space": "logit", "range": [0.01, 0.99]},
}

REAL_SPACES = [("linear", [-5.0, 10.0]), ("log", [1e-3, 1e3]), ("logit", [0.01, 0.99]), ("bilog", [-1e3, 1e3])]
INT_SPACES = [("linear", [-5, 10]), ("log", [1, 1000]), ("bilog", [-1000, 1000])]


def mid_warped(sp):
    return sp.get_bounds().mean(axis=1)


class SingleSpaceTypesTest(unittest.TestCase):
    """Bayesmark's Space.unwarp ends with np.clip for a range (numpy scalar for one point) and
    with np.asarray for values, bool and cat (0-d array for one point)."""

    def assert_scalar(self, v, scalar_type):
        self.assertIs(type(v), scalar_type)
        self.assertTrue(np.isscalar(v))

    def assert_0d(self, v, kind):
        self.assertIs(type(v), np.ndarray)
        self.assertEqual(v.shape, ())
        self.assertEqual(v.dtype.kind, kind)

    def test_real_range_unwarps_one_point_to_a_float64_scalar(self):
        for warp, rng in REAL_SPACES:
            with self.subTest(warp=warp):
                sp = Real(warp=warp, range_=rng)
                self.assert_scalar(sp.unwarp(mid_warped(sp)), np.float64)
                # nevergrad's Bayesmark wrapper: postwarp asserts np.isscalar(space.unwarp([vv])).
                self.assert_scalar(sp.unwarp([float(mid_warped(sp)[0])]), np.float64)
                self.assert_scalar(sp.validate(rng[0]), np.float64)

    def test_int_range_unwarps_one_point_to_an_int64_scalar(self):
        for warp, rng in INT_SPACES:
            with self.subTest(warp=warp):
                sp = Integer(warp=warp, range_=rng)
                self.assert_scalar(sp.unwarp(mid_warped(sp)), np.int64)
                self.assert_scalar(sp.validate(rng[1]), np.int64)

    def test_values_bool_and_cat_unwarp_one_point_to_a_0d_array(self):
        cases = [
            (Real(warp="log", values=[0.1, 1.0, 10.0]), "f"),
            (Integer(warp="linear", values=[16, 32, 64]), "i"),
            (Boolean(), "b"),
            (Categorical(values=["rbf", "linear", "poly"]), "U"),
        ]
        for sp, kind in cases:
            with self.subTest(space=type(sp).__name__, kind=kind):
                self.assert_0d(sp.unwarp(mid_warped(sp)), kind)
                self.assert_0d(sp.validate(sp.values[0]), kind)

    def test_warp_gives_float64_arrays_with_a_trailing_axis(self):
        for sp, value, width in [(Real(warp="bilog", range_=[-10.0, 10.0]), -3.0, 1),
                                 (Integer(warp="log", range_=[1, 100]), 7, 1),
                                 (Boolean(), True, 1),
                                 (Categorical(values=["a", "b", "c"]), "b", 3)]:
            with self.subTest(space=type(sp).__name__):
                w = sp.warp(value)
                self.assertIs(type(w), np.ndarray)
                self.assertEqual((w.shape, w.dtype), ((width,), np.float64))
                w2 = sp.warp([value, value])
                self.assertEqual(w2.shape, (2, width))
                back = sp.unwarp(w2)
                self.assertEqual((type(back), back.shape), (np.ndarray, (2,)))
                self.assertEqual(back.tolist(), [value, value])

    def test_warp_formulas(self):
        self.assertAlmostEqual(Real(warp="bilog", range_=[-10.0, 10.0]).warp(-3.0)[0], -np.log(4.0))
        self.assertAlmostEqual(Real(warp="logit", range_=[0.01, 0.99]).warp(0.2)[0], np.log(0.25))
        self.assertAlmostEqual(Real(warp="log", range_=[1.0, 10.0]).warp(2.0)[0], np.log(2.0))
        self.assertEqual(Categorical(values=["rbf", "linear", "poly"]).warp("rbf").tolist(), [0.0, 0.0, 1.0])

    def test_values_snap_to_the_nearest_value_ties_going_down(self):
        sp = Integer(warp="linear", values=[16, 32, 64])
        self.assertEqual(sp.unwarp([[24.0], [24.1], [48.0], [63.0]]).tolist(), [16, 32, 32, 64])

    def test_bool_rounds_half_to_even(self):
        self.assertEqual(Boolean().unwarp([[0.5], [0.51], [0.0]]).tolist(), [False, True, False])

    def test_grid(self):
        self.assertEqual(Integer(warp="linear", range_=[1, 4]).grid(4), [1, 2, 3, 4])
        self.assertEqual(Boolean().grid(), [False, True])
        self.assertEqual(Categorical(values=["b", "a"]).grid(), ["a", "b"])
        # Bayesmark's JointSpace.grid follows the api_config's order, not the sorted names.
        self.assertEqual(list(JointSpace({"z": {"type": "bool"}, "a": {"type": "bool"}}).grid()), ["z", "a"])


class JointSpaceTypesTest(unittest.TestCase):
    def test_unwarp_gives_native_python_values_and_round_trips(self):
        js = JointSpace(API_CONFIG)
        rng = np.random.RandomState(0)
        bounds = js.get_bounds()
        X_w = rng.uniform(bounds[:, 0], bounds[:, 1], size=(50, len(bounds)))
        X = js.unwarp(X_w)
        for x in X:
            self.assertEqual({k: type(v) for k, v in x.items()},
                             {"C": float, "kernel": str, "n_estimators": int, "bootstrap": bool, "frac": float})
        back = js.unwarp(js.warp(X))
        for a, b in zip(X, back):
            self.assertEqual({k: type(v) for k, v in a.items()}, {k: type(v) for k, v in b.items()})
            for k in a:
                if isinstance(a[k], float):
                    self.assertAlmostEqual(a[k], b[k], delta=1e-12 * max(1.0, abs(a[k])))
                else:
                    self.assertEqual(a[k], b[k])
        js.validate(X)

    def test_unwarp_requires_a_2d_float64_array(self):
        js = JointSpace({"x": {"type": "real", "space": "linear", "range": [0, 1]}})
        with self.assertRaises(AssertionError):
            js.unwarp([0.5])  # 1-d
        with self.assertRaises(AssertionError):
            js.unwarp(np.array([[0]]))  # int dtype

    def test_fixed_vals_are_returned_exactly_and_checked(self):
        js = JointSpace({"x": {"type": "real", "space": "log", "range": [1.0, 100.0]}})
        w = js.warp([{"x": 10.0}])
        self.assertEqual(js.unwarp(w, fixed_vals={"x": 10.0}), [{"x": 10.0}])
        with self.assertRaises(ValueError):
            js.unwarp(w, fixed_vals={"x": 20.0})


class ApiConfigErrorsTest(unittest.TestCase):
    """JointSpace raises what Bayesmark raises for an invalid api_config."""

    def assert_rejects(self, exc, config):
        with self.assertRaises(exc):
            JointSpace(config)

    def test_assertion_errors(self):
        self.assert_rejects(AssertionError, {})
        self.assert_rejects(AssertionError, {"x": {"type": "float", "space": "linear", "range": [0, 1]}})
        self.assert_rejects(AssertionError, {"x": {"type": "real", "range": [0, 1]}})  # no space
        self.assert_rejects(AssertionError, {"x": {"type": "int", "values": [16, 32]}})  # no space
        self.assert_rejects(AssertionError, {"x": {"type": "real", "space": "exp", "range": [0, 1]}})
        self.assert_rejects(AssertionError, {"x": {"type": "real", "space": "linear", "range": [0, 1],
                                                   "values": [0, 1]}})
        self.assert_rejects(AssertionError, {"x": {"type": "real", "space": "linear"}})
        self.assert_rejects(AssertionError, {"x": {"type": "bool", "space": "linear"}})
        self.assert_rejects(AssertionError, {"x": {"type": "cat", "values": ["a", "b"], "range": [0, 1]}})
        self.assert_rejects(AssertionError, {"x": {"type": "cat"}})

    def test_value_errors(self):
        self.assert_rejects(ValueError, {"x": {"type": "real", "space": "linear", "range": [1, 0]}})
        self.assert_rejects(ValueError, {"x": {"type": "real", "space": "log", "range": [0, 1]}})
        self.assert_rejects(ValueError, {"x": {"type": "real", "space": "logit", "range": [0, 1]}})
        self.assert_rejects(ValueError, {"x": {"type": "int", "space": "logit", "range": [1, 5]}})
        self.assert_rejects(ValueError, {"x": {"type": "real", "space": "linear", "values": [1.0]}})
        self.assert_rejects(ValueError, {"x": {"type": "cat", "values": ["only"]}})
        self.assert_rejects(ValueError, {"x": {"type": "cat", "values": [1, 2]}})

    def test_missing_type_is_a_key_error(self):
        self.assert_rejects(KeyError, {"x": {"space": "linear", "range": [0, 1]}})


class ValidateErrorsTest(unittest.TestCase):
    """Out-of-range values raise (clip_chk's AssertionError) instead of being clipped; values
    that are not listed raise ValueError."""

    def test_range_value_outside_raises_assertion_error_close_values_are_clipped(self):
        sp = Real(warp="linear", range_=[0.0, 1.0])
        with self.assertRaises(AssertionError):
            sp.validate(1.5)
        with self.assertRaises(AssertionError):
            sp.validate(float("nan"))
        with self.assertRaises(AssertionError):
            sp.warp(-0.5)
        self.assertEqual(sp.validate(1.0 + 1e-12), 1.0)

    def test_warped_value_outside_raises_assertion_error_wrong_width_value_error(self):
        sp = Real(warp="log", range_=[1.0, 10.0])
        with self.assertRaises(AssertionError):
            sp.unwarp([5.0])
        with self.assertRaises(ValueError):
            sp.unwarp([[0.5, 0.5]])
        with self.assertRaises(ValueError):
            Categorical(values=["a", "b"]).unwarp([0.5])

    def test_unlisted_values_raise_value_error(self):
        with self.assertRaises(ValueError):
            Integer(warp="linear", values=[16, 32, 64]).warp(40)
        with self.assertRaises(ValueError):
            Categorical(values=["a", "b"]).warp("c")

    def test_joint_space_validate(self):
        js = JointSpace(API_CONFIG)
        good = {"C": 10.0, "kernel": "rbf", "n_estimators": 37, "bootstrap": True, "frac": 0.5}
        self.assertEqual(js.validate([good]), [good])
        with self.assertRaises(AssertionError):
            js.validate([dict(good, C=1e4)])
        with self.assertRaises(AssertionError):
            js.validate([dict(good, n_estimators=5)])
        with self.assertRaises(ValueError):
            js.validate([dict(good, kernel="sigmoid")])
        with self.assertRaises(ValueError):
            js.validate([{"C": 10.0}])
        with self.assertRaises(ValueError):
            js.validate([dict(good, extra=1)])
        with self.assertRaises(ValueError):
            JointSpace({"b": {"type": "int", "space": "linear", "values": [16, 32]}}).validate([{"b": 20}])


class NpUtilTest(unittest.TestCase):
    def test_random_seed_draws_below_2_to_the_32_minus_1(self):
        calls = []

        class Recorder:
            def randint(self, lo, hi):
                calls.append((lo, hi))
                return 0

        np_util.random_seed(Recorder())
        self.assertEqual(calls, [(0, 2 ** 32 - 1)])
        seeds = [np_util.random_seed(np.random.RandomState(s)) for s in range(64)]
        self.assertTrue(all(0 <= s < 2 ** 32 - 1 for s in seeds))
        self.assertTrue(any(s >= 2 ** 31 for s in seeds))  # beyond the old [0, 2**31 - 1)

    def test_np_util_random_is_numpys_global_stream(self):
        self.assertIs(np_util.random, np.random.mtrand._rand)
        np.random.seed(3)
        a = np_util.random.rand(4)
        np.random.seed(3)
        self.assertEqual(np.random.rand(4).tolist(), a.tolist())

    def test_shuffle_2d_shuffles_rows_and_within_rows_in_place(self):
        X = np.arange(20).reshape(4, 5)
        np_util.shuffle_2d(X, random=np.random.RandomState(1))
        self.assertEqual(sorted(X.ravel().tolist()), list(range(20)))
        self.assertEqual(sorted(tuple(sorted(r)) for r in X.tolist()),
                         [tuple(range(5 * i, 5 * i + 5)) for i in range(4)])
        self.assertNotEqual(X.tolist(), np.arange(20).reshape(4, 5).tolist())

    def test_strat_split_deals_each_row_evenly(self):
        X = np.arange(12).reshape(2, 6)
        groups = np_util.strat_split(X, 3, random=np.random.RandomState(0))
        self.assertEqual(X.tolist(), np.arange(12).reshape(2, 6).tolist())  # not in place
        self.assertEqual(len(groups), 3)
        self.assertEqual(sorted(np.concatenate(groups).tolist()), list(range(12)))
        for g in groups:
            self.assertEqual(sorted(int(v) // 6 for v in g), [0, 0, 1, 1])
        with self.assertRaises(AssertionError):
            np_util.strat_split(np.arange(3), 2)

    def test_checks_raise_instead_of_clipping(self):
        with self.assertRaises(AssertionError):
            np_util.clip_chk(np.array([-1.0, 0.5]), 0.0, 1.0)
        with self.assertRaises(AssertionError):
            np_util.linear_rescale(11.0, 0.0, 10.0, 0.0, 1.0)
        with self.assertRaises(AssertionError):
            np_util.linear_rescale(1.0, 1.0, 1.0, 0.0, 1.0)  # lb0 == ub0
        with self.assertRaises(ValueError):
            np_util.snap_to(np.array([1.0, 2.0]), 1.0)
        self.assertEqual(np_util.snap_to(np.array([1.0, 1.0 + 1e-12]), 1.0).tolist(), [1.0, 1.0])
        self.assertEqual(np_util.linear_rescale(5.0, 0.0, 10.0, 0.0, 1.0), 0.5)
        self.assertTrue(np.isnan(np_util.clip_chk(np.array([np.nan]), 0, 1, allow_nan=True))[0])


class PublicNamesTest(unittest.TestCase):
    def test_space_module_helpers(self):
        for name in ["encode", "decode", "bilog", "biexp", "logit", "logistic", "identity", "check_array",
                     "unravel_index", "WARP_DICT", "UNWARP_DICT", "SPACE_DICT", "WARPED_DTYPE",
                     "N_GRID_DEFAULT", "CAT_DTYPE", "CAT_KIND", "CAT_NATIVE_DTYPE", "Space", "Real",
                     "Integer", "Boolean", "Categorical", "JointSpace"]:
            self.assertTrue(hasattr(space, name), name)
        x = np.array([-20.0, -1.0, 0.0, 0.5, 300.0])
        np.testing.assert_allclose(space.bilog(x), np.sign(x) * np.log1p(np.abs(x)))
        np.testing.assert_allclose(space.biexp(space.bilog(x)), x)
        self.assertAlmostEqual(space.logit(0.2), np.log(0.25))
        self.assertAlmostEqual(space.logistic(space.logit(0.3)), 0.3)
        Y = space.encode(np.array(["b", "a"]), ["c", "a", "b"])
        self.assertEqual((Y.dtype, Y.tolist()), (np.bool_, [[False, True, False], [True, False, False]]))
        self.assertEqual(space.decode(Y, ["c", "a", "b"]).tolist(), ["b", "a"])
        self.assertEqual(space.encode(np.array([[1, 3]]), [1, 2, 3], dtype=float).shape, (1, 2, 3))
        with self.assertRaises(AssertionError):
            space.encode(np.array(["aa"]), ["a", "b"])
        with self.assertRaises(ValueError):
            space.check_array(np.zeros(3), "x", pre=True, ndim=2)
        with self.assertRaises(AssertionError):
            space.check_array(np.zeros(3), "x", ndim=2)
        self.assertEqual(space.unravel_index(()), ())

    def test_np_util_and_experiment_names(self):
        for name in ["random", "random_seed", "shuffle_2d", "strat_split", "isclose_lte", "clip_chk", "snap_to",
                     "linear_rescale", "argmin_2d", "SEED_MAX_INCL"]:
            self.assertTrue(hasattr(np_util, name), name)
        self.assertTrue(callable(experiment.run_study))
        self.assertTrue(callable(experiment.experiment_main))

    def test_suggest_dict_checks_past_observations(self):
        X = [{"x": 0.5}]
        meta = {"x": {"type": "real", "space": "linear", "range": [0, 1]}}
        self.assertEqual(len(suggest_dict(X, [1.0], meta, n_suggestions=3)), 3)
        with self.assertRaises(ValueError):
            suggest_dict(X, [np.inf], meta)
        with self.assertRaises(ValueError):
            suggest_dict(X, [1.0, 2.0], meta)


# ---------------------------------------------------------------------------------------------
# run_study
# ---------------------------------------------------------------------------------------------


class Quadratic:
    """A test problem as Bayesmark's run_study takes it."""

    def __init__(self, fail_on=None):
        self.fail_on = fail_on
        self.calls = 0

    def get_api_config(self):
        return {"x": {"type": "real", "space": "linear", "range": [-1.0, 1.0]},
                "k": {"type": "cat", "values": ["a", "b"]}}

    def evaluate(self, params):
        self.calls += 1
        if self.fail_on is not None and self.calls == self.fail_on:
            raise RuntimeError("crashed evaluation")
        return np.array([params["x"] ** 2 + (params["k"] == "b"), 0.0])


class Recorder:
    def __init__(self, api_config, suggest_fails_on=(), bad_on=(), observe_fails=False):
        self.api_config = api_config
        self.suggest_fails_on = suggest_fails_on
        self.bad_on = bad_on
        self.observe_fails = observe_fails
        self.n_suggest = 0
        self.returned = []
        self.observed = []

    def suggest(self, n_suggestions):
        self.n_suggest += 1
        if self.n_suggest in self.suggest_fails_on:
            raise RuntimeError("suggest failed")
        pts = suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)
        if self.n_suggest in self.bad_on:
            pts[0]["x"] = 5.0
        self.returned.append(pts)
        return pts

    def observe(self, X, y):
        self.observed.append((X, y))
        if self.observe_fails:
            raise RuntimeError("observe failed")


class RunStudyTest(unittest.TestCase):
    def test_observe_after_every_batch_with_the_suggested_list_and_a_list_of_floats(self):
        prob = Quadratic()
        opt = Recorder(prob.get_api_config())
        evals, (t_suggest, t_eval, t_observe), log = experiment.run_study(opt, prob, 16, 8, n_obj=2)
        self.assertEqual(len(opt.observed), 16)
        for b, (X, y) in enumerate(opt.observed):
            self.assertIs(X, opt.returned[b])
            self.assertIs(type(y), list)
            self.assertEqual([type(v) for v in y], [float] * 8)
            self.assertEqual(y, evals[b, :, 0].tolist())
            self.assertIs(log[b], opt.returned[b])
        self.assertEqual(evals.shape, (16, 8, 2))
        self.assertEqual((t_suggest.shape, t_eval.shape, t_observe.shape), ((16,), (16, 8), (16,)))

    def test_failures_are_handled_as_bayesmark_does(self):
        prob = Quadratic(fail_on=3)
        opt = Recorder(prob.get_api_config(), suggest_fails_on=(2,), observe_fails=True)
        seen = []
        out = io.StringIO()
        with self.assertLogs("bayesmark.experiment", level="WARNING"), contextlib.redirect_stdout(out):
            evals, _, log = experiment.run_study(opt, prob, 3, 4, n_obj=2, callback=lambda best, n: seen.append(n))
        # Bayesmark prints these JSON lines on stdout.
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
        self.assertIn({"optimizer_suggest_exception": {"iter": 1}}, lines)
        self.assertIn({"optimizer_observe_exception": {"iter": 2}}, lines)
        self.assertEqual(len(opt.observed), 3)
        self.assertEqual(opt.observed[0][1][2], math.inf)  # the crashed evaluation
        self.assertEqual(len(log[1]), 4)  # random search filled the failed suggest
        JointSpace(prob.get_api_config()).validate(log[1])
        self.assertEqual(seen, [0, 1, 2, 3])

    def test_a_point_out_of_range_ends_the_study(self):
        prob = Quadratic()
        opt = Recorder(prob.get_api_config(), bad_on=(2,))
        with self.assertRaisesRegex(ValueError, "Optimizer suggestion is out of range."):
            experiment.run_study(opt, prob, 3, 2, n_obj=2)


# ---------------------------------------------------------------------------------------------
# experiment_main under the hosting protocol
# ---------------------------------------------------------------------------------------------


class Hosted:
    """The worker's side of the hosting protocol for one optimizer file written from ``body``."""

    def __init__(self, body, seed="7"):
        self.dir = tempfile.mkdtemp()
        self.record = os.path.join(self.dir, "record.jsonl")
        with open(os.path.join(self.dir, "optimizer.py"), "w") as f:
            f.write(textwrap.dedent(body))
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR, BBO_SEED=seed, BBO_ARENA_HOSTED="1",
                   RECORD=self.record)
        self.proc = subprocess.Popen(["/usr/bin/python3", "-u", "optimizer.py"], cwd=self.dir, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)

    def call(self, msg):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("optimizer died: " + self.proc.stderr.read())
        return json.loads(line)

    def start(self, api_config=API_CONFIG):
        reply = self.call({"type": "start", "api_config": api_config, "batch_size": 8, "n_batches": 16})
        assert reply["type"] == "ready", reply
        return reply

    def end(self):
        self.proc.stdin.write(json.dumps({"type": "end", "reason": "done"}) + "\n")
        self.proc.stdin.flush()
        rc = self.proc.wait(timeout=20)
        self.stderr = self.proc.stderr.read()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return rc

    def records(self):
        if not os.path.exists(self.record):
            return []
        with open(self.record) as f:
            return [json.loads(line) for line in f]


RECORDING_OPTIMIZER = """
    import json, os, random
    import numpy as np
    import bayesmark.random_search as rs
    from bayesmark import np_util
    from bayesmark.abstract_optimizer import AbstractOptimizer
    from bayesmark.experiment import experiment_main

    def record(**kw):
        with open(os.environ["RECORD"], "a") as f:
            f.write(json.dumps(kw) + "\\n")

    class Rec(AbstractOptimizer):
        def __init__(self, api_config, **kwargs):
            AbstractOptimizer.__init__(self, api_config)
            record(event="init", np=np.random.rand(3).tolist(), py=random.random(),
                   np_util=np_util.random.randint(0, 10 ** 9))
            self.last = None
            self.n = 0

        def suggest(self, n_suggestions=1):
            self.n += 1
            if self.n == 2:
                raise RuntimeError("second suggest fails")
            self.last = rs.suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)
            record(event="suggest", np=np.random.rand())
            return self.last

        def observe(self, X, y):
            record(event="observe", y_type=type(y).__name__, y_item_types=[type(v).__name__ for v in y],
                   y=[repr(v) for v in y], X_is_suggested=X is self.last,
                   X_items_are_suggested=[a is b for a, b in zip(X, self.last or [])],
                   X_types=[{k: type(v).__name__ for k, v in x.items()} for x in X])

    if __name__ == "__main__":
        experiment_main(Rec)
"""


def expected_draws(seed):
    """What Bayesmark's experiment_main leaves the optimizer's __init__ to draw (the global
    streams seeded by a master random.Random(seed)), and the numpy stream after those draws."""
    master = pyrandom.Random(seed)
    py_seed, np_seed = np_util.random_seed(master), np_util.random_seed(master)
    py = pyrandom.Random(py_seed)
    rs = np.random.RandomState(np_seed)
    init = {"np": rs.rand(3).tolist(), "py": py.random(), "np_util": int(rs.randint(0, 10 ** 9))}
    return init, rs


class HostedStudyTest(unittest.TestCase):
    def run_batches(self, h, batches, replace=None):
        """Drive ``batches`` suggest/observe rounds; ``replace(b, x)`` may change the evaluated x."""
        for b in range(batches):
            reply = h.call({"type": "suggest", "batch": b, "n": 8})
            if reply["type"] == "error":
                x = suggest_dict([], [], API_CONFIG, n_suggestions=8, random=np.random.RandomState(b))
            else:
                x = reply["x"]
            if replace is not None:
                x = replace(b, x)
            y = [float(i) for i in range(7)] + ["inf"]
            self.assertEqual(h.call({"type": "observe", "batch": b, "x": x, "y": y})["type"], "observed")

    def test_observe_gets_a_list_of_floats_and_the_suggested_list(self):
        h = Hosted(RECORDING_OPTIMIZER)
        h.start()
        self.run_batches(h, 16)
        self.assertEqual(h.end(), 0, h.stderr)
        observes = [r for r in h.records() if r["event"] == "observe"]
        self.assertEqual(len(observes), 16)  # one per batch the worker reports, the last included
        for b, r in enumerate(observes):
            self.assertEqual(r["y_type"], "list")
            self.assertEqual(r["y_item_types"], ["float"] * 8)
            self.assertEqual(r["y"][-1], "inf")
            if b != 1:  # batch 1's suggest raised: X are the worker's random points
                self.assertTrue(r["X_is_suggested"], b)
        self.assertEqual(observes[1]["X_types"][0], {"C": "float", "bootstrap": "bool", "frac": "float",
                                                     "kernel": "str", "n_estimators": "int"})

    def test_replaced_points_are_observed_as_evaluated_the_others_as_suggested(self):
        h = Hosted(RECORDING_OPTIMIZER)
        h.start()

        def replace(b, x):
            x = [dict(p) for p in x]
            if b == 0:
                x[2] = {"C": 5, "kernel": "poly", "n_estimators": 11.0, "bootstrap": 1, "frac": 0.5}
                x[3]["n_estimators"] = float(x[3]["n_estimators"])  # the same point, as a float
            return x

        self.run_batches(h, 1, replace)
        self.assertEqual(h.end(), 0, h.stderr)
        r = [r for r in h.records() if r["event"] == "observe"][0]
        self.assertFalse(r["X_is_suggested"])
        self.assertEqual(r["X_items_are_suggested"], [True, True, False] + [True] * 5)
        self.assertEqual(r["X_types"][2], {"C": "float", "kernel": "str", "n_estimators": "int", "bootstrap": "bool",
                                           "frac": "float"})

    def test_global_streams_are_seeded_from_bbo_seed_as_bayesmark_seeds_them(self):
        runs = []
        for seed in ["7", "7", "8"]:
            h = Hosted(RECORDING_OPTIMIZER, seed=seed)
            h.start()
            self.run_batches(h, 3)
            self.assertEqual(h.end(), 0, h.stderr)
            runs.append(h.records())
        self.assertEqual(runs[0], runs[1])
        self.assertNotEqual(runs[0][0], runs[2][0])

        init, rs = expected_draws(7)
        got = runs[0][0]
        self.assertEqual({k: got[k] for k in init}, init)
        # Batch 0: the optimizer's random search, then its own draw.
        suggest_dict([], [], API_CONFIG, n_suggestions=8, random=rs)
        self.assertEqual([r for r in runs[0] if r["event"] == "suggest"][0]["np"], rs.rand())
        # Batch 1's suggest raised: Bayesmark's fallback drew a batch from the global stream.
        suggest_dict([], [], API_CONFIG, n_suggestions=8, random=rs)
        suggest_dict([], [], API_CONFIG, n_suggestions=8, random=rs)
        self.assertEqual([r for r in runs[0] if r["event"] == "suggest"][1]["np"], rs.rand())

    def test_an_unserialisable_value_is_sent_as_an_invalid_string_and_the_study_goes_on(self):
        h = Hosted("""
            import numpy as np
            import bayesmark.random_search as rs
            from bayesmark.abstract_optimizer import AbstractOptimizer
            from bayesmark.experiment import experiment_main

            class Odd(AbstractOptimizer):
                def suggest(self, n_suggestions=1):
                    pts = rs.suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)
                    pts[3]["C"] = {1.0, 2.0}
                    pts[4]["kernel"] = object()
                    pts[5]["frac"] = np.array([np.nan, 0.5])
                    return pts

                def observe(self, X, y):
                    pass

            if __name__ == "__main__":
                experiment_main(Odd)
        """)
        h.start()
        js = JointSpace(API_CONFIG)
        for b in range(2):
            reply = h.call({"type": "suggest", "batch": b, "n": 8})
            self.assertEqual(reply["type"], "suggestions")
            x = reply["x"]
            self.assertTrue(x[3]["C"].startswith("<not JSON-serialisable set: "), x[3])
            self.assertTrue(x[4]["kernel"].startswith("<not JSON-serialisable object: "), x[4])
            self.assertTrue(x[5]["frac"].startswith("<not JSON-serialisable ndarray: "), x[5])
            js.validate([p for i, p in enumerate(x) if i not in (3, 4, 5)])
            for i in (3, 4, 5):
                with self.assertRaises((ValueError, AssertionError)):
                    js.validate([x[i]])
            x[3:6] = suggest_dict([], [], API_CONFIG, n_suggestions=3)  # the worker's replacements
            self.assertEqual(h.call({"type": "observe", "batch": b, "x": x, "y": [1.0] * 8})["type"], "observed")
        self.assertEqual(h.end(), 0)
        self.assertIn("cannot be sent as JSON", h.stderr)


if __name__ == "__main__":
    unittest.main()
