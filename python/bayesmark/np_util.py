"""Small numpy helpers (same names as bayesmark.np_util)."""
import numpy as np

# The random state optimizers share by default; experiment_main seeds it from BBO_SEED.
random = np.random.RandomState()


def random_seed(random=random):
    """A fresh 32-bit seed drawn from ``random``."""
    return random.randint(0, 2 ** 31 - 1)


def linear_rescale(X, lb0, ub0, lb1, ub1, enforce_bounds=True):
    """Map ``X`` linearly from [lb0, ub0] to [lb1, ub1] (elementwise)."""
    X = np.asarray(X, dtype=float)
    if enforce_bounds:
        X = np.clip(X, lb0, ub0)
    span0 = np.asarray(ub0, dtype=float) - lb0
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(span0 == 0, 0.0, (X - lb0) / np.where(span0 == 0, 1.0, span0))
    return lb1 + frac * (np.asarray(ub1, dtype=float) - lb1)


def clip_chk(x, lb, ub):
    """Clip ``x`` to [lb, ub]."""
    return np.clip(x, lb, ub)
