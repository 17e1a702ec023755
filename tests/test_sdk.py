"""The SDK table (agenterr._sdk) on exceptions built directly: paths no local server reaches.

google-api-core errors as the gRPC transport builds them (protobuf details), google-auth's
retryable refresh, botocore error-response dicts given to from_response, and hostile
exceptions that borrow an SDK's class and module names.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from azure.core.exceptions import ClientAuthenticationError
from botocore.exceptions import ClientError, EndpointConnectionError, ReadTimeoutError
from google.api_core import exceptions as google_exceptions
from google.auth import exceptions as auth_exceptions
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2

from agenterr import Code, classified_tool, from_error, from_response
from agenterr._responses import aws_body
from agenterr._sdk import sdk_parts


def _retry_info(seconds: int, nanos: int = 0) -> Any:
    return error_details_pb2.RetryInfo(
        retry_delay=duration_pb2.Duration(seconds=seconds, nanos=nanos)
    )


def test_grpc_retry_info_gives_the_delay() -> None:
    error = google_exceptions.ResourceExhausted("slow down", details=[_retry_info(12, 500_000_000)])
    outcome = from_error(error)
    assert outcome.code is Code.RATE_LIMITED
    assert outcome.retry_after == 12.5
    assert outcome.status == 429


def test_grpc_daily_quota_failure_is_an_exhausted_allowance() -> None:
    violation = error_details_pb2.QuotaFailure.Violation(
        subject="project:p", description="Quota exceeded for requests per day per project"
    )
    error = google_exceptions.ResourceExhausted(
        "quota", details=[error_details_pb2.QuotaFailure(violations=[violation])]
    )
    assert from_error(error).code is Code.UNAUTHORIZED


def test_grpc_error_info_reason_decides() -> None:
    info = error_details_pb2.ErrorInfo(reason="API_KEY_INVALID", domain="googleapis.com")
    error = google_exceptions.BadRequest("API key not valid", details=[info])
    assert from_error(error).code is Code.UNAUTHORIZED
    # The reason also arrives as error_info (api_core's own parsing of the details).
    assert from_error(google_exceptions.BadRequest("bad", error_info=info)).code is (
        Code.UNAUTHORIZED
    )


@pytest.mark.parametrize(
    ("error", "code", "status"),
    [
        # no grpcio here: grpc_status_code is None, and DataLoss has no HTTP code either
        (google_exceptions.DataLoss("checksum mismatch"), Code.UNKNOWN, 500),
        (google_exceptions.Aborted("transaction aborted"), Code.UNAVAILABLE, 409),
        (google_exceptions.Cancelled("cancelled"), Code.TIMEOUT, 499),
        (google_exceptions.Unknown("unknown"), Code.UNAVAILABLE, 500),
    ],
)
def test_a_google_error_is_read_by_its_grpc_code(error: Exception, code: Code, status: int) -> None:
    """The class names the gRPC code when the exception carries none (SPEC notes, peer
    findings): DATA_LOSS is fatal, ABORTED a retry, CANCELLED the 499 row."""
    outcome = from_error(error)
    assert (outcome.code, outcome.status) == (code, status)


class _AzureResponse:
    status_code = 401
    reason = "Unauthorized"
    headers: ClassVar[dict[str, str]] = {"content-type": "application/json"}
    content_type = "application/json"

    def text(self, encoding: str | None = None) -> str:
        return '{"error": {"code": "InvalidAuthenticationToken", "message": "expired"}}'

    def body(self) -> bytes:
        return self.text().encode()


def test_an_azure_authentication_error_without_a_response_is_auth() -> None:
    """azure-core raises ClientAuthenticationError from a credential before any request: no
    retry fixes it. With a response it is that response."""
    refused = from_error(ClientAuthenticationError("ManagedIdentityCredential: no token"))
    assert refused.code is Code.UNAUTHORIZED
    assert refused.reason is not None and refused.reason.rule == "sdk-credentials"
    answered = from_error(ClientAuthenticationError(response=_AzureResponse()))
    assert (answered.code, answered.status) == (Code.UNAUTHORIZED, 401)
    assert answered.reason is not None and answered.reason.rule == "status-table"


def test_grpc_status_without_details_keeps_the_table() -> None:
    assert from_error(google_exceptions.NotFound("no such bucket")).code is Code.NOT_FOUND
    assert from_error(google_exceptions.ServiceUnavailable("down")).code is Code.UNAVAILABLE


def test_google_auth_refresh_marked_retryable_is_transient() -> None:
    error = auth_exceptions.RefreshError("token endpoint returned 503", retryable=True)
    assert from_error(error).code is Code.UNAVAILABLE
    assert from_error(auth_exceptions.RefreshError("invalid_grant")).code is Code.UNAUTHORIZED
    assert from_error(auth_exceptions.DefaultCredentialsError("none found")).code is (
        Code.UNAUTHORIZED
    )


def _aws(code: str, status: int) -> dict[str, Any]:
    return {
        "Error": {"Code": code, "Message": "m"},
        "ResponseMetadata": {"HTTPStatusCode": status, "HTTPHeaders": {}},
    }


@pytest.mark.parametrize(
    ("code", "status", "expected"),
    [
        ("ThrottlingException", 400, Code.RATE_LIMITED),
        ("ExpiredToken", 400, Code.UNAUTHORIZED),
        ("RequestTimeout", 400, Code.TIMEOUT),
        ("OperationAborted", 409, Code.UNAVAILABLE),
        ("ValidationException", 400, Code.INVALID_REQUEST),
    ],
)
def test_botocore_error_code_decides(code: str, status: int, expected: Code) -> None:
    response = _aws(code, status)
    assert from_response(response).code is expected
    assert from_error(ClientError(response, "Op")).code is expected  # type: ignore[arg-type]


def test_aws_body_shapes() -> None:
    assert aws_body({"Code": "SlowDown", "Message": "m"}) == {"__type": "SlowDown", "message": "m"}
    assert aws_body({"Code": "", "Message": None}) is None
    assert aws_body("not a mapping") == "not a mapping"
    assert aws_body({"Code": "x" * 10_000})["__type"] == "x" * 2048  # type: ignore[index]


def test_botocore_transport_wrappers() -> None:
    timeout = ReadTimeoutError(endpoint_url="http://127.0.0.1:1")
    assert from_error(timeout).code is Code.TIMEOUT
    inner = TimeoutError("connect timed out")
    wrapped = EndpointConnectionError(endpoint_url="http://127.0.0.1:1", error=inner)
    assert from_error(wrapped).code is Code.TIMEOUT
    assert from_error(wrapped).error is wrapped
    refused = EndpointConnectionError(
        endpoint_url="http://127.0.0.1:1", error=ConnectionRefusedError()
    )
    assert from_error(refused).code is Code.UNAVAILABLE


_HOSTILE = ("status", "headers", "data", "code", "msg", "response", "details", "errors")


def _explode(self: object) -> object:
    raise RuntimeError("hostile attribute")


def _borrowed(module: str, name: str) -> type[Exception]:
    """An exception class that claims an SDK's module and class name; every field raises."""
    namespace: dict[str, Any] = {"__module__": module}
    namespace.update({field: property(_explode) for field in _HOSTILE})
    return type(name, (Exception,), namespace)


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("github.GithubException", "GithubException"),
        ("twilio.base.exceptions", "TwilioRestException"),
        ("stripe._error", "StripeError"),
        ("google.genai.errors", "APIError"),
        ("google.api_core.exceptions", "GoogleAPICallError"),
        ("githubkit.exception", "RequestFailed"),
        ("azure.core.exceptions", "HttpResponseError"),
        ("azure.core.exceptions", "ClientAuthenticationError"),
        ("azure.core.exceptions", "ServiceRequestError"),
        ("slack_sdk.errors", "SlackApiError"),
        ("google.auth.exceptions", "RefreshError"),
    ],
)
def test_hostile_sdk_lookalikes_never_raise(module: str, name: str) -> None:
    error = _borrowed(module, name)("boom")
    outcome = from_error(error)
    assert outcome.failed
    assert sdk_parts(error) is None

    @classified_tool
    def tool() -> None:
        raise error

    assert tool().failed


def test_sdk_parts_ignores_other_exceptions() -> None:
    assert sdk_parts(ValueError("x")) is None
    assert sdk_parts(object()) is None


def test_sdk_tests_extra_is_part_of_the_test_extra() -> None:
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]
    assert extras["sdk-tests"]
    assert set(extras["sdk-tests"]) <= set(extras["test"])
