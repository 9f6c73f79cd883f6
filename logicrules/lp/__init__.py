"""Boolean group-testing LP relaxation for OR/AND rules, rule sets and checklists."""

from logicrules._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {})
