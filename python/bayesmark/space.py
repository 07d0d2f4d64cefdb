"""Search spaces (the surface of bayesmark.space).

Each parameter type has a space class that warps values to a continuous space and back:
Real and Integer through their "space" (linear, log, logit, bilog), Boolean to {0, 1}, and
Categorical to a one-hot block with one column per value, values in sorted order (as Bayesmark
does). JointSpace combines the parameters of an api_config, sorted by name.
"""
import numpy as np

WARPED_DTYPE = np.float64
N_GRID_DEFAULT = 8


def _identity(x):
    return x


def _bilog(x):
    return np.sign(x) * np.log1p(np.abs(x))


def _biexp(x):
    return np.sign(x) * np.expm1(np.abs(x))


def _logit(x):
    return np.log(x / (1.0 - x))


def _logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


WARP_DICT = {"linear": _identity, "log": np.log, "logit": _logit, "bilog": _bilog}
UNWARP_DICT = {"linear": _identity, "log": np.exp, "logit": _logistic, "bilog": _biexp}


class Space(object):
    """A numeric parameter: warps values to a 1-column continuous space."""

    def __init__(self, dtype, warp="linear", values=None, range_=None):
        if warp is None:  # "space" omitted: linear (bbo-arena's api_configs allow it)
            warp = "linear"
        if warp not in WARP_DICT:
            raise ValueError("invalid space %r, allowed: %s" % (warp, sorted(WARP_DICT)))
        if (values is None) == (range_ is None):
            raise ValueError("exactly one of values and range must be given")
        self.dtype = dtype
        self.warp_f = WARP_DICT[warp]
        self.unwarp_f = UNWARP_DICT[warp]
        if values is not None:
            values = np.unique(np.asarray(values, dtype=dtype))
            range_ = (values[0], values[-1])
        self.values = values
        self.lower, self.upper = np.asarray(range_, dtype=dtype)
        lw, uw = self.warp_f(np.asarray([self.lower, self.upper], dtype=WARPED_DTYPE))
        self.lower_warped = np.array([lw], dtype=WARPED_DTYPE)
        # A point range still gets a non-empty warped interval.
        self.upper_warped = np.maximum(np.array([uw], dtype=WARPED_DTYPE),
                                       np.nextafter(self.lower_warped, np.inf))

    def round_to_values(self, x):
        if self.values is not None:
            idx = np.abs(np.asarray(x, dtype=float)[..., None] - self.values.astype(float)).argmin(axis=-1)
            return self.values[idx]
        if self.dtype is np.int_:
            return np.round(x)
        return x

    def validate(self, X, pre=False):
        X = np.asarray(X, dtype=self.dtype)
        if self.values is None:
            X = np.clip(X, self.lower, self.upper)
        elif not np.all(np.isin(X, self.values)):
            raise ValueError("values %s not in %s" % (X, self.values))
        return X

    def warp(self, X):
        """Values of shape (...) -> warped array of shape (..., 1)."""
        X = self.validate(X, pre=True)
        X_w = np.asarray(self.warp_f(np.asarray(X, dtype=WARPED_DTYPE)), dtype=WARPED_DTYPE)[..., None]
        return np.clip(X_w, self.lower_warped, self.upper_warped)

    def unwarp(self, X_w):
        """Warped array of shape (..., 1) -> values of shape (...), clipped and rounded."""
        X_w = np.clip(np.asarray(X_w, dtype=WARPED_DTYPE), self.lower_warped, self.upper_warped)
        X = np.clip(self.unwarp_f(X_w[..., 0]), self.lower, self.upper)
        return np.asarray(self.round_to_values(X)).astype(self.dtype)

    def get_bounds(self):
        """Warped bounds, shape (1, 2)."""
        return np.stack((self.lower_warped, self.upper_warped), axis=1)

    def grid(self, max_interp=N_GRID_DEFAULT):
        """The listed values, or max_interp points evenly spaced in the warped range."""
        if self.values is not None:
            return self.values.tolist()
        vw = np.linspace(self.lower_warped, self.upper_warped, max_interp)
        return np.unique(self.unwarp(vw)).tolist()


class Real(Space):
    def __init__(self, warp="linear", values=None, range_=None):
        Space.__init__(self, np.float64, warp, values, range_)


class Integer(Space):
    def __init__(self, warp="linear", values=None, range_=None):
        if warp == "logit":
            raise ValueError("an int cannot use the logit space")
        Space.__init__(self, np.int_, warp, values, range_)


class Boolean(Space):
    def __init__(self, warp=None, values=None, range_=None):
        if warp is not None or values is not None or range_ is not None:
            raise ValueError("bool takes no space, values or range")
        self.dtype = np.bool_
        self.values = np.array([False, True])
        self.lower, self.upper = False, True
        self.lower_warped = np.array([0.0])
        self.upper_warped = np.array([1.0])

    def validate(self, X, pre=False):
        return np.asarray(X, dtype=np.bool_)

    def warp(self, X):
        return np.asarray(self.validate(X), dtype=WARPED_DTYPE)[..., None]

    def unwarp(self, X_w):
        X_w = np.clip(np.asarray(X_w, dtype=WARPED_DTYPE), 0.0, 1.0)
        return np.round(X_w[..., 0]).astype(np.bool_)


class Categorical(Space):
    def __init__(self, warp=None, values=None, range_=None):
        if warp is not None or range_ is not None or values is None:
            raise ValueError("cat takes only values")
        self.values = np.unique(np.asarray(values, dtype=str))
        self.dtype = np.str_
        self.lower = self.upper = None
        self.lower_warped = np.zeros(len(self.values))
        self.upper_warped = np.ones(len(self.values))

    def validate(self, X, pre=False):
        X = np.asarray(X, dtype=str)
        if not np.all(np.isin(X, self.values)):
            raise ValueError("values %s not in %s" % (X, self.values.tolist()))
        return X

    def warp(self, X):
        """Values of shape (...) -> one-hot array of shape (..., n_values)."""
        X = self.validate(X)
        return (X[..., None] == self.values).astype(WARPED_DTYPE)

    def unwarp(self, X_w):
        """The value of the largest column."""
        X_w = np.asarray(X_w, dtype=WARPED_DTYPE)
        return self.values[np.argmax(X_w, axis=-1)]

    def grid(self, max_interp=N_GRID_DEFAULT):
        return self.values.tolist()


SPACE_DICT = {"real": Real, "int": Integer, "bool": Boolean, "cat": Categorical, "ordinal": Categorical}


class JointSpace(object):
    """All parameters of an api_config, sorted by name."""

    def __init__(self, meta):
        if len(meta) == 0:
            raise ValueError("empty api_config")
        self.param_list = sorted(meta.keys())
        self.spaces = {
            p: SPACE_DICT[c["type"]](c.get("space", None), c.get("values", None), c.get("range", None))
            for p, c in meta.items()
        }
        self.blocks = np.cumsum([len(self.spaces[p].get_bounds()) for p in self.param_list])

    def validate(self, X):
        """Raise ValueError unless every record has exactly the parameters, with valid values."""
        for record in X:
            if sorted(record.keys()) != self.param_list:
                raise ValueError("expected keys %s, got %s" % (self.param_list, sorted(record.keys())))
            for p in self.param_list:
                sp = self.spaces[p]
                v = record[p]
                if isinstance(sp, Categorical):
                    sp.validate([v])
                elif isinstance(sp, Boolean):
                    if v not in (True, False, 0, 1):
                        raise ValueError("%s=%r is not a bool" % (p, v))
                elif sp.values is not None:
                    sp.validate([v])
                elif not (sp.lower <= v <= sp.upper):
                    raise ValueError("%s=%r outside [%r, %r]" % (p, v, sp.lower, sp.upper))
        return X

    def warp(self, X):
        """List of n dicts -> array (n, m). A missing key warps to NaN columns."""
        if len(X) == 0:
            return np.zeros((0, int(self.blocks[-1])), dtype=WARPED_DTYPE)
        rows = [
            np.concatenate([
                self.spaces[p].warp(record[p]) if p in record
                else np.full(len(self.spaces[p].get_bounds()), np.nan)
                for p in self.param_list
            ])
            for record in X
        ]
        return np.stack(rows, axis=0).astype(WARPED_DTYPE)

    def unwarp(self, X_w, fixed_vals={}):
        """Array (n, m) -> list of n dicts of native Python values."""
        X_w = np.atleast_2d(np.asarray(X_w, dtype=WARPED_DTYPE))
        cols = np.hsplit(X_w, self.blocks[:-1])
        values = {p: self.spaces[p].unwarp(c) for p, c in zip(self.param_list, cols)}
        for p, v in fixed_vals.items():
            values[p] = np.full(X_w.shape[0], v)
        return [{p: values[p][i].item() for p in self.param_list} for i in range(X_w.shape[0])]

    def get_bounds(self):
        """Warped bounds, shape (m, 2)."""
        return np.concatenate([self.spaces[p].get_bounds() for p in self.param_list], axis=0)

    def grid(self, max_interp=N_GRID_DEFAULT):
        """Parameter name -> list of grid values."""
        return {p: self.spaces[p].grid(max_interp) for p in self.param_list}
