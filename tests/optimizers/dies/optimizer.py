# The process exits abruptly during the third suggest.
import os

from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main


class DiesOptimizer(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        self.batch = 0

    def suggest(self, n_suggestions=1):
        self.batch += 1
        if self.batch == 3:
            os._exit(3)
        return [{"x0": 0.3 + 0.01 * self.batch} for _ in range(n_suggestions)]

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(DiesOptimizer)
