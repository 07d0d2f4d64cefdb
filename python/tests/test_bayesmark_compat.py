"""Tests of bbo-arena's Bayesmark-compatible package (run with /usr/bin/python3 -m unittest)."""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
ROOT = os.path.dirname(PYTHON_DIR)
sys.path.insert(0, PYTHON_DIR)

import numpy as np  # noqa: E402

from bayesmark import np_util  # noqa: E402
from bayesmark.random_search import suggest_dict  # noqa: E402
from bayesmark.space import JointSpace  # noqa: E402

API_CONFIG = {
    "C": {"type": "real", "space": "log", "range": [1.0, 1e3]},
    "kernel": {"type": "cat", "values": ["rbf", "linear", "poly"]},
    "n_estimators": {"type": "int", "space": "linear", "range": [10, 200]},
    "bootstrap": {"type": "bool"},
    "frac": {"type": "real", "space": "logit", "range": [0.01, 0.99]},
}


class Driver:
    """The worker's side of the hosting protocol, for one optimizer process."""

    def __init__(self, script, cwd):
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR, BBO_SEED="7", BBO_ARENA_HOSTED="1")
        self.proc = subprocess.Popen(
            ["/usr/bin/python3", "-u", script], cwd=cwd, env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def call(self, msg):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        return json.loads(line)

    def end(self):
        self.proc.stdin.write(json.dumps({"type": "end", "reason": "done"}) + "\n")
        self.proc.stdin.flush()
        return self.proc.wait(timeout=10)


def write_optimizer(body):
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "optimizer.py"), "w") as f:
        f.write(textwrap.dedent(body))
    return d


class HostingProtocolTest(unittest.TestCase):
    def run_study(self, script, cwd, batches=16):
        drv = Driver(script, cwd)
        ready = drv.call({"type": "start", "api_config": API_CONFIG, "batch_size": 8,
                          "n_batches": batches, "remaining_s": 640})
        self.assertEqual(ready["type"], "ready")
        space = JointSpace(API_CONFIG)
        for b in range(batches):
            reply = drv.call({"type": "suggest", "batch": b, "n": 8, "remaining_s": 600})
            self.assertEqual(reply["type"], "suggestions", reply)
            self.assertEqual(len(reply["x"]), 8)
            space.validate(reply["x"])
            y = [1.0] * 7 + ["inf"]
            self.assertEqual(drv.call({"type": "observe", "batch": b, "x": reply["x"], "y": y})["type"],
                             "observed")
        self.assertEqual(drv.end(), 0)

    def test_unchanged_random_search_example_runs_a_study(self):
        self.run_study("optimizer.py", os.path.join(ROOT, "examples", "random-search-py"))

    def test_stray_prints_do_not_corrupt_the_protocol(self):
        d = write_optimizer("""
            from bayesmark.abstract_optimizer import AbstractOptimizer
            from bayesmark.experiment import experiment_main
            import bayesmark.random_search as rs
            print("hello at import")
            class Chatty(AbstractOptimizer):
                def suggest(self, n_suggestions=1):
                    print("suggesting", n_suggestions)
                    return rs.suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)
                def observe(self, X, y):
                    print("observed", y)
            if __name__ == "__main__":
                experiment_main(Chatty)
        """)
        self.run_study("optimizer.py", d, batches=3)

    def test_suggest_that_raises_answers_error_and_keeps_serving(self):
        d = write_optimizer("""
            from bayesmark.abstract_optimizer import AbstractOptimizer
            from bayesmark.experiment import experiment_main
            class Broken(AbstractOptimizer):
                calls = 0
                def suggest(self, n_suggestions=1):
                    Broken.calls += 1
                    if Broken.calls == 1:
                        raise RuntimeError("boom")
                    return [{"C": 1.0, "kernel": "rbf", "n_estimators": 10, "bootstrap": True, "frac": 0.5}] * n_suggestions
                def observe(self, X, y):
                    assert np.isinf(y[-1]) if False else True
            import numpy as np
            if __name__ == "__main__":
                experiment_main(Broken)
        """)
        drv = Driver("optimizer.py", d)
        self.assertEqual(drv.call({"type": "start", "api_config": API_CONFIG})["type"], "ready")
        err = drv.call({"type": "suggest", "batch": 0, "n": 8})
        self.assertEqual(err["type"], "error")
        self.assertIn("RuntimeError: boom", err["message"])
        self.assertEqual(drv.call({"type": "suggest", "batch": 1, "n": 8})["type"], "suggestions")
        self.assertEqual(drv.end(), 0)

    def test_numpy_values_and_nan_are_sent_as_json(self):
        d = write_optimizer("""
            import numpy as np
            from bayesmark.abstract_optimizer import AbstractOptimizer
            from bayesmark.experiment import experiment_main
            class Np(AbstractOptimizer):
                def suggest(self, n_suggestions=1):
                    return [{"C": np.float64(2.0), "kernel": np.str_("rbf"), "n_estimators": np.int64(12),
                             "bootstrap": np.bool_(True), "frac": float("nan")}] * n_suggestions
                def observe(self, X, y):
                    pass
            if __name__ == "__main__":
                experiment_main(Np)
        """)
        drv = Driver("optimizer.py", d)
        drv.call({"type": "start", "api_config": API_CONFIG})
        x = drv.call({"type": "suggest", "batch": 0, "n": 1})["x"][0]
        self.assertEqual(x, {"C": 2.0, "kernel": "rbf", "n_estimators": 12, "bootstrap": True,
                             "frac": "nan"})
        drv.end()


class NpUtilTest(unittest.TestCase):
    def test_helpers_optimizers_import(self):
        self.assertEqual(tuple(np_util.argmin_2d(np.array([[3, 1], [0, 5]]))), (1, 0))
        self.assertTrue(np_util.isclose_lte(1.0 + 1e-12, 1.0))
        self.assertFalse(np_util.isclose_lte(1.1, 1.0))
        self.assertEqual(np_util.cummin([5, 3, 4], [2, 1, 1]).tolist(), [5, 3, 4])
        self.assertEqual(np_util.clip_chk(np.array([-1e-12, 1.0 + 1e-12]), 0.0, 1.0).tolist(), [0.0, 1.0])
        self.assertEqual(np_util.linear_rescale(5.0, 0.0, 10.0, 0.0, 1.0), 0.5)
        seed = np_util.random_seed(np.random.RandomState(0))
        self.assertTrue(0 <= seed < 2 ** 32 - 1)


class SpaceTest(unittest.TestCase):
    def test_warp_unwarp_round_trip_with_one_hot_cat(self):
        space = JointSpace(API_CONFIG)
        self.assertEqual(space.param_list, sorted(API_CONFIG))
        self.assertEqual(space.get_bounds().shape, (1 + 1 + 1 + 3 + 1, 2))
        X = [{"C": 10.0, "kernel": "poly", "n_estimators": 37, "bootstrap": False, "frac": 0.25}]
        W = space.warp(X)
        self.assertEqual(W.shape, (1, 7))
        self.assertAlmostEqual(W[0, 0], np.log(10.0))
        back = space.unwarp(W)[0]
        self.assertEqual(back["kernel"], "poly")
        self.assertEqual(back["n_estimators"], 37)
        self.assertFalse(back["bootstrap"])
        self.assertAlmostEqual(back["frac"], 0.25)

    def test_cat_one_hot_columns_follow_sorted_values_like_bayesmark(self):
        space = JointSpace({"k": {"type": "cat", "values": ["rbf", "linear", "poly"]}})
        self.assertEqual(space.spaces["k"].values.tolist(), ["linear", "poly", "rbf"])
        self.assertEqual(space.warp([{"k": "rbf"}]).tolist(), [[0.0, 0.0, 1.0]])
        self.assertEqual(space.unwarp([[0.2, 0.9, 0.1]]), [{"k": "poly"}])

    def test_values_snap_to_the_nearest_listed_value(self):
        space = JointSpace({"b": {"type": "int", "space": "log", "values": [16, 32, 64]},
                            "r": {"type": "real", "space": "linear", "range": [0, 1]}})
        self.assertEqual(space.unwarp([[np.log(40.0), 0.5]]), [{"b": 32, "r": 0.5}])
        pts = suggest_dict([], [], {"b": {"type": "int", "space": "linear", "values": [16, 32, 64]}},
                           n_suggestions=50)
        self.assertTrue(all(p["b"] in (16, 32, 64) for p in pts))

    def test_grid_missing_keys_and_fixed_vals(self):
        space = JointSpace(API_CONFIG)
        grid = space.grid(max_interp=4)
        self.assertEqual(grid["n_estimators"][0], 10)
        self.assertEqual(grid["n_estimators"][-1], 200)
        self.assertEqual(grid["bootstrap"], [False, True])
        W = space.warp([{"C": 10.0}])  # other parameters missing -> NaN
        self.assertTrue(np.isnan(W[0, 1:]).all())
        X = space.unwarp(space.get_bounds()[:, 0][None, :], fixed_vals={"kernel": "linear"})
        self.assertEqual(X[0]["kernel"], "linear")
        self.assertEqual(X[0]["C"], 1.0)

    def test_suggest_dict_is_valid_and_uniform_in_warped_space(self):
        np_util.random.seed(1)
        pts = suggest_dict([], [], API_CONFIG, n_suggestions=4000)
        JointSpace(API_CONFIG).validate(pts)
        for p in pts:
            self.assertIsInstance(p["n_estimators"], int)
        below_10 = np.mean([p["C"] < 10 for p in pts])
        self.assertAlmostEqual(below_10, 1 / 3, delta=0.04)
        self.assertEqual(set(p["kernel"] for p in pts), {"rbf", "linear", "poly"})


if __name__ == "__main__":
    unittest.main()
