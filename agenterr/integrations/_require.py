"""Lazy imports of optional packages with an actionable error."""

from __future__ import annotations

import importlib
import re
from types import ModuleType

__all__ = ["REPOSITORY", "install_hint", "require"]

REPOSITORY = "https://github.com/<owner>/agenterr.git"
"""Where agenterr's source lives, for ``pip install "agenterr[x] @ git+<this>"``: a
placeholder until the repository is public (the README uses the same one)."""


def require(module: str, extra: str) -> ModuleType:
    """Import ``module``; if it is missing, raise an ImportError saying how to install it.

    ``extra`` is the agenterr extra that brings ``module``. agenterr is not published on a
    package index, so ``pip install "agenterr[<extra>]"`` cannot work: the message names the
    package the extra pins (which is on an index), and how to install agenterr with the extra
    from a clone or from its git repository (:func:`install_hint`). Only a missing ``module``
    (or one of its parent packages) is reported that way: an installed package that fails
    to import — a dependency of its own missing, a broken install, an error in its code —
    raises its own exception unchanged, which says what is wrong.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if not _is_itself_or_parent(exc.name, module):
            raise
        raise ImportError(f"{module!r} is not installed; {install_hint(extra)}") from exc


def install_hint(extra: str) -> str:
    """How to install agenterr's ``extra``: the packages it pins, else agenterr with it."""
    pinned = _pinned(extra)
    first = f"install it with: pip install {' '.join(pinned)}, or " if pinned else "install "
    return (
        f"{first}agenterr with its {extra!r} extra (agenterr is not on a package index): "
        f'pip install ".[{extra}]" in a clone of agenterr, or '
        f'pip install "agenterr[{extra}] @ git+{REPOSITORY}"'
    )


def _pinned(extra: str) -> list[str]:
    """The requirements the installed agenterr declares for ``extra``, quoted for a shell
    (none when its metadata cannot be read: run from a source tree)."""
    try:
        from importlib.metadata import requires

        declared = requires("agenterr") or []
    except Exception:  # not installed, or unreadable metadata
        return []
    marker = re.compile(rf"""\bextra\s*==\s*["']{re.escape(extra)}["']""")
    found = []
    for line in declared:
        requirement, _, condition = line.partition(";")
        if marker.search(condition):
            found.append(f'"{requirement.strip()}"')
    return found


def _is_itself_or_parent(missing: str | None, module: str) -> bool:
    return missing is not None and (module == missing or module.startswith(missing + "."))
