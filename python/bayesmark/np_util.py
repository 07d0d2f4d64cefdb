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


def argmin_2d(X):
    """Index (i, j) of the smallest element of a 2-d array."""
    X = np.asarray(X)
    return np.unravel_index(np.argmin(X), X.shape)


def isclose_lte(x, y):
    """x <= y, or x and y equal up to floating-point tolerance (elementwise)."""
    return np.logical_or(np.less_equal(x, y), np.isclose(x, y))


def snap_to(x, fixed_val=None):
    """``x``, or ``fixed_val`` broadcast to its shape when given (after checking they agree)."""
    if fixed_val is None:
        return x
    x = np.asarray(x)
    fixed = np.full(x.shape, fixed_val, dtype=x.dtype)
    if x.dtype.kind in "fc" and not np.allclose(x, fixed):
        raise ValueError("values %s do not match the fixed value %r" % (x, fixed_val))
    return fixed


def cummin(x_val, x_key):
    """Cumulative minimum of ``x_val`` along axis 0, ranked by ``x_key`` (latest index on ties)."""
    x_val, x_key = np.asarray(x_val), np.asarray(x_key)
    n = x_key.shape[0]
    running = np.minimum.accumulate(x_key, axis=0)
    idx = np.maximum.accumulate((x_key <= running) * np.arange(n).reshape((n,) + (1,) * (x_key.ndim - 1)),
                                axis=0)
    return np.take_along_axis(x_val, idx, axis=0)
