"""bbo-arena's Bayesmark-compatible package.

This is not Uber's Bayesmark: it re-implements the part of Bayesmark's API that optimizer
submissions use (abstract_optimizer, experiment.experiment_main, space.JointSpace,
random_search.suggest_dict, np_util.random), so that an unchanged Bayesmark optimizer runs under
bbo-arena. `experiment_main` speaks bbo-arena's hosting protocol (docs/hosting-protocol.md) over
stdin/stdout instead of running a local benchmark.
"""

__version__ = "0.0.8"

import os as _os

# Under a bbo-arena worker, claim stdout for the protocol as soon as bayesmark is imported, so
# that even prints at import time of the participant's module go to stderr.
if _os.environ.get("BBO_ARENA_HOSTED") == "1":
    from bayesmark import _channel

    _channel.claim()
