"""Arguments that do not bind to the tool's signature: SCHEMA_INVALID, before the body runs."""

from __future__ import annotations

import asyncio
import functools
import inspect
import keyword
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agenterr import AgentToolError, Code, Outcome, SelfCorrectableToolError, classified_tool
from agenterr._exceptions import binding_problems

CALLS: list[tuple[Any, ...]] = []


def create_ticket(title: str, body: str = "", *, priority: int = 3) -> str:
    CALLS.append((title, body, priority))
    return "T-1"


tool = classified_tool(create_ticket)


def hint_lines(outcome: Outcome[Any]) -> list[str]:
    assert outcome.code is Code.SCHEMA_INVALID
    return [line[2:] for line in outcome.llm_hint.splitlines() if line.startswith("- ")]


EXPECTED = "expected parameters: title: str (required), body: str, priority: int"


@pytest.mark.parametrize(
    ("args", "kwargs", "problems"),
    [
        ((), {"titel": "x"}, ["unexpected argument 'titel'", "missing required argument 'title'"]),
        ((), {}, ["missing required argument 'title'"]),
        (("a", "b", "c"), {}, ["too many positional arguments: got 3, expected at most 2"]),
        (("a",), {"title": "b"}, ["argument 'title' given twice"]),
        (
            ("a",),
            {"urgency": 1, "labels": []},
            ["unexpected argument 'urgency'", "unexpected argument 'labels'"],
        ),
    ],
)
def test_problems_name_offending_and_expected(
    args: tuple[Any, ...], kwargs: dict[str, Any], problems: list[str]
) -> None:
    """The hint lists each offending parameter and then the expected ones; nothing ran."""
    CALLS.clear()
    outcome = tool(*args, **kwargs)
    assert hint_lines(outcome) == [*problems, EXPECTED]
    assert isinstance(outcome.error, TypeError)
    assert outcome.status == 0 and not outcome.retryable
    assert CALLS == []


def test_raises_mode_raises_self_correctable() -> None:
    """raises=True raises SelfCorrectableToolError chained from the TypeError."""
    with pytest.raises(SelfCorrectableToolError) as info:
        classified_tool(raises=True)(create_ticket)(name="x")
    assert isinstance(info.value.__cause__, TypeError)
    assert "unexpected argument 'name'" in info.value.llm_hint


def test_type_error_inside_body_is_a_bug() -> None:
    """A TypeError raised by the body (good arguments) is UNKNOWN, not SCHEMA_INVALID."""

    @classified_tool
    def add(a: int, b: int) -> int:
        return a + b

    assert add(1, "2").code is Code.UNKNOWN  # type: ignore[arg-type]


def test_type_error_from_a_helper_with_bad_call_is_a_bug() -> None:
    """A bad call the body makes to another function is the body's bug."""

    def helper(x: int) -> int:
        return x

    @classified_tool
    def tool_(x: int) -> int:
        return helper(x, unexpected=1)  # type: ignore[call-arg]

    assert tool_(1).code is Code.UNKNOWN


def test_type_error_mentioning_parameters_inside_body_is_a_bug() -> None:
    """Even a TypeError whose text looks like a binding error is a bug when raised inside."""

    @classified_tool
    def tool_(x: int) -> int:
        raise TypeError("tool_() got an unexpected keyword argument 'y'")

    assert tool_(1).code is Code.UNKNOWN


def test_inner_decorator_with_wraps() -> None:
    """Through a functools.wraps decorator, bad arguments are still SCHEMA_INVALID."""

    def logged(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            return fn(*args, **kwargs)

        return inner

    @classified_tool
    @logged
    def tool_(x: int) -> int:
        return x

    assert tool_(1).value == 1
    assert hint_lines(tool_(y=1))[0] == "unexpected argument 'y'"


class Service:
    @classified_tool
    def method(self, name: str) -> str:
        return name

    @classified_tool
    @classmethod
    def cls_method(cls, name: str) -> str:
        return name

    @staticmethod
    @classified_tool
    def static(name: str) -> str:
        return name

    @classified_tool
    async def amethod(self, name: str) -> str:
        return name


@pytest.mark.parametrize("attribute", ["method", "cls_method", "static"])
def test_methods_do_not_list_self_or_cls(attribute: str) -> None:
    """For methods, self and cls are bound: never reported as missing or expected."""
    bound = getattr(Service(), attribute)
    assert hint_lines(bound(nam="x")) == [
        "unexpected argument 'nam'",
        "missing required argument 'name'",
        "expected parameters: name: str (required)",
    ]


def test_method_through_class_with_explicit_self() -> None:
    """Service.method(instance, bad=...) reports against the bound signature."""
    lines = hint_lines(Service.method(Service(), bad=1))
    assert lines[0] == "unexpected argument 'bad'"
    assert lines[-1] == "expected parameters: name: str (required)"


def test_async_method() -> None:
    """An async method's binding failure is reported when awaited."""
    outcome = asyncio.run(Service().amethod())
    assert hint_lines(outcome)[0] == "missing required argument 'name'"


def test_variadic_signatures() -> None:
    """*args and **kwargs accept anything; positional-only names cannot be keywords."""

    @classified_tool
    def loose(a: int, /, *rest: int, **options: Any) -> int:
        return a

    assert loose(1, 2, 3, x=4).ok
    assert hint_lines(loose(a=1)) == [
        "missing required argument 'a'",
        "expected parameters: a: int (required), *rest: int, **options: Any",
    ]


class Invoice:
    pass


class Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def test_annotations_are_named_briefly() -> None:
    """Each parameter's annotation is named (a class by its name, not its module), a long
    one is cut, and one that cannot be rendered is left out rather than failing the call."""

    def bill(invoice, when, *, tags, note=None):  # type: ignore[no-untyped-def]
        return invoice

    bill.__annotations__ = {
        "invoice": Invoice,
        "when": "dt.date",
        "tags": "dict[" + "str, " * 30 + "int]",
        "note": Unprintable(),
    }
    tool_ = classified_tool(bill)
    (line,) = [x for x in hint_lines(tool_()) if x.startswith("expected")]
    long = "dict[" + "str, " * 30 + "int]"
    assert line == (
        "expected parameters: invoice: Invoice (required), when: dt.date (required), "
        f"tags: {long[:59]}… (required), note"
    )


def test_no_parameters() -> None:
    """A tool without parameters lists none as expected."""

    @classified_tool
    def ping() -> str:
        return "pong"

    assert hint_lines(ping(1)) == [  # type: ignore[call-arg]
        "too many positional arguments: got 1, expected at most 0",
        "expected parameters: none",
    ]


def test_builtin_without_signature_falls_back() -> None:
    """A callable without a signature never gets SCHEMA_INVALID from a guess."""
    assert classified_tool(len)().code is Code.SCHEMA_INVALID  # len has one: (obj, /)
    tool_ = classified_tool(max)  # inspect.signature(max) raises ValueError
    assert tool_([1, 2]).value == 2
    assert tool_().code is Code.UNKNOWN


def test_problem_text_is_cleaned() -> None:
    """A hostile parameter name from the model is cleaned before it reaches the hint."""
    outcome = tool(**{"x\x1b[2J\u202e": 1, "title": "t"})
    assert "\x1b" not in outcome.llm_hint and "\u202e" not in outcome.llm_hint


_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12).filter(
    lambda n: n not in {"title", "body", "priority"} and not keyword.iskeyword(n)
)


@given(extra=st.lists(_names, min_size=1, max_size=5, unique=True))
def test_any_hallucinated_keyword_is_named(extra: list[str]) -> None:
    """Every unexpected keyword the model invents is named in the hint, in order."""
    outcome = tool("t", **dict.fromkeys(extra, 1))
    assert hint_lines(outcome) == [*(f"unexpected argument {n!r}" for n in extra), EXPECTED]


@given(
    args=st.lists(st.integers(), max_size=4),
    kwargs=st.dictionaries(st.sampled_from(["title", "body", "priority", "x"]), st.integers()),
)
def test_agrees_with_inspect_bind(args: list[int], kwargs: dict[str, int]) -> None:
    """binding_problems is empty exactly when inspect's bind accepts the arguments."""
    signature = inspect.signature(create_ticket)
    try:
        signature.bind(*args, **kwargs)
        binds = True
    except TypeError:
        binds = False
    assert (binding_problems(signature, tuple(args), kwargs) == []) is binds


def test_callable_object_whose_call_is_wrapped() -> None:
    """A callable object whose __call__ sits under a functools.wraps decorator: bad
    arguments are SCHEMA_INVALID, a TypeError from its body is a bug."""

    def logged(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            return fn(*args, **kwargs)

        return inner

    class Tool:
        @logged
        def __call__(self, x: int) -> int:
            if x < 0:
                raise TypeError("negative")
            return x

    tool = classified_tool(Tool())
    assert tool(1).value == 1
    assert hint_lines(tool(y=1))[0] == "unexpected argument 'y'"
    assert tool(-1).code is Code.UNKNOWN


# --- a decorated tool calling another one wrongly --------------------------------------


@classified_tool(raises=True)
def lookup(query: str) -> str:
    return query


def test_outer_tool_calling_inner_tool_wrongly_is_a_bug_of_the_outer() -> None:
    """The inner tool's SCHEMA_INVALID is about the inner's parameters, which the model
    never saw: when the outer tool's own code made the bad call, it is the outer's bug."""

    @classified_tool
    def outer(x: int) -> str:
        return lookup(qurey=str(x))  # type: ignore[call-arg]

    outcome = outer(1)
    assert outcome.code is Code.UNKNOWN
    assert "qurey" not in outcome.llm_hint
    assert isinstance(outcome.error, SelfCorrectableToolError)

    raising_outer = classified_tool(raises=True)(outer.__wrapped__)
    with pytest.raises(AgentToolError) as info:
        raising_outer(1)
    assert info.value.code is Code.UNKNOWN
    assert isinstance(info.value.__cause__, SelfCorrectableToolError)


@pytest.mark.asyncio
async def test_async_outer_tool_calling_inner_tool_wrongly_is_a_bug() -> None:
    """The same for an async outer tool."""

    @classified_tool
    async def outer(x: int) -> str:
        return lookup(qurey=str(x))  # type: ignore[call-arg]

    assert (await outer(1)).code is Code.UNKNOWN


def test_model_error_through_stacked_decorators_stays_schema_invalid() -> None:
    """When the model's own arguments do not bind, the binding SCHEMA_INVALID still passes
    through an outer decorated layer, and so does any other raised AgentToolError."""
    doubly = classified_tool(classified_tool(raises=True)(lambda query: query))
    outcome = doubly(qurey="x")
    assert outcome.code is Code.SCHEMA_INVALID and "'qurey'" in outcome.llm_hint

    @classified_tool
    def outer(x: int) -> str:
        raise SelfCorrectableToolError(Outcome.failure(Code.SCHEMA_INVALID, "bad x"))

    assert outer(1).code is Code.SCHEMA_INVALID
