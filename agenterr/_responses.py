"""Reading status, headers and a bounded body prefix from any client's response, by duck typing.

Supported without importing them: httpx and httpx2 ``Response``, requests ``Response``,
aiohttp ``ClientResponse`` (once read), urllib's ``HTTPResponse`` and ``HTTPError``, botocore's
error-response dict, SDK wrappers of those (githubkit, mistralai, azure-core), and exceptions
that carry a status themselves: the SDK table of ``_sdk`` first (PyGithub, githubkit, Twilio,
Stripe, google-api-core, google-genai, azure-core, aiohttp ``ClientResponseError``), then
the common attribute names (the OpenAI-style SDKs, FastAPI-style ``HTTPException``).

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
from ._sdk import aws_body, sdk_parts

__all__ = ["READ_CAP", "as_status", "response_host", "response_parts"]

READ_CAP = SCAN_WINDOW
"""Most bytes read from a body that is not yet in memory."""

Parts = tuple[object, object, object]


def _attr(obj: object, name: str) -> Any:
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


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


def _http_status(value: object) -> int | None:
    status = as_status(value)
    return status if status is not None and 100 <= status <= 599 else None


def _peek(stream: object) -> bytes | None:
    """Up to READ_CAP bytes of a file-like body, leaving it as it was."""
    peek = _attr(stream, "peek")
    try:
        if callable(peek):
            data = peek(READ_CAP)
            return bytes(data[:READ_CAP]) if isinstance(data, (bytes, bytearray)) else None
        seekable = _attr(stream, "seekable")
        if callable(seekable) and seekable():
            position = stream.tell()  # type: ignore[attr-defined]
            data = stream.read(READ_CAP)  # type: ignore[attr-defined]
            stream.seek(position)  # type: ignore[attr-defined]
            return bytes(data) if isinstance(data, (bytes, bytearray)) else None
    except Exception:
        return None
    return None


def _in_memory_body(obj: object) -> object:
    # httpx/httpx2 and requests keep a read body in _content (requests: False until read);
    # aiohttp keeps it in _body once read(). Their public .content/.text would read (or,
    # for aiohttp, is a stream), so they are never touched.
    for private in ("_content", "_body"):
        data = _attr(obj, private)
        if isinstance(data, (bytes, bytearray, str)):
            return data
    # SDK wrappers around a client's response (githubkit and mistralai raw_response,
    # azure-core internal_response): the wrapped one holds the read body. One level only.
    for wrapped in ("raw_response", "internal_response"):
        inner = _attr(obj, wrapped)
        if inner is not None and inner is not obj:
            for private in ("_content", "_body"):
                data = _attr(inner, private)
                if isinstance(data, (bytes, bytearray, str)):
                    return data
    # http.client's HTTPResponse peeks through its own de-chunking buffer; urllib's
    # HTTPError delegates to the response it wraps in .fp.
    if callable(_attr(obj, "peek")):
        return _peek(obj)
    fp = _attr(obj, "fp")
    if fp is not None:
        return _peek(fp)
    # Hand-built responses and fakes: plain instance attributes only, never properties.
    fields = _attr(obj, "__dict__")
    if isinstance(fields, dict):
        for name in ("content", "text", "body", "data"):
            data = fields.get(name)
            if isinstance(data, (bytes, bytearray, str, dict, list)):
                return data
    return None


def _botocore(response: Mapping[str, Any]) -> Parts | None:
    meta = response.get("ResponseMetadata")
    if not isinstance(meta, Mapping):
        return None
    return meta.get("HTTPStatusCode"), meta.get("HTTPHeaders"), aws_body(response.get("Error"))


def response_parts(obj: object, *, exception: bool = False) -> Parts | None:
    """``(status, headers, body)`` of a response-like object, or ``None`` if it has no status.

    With ``exception=True`` the object is an exception that may carry a status itself;
    only attributes that are unambiguous for exceptions are read.
    """
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        try:
            return _botocore(obj)
        except Exception:
            return None
    if exception:
        carried = sdk_parts(obj)
        if carried is not None:
            return carried
        status = (
            _http_status(_attr(obj, "status_code"))
            or _http_status(_attr(obj, "http_status"))
            or _http_status(_attr(obj, "status"))
        )
        headers = _attr(obj, "headers")
        if status is None and headers is not None:
            status = _http_status(_attr(obj, "code"))  # urllib's HTTPError
        if status is None:
            return None
        body: object = None
        for name in ("body", "json_body", "detail"):
            body = _attr(obj, name)
            if isinstance(body, (str, bytes, dict, list)):
                break
            body = None
        if body is None:
            body = _in_memory_body(obj)
        return status, headers, body
    status = _attr(obj, "status_code")
    if status is None:
        status = _attr(obj, "status")
    if status is None:
        status = _attr(obj, "code")
    if status is None:
        return None
    number = as_status(status)
    if number is not None and 200 <= number <= 299:
        return status, None, None  # success: nothing to read (peeking could wait on a stream)
    return status, _attr(obj, "headers"), _in_memory_body(obj)


_MAX_URL = 2048


def response_host(obj: object) -> str | None:
    """The lower-case host of the URL a response (or an exception carrying one) answered,
    or ``None``: httpx/httpx2 ``url`` or ``request.url``, requests' ``url`` string,
    aiohttp's yarl ``url``, urllib's ``url``. Never raises."""
    try:
        url = _attr(obj, "url")
        if url is None:
            request = _attr(obj, "request")
            url = _attr(request, "url") if request is not None else None
        if url is None:
            return None
        host = _attr(url, "host")
        if isinstance(host, str) and host:
            return host.lower()
        if isinstance(url, bytes):
            url = url.decode("ascii", "replace")
        if not isinstance(url, str):
            return None
        return urlsplit(url[:_MAX_URL]).hostname
    except Exception:
        return None
