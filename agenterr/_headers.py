"""A bounded, case-insensitive view of response headers from any HTTP client."""

from __future__ import annotations

from collections.abc import Callable, KeysView
from typing import Any

__all__ = ["MAX_HEADERS", "HeaderView"]

MAX_HEADERS = 256
"""Header fields looked at; the rest are ignored so a hostile response costs O(1)."""


_MAX_VALUE_BYTES = 4096
"""Longest header value kept; the values read (delays) are a few characters long."""


def _text(value: object) -> str | None:
    if type(value) is str:
        return value[:_MAX_VALUE_BYTES]
    if isinstance(value, str):  # multidict's istr and other subclasses: as a plain str
        return str.__str__(value)[:_MAX_VALUE_BYTES]
    if isinstance(value, (bytes, bytearray)):
        return bytes(value[:_MAX_VALUE_BYTES]).decode("latin-1")
    return None


class HeaderView:
    """Lower-cased names to the first value seen, over at most :data:`MAX_HEADERS` fields.

    ``view.get(name)`` is the value of header ``name`` (lower-case), or ``None``;
    ``view.names()`` the names present.
    """

    __slots__ = ("_fields", "get", "names")

    get: Callable[[str], str | None]
    names: Callable[[], KeysView[str]]

    def __init__(self, fields: dict[str, str]) -> None:
        self._fields = fields
        # The dict's own methods: the classifier asks a view for a handful of names per call.
        self.get = fields.get
        self.names = fields.keys

    @classmethod
    def of(cls, headers: object, names: frozenset[str] | None = None) -> HeaderView:
        """Read a mapping, a multi-dict, an ``email.message.Message`` or ``(name, value)`` pairs.

        With ``names`` (lower-case), only those fields are kept. Anything unreadable gives an
        empty view; this never raises.
        """
        fields: dict[str, str] = {}
        if type(headers) is dict:
            if len(headers) <= MAX_HEADERS:
                # The common shape (a plain dict of str to str, as parsed JSON or most callers
                # give): no per-field conversions; any other field sends it down the general
                # loop.
                for name, value in headers.items():
                    if type(name) is not str or type(value) is not str:
                        fields.clear()
                        break
                    key = name.lower()
                    if (names is None or key in names) and key not in fields:
                        fields[key] = value[:_MAX_VALUE_BYTES]
                else:
                    return cls(fields)
        elif isinstance(headers, HeaderView):
            return headers
        elif headers is None or isinstance(headers, (str, bytes)):
            return cls(fields)
        try:
            items_method = getattr(headers, "items", None)
            items: Any = items_method() if callable(items_method) else headers
            for count, pair in enumerate(items):
                if count >= MAX_HEADERS:
                    break
                try:
                    name, value = pair
                except (TypeError, ValueError):
                    continue
                if type(name) is not str:
                    name = _text(name)
                    if name is None:
                        continue
                key = name.lower()
                if key in fields or (names is not None and key not in names):
                    continue
                text = _text(value)
                if text is not None:
                    fields[key] = text
        except Exception:
            pass  # a broken headers object reads as whatever was read before it broke
        return cls(fields)

    def __bool__(self) -> bool:
        return bool(self._fields)
