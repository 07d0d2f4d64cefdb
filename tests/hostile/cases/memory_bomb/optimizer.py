"""Several large allocations (8 x 256 MiB, every page touched) in the second suggest: the
study's memory limit must kill it (the per-process address-space limit of 4 GiB would let all
2 GiB through), so the study ends with the memory limit as its reason and batch 0 stands."""
import bayesmark.random_search as rs
from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main

import hostile_lib as h

CHUNK = 256 << 20


class MemoryBomb(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        self.calls = 0
        self.hoard = []

    def suggest(self, n_suggestions=1):
        self.calls += 1
        if self.calls == 2:
            for _ in range(8):
                self.hoard.append(b"\x01" * CHUNK)  # allocated and written: resident
            p = h.Probes()
            p.record("memory_bomb_stopped", False, "allocated %d MiB" % (len(self.hoard) * 256))
            raise RuntimeError(p.messages()[0])
        return rs.suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(MemoryBomb)
