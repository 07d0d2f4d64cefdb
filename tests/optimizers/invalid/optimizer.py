# Each batch carries one kind of invalid suggestion (bbo-arena e2e test).
from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main

GOOD = {"x0": 0.3}
KINDS = [
    lambda: [{"x0": 2.5}],                 # out of range
    lambda: [{"x0": 0.3, "extra": 1.0}],   # extra key
    lambda: [{}],                          # missing key
    lambda: [{"x0": "abc"}],               # wrong type
    lambda: [{"x0": float("nan")}],        # NaN
]


class InvalidOptimizer(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        self.batch = 0

    def suggest(self, n_suggestions=1):
        b = self.batch
        self.batch += 1
        if b < len(KINDS):
            return KINDS[b]() + [dict(GOOD) for _ in range(n_suggestions - 1)]
        if b == len(KINDS):
            return [dict(GOOD) for _ in range(n_suggestions - 2)]  # wrong count
        return [dict(GOOD) for _ in range(n_suggestions)]

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(InvalidOptimizer)
