"""A well-behaved optimizer: the archive the runner builds around it is the attack (see
expect.json and build_archive in ../../run_hostile.py)."""
import bayesmark.random_search as rs
from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main


class Innocent(AbstractOptimizer):
    def suggest(self, n_suggestions=1):
        return rs.suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(Innocent)
