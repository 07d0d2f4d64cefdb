"""Random search (the surface of bayesmark.random_search)."""
import numpy as np

from bayesmark import np_util
from bayesmark.space import JointSpace


def suggest_dict(X, y, meta, n_suggestions=1, random=np_util.random):
    """``n_suggestions`` points drawn uniformly in the warped space of api_config ``meta``.

    Uniform in the warped bounds, then unwarped: real/int uniform in their warped range (ints
    rounded), cat uniform over values (argmax of a uniform one-hot block), bool uniform.
    ``X`` and ``y`` (past observations) are ignored.
    """
    space = JointSpace(meta)
    bounds = space.get_bounds()
    X_w = random.uniform(bounds[:, 0], bounds[:, 1], size=(n_suggestions, len(bounds)))
    return space.unwarp(X_w)
