"""Random search written against Bayesmark's API, as in the NeurIPS 2020 BBO starter kit.

It runs unchanged under Bayesmark and under bbo-arena.
"""
from bayesmark import np_util
import bayesmark.random_search as rs
from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main
from bayesmark.space import JointSpace


class RandomOptimizer(AbstractOptimizer):
    primary_import = "bayesmark"

    def __init__(self, api_config, random=np_util.random):
        """Build the optimizer for the search space ``api_config``."""
        AbstractOptimizer.__init__(self, api_config)
        self.random = random
        self.space = JointSpace(api_config)  # unused; shows the API is there

    def suggest(self, n_suggestions=1):
        """Random points, uniform in the warped space."""
        return rs.suggest_dict([], [], self.api_config, n_suggestions=n_suggestions, random=self.random)

    def observe(self, X, y):
        """Random search ignores what it observes."""


if __name__ == "__main__":
    experiment_main(RandomOptimizer)
