"""Search spaces (same surface as bayesmark.space.JointSpace).

Warped space: real/int parameters are mapped through their "space" (linear, log, logit, bilog);
bool is 0/1; a cat parameter becomes one column per value (one-hot). Parameters are sorted by
name, as in Bayesmark.
"""
import numpy as np

WARPS = {
    "linear": (lambda x: x, lambda y: y),
    "log": (np.log, np.exp),
    "logit": (lambda x: np.log(x / (1.0 - x)), lambda y: 1.0 / (1.0 + np.exp(-y))),
    "bilog": (lambda x: np.sign(x) * np.log1p(np.abs(x)), lambda y: np.sign(y) * np.expm1(np.abs(y))),
}


class Param:
    """One parameter of an api_config."""

    def __init__(self, name, spec):
        self.name = name
        self.type = spec["type"]
        if self.type == "ordinal":
            self.type = "cat"
        self.space = spec.get("space", "linear")
        self.values = None
        self.lo = self.hi = None
        if self.type in ("real", "int"):
            self.warp, self.unwarp_fn = WARPS[self.space]
            if "values" in spec:
                self.values = np.unique(np.asarray(spec["values"], dtype=float))
                self.lo, self.hi = float(self.values[0]), float(self.values[-1])
            else:
                self.lo, self.hi = float(spec["range"][0]), float(spec["range"][1])
                if self.type == "int":
                    self.lo, self.hi = float(np.ceil(self.lo)), float(np.floor(self.hi))
        elif self.type == "cat":
            self.values = list(spec["values"])
        elif self.type != "bool":
            raise ValueError("parameter %r: unknown type %r" % (name, spec["type"]))

    @property
    def width(self):
        return len(self.values) if self.type == "cat" else 1

    def bounds(self):
        if self.type == "cat":
            return [(0.0, 1.0)] * len(self.values)
        if self.type == "bool":
            return [(0.0, 1.0)]
        return [(float(self.warp(self.lo)), float(self.warp(self.hi)))]

    def warp_value(self, v):
        if self.type == "cat":
            row = np.zeros(len(self.values))
            row[self.values.index(v)] = 1.0
            return row
        if self.type == "bool":
            return np.array([1.0 if v else 0.0])
        return np.array([float(self.warp(float(v)))])

    def unwarp_value(self, row):
        if self.type == "cat":
            return self.values[int(np.argmax(row))]
        if self.type == "bool":
            return bool(row[0] >= 0.5)
        lo, hi = self.bounds()[0]
        x = float(self.unwarp_fn(np.clip(float(row[0]), lo, hi)))
        if self.values is not None:
            x = float(self.values[np.argmin(np.abs(self.values - x))])
        x = float(np.clip(x, self.lo, self.hi))
        if self.type == "int":
            return int(np.clip(np.round(x), self.lo, self.hi))
        return x


class JointSpace:
    """The joint search space of an api_config."""

    def __init__(self, meta):
        self.param_list = sorted(meta.keys())
        self.spaces = {k: Param(k, meta[k]) for k in self.param_list}
        self.blocks = np.cumsum([self.spaces[k].width for k in self.param_list])

    def get_bounds(self):
        """Warped-space bounds, shape (d, 2)."""
        return np.array([b for k in self.param_list for b in self.spaces[k].bounds()], dtype=float)

    def warp(self, X):
        """List of dicts -> array (n, d) in the warped space."""
        rows = [np.concatenate([self.spaces[k].warp_value(x[k]) for k in self.param_list]) for x in X]
        if not rows:
            return np.zeros((0, int(self.blocks[-1])))
        return np.array(rows, dtype=float)

    def unwarp(self, X_w):
        """Array (n, d) in the warped space -> list of dicts (rounded, clipped, snapped)."""
        X_w = np.atleast_2d(np.asarray(X_w, dtype=float))
        out = []
        for row in X_w:
            start = 0
            point = {}
            for k, end in zip(self.param_list, self.blocks):
                point[k] = self.spaces[k].unwarp_value(row[start:end])
                start = end
            out.append(point)
        return out

    def validate(self, X):
        """Raise ValueError when a point is outside the space."""
        for x in X:
            if sorted(x.keys()) != self.param_list:
                raise ValueError("keys %s differ from %s" % (sorted(x.keys()), self.param_list))
            for k in self.param_list:
                p = self.spaces[k]
                if p.type in ("real", "int") and not (p.lo <= x[k] <= p.hi):
                    raise ValueError("%s=%r outside [%r, %r]" % (k, x[k], p.lo, p.hi))
                if p.type == "cat" and x[k] not in p.values:
                    raise ValueError("%s=%r not in %r" % (k, x[k], p.values))
        return True
