"""How each SDK's exception carries a failed response: one table, duck-typed, no imports.

An SDK error is recognised by a class name anywhere in its MRO together with the top-level
package that defines that class (:data:`SDK_TABLE`), so nothing here imports boto3,
slack_sdk, PyGithub, githubkit, twilio, google-api-core, google-auth, azure-core or stripe.
A row's kind says how the exception is read: a reader turning it into
``(status, headers, body)`` — the shape :func:`~agenterr._responses.response_parts` gives
for a response — or, for failures without a failed status, Slack's ``ok: false`` inside a
200 (an envelope), a google-auth credential error, or a transport error that keeps the
client's own failure in an attribute. ``from_error`` (through the chain walk) and
``from_response`` (through ``response_parts``) read this table; :data:`SDK_TRANSPORT`
lists the same SDKs' failures for the decorator's transport-or-bug decision.

A body built here from an SDK's parsed fields is a small JSON document in a shape the body
reader (SPEC 11.2) already understands: an AWS error code becomes ``{"__type": code}``, a
Google error ``{"error": {"code", "status", "errors", "details"}}``. Strings are cut to
:data:`_MAX_TEXT` characters and lists to :data:`_MAX_ITEMS` items, so the cost is bounded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from itertools import islice
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._outcome import Outcome
    from ._retry_after import Clock
    from ._rules import RuleSet

__all__ = ["SDK_TABLE", "SDK_TRANSPORT", "aws_body", "sdk_outcome", "sdk_parts"]

Parts = tuple[object, object, object]

_MAX_ITEMS = 8
"""Most list items (Google errors and details, quota violations) copied into a built body."""
_MAX_TEXT = 2048
"""Most characters of one SDK string copied into a built body (the reader caps it again)."""


def _attr(obj: object, name: str) -> Any:
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def _text(value: object) -> str | None:
    return value[:_MAX_TEXT] if isinstance(value, str) and value else None


def _package(cls: type) -> str:
    module = _attr(cls, "__module__")
    return module.partition(".")[0] if isinstance(module, str) else ""


# --- AWS ------------------------------------------------------------------------------


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
    code, message = _text(code), _text(message)
    if code:
        body["__type"] = code
    if message:
        body["message"] = message
    return body or None


# --- readers: exception → (status, headers, body) -----------------------------------------


def _pygithub(exc: BaseException) -> Parts | None:
    # GithubException keeps status, data (the parsed body) and headers behind properties.
    return _attr(exc, "status"), _attr(exc, "headers"), _attr(exc, "data")


def _twilio(exc: BaseException) -> Parts | None:
    # TwilioRestException: the HTTP status, Twilio's numeric code (20429…) and its message;
    # the client keeps no headers.
    body: dict[str, object] = {}
    code = _attr(exc, "code")
    if type(code) is int:
        body["code"] = code
    message = _text(_attr(exc, "msg"))
    if message:
        body["message"] = message
    return _attr(exc, "status"), None, body or None


def _aiohttp(exc: BaseException) -> Parts | None:
    # aiohttp ClientResponseError: status and headers by design, never the body.
    return _attr(exc, "status"), _attr(exc, "headers"), None


def _stripe(exc: BaseException) -> Parts | None:
    body = _attr(exc, "json_body")
    if not isinstance(body, (dict, list)):
        body = _attr(exc, "http_body")
    return _attr(exc, "http_status"), _attr(exc, "headers"), body


def _genai(exc: BaseException) -> Parts | None:
    # google-genai APIError: code is the HTTP status, details the parsed error body.
    response = _attr(exc, "response")
    return _attr(exc, "code"), _attr(response, "headers"), _attr(exc, "details")


def _githubkit(exc: BaseException) -> Parts | None:
    # RequestFailed.response is githubkit's wrapper; the httpx response it wraps holds the
    # headers and the read body.
    from ._responses import response_parts

    raw = _attr(_attr(exc, "response"), "raw_response")
    return response_parts(raw) if raw is not None else None


def _azure(exc: BaseException) -> Parts | None:
    # HttpResponseError: status_code, the pipeline's response (its transport's response
    # holds the read body) and the parsed OData error (error.code, error.message).
    from ._responses import response_parts

    response = _attr(exc, "response")
    status = _attr(exc, "status_code")
    headers = _attr(response, "headers")
    error = _attr(exc, "error")
    code, message = _text(_attr(error, "code")), _text(_attr(error, "message"))
    body: object = None
    if code or message:
        body = {"error": {k: v for k, v in (("code", code), ("message", message)) if v}}
    else:
        inner = _attr(response, "internal_response")
        parts = response_parts(inner) if inner is not None else None
        body = parts[2] if parts is not None else None
    if status is None and response is not None:
        status = _attr(response, "status_code")
    return status, headers, body


def _google_api(exc: BaseException) -> Parts | None:
    # GoogleAPICallError: ``code`` is the HTTP status (a class attribute), ``response`` a
    # requests response over HTTP or a gRPC call; errors and details are parsed JSON over
    # HTTP and protobuf messages over gRPC.
    from ._responses import response_parts

    status = _attr(exc, "code")
    response = _attr(exc, "response")
    headers = None
    if response is not None and callable(_attr(response, "json")):  # a requests response
        parts = response_parts(response)
        if parts is not None and parts[2] is not None:
            return status if parts[0] is None else parts[0], parts[1], parts[2]
        headers = _attr(response, "headers")
    error: dict[str, object] = {}
    if type(status) is int:
        error["code"] = status
    message = _text(_attr(exc, "message"))
    if message:
        error["message"] = message
    grpc = _text(_attr(_attr(exc, "grpc_status_code"), "name"))
    if grpc:
        error["status"] = grpc
    errors = [e for e in _listed(exc, "errors") if isinstance(e, dict)]
    if errors:
        error["errors"] = errors
    details = [d for d in (_google_detail(d) for d in _listed(exc, "details")) if d]
    info = _attr(exc, "reason")
    if _text(info):
        details.append({"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": info})
    if details:
        error["details"] = details
    return status, headers, {"error": error}


def _listed(obj: object, name: str) -> list[Any]:
    value = _attr(obj, name)
    return list(value[:_MAX_ITEMS]) if isinstance(value, (list, tuple)) else []


def _google_detail(detail: object) -> dict[str, object] | None:
    """A google.rpc detail (parsed JSON, or a protobuf message over gRPC) as its JSON form."""
    if isinstance(detail, dict):
        return detail
    kind = type(detail).__name__
    prefix = "type.googleapis.com/google.rpc."
    if kind == "RetryInfo":
        delay = _attr(detail, "retry_delay")
        seconds, nanos = _attr(delay, "seconds"), _attr(delay, "nanos")
        if type(seconds) is int and type(nanos) is int:
            return {"@type": prefix + kind, "retryDelay": {"seconds": seconds, "nanos": nanos}}
        return None
    if kind == "ErrorInfo":
        out: dict[str, object] = {"@type": prefix + kind}
        reason = _text(_attr(detail, "reason"))
        if reason:
            out["reason"] = reason
        metadata = _attr(detail, "metadata")
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
                    if (value := _text(_attr(violation, key)))
                }
            )
        return {"@type": prefix + kind, "violations": violations}
    return None


# --- the table -------------------------------------------------------------------------

# How each SDK's exception carries its failure, by (top-level package, class name anywhere
# in the MRO); the most derived class that has a row decides. Kinds other than the readers:
_SLACK = "slack"  # response.status_code/.headers/.data; ok:false inside a 2xx is an envelope
_CREDENTIALS = "credentials"  # google-auth: cannot find or refresh credentials
_WRAPPER = "wrapper"  # a transport error keeping the client's own one in an attribute
_TIMEOUT = "timeout"  # a wrapper that says the time ran out
_READERS: Mapping[str, Callable[[BaseException], Parts | None]] = {
    "pygithub": _pygithub,
    "twilio": _twilio,
    "aiohttp": _aiohttp,
    "stripe": _stripe,
    "genai": _genai,
    "githubkit": _githubkit,
    "azure": _azure,
    "google-api": _google_api,
}
SDK_TABLE: Mapping[str, Mapping[str, str]] = {
    # botocore: ClientError is read through its response dict (_responses, aws_body);
    # HTTPClientError/ConnectionError keep the failure in kwargs["error"].
    "botocore": {
        "ReadTimeoutError": _TIMEOUT,
        "ConnectTimeoutError": _TIMEOUT,
        "HTTPClientError": _WRAPPER,
        "ConnectionError": _WRAPPER,
    },
    # azure-core: status_code, response, error.code; the transport errors keep the failure
    # in inner_exception (their args hold only its text).
    "azure": {
        "HttpResponseError": "azure",
        "ServiceRequestTimeoutError": _TIMEOUT,
        "ServiceResponseTimeoutError": _TIMEOUT,
        "ServiceRequestError": _WRAPPER,
        "ServiceResponseError": _WRAPPER,
    },
    # google-api-core (code, errors, details, response), google-genai (code, details,
    # response), google-auth (credentials; the library marks refreshes worth repeating).
    "google": {
        "GoogleAPICallError": "google-api",
        "APIError": "genai",
        "RefreshError": _CREDENTIALS,
        "DefaultCredentialsError": _CREDENTIALS,
    },
    "slack_sdk": {"SlackApiError": _SLACK},
    "github": {"GithubException": "pygithub"},  # PyGithub: status, data, headers
    "githubkit": {"RequestFailed": "githubkit"},  # response.raw_response
    "twilio": {"TwilioRestException": "twilio"},  # status, code, msg; no headers
    "stripe": {"StripeError": "stripe"},  # http_status, json_body, headers, code
    "aiohttp": {"ClientResponseError": "aiohttp"},  # status, headers; no body by design
}
"""Top-level package → class name → how that SDK's exception is read. The openai,
anthropic, groq, cohere and mistralai errors need no row: their ``status_code``, ``body``,
``headers`` and ``response`` are read by :func:`~agenterr._responses.response_parts`."""

_KINDS: dict[type, str | None] = {}
_MAX_KINDS = 1024


def _kind(exc: object) -> str | None:
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
        if len(_KINDS) < _MAX_KINDS:
            _KINDS[tp] = kind
    except Exception:
        return None  # an unhashable or hostile class is in no row
    return kind


def sdk_parts(exc: object) -> Parts | None:
    """``(status, headers, body)`` an SDK exception carries, by the table.

    None when ``exc`` is not in the table or carries no HTTP status.
    """
    reader = _READERS.get(_kind(exc) or "")
    if reader is None:
        return None
    from ._responses import as_status

    try:
        parts = reader(exc)  # type: ignore[arg-type]
    except Exception:
        return None
    # No HTTP status (a connection error of the same SDK family): not a response; the
    # transport walk decides.
    status = as_status(parts[0]) if parts is not None else None
    return parts if status is not None and 100 <= status <= 599 else None


def sdk_outcome(
    exc: BaseException, now: Clock, original: BaseException, rules: tuple[RuleSet, ...] = ()
) -> Outcome[None] | None:
    """The outcome an SDK exception carries by the table, or None when it is not in it.

    Slack's ``SlackApiError`` with a 2xx is the envelope it was raised for (``ok: false``)
    and is read by :func:`~agenterr._envelope.from_envelope`; google-auth credential errors
    give UNAUTHORIZED (UNAVAILABLE when the library calls them retryable); a transport
    wrapper is classified by the failure it wraps; every other row gives its
    ``(status, headers, body)`` to the status rules.
    """
    kind = _kind(exc)
    if kind is None:
        return None
    from ._classify import _status_outcome
    from ._taxonomy import Code
    from ._transport import _transport_outcome

    if kind == _SLACK:
        response = _attr(exc, "response")
        status, headers, data = (
            _attr(response, "status_code"),
            _attr(response, "headers"),
            _attr(response, "data"),
        )
        if type(status) is int and 200 <= status <= 299:
            from ._envelope import envelope_failure

            found = envelope_failure(data, headers, now, rules)
            if found is None:
                from ._outcome import Outcome

                return Outcome()
            return replace(found.outcome, error=original)
        return _status_outcome(status, data, headers, now, original, rules=rules, host=response)
    if kind == _CREDENTIALS:
        return _credentials(exc, original)
    if kind == _TIMEOUT:
        return _transport_outcome(Code.TIMEOUT, original, exc)
    if kind == _WRAPPER:
        return _wrapped(exc, original, now, rules)
    parts = sdk_parts(exc)
    if parts is None:
        return None
    status, headers, body = parts
    return _status_outcome(status, body, headers, now, original, rules=rules, host=exc)


def _wrapped(
    exc: BaseException, original: BaseException, now: Clock, rules: tuple[RuleSet, ...]
) -> Outcome[None] | None:
    from ._transport import _from_error

    inner = _attr(exc, "inner_exception")
    if not isinstance(inner, BaseException):
        kwargs = _attr(exc, "kwargs")
        inner = kwargs.get("error") if isinstance(kwargs, dict) else None
    # One level only: an inner exception that is itself in the table is not unwrapped
    # again, so a chain of wrappers (or a cycle) costs one extra classification at most.
    if not isinstance(inner, BaseException) or _kind(inner) is not None:
        return None
    outcome = _from_error(inner, now, rules)
    return replace(outcome, error=original) if outcome.failed else None


def _credentials(exc: BaseException, original: BaseException) -> Outcome[None]:
    from ._hints import hint_for, where
    from ._outcome import _built
    from ._quote import snippet
    from ._taxonomy import Code

    code = Code.UNAVAILABLE if _attr(exc, "retryable") is True else Code.UNAUTHORIZED
    try:
        text = str(exc)
    except Exception:
        text = ""
    hint = hint_for(code, where(0, transport=True), snippet(text, 300))
    return _built(code, hint, None, 0, original)


# --- transport failures -------------------------------------------------------------------

SDK_TRANSPORT: Mapping[str, frozenset[str]] = {
    # botocore: HTTPClientError covers ReadTimeoutError and ConnectionClosedError,
    # ConnectionError covers EndpointConnectionError and ConnectTimeoutError; ClientError
    # is an HTTP error response.
    "botocore": frozenset({"HTTPClientError", "ConnectionError", "ClientError"}),
    # azure-core: ServiceRequestError (never sent), ServiceResponseError (sent, no answer),
    # HttpResponseError (an error status).
    "azure": frozenset({"ServiceRequestError", "ServiceResponseError", "HttpResponseError"}),
    # google-auth TransportError/RefreshError/DefaultCredentialsError, google-api-core
    # GoogleAPICallError, google-genai APIError.
    "google": frozenset(
        {
            "TransportError",
            "RefreshError",
            "DefaultCredentialsError",
            "GoogleAPICallError",
            "APIError",
        }
    ),
    "slack_sdk": frozenset({"SlackApiError"}),
    "github": frozenset({"GithubException"}),
    "githubkit": frozenset({"RequestFailed", "RequestTimeout", "RequestError"}),
    "twilio": frozenset({"TwilioRestException"}),
    "stripe": frozenset({"APIConnectionError"}),  # the others carry http_status
    "cohere": frozenset({"ApiError"}),
    "mistralai": frozenset({"MistralError", "NoResponseError"}),
    "groq": frozenset({"APIConnectionError", "APIStatusError"}),
}
"""Top-level package → class names (anywhere in the MRO) that mean the SDK's HTTP exchange
failed, for the decorator's transport-or-bug decision. A credential error of google-auth is
here because ``from_error`` classifies it (UNAUTHORIZED), not because it is a network one."""
