"""The optimizer interface (same surface as bayesmark.abstract_optimizer)."""
from abc import ABC, abstractmethod
import importlib
import importlib.metadata


class AbstractOptimizer(ABC):
    """Base class of optimizers: suggest batches of points, observe their values.

    Subclasses may set ``primary_import`` to the name of the package they wrap, which
    ``get_version`` reports.
    """

    primary_import = None

    def __init__(self, api_config, **kwargs):
        """Store the search space (a Bayesmark api_config dict)."""
        self.api_config = api_config

    @classmethod
    def get_version(cls):
        """Version of ``primary_import``: "x.x.x" when there is none (as in Bayesmark), else its
        installed distribution's version, else its ``__version__`` (a vendored package has no
        distribution metadata; Bayesmark would raise there), else "x.x.x"."""
        if cls.primary_import is None:
            return "x.x.x"
        try:
            return importlib.metadata.version(cls.primary_import)
        except Exception:
            pass
        try:
            module = importlib.import_module(cls.primary_import)
            return str(getattr(module, "__version__", "x.x.x"))
        except Exception:
            return "x.x.x"

    @abstractmethod
    def suggest(self, n_suggestions=1):
        """Return a list of ``n_suggestions`` dicts (parameter name -> value)."""

    @abstractmethod
    def observe(self, X, y):
        """Receive the evaluated points ``X`` (list of dicts) and their values ``y``.

        ``y`` is a list of ``len(X)`` floats, as Bayesmark's ``run_study`` passes it; crashed
        evaluations are ``inf``. ``X`` is the list ``suggest`` returned (the same dicts) when every
        point was evaluated as suggested.
        """
