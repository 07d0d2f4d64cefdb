"""Small numpy helpers, with the names, results and exceptions of ``bayesmark.np_util``.

Bayesmark checks its internal invariants with ``assert``; the same checks here raise
``AssertionError`` (also under ``python -O``), and the one input check (``snap_to``) raises
``ValueError``, as Bayesmark's do.
"""
import numpy as np

# A RandomState seed lies in [0, 2**32 - 1].
SEED_MAX_INCL = np.iinfo(np.uint32).max

# numpy's global RandomState, the one np.random.seed() seeds (Bayesmark's np_util.random is that
# object too), so seeding the global stream makes every default ``random=`` argument reproducible.
random = np.random.mtrand._rand


def _check(ok, msg=""):
    if not ok:
        raise AssertionError(msg)


def random_seed(random=random):
    """A seed for a new RandomState drawn from ``random``: ``random.randint(0, 2**32 - 1)``.

    The upper limit is exclusive for a numpy RandomState ([0, 2**32 - 2]) and inclusive for a
    Python ``random.Random`` ([0, 2**32 - 1]), as in Bayesmark.
    """
    return random.randint(0, SEED_MAX_INCL)


def shuffle_2d(X, random=random):
    """Shuffle, in place, the rows of ``X`` and then the elements within each row."""
    random.shuffle(X)
    for row in X:
        random.shuffle(row)


def strat_split(X, n_splits, inplace=False, random=random):
    """Split the (n, m) array ``X`` into ``n_splits`` groups at random, stratified by row.

    Each group gets the same number (+/- 1) of elements of every row. Returns a list of 1-d
    arrays (groups may differ in length by one). ``X`` is shuffled in place when ``inplace``.
    """
    _check(np.ndim(X) == 2, "X must be 2-dimensional")
    _check(n_splits > 0, "n_splits must be positive")
    if not inplace:
        X = np.array(X, copy=True)
    shuffle_2d(X, random=random)
    # Column-major order deals the elements of each row out to the groups in turn.
    groups = np.array_split(np.ravel(X, order="F"), n_splits)
    shuffle_2d(groups, random=random)
    return groups


def isclose_lte(x, y):
    """Elementwise ``x <= y`` or ``np.isclose(x, y)``."""
    return np.less_equal(x, y) | np.isclose(x, y)


def clip_chk(x, lb, ub, allow_nan=False):
    """``np.clip(x, lb, ub)`` after checking that ``x`` is within [lb, ub] up to ``np.isclose``.

    Raises AssertionError when ``lb > ub`` or an element of ``x`` is further outside the bounds
    (or NaN, unless ``allow_nan``). A 0-d input gives a numpy scalar, as ``np.clip`` does.
    """
    _check(np.all(lb <= ub), "lower bound above upper bound")
    x = np.asarray(x)
    nan = np.isnan(x) if allow_nan else False
    _check(np.all(isclose_lte(lb, x) | nan), "value below the lower bound")
    _check(np.all(isclose_lte(x, ub) | nan), "value above the upper bound")
    return np.clip(x, lb, ub)


def snap_to(x, fixed_val=None):
    """``x`` when ``fixed_val`` is None, else ``fixed_val`` broadcast to the shape of ``x``.

    Raises ValueError unless ``x`` equals ``fixed_val`` (exactly, or ``np.allclose`` for numbers).
    """
    if fixed_val is None:
        return x
    if not (np.all(x == fixed_val) or np.allclose(x, fixed_val)):
        raise ValueError("Expected fixed value %r, got %r." % (fixed_val, x))
    return np.broadcast_to(fixed_val, np.shape(x))


def linear_rescale(X, lb0, ub0, lb1, ub1, enforce_bounds=True):
    """Map ``X`` linearly from [lb0, ub0] to [lb1, ub1] (elementwise, broadcasting).

    ``y = (ub1 - lb1) / (ub0 - lb0) * (X - lb0) + lb1``. Bounds must be finite with ``lb0 < ub0``
    and ``lb1 <= ub1`` (AssertionError otherwise). With ``enforce_bounds`` the input and the
    output go through :func:`clip_chk`.
    """
    for bound in (lb0, lb1, ub0, ub1):
        _check(np.all(np.isfinite(bound)), "bounds must be finite")
    _check(np.all(lb0 < ub0), "lb0 must be below ub0")
    _check(np.all(lb1 <= ub1), "lb1 must not be above ub1")
    slope = np.true_divide(ub1 - lb1, ub0 - lb0)
    _check(np.all(slope >= 0), "negative slope")
    if not enforce_bounds:
        return slope * (X - lb0) + lb1
    X = clip_chk(X, lb0, ub0)
    return clip_chk(slope * (X - lb0) + lb1, lb1, ub1)


def argmin_2d(X):
    """Index ``(i, j)`` of the smallest element of the 2-d numpy array ``X``."""
    i, j = np.unravel_index(X.argmin(), X.shape)
    return i, j


def cummin(x_val, x_key):
    """Cumulative minimum of ``x_val`` along axis 0, ranked by ``x_key`` (latest index on ties).

    A bbo-arena helper; Bayesmark's np_util has no such function.
    """
    x_val, x_key = np.asarray(x_val), np.asarray(x_key)
    n = x_key.shape[0]
    running = np.minimum.accumulate(x_key, axis=0)
    idx = np.maximum.accumulate((x_key <= running) * np.arange(n).reshape((n,) + (1,) * (x_key.ndim - 1)),
                                axis=0)
    return np.take_along_axis(x_val, idx, axis=0)
