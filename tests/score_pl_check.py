#!/usr/bin/env python3
"""`bbo score --json` carries the Plackett-Luce view: plackett_luce.final.posterior_mean under the
independent Dirichlet(1) model with one ranking per (problem, trial index) by best value.

Case worked by hand: one problem, one trial, three methods whose best values rank
good < random-search < bad. With a Dirichlet(1) prior and one full ranking the posterior means
of the normalised ratings are (1/2, 1/3, 1/6) (the Plackett-Luce likelihood of one ranking
integrated against the flat prior on the simplex). Adding a second problem that ranks them the
other way round gives good and bad equal means by symmetry, (0.3108, 0.3785, 0.3108) for
(good, random-search, bad): computed once by importance sampling 4 million Dirichlet(1) draws
weighted by the two rankings' likelihood (Monte-Carlo error below 0.001).
"""

import json
import os
import subprocess
import sys
import tempfile


def score(bbo, rows):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r.csv")
        with open(path, "w") as f:
            f.write("problem,method,trial,batch,suggestion,value\n")
            for r in rows:
                f.write(",".join(str(x) for x in r) + "\n")
        out = subprocess.run([bbo, "score", path, "--json"], check=True, capture_output=True,
                             text=True, timeout=120).stdout
    return json.loads(out)["plackett_luce"]["final"]["posterior_mean"]


def rows_for(problem, order):
    out = []
    for rank, method in enumerate(order):
        for batch in range(2):
            out.append((problem, method, 0, batch, 0, float(rank + 1 + batch)))
    return out


def main():
    bbo = sys.argv[1]
    failures = []
    means = score(bbo, rows_for("p", ["good", "random-search", "bad"]))
    for method, want in [("good", 1 / 2), ("random-search", 1 / 3), ("bad", 1 / 6)]:
        if abs(means[method] - want) > 0.02:
            failures.append(f"one ranking: {method} {means[method]:.4f}, want {want:.4f}")
    both = score(bbo, rows_for("p", ["good", "random-search", "bad"]) +
                 rows_for("q", ["bad", "random-search", "good"]))
    for method, want in [("good", 0.3108), ("random-search", 0.3785), ("bad", 0.3108)]:
        if abs(both[method] - want) > 0.02:
            failures.append(f"opposite rankings: {method} {both[method]:.4f}, want {want:.4f}")
    for f in failures:
        print("FAILED", f)
    print(f"plackett_luce.final.posterior_mean: {means} / {both}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
