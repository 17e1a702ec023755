"""How each SDK's exception carries a failed response: one table, duck-typed, no imports.

An SDK error is recognised by a class name anywhere in its MRO together with the top-level
package that defines that class, so nothing here imports boto3, slack_sdk, PyGithub,
githubkit, twilio, google-api-core, google-auth, azure-core, stripe or the LLM SDKs. Each row
names the reader that turns the exception into ``(status, headers, body)`` — the shape
:func:`~agenterr._responses.response_parts` gives for a response — or, for the two SDK
failures that carry no failed status (Slack's ``ok: false`` inside a 200, a Google
credential refresh), into an Outcome directly. Both ``from_error`` and ``from_response``
(through ``response_parts``) read this table; :data:`SDK_TRANSPORT` lists the same SDKs'
transport failures for the decorator's transport-or-bug decision.

A body built here from an SDK's parsed fields is a small JSON document in a shape the body
reader (SPEC 11.2) already understands: an AWS error code becomes ``{"__type": code}``, a
Google error ``{"error": {"code", "status", "errors", "details"}}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._outcome import Outcome
    from ._retry_after import Clock

__all__ = ["SDK_TRANSPORT", "aws_body", "sdk_outcome", "sdk_parts"]

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


def _matches(exc: object, table: Mapping[str, frozenset[str]]) -> str | None:
    """The class name from ``table`` that ``exc`` is an instance of (by MRO), or None."""
    try:
        for cls in type(exc).__mro__:
            names = table.get(_package(cls))
            if names is not None and cls.__name__ in names:
                return cls.__name__
    except Exception:
        return None
    return None


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


def _status_code(exc: BaseException) -> Parts | None:
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
            pairs = list(metadata.items())[:_MAX_ITEMS] if metadata is not None else []
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


_READERS: dict[str, Callable[[BaseException], Parts | None]] = {
    "GithubException": _pygithub,
    "TwilioRestException": _twilio,
    "ClientResponseError": _status_code,
    "StripeError": _stripe,
    "APIError": _genai,
    "RequestFailed": _githubkit,
    "HttpResponseError": _azure,
    "GoogleAPICallError": _google_api,
}

# Top-level package → the class names (anywhere in the MRO) of _READERS it defines.
_TABLE: Mapping[str, frozenset[str]] = {
    "github": frozenset({"GithubException"}),  # PyGithub
    "twilio": frozenset({"TwilioRestException"}),
    "aiohttp": frozenset({"ClientResponseError"}),
    "stripe": frozenset({"StripeError"}),
    "google": frozenset({"APIError", "GoogleAPICallError"}),  # genai; api_core
    "githubkit": frozenset({"RequestFailed"}),
    "azure": frozenset({"HttpResponseError"}),
}


def sdk_parts(exc: object) -> Parts | None:
    """``(status, headers, body)`` an SDK exception carries, by the table.

    None when ``exc`` is not in the table or carries no HTTP status.
    """
    name = _matches(exc, _TABLE)
    if name is None:
        return None
    from ._responses import as_status

    try:
        parts = _READERS[name](exc)  # type: ignore[arg-type]
    except Exception:
        return None
    # No HTTP status (a connection error of the same SDK family): not a response; the
    # transport walk decides.
    status = as_status(parts[0]) if parts is not None else None
    return parts if status is not None and 100 <= status <= 599 else None


# --- SDK failures without a failed status -------------------------------------------------

# google-auth: credentials that cannot be found or refreshed need a human (a new key, a
# re-login, a granted scope); the library marks the refreshes worth repeating as retryable.
_CREDENTIALS: Mapping[str, frozenset[str]] = {
    "google": frozenset({"RefreshError", "DefaultCredentialsError"}),
}
_SLACK: Mapping[str, frozenset[str]] = {"slack_sdk": frozenset({"SlackApiError"})}


def sdk_outcome(exc: BaseException, now: Clock, original: BaseException) -> Outcome[None] | None:
    """The outcome an SDK exception carries by the table, or None when it is not in it.

    Slack's ``SlackApiError`` with a 2xx is the envelope it was raised for (``ok: false``)
    and is read by :func:`~agenterr._envelope.from_envelope`; google-auth credential errors
    give UNAUTHORIZED (UNAVAILABLE when the library calls them retryable); every other row
    gives its ``(status, headers, body)`` to the status rules.
    """
    from ._classify import _status_outcome

    if _matches(exc, _SLACK) is not None:
        response = _attr(exc, "response")
        status, headers, data = (
            _attr(response, "status_code"),
            _attr(response, "headers"),
            _attr(response, "data"),
        )
        if type(status) is int and 200 <= status <= 299:
            from ._envelope import from_envelope

            outcome = from_envelope(data, headers=headers, now=now)
            return replace(outcome, error=original) if outcome.failed else outcome
        return _status_outcome(status, data, headers, now, original)
    if _matches(exc, _CREDENTIALS) is not None:
        return _credentials(exc, original)
    if _matches(exc, _WRAPPERS) is not None:
        return _wrapped(exc, original)
    parts = sdk_parts(exc)
    if parts is None:
        return None
    status, headers, body = parts
    return _status_outcome(status, body, headers, now, original)


# Transport errors that keep the client's own failure in an attribute rather than in the
# cause chain: azure-core's ServiceRequestError/ServiceResponseError (``inner_exception``;
# their args hold only its text) and botocore's HTTPClientError/ConnectionError
# (``kwargs["error"]``). The timeout subclasses say TIMEOUT themselves.
_WRAPPERS: Mapping[str, frozenset[str]] = {
    "azure": frozenset({"ServiceRequestError", "ServiceResponseError"}),
    "botocore": frozenset({"HTTPClientError", "ConnectionError"}),
}
_SDK_TIMEOUTS: Mapping[str, frozenset[str]] = {
    "azure": frozenset({"ServiceRequestTimeoutError", "ServiceResponseTimeoutError"}),
    "botocore": frozenset({"ReadTimeoutError", "ConnectTimeoutError"}),
}


def _wrapped(exc: BaseException, original: BaseException) -> Outcome[None] | None:
    from ._classify import _transport_outcome, from_error
    from ._taxonomy import Code

    if _matches(exc, _SDK_TIMEOUTS) is not None:
        return _transport_outcome(Code.TIMEOUT, original, exc)
    inner = _attr(exc, "inner_exception")
    if not isinstance(inner, BaseException):
        kwargs = _attr(exc, "kwargs")
        inner = kwargs.get("error") if isinstance(kwargs, dict) else None
    # One level only: an inner exception that is itself such a wrapper is not unwrapped
    # again, so a chain of wrappers (or a cycle) costs one extra classification at most.
    if not isinstance(inner, BaseException) or _matches(inner, _WRAPPERS) is not None:
        return None
    outcome = from_error(inner)
    return replace(outcome, error=original) if outcome.failed else None


def _credentials(exc: BaseException, original: BaseException) -> Outcome[None]:
    from ._hints import hint_for, snippet, where
    from ._outcome import Outcome
    from ._taxonomy import Code

    code = Code.UNAVAILABLE if _attr(exc, "retryable") is True else Code.UNAUTHORIZED
    try:
        text = str(exc)
    except Exception:
        text = ""
    hint = hint_for(code, where(0, transport=True), snippet(text, 300))
    return Outcome(code, hint, None, 0, None, original)


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
    "stripe": frozenset({"StripeError"}),
    "cohere": frozenset({"ApiError"}),
    "mistralai": frozenset({"MistralError", "NoResponseError"}),
    "groq": frozenset({"APIConnectionError", "APIStatusError"}),
}
"""Top-level package → class names (anywhere in the MRO) that mean the SDK's HTTP exchange
failed, for the decorator's transport-or-bug decision. A credential error of google-auth is
here because ``from_error`` classifies it (UNAUTHORIZED), not because it is a network one."""
