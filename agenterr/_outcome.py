"""Outcome: the classification of one tool-call attempt, its wire JSON, and the typed
errors it raises (published as :mod:`agenterr.errors`)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, NoReturn, TypeVar, overload

from ._hints import MAX_PROBLEMS, hint_for, schema_hint, where
from ._quote import SCAN_WINDOW, Cleaned, snippet
from ._reason import RULES, Reason, reason
from ._retry_after import RETRY_AFTER_CEILING
from ._status import as_status
from ._taxonomy import Class, Code

__all__ = [
    "AgentToolError",
    "AuthToolError",
    "Failure",
    "IndeterminateToolError",
    "Outcome",
    "Reason",
    "SelfCorrectableToolError",
    "Success",
    "TransientToolError",
    "error_for",
]

T_co = TypeVar("T_co", covariant=True)
V = TypeVar("V")

_WIRE_KEYS = ("ok", "code", "class", "retryable", "llm_hint", "retry_after_seconds", "status")


@dataclass(frozen=True, slots=True, init=False)
class Outcome(Generic[T_co]):
    """The classification of a single tool-call attempt.

    Branch on it: ``ok`` short-circuits success, ``retryable`` covers the transient class,
    and ``class_`` tells self-correctable failures from auth and unknown ones. ``class_``,
    ``retryable`` and ``ok`` are derived from ``code``, so they can never disagree with it.

    Every outcome is one of two kinds, :class:`Success` or :class:`Failure`; ``Outcome(...)``
    builds the right one from ``code``. The classifiers and the decorator are typed as
    returning ``Success[T] | Failure``, so a type checker narrows on the obvious branches:
    after ``if out.ok: return``, ``out.code``, ``out.class_`` are a :class:`Code` and a
    :class:`Class`, and :meth:`unwrap` on a success is typed ``T``. mypy narrows on
    ``if out.ok`` and ``if not out.ok``; pyright narrows a union on a literal member only
    through ``is``/``==`` (by design, microsoft/pyright#6113), so there write
    ``if out.ok is True``, ``if out.code is None`` or ``isinstance(out, Failure)``.

    Build failures with :meth:`failure` (or the classifiers) and successes with
    :meth:`success`. Every outcome, the classifiers' and the decorator's included, is built
    by the one constructor of its kind, ``Success(value, status)`` or ``Failure(code,
    llm_hint, retry_after, status, error, reason)``, which checks every field.

    Every instance holds these invariants, checked when it is built (``ValueError`` or
    ``TypeError`` otherwise, naming the field), so whatever consumes an Outcome (a retry
    library, a task queue, JSON) can trust it:

    - ``code`` is a :class:`Code` or ``None``;
    - ``retry_after`` is ``None`` or a finite number of seconds from 0 to the one-day
      ceiling: NaN and negative delays are rejected, a longer delay (infinity included) is
      clamped to the ceiling, and a delay on a code that is not transient is dropped;
    - ``status`` agrees with ``ok``: a success carries 0 or the 2xx status that produced it,
      a failure 0 or a non-2xx status from 100 to 599;
    - ``llm_hint`` is one clean, redacted line (no control character, ANSI escape,
      invisible or bidi character, no credential), except that a list item starts on a new
      line with ``"- "``, as in the ``SCHEMA_INVALID`` hint: a hint given to the constructor
      (or read by :meth:`from_dict`) passes the same cleaning and redaction gate as an API's
      quote, except one the package's hint builders wrote from text that already passed it
      (a ``Cleaned`` string, which the gate would leave unchanged); a success has no hint.
    """

    code: Code | None = None
    """The classification; ``None`` exactly when the attempt succeeded."""
    llm_hint: str = ""
    """Text to paste verbatim into the model's context; present on every failure."""
    retry_after: float | None = None
    """Server-advised delay in seconds before retrying, or ``None`` when none was given."""
    status: int = 0
    """The HTTP status of the response classified: a 2xx on success, a non-2xx on failure;
    0 when there was none (a transport or pre-flight failure, a tool's own return value).
    The wire form carries it for failures only (SPEC.md section 8)."""
    value: T_co | None = None
    """The tool's return value on success (never serialised)."""
    error: BaseException | None = field(default=None, compare=False, repr=False)
    """The exception that was classified, if any (never serialised, not pickled)."""
    reason: Reason | None = field(default=None, compare=False)
    """Why a failure got its code: the rule that decided and what it read; ``None`` on
    success and when nobody said (a failure built by hand without one). Not compared, and
    on the wire only when asked for (:meth:`to_dict` with ``explain=True``)."""

    def __new__(  # noqa: PLR0917 - the fields' order
        cls,
        code: Code | None = None,
        llm_hint: str = "",
        retry_after: float | None = None,
        status: int = 0,
        value: Any = None,
        error: BaseException | None = None,
        reason: Reason | None = None,
    ) -> Outcome[Any]:
        """``Outcome(...)`` builds the kind ``code`` says: a :class:`Failure` for a code, a
        :class:`Success` for ``None`` (which carries no failure field)."""
        if cls is not Outcome:
            raise TypeError(f"{cls.__name__}: an outcome type subclasses Success or Failure")
        if code is not None:
            return Failure(code, llm_hint, retry_after, status, error, reason, value=value)
        if llm_hint or retry_after is not None or error is not None or reason is not None:
            raise ValueError("llm_hint, retry_after, error, reason: a success carries none")
        return Success(value, status)

    @property
    def ok(self) -> bool:
        """True when there was nothing to classify."""
        return self.code is None

    @property
    def failed(self) -> bool:
        """True for a failure (the inverse of :attr:`ok`)."""
        return self.code is not None

    @property
    def class_(self) -> Class | None:
        """The reaction class of :attr:`code`; ``None`` on success."""
        return None if self.code is None else self.code.class_

    @property
    def retryable(self) -> bool:
        """True for transient failures only."""
        return self.code is not None and self.code.retryable

    @overload
    @staticmethod
    def success(*, status: int = 0) -> Success[None]: ...
    @overload
    @staticmethod
    def success(value: V, *, status: int = 0) -> Success[V]: ...
    @staticmethod
    def success(value: Any = None, *, status: int = 0) -> Success[Any]:
        """An ok outcome carrying the tool's return value (and the 2xx ``status``, if any)."""
        return Success(value, status)

    @staticmethod
    def failure(
        code: Code | str,
        llm_hint: str | None = None,
        *,
        status: int = 0,
        retry_after: float | None = None,
        error: BaseException | None = None,
        reason: Reason | None = None,
    ) -> Failure:
        """A failed outcome; ``llm_hint`` defaults to the code's standard hint.

        ``code`` is a :class:`Code` or its exact name: any other value raises ``ValueError``
        (a typo must not quietly become ``UNKNOWN``; reading the wire with
        :meth:`Code.parse` or :meth:`from_dict` stays lenient as SPEC.md says). Normalised as
        the classifiers do: ``retry_after`` is kept only for transient codes, finite and
        non-negative, clamped to the ceiling; ``status`` is kept only when it is a non-2xx
        status from 100 to 599. ``reason``, if given, is a :class:`Reason` naming one of
        SPEC.md's rules (section 8.4); its evidence passes the quoting gate.
        """
        if isinstance(code, Code):
            parsed = code
        elif type(code) is str and code in Code.__members__:
            parsed = Code(code)
        else:
            raise ValueError(f"code: {_echo(code)} is not one of {', '.join(Code)}")
        if retry_after is not None:
            if not parsed.retryable or not math.isfinite(retry_after) or retry_after < 0:
                retry_after = None
            else:
                retry_after = min(float(retry_after), RETRY_AFTER_CEILING)
        # As the classifiers record it: a failure's status is 0 or a non-2xx 100-599.
        number = as_status(status)
        valid = number is not None and 100 <= number <= 599 and not 200 <= number <= 299
        recorded = number if valid and number is not None else 0
        if llm_hint is None:
            if parsed is Code.SCHEMA_INVALID:
                llm_hint = schema_hint(())
            else:
                place = where(recorded, transport=recorded == 0)
                llm_hint = hint_for(parsed, place, "", retry_after)
        return Failure(parsed, llm_hint, retry_after, recorded, error, reason)

    def __str__(self) -> str:
        if self.code is None:
            return "ok"
        parts = [self.code.value, f"class={self.code.class_.value}"]
        if self.status:
            parts.append(f"status={self.status}")
        if self.retry_after is not None:
            parts.append(f"retry_after={self.retry_after:g}s")
        return " ".join(parts)

    def to_dict(self, *, explain: bool = False) -> dict[str, Any]:
        """The wire form of SPEC.md: empty fields left out, ``ok`` and ``retryable`` always.

        ``explain=True`` adds the failure's :attr:`reason` as the optional ``reason`` member
        (SPEC.md section 8.4), when it has one.
        """
        if self.code is None:
            return {"ok": True, "retryable": False}
        out: dict[str, Any] = {
            "ok": False,
            "code": self.code.value,
            "class": self.code.class_.value,
            "retryable": self.code.retryable,
        }
        if self.llm_hint:
            out["llm_hint"] = str(self.llm_hint)  # the wire holds plain strings
        if self.retry_after is not None:
            seconds = math.ceil(self.retry_after)  # round up: nobody retries early
            if seconds > 0:
                out["retry_after_seconds"] = seconds
        if self.status:
            out["status"] = self.status
        if explain and self.reason is not None:
            out["reason"] = self.reason.to_dict()
        return out

    def to_json(self, *, indent: int | None = None, explain: bool = False) -> str:
        """:meth:`to_dict` as JSON text: compact (as the reference writes it) unless
        ``indent`` is given; non-ASCII characters are kept. ``explain`` as for
        :meth:`to_dict`."""
        code, hint, status = self.code, self.llm_hint, self.status
        if indent is None and not explain and type(self).to_dict is Outcome.to_dict:
            # The compact form written directly: the text json.dumps gives for to_dict() (a
            # test compares them) at a third of its cost, which a JSONL stream pays per line.
            if code is None:
                return '{"ok":true,"retryable":false}'
            head = _WIRE_HEAD.get(code)
            if head is not None and isinstance(hint, str) and type(status) is int:
                parts = [head]
                if hint:
                    parts.append(',"llm_hint":')
                    parts.append(_quote(hint))
                if self.retry_after is not None:
                    seconds = math.ceil(self.retry_after)
                    if seconds > 0:
                        parts.append(f',"retry_after_seconds":{seconds}')
                if status:
                    parts.append(f',"status":{status}')
                parts.append("}")
                return "".join(parts)
        separators = (",", ":") if indent is None else None
        data = self.to_dict(explain=True) if explain else self.to_dict()  # a subclass's own
        return json.dumps(data, ensure_ascii=False, indent=indent, separators=separators)

    @staticmethod
    def from_dict(data: object) -> Success[None] | Failure:
        """Read the wire form back. Raises ``ValueError`` naming the first bad field.

        Unknown keys are ignored so newer writers stay readable; ``class`` and ``retryable``
        must agree with ``code`` when present. An optional ``reason`` member (SPEC.md section
        8.4) is read into :attr:`reason`.
        """
        if type(data) is not dict:
            raise ValueError(f"outcome: expected a JSON object, got {type(data).__name__}")
        ok = data.get("ok")
        if not isinstance(ok, bool):
            raise ValueError("ok: required and must be a boolean")

        # null stands for an absent optional field, as omitempty writers may emit it. Only
        # the known keys are looked up: reading a huge object costs what a small one does.
        def get(key: str) -> Any:
            return data.get(key)

        if ok:
            for key in ("code", "class", "llm_hint", "retry_after_seconds", "status"):
                value = get(key)
                if value is not None and not _is_empty(value):
                    raise ValueError(f"{key}: must be absent when ok is true")
            retryable = get("retryable")
            if retryable is not None and retryable is not False:
                raise ValueError("retryable: must be false when ok is true")
            return Success()
        raw_code = get("code")
        if type(raw_code) is not str or raw_code not in Code.__members__:
            raise ValueError(f"code: {_echo(raw_code)} is not one of {', '.join(Code)}")
        code = Code(raw_code)
        given_class = get("class")
        if given_class is not None and (
            type(given_class) is not str or given_class != code.class_.value
        ):
            raise ValueError(f"class: {_echo(given_class)} does not match code {code.value}")
        retryable = get("retryable")
        if retryable is not None and retryable is not code.retryable:
            raise ValueError(f"retryable: must be {str(code.retryable).lower()} for {code.value}")
        hint = get("llm_hint")
        hint = "" if hint is None else hint
        if type(hint) is not str:
            raise ValueError("llm_hint: must be a string")
        seconds = get("retry_after_seconds")
        if seconds is not None and (
            type(seconds) is not int or not 0 <= seconds <= int(RETRY_AFTER_CEILING)
        ):
            raise ValueError(
                f"retry_after_seconds: must be an integer from 0 to {int(RETRY_AFTER_CEILING)}"
            )
        if seconds is not None and not code.retryable:
            raise ValueError(f"retry_after_seconds: not allowed for {code.value}")
        status = get("status")
        status = 0 if status is None else status
        if type(status) is not int or not (
            status == 0 or 100 <= status <= 199 or 300 <= status <= 599
        ):
            raise ValueError("status: must be 0 or a non-2xx integer from 100 to 599")
        why = get("reason")
        return Failure(
            code,
            hint,
            None if seconds is None else float(seconds),
            status,
            reason=None if why is None else _wire_reason(why),
        )

    def raise_for_failure(self) -> Success[T_co]:
        """Return ``self`` when ok; otherwise raise the typed error for this outcome's class.

        The error is chained from :attr:`error` when the outcome came from an exception.
        """
        if not isinstance(self, Success):
            _raise(self)
        return self

    def unwrap(self) -> T_co:
        """The success value, or raise as :meth:`raise_for_failure` does."""
        return self.raise_for_failure().value


class Success(Outcome[T_co]):
    """An attempt that succeeded: ``ok`` is true, ``code`` is ``None``, :attr:`value` is the
    tool's return value and ``status`` 0 or the 2xx that produced it.

    ``Success(value, status)``; the failure fields may be named only with their empty
    values (as :func:`dataclasses.replace` names every field)."""

    __slots__ = ()
    # What no success can vary is the class's: building one writes its value and status.
    code: None = None
    llm_hint = ""
    retry_after = None
    error = None
    reason = None

    if TYPE_CHECKING:
        value: T_co

        @property
        def ok(self) -> Literal[True]: ...
        @property
        def failed(self) -> Literal[False]: ...
        @property
        def class_(self) -> None: ...
        @property
        def retryable(self) -> Literal[False]: ...

    @overload
    def __new__(cls, *, status: int = 0) -> Success[None]: ...
    @overload
    def __new__(cls, value: V, status: int = 0) -> Success[V]: ...
    def __new__(cls, value: Any = None, status: int = 0, **empty: object) -> Success[Any]:
        if empty:  # dataclasses.replace() names every field
            _no_failure_fields(empty)
        if status:
            status = _checked_status(status)
            if not 200 <= status <= 299:
                raise ValueError(f"status: a success carries 0 or a 2xx status, got {status}")
        self = object.__new__(cls)
        _write_value(self, value)
        _write_status(self, status)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Success, (self.value, self.status))


class Failure(Outcome[NoReturn]):
    """An attempt that failed: ``code`` is a :class:`Code` (so ``class_`` is a
    :class:`Class`), ``llm_hint`` the text for the model, ``value`` ``None``.

    ``Failure(code, llm_hint, retry_after, status, error, reason)``, every field checked as
    :class:`Outcome` says. :meth:`Outcome.failure` is the friendlier builder (a code's name,
    its standard hint, a status or delay normalised rather than rejected)."""

    __slots__ = ()
    value = None  # a failure has no value

    if TYPE_CHECKING:
        code: Code

        @property
        def ok(self) -> Literal[False]: ...
        @property
        def failed(self) -> Literal[True]: ...
        @property
        def class_(self) -> Class: ...

    def __new__(  # noqa: PLR0917 - the fields' order, as Outcome(...) takes them
        cls,
        code: Code,
        llm_hint: str = "",
        retry_after: float | None = None,
        status: int = 0,
        error: BaseException | None = None,
        reason: Reason | None = None,
        *,
        value: None = None,
    ) -> Failure:
        if code is None:
            raise ValueError("code: a Failure needs a Code (a success is Success(value))")
        if type(code) is not Code:
            raise TypeError(
                f"code: must be a Code, got {type(code).__name__}"
                " (Outcome.failure() parses a code name)"
            )
        if value is not None:
            raise ValueError("value: a failure carries none")
        if status:
            status = _checked_status(status)
            if not (100 <= status <= 199 or 300 <= status <= 599):
                raise ValueError(
                    f"status: a failure carries 0 or a non-2xx status from 100 to 599, got {status}"
                )
        if type(llm_hint) is not Cleaned:  # what the hint builders wrote passed the gate
            if not isinstance(llm_hint, str):
                raise TypeError(f"llm_hint: must be a str, got {type(llm_hint).__name__}")
            llm_hint = _clean_hint(llm_hint) if llm_hint else ""
        if retry_after is not None:
            retry_after = _checked_delay(retry_after, code)
        if reason is not None:
            reason = _checked_reason(reason, code)
        self = object.__new__(cls)
        _set(self, "code", code)
        _set(self, "llm_hint", llm_hint)
        _set(self, "retry_after", retry_after)
        _set(self, "status", status)
        _set(self, "error", error)
        _set(self, "reason", reason)
        return self

    def raise_for_failure(self) -> NoReturn:
        """Raise the typed error for this failure's class (chained from :attr:`error`)."""
        _raise(self)

    def unwrap(self) -> NoReturn:
        """Raise as :meth:`raise_for_failure` does: a failure has no value."""
        _raise(self)

    def __reduce__(self) -> tuple[Any, ...]:
        # The original exception is process-local (tracebacks, sockets): never pickled.
        fields = (self.code, self.llm_hint, self.retry_after, self.status)
        return (Failure, (*fields, None, self.reason))


_set = object.__setattr__
"""How a frozen dataclass writes its own fields while it is built."""

# A success is built on every call of a decorated tool in Outcome mode. Writing its two slots
# through their descriptors skips object.__setattr__'s check that no Python __setattr__ (the
# frozen one) is bypassed, which costs more than the writes: kept because the Outcome-mode
# guard rail (benchmarks/bench_decorator.py, ≤ 1.8× a bare wrapper) is missed without it.
_write_value = Outcome.__dict__["value"].__set__
_write_status = Outcome.__dict__["status"].__set__


_quote = json.encoder.encode_basestring
"""A JSON string literal, non-ASCII kept (as ``json.dumps(..., ensure_ascii=False)``)."""

_WIRE_HEAD = {
    code: json.dumps(
        {"ok": False, "code": code.value, "class": code.class_.value, "retryable": code.retryable},
        separators=(",", ":"),
    )[:-1]
    for code in Code
}
"""Each code's compact wire JSON up to its optional fields (without the closing brace)."""

_ECHO_CAP = 60
"""Characters of a bad string value that a ``from_dict`` error echoes (cleaned, redacted)."""
_HINT_PART_CAP = 8000
"""Characters kept of each line of a hint that had to be cleaned."""
_ITEM = "\n- "
"""How a hint's list item starts (the SCHEMA_INVALID hint): the one newline a hint keeps."""
HINT_ITEMS = MAX_PROBLEMS + 1
"""Most list items of a hint that had to be cleaned: the SCHEMA_INVALID hint's problems and
its "… and N more" line (SPEC 8.1); later items are dropped."""
HINT_CAP = SCAN_WINDOW
"""Most characters of a hint that had to be cleaned: an item that would take it past this is
dropped with every item after it (SPEC 8.1). Every hint a classifier builds is shorter."""


def _clean_hint(hint: str) -> Cleaned:
    """Each line through the quoting gate (strip, fold, redact); list items stay items.

    Bounded whatever the hint's size (a wire object of megabytes): at most HINT_ITEMS items
    are kept, and no item that would take the hint past HINT_CAP characters; each line is
    read up to the scan window, and the hint is read once, up to the last item kept.
    """
    first, found = _next_line(hint, 0)
    text = snippet(first, _HINT_PART_CAP)
    parts = [text]
    size = len(text)
    while found >= 0 and len(parts) <= HINT_ITEMS:
        line, found = _next_line(hint, found + len(_ITEM))
        item = snippet(line, _HINT_PART_CAP)
        if not item:
            continue
        size += len(_ITEM) + len(item)
        if size > HINT_CAP:
            break
        parts.append(item)
    return Cleaned(_ITEM.join(parts))  # so a replace() or a relay does not clean it again


def _next_line(hint: str, start: int) -> tuple[str, int]:
    """The line of ``hint`` from ``start`` up to the next item, at most a character past the
    scan window (snippet reads no more, and sees that the line was cut), and where that
    next item starts (-1: none)."""
    found = hint.find(_ITEM, start)
    end = len(hint) if found < 0 else found
    return hint[start : min(end, start + SCAN_WINDOW + 1)], found


def _no_failure_fields(given: dict[str, object]) -> None:
    """A success's failure fields may be named with their empty values only (``None``, or
    ``""`` for the hint)."""
    for name, value in given.items():
        if name not in {"code", "llm_hint", "retry_after", "error", "reason"}:
            raise TypeError(f"Success() got an unexpected keyword argument {name!r}")
        if value is not None and not (name == "llm_hint" and value == ""):
            if name == "reason":
                raise ValueError("reason: a success carries none")
            raise ValueError("code, llm_hint, retry_after, error: a success carries none")


def _checked_status(status: object) -> int:
    """A status given to a constructor: an int (an IntEnum such as http.HTTPStatus is stored
    as its number), never a bool."""
    if type(status) is int:
        return status
    if type(status) is bool or not isinstance(status, int):
        raise TypeError(f"status: must be an int, got {type(status).__name__}")
    return int(status)


def _checked_delay(delay: object, code: Code) -> float | None:
    if type(delay) is bool or not isinstance(delay, int | float):
        raise TypeError(f"retry_after: must be a number of seconds, got {type(delay).__name__}")
    try:
        seconds = float(delay)
    except OverflowError:  # an int beyond any float: as long (or as negative) as can be
        seconds = math.inf if delay > 0 else -math.inf
    if math.isnan(seconds):  # no delay can be read from it
        raise ValueError("retry_after: must be a number of seconds, got NaN")
    if seconds < 0:
        raise ValueError(f"retry_after: must not be negative, got {seconds:g}")
    if not code.retryable:
        return None  # as the classifiers record it: only a transient failure has a delay
    return seconds if seconds <= RETRY_AFTER_CEILING else RETRY_AFTER_CEILING


def _checked_reason(why: object, code: Code) -> Reason:
    """A reason given to the constructor: a known rule, its evidence through the gate, and
    no ``replaced`` equal to the code itself (nothing was replaced then)."""
    if not isinstance(why, Reason):
        raise TypeError(f"reason: must be a Reason or None, got {type(why).__name__}")
    if why.rule not in RULES:
        raise ValueError(f"reason: {_echo(why.rule)} is not a rule SPEC.md section 8.4 lists")
    if not isinstance(why.evidence, str):
        raise TypeError(f"reason: evidence must be a str, got {type(why.evidence).__name__}")
    if why.replaced is not None and type(why.replaced) is not Code:
        raise TypeError(f"reason: replaced must be a Code, got {type(why.replaced).__name__}")
    replaced = None if why.replaced is code else why.replaced
    if type(why.evidence) is Cleaned or not why.evidence:  # reason() built it: already clean
        return why if replaced is why.replaced else why._replace(replaced=replaced)
    return reason(why.rule, why.evidence, replaced)


def _wire_reason(data: object) -> Reason | None:
    """The ``reason`` member read from the wire (SPEC 8.4): strict in shape, and lenient in
    the one way newer writers need, so a rule this version does not know is dropped."""
    if type(data) is not dict:
        raise ValueError("reason: must be a JSON object")
    rule, evidence, replaced = data.get("rule"), data.get("evidence"), data.get("replaced")
    if type(rule) is not str:
        raise ValueError("reason.rule: required and must be a string")
    evidence = "" if evidence is None else evidence
    if type(evidence) is not str:
        raise ValueError("reason.evidence: must be a string")
    if replaced is not None and (type(replaced) is not str or replaced not in Code.__members__):
        raise ValueError(f"reason.replaced: {_echo(replaced)} is not one of {', '.join(Code)}")
    if rule not in RULES:
        return None
    return reason(rule, evidence[: 4 * SCAN_WINDOW], None if replaced is None else Code(replaced))


def _echo(value: object) -> str:
    """A bad value as an error message may show it: a string cleaned, redacted and capped
    (never the caller's ``repr``, which may raise or be huge); anything else by type."""
    if type(value) is str:
        return repr(snippet(value, _ECHO_CAP))
    return f"a value of type {type(value).__name__}"


def _is_empty(value: object) -> bool:
    return (type(value) is str and not value) or (type(value) is int and value == 0)


def _raise(outcome: Outcome[Any]) -> NoReturn:
    raise error_for(outcome) from outcome.error


Outcome.__module__ = Success.__module__ = Failure.__module__ = "agenterr"


# --- the typed errors ------------------------------------------------------------------


class AgentToolError(Exception):
    """A classified tool-call failure. ``str()`` is the outcome's log form and its hint."""

    outcome: Failure

    def __init__(self, outcome: Outcome[Any]) -> None:
        if not isinstance(outcome, Failure):
            raise ValueError("AgentToolError needs a failed Outcome")
        super().__init__(outcome)
        self.outcome = outcome

    @property
    def code(self) -> Code:
        """The failure code (never ``None``: an error is always a failure)."""
        return self.outcome.code

    @property
    def class_(self) -> Class:
        """The reaction class."""
        return self.code.class_

    @property
    def llm_hint(self) -> str:
        """The hint to paste into the model's context."""
        return self.outcome.llm_hint

    @property
    def retry_after(self) -> float | None:
        """Server-advised delay in seconds, or ``None``."""
        return self.outcome.retry_after

    @property
    def status(self) -> int:
        """The HTTP status, or 0."""
        return self.outcome.status

    @property
    def reason(self) -> Reason | None:
        """Why the failure got its code (:attr:`Outcome.reason`)."""
        return self.outcome.reason

    def __str__(self) -> str:
        return f"{self.outcome}: {self.outcome.llm_hint}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.outcome!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.outcome,))


class TransientToolError(AgentToolError):
    """Temporary failure: retry the identical call, honouring :attr:`retry_after`."""


class SelfCorrectableToolError(AgentToolError):
    """The arguments are wrong in a fixable way: give the model :attr:`llm_hint`."""


class AuthToolError(AgentToolError):
    """Credentials, permissions or billing: a human or the orchestrator must act."""


class IndeterminateToolError(AgentToolError):
    """The failure could not be classified: escalate rather than retry blindly."""


_BY_CLASS: dict[Class, type[AgentToolError]] = {
    Class.TRANSIENT: TransientToolError,
    Class.SELF_CORRECTABLE: SelfCorrectableToolError,
    Class.AUTH: AuthToolError,
    Class.INDETERMINATE: IndeterminateToolError,
}


def error_for(outcome: Outcome[Any]) -> AgentToolError:
    """The typed error for a failed outcome (``ValueError`` for an ok one)."""
    if outcome.code is None:
        raise ValueError("error_for needs a failed Outcome")
    return _BY_CLASS[outcome.code.class_](outcome)


for _error in (
    AgentToolError,
    TransientToolError,
    SelfCorrectableToolError,
    AuthToolError,
    IndeterminateToolError,
):
    _error.__module__ = "agenterr.errors"  # their public home, as repr and pickle show it
