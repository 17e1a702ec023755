"""Small helpers every reader shares, kept in one place: the bottom layer, importing
nothing from the package."""

from __future__ import annotations

from typing import Any

__all__ = ["attr"]


def attr(obj: object, name: str) -> Any:
    """``getattr(obj, name, None)`` that never raises: a hostile property or
    ``__getattr__`` reads as None."""
    try:
        return getattr(obj, name, None)
    except Exception:
        return None
