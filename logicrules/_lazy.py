"""Lazy re-export of public names, so ``import logicrules`` stays fast.

SymPy, scikit-learn and SciPy's optimizers take seconds to import; a package ``__init__`` that
imported every module eagerly would make each command-line call and each worker process pay that
cost. Names are imported from their modules on first attribute access instead.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any


def lazy_exports(
    package: str, exports: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """Return ``(__getattr__, __dir__, __all__)`` for a package re-exporting ``exports``.

    ``exports`` maps a public name to the module (absolute, or relative to ``package`` when it
    starts with a dot) that defines it.
    """

    def __getattr__(name: str) -> Any:
        try:
            module = exports[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(import_module(module, package), name)
        globals_ = import_module(package).__dict__
        globals_[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(import_module(package).__dict__) | set(exports))

    return __getattr__, __dir__, sorted(exports)
