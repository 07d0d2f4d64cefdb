# Fails unless every parameter name it is given is opaque (p0, p1, ...): checks that a hidden,
# anonymized phase never shows real names to an optimizer. Suggests random points otherwise.
import re

from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main
from bayesmark.random_search import suggest_dict


class AnonCheck(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        for name in api_config:
            if not re.fullmatch(r"p[0-9]+", name):
                raise RuntimeError("a real parameter name reached the optimizer: " + name)

    def suggest(self, n_suggestions=1):
        return suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)

    def observe(self, X, y):
        for x in X:
            for name in x:
                assert re.fullmatch(r"p[0-9]+", name), name


if __name__ == "__main__":
    experiment_main(AnonCheck)
