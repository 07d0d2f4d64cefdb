# Raises in suggest on batch 1; observes must still arrive with the random-search points.
from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main


class RaisesOptimizer(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        self.batch = 0

    def suggest(self, n_suggestions=1):
        self.batch += 1
        if self.batch == 2:
            raise ValueError("deliberate failure in suggest")
        return [{"x0": 0.3} for _ in range(n_suggestions)]

    def observe(self, X, y):
        assert len(X) == len(y)


if __name__ == "__main__":
    experiment_main(RaisesOptimizer)
