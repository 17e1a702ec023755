"""Small helpers every reader shares, kept in one place: the bottom layer, importing
nothing from the package."""

from __future__ import annotations

from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")

__all__ = ["BoundedCache", "ascii_lower", "attr"]


def attr(obj: object, name: str) -> Any:
    """``getattr(obj, name, None)`` that never raises: a hostile property or
    ``__getattr__`` reads as None."""
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    """``text`` with only A-Z lowered, so every port finds the same phrases: Unicode case
    mappings differ between languages, and ``str.lower`` folds non-ASCII letters and can
    change the length ("İ"). On ASCII text it is ``str.lower``, much faster than translate."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


class BoundedCache(dict[K, V]):
    """A memo that stops growing at ``limit`` entries, so hostile input (endless new class
    names, identifiers, header values) cannot grow memory: a key arriving once it is full is
    computed each time. Read it as a dict (``get``, ``in``); write it with :meth:`remember`.
    """

    __slots__ = ("limit",)

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def remember(self, key: K, value: V) -> V:
        """Store ``value`` under ``key`` unless the cache is full; return ``value``."""
        if len(self) < self.limit:
            self[key] = value
        return value
