"""Random search (same surface as bayesmark.random_search)."""
import numpy as np

from bayesmark import np_util
from bayesmark.space import JointSpace


def suggest_dict(X, y, meta, n_suggestions=1, random=np_util.random):
    """``n_suggestions`` points drawn uniformly in the warped space of api_config ``meta``.

    real/int: uniform in the warped range, then unwarped (ints rounded); cat: uniform over the
    values; bool: uniform. ``X`` and ``y`` (past observations) are ignored.
    """
    space = JointSpace(meta)
    out = []
    for _ in range(n_suggestions):
        point = {}
        for k in space.param_list:
            p = space.spaces[k]
            if p.type == "cat":
                point[k] = p.values[random.randint(len(p.values))]
            elif p.type == "bool":
                point[k] = bool(random.randint(2))
            elif p.values is not None:
                v = float(p.values[random.randint(len(p.values))])
                point[k] = int(round(v)) if p.type == "int" else v
            else:
                lo, hi = p.bounds()[0]
                point[k] = p.unwarp_value(np.array([random.uniform(lo, hi)]))
        out.append(point)
    return out
