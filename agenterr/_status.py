"""HTTP statuses: one read from whatever a client hands over (the lowest reader, imported by
the value types and every reader above them), and the status table as data.

The table's rows are SPEC.md section 3.2, which is rendered from them; the classifier reads
its codes from :data:`STATUS_ROW_OF`.
"""

from __future__ import annotations

from typing import NamedTuple

from ._taxonomy import Code

__all__ = ["STATUS_ROW_OF", "STATUS_TABLE", "StatusRow", "as_status"]


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


# --- the status table (SPEC.md section 3.2) ----------------------------------------------


class StatusRow(NamedTuple):
    """One row of the status table (SPEC.md section 3.2, rendered from these rows)."""

    statuses: str
    """The statuses as the table names them."""
    anchor: str
    """The row's anchor, ``status-row-…``, which conformance vectors name."""
    code: Code | None
    """The code it gives; ``None``: a success."""
    source: str
    """``R`` the reference's rule, ``E`` this specification's, ``E!`` one overriding the
    reference's general rule."""
    reason: str
    covers: range = range(0)
    """The statuses from 100 to 599 the row decides; a narrower row wins where two overlap."""


_E, _R, _OVERRIDE = "E", "R", "E!"

STATUS_TABLE: tuple[StatusRow, ...] = (
    StatusRow(
        "100–199",
        "status-row-1xx",
        Code.UNKNOWN,
        _E,
        "Informational: a final answer was expected, not an interim one.",
        range(100, 200),
    ),
    StatusRow(
        "200–299", "status-row-2xx", None, _R, "Success: nothing to classify.", range(200, 300)
    ),
    StatusRow(
        "300–399",
        "status-row-3xx",
        Code.UNKNOWN,
        _E,
        "A redirect that was not followed: a final answer was expected.",
        range(300, 400),
    ),
    StatusRow(
        "400",
        "status-row-400",
        Code.INVALID_REQUEST,
        _R,
        "Malformed request: the arguments must change.",
        range(400, 401),
    ),
    StatusRow(
        "401",
        "status-row-401",
        Code.UNAUTHORIZED,
        _R,
        "Missing or invalid credentials.",
        range(401, 402),
    ),
    StatusRow(
        "402",
        "status-row-402",
        Code.UNAUTHORIZED,
        _E,
        "Payment required: billing needs a human.",
        range(402, 403),
    ),
    StatusRow(
        "403",
        "status-row-403",
        Code.UNAUTHORIZED,
        _R,
        "Permission or scope denied.",
        range(403, 404),
    ),
    StatusRow(
        "404",
        "status-row-404",
        Code.NOT_FOUND,
        _R,
        "The referenced resource does not exist (often an invented identifier).",
        range(404, 405),
    ),
    StatusRow(
        "405",
        "status-row-405",
        Code.INVALID_REQUEST,
        _E,
        "Method not allowed: the request must change.",
        range(405, 406),
    ),
    StatusRow(
        "406",
        "status-row-406",
        Code.INVALID_REQUEST,
        _E,
        "Not acceptable: the requested representation must change.",
        range(406, 407),
    ),
    StatusRow(
        "407",
        "status-row-407",
        Code.UNAUTHORIZED,
        _E,
        "Proxy authentication: credentials, not arguments.",
        range(407, 408),
    ),
    StatusRow(
        "408",
        "status-row-408",
        Code.TIMEOUT,
        _R,
        "The server gave up waiting for the request.",
        range(408, 409),
    ),
    StatusRow(
        "409",
        "status-row-409",
        Code.INVALID_REQUEST,
        _E,
        "Conflict with the resource's state: the request must change.",
        range(409, 410),
    ),
    StatusRow(
        "410",
        "status-row-410",
        Code.NOT_FOUND,
        _E,
        "Gone: the resource no longer exists.",
        range(410, 411),
    ),
    StatusRow(
        "411",
        "status-row-411",
        Code.INVALID_REQUEST,
        _E,
        "Length required: the request must change.",
        range(411, 412),
    ),
    StatusRow(
        "412",
        "status-row-412",
        Code.INVALID_REQUEST,
        _E,
        "Precondition failed: the request's preconditions must change.",
        range(412, 413),
    ),
    StatusRow(
        "413",
        "status-row-413",
        Code.INVALID_REQUEST,
        _E,
        "Content too large: the request must shrink.",
        range(413, 414),
    ),
    StatusRow(
        "414",
        "status-row-414",
        Code.INVALID_REQUEST,
        _E,
        "URI too long: the request must change.",
        range(414, 415),
    ),
    StatusRow(
        "415",
        "status-row-415",
        Code.INVALID_REQUEST,
        _E,
        "Unsupported media type: the request must change.",
        range(415, 416),
    ),
    StatusRow(
        "416",
        "status-row-416",
        Code.INVALID_REQUEST,
        _E,
        "Range not satisfiable: the request must change.",
        range(416, 417),
    ),
    StatusRow(
        "417",
        "status-row-417",
        Code.INVALID_REQUEST,
        _E,
        "Expectation failed: the request must change.",
        range(417, 418),
    ),
    StatusRow(
        "421",
        "status-row-421",
        Code.UNAVAILABLE,
        _E,
        "Misdirected request: the same request can succeed later (on another connection).",
        range(421, 422),
    ),
    StatusRow(
        "422",
        "status-row-422",
        Code.INVALID_REQUEST,
        _R,
        "Semantically invalid arguments.",
        range(422, 423),
    ),
    StatusRow(
        "423",
        "status-row-423",
        Code.UNAVAILABLE,
        _E,
        "Locked: the same request can succeed once the lock is released.",
        range(423, 424),
    ),
    StatusRow(
        "425",
        "status-row-425",
        Code.UNAVAILABLE,
        _E,
        "Too early: the same request can succeed later.",
        range(425, 426),
    ),
    StatusRow(
        "428",
        "status-row-428",
        Code.INVALID_REQUEST,
        _E,
        "Precondition required: the request must change.",
        range(428, 429),
    ),
    StatusRow("429", "status-row-429", Code.RATE_LIMITED, _R, "Rate limited.", range(429, 430)),
    StatusRow(
        "431",
        "status-row-431",
        Code.INVALID_REQUEST,
        _E,
        "Header fields too large: the request must change.",
        range(431, 432),
    ),
    StatusRow(
        "451",
        "status-row-451",
        Code.UNAUTHORIZED,
        _E,
        "Unavailable for legal reasons: a human must decide; rewriting the arguments cannot help.",
        range(451, 452),
    ),
    StatusRow(
        "other 4xx (418–420, 424, 426, 427, 430, 432–450, 452–497)",
        "status-row-4xx-other",
        Code.INVALID_REQUEST,
        _E,
        "A client error: the request, not the network, must change.",
        range(400, 500),
    ),
    StatusRow(
        "498",
        "status-row-498",
        Code.UNAVAILABLE,
        _E,
        "Not registered; used for exhausted capacity (Groq's flex tier): the same request can"
        " succeed later. (3.0)",
        range(498, 499),
    ),
    StatusRow(
        "499",
        "status-row-499",
        Code.TIMEOUT,
        _E,
        'Not registered; "client closed request" (nginx) and gRPC\'s `CANCELLED` over HTTP: the'
        " caller stopped waiting. (3.0)",
        range(499, 500),
    ),
    StatusRow(
        "500",
        "status-row-500",
        Code.UNAVAILABLE,
        _R,
        "Server error, presumed temporary.",
        range(500, 501),
    ),
    StatusRow(
        "501",
        "status-row-501",
        Code.INVALID_REQUEST,
        _OVERRIDE,
        "Not implemented: the operation is not supported; retrying cannot help.",
        range(501, 502),
    ),
    StatusRow(
        "502–504",
        "status-row-502-504",
        Code.UNAVAILABLE,
        _R,
        "Gateway or server temporarily unavailable.",
        range(502, 505),
    ),
    StatusRow(
        "505",
        "status-row-505",
        Code.UNKNOWN,
        _OVERRIDE,
        "HTTP version not supported: a client defect that neither a retry nor the model can fix.",
        range(505, 506),
    ),
    StatusRow(
        "506–510",
        "status-row-506-510",
        Code.UNAVAILABLE,
        _R,
        "Server error, presumed temporary.",
        range(506, 511),
    ),
    StatusRow(
        "511",
        "status-row-511",
        Code.UNAUTHORIZED,
        _OVERRIDE,
        "Network authentication required: a network login (captive portal) needs a human.",
        range(511, 512),
    ),
    StatusRow(
        "512–599 (including 520–530 and 529)",
        "status-row-512-599",
        Code.UNAVAILABLE,
        _R,
        "Server or CDN error, presumed temporary.",
        range(512, 600),
    ),
    StatusRow(
        "0",
        "status-row-0",
        Code.UNKNOWN,
        _E,
        "No status and no error: nothing says what went wrong.",
    ),
    StatusRow(
        "any other integer (negative, 1–99, ≥ 600)",
        "status-row-other-integer",
        Code.UNKNOWN,
        _E,
        "Not an HTTP status.",
    ),
    StatusRow(
        "not an integer (boolean, string, non-integral number, null)",
        "status-row-non-integer",
        Code.UNKNOWN,
        _E,
        "Not an HTTP status.",
    ),
)


def _decided_by_row() -> list[StatusRow | None]:
    """Index = status: the row that decides it (the narrowest row covering it)."""
    decided: list[StatusRow | None] = [None] * 600
    for row in sorted(STATUS_TABLE, key=lambda r: -len(r.covers)):
        for status in row.covers:
            decided[status] = row
    return decided


STATUS_ROW_OF: tuple[StatusRow | None, ...] = tuple(_decided_by_row())
"""For each integer below 600, the row of :data:`STATUS_TABLE` that decides it (100–599)."""
