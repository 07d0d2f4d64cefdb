# Takes 3 s to start (longer than the test phase's 2 s per-suggest budget), then suggests well.
# Start-up is not charged: the study must complete.
import time

from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main


class SlowStartOptimizer(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        time.sleep(3)

    def suggest(self, n_suggestions=1):
        return [{"x0": 0.3} for _ in range(n_suggestions)]

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(SlowStartOptimizer)
