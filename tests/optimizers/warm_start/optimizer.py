# "Warm starts" from parameter names, as teams did on the NeurIPS 2020 warm-start board: when the
# space has a parameter named x0 (the end-to-end tests' problem, (x0 - 0.3)^2), it suggests the
# optimum found on earlier problems with that name; with opaque names (p0, p1, ...) it can only
# search at random.
from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main
from bayesmark.random_search import suggest_dict


class WarmStart(AbstractOptimizer):
    def suggest(self, n_suggestions=1):
        if "x0" in self.api_config:
            return [{"x0": 0.3} for _ in range(n_suggestions)]
        return suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(WarmStart)
