"""The optimizer interface (same surface as bayesmark.abstract_optimizer)."""
from abc import ABC, abstractmethod
import importlib


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
        """Version of ``primary_import``, or "0.0.0" when there is none."""
        if cls.primary_import is None:
            return "0.0.0"
        try:
            module = importlib.import_module(cls.primary_import)
            return str(getattr(module, "__version__", "0.0.0"))
        except Exception:
            return "0.0.0"

    @abstractmethod
    def suggest(self, n_suggestions=1):
        """Return a list of ``n_suggestions`` dicts (parameter name -> value)."""

    @abstractmethod
    def observe(self, X, y):
        """Receive the evaluated points ``X`` (list of dicts) and their values ``y``.

        ``y`` is a numpy array of shape (len(X),); crashed evaluations are ``inf``.
        """
