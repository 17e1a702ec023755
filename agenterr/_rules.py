"""Rules as data: one ``Rule`` type, the built-in tables, and the rules users add.

Every signal agenterr reads in an error body or an envelope (an error identifier, a phrase in a
message, a field of a reply, an HTTP status for one host) maps to a code through a
:class:`Rule`. The built-in rules are the tables of SPEC.md Annex A and Annex B, and a test
renders those tables from the rows below, so adding a provider's identifier is one edit here.

Users teach agenterr their own API's vocabulary with the same type, at three scopes (SPEC
Annex A, "user rules"): per call (``rules=`` of the classifiers), per decorator
(``classified_tool(rules=...)``) and process-wide (:func:`add_rules`). A rule is checked when it
is built, so a malformed one fails where it is written, not when a failure is classified.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, TypeAlias, TypeVar

from ._shared import ascii_lower
from ._taxonomy import Code

__all__ = [
    "ACCESS_PHRASES",
    "ANCHORS",
    "API_ERROR_DEFAULT",
    "BUILTIN",
    "CONTENT_POLICY",
    "GENERAL",
    "GRPC_NAMES",
    "JSONRPC_CODES",
    "PRECEDENCE",
    "RANKS",
    "REASON_PHRASES",
    "TOOL_ERROR_DEFAULT",
    "Rule",
    "RuleSet",
    "Rules",
    "add_rules",
    "code_for_identifier",
    "layers",
    "normalise",
    "rank",
    "remove_rules",
]

_K = TypeVar("_K")
RuleKind: TypeAlias = Literal["identifier", "phrase", "field", "status", "fragment"]
Scope: TypeAlias = Literal["any", "http", "envelope", "general"]

_MAX_IDENTIFIER = 128
_MAX_PHRASE = 256
_MAX_PATH_DEPTH = 4
_NOT_ALNUM = re.compile("[^A-Za-z0-9]+")
_HOST = re.compile(
    r"(?:\*\.)?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*"
)


def normalise(identifier: str) -> str:
    """An identifier as SPEC A.3 compares it: its ASCII letters and digits, lower-cased."""
    return _NOT_ALNUM.sub("", identifier[:_MAX_IDENTIFIER]).lower()


# --- precedence: the cost of being wrong (SPEC A.3) -------------------------------------

PRECEDENCE: tuple[tuple[Code, bool], ...] = (
    (Code.UNAUTHORIZED, True),  # an exhausted quota or billing limit
    (Code.UNAUTHORIZED, False),
    (Code.RATE_LIMITED, False),
    (Code.TIMEOUT, False),
    (Code.UNAVAILABLE, False),
    (Code.NOT_FOUND, False),
    (Code.INVALID_REQUEST, False),
    (Code.UNKNOWN, False),
)
"""(code, quota wording) in precedence order: when one body says both "throttled" and
"billing exhausted", the reading whose wrong reaction costs most wins."""

ANCHORS: dict[tuple[Code, bool], str] = dict(
    zip(
        PRECEDENCE,
        (
            "r-quota",
            "r-auth",
            "r-throttled",
            "r-timeout",
            "r-busy",
            "r-missing",
            "r-invalid",
            "r-fatal",
        ),
        strict=True,
    )
)
"""The SPEC anchor of each rule group."""

RANKS = {key: index for index, key in enumerate(PRECEDENCE)}
"""The precedence rank of each reading, (code, quota) → 0 for the strongest."""


def rank(code: Code, quota: bool = False) -> int:
    """The precedence rank of a reading (0 is the strongest)."""
    return RANKS[(code, quota)]


# --- the Rule type -----------------------------------------------------------------------


def _as_code(code: object) -> Code:
    if isinstance(code, Code):
        result = code
    elif isinstance(code, str):
        try:
            result = Code(code)
        except ValueError:
            names = ", ".join(c.value for c in Code if c is not Code.SCHEMA_INVALID)
            raise ValueError(f"Rule: unknown code {code[:64]!r}; expected one of {names}") from None
    else:
        raise TypeError(f"Rule: code must be a Code or its name, got {type(code).__name__}")
    if result is Code.SCHEMA_INVALID:
        raise ValueError("Rule: SCHEMA_INVALID comes from pre-flight validation, not from a rule")
    return result


def _text(value: object, what: str, limit: int) -> str:
    if not isinstance(value, str):
        raise TypeError(f"Rule: {what} must be a str, got {type(value).__name__}")
    if not value.strip() or len(value) > limit:
        raise ValueError(f"Rule: {what} must be 1 to {limit} characters, not blank")
    return value


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: a signal in a failed response or an envelope, and the code it means.

    Build rules with the constructors, which check their arguments::

        Rule.identifier("ERR_QUOTA_77", "UNAUTHORIZED", quota=True)
        Rule.phrase("try again in a moment", "UNAVAILABLE")
        Rule.field("state", "busy", "UNAVAILABLE")
        Rule.status(409, "UNAVAILABLE", host="api.internal.example")

    ``quota`` (with ``UNAUTHORIZED`` only) selects the "quota or billing" hint wording.
    ``source`` and ``reason`` say where the meaning is documented and why; the built-in
    rules carry both.
    """

    kind: RuleKind
    match: str | int
    code: Code
    quota: bool = False
    value: str | int | bool | None = None
    host: str | None = None
    scope: Scope = "any"
    source: str = ""
    reason: str = ""
    key: str | int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        code = _as_code(self.code)
        object.__setattr__(self, "code", code)
        if not isinstance(self.quota, bool):
            raise TypeError("Rule: quota must be a bool")
        if self.quota and code is not Code.UNAUTHORIZED:
            raise ValueError("Rule: quota=True needs the code UNAUTHORIZED")
        if self.scope not in ("any", "http", "envelope", "general"):
            raise ValueError(
                f"Rule: scope must be 'any', 'http', 'envelope' or 'general', not {self.scope!r}"
            )
        for name in ("source", "reason"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"Rule: {name} must be a str")
        if self.host is not None and self.kind != "status":
            raise ValueError("Rule: host applies to status rules only")
        if self.value is not None and self.kind != "field":
            raise ValueError("Rule: value applies to field rules only")
        key: str | int
        if self.kind == "identifier":
            key = normalise(_text(self.match, "identifier", _MAX_IDENTIFIER))
            if not key:
                raise ValueError(f"Rule: identifier {self.match!r} has no ASCII letter or digit")
        elif self.kind == "phrase":
            phrase = _text(self.match, "phrase", _MAX_PHRASE)
            key = ascii_lower(phrase)
        elif self.kind == "fragment":
            key = normalise(_text(self.match, "fragment", _MAX_IDENTIFIER))
            if not key:
                raise ValueError(f"Rule: fragment {self.match!r} has no ASCII letter or digit")
        elif self.kind == "field":
            key = _field_key(self.match, self.value)
        elif self.kind == "status":
            key = _status_key(self.match)
            if self.host is not None:
                object.__setattr__(self, "host", _host(self.host))
        else:
            raise ValueError(
                f"Rule: kind must be identifier, phrase, field or status, not {self.kind!r}"
            )
        if self.kind == "fragment" and self.scope != "general":
            raise ValueError("Rule: fragments belong to the general evidence only")
        object.__setattr__(self, "key", key)

    @classmethod
    def identifier(
        cls, name: str, code: Code | str, *, quota: bool = False, source: str = "", reason: str = ""
    ) -> Rule:
        """An error identifier (``"ERR_QUOTA_77"``, ``"ThrottlingException"``) and its code.

        Compared as SPEC A.3 normalises identifiers; it replaces the built-in meaning of the
        same identifier.
        """
        return cls("identifier", name, _as_code(code), quota, source=source, reason=reason)

    @classmethod
    def phrase(
        cls, text: str, code: Code | str, *, quota: bool = False, source: str = "", reason: str = ""
    ) -> Rule:
        """Words in an error message (ASCII letters compared case-insensitively)."""
        return cls("phrase", text, _as_code(code), quota, source=source, reason=reason)

    @classmethod
    def field(
        cls,
        path: str,
        value: str | int | bool,
        code: Code | str,
        *,
        quota: bool = False,
        source: str = "",
        reason: str = "",
    ) -> Rule:
        """A member of a JSON reply (``"state"``, ``"result.status"``) with a given value.

        Strings are compared normalised (``"Busy"`` matches ``"busy"``), numbers and
        booleans exactly. In a 2xx reply a match is a failure (an envelope); in an error
        body it is evidence like an identifier.
        """
        return cls("field", path, _as_code(code), quota, value, source=source, reason=reason)

    @classmethod
    def status(
        cls,
        status: int,
        code: Code | str,
        *,
        host: str | None = None,
        quota: bool = False,
        source: str = "",
        reason: str = "",
    ) -> Rule:
        """What a failing HTTP status means for one API: it replaces the status table's row.

        With ``host`` (``"api.example.com"`` or ``"*.example.com"``) it applies only to
        responses whose URL has that host, which :func:`~agenterr.from_response`,
        :func:`~agenterr.from_error` and the decorator know; without, to every response.
        """
        return cls(
            "status", status, _as_code(code), quota, None, host, source=source, reason=reason
        )


def _field_key(path: object, value: object) -> str:
    text = _text(path, "field path", 256)
    steps = text.split(".")
    if len(steps) > _MAX_PATH_DEPTH or not all(steps):
        raise ValueError(f"Rule: field path {text!r} must be 1 to 4 non-empty dotted names")
    if value is None:
        raise ValueError("Rule: a field rule needs the value that means a failure")
    if isinstance(value, float) or not isinstance(value, (str, int)):
        raise TypeError(f"Rule: field value must be a str, int or bool, got {type(value).__name__}")
    if isinstance(value, str) and not normalise(value):
        raise ValueError(f"Rule: field value {value!r} has no ASCII letter or digit")
    return text


def _status_key(status: object) -> int:
    if type(status) is not int:
        raise TypeError(f"Rule: status must be an int, got {type(status).__name__}")
    if not 100 <= status <= 599 or 200 <= status <= 299:
        raise ValueError(
            f"Rule: status {status} is not a failing HTTP status (100-199, 300-599); "
            "use a field rule for failures inside a 2xx reply"
        )
    return status


def _host(host: object) -> str:
    if not isinstance(host, str):
        raise TypeError(f"Rule: host must be a str, got {type(host).__name__}")
    lowered = host.strip().lower().rstrip(".")
    if len(lowered) > 253 or not _HOST.fullmatch(lowered):
        raise ValueError(f"Rule: host {host[:80]!r} is not a host name (or *.domain)")
    return lowered


# --- compiled sets and scopes ----------------------------------------------------------


class RuleSet:
    """Rules compiled for lookup: one scope's rules. Build once, reuse on every call.

    Two rules of one set that read the same signal differently are an error.
    """

    __slots__ = ("fields", "identifiers", "phrases", "rules", "statuses")

    def __init__(self, rules: Iterable[Rule] = ()) -> None:
        if isinstance(rules, Rule):
            rules = (rules,)
        try:
            items = tuple(rules)
        except TypeError:
            raise TypeError(
                f"rules must be Rule objects or a RuleSet, got {type(rules).__name__}"
            ) from None
        identifiers: dict[str, Rule] = {}
        phrases: dict[str, Rule] = {}
        fields: dict[tuple[str, object], Rule] = {}
        statuses: dict[int, list[Rule]] = {}
        for rule in items:
            if not isinstance(rule, Rule):
                raise TypeError(f"rules must be Rule objects, got {type(rule).__name__}")
            if rule.kind == "identifier":
                _once(identifiers, str(rule.key), rule)
            elif rule.kind == "phrase":
                _once(phrases, str(rule.key), rule)
            elif rule.kind == "fragment":
                raise ValueError("rules: fragments are built-in general evidence, not user rules")
            elif rule.kind == "field":
                value = normalise(rule.value) if isinstance(rule.value, str) else rule.value
                _once(fields, (str(rule.key), (type(rule.value), value)), rule)
            else:
                assert isinstance(rule.key, int)
                same = statuses.setdefault(rule.key, [])
                if any(other.host == rule.host and other != rule for other in same):
                    raise ValueError(
                        f"rules: two rules for status {rule.key} and one host disagree"
                    )
                if rule not in same:
                    same.append(rule)
        self.rules = items
        self.identifiers = identifiers
        self.phrases = tuple(phrases.values())
        self.fields = tuple(fields.values())
        # A host-specific rule is tried before the rule for every host.
        self.statuses = {
            status: tuple(sorted(group, key=lambda r: r.host is None))
            for status, group in statuses.items()
        }

    def __repr__(self) -> str:
        return f"RuleSet({len(self.rules)} rules)"

    def __len__(self) -> int:
        return len(self.rules)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)


def _once(table: dict[_K, Rule], key: _K, rule: Rule) -> None:
    other = table.setdefault(key, rule)
    if other is not rule and (other.code, other.quota) != (rule.code, rule.quota):
        raise ValueError(
            f"rules: {rule.kind} {rule.match!r} is given two meanings "
            f"({other.code.value} and {rule.code.value})"
        )


Rules: TypeAlias = RuleSet | Iterable[Rule] | Rule | None
"""What ``rules=`` accepts: a RuleSet (fastest), an iterable of rules, one rule, or None."""


def compile_rules(rules: object) -> RuleSet | None:
    """``rules=`` as a RuleSet (None for none); raises TypeError/ValueError for bad ones."""
    if rules is None:
        return None
    if isinstance(rules, RuleSet):
        return rules if rules.rules else None
    compiled = RuleSet(rules)  # type: ignore[arg-type]
    return compiled if compiled.rules else None


_lock = threading.Lock()
_process_rules: tuple[Rule, ...] = ()
_process: RuleSet | None = None


def add_rules(*rules: Rule) -> None:
    """Add rules for every classification in this process (the widest scope).

    Rules given per call and per decorator win over these. Checked now: a malformed rule or
    one that contradicts a rule already added raises here.
    """
    global _process_rules, _process
    with _lock:
        candidate = (*_process_rules, *(r for r in rules if r not in _process_rules))
        compiled = RuleSet(candidate)
        _process_rules, _process = candidate, compiled


def remove_rules(*rules: Rule) -> None:
    """Remove process-wide rules added with :func:`add_rules` (all of them when none given)."""
    global _process_rules, _process
    with _lock:
        kept = tuple(r for r in _process_rules if rules and r not in rules)
        _process_rules, _process = kept, (RuleSet(kept) if kept else None)


def process_rule_set() -> RuleSet | None:
    """The rules :func:`add_rules` put in force for the whole process (None when there are none)."""
    return _process


def layers(call: object = None, decorator: RuleSet | None = None) -> tuple[RuleSet, ...]:
    """The user rule sets in force, nearest scope first: call, decorator, process."""
    process = _process
    if call is None and decorator is None and process is None:
        return ()
    found = [compile_rules(call), decorator, process]
    return tuple(s for s in found if s is not None)


# --- built-in rules (SPEC Annex A.3, Annex B.2) ----------------------------------------

_AWS = "https://docs.aws.amazon.com/general/latest/gr/api-retries.html"
_AWS_S3 = "https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html"
_AWS_SNS = "https://docs.aws.amazon.com/sns/latest/api/API_Publish.html"
_DYNAMODB = (
    "https://docs.aws.amazon.com/botocore/latest/reference/services/dynamodb/client/"
    "exceptions/ReplicatedWriteConflictException.html"
)
_CLOUDDIRECTORY = (
    "https://docs.aws.amazon.com/botocore/latest/reference/services/clouddirectory/client/"
    "exceptions/RetryableConflictException.html"
)
_OAUTH = "https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1"
_GOOGLE = "https://google.aip.dev/193"
_GRPC = "https://grpc.github.io/grpc/core/md_doc_statuscodes.html"
_AZURE = (
    "https://learn.microsoft.com/en-us/azure/azure-resource-manager/troubleshooting/"
    "common-deployment-errors"
)
_GRAPH = "https://learn.microsoft.com/en-us/graph/errors"
_OPENAI = "https://platform.openai.com/docs/guides/error-codes"
_ANTHROPIC = "https://docs.anthropic.com/en/api/errors"
_STRIPE = "https://docs.stripe.com/api/errors"
_SLACK = "https://api.slack.com/web#evaluating_responses"
_K8S = "https://kubernetes.io/docs/reference/using-api/api-concepts/"
_DROPBOX = "https://www.dropbox.com/developers/documentation/http/documentation"
_APOLLO = "https://www.apollographql.com/docs/apollo-server/data/errors#built-in-error-codes"
_SHOPIFY = "https://shopify.dev/docs/api/usage/response-codes"
_GITHUB = "https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api"
_HUBSPOT = "https://developers.hubspot.com/docs/api/usage-details"
_MCP_TOOLS = "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling"


def _identifiers(
    code: Code, source: str, names: Iterable[str], *, quota: bool = False, scope: Scope = "any"
) -> tuple[Rule, ...]:
    return tuple(Rule("identifier", n, code, quota, scope=scope, source=source) for n in names)


def _phrases(
    code: Code, source: str, texts: Iterable[str], *, quota: bool = False, scope: Scope
) -> tuple[Rule, ...]:
    return tuple(Rule("phrase", t, code, quota, scope=scope, source=source) for t in texts)


_Q, _A, _T, _TO, _B, _M, _I, _F = (
    Code.UNAUTHORIZED,
    Code.UNAUTHORIZED,
    Code.RATE_LIMITED,
    Code.TIMEOUT,
    Code.UNAVAILABLE,
    Code.NOT_FOUND,
    Code.INVALID_REQUEST,
    Code.UNKNOWN,
)

BUILTIN: tuple[Rule, ...] = (
    # r-quota: credits, billing or a quota someone must raise, whatever the status.
    *_identifiers(
        _Q,
        _OPENAI,
        ("insufficient_quota", "billing_hard_limit_reached", "billing_not_active"),
        quota=True,
    ),
    *_identifiers(_Q, _ANTHROPIC, ("billing_error",), quota=True),
    *_identifiers(
        _Q, _GOOGLE, ("BILLING_DISABLED", "dailyLimitExceeded", "quotaExceeded"), quota=True
    ),
    *_identifiers(_Q, _GRAPH, ("quotaLimitReached", "insufficient_storage"), quota=True),
    *_identifiers(_Q, _DROPBOX, ("insufficient_space",), quota=True),
    # r-auth
    *_identifiers(
        _A,
        _AWS,
        (
            "AccessDenied",
            "AccessDeniedException",
            "AuthFailure",
            "ExpiredToken",
            "ExpiredTokenException",
            "IncompleteSignature",
            "InvalidAccessKeyId",
            "InvalidClientTokenId",
            "InvalidSignatureException",
            "KMSAccessDeniedException",
            "MissingAuthenticationToken",
            "MissingAuthenticationTokenException",
            "NotAuthorized",
            "SignatureDoesNotMatch",
            "UnauthorizedOperation",
            "UnrecognizedClientException",
        ),
    ),
    *_identifiers(
        _A,
        _GOOGLE,
        (
            "API_KEY_INVALID",
            "PERMISSION_DENIED",
            "UNAUTHENTICATED",
            "SERVICE_DISABLED",
            "accessNotConfigured",
            "insufficientPermissions",
        ),
    ),
    *_identifiers(
        _A,
        _AZURE,
        (
            "AuthorizationFailed",
            "InvalidAuthenticationToken",
            "ExpiredAuthenticationToken",
            "MissingSubscriptionRegistration",
        ),
    ),
    *_identifiers(
        _A,
        _SLACK,
        (
            "invalid_auth",
            "not_authed",
            "account_inactive",
            "token_revoked",
            "token_expired",
            "missing_scope",
            "not_in_channel",
            "no_permission",
        ),
    ),
    *_identifiers(_A, _APOLLO, ("ACCESS_DENIED", "FORBIDDEN")),
    # r-throttled
    *_identifiers(
        _T,
        _AWS,
        (
            "Throttling",
            "ThrottlingException",
            "ThrottledException",
            "TooManyRequestsException",
            "ProvisionedThroughputExceededException",
            "RequestLimitExceeded",
            "RequestThrottled",
            "RequestThrottledException",
            "SlowDown",
            "LimitExceededException",
            "BandwidthLimitExceeded",
            "PriorRequestNotComplete",
            "EC2ThrottledException",
        ),
    ),
    *_identifiers(
        _T,
        _GOOGLE,
        ("rateLimitExceeded", "userRateLimitExceeded", "RATE_LIMIT_EXCEEDED", "RESOURCE_EXHAUSTED"),
    ),
    *_identifiers(_T, _OPENAI, ("rate_limit_exceeded",)),
    *_identifiers(_T, _ANTHROPIC, ("rate_limit_error",)),
    *_identifiers(_T, _SLACK, ("rate_limited",)),
    *_identifiers(_T, _STRIPE, ("rate_limit",)),
    *_identifiers(_T, _SHOPIFY, ("THROTTLED",)),
    *_identifiers(_T, _K8S, ("TooManyRequests",)),
    *_identifiers(_T, _GRAPH, ("activityLimitReached",)),
    # r-timeout
    *_identifiers(_TO, _AWS, ("RequestTimeout", "RequestTimeoutException")),
    *_identifiers(_TO, _GRPC, ("DEADLINE_EXCEEDED", "CANCELLED")),
    *_identifiers(_TO, _K8S, ("Timeout",)),
    *_identifiers(_TO, _SLACK, ("request_timeout",)),
    # r-busy
    *_identifiers(
        _B,
        _AWS,
        (
            "ServiceUnavailable",
            "ServiceUnavailableException",
            "InternalFailure",
            "InternalError",
            "IDPCommunicationError",
            "IDPCommunicationErrorException",
            "OperationAborted",
            "TransactionInProgressException",
        ),
    ),
    *_identifiers(_B, _GRPC, ("UNAVAILABLE", "ABORTED", "INTERNAL")),
    *_identifiers(_B, _GOOGLE, ("backendError",)),
    *_identifiers(
        _B,
        _AZURE,
        ("AnotherOperationInProgress", "ResourceGroupBeingDeleted", "ServerBusy"),
    ),
    *_identifiers(_B, _GRAPH, ("Directory_ConcurrencyViolation", "serviceNotAvailable")),
    *_identifiers(_B, _ANTHROPIC, ("overloaded_error", "api_error")),
    *_identifiers(_B, _STRIPE, ("idempotency_key_in_use", "lock_timeout")),
    *_identifiers(_B, _SLACK, ("internal_error", "service_unavailable")),
    *_identifiers(_B, _K8S, ("ServerTimeout",)),
    # A write that met another Region's (DynamoDB global tables) or an earlier one still
    # propagating: the SDKs mark both safe to retry.
    *_identifiers(_B, _DYNAMODB, ("ReplicatedWriteConflictException",)),
    *_identifiers(_B, _CLOUDDIRECTORY, ("RetryableConflictException",)),
    # OAuth 2.0's codes for a 500 and a 503 that a redirect cannot carry as a status (RFC
    # 6749 4.1.2.1); OpenAI's error type for its own failures is the first.
    *_identifiers(_B, _OAUTH, ("server_error", "temporarily_unavailable")),
    # r-missing
    *_identifiers(_M, _GRPC, ("NOT_FOUND",)),
    *_identifiers(_M, _K8S, ("NotFound",)),
    *_identifiers(_M, _AZURE, ("ResourceNotFound",)),
    *_identifiers(_M, _AWS, ("ResourceNotFoundException",)),
    *_identifiers(_M, _AWS_S3, ("NoSuchKey", "NoSuchBucket")),
    *_identifiers(_M, _SLACK, ("channel_not_found", "user_not_found")),
    # r-invalid
    *_identifiers(
        _I,
        _GRPC,
        (
            "INVALID_ARGUMENT",
            "UNIMPLEMENTED",
            "FAILED_PRECONDITION",
            "OUT_OF_RANGE",
            "ALREADY_EXISTS",
        ),
    ),
    *_identifiers(_I, _K8S, ("AlreadyExists",)),
    *_identifiers(_I, _AWS, ("ValidationException", "InvalidParameterValue")),
    *_identifiers(_I, _AWS_SNS, ("EndpointDisabled",)),
    *_identifiers(_I, _STRIPE, ("card_error",)),
    *_identifiers(_I, _SLACK, ("invalid_arguments", "is_archived")),
    *_identifiers(
        _I, _APOLLO, ("BAD_USER_INPUT", "GRAPHQL_VALIDATION_FAILED", "GRAPHQL_PARSE_FAILED")
    ),
    # r-fatal
    *_identifiers(_F, _SLACK, ("fatal_error",)),
    *_identifiers(_F, _GRPC, ("DATA_LOSS",)),
    # Annex B.2: identifiers that matter only where no failing status already speaks.
    Rule(
        "identifier",
        "INTERNAL_SERVER_ERROR",
        _B,
        scope="envelope",
        source=_SHOPIFY,
        reason="GraphQL's HTTP 500: Shopify returns it instead of a 500; the status table's row.",
    ),
    Rule(
        "identifier",
        "BAD_REQUEST",
        _I,
        scope="envelope",
        source=_APOLLO,
        reason="The request is malformed.",
    ),
    Rule(
        "identifier",
        "OPERATION_RESOLUTION_FAILURE",
        _I,
        scope="envelope",
        source=_APOLLO,
        reason="The operation to run could not be determined.",
    ),
    Rule(
        "identifier",
        "PERSISTED_QUERY_NOT_FOUND",
        _I,
        scope="envelope",
        source=_APOLLO,
        reason="The request must send the full query.",
    ),
    Rule(
        "identifier",
        "PERSISTED_QUERY_NOT_SUPPORTED",
        _I,
        scope="envelope",
        source=_APOLLO,
        reason="The request must send the full query.",
    ),
    Rule(
        "identifier",
        "MAX_COST_EXCEEDED",
        _I,
        scope="envelope",
        source=_SHOPIFY,
        reason="The query itself is too costly: it must shrink.",
    ),
    Rule(
        "identifier",
        "SHOP_INACTIVE",
        _A,
        scope="envelope",
        source=_SHOPIFY,
        reason="The shop is not active: a human must act.",
    ),
    Rule(
        "identifier",
        "invalid_request_error",
        _I,
        scope="envelope",
        source=_ANTHROPIC,
        reason="The format or content of the request is wrong.",
    ),
    Rule(
        "identifier",
        "authentication_error",
        _A,
        scope="envelope",
        source=_ANTHROPIC,
        reason="A problem with the API key.",
    ),
    Rule(
        "identifier",
        "permission_error",
        _A,
        scope="envelope",
        source=_ANTHROPIC,
        reason="The key may not use the resource.",
    ),
    Rule(
        "identifier",
        "not_found_error",
        _M,
        scope="envelope",
        source=_ANTHROPIC,
        reason="The requested resource was not found.",
    ),
    Rule(
        "identifier",
        "request_too_large",
        _I,
        scope="envelope",
        source=_ANTHROPIC,
        reason="The request must shrink.",
    ),
    # Annex A.4: phrases of error bodies, for the distinctions some providers make only in
    # prose (the engine applies them under the conditions of A.4).
    *_phrases(_Q, _OPENAI, ("plan and billing", "enable billing"), quota=True, scope="http"),
    *_phrases(
        _Q, _ANTHROPIC, ("credit balance", "spend limit", "usage limits"), quota=True, scope="http"
    ),
    *_phrases(_Q, _HUBSPOT, ("daily limit", "monthly limit"), quota=True, scope="http"),
    *_phrases(
        _T, _GITHUB, ("rate limit", "too many requests", "throttl", "try again later"), scope="http"
    ),
    # Annex B.2: phrases of envelope errors without an identifier; the first row found decides.
    Rule(
        "phrase",
        "rate limit",
        _T,
        scope="envelope",
        source=_MCP_TOOLS,
        reason="The MCP spec's own example of a tool error.",
    ),
    Rule(
        "phrase",
        "rate-limit",
        _T,
        scope="envelope",
        source=_MCP_TOOLS,
        reason="Rate-limit wording.",
    ),
    Rule(
        "phrase", "ratelimit", _T, scope="envelope", source=_MCP_TOOLS, reason="Rate-limit wording."
    ),
    Rule(
        "phrase",
        "too many requests",
        _T,
        scope="envelope",
        source=_MCP_TOOLS,
        reason="HTTP 429's reason phrase.",
    ),
    Rule(
        "phrase",
        "throttl",
        _T,
        scope="envelope",
        source=_MCP_TOOLS,
        reason="Throttled, throttling.",
    ),
    Rule(
        "phrase",
        "unknown tool",
        _M,
        scope="envelope",
        source=_MCP_TOOLS,
        reason="The MCP spec's example of a protocol error: the named tool does not exist.",
    ),
)
"""Every built-in identifier and phrase rule, grouped by rule group and provider."""


# --- general evidence (SPEC A.12) ------------------------------------------------------
# Words and identifier fragments whose meaning holds across providers. They are weaker than
# every structured signal: the engine consults them only when no identifier, user rule,
# quota fact, A.4 phrase or generic identifier spoke, and only to move a failure the way
# A.12 allows for its status. Each row cites one provider whose documentation gives that
# reaction for that wording; tests/corpus holds more.

_MAPS = "https://developers.google.com/maps/documentation/geocoding/requests-geocoding#StatusCodes"
_GROQ = "https://console.groq.com/docs/errors"
_COHERE = "https://docs.cohere.com/reference/errors"
_MISTRAL = "https://docs.mistral.ai/api/"
_TWILIO = "https://www.twilio.com/docs/api/errors"
_RECURLY = "https://recurly.com/developers/reference/recurly-errors"
_BEDROCK = "https://docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors.html"
_META = "https://developers.facebook.com/docs/graph-api/guides/error-handling"
_FIREBASE = "https://firebase.google.com/docs/reference/rest/auth"
_AZURE_STORAGE = (
    "https://learn.microsoft.com/en-us/rest/api/storageservices/common-rest-api-error-codes"
)
_OPENROUTER = "https://openrouter.ai/docs/api-reference/errors"
_ASSEMBLY = "https://www.assemblyai.com/docs/api-reference/overview"
_PLAYWRIGHT = "https://playwright.dev/docs/api/class-timeouterror"
_NODE = "https://nodejs.org/api/errors.html#common-system-errors"
_BINANCE = "https://developers.binance.com/docs/binance-spot-api-docs/rest-api/limits"
_DRIVE = "https://developers.google.com/workspace/drive/api/guides/handle-errors"


def _general(
    code: Code,
    source: str,
    phrases: Iterable[str] = (),
    fragments: Iterable[str] = (),
    *,
    quota: bool = False,
) -> tuple[Rule, ...]:
    return (
        *(Rule("phrase", p, code, quota, scope="general", source=source) for p in phrases),
        *(Rule("fragment", f, code, quota, scope="general", source=source) for f in fragments),
    )


ACCESS_PHRASES = (
    "access denied",
    "permission denied",
    "insufficient permission",
    "forbidden",
)
"""Auth phrases about access to a resource rather than credentials: in a tool's own error
they usually refuse a path or a URL the model chose, which another argument fixes
(SPEC 12.4)."""

CONTENT_POLICY = (
    "moderation",
    "flagged",
    "content policy",
    "content management policy",
    "content filter",
    "safety system",
)
"""Phrases of a content-policy block: the model must rephrase, even on a 403 (SPEC A.12)."""

GENERAL: tuple[Rule, ...] = (
    # Quota and billing: a human must pay, raise a cap, or wait for a day or a month.
    *_general(
        _Q,
        _OPENAI,
        (
            "exceeded your current quota",
            "billing account",
            "billing details",
            "inactive billing",
            "billing is disabled",
            "billing not enabled",
            "billing has not been enabled",
            "billing issue",
            "update your billing",
            "credits",
            "out of credit",
            "top up",
        ),
        ("billing", "credit"),
        quota=True,
    ),
    *_general(
        _Q,
        _ANTHROPIC,
        ("insufficient balance", "balance is negative", "balance is too low", "balance too low"),
        ("insufficientbalance", "insufficientcredit", "insufficientfunds"),
        quota=True,
    ),
    *_general(
        _Q,
        _HUBSPOT,
        ("per day", "daily quota", "daily limit", "day limit", "monthly quota", "monthly limit"),
        ("daily", "monthly", "perday", "permonth"),
        quota=True,
    ),
    *_general(
        _Q,
        _GROQ,
        ("usage cap", "usage limit", "spending limit", "trial key", "trial account", "free tier"),
        ("usagelimit", "spendinglimit", "paymentrequired"),
        quota=True,
    ),
    # A full storage allowance: the owner must free space or buy more (Drive's
    # storageQuotaExceeded; WebDAV servers answer 507 so).
    *_general(_Q, _DRIVE, ("storage quota",), ("storagequota",), quota=True),
    *_general(
        _Q,
        _RECURLY,
        (
            "card was declined",
            "card declined",
            "card_declined",
            "insufficient funds",
            "instrument declined",
            "do not honor",
            "payment method",
            "payment required",
            "payment issue",
            "upgrade your plan",
            "upgrade your account",
            "plan limit",
        ),
        ("carddeclined", "declined", "paymentfailed"),
        quota=True,
    ),
    # Credentials and permissions.
    *_general(
        _A,
        _GROQ,
        (
            "invalid api key",
            "invalid api token",
            "invalid auth token",
            "invalid bearer token",
            "incorrect api key",
            "invalid api-key",
            "api key is invalid",
            "api key not valid",
            "invalid key",
            "missing api key",
            "no api key",
            "api key required",
            "invalid token",
            "invalid access token",
            "invalid id token",
            "token expired",
            "token has expired",
            "expired token",
            "token is illegal",
            "bad credentials",
            "invalid credentials",
            "authentication failed",
            "authentication required",
            "unauthenticated",
            "not authenticated",
            "unauthorized",
            "not authorized",
            "authorization failure",
            "authorization failed",
            "login required",
            *ACCESS_PHRASES,
        ),
        (
            "unauthorized",
            "unauthenticated",
            "authentication",
            "authorizationfault",
            "authorizationfailure",
            "forbidden",
            "accessdenied",
            "permissiondenied",
            "notauthorized",
            "invalidtoken",
            "tokenexpired",
            "expiredtoken",
            "invalidapikey",
            "apikeyinvalid",
            "invalidcredentials",
            "requestdenied",
        ),
    ),
    *_general(
        _A,
        _FIREBASE,
        (
            "account suspended",
            "account is suspended",
            "account has been suspended",
            "account disabled",
            "account is disabled",
            "account has been disabled",
            "account inactive",
            "account is inactive",
            "deactivated",
            "not verified",
        ),
        ("suspended", "disabled", "deactivated", "inactive"),
    ),
    # Rate limits.
    *_general(
        _T,
        _META,
        (
            "rate limit",
            "rate-limit",
            "ratelimit",
            "too many requests",
            "throttl",
            "request limit reached",
            "going too fast",
            "too fast",
            "slow down",
        ),
        ("ratelimit", "throttl", "toomanyrequests", "slowdown"),
    ),
    # Request-weight limits, also in the 418 of the automatic IP ban that follows ignored
    # 429s (Binance sends it with Retry-After: back off and come back, as after a 429).
    *_general(_T, _BINANCE, ("request weight",)),
    # Timeouts.
    *_general(
        _TO,
        _PLAYWRIGHT,
        ("timed out", "timeout", "time out", "deadline exceeded", "took too long", "etimedout"),
        ("timeout", "timedout", "deadlineexceeded"),
    ),
    # Transient conditions: capacity, readiness, operations in flight, locks.
    *_general(
        _B,
        _COHERE,
        (
            "temporarily unavailable",
            "temporarily",
            "try again later",
            "retry later",
            "overloaded",
            "over capacity",
            "at capacity",
            "out of capacity",
            "insufficient capacity",
            "not ready",
            "is loading",
            "warming up",
            "in progress",
            "being deleted",
            "being created",
            "concurrent",
            "concurrency",
            "conflicting request",
            "locked",
            "lock",
            "busy",
            "maintenance",
            "unavailable",
            "no nodes available",
        ),
        (
            "unavailable",
            "overloaded",
            "busy",
            "inprogress",
            "beingdeleted",
            "concurrent",
            "locked",
            "notready",
            "maintenance",
            "tryagain",
            "retrywith",
            "retrylater",
        ),
    ),
    # Something named does not exist: look the real value up.
    *_general(
        _M,
        _AZURE_STORAGE,
        (
            "not found",
            "does not exist",
            "doesn't exist",
            "no such",
            "could not find",
            "cannot be found",
            "can't find",
            "enoent",
            "unknown method",
            "unknown model",
        ),
        ("notfound", "doesnotexist", "notexist", "nosuch"),
    ),
    # The request itself must change.
    *_general(
        _I,
        _OPENROUTER,
        (
            "invalid",
            "malformed",
            "must be",
            "is required",
            "missing required",
            "too large",
            "too long",
            "too big",
            "exceeds the maximum",
            "exceeds the limit",
            "not supported",
            "unsupported",
            "already exists",
            "duplicate",
            *CONTENT_POLICY,
            "syntax error",
            "parse error",
            "could not parse",
            "cannot parse",
            "out of range",
            "nonce too low",
            "underpriced",
        ),
        (
            "invalid",
            "validation",
            "malformed",
            "badrequest",
            "alreadyexists",
            "duplicate",
            "unsupported",
            "toolarge",
            "outofrange",
            "syntax",
            "parseerror",
        ),
    ),
)
"""General evidence (SPEC A.12): phrases looked for at a word start in ASCII-lowered
messages, and fragments looked for in normalised identifiers."""


class _Index(NamedTuple):
    """The built-in rules as the engine looks them up."""

    identifiers: dict[str, Rule]  # SPEC A.3, for error bodies and envelopes
    envelope_identifiers: dict[str, Rule]  # SPEC B.2, consulted after them in envelopes
    http_phrases: tuple[Rule, ...]  # SPEC A.4
    envelope_phrases: tuple[Rule, ...]  # SPEC B.2
    general_phrases: tuple[Rule, ...]  # SPEC A.12
    general_fragments: tuple[Rule, ...]  # SPEC A.12


def _index(rules: Iterable[Rule]) -> _Index:
    shared: dict[str, Rule] = {}
    envelope: dict[str, Rule] = {}
    http_phrases: list[Rule] = []
    envelope_phrases: list[Rule] = []
    general_phrases: list[Rule] = []
    general_fragments: list[Rule] = []
    for rule in rules:
        if rule.scope == "general":
            (general_phrases if rule.kind == "phrase" else general_fragments).append(rule)
        elif rule.kind == "identifier":
            _once(envelope if rule.scope == "envelope" else shared, str(rule.key), rule)
        elif rule.kind == "phrase":
            (envelope_phrases if rule.scope == "envelope" else http_phrases).append(rule)
    overlap = shared.keys() & envelope.keys()
    if overlap:
        raise ValueError(f"identifiers in both A.3 and B.2: {sorted(overlap)}")
    return _Index(
        shared,
        envelope,
        tuple(http_phrases),
        tuple(envelope_phrases),
        tuple(general_phrases),
        tuple(general_fragments),
    )


INDEX = _index((*BUILTIN, *GENERAL))


def code_for_identifier(identifier: object) -> Code | None:
    """The code the built-in table (SPEC A.3) gives an identifier, or None for an unknown one."""
    if not isinstance(identifier, str):
        return None
    rule = INDEX.identifiers.get(normalise(identifier))
    return rule.code if rule is not None else None


# --- protocol tables (SPEC Annex B) ----------------------------------------------------


class CodeRule(NamedTuple):
    """A protocol number's meaning: its code, where that is documented, and why."""

    code: Code
    source: str
    reason: str
    final: bool = False  # data and message never refine it


_JSONRPC = "https://www.jsonrpc.org/specification#error_object"
_MCP_RESOURCES = (
    "https://modelcontextprotocol.io/specification/2025-11-25/server/resources#error-handling"
)
_MCP_ELICITATION = (
    "https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation"
    "#url-elicitation-required-error"
)

JSONRPC_CODES: dict[int, CodeRule] = {
    -32700: CodeRule(_I, _JSONRPC, "Parse error: the JSON sent is invalid; it must change."),
    -32600: CodeRule(_I, _JSONRPC, "Invalid Request: not a valid request object."),
    -32601: CodeRule(_M, _JSONRPC, "Method not found: the named method does not exist.", True),
    -32602: CodeRule(_I, _JSONRPC, "Invalid params: the arguments must change."),
    -32603: CodeRule(
        _F, _JSONRPC, "Internal error: nothing says whether a retry or other arguments would help."
    ),
    -32002: CodeRule(_M, _MCP_RESOURCES, "MCP resource not found: the URI does not exist.", True),
    -32042: CodeRule(
        _A,
        _MCP_ELICITATION,
        "MCP URL elicitation required: a human must complete an out-of-band step "
        "(authorization, payment) before the identical request can succeed.",
        True,
    ),
}
"""JSON-RPC ``error.code`` → its meaning (SPEC B.3)."""

JSONRPC_SERVER_ERROR = CodeRule(
    _F, _JSONRPC, "Server error (-32099…-32000): implementation-defined meaning."
)
JSONRPC_OTHER = CodeRule(_F, _JSONRPC, "An application-defined code: no known meaning.")

TOOL_ERROR_DEFAULT = CodeRule(
    _I,
    _MCP_TOOLS,
    "Tool execution errors carry feedback for the model to self-correct and retry with "
    "adjusted arguments.",
)
API_ERROR_DEFAULT = CodeRule(
    _I,
    "https://docs.slack.dev/apis/web-api/#evaluating-responses",
    "A method's own error code: most name a problem with the arguments; those that need a "
    "human or a retry are in the identifier tables.",
)

GRPC_NAMES = (
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
)
"""gRPC status names by number (``grpc-status: 14`` is ``UNAVAILABLE``); each is an identifier
of the A.3 table except OK and UNKNOWN (no reaction follows from them)."""

REASON_PHRASES: dict[int, tuple[str, ...]] = {
    400: ("Bad Request",),
    401: ("Unauthorized",),
    402: ("Payment Required",),
    403: ("Forbidden",),
    404: ("Not Found",),
    405: ("Method Not Allowed",),
    406: ("Not Acceptable",),
    407: ("Proxy Authentication Required",),
    408: ("Request Timeout",),
    409: ("Conflict",),
    410: ("Gone",),
    411: ("Length Required",),
    412: ("Precondition Failed",),
    413: ("Content Too Large", "Payload Too Large", "Request Entity Too Large"),
    414: ("URI Too Long", "Request-URI Too Long", "Request URI Too Long"),
    415: ("Unsupported Media Type",),
    416: ("Range Not Satisfiable", "Requested Range Not Satisfiable"),
    417: ("Expectation Failed",),
    421: ("Misdirected Request",),
    422: ("Unprocessable Content", "Unprocessable Entity"),
    423: ("Locked",),
    424: ("Failed Dependency",),
    425: ("Too Early",),
    426: ("Upgrade Required",),
    428: ("Precondition Required",),
    429: ("Too Many Requests",),
    431: ("Request Header Fields Too Large",),
    451: ("Unavailable For Legal Reasons",),
    500: ("Internal Server Error",),
    501: ("Not Implemented",),
    502: ("Bad Gateway",),
    503: ("Service Unavailable",),
    504: ("Gateway Timeout",),
    505: ("HTTP Version Not Supported",),
    506: ("Variant Also Negotiates",),
    507: ("Insufficient Storage",),
    508: ("Loop Detected",),
    510: ("Not Extended",),
    511: ("Network Authentication Required",),
}
"""Registered 4xx and 5xx statuses → their reason phrases (RFC 9110 section 15 and the RFCs
that added the others, plus older wordings HTTP libraries still print), for statuses named in
a tool error's text (SPEC B.4)."""
