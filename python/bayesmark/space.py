"""Search spaces, with the names, types and exceptions of ``bayesmark.space``.

Each parameter type has a space class that warps values to a continuous space and back: Real and
Integer through their "space" (linear, log, logit, bilog), Boolean to [0, 1], Categorical to a
one-hot block with one column per value, values in sorted order. JointSpace combines the
parameters of an api_config, sorted by name.

Types follow Bayesmark exactly, because optimizers test them (nevergrad's wrapper asserts
``np.isscalar`` on ``Real.unwarp([v])``):

* ``Space.warp(X)`` returns a float64 array of shape ``X.shape + (m,)``.
* ``Space.unwarp(X_w)`` of a space given by a ``range`` (real, int) ends with ``np.clip``, so a
  single point (``X_w`` of shape (m,)) unwarps to a numpy scalar (np.float64 / np.int64); a space
  given by ``values`` (and bool, cat) ends with ``np.asarray``, so a single point unwarps to a
  0-d array. ``Space.validate`` likewise.
* ``JointSpace.unwarp`` returns dicts of native Python values (float, int, bool, str).

Errors: a malformed api_config raises AssertionError (missing or unknown "space", type or key
combinations) or ValueError (bad ranges or values, warped bounds that are not finite); a value
outside a range raises AssertionError (``np_util.clip_chk``); a value not among listed values, a
cat value not listed, a wrongly shaped warped array given to ``unwarp`` or records with the wrong
keys raise ValueError.
"""
import numpy as np
from scipy.interpolate import interp1d
from scipy.special import expit as logistic  # noqa: F401  (public name, as in Bayesmark)
from scipy.special import logit

from bayesmark.np_util import clip_chk, snap_to

WARPED_DTYPE = np.float64
N_GRID_DEFAULT = 8

# Categorical values are numpy unicode strings; unwarped to Python str.
CAT_DTYPE = np.str_
CAT_KIND = "U"
CAT_NATIVE_DTYPE = str


def _check(ok, msg=""):
    if not ok:
        raise AssertionError(msg)


def unravel_index(dims):
    """Coordinate arrays that visit every element of an array of shape ``dims`` (row-major).

    Like ``np.unravel_index(range(np.prod(dims)), dims)``, but ``()`` for ``dims == ()`` or an
    empty shape.
    """
    size = np.prod(dims)
    if dims == () or size == 0:
        return ()
    return np.unravel_index(range(size), dims)


def encode(X, labels, assume_sorted=False, dtype=bool, assume_valid=False):
    """One-hot encoding of the categorical array ``X`` (any shape) over ``labels``.

    Returns an array of shape ``X.shape + (n_labels,)`` and dtype ``dtype``; the columns follow
    the sorted unique labels (``labels`` as given when ``assume_sorted``). Unless
    ``assume_valid``, a value of ``X`` not among the labels raises AssertionError.
    """
    X = np.asarray(X)
    labels = np.asarray(labels) if assume_sorted else np.unique(labels)
    check_array(labels, "labels", pre=True, ndim=1, min_size=1)
    idx = np.searchsorted(labels, X)
    _check(assume_valid or np.all(np.asarray(labels[idx]) == X), "X has values not in labels")
    Y = np.zeros(X.shape + (len(labels),), dtype=dtype)
    Y[unravel_index(X.shape) + (idx.ravel(),)] = True
    return Y


def decode(Y, labels, assume_sorted=False):
    """Inverse of :func:`encode`: the label of the largest column of each one-hot vector."""
    Y = np.asarray(Y)
    labels = np.asarray(labels) if assume_sorted else np.unique(labels)
    check_array(labels, "labels", pre=True, ndim=1, min_size=1)
    check_array(Y, "Y", pre=True, shape_endswith=(len(labels),))
    return labels[np.argmax(Y, axis=-1)]


def _error(msg, pre=False):
    """A failed check: ValueError for a precondition (``pre``), else AssertionError."""
    if pre:
        raise ValueError(msg)
    raise AssertionError(msg)


def check_array(X, name, pre=False, ndim=None, shape=None, shape_endswith=(), min_size=0, dtype=None,
                kind=None, allow_infinity=True, allow_nan=True, unsorted=True, whitelist=None):
    """Check properties of the numpy array ``X``; each argument left at its default passes.

    A failed check raises ValueError when ``pre`` (a precondition on a caller's input), else
    AssertionError. ``unsorted=False`` requires a 1-d ``X`` to be sorted; ``whitelist`` requires
    every element of ``X`` to be one of its elements.
    """
    if ndim is not None and X.ndim != ndim:
        _error("Expected %d dimensions for %s, got %d" % (ndim, name, X.ndim), pre)
    if shape is not None and X.shape != shape:
        _error("Expected shape %s for %s, got %s" % (shape, name, X.shape), pre)
    if len(shape_endswith) > 0 and X.shape[-len(shape_endswith):] != tuple(shape_endswith):
        _error("Expected shape (..., %s) for %s, got %s"
               % (", ".join(str(d) for d in shape_endswith), name, X.shape), pre)
    if min_size > 0 and X.size < min_size:
        _error("%s needs at least %d elements, it has %d" % (name, min_size, X.size), pre)
    if dtype is not None and X.dtype != np.dtype(dtype):
        _error("Expected dtype %s for %s, got %s" % (np.dtype(dtype), name, X.dtype), pre)
    if kind is not None and X.dtype.kind != kind:
        _error("Expected array with kind %s for %s, got %s" % (kind, name, X.dtype.kind), pre)
    if not allow_infinity and np.any(np.abs(X) == np.inf):
        _error("Infinity is not allowed in %s" % name, pre)
    if not allow_nan and np.any(np.isnan(X)):
        _error("NaN is not allowed in %s" % name, pre)
    if whitelist is not None and not np.all(np.isin(X, whitelist)):
        _error("Expected all elements of %s to be in %s" % (name, whitelist), pre)
    if X.ndim == 1 and not unsorted and np.any(X[:-1] > X[1:]):
        _error("Expected sorted input for %s" % name, pre)


# ============================================================================
# Warping functions
# ============================================================================


def identity(x):
    """The linear warp: ``x`` itself."""
    return x


def bilog(x):
    """``sign(x) * log(1 + |x|)``: a log warp defined for negative numbers, ``bilog(0) = 0``."""
    return np.sign(x) * np.log(1.0 + np.abs(x))


def biexp(x):
    """Inverse of :func:`bilog`: ``sign(x) * (exp(|x|) - 1)``."""
    return np.sign(x) * (np.exp(np.abs(x)) - 1.0)


# logit(p) = log(p / (1 - p)) and its inverse logistic(x) = 1 / (1 + exp(-x)) are scipy's.
WARP_DICT = {"linear": identity, "log": np.log, "logit": logit, "bilog": bilog}
UNWARP_DICT = {"linear": identity, "log": np.exp, "logit": logistic, "bilog": biexp}


# ============================================================================
# One parameter
# ============================================================================


class Space(object):
    """A parameter given by a ``range`` or by ``values``, warped to one continuous column.

    ``default_round`` rounds unwarped values when a range is given (identity for reals,
    ``np.round`` for ints); with ``values`` unwarped values snap to the nearest listed value
    (ties go to the lower one).
    """

    def __init__(self, dtype, default_round, warp="linear", values=None, range_=None):
        self.dtype = dtype
        _check(warp in WARP_DICT, "invalid space %s, allowed spaces are: %s" % (warp, list(WARP_DICT)))
        self.warp_f = WARP_DICT[warp]
        self.unwarp_f = UNWARP_DICT[warp]

        _check((values is None) != (range_ is None), "give exactly one of values and range")
        round_to_values = default_round
        if range_ is None:
            values = np.unique(np.asarray(values, dtype=dtype))
            check_array(values, "unique values", pre=True, ndim=1, dtype=dtype, min_size=2,
                        allow_infinity=False, allow_nan=False)
            round_to_values = interp1d(values, values, kind="nearest", fill_value="extrapolate")
            range_ = (values[0], values[-1])
        self.values = values
        self.round_to_values = round_to_values

        range_ = np.asarray(range_, dtype=dtype)
        check_array(range_, "range", pre=True, shape=(2,), dtype=dtype, unsorted=False)
        self.lower, self.upper = range_

        self.lower_warped, self.upper_warped = self.warp_f(range_[..., None]).astype(WARPED_DTYPE, copy=False)
        check_array(self.lower_warped, "warped lower bound %s(%s)" % (warp, self.lower), pre=True, ndim=1,
                    dtype=WARPED_DTYPE, allow_infinity=False, allow_nan=False)
        _check(np.all(self.lower_warped <= self.upper_warped), "warp is not monotonic")
        # A one-point range still gets a non-empty warped interval.
        self.upper_warped = np.maximum(self.upper_warped, np.nextafter(self.lower_warped, np.inf))
        check_array(self.upper_warped, "warped upper bound %s(%s)" % (warp, self.upper), pre=True,
                    shape=self.lower_warped.shape, dtype=WARPED_DTYPE, allow_infinity=False, allow_nan=False)
        _check(np.all(self.lower_warped < self.upper_warped), "empty warped range")

    def validate(self, X, pre=False):
        """``X`` as an array of the space's dtype, checked (range: clipped within np.isclose)."""
        X = np.asarray(X, dtype=self.dtype)
        if self.values is None:
            X = clip_chk(X, self.lower, self.upper)
        else:
            check_array(X, "X", pre=pre, whitelist=self.values)
        return X

    def validate_warped(self, X, pre=False):
        """Warped ``X`` of shape (..., m) as float64, checked against the warped bounds and clipped."""
        X = np.asarray(X, dtype=WARPED_DTYPE)
        check_array(X, "X", pre=pre, shape_endswith=(len(self.lower_warped),))
        return clip_chk(X, self.lower_warped, self.upper_warped)

    def warp(self, X):
        """Values of shape (...) -> warped float64 array of shape (..., m)."""
        X = self.validate(X, pre=True)
        X_w = self.validate_warped(self.warp_f(X)[..., None])
        check_array(X_w, "X", ndim=X.ndim + 1, dtype=WARPED_DTYPE)
        return X_w

    def unwarp(self, X_w):
        """Warped array of shape (..., m) -> values of shape (...) in the space's dtype."""
        X_w = self.validate_warped(X_w, pre=True)
        X = clip_chk(self.unwarp_f(X_w[..., 0]), self.lower, self.upper)
        X = self.validate(self.round_to_values(X))
        check_array(X, "X", ndim=X_w.ndim - 1, dtype=self.dtype)
        return X

    def get_bounds(self):
        """Warped bounds, shape (m, 2): lower bounds in column 0, upper bounds in column 1."""
        bounds = np.stack((self.lower_warped, self.upper_warped), axis=1)
        check_array(bounds, "bounds", shape=(len(self.lower_warped), 2), dtype=WARPED_DTYPE)
        return bounds

    def grid(self, max_interp=N_GRID_DEFAULT):
        """The listed values, or the distinct values of ``max_interp`` points evenly spaced in the
        warped range, as a list of native values."""
        values = self.values
        if values is None:
            vw = np.linspace(self.lower_warped, self.upper_warped, max_interp)
            values = np.unique(self.unwarp(vw[:, None]))
            check_array(values, "values", ndim=1, dtype=self.dtype)
        return values.tolist()


class Real(Space):
    """A real parameter; ``warp`` is one of linear, log, logit, bilog (required)."""

    def __init__(self, warp="linear", values=None, range_=None):
        _check(warp is not None, "warp/space not specified for real")
        Space.__init__(self, np.float64, identity, warp, values, range_)


class Integer(Space):
    """An integer parameter; ``warp`` is one of linear, log, bilog (required; logit fails as its
    warped bounds cannot be finite)."""

    def __init__(self, warp="linear", values=None, range_=None):
        _check(warp is not None, "warp/space not specified for int")
        Space.__init__(self, np.int_, np.round, warp, values, range_)


class Boolean(Space):
    """A bool parameter, warped to [0, 1] and rounded back; it takes no space, values or range."""

    def __init__(self, warp=None, values=None, range_=None):
        _check(warp is None, "cannot warp bool")
        _check(values is None and range_ is None, "cannot pass in values or range for bool")
        self.dtype = np.bool_
        self.warp_f = identity
        self.unwarp_f = identity
        self.values = np.array([False, True], dtype=np.bool_)
        self.round_to_values = np.round
        self.lower, self.upper = np.bool_(False), np.bool_(True)
        self.lower_warped = np.array([0.0], dtype=WARPED_DTYPE)
        self.upper_warped = np.array([1.0], dtype=WARPED_DTYPE)


class Categorical(Space):
    """A cat parameter: at least two distinct string ``values``, one-hot encoded in sorted order."""

    def __init__(self, warp=None, values=None, range_=None):
        _check(warp is None, "cannot warp cat")
        _check(values is not None, "must pass in explicit values for cat")
        _check(range_ is None, "cannot pass in range for cat")
        values = np.unique(values)
        check_array(values, "values", pre=True, ndim=1, kind=CAT_KIND, min_size=2)
        self.values = values
        self.dtype = CAT_DTYPE
        # The one-hot block is the warp; picking its largest column is the rounding.
        self.warp_f = self._encode
        self.unwarp_f = identity
        self.round_to_values = self._decode
        self.lower, self.upper = None, None
        self.lower_warped = np.zeros(len(values), dtype=WARPED_DTYPE)
        self.upper_warped = np.ones(len(values), dtype=WARPED_DTYPE)

    def _encode(self, x):
        return encode(x, self.values, assume_sorted=True, dtype=WARPED_DTYPE, assume_valid=True)

    def _decode(self, x):
        return decode(x, self.values, assume_sorted=True)

    def warp(self, X):
        """Values of shape (...) -> one-hot float64 array of shape (..., n_values)."""
        X = self.validate(X, pre=True)
        X_w = self.validate_warped(self.warp_f(X))
        check_array(X_w, "X", ndim=X.ndim + 1, dtype=WARPED_DTYPE)
        return X_w

    def unwarp(self, X_w):
        """Array of shape (..., n_values) -> the value of the largest column, shape (...)."""
        X_w = self.validate_warped(X_w, pre=True)
        X = self.validate(self.round_to_values(self.unwarp_f(X_w)))
        check_array(X, "X", ndim=X_w.ndim - 1, kind=CAT_KIND)
        return X


# "ordinal" is treated as "cat", as in Bayesmark.
SPACE_DICT = {"real": Real, "int": Integer, "bool": Boolean, "cat": Categorical, "ordinal": Categorical}


# ============================================================================
# All parameters of an api_config
# ============================================================================


class JointSpace(object):
    """All parameters of an api_config; the warped columns follow the names in sorted order."""

    def __init__(self, meta):
        """Build the spaces of the api_config ``meta`` (AssertionError or ValueError if invalid)."""
        _check(len(meta) > 0, "empty api_config")
        self.param_list = sorted(meta.keys())
        for config in meta.values():
            _check(config["type"] in SPACE_DICT, "invalid input type %s" % config["type"])
        self.spaces = {
            param: SPACE_DICT[config["type"]](config.get("space", None), config.get("values", None),
                                              config.get("range", None))
            for param, config in meta.items()
        }
        self.blocks = np.cumsum([len(self.spaces[param].get_bounds()) for param in self.param_list])

    def validate(self, X):
        """``X`` itself; ValueError unless every record has exactly the parameters' keys, and the
        error of the space's ``validate`` (AssertionError out of a range, ValueError for a value
        that is not listed) for an invalid value."""
        for record in X:
            if self.param_list != sorted(record.keys()):
                raise ValueError("Expected joint space keys %s, but got %s" % (self.param_list, sorted(record.keys())))
            for param in self.param_list:
                self.spaces[param].validate([record[param]], pre=True)
        return X

    def warp(self, X):
        """List of n dicts -> float64 array (n, m); a record's missing keys warp to NaN columns."""
        if len(X) == 0:
            return np.zeros((0, self.blocks[-1]), dtype=WARPED_DTYPE)
        X_w = np.stack([
            np.concatenate([
                self.spaces[param].warp(record[param]) if param in record
                else np.full(len(self.spaces[param].get_bounds()), np.nan)
                for param in self.param_list
            ])
            for record in X
        ], axis=0)
        check_array(X_w, "X", shape=(len(X), self.blocks[-1]), dtype=WARPED_DTYPE)
        return X_w

    def unwarp(self, X_w, fixed_vals={}):
        """2-d float64 array (n, m) -> list of n dicts of native Python values.

        ``fixed_vals`` (name -> value) are returned exactly; the unwarped value must match them
        (ValueError otherwise). ``X_w`` that is not a 2-d float64 array raises AssertionError.
        """
        X_w = np.asarray(X_w)
        check_array(X_w, "X", ndim=2, shape_endswith=(self.blocks[-1],), dtype=WARPED_DTYPE)
        columns = np.hsplit(X_w, self.blocks[:-1])
        values = {
            param: snap_to(self.spaces[param].unwarp(cols), fixed_vals.get(param, None))
            for param, cols in zip(self.param_list, columns)
        }
        return [{param: values[param][ii].item() for param in self.param_list} for ii in range(X_w.shape[0])]

    def get_bounds(self):
        """Warped bounds, shape (m, 2); ``bounds.tolist()`` is the form scipy optimizers take."""
        bounds = np.concatenate([self.spaces[param].get_bounds() for param in self.param_list], axis=0)
        check_array(bounds, "bounds", shape_endswith=(2,), dtype=WARPED_DTYPE)
        return bounds

    def grid(self, max_interp=N_GRID_DEFAULT):
        """Parameter name -> list of grid values (see :meth:`Space.grid`)."""
        return {param: space.grid(max_interp=max_interp) for param, space in self.spaces.items()}
