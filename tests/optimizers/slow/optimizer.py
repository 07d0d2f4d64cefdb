# Suggests good points, then sleeps far past the per-suggest budget on batch 2.
import time

import numpy as np
from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main


class SlowOptimizer(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        self.batch = 0

    def suggest(self, n_suggestions=1):
        self.batch += 1
        if self.batch == 3:
            time.sleep(30)
        return [{"x0": 0.3} for _ in range(n_suggestions)]

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(SlowOptimizer)
