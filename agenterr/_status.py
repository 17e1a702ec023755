"""An HTTP status read from whatever a client hands over: the lowest reader, imported by
the value types and every reader above them."""

from __future__ import annotations

__all__ = ["as_status"]


def as_status(status: object) -> int | None:
    """An HTTP status as an int, or ``None`` when it is not an integer (bools are not).

    ``__index__`` integers (``http.HTTPStatus``, NumPy integers) count; never raises.
    """
    if type(status) is int:
        return status
    try:
        if isinstance(status, bool) or not hasattr(status, "__index__"):
            return None
        return int(status.__index__())
    except Exception:
        return None
