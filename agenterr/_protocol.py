"""The language-neutral request format of SPEC.md §9.2, shared by the CLI and conformance runs.

A request is a JSON object: a classification input (``status``, ``body`` or
``body_base64``, ``headers``, ``error``, ``now``), an envelope input (``envelope`` with
optional ``headers`` and ``now``), a pre-flight input (``schema_invalid``) or a reading
input (``wire``). Ports in other languages speak the same format over JSON lines, so
one runner can check any implementation against the vectors.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import socket
import ssl
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from ._classify import from_status, schema_invalid
from ._envelope import from_envelope
from ._outcome import Outcome
from ._quote import clean
from ._retry_after import Clock, http_date_epoch
from ._transport import classify

__all__ = [
    "ERROR_KINDS",
    "iter_jsonl",
    "load_vectors",
    "make_error",
    "outcome_for_request",
    "parse_clock",
]


class InvalidURL(Exception):
    """The neutral ``invalid_url`` error kind (recognised by name, like httpx's)."""


class UnsupportedProtocol(Exception):
    """The neutral ``unsupported_scheme`` error kind."""


class CarriedStatusError(Exception):
    """The neutral ``http_status`` kind: an SDK-style error carrying status, headers, body."""

    def __init__(self, message: str, status: int, headers: object, body: object) -> None:
        super().__init__(message)
        self.status_code = status
        self.headers = headers
        self.body = body


def _name_not_found(message: str) -> socket.gaierror:
    # errno set after construction, so the text stays exactly the message (SPEC 4.4)
    error = socket.gaierror(message)
    error.errno = socket.EAI_NONAME
    return error


ERROR_KINDS: dict[str, Callable[[str], BaseException]] = {
    "timeout": TimeoutError,
    "connect": ConnectionRefusedError,
    "dns": socket.gaierror,
    "reset": ConnectionResetError,
    "invalid_url": InvalidURL,
    "unsupported_scheme": UnsupportedProtocol,
    "other": Exception,
    "cancelled": asyncio.CancelledError,
    "certificate": lambda message: ssl.SSLCertVerificationError(1, message),
    "name_not_found": _name_not_found,
}
"""SPEC.md §4.4's simple error kinds and the native exception each one becomes here
(``http_status`` and ``group`` take extra fields and are built by :func:`make_error`)."""
_KINDS = (*ERROR_KINDS, "http_status", "group")
_ERROR_FIELDS = frozenset({"kind", "message", "cause", "status", "headers", "body", "members"})
_MAX_ERROR_DEPTH = 128
_NAME_CAP = 64
_NAME_WINDOW = 4 * _NAME_CAP
_REQUEST_KEYS = frozenset({"status", "body", "body_base64", "headers", "error", "now"})
_ENVELOPE_KEYS = frozenset({"envelope", "headers", "now"})


def _name(fields: set[str]) -> str:
    """The first of ``fields``, fit to quote in an error message: the names come from the
    request, untrusted like any API text, so they pass the cleaning gate and are capped."""
    return clean(min(fields)[:_NAME_WINDOW], _NAME_CAP)


def make_error(spec: object, *, outermost: bool = True, depth: int = 0) -> BaseException:
    """Build the native exception for an error object of SPEC.md §4.4 (``ValueError`` if bad)."""
    if depth > _MAX_ERROR_DEPTH:
        raise ValueError("error: nested too deeply")
    if not isinstance(spec, dict):
        raise ValueError("error: must be an object with a 'kind'")
    unknown = set(spec) - _ERROR_FIELDS
    if unknown:
        raise ValueError(f"error.{_name(unknown)}: unknown field")
    kind = spec.get("kind")
    if kind not in _KINDS:
        raise ValueError(f"error.kind: must be one of {', '.join(_KINDS)}")
    message = spec.get("message", "")
    if not isinstance(message, str):
        raise ValueError("error.message: must be a string")
    error: BaseException
    if kind == "http_status":
        status = spec.get("status")
        if type(status) is not int or not 100 <= status <= 599:
            raise ValueError("error.status: must be an integer from 100 to 599")
        body = spec.get("body")
        if body is not None and not isinstance(body, str):
            raise ValueError("error.body: must be a string")
        error = CarriedStatusError(
            message, status, _headers(spec.get("headers"), "error.headers"), body
        )
    elif kind == "group":
        members = spec.get("members")
        if not isinstance(members, list) or not members:
            raise ValueError("error.members: must be a non-empty list of error objects")
        built = [make_error(m, outermost=False, depth=depth + 1) for m in members]
        exceptions = [m for m in built if isinstance(m, Exception)]
        if len(exceptions) != len(built):
            raise ValueError("error.members: 'cancelled' cannot be a group member")
        error = ExceptionGroup(message, exceptions)
    else:
        if kind == "cancelled" and (not outermost or "cause" in spec):
            raise ValueError("error.kind: 'cancelled' is only the outermost error, uncaused")
        error = ERROR_KINDS[kind](message)
    if "cause" in spec:
        error.__cause__ = make_error(spec["cause"], outermost=False, depth=depth + 1)
    return error


def _headers(value: object, field: str = "headers") -> object:
    """A request's headers; ``field`` is the name an error gives them (SPEC 9.4)."""
    if value is None:
        return None
    if isinstance(value, dict):
        for item in value.values():
            if not isinstance(item, str):
                raise ValueError(f"{field}: values must be strings")
        return value
    if isinstance(value, list) and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in value
    ):
        return [tuple(p) for p in value]
    raise ValueError(f"{field}: must be an object or a list of [name, value] string pairs")


def parse_clock(value: object) -> Clock:
    """A request's ``now``: epoch seconds or an HTTP-date. Raises ``ValueError``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError("now: must be epoch seconds or an HTTP-date")
    try:
        if isinstance(value, str):
            when = http_date_epoch(value.strip(), 0.0)
            if when is None:
                raise ValueError("now: not an HTTP-date")
            return when
        return float(value)
    except ValueError:
        raise
    except Exception:  # e.g. OverflowError for an integer too large for a float
        raise ValueError("now: out of range") from None


def outcome_for_request(request: object) -> Outcome[Any]:
    """The outcome for one request object of SPEC.md §9.2: a classification, an ``envelope``
    (SPEC.md section 12), a pre-flight ``schema_invalid`` list, or a ``wire`` object read
    back. Raises ``ValueError`` naming the bad field (for ``wire``, the field
    ``Outcome.from_dict`` names)."""
    if not isinstance(request, dict):
        raise ValueError("request: must be a JSON object")
    if "wire" in request:
        if set(request) != {"wire"}:
            raise ValueError("wire: allowed only on its own")
        return Outcome.from_dict(request["wire"])
    if "schema_invalid" in request:
        if set(request) != {"schema_invalid"}:
            raise ValueError("schema_invalid: allowed only on its own")
        problems = request["schema_invalid"]
        if not isinstance(problems, list) or not all(isinstance(p, str) for p in problems):
            raise ValueError("schema_invalid: must be a list of strings")
        return schema_invalid(*problems)
    if "envelope" in request:
        extra = set(request) - _ENVELOPE_KEYS
        if extra:
            raise ValueError(f"{_name(extra)}: not allowed with envelope")
        headers = _headers(request.get("headers"))
        now = parse_clock(request.get("now"))
        return from_envelope(request["envelope"], headers=headers, now=now)
    if not _REQUEST_KEYS.issuperset(request):
        raise ValueError(f"{_name(set(request) - _REQUEST_KEYS)}: unknown field")
    body: object = request.get("body")
    if "body_base64" in request:
        if "body" in request:
            raise ValueError("body_base64: not allowed together with body")
        try:
            body = base64.b64decode(request["body_base64"], validate=True)
        except (binascii.Error, TypeError, ValueError):
            raise ValueError("body_base64: not valid base64") from None
    elif body is not None and not isinstance(body, str):
        raise ValueError("body: must be a string")
    get = request.get
    error = make_error(request["error"]) if get("error") is not None else None
    headers = _headers(get("headers"))
    now = parse_clock(get("now"))
    if error is not None:
        return classify(get("status", 0), body, error, headers=headers, now=now)
    return from_status(get("status", 0), body, headers=headers, now=now)


def load_vectors(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The conformance vectors: from ``path``, or the copy shipped in the package."""
    text = Path(path).read_text(encoding="utf-8") if path is not None else _shipped_vectors()
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError("vectors file: nested too deeply") from None
    vectors = data.get("vectors") if isinstance(data, dict) else None
    if not isinstance(vectors, list):
        raise ValueError("vectors file: expected an object with a 'vectors' list")
    for index, vector in enumerate(vectors):
        if not isinstance(vector, dict):
            raise ValueError(f"vectors[{index}]: must be an object")
        if "input" not in vector:
            raise ValueError(f"vectors[{index}]: missing 'input'")
        if "expect" not in vector and "expect_error" not in vector:
            raise ValueError(f"vectors[{index}]: missing 'expect' (or 'expect_error')")
    return vectors


def _shipped_vectors() -> str:
    packaged = resources.files("agenterr").joinpath("_spec", "vectors.json")
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    # An editable install runs from the source tree, where the file lives under spec/.
    source = Path(__file__).resolve().parent.parent / "spec" / "vectors.json"
    return source.read_text(encoding="utf-8")


def iter_jsonl(stream: Any, limit: int) -> Iterator[tuple[int, bytes | None]]:
    """Lines of a binary stream, each at most ``limit`` bytes; a longer one yields None.

    Memory stays bounded by ``limit`` whatever the input: the rest of an over-long line
    is read and dropped in chunks.
    """
    number = 0
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        number += 1
        if len(line) > limit and not line.endswith(b"\n"):
            while True:
                rest = stream.readline(limit)
                if not rest or rest.endswith(b"\n"):
                    break
            yield number, None
            continue
        yield number, line
