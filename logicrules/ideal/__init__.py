"""The empirical ideal DNF and the ideal classifier method built around it."""

from logicrules._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {})
