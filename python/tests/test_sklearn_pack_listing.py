"""The scikit-learn pack's fast listing (--describe-all, no data loaded) says exactly what each
problem's own describe reply says once its data is loaded."""

import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACK = os.path.join(HERE, "..", "problems", "sklearn_pack.py")
sys.path.insert(0, os.path.join(HERE, "..", "problems"))

import sklearn_pack  # noqa: E402


class DescribeAllTest(unittest.TestCase):
    def test_listing_matches_each_problems_describe_reply(self):
        out = subprocess.run(["/usr/bin/python3", PACK, "--describe-all"], check=True,
                             capture_output=True, text=True, timeout=60).stdout
        listed = {d["name"]: d for d in json.loads(out)}
        self.assertEqual(sorted(listed), sorted(sklearn_pack.problem_names()))
        for name in ["DT_iris_nll", "kNN_wine_acc", "MLP-adam_diabetes_mse"]:
            loaded = sklearn_pack.SklearnProblem(name).describe()
            self.assertEqual(listed[name], json.loads(json.dumps(loaded)), name)


if __name__ == "__main__":
    unittest.main()
