"""A well-behaved optimizer: the archive the runner builds around it is the attack (see
expect.json and build_archive in ../../run_hostile.py)."""
from bayesmark.experiment import experiment_main

import hostile_lib as h

if __name__ == "__main__":
    experiment_main(h.innocent_optimizer())
