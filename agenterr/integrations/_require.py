"""Lazy imports of optional packages with an actionable error."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require"]


def require(module: str, extra: str) -> ModuleType:
    """Import ``module``; if it is missing, raise an ImportError naming the extra.

    ``extra`` is the name in ``pip install "agenterr[<extra>]"`` (from a package index) and
    ``pip install ".[<extra>]"`` (in a clone of the repository); the message gives both, as
    only one of them resolves on a given machine. Only a missing ``module``
    (or one of its parent packages) is reported that way: an installed package that fails
    to import — a dependency of its own missing, a broken install, an error in its code —
    raises its own exception unchanged, which says what is wrong.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if not _is_itself_or_parent(exc.name, module):
            raise
        raise ImportError(
            f"{module!r} is not installed; install it with: "
            f'pip install "agenterr[{extra}]" (from a package index), '
            f'or pip install ".[{extra}]" (in a clone of agenterr)'
        ) from exc


def _is_itself_or_parent(missing: str | None, module: str) -> bool:
    return missing is not None and (module == missing or module.startswith(missing + "."))
