"""Success-path overhead of ``@classified_tool``, as ratios measured in one run.

Every row times a decorated no-op tool (``def _tool(x): return x``) against a baseline,
the two interleaved repeat by repeat with ``timeit`` (21 repeats of about 50 ms a side) and
each reported as its best repeat (see ``bench_core.compare``). Calls are made through
``functools.partial``, so no extra Python frame is shared by both sides to dilute the ratio.
``ratio`` is agenterr's time divided by the baseline's, so the numbers compare designs rather
than machines. The targets are those of issue 3:

1. ``@classified_tool(raises=True)`` against a bare ``wrapt.FunctionWrapper`` whose wrapper
   only passes the call through: ≤ 1.3.
2. ``@classified_tool`` (Outcome mode) against the same pass-through: ≤ 1.8.
3. ``@classified_tool(raises=True)`` against tenacity's
   ``@retry(stop=stop_after_attempt(1))``: agenterr at least 10× cheaper, so ≤ 0.1.

Issue 6 adds the other retry decorators, with no target (informational rows):

4. stamina's ``@stamina.retry(on=Exception, attempts=1)``, active as in production (not
   in testing mode, which changes what it does). stamina runs on tenacity.
5. backoff's ``@backoff.on_exception(backoff.expo, Exception, max_tries=1)``.

And the async counterparts of 1 and 2, with the same targets: an ``async def`` tool under
each mode against a bare ``wrapt.FunctionWrapper`` whose wrapper is ``async def`` and awaits
the tool (the least an async wrapper that can see the tool's failures must do). The
coroutine is driven by hand (``send(None)`` until ``StopIteration``), so no event loop's
cost dilutes the ratio.

A retry package that is not installed gives a row with no times, ``met=None`` and the note
"not installed". Run: ``python benchmarks/bench_decorator.py`` (``--quick`` for a smoke run),
or ``python benchmarks/run.py bench_decorator``.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import wrapt

if str(Path(__file__).resolve().parent) not in sys.path:  # run as a script or loaded by path
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import compare, missing, row

from agenterr import Outcome, classified_tool

__all__ = ["TARGETS", "TENACITY_LIMIT", "main"]

TARGETS = {"raises": 1.3, "outcome": 1.8}
"""Upper bounds for the ratios against the bare wrapt pass-through (issue 3)."""
TENACITY_LIMIT = 0.1
"""agenterr's raises mode / tenacity: at least 10× cheaper (issue 3)."""

REPEATS = 21
"""Interleaved repeats per row (about 50 ms each side): the calls are about a microsecond."""

BARE = "bare wrapt.FunctionWrapper pass-through"


def _tool(x: int) -> int:
    return x


async def _async_tool(x: int) -> int:
    return x


def _passthrough(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
    return wrapped(*args, **kwargs)


async def _async_passthrough(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
    return await wrapped(*args, **kwargs)


def _drive(fn: Callable[[int], Coroutine[Any, Any, Any]]) -> Any:
    """Call an async tool and run its coroutine to the end without an event loop."""
    coroutine = fn(1)
    try:
        coroutine.send(None)
    except StopIteration as stop:
        return stop.value
    coroutine.close()
    raise AssertionError(f"{fn!r} suspended; the benchmark tools never await anything")


def _check(value: object) -> None:
    """Both sides of a row must succeed with the tool's value, or the timing means nothing."""
    if isinstance(value, Outcome):
        assert value.ok and value.value == 1, value
    else:
        assert value == 1, value


def _pair(
    name: str,
    ours: Callable[[], object],
    theirs: Callable[[], object],
    *,
    quick: bool,
    limit: float | None,
    target: str | None = None,
    note: str = "",
) -> dict[str, Any]:
    _check(ours())
    _check(theirs())
    ours_s, theirs_s = compare(ours, theirs, quick=quick, repeats=REPEATS)
    return row(name, ours_s, theirs_s, limit=limit, target=target, note=note)


def _retry_rows(raises: Callable[[int], object], quick: bool) -> list[dict[str, Any]]:
    """raises=True against tenacity (target), stamina and backoff (information)."""
    ours = functools.partial(raises, 1)
    rows: list[dict[str, Any]] = []
    tenacity_name = "raises=True vs tenacity @retry(stop=stop_after_attempt(1))"
    tenacity_target = f"≤ {TENACITY_LIMIT:g} (≥ {1 / TENACITY_LIMIT:g}× cheaper)"
    try:
        from tenacity import retry, stop_after_attempt
    except ImportError:
        rows.append(missing(tenacity_name, "tenacity", target=tenacity_target))
    else:
        tenacity_tool = retry(stop=stop_after_attempt(1))(_tool)
        rows.append(
            _pair(
                tenacity_name,
                ours,
                functools.partial(tenacity_tool, 1),
                quick=quick,
                limit=TENACITY_LIMIT,
                target=tenacity_target,
                note="tenacity builds a retry state and runs its strategy chain per call",
            )
        )

    stamina_name = "raises=True vs stamina.retry(on=Exception, attempts=1)"
    try:
        import stamina
    except ImportError:
        rows.append(missing(stamina_name, "stamina"))
    else:
        note = "stamina active (production mode); it runs on tenacity"
        if not stamina.is_active() or stamina.is_testing():
            note = "stamina NOT in production mode (deactivated or testing)"
        stamina_tool = stamina.retry(on=Exception, attempts=1)(_tool)
        rows.append(
            _pair(
                stamina_name,
                ours,
                functools.partial(stamina_tool, 1),
                quick=quick,
                limit=None,
                note=note,
            )
        )

    backoff_name = "raises=True vs backoff.on_exception(backoff.expo, Exception, max_tries=1)"
    try:
        import backoff
    except ImportError:
        rows.append(missing(backoff_name, "backoff"))
    else:
        backoff_tool = backoff.on_exception(backoff.expo, Exception, max_tries=1)(_tool)
        rows.append(
            _pair(
                backoff_name,
                ours,
                functools.partial(backoff_tool, 1),
                quick=quick,
                limit=None,
                note="per call: two clock reads, a wait generator, a details dict, handlers",
            )
        )
    return rows


def main(quick: bool = False) -> list[dict[str, Any]]:
    """Every decorator comparison as result rows; ``quick`` uses tiny loop counts."""
    bare = functools.partial(wrapt.FunctionWrapper(_tool, _passthrough), 1)
    raises = classified_tool(raises=True)(_tool)
    outcome = classified_tool(_tool)
    rows = [
        _pair(
            f"raises=True vs {BARE}",
            functools.partial(raises, 1),
            bare,
            quick=quick,
            limit=TARGETS["raises"],
        ),
        _pair(
            f"Outcome mode vs {BARE}",
            functools.partial(outcome, 1),
            bare,
            quick=quick,
            limit=TARGETS["outcome"],
            note="includes building the Outcome(ok=True, value=...)",
        ),
        *_retry_rows(raises, quick),
    ]

    async_bare = functools.partial(_drive, wrapt.FunctionWrapper(_async_tool, _async_passthrough))
    for mode, decorated in (
        ("raises=True", classified_tool(raises=True)(_async_tool)),
        ("Outcome mode", classified_tool(_async_tool)),
    ):
        limit = TARGETS["raises" if mode == "raises=True" else "outcome"]
        rows.append(
            _pair(
                f"async {mode} vs bare async wrapt.FunctionWrapper (awaits the tool)",
                functools.partial(_drive, decorated),
                async_bare,
                quick=quick,
                limit=limit,
                note="coroutine driven by send(None), no event loop",
            )
        )
    return rows


if __name__ == "__main__":
    from run import render

    quick_run = "--quick" in sys.argv[1:]
    print(render(main(quick=quick_run), quick=quick_run, chart=None))
