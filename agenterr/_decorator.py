"""``@classified_tool``: every failure of a tool function becomes an Outcome or a typed error.

The wrapper is a ``wrapt.FunctionWrapper``, so the decorated tool keeps the wrapped
function's signature, name, docstring, annotations, coroutine-ness and method binding, and
frameworks that build a JSON schema from it see no difference. The code path (sync, async,
generator, async generator; Outcome or raising) is chosen once, at decoration time.

The success path is one ``try``, one set lookup on the result's type and, in Outcome mode,
building the Outcome. A returned Outcome or response object costs one more dict lookup (its
type's kind, cached) and, for a response, reading its status: only a non-2xx one goes through
:func:`~agenterr.from_response`. Everything else, including the diagnosis of arguments that
do not bind, runs only after the tool failed. With ``envelopes=True`` every result is also
read by :func:`~agenterr.from_envelope`, whose cost is bounded by its parse limit.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import pickle
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Callable,
    Coroutine,
    Generator,
    Iterator,
    Mapping,
)
from dataclasses import dataclass, fields, replace
from types import CodeType
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    NoReturn,
    ParamSpec,
    Protocol,
    TypeAlias,
    TypeVar,
    overload,
)

import wrapt

from ._classify import _attr, _exception_text, from_error, from_response, schema_invalid
from ._envelope import envelope_failure
from ._exceptions import (
    binding_problems,
    entered,
    is_transport,
    may_have_taken_effect,
    package_of,
    passes_through,
    validation_problems,
)
from ._hints import hint_for, where
from ._outcome import Outcome
from ._quote import clean
from ._taxonomy import Code
from .errors import AgentToolError, error_for

__all__ = ["ErrorRule", "FailureObserver", "classified_tool"]

P = ParamSpec("P")
T = TypeVar("T")
S = TypeVar("S")
R = TypeVar("R")
F = TypeVar("F", bound="Callable[..., Any] | staticmethod[Any, Any] | classmethod[Any, Any, Any]")

ErrorRule: TypeAlias = Code | Callable[[Any], Outcome[Any] | None]
"""How ``errors=`` maps an exception type: a code, or a function returning an Outcome or None."""
FailureObserver: TypeAlias = Callable[[str, Outcome[Any], BaseException | None], object]
"""``on_failure(tool_name, outcome, exception_or_None)``, called once per failure."""

logger = logging.getLogger("agenterr")
"""Every failure is logged here: WARNING for UNKNOWN (with the traceback), INFO otherwise."""
# A library must not print through logging's last-resort handler when the application has
# not configured logging; a handler of the application's sees every record as usual.
logger.addHandler(logging.NullHandler())


def _log(level: int, message: str, *args: object, **kwargs: Any) -> None:
    """``logger.log`` that never raises: a Filter or Handler of the application that raises
    must not turn a classified failure into a different exception."""
    try:
        if logger.isEnabledFor(level):
            logger.log(level, message, *args, **kwargs)
    except Exception:
        pass


_Wrapper = Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], Any]


# --- building outcomes -----------------------------------------------------------------


def _fast_success() -> Callable[[Any], Outcome[Any]]:
    """``Outcome.success`` without the frozen dataclass ``__init__``.

    The frozen ``__init__`` goes through ``object.__setattr__`` per field and is most of
    the Outcome mode's overhead; writing the slots directly costs well under half. If the
    core's fields ever change shape this falls back to the public constructor, so it can
    be slower but never wrong.
    """
    names = tuple(f.name for f in fields(Outcome))
    if names != ("code", "llm_hint", "retry_after", "status", "value", "error"):
        return Outcome.success
    set_code, set_hint, set_after, set_status, set_value, set_error = (
        Outcome.__dict__[name].__set__ for name in names
    )
    new = object.__new__

    def success(value: Any) -> Outcome[Any]:
        outcome: Outcome[Any] = new(Outcome)
        set_code(outcome, None)
        set_hint(outcome, "")
        set_after(outcome, None)
        set_status(outcome, 0)
        set_value(outcome, value)
        set_error(outcome, None)
        return outcome

    probe = object()
    built = success(probe)
    if built != Outcome.success(probe) or built.value is not probe or built.error is not None:
        return Outcome.success
    return success


_success = _fast_success()

_BUG_HINT = hint_for(Code.UNKNOWN, "")
_MAYBE_APPLIED_HINT = (
    "This call may already have taken effect{where}: the request may have reached the API "
    "before it failed, so repeating it could do the same thing twice. Do not retry it "
    "blindly: check whether it took effect (for example by looking the result up) or report "
    "it to the user or the orchestrator."
)


def _bug(exc: BaseException, expose: bool) -> Outcome[Any]:
    hint = _BUG_HINT
    if expose:
        text = _exception_text(exc)
        name = clean(type(exc).__name__, 100)
        hint += f" The tool raised {name}: {text}" if text else f" The tool raised {name}."
    return Outcome(Code.UNKNOWN, hint, None, 0, None, exc)


def _maybe_applied(outcome: Outcome[Any], exc: BaseException | None) -> Outcome[Any]:
    hint = _MAYBE_APPLIED_HINT.format(where=where(outcome.status, transport=True))
    error = outcome.error if outcome.error is not None else exc
    return Outcome(Code.UNKNOWN, hint, None, outcome.status, None, error)


# Set on the TypeError of an argument-binding failure, so that an outer tool can tell "my
# code called another decorated tool wrongly" from any other SCHEMA_INVALID it sees raised.
_BINDING_MARK = "_agenterr_binding"


def _mark_binding(exc: BaseException) -> None:
    with contextlib.suppress(Exception):
        setattr(exc, _BINDING_MARK, True)


def _is_binding(outcome: Outcome[Any]) -> bool:
    """Whether ``outcome`` is a SCHEMA_INVALID produced by a decorated tool's binding check."""
    return outcome.code is Code.SCHEMA_INVALID and _attr(outcome.error, _BINDING_MARK) is True


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
_PLAIN: set[type] = set()
"""Result types that are neither an Outcome nor a response: returned as they are."""
_KINDS: dict[type, int] = {}
"""Every result type's kind, once computed (bounded like _PLAIN)."""
_PLAIN_LIMIT = 1024
_OUTCOME, _RESPONSE, _OTHER = 1, 2, 3


def _result_kind(tp: type) -> int:
    kind = _KINDS.get(tp)
    if kind is not None:
        return kind
    if issubclass(tp, Outcome):
        kind = _OUTCOME
    elif any((package_of(cls), cls.__name__) in _RESPONSE_CLASSES for cls in tp.__mro__):
        kind = _RESPONSE
    else:
        kind = _OTHER
        if len(_PLAIN) < _PLAIN_LIMIT:
            _PLAIN.add(tp)
    if len(_KINDS) < _PLAIN_LIMIT:
        _KINDS[tp] = kind
    return kind


def _ok_response(response: object) -> bool:
    """A returned response whose status is 2xx: a success, without reading anything else."""
    status = _attr(response, "status_code")
    if status is None:
        status = _attr(response, "status")  # aiohttp, http.client
    return type(status) is int and 200 <= status <= 299


# --- the policy ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Policy:
    name: str
    errors: Mapping[type[Exception], ErrorRule] | None
    expose_errors: bool
    idempotent: bool
    on_failure: FailureObserver | None
    code: CodeType | None
    """The tool body's code object, to tell a TypeError raised inside it from a bad call."""
    envelopes: bool = False
    """Whether returned values are read for error envelopes (:func:`from_envelope`)."""

    def notify(self, outcome: Outcome[Any], exc: BaseException | None) -> None:
        if self.on_failure is not None:
            try:
                self.on_failure(self.name, outcome, exc)
            except Exception:
                _log(
                    logging.WARNING,
                    "on_failure observer of tool %s raised",
                    self.name,
                    exc_info=True,
                )
        level = logging.WARNING if outcome.code is Code.UNKNOWN else logging.INFO
        _log(
            level,
            "tool %s failed: %s",
            self.name,
            outcome,
            exc_info=exc if level == logging.WARNING and exc is not None else None,
            extra={"agenterr_tool": self.name, "agenterr_outcome": outcome},
        )

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
                return Outcome.failure(rule, error=exc)
            try:
                result = rule(exc)
            except Exception:
                _log(
                    logging.WARNING,
                    "errors= rule for %s of tool %s raised; using the default rules",
                    cls.__name__,
                    self.name,
                    exc_info=True,
                )
                return None
            if result is None:
                return None
            if not isinstance(result, Outcome):
                _log(
                    logging.WARNING,
                    "errors= rule for %s of tool %s returned %s, not an Outcome or None; "
                    "using the default rules",
                    cls.__name__,
                    self.name,
                    type(result).__name__,
                )
                return None
            if result.failed and result.error is None:
                result = replace(result, error=exc)
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
                return _bug(exc, self.expose_errors)
            return outcome
        if at_call and isinstance(exc, TypeError) and not entered(exc.__traceback__, self.code):
            # Before errors=: an argument error is never one of the user's exception types,
            # and a catch-all rule must not make a hallucinated argument retryable.
            problems = _binding(call, args, kwargs)
            if problems:
                _mark_binding(exc)
                return replace(schema_invalid(*problems), error=exc)
        if self.errors:
            mapped = self.mapped(exc)
            if mapped is not None:
                return mapped
        invalid = validation_problems(exc)
        if invalid is not None:
            return replace(schema_invalid(*invalid), error=exc)
        if is_transport(exc):
            outcome = from_error(exc)
            if outcome.failed:
                return self.guard(outcome, exc)
        return _bug(exc, self.expose_errors)

    def guard(self, outcome: Outcome[Any], exc: BaseException | None) -> Outcome[Any]:
        """For a non-idempotent tool, a retryable failure that may have reached the server
        becomes UNKNOWN."""
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
        kind = _result_kind(type(value))
        if kind == _OUTCOME:
            outcome: Outcome[Any] = value
            if outcome.failed:
                self.notify(outcome, outcome.error)
            return outcome
        if kind == _RESPONSE and not _ok_response(value):
            outcome = from_response(value)
            if outcome.ok:
                return _success(value)
            outcome = self.guard(outcome, None)
            self.notify(outcome, None)
            return outcome
        if self.envelopes:
            return self.envelope(value)
        return _success(value)

    def envelope(self, value: Any) -> Outcome[Any]:
        """``envelopes=True``: the failure an envelope in ``value`` reports, or its success."""
        found = envelope_failure(value)
        if found is None:
            return _success(value)
        outcome = found.outcome
        if (
            not self.idempotent
            and outcome.retryable
            and outcome.code is not Code.RATE_LIMITED
            and (outcome.status == 0 or may_have_taken_effect(outcome.status, None))
        ):
            # The server answered, so it may have acted before it failed; a refusal for
            # rate (Slack rate_limited, THROTTLED, RESOURCE_EXHAUSTED) comes before acting.
            hint = _MAYBE_APPLIED_HINT.format(where=found.where)
            outcome = Outcome(Code.UNKNOWN, hint, None, outcome.status, None, None)
        self.notify(outcome, None)
        return outcome

    def result_value(self, value: Any) -> Any:
        """Raises mode: what the call returns for a value that is not plain, or its error."""
        kind = _result_kind(type(value))
        if kind == _OUTCOME or (kind == _RESPONSE and not _ok_response(value)):
            return _value(self.on_result(value))
        if not self.envelopes:
            return value
        outcome = self.envelope(value)
        if outcome.ok:
            return value
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


def _raise(outcome: Outcome[Any], exc: Exception) -> NoReturn:
    """Raises mode: a raised AgentToolError whose outcome stands is re-raised unchanged;
    anything else raises the outcome's typed error ``from`` the exception."""
    if isinstance(exc, AgentToolError) and outcome is exc.outcome:
        raise exc
    raise error_for(outcome) from exc


# --- the wrappers, one per (kind, mode) ------------------------------------------------


def _plain_types(policy: _Policy) -> set[type] | frozenset[type]:
    """Result types returned without a look: none when envelopes are read."""
    return frozenset() if policy.envelopes else _PLAIN


def _sync(policy: _Policy, raises: bool) -> _Wrapper:
    plain, success = _plain_types(policy), _success

    if raises:

        def call_raising(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
            try:
                result = wrapped(*args, **kwargs)
            except Exception as exc:
                outcome = policy.on_exception(exc, wrapped, args, kwargs, True)
                if outcome.ok:
                    return outcome.value
                _raise(outcome, exc)
            if type(result) in plain:
                return result
            return policy.result_value(result)

        return call_raising

    def call(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
        try:
            result = wrapped(*args, **kwargs)
        except Exception as exc:
            return policy.on_exception(exc, wrapped, args, kwargs, True)
        if type(result) in plain:
            return success(result)
        return policy.on_result(result)

    return call


def _async(policy: _Policy, raises: bool) -> _Wrapper:
    plain, success = _plain_types(policy), _success

    if raises:

        async def call_raising(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
            try:
                result = await wrapped(*args, **kwargs)
            except Exception as exc:
                outcome = policy.on_exception(exc, wrapped, args, kwargs, True)
                if outcome.ok:
                    return outcome.value
                _raise(outcome, exc)
            if type(result) in plain:
                return result
            return policy.result_value(result)

        return call_raising

    async def call(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
        try:
            result = await wrapped(*args, **kwargs)
        except Exception as exc:
            return policy.on_exception(exc, wrapped, args, kwargs, True)
        if type(result) in plain:
            return success(result)
        return policy.on_result(result)

    return call


# Generators. The call itself (where arguments bind) happens eagerly, as for a plain
# generator function; the body's failures surface during iteration.
#   Outcome mode: every item is an Outcome (Outcome.success(item), or the item's own
#   classification if it is an Outcome or a response). An exception ends the iteration
#   with one last, failed Outcome; a failure at the call gives a one-item iterator.
#   Raises mode: items pass through; an exception (or a failed item) raises the typed
#   error and ends the iteration; a failure at the call raises at the call.
# Both modes forward send() and throw() to the tool, as ``yield from`` does. An exception
# the consumer throws in that the tool does not handle comes back out unchanged, as from a
# plain generator: it is the consumer's, not a failure of the tool.
# Closing the wrapper closes the tool. If the tool's cleanup then raises an Exception, it is
# reported to the observer and the log, and: swallowed in Outcome mode (which never raises),
# raised as the typed error in raises mode; while another exception is already on its way
# out (a failed item's typed error, the consumer's exception), that one wins in both modes.


def _item(policy: _Policy, item: Any, raises: bool) -> Any:
    if not policy.envelopes and type(item) in _PLAIN:
        return item if raises else _success(item)
    if raises:
        return policy.result_value(item)
    return policy.on_result(item)


def _cleanup_failed(policy: _Policy, exc: Exception, raises: bool) -> None:
    """The tool's cleanup raised ``exc`` when the consumer closed the wrapper."""
    outcome = policy.on_exception(exc, None, (), {}, False)
    if raises and outcome.failed:
        _raise(outcome, exc)


def _generator_call(
    policy: _Policy,
    raises: bool,
    iterate: Callable[[Any], Any],
    failed_at_call: Callable[[Outcome[Any]], Any],
) -> _Wrapper:
    """The call of a generator function (sync or async): where its arguments bind."""

    def call(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
        try:
            generator = wrapped(*args, **kwargs)
        except Exception as exc:
            outcome = policy.on_exception(exc, wrapped, args, kwargs, True)
            if not raises:
                return failed_at_call(outcome)
            _raise(outcome, exc)
        return iterate(generator)

    return call


def _generator(policy: _Policy, raises: bool) -> _Wrapper:
    def iterate(gen: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
        sent: Any = None
        thrown: BaseException | None = None
        try:
            while True:
                try:
                    item = gen.send(sent) if thrown is None else gen.throw(thrown)
                except StopIteration as stop:
                    return stop.value
                except Exception as exc:
                    if exc is thrown:
                        raise  # the consumer's own exception, not the tool's failure
                    outcome = policy.on_exception(exc, None, (), {}, False)
                    if raises:
                        if outcome.ok:
                            yield outcome.value
                            return None
                        _raise(outcome, exc)
                    yield outcome
                    return None
                # Outside the try below: a failed item's typed error must reach the
                # consumer, not be thrown into the tool.
                out = _item(policy, item, raises)
                sent, thrown = None, None
                try:
                    sent = yield out
                except GeneratorExit:
                    raise
                except BaseException as exc:  # forwarded into the tool, as yield from does
                    thrown = exc
        except GeneratorExit:
            try:
                gen.close()
            except Exception as exc:
                _cleanup_failed(policy, exc, raises)
            raise
        except BaseException:
            try:
                gen.close()
            except Exception as exc:
                if not passes_through(exc):
                    policy.on_exception(exc, None, (), {}, False)
            raise

    def failed_at_call(outcome: Outcome[Any]) -> Generator[Any, Any, None]:
        yield outcome

    return _generator_call(policy, raises, iterate, failed_at_call)


def _async_generator(policy: _Policy, raises: bool) -> _Wrapper:
    async def iterate(agen: AsyncGenerator[Any, Any]) -> AsyncGenerator[Any, Any]:
        sent: Any = None
        thrown: BaseException | None = None
        try:
            while True:
                try:
                    item = await (agen.asend(sent) if thrown is None else agen.athrow(thrown))
                except StopAsyncIteration:
                    return
                except Exception as exc:
                    if exc is thrown:
                        raise  # the consumer's own exception, not the tool's failure
                    outcome = policy.on_exception(exc, None, (), {}, False)
                    if raises:
                        if outcome.ok:
                            yield outcome.value
                            return
                        _raise(outcome, exc)
                    yield outcome
                    return
                out = _item(policy, item, raises)  # outside the try: see _generator
                sent, thrown = None, None
                try:
                    sent = yield out
                except GeneratorExit:
                    raise
                except BaseException as exc:
                    thrown = exc
        except GeneratorExit:
            try:
                await agen.aclose()
            except Exception as exc:
                _cleanup_failed(policy, exc, raises)
            raise
        except BaseException:
            try:
                await agen.aclose()
            except Exception as exc:
                if not passes_through(exc):
                    policy.on_exception(exc, None, (), {}, False)
            raise

    async def failed_at_call(outcome: Outcome[Any]) -> AsyncGenerator[Any, Any]:
        yield outcome

    return _generator_call(policy, raises, iterate, failed_at_call)


# --- decoration ------------------------------------------------------------------------


def _function_of(fn: Any) -> Any:
    """The function behind a staticmethod, classmethod or callable object."""
    if isinstance(fn, (staticmethod, classmethod)):
        fn = fn.__func__
    return fn


def _call_method(obj: Any) -> Any:
    """The ``__call__`` defined by ``obj``'s class or its nearest base, as stored."""
    for klass in type(obj).__mro__:
        if "__call__" in klass.__dict__:
            return klass.__dict__["__call__"]
    return None


def _kind_of(fn: Any) -> Callable[[_Policy, bool], _Wrapper]:
    target = _function_of(fn)
    candidates = [target]
    if not inspect.isroutine(target) and not inspect.isclass(target):
        candidates.append(_call_method(target))  # a callable object
    for candidate in candidates:
        if inspect.isasyncgenfunction(candidate):
            return _async_generator
        if inspect.iscoroutinefunction(candidate):
            return _async
        if inspect.isgeneratorfunction(candidate):
            return _generator
    return _sync


def _code_of(fn: Any) -> CodeType | None:
    target = _function_of(fn)
    with contextlib.suppress(ValueError):  # a __wrapped__ cycle
        target = inspect.unwrap(target)
    code = getattr(target, "__code__", None)
    if code is None:  # a callable object: its __call__ runs the body
        method = _function_of(_call_method(target))
        with contextlib.suppress(ValueError):  # __call__ itself under a functools.wraps
            method = inspect.unwrap(method)
        code = getattr(method, "__code__", None)
    return code if isinstance(code, CodeType) else None


def _name_of(fn: Any) -> str:
    target = _function_of(fn)
    name = getattr(target, "__name__", None)
    return name if isinstance(name, str) else type(target).__name__


def _check_options(errors: object, on_failure: object) -> None:
    if on_failure is not None and not callable(on_failure):
        raise TypeError("on_failure must be a callable(tool_name, outcome, exception)")
    if errors is None:
        return
    if not isinstance(errors, Mapping):
        raise TypeError("errors must be a mapping of exception types to a Code or a callable")
    for key, rule in errors.items():
        if not (isinstance(key, type) and issubclass(key, BaseException)):
            raise TypeError(f"errors: {key!r} is not an exception type")
        if not issubclass(key, Exception):
            raise TypeError(
                f"errors: {key.__name__} is not an Exception subclass; BaseExceptions such as "
                "KeyboardInterrupt, SystemExit and CancelledError always propagate untouched"
            )
        if not (isinstance(rule, Code) or callable(rule)):
            raise TypeError(f"errors[{key.__name__}]: expected a Code or a callable, got {rule!r}")


def _bind_probe(self: object) -> None:
    pass


def _bind_probe_wrapper(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> None:
    pass


if TYPE_CHECKING:
    _FunctionWrapper = wrapt.FunctionWrapper[Any, Any]
else:  # not subscripted at run time, whatever wrapt 2.x release is installed
    _FunctionWrapper = wrapt.FunctionWrapper


class _ToolWrapper(_FunctionWrapper):
    """The decorated tool: a ``wrapt.FunctionWrapper`` that pickles and copies like a function.

    A plain object proxy refuses to be pickled or copied; a function pickles by reference
    (module and qualified name) and copies as itself, which is what process pools, Celery
    and ``model_copy(deep=True)`` of the frameworks' tool objects need.
    """

    # What wrapt's own FunctionWrapper binds methods with. Set explicitly: without it, wrapt
    # looks the attribute up on every method access of a subclass, fails and clears an
    # AttributeError, which costs more than the whole call.
    __bound_function_wrapper__ = type(
        wrapt.FunctionWrapper(_bind_probe, _bind_probe_wrapper).__get__(object(), object)
    )

    def __reduce_ex__(self, protocol: object) -> str:
        name = getattr(self, "__qualname__", None)
        if not isinstance(name, str) or "<" in name:
            raise pickle.PicklingError(
                f"cannot pickle {self!r}: only a decorated tool defined at module level "
                "(reachable by its module and qualified name) pickles, as for functions"
            )
        return name  # pickle finds it as a global: module (proxied) + qualified name

    def __reduce__(self) -> str:
        return self.__reduce_ex__(2)

    def __copy__(self) -> _ToolWrapper:
        return self

    def __deepcopy__(self, memo: object) -> _ToolWrapper:
        return self


class _OutcomeDecorator(Protocol):
    @overload
    def __call__(  # type: ignore[overload-overlap]
        self, fn: Callable[P, Coroutine[Any, Any, T]], /
    ) -> Callable[P, Coroutine[Any, Any, Outcome[T]]]: ...
    @overload
    def __call__(  # type: ignore[overload-overlap]
        self, fn: Callable[P, AsyncGenerator[T, S]], /
    ) -> Callable[P, AsyncGenerator[Outcome[T], S]]: ...
    @overload
    def __call__(  # type: ignore[overload-overlap]
        self, fn: Callable[P, AsyncIterator[T]], /
    ) -> Callable[P, AsyncIterator[Outcome[T]]]: ...
    @overload
    def __call__(  # type: ignore[overload-overlap]
        self, fn: Callable[P, Generator[T, S, R]], /
    ) -> Callable[P, Generator[Outcome[T], S, R | None]]: ...
    @overload
    def __call__(  # type: ignore[overload-overlap]
        self, fn: Callable[P, Iterator[T]], /
    ) -> Callable[P, Iterator[Outcome[T]]]: ...
    @overload
    def __call__(self, fn: Callable[P, T], /) -> Callable[P, Outcome[T]]: ...


class _RaisingDecorator(Protocol):
    def __call__(self, fn: F, /) -> F: ...


@overload
def classified_tool(  # type: ignore[overload-overlap]
    fn: Callable[P, Coroutine[Any, Any, T]], /
) -> Callable[P, Coroutine[Any, Any, Outcome[T]]]: ...
@overload
def classified_tool(  # type: ignore[overload-overlap]
    fn: Callable[P, AsyncGenerator[T, S]], /
) -> Callable[P, AsyncGenerator[Outcome[T], S]]: ...
@overload
def classified_tool(  # type: ignore[overload-overlap]
    fn: Callable[P, AsyncIterator[T]], /
) -> Callable[P, AsyncIterator[Outcome[T]]]: ...
@overload
def classified_tool(  # type: ignore[overload-overlap]
    fn: Callable[P, Generator[T, S, R]], /
) -> Callable[P, Generator[Outcome[T], S, R | None]]: ...
@overload
def classified_tool(  # type: ignore[overload-overlap]
    fn: Callable[P, Iterator[T]], /
) -> Callable[P, Iterator[Outcome[T]]]: ...
@overload
def classified_tool(fn: Callable[P, T], /) -> Callable[P, Outcome[T]]: ...
@overload
def classified_tool(
    *,
    raises: Literal[False] = False,
    errors: Mapping[type[Exception], ErrorRule] | None = None,
    expose_errors: bool = False,
    idempotent: bool = True,
    on_failure: FailureObserver | None = None,
    envelopes: bool = False,
) -> _OutcomeDecorator: ...
@overload
def classified_tool(
    *,
    raises: Literal[True],
    errors: Mapping[type[Exception], ErrorRule] | None = None,
    expose_errors: bool = False,
    idempotent: bool = True,
    on_failure: FailureObserver | None = None,
    envelopes: bool = False,
) -> _RaisingDecorator: ...
def classified_tool(
    fn: Any = None,
    /,
    *,
    raises: bool = False,
    errors: Mapping[type[Exception], ErrorRule] | None = None,
    expose_errors: bool = False,
    idempotent: bool = True,
    on_failure: FailureObserver | None = None,
    envelopes: bool = False,
) -> Any:
    """Classify every failure of a tool function; never retry.

    Use bare (``@classified_tool``) or with options (``@classified_tool(raises=True)``).
    Works on ``def`` and ``async def`` functions, methods, classmethods and staticmethods
    (either decorator order) and sync or async generator functions.

    By default a call returns ``Outcome[T]``: ``Outcome.success(value)`` or a failed
    Outcome. With ``raises=True`` it returns the value and raises
    :class:`~agenterr.TransientToolError`, :class:`~agenterr.SelfCorrectableToolError`,
    :class:`~agenterr.AuthToolError` or :class:`~agenterr.IndeterminateToolError`, chained
    ``from`` the original exception.

    ``KeyboardInterrupt``, ``SystemExit``, ``GeneratorExit`` and ``asyncio.CancelledError``
    always propagate untouched. So do the exceptions an integration registers as its
    framework's control flow, from the moment its module (``agenterr.integrations.<name>``)
    is imported: Pydantic AI's ``ModelRetry``, ``ToolFailed``, ``CallDeferred`` and
    ``ApprovalRequired``, LangChain's ``ToolException``, MCP's ``ToolError``, Celery's
    ``Retry``, ``Ignore``, ``Reject`` and time limits, Dramatiq's ``Retry`` and Temporal's
    failures reach the framework unchanged, in both modes, unclassified and unlogged (an
    ``AgentToolError`` is always agenterr's own, even the LangChain subclasses). What is
    caught, in order:

    - a raised ``AgentToolError``: its own outcome (re-raised unchanged in raises mode) —
      except the SCHEMA_INVALID of another decorated tool whose arguments did not bind,
      raised through this tool's own code: that call is this tool's bug (``UNKNOWN``), as
      the model never saw the other tool's parameters;
    - arguments that do not bind to the signature: ``SCHEMA_INVALID`` naming the unexpected,
      missing and expected parameters (a ``TypeError`` from inside the body is a bug). This
      comes before ``errors=``: an argument error is never one of the user's exception
      types, so even ``{Exception: …}`` or ``{TypeError: …}`` cannot make it retryable;
    - ``errors={ExcType: Code | rule}`` (keys must be ``Exception`` subclasses): only the
      entry of the most specific class in the exception's MRO applies. A ``Code`` gives
      ``Outcome.failure(code)``; a rule gets the exception and returns an Outcome (a failure,
      or a success whose value the call returns) or None. None — or anything that is not an
      Outcome, which is logged as a warning, or a rule that raises, also logged — falls
      through to the default rules below, not to the entry of a less specific class. Rules
      come before the validation diagnosis, so a rule for ``ValueError`` also applies to
      pydantic's ``ValidationError`` (a ``ValueError``);
    - pydantic or jsonschema ``ValidationError``: ``SCHEMA_INVALID``, one problem per location;
    - HTTP and transport failures: :func:`~agenterr.from_error` picks the code. An exception
      is one when it, what it was raised ``from``, or every member of its group is: an
      httpx, httpx2, httpcore, requests, urllib3, aiohttp, openai or anthropic transport or
      status error, ``ConnectionError``, ``TimeoutError``, ``socket.gaierror``/``herror``,
      ``ssl.SSLError``, ``urllib.error.URLError``, ``http.client.HTTPException``, an OSError
      with a network errno (``ECONNREFUSED``, ``ENETUNREACH``, ``ETIMEDOUT``…), or an
      exception carrying a response. Other OSErrors (files, processes, descriptors) are
      bugs, and so is an exception raised while *handling* a network failure without
      ``from`` (the implicit ``__context__`` is not followed);
    - anything else is a bug: ``UNKNOWN``, whose hint quotes the exception only with
      ``expose_errors=True`` (cleaned, capped and redacted like an API body).

    A returned Outcome passes through; a returned httpx, httpx2, requests or aiohttp
    response with a non-2xx status is classified by :func:`~agenterr.from_response` (a 2xx
    one is a success from its status alone).

    ``envelopes=True`` also reads what the tool returns for a failure reported inside a
    success (:func:`~agenterr.from_envelope`: JSON-RPC and MCP errors, MCP ``isError``,
    GraphQL ``errors[]``, ``{"ok": false}``, an ``event: error`` frame, a 2xx response's
    body and ``grpc-status`` trailer). Text, bytes, dicts, lists, MCP ``CallToolResult``
    objects and 2xx responses are looked at; a failure becomes the failed Outcome (or its
    typed error with ``raises=True``) and anything else is returned unchanged. Yielded
    items are read one by one (a frame split across two items is not seen). Off by
    default: a tool that returns such a payload as data is never second-guessed unasked.
    With ``idempotent=False`` a transient envelope failure other than ``RATE_LIMITED``
    becomes ``UNKNOWN``, as the server may have acted before it failed.

    ``idempotent=False`` marks a tool that must not run twice (a payment, a sent email): a
    retryable failure after which the server may have acted on the request (read or write
    timeout, dropped connection, 5xx other than 503) becomes ``UNKNOWN`` with a hint saying
    so; failures before the request was sent (connect errors, DNS, 429, 503) stay retryable.
    Outcomes from ``errors=`` rules, returned Outcomes and raised ``AgentToolError`` are the
    author's decision and are not rewritten.

    Generators: in Outcome mode every item is an Outcome, and an exception ends the
    iteration with one final failed Outcome; in raises mode items pass through and an
    exception, or a failed item, raises the typed error to the consumer. ``send()`` and
    ``throw()`` reach the tool; an exception the consumer throws in that the tool does not
    handle comes back out unchanged. If the tool's cleanup raises when the wrapper is
    closed, that failure is observed and logged, then swallowed in Outcome mode and raised
    as the typed error in raises mode.

    Frameworks (LangChain, OpenAI Agents, Pydantic AI, MCP) pass a tool's return value on as
    its result: register tools with them with ``raises=True``. The decorated tool pickles by
    reference and copies as itself, like a function.

    ``on_failure(tool_name, outcome, exception_or_None)`` is called for every failure (an
    observer that raises an ``Exception`` is logged and ignored), and each failure is logged
    to the ``agenterr`` logger: WARNING for ``UNKNOWN`` with the traceback, INFO otherwise.
    A logging Filter or Handler that raises is ignored: it never changes the call's result.
    """
    _check_options(errors, on_failure)

    def decorate(function: Any) -> Any:
        if not callable(function) and not isinstance(function, (staticmethod, classmethod)):
            raise TypeError(f"classified_tool needs a callable, got {function!r}")
        policy = _Policy(
            name=_name_of(function),
            errors=dict(errors) if errors else None,
            expose_errors=expose_errors,
            idempotent=idempotent,
            on_failure=on_failure,
            code=_code_of(function),
            envelopes=bool(envelopes),
        )
        return _ToolWrapper(function, _kind_of(function)(policy, raises))

    if fn is None:
        return decorate
    return decorate(fn)
