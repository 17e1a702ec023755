"""How each SDK's exception carries a failed response: one table, duck-typed, no imports.

An SDK error is recognised by a class name anywhere in its MRO together with the top-level
package that defines that class (:data:`SDK_TABLE`), so nothing here imports boto3,
slack_sdk, PyGithub, githubkit, twilio, google-api-core, google-auth, azure-core or stripe.
A row's kind says how the exception is read: a reader turning it into
``(status, headers, body)`` — the shape :func:`~agenterr._responses.response_parts` gives
for a response — or, for failures without a failed status, Slack's ``ok: false`` inside a
200 (an envelope), a google-auth credential error, or a transport error that keeps the
client's own failure in an attribute. The chain walk of ``from_error`` (``_transport``)
reads this table through :func:`sdk_kind` and :func:`carried_parts`.

A body built here from an SDK's parsed fields is a small JSON document in a shape the body
reader (SPEC 11.2) already understands: an AWS error code becomes ``{"__type": code}``, a
Google error ``{"error": {"code", "status", "errors", "details"}}``. Strings are cut to
:data:`~agenterr._responses.MAX_TEXT` characters and lists to :data:`_MAX_ITEMS` items, so
the cost is bounded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import islice
from typing import Any

from ._responses import Parts, exception_parts, response_parts, short_text
from ._shared import BoundedCache, attr
from ._status import as_status

__all__ = [
    "CREDENTIALS",
    "SDK_TABLE",
    "SIGN_IN",
    "SLACK",
    "TIMEOUT",
    "WRAPPER",
    "carried_parts",
    "sdk_kind",
    "sdk_parts",
]

_MAX_ITEMS = 8
"""Most list items (Google errors and details, quota violations) copied into a built body."""


def _package(cls: type) -> str:
    module = attr(cls, "__module__")
    return module.partition(".")[0] if isinstance(module, str) else ""


# --- AWS ------------------------------------------------------------------------------


# --- readers: exception → (status, headers, body) -----------------------------------------


def _pygithub(exc: BaseException) -> Parts | None:
    # GithubException keeps status, data (the parsed body) and headers behind properties.
    return attr(exc, "status"), attr(exc, "headers"), attr(exc, "data")


def _twilio(exc: BaseException) -> Parts | None:
    # TwilioRestException: the HTTP status, Twilio's numeric code (20429…) and its message;
    # the client keeps no headers.
    body: dict[str, object] = {}
    code = attr(exc, "code")
    if type(code) is int:
        body["code"] = code
    message = short_text(attr(exc, "msg"))
    if message:
        body["message"] = message
    return attr(exc, "status"), None, body or None


def _aiohttp(exc: BaseException) -> Parts | None:
    # aiohttp ClientResponseError: status and headers by design, never the body.
    return attr(exc, "status"), attr(exc, "headers"), None


def _stripe(exc: BaseException) -> Parts | None:
    body = attr(exc, "json_body")
    if not isinstance(body, (dict, list)):
        body = attr(exc, "http_body")
    return attr(exc, "http_status"), attr(exc, "headers"), body


def _genai(exc: BaseException) -> Parts | None:
    # google-genai APIError: code is the HTTP status, details the parsed error body.
    response = attr(exc, "response")
    return attr(exc, "code"), attr(response, "headers"), attr(exc, "details")


def _githubkit(exc: BaseException) -> Parts | None:
    # RequestFailed.response is githubkit's wrapper; the httpx response it wraps holds the
    # headers and the read body.
    raw = attr(attr(exc, "response"), "raw_response")
    return response_parts(raw) if raw is not None else None


def _azure(exc: BaseException) -> Parts | None:
    # HttpResponseError: status_code, the pipeline's response (its transport's response
    # holds the read body) and the parsed OData error (error.code, error.message).
    response = attr(exc, "response")
    status = attr(exc, "status_code")
    headers = attr(response, "headers")
    error = attr(exc, "error")
    code, message = short_text(attr(error, "code")), short_text(attr(error, "message"))
    body: object = None
    if code or message:
        body = {"error": {k: v for k, v in (("code", code), ("message", message)) if v}}
    else:
        inner = attr(response, "internal_response")
        parts = response_parts(inner) if inner is not None else None
        body = parts[2] if parts is not None else None
    if status is None and response is not None:
        status = attr(response, "status_code")
    return status, headers, body


# google-api-core's exception classes and the gRPC codes they stand for. Its
# ``grpc_status_code`` is None when grpcio is not installed, and some classes (DataLoss,
# Unknown) have no HTTP ``code``: the class then says which code it is, and the code's HTTP
# status (google.rpc.Code's mapping) stands in for the missing one.
_GOOGLE_GRPC: Mapping[str, tuple[str, int]] = {
    "Cancelled": ("CANCELLED", 499),
    "Unknown": ("UNKNOWN", 500),
    "InvalidArgument": ("INVALID_ARGUMENT", 400),
    "DeadlineExceeded": ("DEADLINE_EXCEEDED", 504),
    "NotFound": ("NOT_FOUND", 404),
    "AlreadyExists": ("ALREADY_EXISTS", 409),
    "PermissionDenied": ("PERMISSION_DENIED", 403),
    "ResourceExhausted": ("RESOURCE_EXHAUSTED", 429),
    "FailedPrecondition": ("FAILED_PRECONDITION", 400),
    "Aborted": ("ABORTED", 409),
    "OutOfRange": ("OUT_OF_RANGE", 400),
    "MethodNotImplemented": ("UNIMPLEMENTED", 501),
    "InternalServerError": ("INTERNAL", 500),
    "ServiceUnavailable": ("UNAVAILABLE", 503),
    "DataLoss": ("DATA_LOSS", 500),
    "Unauthenticated": ("UNAUTHENTICATED", 401),
}


def _google_grpc(exc: BaseException) -> tuple[str, int] | None:
    """The gRPC code of a google-api-core exception, by its ``grpc_status_code`` or else
    by the first of its classes that names one, with that code's HTTP status."""
    name = short_text(attr(attr(exc, "grpc_status_code"), "name"))
    for cls in type(exc).__mro__:
        found = _GOOGLE_GRPC.get(cls.__name__) if _package(cls) == "google" else None
        if found is not None:
            return (name or found[0]), found[1]
    return (name, 500) if name else None


def _google_api(exc: BaseException) -> Parts | None:
    # GoogleAPICallError: ``code`` is the HTTP status (a class attribute), ``response`` a
    # requests response over HTTP or a gRPC call; errors and details are parsed JSON over
    # HTTP and protobuf messages over gRPC.
    status = attr(exc, "code")
    grpc = _google_grpc(exc)
    if status is None and grpc is not None:
        status = grpc[1]
    response = attr(exc, "response")
    headers = None
    if response is not None and callable(attr(response, "json")):  # a requests response
        parts = response_parts(response)
        if parts is not None and parts[2] is not None:
            return status if parts[0] is None else parts[0], parts[1], parts[2]
        headers = attr(response, "headers")
    error: dict[str, object] = {}
    if type(status) is int:
        error["code"] = status
    message = short_text(attr(exc, "message"))
    if message:
        error["message"] = message
    if grpc is not None:
        error["status"] = grpc[0]
    errors = [e for e in _listed(exc, "errors") if isinstance(e, dict)]
    if errors:
        error["errors"] = errors
    details = [d for d in (_google_detail(d) for d in _listed(exc, "details")) if d]
    info = attr(exc, "reason")
    if short_text(info):
        details.append({"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": info})
    if details:
        error["details"] = details
    return status, headers, {"error": error}


def _listed(obj: object, name: str) -> list[Any]:
    value = attr(obj, name)
    return list(value[:_MAX_ITEMS]) if isinstance(value, (list, tuple)) else []


def _google_detail(detail: object) -> dict[str, object] | None:
    """A google.rpc detail (parsed JSON, or a protobuf message over gRPC) as its JSON form."""
    if isinstance(detail, dict):
        return detail
    kind = type(detail).__name__
    prefix = "type.googleapis.com/google.rpc."
    if kind == "RetryInfo":
        delay = attr(detail, "retry_delay")
        seconds, nanos = attr(delay, "seconds"), attr(delay, "nanos")
        if type(seconds) is int and type(nanos) is int:
            return {"@type": prefix + kind, "retryDelay": {"seconds": seconds, "nanos": nanos}}
        return None
    if kind == "ErrorInfo":
        out: dict[str, object] = {"@type": prefix + kind}
        reason = short_text(attr(detail, "reason"))
        if reason:
            out["reason"] = reason
        metadata = attr(detail, "metadata")
        try:
            pairs = list(islice(metadata.items(), _MAX_ITEMS)) if metadata is not None else []
        except Exception:
            pairs = []
        out["metadata"] = {k: v for k, v in pairs if isinstance(k, str) and isinstance(v, str)}
        return out
    if kind == "QuotaFailure":
        violations = []
        for violation in _listed(detail, "violations"):
            violations.append(
                {
                    key: value
                    for key in ("subject", "description")
                    if (value := short_text(attr(violation, key)))
                }
            )
        return {"@type": prefix + kind, "violations": violations}
    return None


# --- the table -------------------------------------------------------------------------

# How each SDK's exception carries its failure, by (top-level package, class name anywhere
# in the MRO); the most derived class that has a row decides. Kinds other than the readers:
SLACK = "slack"  # response.status_code/.headers/.data; ok:false inside a 2xx is an envelope
CREDENTIALS = "credentials"  # google-auth: cannot find or refresh credentials
WRAPPER = "wrapper"  # a transport error keeping the client's own one in an attribute
SIGN_IN = "sign-in"  # azure-core: its response when it has one, else refused credentials
TIMEOUT = "timeout"  # a wrapper that says the time ran out
_READERS: Mapping[str, Callable[[BaseException], Parts | None]] = {
    "pygithub": _pygithub,
    "twilio": _twilio,
    "aiohttp": _aiohttp,
    "stripe": _stripe,
    "genai": _genai,
    "githubkit": _githubkit,
    "azure": _azure,
    SIGN_IN: _azure,
    "google-api": _google_api,
}
SDK_TABLE: Mapping[str, Mapping[str, str]] = {
    # botocore: ClientError is read through its response dict (_responses, aws_body);
    # HTTPClientError/ConnectionError keep the failure in kwargs["error"].
    "botocore": {
        "ReadTimeoutError": TIMEOUT,
        "ConnectTimeoutError": TIMEOUT,
        "HTTPClientError": WRAPPER,
        "ConnectionError": WRAPPER,
    },
    # azure-core: status_code, response, error.code; the transport errors keep the failure
    # in inner_exception (their args hold only its text).
    "azure": {
        "ClientAuthenticationError": SIGN_IN,
        "HttpResponseError": "azure",
        "ServiceRequestTimeoutError": TIMEOUT,
        "ServiceResponseTimeoutError": TIMEOUT,
        "ServiceRequestError": WRAPPER,
        "ServiceResponseError": WRAPPER,
    },
    # google-api-core (code, errors, details, response), google-genai (code, details,
    # response), google-auth (credentials; the library marks refreshes worth repeating).
    "google": {
        "GoogleAPICallError": "google-api",
        "APIError": "genai",
        "RefreshError": CREDENTIALS,
        "DefaultCredentialsError": CREDENTIALS,
    },
    "slack_sdk": {"SlackApiError": SLACK},
    "github": {"GithubException": "pygithub"},  # PyGithub: status, data, headers
    "githubkit": {"RequestFailed": "githubkit"},  # response.raw_response
    "twilio": {"TwilioRestException": "twilio"},  # status, code, msg; no headers
    "stripe": {"StripeError": "stripe"},  # http_status, json_body, headers, code
    "aiohttp": {"ClientResponseError": "aiohttp"},  # status, headers; no body by design
}
"""Top-level package → class name → how that SDK's exception is read. The openai,
anthropic, groq, cohere and mistralai errors need no row: their ``status_code``, ``body``,
``headers`` and ``response`` are read by :func:`~agenterr._responses.response_parts`."""

_KINDS: BoundedCache[type, str | None] = BoundedCache(1024)


def sdk_kind(exc: object) -> str | None:
    """The table's kind for ``exc``'s class (cached per class, bounded), or None."""
    tp = type(exc)
    try:
        if tp in _KINDS:
            return _KINDS[tp]
        kind = None
        for cls in tp.__mro__:
            row = SDK_TABLE.get(_package(cls))
            if row is not None and cls.__name__ in row:
                kind = row[cls.__name__]
                break
        _KINDS.remember(tp, kind)
    except Exception:
        return None  # an unhashable or hostile class is in no row
    return kind


def sdk_parts(exc: object) -> Parts | None:
    """``(status, headers, body)`` an SDK exception carries, by the table.

    None when ``exc`` is not in the table or carries no HTTP status.
    """
    reader = _READERS.get(sdk_kind(exc) or "")
    if reader is None:
        return None
    try:
        parts = reader(exc)  # type: ignore[arg-type]
    except Exception:
        return None
    # No HTTP status (a connection error of the same SDK family): not a response; the
    # transport walk decides.
    status = as_status(parts[0]) if parts is not None else None
    return parts if status is not None and 100 <= status <= 599 else None


def carried_parts(exc: object) -> Parts | None:
    """``(status, headers, body)`` an exception carries: by the SDK table first, then by the
    attribute names any exception may use (:func:`~agenterr._responses.exception_parts`)."""
    if exc is None:
        return None
    parts = sdk_parts(exc)
    return parts if parts is not None else exception_parts(exc)
