"""``@classified_tool``: every failure of a tool function becomes an Outcome or a typed error.

The wrapper is a ``wrapt.FunctionWrapper``, so the decorated tool keeps the wrapped
function's signature, name, docstring, annotations, coroutine-ness and method binding, and
frameworks that build a JSON schema from it see no difference. The code path (sync, async,
generator, async generator; Outcome or raising) is chosen once, at decoration time. What
a failure or a returned value means is the policy's (``_policy``): this module only calls
the tool and hands over what came back.

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
import pickle
import sys
import weakref
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Callable,
    Coroutine,
    Generator,
    Iterator,
    Mapping,
)
from types import CodeType, CoroutineType, FrameType
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    ParamSpec,
    Protocol,
    TypeVar,
    cast,
    overload,
)

import wrapt

from ._exceptions import passes_through
from ._frameworks import refuse_registration
from ._outcome import Failure, Outcome, Success
from ._policy import (
    AWAITABLE,
    PLAIN,
    ErrorRule,
    FailureObserver,
    Policy,
    raise_typed,
    result_kind,
)
from ._rules import Rules, compile_rules
from ._shared import attr
from ._taxonomy import Code

__all__ = ["ErrorRule", "FailureObserver", "classified_tool"]

P = ParamSpec("P")
T = TypeVar("T")
S = TypeVar("S")
R = TypeVar("R")
F = TypeVar("F", bound="Callable[..., Any] | staticmethod[Any, Any] | classmethod[Any, Any, Any]")

_Wrapper = Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], Any]


# --- the wrappers, one per (kind, mode) ------------------------------------------------


def _plain_types(policy: Policy) -> set[type] | frozenset[type]:
    """Result types returned without a look: none when envelopes are read."""
    return frozenset() if policy.envelopes else PLAIN


def _value_or_raise(  # noqa: PLR0917 - the wrapper's arguments, passed on
    policy: Policy, exc: Exception, wrapped: Any, args: Any, kwargs: Any, at_call: bool
) -> Any:
    """Raises mode: the outcome's typed error, or the value when the outcome is a success
    (an ``errors=`` mapping may call an exception one)."""
    outcome = policy.on_exception(exc, wrapped, args, kwargs, at_call)
    if not outcome.ok:
        raise_typed(outcome, exc)
    return outcome.value


def _sync(policy: Policy, raises: bool) -> _Wrapper:
    plain = _plain_types(policy)

    if raises:

        def call_raising(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
            try:
                result = wrapped(*args, **kwargs)
            except Exception as exc:
                return _value_or_raise(policy, exc, wrapped, args, kwargs, True)
            if type(result) in plain:
                return result
            if result_kind(type(result)) == AWAITABLE:
                return _awaited(policy, True, result, wrapped, args, kwargs)
            return policy.result_value(result)

        return call_raising

    def call(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
        try:
            result = wrapped(*args, **kwargs)
        except Exception as exc:
            return policy.on_exception(exc, wrapped, args, kwargs, True)
        if type(result) in plain:
            return Success(result)
        if result_kind(type(result)) == AWAITABLE:
            return _awaited(policy, False, result, wrapped, args, kwargs)
        return policy.on_result(result)

    return call


def _awaited(  # noqa: PLR0917 - the wrapper's arguments, passed on
    policy: Policy,
    raises: bool,
    awaitable: Any,
    wrapped: Any,
    args: Any,
    kwargs: Any,
) -> Coroutine[Any, Any, Any]:
    """A sync tool returned an awaitable (a coroutine, a task, a future): the caller gets a
    coroutine that awaits it and classifies what that gives, as the async wrapper does, so
    ``await tool()`` is an Outcome (or the value, or the typed error with ``raises=True``).

    Its name is the awaitable's, so a caller that never awaits it is told which, once: when
    it goes away (closed, or collected) without having awaited the tool's coroutine, that
    coroutine is closed too, so Python does not warn a second time about it."""
    coroutine = cast(
        "CoroutineType[Any, Any, Any]",
        _classify_awaited(policy, raises, awaitable, wrapped, args, kwargs),
    )
    name = getattr(awaitable, "__qualname__", None)
    if isinstance(name, str):
        coroutine.__qualname__ = name
    close = getattr(awaitable, "close", None) if inspect.iscoroutine(awaitable) else None
    if close is not None:
        weakref.finalize(coroutine, close).atexit = False
    return coroutine


async def _classify_awaited(  # noqa: PLR0917 - as _awaited
    policy: Policy,
    raises: bool,
    awaitable: Any,
    wrapped: Any,
    args: Any,
    kwargs: Any,
) -> Any:
    try:
        result = await awaitable
    except Exception as exc:
        # Raised by the awaitable's body, not by the call: no binding diagnosis.
        if raises:
            return _value_or_raise(policy, exc, wrapped, args, kwargs, False)
        return policy.on_exception(exc, wrapped, args, kwargs, False)
    if raises:
        return policy.result_value(result)
    return policy.on_result(result)


def _async(policy: Policy, raises: bool) -> _Wrapper:
    plain = _plain_types(policy)

    if raises:

        async def call_raising(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
            try:
                result = await wrapped(*args, **kwargs)
            except Exception as exc:
                return _value_or_raise(policy, exc, wrapped, args, kwargs, True)
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
            return Success(result)
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


def _item(policy: Policy, item: Any, raises: bool) -> Any:
    if not policy.envelopes and type(item) in PLAIN:
        return item if raises else Success(item)
    if raises:
        return policy.result_value(item)
    return policy.on_result(item)


def _cleanup_failed(policy: Policy, exc: Exception, raises: bool) -> None:
    """The tool's cleanup raised ``exc`` when the consumer closed the wrapper."""
    outcome = policy.on_exception(exc, None, (), {}, False)
    if raises and outcome.failed:
        raise_typed(outcome, exc)


def _generator_call(
    policy: Policy,
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
            raise_typed(outcome, exc)
        return iterate(generator)

    return call


def _generator(policy: Policy, raises: bool) -> _Wrapper:
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
                    if raises:
                        yield _value_or_raise(policy, exc, None, (), {}, False)
                    else:
                        yield policy.on_exception(exc, None, (), {}, False)
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


def _async_generator(policy: Policy, raises: bool) -> _Wrapper:
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
                    if raises:
                        yield _value_or_raise(policy, exc, None, (), {}, False)
                    else:
                        yield policy.on_exception(exc, None, (), {}, False)
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


def _kind_of(fn: Any) -> Callable[[Policy, bool], _Wrapper]:
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


def _check_options(errors: object, on_failure: object, **flags: object) -> None:
    """Reject a bad option when the tool is decorated, not at its first failure."""
    for name, value in flags.items():
        if type(value) is not bool:
            raise TypeError(
                f"classified_tool: {name} must be True or False, got {type(value).__name__}"
            )
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
    _BoundFunctionWrapper = wrapt.BoundFunctionWrapper[Any, Any]
else:  # not subscripted at run time, whatever wrapt 2.x release is installed
    _FunctionWrapper = wrapt.FunctionWrapper
    # What wrapt's own FunctionWrapper binds methods with (its C type when compiled).
    _BoundFunctionWrapper = type(
        wrapt.FunctionWrapper(_bind_probe, _bind_probe_wrapper).__get__(object(), object)
    )


class _BoundToolWrapper(_BoundFunctionWrapper):
    """A decorated method as looked up on its class or an instance: ``K.meth``, ``k.meth``,
    a classmethod or a staticmethod.

    It pickles like a bound method, as the attribute of the object it was looked up on
    (the class for a classmethod or a staticmethod), and copies as itself, still bound to
    the same object: a deep copy of a framework's tool object must not try to copy the
    service object (clients, locks, sockets) behind a method.
    """

    __slots__ = ()  # one is built at every method lookup: no instance dict to allocate

    def __reduce_ex__(self, protocol: object) -> tuple[Any, tuple[Any, str]]:
        instance = self._self_instance
        binding = self._self_binding
        if instance is None or binding in ("classmethod", "staticmethod"):
            target = self._self_owner
            if target is None:
                target = type(instance)
        else:
            target = instance
        name = getattr(self, "__name__", None)
        if not isinstance(name, str):
            raise pickle.PicklingError(f"cannot pickle {self!r}: it has no name")
        return getattr, (target, name)

    def __reduce__(self) -> tuple[Any, tuple[Any, str]]:
        return self.__reduce_ex__(2)

    def __copy__(self) -> _BoundToolWrapper:
        return self

    def __deepcopy__(self, memo: object) -> _BoundToolWrapper:
        return self


class _ToolWrapper(_FunctionWrapper):
    """The decorated tool: a ``wrapt.FunctionWrapper`` that pickles and copies like a function.

    A plain object proxy refuses to be pickled or copied; a function pickles by reference
    (module and qualified name) and copies as itself, which is what process pools, Celery
    and ``model_copy(deep=True)`` of the frameworks' tool objects need. Looked up as a
    method, it binds as a :class:`_BoundToolWrapper`, which does the same.
    """

    # Set explicitly: without it, wrapt looks the attribute up on every method access of a
    # subclass, fails and clears an AttributeError, which costs more than the whole call.
    __bound_function_wrapper__ = _BoundToolWrapper

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


def _no_signature(tool: Any) -> Any:
    """The ``__signature__`` of an Outcome-mode tool: a framework registering it gets a
    ``TypeError`` (:mod:`._frameworks`); anyone else none, so ``inspect`` reads the wrapped
    function's, as for any wrapper."""
    _refuse_unadapted(tool, sys._getframe(1))
    raise AttributeError("__signature__")


def _refuse_unadapted(tool: Any, asker: FrameType) -> None:
    """:func:`refuse_registration` unless an agenterr adapter wraps ``tool``."""
    function = tool._self_parent if isinstance(tool, _BoundOutcomeToolWrapper) else tool
    if not getattr(function, "_self_adapted", False):
        refuse_registration(_name_of(tool.__wrapped__), asker)


class _BoundOutcomeToolWrapper(_BoundToolWrapper):
    """An Outcome-mode method, looked up on its class or an instance."""

    __slots__ = ()
    __signature__ = property(_no_signature)

    @property
    def __func__(self) -> Any:
        # The proxy passes as a bound method, so inspect reads the signature of __func__
        # instead of asking for __signature__: the same check, there.
        _refuse_unadapted(self, sys._getframe(1))
        return self.__wrapped__.__func__  # type: ignore[attr-defined]


class _OutcomeToolWrapper(_ToolWrapper):
    """An Outcome-mode tool; registered directly with a framework, it says which adapter to
    use instead of letting the framework pass its failures on as successes."""

    __bound_function_wrapper__ = _BoundOutcomeToolWrapper
    __signature__ = property(_no_signature)


_UNWRAP_DEPTH = 32
"""Decorators looked through (a tenacity ``@retry``, ``functools.wraps``) for the tool."""


def mark_adapted(fn: Any) -> None:
    """Record that an agenterr adapter wraps ``fn``: a framework reading the signature
    through the adapter reaches the Outcome-mode tool under ``fn`` (``fn`` itself, or under
    other decorators), which must not refuse it."""
    for _ in range(_UNWRAP_DEPTH):
        if isinstance(fn, _BoundOutcomeToolWrapper):
            fn = fn._self_parent
        if isinstance(fn, _OutcomeToolWrapper):
            fn._self_adapted = True  # type: ignore[attr-defined]  # on the proxy (wrapt: _self_)
            return
        fn = attr(fn, "__wrapped__")
        if fn is None:
            return


def function_tool(fn: Any, call: Any, call_async: Any, adapter: str) -> _ToolWrapper:
    """``fn`` behind the wrapt wrapper ``call`` (``call_async`` for a coroutine function).

    What the framework adapters build on: the same wrapper class as ``@classified_tool``.
    ``adapter`` names the caller in the ``TypeError`` that refuses a generator function.
    """
    kind = _kind_of(fn)
    if kind in (_generator, _async_generator):
        raise TypeError(f"{adapter} needs a function or coroutine function, got {fn!r}")
    mark_adapted(fn)
    return _ToolWrapper(fn, call_async if kind is _async else call)


class _OutcomeDecorator(Protocol):
    @overload
    def __call__(  # type: ignore[overload-overlap]
        self, fn: Callable[P, Coroutine[Any, Any, T]], /
    ) -> Callable[P, Coroutine[Any, Any, Success[T] | Failure]]: ...
    @overload
    def __call__(  # type: ignore[overload-overlap]
        self, fn: Callable[P, AsyncGenerator[T, S]], /
    ) -> Callable[P, AsyncGenerator[Success[T] | Failure, S]]: ...
    @overload
    def __call__(  # type: ignore[overload-overlap]
        self, fn: Callable[P, AsyncIterator[T]], /
    ) -> Callable[P, AsyncIterator[Success[T] | Failure]]: ...
    @overload
    def __call__(  # type: ignore[overload-overlap]
        self, fn: Callable[P, Generator[T, S, R]], /
    ) -> Callable[P, Generator[Success[T] | Failure, S, R | None]]: ...
    @overload
    def __call__(  # type: ignore[overload-overlap]
        self, fn: Callable[P, Iterator[T]], /
    ) -> Callable[P, Iterator[Success[T] | Failure]]: ...
    @overload
    def __call__(self, fn: Callable[P, T], /) -> Callable[P, Success[T] | Failure]: ...


class _RaisingDecorator(Protocol):
    def __call__(self, fn: F, /) -> F: ...


@overload
def classified_tool(  # type: ignore[overload-overlap]
    fn: Callable[P, Coroutine[Any, Any, T]], /
) -> Callable[P, Coroutine[Any, Any, Success[T] | Failure]]: ...
@overload
def classified_tool(  # type: ignore[overload-overlap]
    fn: Callable[P, AsyncGenerator[T, S]], /
) -> Callable[P, AsyncGenerator[Success[T] | Failure, S]]: ...
@overload
def classified_tool(  # type: ignore[overload-overlap]
    fn: Callable[P, AsyncIterator[T]], /
) -> Callable[P, AsyncIterator[Success[T] | Failure]]: ...
@overload
def classified_tool(  # type: ignore[overload-overlap]
    fn: Callable[P, Generator[T, S, R]], /
) -> Callable[P, Generator[Success[T] | Failure, S, R | None]]: ...
@overload
def classified_tool(  # type: ignore[overload-overlap]
    fn: Callable[P, Iterator[T]], /
) -> Callable[P, Iterator[Success[T] | Failure]]: ...
@overload
def classified_tool(fn: Callable[P, T], /) -> Callable[P, Success[T] | Failure]: ...
@overload
def classified_tool(
    *,
    raises: Literal[False] = False,
    errors: Mapping[type[Exception], ErrorRule] | None = None,
    expose_errors: bool = False,
    idempotent: bool = True,
    on_failure: FailureObserver | None = None,
    envelopes: bool = False,
    rules: Rules = None,
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
    rules: Rules = None,
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
    rules: Rules = None,
) -> Any:
    """Classify every failure of a tool function; never retry.

    Use bare (``@classified_tool``) or with options (``@classified_tool(raises=True)``).
    Options are checked here, not at the first failure: ``raises``, ``expose_errors``,
    ``idempotent`` and ``envelopes`` must be bools, ``on_failure`` callable, ``errors`` a
    mapping of ``Exception`` subclasses to a ``Code`` or a callable (``TypeError`` otherwise).
    Works on ``def`` and ``async def`` functions, methods, classmethods and staticmethods
    (either decorator order) and sync or async generator functions.

    By default a call returns ``Outcome[T]``: ``Outcome.success(value)`` or a failed
    Outcome. With ``raises=True`` it returns the value and raises
    :class:`~agenterr.TransientToolError`, :class:`~agenterr.SelfCorrectableToolError`,
    :class:`~agenterr.AuthToolError` or :class:`~agenterr.IndeterminateToolError`, chained
    ``from`` the original exception.

    ``KeyboardInterrupt``, ``SystemExit``, ``GeneratorExit`` and ``asyncio.CancelledError``
    always propagate untouched. So do the exceptions a framework reads as the tool's
    instructions, whether or not anything but the framework has been imported: Pydantic
    AI's ``ModelRetry``, ``ToolFailed``, ``CallDeferred`` and ``ApprovalRequired``,
    LangChain's ``ToolException``, MCP's ``ToolError``, ``ResourceError`` and
    ``UrlElicitationRequiredError``, Celery's ``Retry``, ``Ignore``, ``Reject`` and time
    limits, Dramatiq's ``Retry`` and Temporal's failures reach the framework unchanged, in
    both modes, unclassified and unlogged (an ``AgentToolError`` is always agenterr's own,
    even the LangChain subclasses). What is caught, in order:

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
      that code's failure, its hint ending with the exception's own message (cleaned,
      capped and redacted like an API body); a rule gets the exception and returns an
      Outcome (a failure, or a success whose value the call returns) or None. None — or
      anything that is not an Outcome, which is logged as a warning, or a rule that raises,
      also logged — falls through to the default rules below, not to the entry of a less
      specific class. Rules
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
    typed error with ``raises=True``); a successful JSON-RPC 2.0 response (a dict) gives its
    ``result``, and anything else is returned unchanged. Yielded
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

    A ``def`` tool that returns an awaitable (a coroutine, a task, a future: ``def
    get(x): return client.get(x)`` with an async client) is typed as an ``async def`` one
    and behaves so: the call returns a coroutine whose result is the Outcome (or, with
    ``raises=True``, the value or the typed error) of awaiting what the tool returned.
    Arguments still bind at the call; an exception raised while awaiting is the tool's
    (never a binding problem). Never awaited, it warns once, by the tool coroutine's name.

    Generators: in Outcome mode every item is an Outcome, and an exception ends the
    iteration with one final failed Outcome; in raises mode items pass through and an
    exception, or a failed item, raises the typed error to the consumer. ``send()`` and
    ``throw()`` reach the tool; an exception the consumer throws in that the tool does not
    handle comes back out unchanged. If the tool's cleanup raises when the wrapper is
    closed, that failure is observed and logged, then swallowed in Outcome mode and raised
    as the typed error in raises mode.

    Frameworks (LangChain, OpenAI Agents, Pydantic AI, MCP) pass a tool's return value on as
    its result: register tools with them with ``raises=True`` or through the integration's
    adapter. An Outcome-mode tool registered directly raises ``TypeError`` at registration
    (when the framework reads its signature), naming the adapter. The decorated tool pickles by
    reference and copies as itself, like a function; a decorated method looked up on its
    class or an instance (classmethods and staticmethods too) pickles like a bound method
    and copies as itself, still bound to the same object.

    ``rules=`` are user rules (:class:`~agenterr.Rule`, a list or a
    :class:`~agenterr.RuleSet`) for every failure of this tool: nearer than the process-wide
    ones of :func:`~agenterr.add_rules`, and checked when the decorator is applied.

    ``on_failure(tool_name, outcome, exception_or_None)`` is called for every failure (an
    observer that raises an ``Exception`` is logged and ignored), and each failure is logged
    to the ``agenterr`` logger: WARNING for ``UNKNOWN`` with the traceback, INFO otherwise
    (an ``UNKNOWN`` that ``idempotent=False`` made of a retryable failure is not a bug: INFO,
    naming the code it was, in the record's ``agenterr_escalated_from`` too).
    Every record's text is cleaned and redacted like a quoted API body: the traceback is the
    record's ``exc_text`` (each exception's message one redacted line), not ``exc_info``;
    the exception itself is in the record's ``agenterr_outcome.error``, and why the failure
    got its code in ``agenterr_reason`` (a :class:`~agenterr.Reason`). A logging Filter or
    Handler that raises is ignored: it never changes the call's result.
    """
    _check_options(
        errors,
        on_failure,
        raises=raises,
        expose_errors=expose_errors,
        idempotent=idempotent,
        envelopes=envelopes,
    )
    compiled = compile_rules(rules)  # a malformed rule fails here, at decoration

    def decorate(function: Any) -> Any:
        if not callable(function) and not isinstance(function, (staticmethod, classmethod)):
            raise TypeError(f"classified_tool needs a callable, got {function!r}")
        policy = Policy(
            name=_name_of(function),
            errors=dict(errors) if errors else None,
            expose_errors=expose_errors,
            idempotent=idempotent,
            on_failure=on_failure,
            code=_code_of(function),
            envelopes=bool(envelopes),
            rules=compiled,
        )
        wrapper = _ToolWrapper if raises else _OutcomeToolWrapper
        return wrapper(function, _kind_of(function)(policy, raises))

    if fn is None:
        return decorate
    return decorate(fn)
