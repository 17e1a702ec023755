"""Cloud SDKs against a local server replaying documented error responses.

boto3/botocore (DynamoDB's JSON protocol and S3's XML), azure-core's pipeline, google-cloud-
storage (google-api-core errors, a google-auth token refresh) and google-genai, each with
its retries off and a short timeout; see test_sdk_clients.py for what every case checks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from azure.core import PipelineClient
from azure.core.pipeline.policies import HeadersPolicy
from azure.core.rest import HttpRequest
from botocore.config import Config
from google import genai
from google.api_core.client_options import ClientOptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage
from google.genai import types as genai_types
from google.oauth2.credentials import Credentials

from agenterr import Code, from_response
from tests._replay import TIMEOUT, Case, ReplayServer, Reply, check, refused, serve, slow

pytestmark = pytest.mark.external

# The botocore and azure-core transport errors (timeouts, refused connections) are not yet in
# the decorator's transport table, so @classified_tool still calls them bugs; from_error is
# right. The check asserts the disagreement so the argument goes once the tables are one.
DECORATOR_TRANSPORT = "the decorator's transport table does not list this SDK's transport errors"
# SPEC 11 rules: an error identifier moves a status's code only to another class, so a
# NOT_FOUND identifier in a 400 stays INVALID_REQUEST and a throttling one in a 503 stays
# UNAVAILABLE (the reaction class is right; the code is not).


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    yield from serve()


# --- AWS: DynamoDB (JSON 1.0 protocol) ----------------------------------------------


def _dynamodb_error(kind: str, message: str, status: int = 400) -> Reply:
    return Reply(
        status,
        {"__type": f"com.amazonaws.dynamodb.v20120810#{kind}", "message": message},
        {"Content-Type": "application/x-amz-json-1.0", "x-amzn-RequestId": "R1"},
    )


DYNAMODB_CASES = {
    "throttling": Case(
        _dynamodb_error("ThrottlingException", "Rate of requests exceeds the allowed throughput."),
        Code.RATE_LIMITED,
    ),
    "throughput": Case(
        _dynamodb_error(
            "ProvisionedThroughputExceededException",
            "The level of configured provisioned throughput for the table was exceeded.",
        ),
        Code.RATE_LIMITED,
    ),
    "account-limit": Case(
        _dynamodb_error("RequestLimitExceeded", "Throughput exceeds the current account limit."),
        Code.RATE_LIMITED,
    ),
    "bad-key": Case(
        _dynamodb_error("UnrecognizedClientException", "The security token included is invalid."),
        Code.UNAUTHORIZED,
    ),
    "expired": Case(
        _dynamodb_error("ExpiredTokenException", "The security token included has expired"),
        Code.UNAUTHORIZED,
    ),
    "permission": Case(
        _dynamodb_error("AccessDeniedException", "User is not authorized to perform ListTables"),
        Code.UNAUTHORIZED,
    ),
    "not-found": Case(
        _dynamodb_error("ResourceNotFoundException", "Requested resource not found"),
        Code.NOT_FOUND,
    ),
    "validation": Case(
        _dynamodb_error("ValidationException", "1 validation error detected"),
        Code.INVALID_REQUEST,
    ),
    "500": Case(
        _dynamodb_error("InternalServerError", "Internal server error", 500), Code.UNAVAILABLE
    ),
    "503": Case(
        _dynamodb_error("ServiceUnavailable", "Service unavailable", 503), Code.UNAVAILABLE
    ),
    "timeout": slow(),
    "refused": refused(),
}

_AWS_CONFIG: dict[str, Any] = {
    "region_name": "us-east-1",
    "aws_access_key_id": "AKIDEXAMPLE",
    "aws_secret_access_key": "secret",
}


def _aws_config() -> Config:
    return Config(
        retries={"total_max_attempts": 1, "mode": "standard"},
        connect_timeout=TIMEOUT,
        read_timeout=TIMEOUT,
    )


def _dynamodb(url: str) -> object:
    client = boto3.client("dynamodb", endpoint_url=url, config=_aws_config(), **_AWS_CONFIG)
    return client.list_tables()


def _transport(case: Case) -> str | None:
    return DECORATOR_TRANSPORT if case.reply is None or case.reply.delay else None


@pytest.mark.parametrize("case", [c.param(n) for n, c in DYNAMODB_CASES.items()])
def test_dynamodb(server: ReplayServer, case: Case) -> None:
    check(server, case, _dynamodb)


# --- AWS: S3 (REST-XML) --------------------------------------------------------------


def _s3_error(status: int, code: str, message: str, **headers: str) -> Reply:
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<Error><Code>{code}</Code><Message>{message}</Message>"
        "<RequestId>4442587FB7D0A2F9</RequestId></Error>"
    )
    return Reply(status, body, {"Content-Type": "application/xml", **headers})


S3_CASES = {
    "slow-down": Case(
        _s3_error(503, "SlowDown", "Please reduce your request rate."),
        Code.RATE_LIMITED,
    ),
    "bad-key": Case(
        _s3_error(403, "InvalidAccessKeyId", "The AWS Access Key Id does not exist."),
        Code.UNAUTHORIZED,
    ),
    "signature": Case(
        _s3_error(403, "SignatureDoesNotMatch", "The request signature does not match."),
        Code.UNAUTHORIZED,
    ),
    "expired": Case(
        _s3_error(400, "ExpiredToken", "The provided token has expired."), Code.UNAUTHORIZED
    ),
    "permission": Case(_s3_error(403, "AccessDenied", "Access Denied"), Code.UNAUTHORIZED),
    "not-found": Case(
        _s3_error(404, "NoSuchKey", "The specified key does not exist."), Code.NOT_FOUND
    ),
    "validation": Case(
        _s3_error(400, "InvalidArgument", "Invalid argument."), Code.INVALID_REQUEST
    ),
    "request-timeout": Case(
        _s3_error(400, "RequestTimeout", "Your socket connection was not read from in time."),
        Code.TIMEOUT,
    ),
    "operation-aborted": Case(
        _s3_error(409, "OperationAborted", "A conflicting operation is in progress."),
        Code.UNAVAILABLE,
    ),
    "500": Case(
        _s3_error(500, "InternalError", "We encountered an internal error."), Code.UNAVAILABLE
    ),
    "503": Case(
        _s3_error(503, "ServiceUnavailable", "Service is unable to handle request."),
        Code.UNAVAILABLE,
    ),
    "timeout": slow(),
    "refused": refused(),
}


def _s3(url: str) -> object:
    client = boto3.client("s3", endpoint_url=url, config=_aws_config(), **_AWS_CONFIG)
    return client.get_object(Bucket="bucket", Key="key")


@pytest.mark.parametrize("case", [c.param(n) for n, c in S3_CASES.items()])
def test_s3(server: ReplayServer, case: Case) -> None:
    check(server, case, _s3)


# --- Azure: azure-core pipeline, ARM-style error bodies -------------------------------


def _azure_error(status: int, code: str, message: str, **headers: str) -> Reply:
    return Reply(status, {"error": {"code": code, "message": message}}, headers)


AZURE_CASES = {
    "rate-limit": Case(
        _azure_error(429, "TooManyRequests", "Too many requests.", **{"Retry-After": "7"}),
        Code.RATE_LIMITED,
        7,
    ),
    "quota": Case(
        _azure_error(429, "QuotaExceeded", "Operation results in exceeding quota limits of Core."),
        Code.UNAUTHORIZED,
    ),
    "bad-key": Case(
        _azure_error(401, "InvalidAuthenticationToken", "The access token is invalid."),
        Code.UNAUTHORIZED,
    ),
    "permission": Case(
        _azure_error(403, "AuthorizationFailed", "The client does not have authorization."),
        Code.UNAUTHORIZED,
    ),
    "not-found": Case(
        _azure_error(404, "ResourceNotFound", "The Resource was not found."), Code.NOT_FOUND
    ),
    "validation": Case(
        _azure_error(400, "InvalidParameter", "The value of parameter sku is invalid."),
        Code.INVALID_REQUEST,
    ),
    "in-progress": Case(
        _azure_error(409, "AnotherOperationInProgress", "Another operation is in progress."),
        Code.UNAVAILABLE,
    ),
    "500": Case(_azure_error(500, "InternalServerError", "Internal error."), Code.UNAVAILABLE),
    "503": Case(
        _azure_error(503, "ServerBusy", "The server is busy.", **{"Retry-After": "5"}),
        Code.UNAVAILABLE,
        5,
    ),
    "timeout": slow(),
    "refused": refused(),
}


def _azure(url: str) -> object:
    client: PipelineClient[Any, Any] = PipelineClient(url, policies=[HeadersPolicy()])
    with client:
        response = client.send_request(
            HttpRequest("GET", url + "/subscriptions/s/resourceGroups/g"),
            connection_timeout=TIMEOUT,
            read_timeout=TIMEOUT,
        )
        response.raise_for_status()
        return response


@pytest.mark.parametrize("case", [c.param(n) for n, c in AZURE_CASES.items()])
def test_azure_core(server: ReplayServer, case: Case) -> None:
    exc = check(server, case, _azure)
    if case.reply is not None and not case.reply.delay:
        # azure-core's response wraps the transport's: from_response reads through it.
        assert from_response(exc.response).code is case.code  # type: ignore[attr-defined]


# --- Google Cloud Storage: google-api-core errors, google-auth refresh -----------------


def _google_error(status: int, reason: str, message: str, **headers: str) -> Reply:
    return Reply(
        status,
        {
            "error": {
                "code": status,
                "message": message,
                "errors": [{"message": message, "domain": "global", "reason": reason}],
            }
        },
        headers,
    )


GCS_CASES = {
    "rate-limit": Case(
        _google_error(429, "rateLimitExceeded", "The rate of change requests is too high."),
        Code.RATE_LIMITED,
    ),
    "quota": Case(
        _google_error(403, "dailyLimitExceeded", "Daily Limit Exceeded"), Code.UNAUTHORIZED
    ),
    "bad-key": Case(_google_error(401, "authError", "Invalid Credentials"), Code.UNAUTHORIZED),
    "permission": Case(
        _google_error(403, "forbidden", "caller does not have storage.objects.get access"),
        Code.UNAUTHORIZED,
    ),
    "not-found": Case(
        _google_error(404, "notFound", "The specified bucket does not exist."), Code.NOT_FOUND
    ),
    "validation": Case(
        _google_error(400, "invalid", "Invalid bucket name: 'B'"), Code.INVALID_REQUEST
    ),
    "500": Case(_google_error(500, "backendError", "Backend Error"), Code.UNAVAILABLE),
    "503": Case(
        _google_error(503, "backendError", "Service Unavailable", **{"Retry-After": "5"}),
        Code.UNAVAILABLE,
        5,
    ),
    "timeout": slow(),
    "refused": refused(),
}


def _gcs(url: str, credentials: Any = None) -> object:
    client = storage.Client(
        project="p",
        credentials=credentials or AnonymousCredentials(),
        client_options=ClientOptions(api_endpoint=url),
    )
    return client.get_bucket("bucket", timeout=TIMEOUT, retry=None)


@pytest.mark.parametrize("case", [c.param(n) for n, c in GCS_CASES.items()])
def test_google_cloud_storage(server: ReplayServer, case: Case) -> None:
    # Over HTTP the client's transport errors are requests' (the decorator knows them); a 401
    # makes the anonymous credentials refuse to refresh (google-auth InvalidOperation).
    pending = DECORATOR_TRANSPORT if case is GCS_CASES["bad-key"] else None
    check(server, case, _gcs, decorator_pending=pending)


REFRESH_CASES = {
    "revoked": Case(
        Reply(
            400,
            {"error": "invalid_grant", "error_description": "Token has been expired or revoked."},
        ),
        Code.UNAUTHORIZED,
    ),
    "bad-client": Case(
        Reply(401, {"error": "invalid_client", "error_description": "Unauthorized"}),
        Code.UNAUTHORIZED,
    ),
    # the token endpoint unreachable: google-auth's TransportError around requests' error
    "timeout": slow(),
    "refused": refused(),
}


def _gcs_refresh(url: str) -> object:
    credentials = Credentials(
        token=None,
        refresh_token="refresh",
        client_id="client",
        client_secret="secret",
        token_uri=url + "/token",
    )
    return _gcs(url, credentials)


@pytest.mark.parametrize("case", [c.param(n) for n, c in REFRESH_CASES.items()])
def test_google_auth_refresh(server: ReplayServer, case: Case) -> None:
    # A refused refresh (RefreshError) is no transport failure in the decorator's table yet;
    # an unreachable token endpoint raises TransportError from requests' error, which it is.
    unreachable = case.reply is None or case.reply.delay
    check(
        server, case, _gcs_refresh, decorator_pending=None if unreachable else DECORATOR_TRANSPORT
    )


# --- Gemini: google-genai ----------------------------------------------------------


def _gemini_error(
    status: int, grpc: str, message: str, *details: dict[str, object], **headers: str
) -> Reply:
    error: dict[str, object] = {"code": status, "message": message, "status": grpc}
    if details:
        error["details"] = list(details)
    return Reply(status, {"error": error}, headers)


_RPC = "type.googleapis.com/google.rpc."

GEMINI_CASES = {
    "rate-limit": Case(
        _gemini_error(
            429,
            "RESOURCE_EXHAUSTED",
            "Resource has been exhausted (e.g. check quota).",
            {"@type": _RPC + "RetryInfo", "retryDelay": "17s"},
        ),
        Code.RATE_LIMITED,
        17,
    ),
    "quota": Case(
        _gemini_error(
            429,
            "RESOURCE_EXHAUSTED",
            "You exceeded your current quota, please check your plan and billing details.",
            {
                "@type": _RPC + "QuotaFailure",
                "violations": [
                    {
                        "quotaMetric": "generativelanguage.googleapis.com/generate_requests",
                        "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                    }
                ],
            },
        ),
        Code.UNAUTHORIZED,
    ),
    "bad-key": Case(
        _gemini_error(
            400,
            "INVALID_ARGUMENT",
            "API key not valid. Please pass a valid API key.",
            {"@type": _RPC + "ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"},
        ),
        Code.UNAUTHORIZED,
    ),
    "permission": Case(
        _gemini_error(403, "PERMISSION_DENIED", "The caller does not have permission"),
        Code.UNAUTHORIZED,
    ),
    "not-found": Case(
        _gemini_error(404, "NOT_FOUND", "models/gemini-x is not found"), Code.NOT_FOUND
    ),
    "validation": Case(
        _gemini_error(400, "INVALID_ARGUMENT", "Request contains an invalid argument."),
        Code.INVALID_REQUEST,
    ),
    "500": Case(
        _gemini_error(500, "INTERNAL", "An internal error has occurred."), Code.UNAVAILABLE
    ),
    "503": Case(
        _gemini_error(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
        Code.UNAVAILABLE,
    ),
    "timeout": slow(),
    "refused": refused(),
}


def _gemini(url: str) -> object:
    client = genai.Client(
        api_key="AIza-test",
        http_options=genai_types.HttpOptions(
            base_url=url,
            timeout=int(TIMEOUT * 1000),
            retry_options=genai_types.HttpRetryOptions(attempts=1),
        ),
    )
    with client:
        return client.models.get(model="gemini-x")


@pytest.mark.parametrize("case", [c.param(n) for n, c in GEMINI_CASES.items()])
def test_google_genai(server: ReplayServer, case: Case) -> None:
    check(server, case, _gemini)
