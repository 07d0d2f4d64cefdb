# Deterministic random search that takes a little time per batch (0.08 s), so that a study is
# long enough to be interrupted: its points depend only on BBO_SEED (the job's seed), so a job
# run again from the start suggests exactly the same points.
import os
import random
import time

from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main


class SteadyOptimizer(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        self.rng = random.Random(int(os.environ.get("BBO_SEED", "0")))

    def suggest(self, n_suggestions=1):
        time.sleep(0.08)
        out = []
        for _ in range(n_suggestions):
            point = {}
            for name, conf in sorted(self.api_config.items()):
                lo, hi = conf["range"]
                point[name] = lo + (hi - lo) * self.rng.random()
            out.append(point)
        return out

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(SteadyOptimizer)
