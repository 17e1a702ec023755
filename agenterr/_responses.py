"""Reading status, headers and a bounded body prefix from any client's response, by duck typing.

Supported without importing them: httpx and httpx2 ``Response``, requests ``Response``,
aiohttp ``ClientResponse`` (once read), urllib's ``HTTPResponse`` and ``HTTPError``, botocore's
error-response dict, and exceptions that carry a status under the common attribute names
(the OpenAI-style SDKs, FastAPI-style ``HTTPException``). The SDKs whose exceptions need a
reader of their own (PyGithub, githubkit, Twilio, Stripe, Google, azure-core, aiohttp's
``ClientResponseError``) are one layer up, in ``_sdk``, which builds on this module.

Nothing here closes a stream or reads one to the end: a body is taken only when it is
already in memory, or peeked (``peek``) or read and rewound (seekable file) up to
:data:`READ_CAP` bytes — and only for a failure. Peeking an ``http.client`` response waits
for its first bytes, as long as the socket's own timeout allows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ._quote import SCAN_WINDOW
from ._shared import attr
from ._status import as_status

__all__ = [
    "MAX_TEXT",
    "READ_CAP",
    "Parts",
    "aws_body",
    "exception_parts",
    "in_memory_body",
    "response_host",
    "response_parts",
    "short_text",
]

READ_CAP = SCAN_WINDOW
"""Most bytes read from a body that is not yet in memory."""

Parts = tuple[object, object, object]


MAX_TEXT = 2048
"""Most characters of one string field copied into a body built from parsed fields (the
body reader caps it again)."""


def short_text(value: object) -> str | None:
    """A non-empty string cut to :data:`MAX_TEXT` characters, or None for anything else."""
    return value[:MAX_TEXT] if isinstance(value, str) and value else None


def _http_status(value: object) -> int | None:
    status = as_status(value)
    return status if status is not None and 100 <= status <= 599 else None


def _peek(stream: object) -> bytes | None:
    """Up to READ_CAP bytes of a file-like body, leaving it as it was."""
    peek = attr(stream, "peek")
    try:
        if callable(peek):
            data = peek(READ_CAP)
            return bytes(data[:READ_CAP]) if isinstance(data, (bytes, bytearray)) else None
        seekable = attr(stream, "seekable")
        if callable(seekable) and seekable():
            position = stream.tell()  # type: ignore[attr-defined]
            data = stream.read(READ_CAP)  # type: ignore[attr-defined]
            stream.seek(position)  # type: ignore[attr-defined]
            return bytes(data) if isinstance(data, (bytes, bytearray)) else None
    except Exception:
        return None
    return None


def in_memory_body(obj: object) -> object:
    """The body a response already holds in memory, else a bounded peek or rewound read of
    its stream, else None; never reads a stream to its end."""
    # httpx/httpx2 and requests keep a read body in _content (requests: False until read);
    # aiohttp keeps it in _body once read(). Their public .content/.text would read (or,
    # for aiohttp, is a stream), so they are never touched.
    for private in ("_content", "_body"):
        data = attr(obj, private)
        if isinstance(data, (bytes, bytearray, str)):
            return data
    # SDK wrappers around a client's response (githubkit and mistralai raw_response,
    # azure-core internal_response): the wrapped one holds the read body. One level only.
    for wrapped in ("raw_response", "internal_response"):
        inner = attr(obj, wrapped)
        if inner is not None and inner is not obj:
            for private in ("_content", "_body"):
                data = attr(inner, private)
                if isinstance(data, (bytes, bytearray, str)):
                    return data
    # http.client's HTTPResponse peeks through its own de-chunking buffer; urllib's
    # HTTPError delegates to the response it wraps in .fp.
    if callable(attr(obj, "peek")):
        return _peek(obj)
    fp = attr(obj, "fp")
    if fp is not None:
        return _peek(fp)
    # Hand-built responses and fakes: plain instance attributes only, never properties.
    fields = attr(obj, "__dict__")
    if isinstance(fields, dict):
        for name in ("content", "text", "body", "data"):
            data = fields.get(name)
            if isinstance(data, (bytes, bytearray, str, dict, list)):
                return data
    return None


def aws_body(error: object) -> object:
    """botocore's parsed ``response["Error"]`` as a JSON body the body reader understands.

    botocore has already parsed the JSON (``__type``) or XML (``<Code>``) reply into
    ``{"Code": …, "Message": …}``; the code is the decisive identifier.
    """
    if not isinstance(error, Mapping):
        return error
    try:
        code, message = error.get("Code"), error.get("Message")
    except Exception:
        return None
    body: dict[str, str] = {}
    code, message = short_text(code), short_text(message)
    if code:
        body["__type"] = code
    if message:
        body["message"] = message
    return body or None


def _botocore(response: Mapping[str, Any]) -> Parts | None:
    meta = response.get("ResponseMetadata")
    if not isinstance(meta, Mapping):
        return None
    return meta.get("HTTPStatusCode"), meta.get("HTTPHeaders"), aws_body(response.get("Error"))


def response_parts(obj: object) -> Parts | None:
    """``(status, headers, body)`` of a response-like object, or ``None`` if it has no status."""
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        try:
            return _botocore(obj)
        except Exception:
            return None
    status = attr(obj, "status_code")
    if status is None:
        status = attr(obj, "status")
    if status is None:
        status = attr(obj, "code")
    if status is None:
        return None
    number = as_status(status)
    if number is not None and 200 <= number <= 299:
        return status, None, None  # success: nothing to read (peeking could wait on a stream)
    return status, attr(obj, "headers"), in_memory_body(obj)


def exception_parts(exc: object) -> Parts | None:
    """``(status, headers, body)`` an exception carries itself, by the attribute names that
    are unambiguous on an exception (the OpenAI-style SDKs, ``HTTPException``, urllib's
    ``HTTPError``), or ``None``. The SDK table (``_sdk.carried_parts``) is read before this."""
    status = (
        _http_status(attr(exc, "status_code"))
        or _http_status(attr(exc, "http_status"))
        or _http_status(attr(exc, "status"))
    )
    headers = attr(exc, "headers")
    if status is None and headers is not None:
        status = _http_status(attr(exc, "code"))  # urllib's HTTPError
    if status is None:
        return None
    body: object = None
    for name in ("body", "json_body", "detail"):
        body = attr(exc, name)
        if isinstance(body, (str, bytes, dict, list)):
            break
        body = None
    if body is None:
        body = in_memory_body(exc)
    return status, headers, body


_MAX_URL = 2048


def response_host(obj: object) -> str | None:
    """The lower-case host of the URL a response (or an exception carrying one) answered,
    or ``None``: httpx/httpx2 ``url`` or ``request.url``, requests' ``url`` string,
    aiohttp's yarl ``url``, urllib's ``url``. Never raises."""
    try:
        url = attr(obj, "url")
        if url is None:
            request = attr(obj, "request")
            url = attr(request, "url") if request is not None else None
        if url is None:
            return None
        host = attr(url, "host")
        if isinstance(host, str) and host:
            return host.lower()
        if isinstance(url, bytes):
            url = url.decode("ascii", "replace")
        if not isinstance(url, str):
            return None
        return urlsplit(url[:_MAX_URL]).hostname
    except Exception:
        return None
