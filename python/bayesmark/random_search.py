"""Random search (the surface and checks of bayesmark.random_search)."""
import numpy as np

from bayesmark import np_util
from bayesmark.space import JointSpace


def suggest_dict(X, y, meta, n_suggestions=1, random=np_util.random):
    """``n_suggestions`` points drawn uniformly in the warped space of api_config ``meta``.

    Uniform in the warped bounds, then unwarped: real/int uniform in their warped range (ints
    rounded, listed values snapped), cat uniform over values (largest of a uniform one-hot block),
    bool uniform. ``X`` (list of dicts) and ``y`` (shape (len(X),)) are past observations: not
    used, but checked as Bayesmark does (ValueError if ``y`` has the wrong shape or holds inf).
    """
    space = JointSpace(meta)
    X_w = space.warp(X)
    _, n_params = _check_x_y(X_w, y, allow_impute=True)
    lb, ub = _check_bounds(space.get_bounds(), n_params)
    return space.unwarp(random.uniform(lb, ub, size=(n_suggestions, n_params)))


def _check_x_y(X, y, allow_impute=False):
    """Number of usable observations and of warped columns; ValueError on malformed input."""
    if np.ndim(X) != 2:
        raise ValueError("X must be 2-dimensional got %s." % str(np.shape(X)))
    n_obs, n_params = np.shape(X)
    if n_params < 1:
        raise AssertionError("We do not support suggest on empty space.")
    if np.shape(y) != (n_obs,):
        raise ValueError("y must be %s not %s." % (str((n_obs,)), str(np.shape(y))))
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be finite.")
    if allow_impute:
        if not np.all(np.isfinite(y) | np.isnan(y)):
            raise ValueError("y can't contain infs even with data imputation.")
        return np.sum(np.isfinite(y)), n_params
    if not np.all(np.isfinite(y)):
        raise ValueError("y must be finite when data imputation not used.")
    return n_obs, n_params


def _check_bounds(bounds, n_params):
    """Lower and upper warped bounds; ValueError unless finite, ordered and of shape (n_params, 2)."""
    if np.shape(bounds) != (n_params, 2):
        raise ValueError("bounds must have shape %s not %s." % (str((n_params, 2)), str(np.shape(bounds))))
    lb, ub = np.asarray(bounds).T
    if not (np.all(np.isfinite(lb)) and np.all(np.isfinite(ub))):
        raise ValueError("bounds must be finite.")
    if not np.all(lb <= ub):
        raise ValueError("lower bound must be less than upper bound.")
    return lb, ub
