"""Lazy imports of optional packages with an actionable error."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require"]


def require(module: str, extra: str) -> ModuleType:
    """Import ``module``; if it is missing, raise an ImportError naming the extra.

    ``extra`` is the name in ``pip install "agenterr[<extra>]"``.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f'{module!r} is not installed; install it with: pip install "agenterr[{extra}]"'
        ) from exc
