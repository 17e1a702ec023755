"""The decorator's policy: what a tool's failure or returned value means, and reporting it.

Everything ``@classified_tool`` decides once the tool has returned or raised lives here:
the order of the rules for a raised exception, reading a returned Outcome, response or
envelope, the idempotency guard, the ``on_failure`` observer and the ``agenterr`` logger.
The wrappers in ``_decorator`` only call the tool and hand the result to a :class:`Policy`.
Nothing here imports wrapt.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, replace
from types import CodeType
from typing import Any, NoReturn, TypeAlias

from ._classify import from_response, schema_invalid
from ._envelope import envelope_failure, success_value
from ._exceptions import binding_problems, entered, passes_through, validation_problems
from ._hints import hint_for, schema_hint, where
from ._outcome import Failure, Outcome, Success
from ._quote import Cleaned, clean, snippet
from ._reason import Reason, reason
from ._rules import RuleSet, layers
from ._shared import BoundedCache, attr
from ._taxonomy import Code
from ._transport import (
    exception_text,
    from_error,
    is_transport,
    may_have_taken_effect,
    package_of,
)
from .errors import AgentToolError, error_for

__all__ = [
    "AWAITABLE",
    "OTHER",
    "OUTCOME",
    "PLAIN",
    "RESPONSE",
    "ErrorRule",
    "FailureObserver",
    "Policy",
    "bug",
    "logged",
    "ok_response",
    "raise_typed",
    "result_kind",
]

ErrorRule: TypeAlias = Code | Callable[[Any], Outcome[Any] | None]
"""How ``errors=`` maps an exception type: a code, or a function returning an Outcome or None."""
FailureObserver: TypeAlias = Callable[[str, Outcome[Any], BaseException | None], object]
"""``on_failure(tool_name, outcome, exception_or_None)``, called once per failure."""

logger = logging.getLogger("agenterr")
"""Every failure is logged here: WARNING for UNKNOWN (with the redacted traceback), INFO
otherwise."""
# A library must not print through logging's last-resort handler when the application has
# not configured logging; a handler of the application's sees every record as usual.
logger.addHandler(logging.NullHandler())


_LOGGED: ContextVar[tuple[int, object, int, float | None] | None] = ContextVar(
    "agenterr_logged", default=None
)
"""The last failure this context's tool logged, by identity and fields: no reference kept."""


def _key(outcome: Outcome[Any]) -> tuple[int, object, int, float | None]:
    return (id(outcome), outcome.code, outcome.status, outcome.retry_after)


def logged(outcome: Outcome[Any]) -> bool:
    """Whether ``outcome`` is the failure a ``@classified_tool`` just logged on the
    ``agenterr`` logger in this context, so that a retry helper's hook does not log it again."""
    return _LOGGED.get() == _key(outcome)


_LOG_TEXT_CAP = 500
"""Most characters of one argument, frame line or exception line in a log record."""
_LOG_CHAIN = 16
"""Most exceptions of one cause/context chain rendered in a logged traceback."""
_GROUP_WIDTH, _GROUP_DEPTH = 15, 10
"""traceback's defaults for the members of a group shown, and for groups nested (the
attributes that hold them are missing from typeshed's stubs)."""


def log_gated(
    level: int,
    message: str,
    *args: object,
    error: BaseException | None = None,
    extra: Mapping[str, object] | None = None,
) -> bool:
    """Log through the cleaning and redaction gate; never raises. True if it was handled.

    Every argument is quoted as an API body is (cleaned, redacted, capped). The traceback
    of ``error`` goes in as the record's ``exc_text``, which formatters print where a
    traceback goes, rendered by :func:`traceback_text`; never as ``exc_info``, whose
    exception messages a formatter would print as they are (a request URL's ``api_key=``).
    A Filter or Handler of the application that raises must not turn a classified failure
    into a different exception.
    """
    try:
        if not logger.isEnabledFor(level):
            return False
        quoted = tuple(snippet(str(arg), _LOG_TEXT_CAP) for arg in args)
        path, line, function, _ = logger.findCaller(False, 1)
        record = logger.makeRecord(
            logger.name, level, path, line, message, quoted, None, function, extra
        )
        if error is not None:
            record.exc_text = traceback_text(error)
        logger.handle(record)
    except Exception:
        return False
    return True


_CAUSE = "The above exception was the direct cause of the following exception:"
_CONTEXT = "During handling of the above exception, another exception occurred:"


def traceback_text(error: BaseException) -> str:
    """``error``'s traceback as Python prints it, each line through the redaction gate.

    Frame lines keep their indentation; each exception's own text (type, message, notes)
    is one cleaned line, so a message can neither carry a credential into the log nor
    forge log lines with newlines. "" if the traceback cannot be read.
    """
    try:
        report = traceback.TracebackException.from_exception(error, compact=True)
        return "\n".join(_rendered(report, "", 0))
    except Exception:
        return ""


def _rendered(report: traceback.TracebackException, indent: str, depth: int) -> Iterator[str]:
    """The lines of ``report``'s chain, ``depth`` exception groups deep. As Python prints a
    group, at most ``max_group_width`` members are shown, then how many more there were, and
    a group nested deeper than ``max_group_depth`` is one line: so a group of thousands of
    members costs what its first members cost (traceback's limits, 15 and 10 by default)."""
    limit: int = getattr(report, "max_group_depth", _GROUP_DEPTH)
    if report.exceptions and depth > limit:
        yield f"{indent}... (max_group_depth is {limit})"
        return
    chain: list[tuple[str | None, traceback.TracebackException]] = []
    link: traceback.TracebackException | None = report
    while link is not None and len(chain) < _LOG_CHAIN:
        if link.__cause__ is not None:
            chain.append((_CAUSE, link))
            link = link.__cause__
        elif link.__context__ is not None and not link.__suppress_context__:
            chain.append((_CONTEXT, link))
            link = link.__context__
        else:
            chain.append((None, link))
            link = None
    previous: str | None = None
    for message, exc in reversed(chain):
        if previous is not None:
            yield from (indent, indent + previous, indent)
        previous = message
        if exc.stack:
            yield indent + "Traceback (most recent call last):"
            for frame in exc.stack.format():
                for text in frame.splitlines():
                    body = text.lstrip(" ")
                    pad = " " * (len(text) - len(body))
                    yield indent + pad + snippet(body, _LOG_TEXT_CAP)
        yield indent + snippet("".join(exc.format_exception_only()), _LOG_TEXT_CAP)
        members = exc.exceptions or ()
        width: int = getattr(exc, "max_group_width", _GROUP_WIDTH)
        for number, member in enumerate(members[:width], 1):
            yield f"{indent}+---------------- {number} ----------------"
            yield from _rendered(member, indent + "    ", depth + 1)
        if len(members) > width:
            more = len(members) - width
            yield f"{indent}+---------------- ... ----------------"
            yield f"{indent}    and {more} more exception{'s' if more > 1 else ''}"


# --- building outcomes -----------------------------------------------------------------


_BUG_HINT = hint_for(Code.UNKNOWN, "")
_MAYBE_APPLIED_HINT = (
    "This call may already have taken effect{where}: the request may have reached the API "
    "before it failed, so repeating it could do the same thing twice. Do not retry it "
    "blindly: check whether it took effect (for example by looking the result up) or report "
    "it to the user or the orchestrator."
)


def bug(exc: BaseException, expose: bool) -> Outcome[Any]:
    hint = _BUG_HINT
    if expose:  # the gate's words after a template: clean as they are
        text = exception_text(exc)
        name = clean(type(exc).__name__, 100)
        said = f" The tool raised {name}: {text}" if text else f" The tool raised {name}."
        hint = Cleaned(hint + said)
    return Failure(Code.UNKNOWN, hint, None, 0, exc, reason("tool-raised", _name(exc)))


def _name(exc: BaseException) -> str:
    return type(exc).__name__


def validation_outcome(exc: BaseException) -> Outcome[Any] | None:
    """A pydantic or jsonschema ``ValidationError`` as ``SCHEMA_INVALID`` listing its
    problems, the error kept and named in the reason; ``None`` for any other exception."""
    invalid = validation_problems(exc)
    if invalid is None:
        return None
    why = reason("schema-invalid", _name(exc))
    return replace(schema_invalid(*invalid), error=exc, reason=why)


def _mapped(code: Code, exc: BaseException) -> Outcome[Any]:
    """``errors={ExcType: code}``: the code's hint, and the tool's own message for this case
    (quoted as an API's words are: one line, cleaned, capped, redacted)."""
    text = exception_text(exc)
    if code is Code.SCHEMA_INVALID:
        hint = schema_hint((text,) if text else ())
    else:
        # The tool's own exception carries no HTTP status, and "(no HTTP response)" would
        # only distract: the place is left out.
        hint = hint_for(code, "")
        if text:  # the gate's words after a template: clean as they are
            hint = Cleaned(f"{hint} The tool said: {text}")
    return Failure(code, hint, None, 0, exc, reason("errors-map", _name(exc)))


def _maybe_applied(
    outcome: Outcome[Any], exc: BaseException | None, place: str | None = None
) -> Outcome[Any]:
    """``UNKNOWN`` in place of a retryable ``outcome`` that may have taken effect
    (``place``: where it failed, for the hint; by default from its status)."""
    if place is None:
        place = where(outcome.status, transport=True)
    hint = Cleaned(_MAYBE_APPLIED_HINT.format(where=place))  # a template and a place
    error = outcome.error if outcome.error is not None else exc
    prior = outcome.reason
    why = reason("idempotent", prior.evidence if prior is not None else "", outcome.code)
    return Failure(Code.UNKNOWN, hint, None, outcome.status, error, why)


def escalated_from(outcome: Outcome[Any]) -> Code | None:
    """The code ``idempotent=False`` turned into ``outcome`` (an ``UNKNOWN``), else None."""
    why = outcome.reason
    return why.replaced if why is not None and why.rule == "idempotent" else None


# Set on the TypeError of an argument-binding failure, so that an outer tool can tell "my
# code called another decorated tool wrongly" from any other SCHEMA_INVALID it sees raised.
_BINDING_MARK = "_agenterr_binding"


_BINDING = Reason("binding")


def _mark_binding(exc: BaseException) -> None:
    with contextlib.suppress(Exception):
        setattr(exc, _BINDING_MARK, True)


def _is_binding(outcome: Outcome[Any]) -> bool:
    """Whether ``outcome`` is a SCHEMA_INVALID produced by a decorated tool's binding check."""
    return outcome.code is Code.SCHEMA_INVALID and attr(outcome.error, _BINDING_MARK) is True


# --- result kinds ----------------------------------------------------------------------

# Response classes recognised when returned, by (top-level package, class name) anywhere in
# the MRO; a non-2xx one is a failure, classified without calling raise_for_status().
_RESPONSE_CLASSES = frozenset(
    {
        ("httpx", "Response"),
        ("httpx2", "Response"),
        ("requests", "Response"),
        ("aiohttp", "ClientResponse"),
        ("http", "HTTPResponse"),
    }
)
PLAIN: set[type] = set()
"""Result types that are neither an Outcome nor a response: returned as they are."""
_PLAIN_LIMIT = 1024
_KINDS: BoundedCache[type, int] = BoundedCache(_PLAIN_LIMIT)
"""Every result type's kind, once computed (bounded like PLAIN)."""
OUTCOME, RESPONSE, OTHER, AWAITABLE = 1, 2, 3, 4


def result_kind(tp: type) -> int:
    kind = _KINDS.get(tp)
    if kind is not None:
        return kind
    if issubclass(tp, Outcome):
        kind = OUTCOME
    elif any((package_of(cls), cls.__name__) in _RESPONSE_CLASSES for cls in tp.__mro__):
        kind = RESPONSE
    elif hasattr(tp, "__await__"):
        # A coroutine, task or future a sync tool returned: never plain, so that the sync
        # wrapper sees it and classifies what awaiting it gives (an OTHER value elsewhere).
        kind = AWAITABLE
    else:
        kind = OTHER
        if len(PLAIN) < _PLAIN_LIMIT:
            PLAIN.add(tp)
    return _KINDS.remember(tp, kind)


def ok_response(response: object) -> bool:
    """A returned response whose status is 2xx: a success, without reading anything else."""
    status = attr(response, "status_code")
    if status is None:
        status = attr(response, "status")  # aiohttp, http.client
    return type(status) is int and 200 <= status <= 299


# --- the policy ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Policy:
    name: str
    errors: Mapping[type[Exception], ErrorRule] | None
    expose_errors: bool
    idempotent: bool
    on_failure: FailureObserver | None
    code: CodeType | None
    """The tool body's code object, to tell a TypeError raised inside it from a bad call."""
    envelopes: bool = False
    """Whether returned values are read for error envelopes (:func:`from_envelope`)."""
    rules: RuleSet | None = None
    """The decorator's user rules (SPEC 11.11), nearer than the process-wide ones."""

    def notify(self, outcome: Outcome[Any], exc: BaseException | None) -> None:
        """Tell ``on_failure`` and the log about a failure: WARNING with the traceback for
        ``UNKNOWN`` (a bug), INFO otherwise, and INFO naming the code it was for an
        ``UNKNOWN`` that ``idempotent=False`` made of a retryable failure (not a bug)."""
        if self.on_failure is not None:
            try:
                self.on_failure(self.name, outcome, exc)
            except Exception as failure:
                log_gated(
                    logging.WARNING,
                    "on_failure observer of tool %s raised",
                    self.name,
                    error=failure,
                )
        extra = {
            "agenterr_tool": self.name,
            "agenterr_outcome": outcome,
            "agenterr_reason": outcome.reason,
        }
        was = escalated_from(outcome) if outcome.code is Code.UNKNOWN else None
        if was is not None:
            emitted = log_gated(
                logging.INFO,
                "tool %s failed: %s (was %s; escalated because the tool is not idempotent "
                "and the call may have taken effect)",
                self.name,
                outcome,
                was.value,
                extra={**extra, "agenterr_escalated_from": was},
            )
        else:
            level = logging.WARNING if outcome.code is Code.UNKNOWN else logging.INFO
            emitted = log_gated(
                level,
                "tool %s failed: %s",
                self.name,
                outcome,
                error=exc if level == logging.WARNING else None,
                extra=extra,
            )
        # A retry helper's hook (tenacity's before_sleep_log_outcome) reads this so that a
        # failure is logged once: here, and the hook logs only the retry it decided.
        _LOGGED.set(_key(outcome) if emitted else None)

    def mapped(self, exc: Exception) -> Outcome[Any] | None:
        """The ``errors=`` rule of the most specific class in ``exc``'s MRO, if any.

        Only that one rule runs: if it returns None (or something that is not an Outcome,
        which is logged), the default rules decide, not a rule for a less specific class.
        """
        assert self.errors is not None
        for cls in type(exc).__mro__:
            rule = self.errors.get(cls)
            if rule is None:
                continue
            if isinstance(rule, Code):
                return _mapped(rule, exc)
            try:
                result = rule(exc)
            except Exception as failure:
                log_gated(
                    logging.WARNING,
                    "errors= rule for %s of tool %s raised; using the default rules",
                    cls.__name__,
                    self.name,
                    error=failure,
                )
                return None
            if result is None:
                return None
            if not isinstance(result, Outcome):
                log_gated(
                    logging.WARNING,
                    "errors= rule for %s of tool %s returned %s, not an Outcome or None; "
                    "using the default rules",
                    cls.__name__,
                    self.name,
                    type(result).__name__,
                )
                return None
            if result.failed and (result.error is None or result.reason is None):
                result = replace(
                    result,
                    error=exc if result.error is None else result.error,
                    reason=result.reason or reason("errors-map", _name(exc)),
                )
            return result
        return None

    def classify(
        self,
        exc: Exception,
        call: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        at_call: bool,
    ) -> Outcome[Any]:
        """The outcome of an exception raised by the tool (``at_call``: by the call itself).

        Order: a raised AgentToolError, the binding diagnosis, ``errors=``, validation
        errors, transport failures, and otherwise a bug.
        """
        if isinstance(exc, AgentToolError):
            outcome = exc.outcome
            if _is_binding(outcome) and entered(exc.__traceback__, self.code):
                # This tool's own code called another decorated tool with arguments that do
                # not bind: a bug here, not something the model can fix in its call to us.
                return bug(exc, self.expose_errors)
            return outcome
        if at_call and isinstance(exc, TypeError) and not entered(exc.__traceback__, self.code):
            # Before errors=: an argument error is never one of the user's exception types,
            # and a catch-all rule must not make a hallucinated argument retryable.
            problems = _binding(call, args, kwargs)
            if problems:
                _mark_binding(exc)
                return replace(schema_invalid(*problems), error=exc, reason=_BINDING)
        if self.errors:
            mapped = self.mapped(exc)
            if mapped is not None:
                return mapped
        invalid = validation_outcome(exc)
        if invalid is not None:
            return invalid
        if is_transport(exc):
            transported = from_error(exc, rules=self.rules)
            if transported.failed:
                return self.guard(transported, exc)
        return bug(exc, self.expose_errors)

    def guard(self, outcome: Outcome[Any], exc: BaseException | None) -> Outcome[Any]:
        """For a non-idempotent tool, a retryable failure that may have reached the server
        becomes UNKNOWN (:func:`escalated_from` tells which code it was)."""
        if self.idempotent or not outcome.retryable:
            return outcome
        if may_have_taken_effect(outcome.status, exc):
            return _maybe_applied(outcome, exc)
        return outcome

    def on_exception(
        self,
        exc: Exception,
        call: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        at_call: bool,
    ) -> Outcome[Any]:
        """The outcome of a failure; a framework's own control flow is re-raised unchanged."""
        if passes_through(exc):
            raise exc
        outcome = self.classify(exc, call, args, kwargs, at_call)
        if outcome.failed:
            self.notify(outcome, exc)
        return outcome

    def on_result(self, value: Any) -> Outcome[Any]:
        """The outcome of a value the tool returned (or yielded) that is not plain."""
        kind = result_kind(type(value))
        if kind == OUTCOME:
            outcome: Outcome[Any] = value
            if outcome.failed:
                self.notify(outcome, outcome.error)
            return outcome
        if kind == RESPONSE and not ok_response(value):
            outcome = from_response(value, rules=self.rules)
            if outcome.ok:
                return Success(value)
            outcome = self.guard(outcome, None)
            self.notify(outcome, None)
            return outcome
        if self.envelopes:
            return self.envelope(value)
        return Success(value)

    def envelope(self, value: Any) -> Outcome[Any]:
        """``envelopes=True``: the failure an envelope in ``value`` reports, or its success."""
        found = envelope_failure(value, scopes=layers(None, self.rules))
        if found is None:
            return Success(success_value(value))
        outcome: Outcome[Any] = found.outcome
        if (
            not self.idempotent
            and outcome.retryable
            and outcome.code is not Code.RATE_LIMITED
            and (outcome.status == 0 or may_have_taken_effect(outcome.status, None))
        ):
            # The server answered, so it may have acted before it failed; a refusal for
            # rate (Slack rate_limited, THROTTLED, RESOURCE_EXHAUSTED) comes before acting.
            outcome = _maybe_applied(outcome, None, found.where)
        self.notify(outcome, None)
        return outcome

    def result_value(self, value: Any) -> Any:
        """Raises mode: what the call returns for a value that is not plain, or its error."""
        kind = result_kind(type(value))
        if kind == OUTCOME or (kind == RESPONSE and not ok_response(value)):
            return _value(self.on_result(value))
        if not self.envelopes:
            return value
        outcome = self.envelope(value)
        if outcome.ok:
            return outcome.value
        raise error_for(outcome)


def _binding(call: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[str]:
    try:
        signature = inspect.signature(call)
    except (TypeError, ValueError):
        return []
    return binding_problems(signature, args, kwargs)


def _value(outcome: Outcome[Any]) -> Any:
    """Raises mode: the value of an ok outcome, or its typed error."""
    if outcome.ok:
        return outcome.value
    raise error_for(outcome) from outcome.error


def raise_typed(outcome: Outcome[Any], exc: Exception) -> NoReturn:
    """Raises mode: a raised AgentToolError whose outcome stands is re-raised unchanged;
    anything else raises the outcome's typed error ``from`` the exception."""
    if isinstance(exc, AgentToolError) and outcome is exc.outcome:
        raise exc
    raise error_for(outcome) from exc
