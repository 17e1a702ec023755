"""Decorated methods copy, deep-copy and pickle like bound methods, and still classify.

``K.meth``, ``k.meth``, classmethods and staticmethods (either decorator order) are what a
framework holds when a tool is a method: LangChain's ``model_copy(deep=True)`` deep-copies
it, process pools and Celery pickle it.
"""

from __future__ import annotations

import copy
import pickle
import threading
from collections.abc import Callable
from typing import Any

import pytest

from agenterr import Code, Outcome, SelfCorrectableToolError, classified_tool


class OrderService:
    """A service object as tools usually live on: it holds things that do not copy."""

    def __init__(self, prefix: str = "o-") -> None:
        self.prefix = prefix
        self.lock = threading.Lock()  # neither deep-copies nor pickles

    def __reduce__(self) -> tuple[Any, ...]:
        return (OrderService, (self.prefix,))

    @classified_tool
    def get(self, order_id: str) -> str:
        if not order_id:
            raise KeyError("order_id")
        return self.prefix + order_id

    @classified_tool(raises=True)
    def get_raising(self, order_id: str) -> str:
        return self.prefix + order_id

    @classified_tool
    @classmethod
    def kind(cls, name: str) -> str:
        return f"{cls.__name__}:{name}"

    @classmethod
    @classified_tool
    def kind_inner(cls, name: str) -> str:
        return f"{cls.__name__}:{name}"

    @classified_tool
    @staticmethod
    def double(x: int) -> int:
        return 2 * x

    @staticmethod
    @classified_tool
    def double_inner(x: int) -> int:
        return 2 * x


SERVICE = OrderService()

# (how the method is looked up, the arguments of a good call, its value)
METHODS: dict[str, tuple[Callable[[], Any], tuple[Any, ...], Any]] = {
    "k.meth": (lambda: SERVICE.get, ("7",), "o-7"),
    "K.meth": (lambda: OrderService.get, (SERVICE, "7"), "o-7"),
    "K.classmethod": (lambda: OrderService.kind, ("x",), "OrderService:x"),
    "k.classmethod": (lambda: SERVICE.kind, ("x",), "OrderService:x"),
    "K.classmethod inner": (lambda: OrderService.kind_inner, ("x",), "OrderService:x"),
    "K.staticmethod": (lambda: OrderService.double, (4,), 8),
    "k.staticmethod": (lambda: SERVICE.double, (4,), 8),
    "K.staticmethod inner": (lambda: OrderService.double_inner, (4,), 8),
}


def _pickled(method: Any, protocol: int = pickle.HIGHEST_PROTOCOL) -> Any:
    return pickle.loads(pickle.dumps(method, protocol))


COPIES: dict[str, Callable[[Any], Any]] = {
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "deepcopy in a dict": lambda m: copy.deepcopy({"tool": m})["tool"],
    "pickle": _pickled,
    "pickle protocol 0": lambda m: _pickled(m, 0),
}


@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize("name", list(METHODS))
def test_a_copied_method_still_classifies(name: str, how: str) -> None:
    """Each copy is the same tool: an Outcome of the same value, and the same signature."""
    lookup, args, value = METHODS[name]
    method = lookup()
    clone = COPIES[how](method)
    assert clone(*args) == Outcome.success(value)
    assert clone.__name__ == method.__name__
    assert clone.__doc__ == method.__doc__


def test_a_copy_is_bound_to_the_same_object() -> None:
    """copy and deepcopy share the service object (its lock does not copy); a pickle
    round-trip rebuilds it by its own reduce, as for a bound method."""
    method: Any = SERVICE.get
    assert copy.deepcopy(method).__self__ is SERVICE
    assert copy.copy(method).__self__ is SERVICE
    other = OrderService("x-")
    clone = _pickled(other.get)
    assert clone.__self__ is not other and clone("1").value == "x-1"


def test_a_copied_method_classifies_failures() -> None:
    """Failures of a copy are classified as the original's are, in both modes."""
    for how in COPIES.values():
        outcome = how(SERVICE.get)("")
        assert outcome.code is Code.UNKNOWN
    raising: Any = copy.deepcopy(SERVICE.get_raising)
    with pytest.raises(SelfCorrectableToolError):
        raising(order_id="1", extra=True)


def test_a_method_of_a_local_class_does_not_pickle() -> None:
    """As for functions and bound methods, what cannot be found by name does not pickle."""

    class Local:
        @classified_tool
        @staticmethod
        def tool() -> None:
            pass

    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        pickle.dumps(Local.tool)


def test_langchain_deep_copies_a_tool_built_on_a_method() -> None:
    """The finding as reported: ``model_copy(deep=True)`` of such a tool works."""
    tools = pytest.importorskip("langchain_core.tools")
    tool = tools.StructuredTool.from_function(
        SERVICE.get_raising, name="get_order", description="Look an order up."
    )
    clone = tool.model_copy(deep=True)
    assert clone.invoke({"order_id": "9"}) == "o-9"
