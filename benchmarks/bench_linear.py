"""Linear-time benchmarks: doubling a hostile input at most doubles the time (issue 24).

Each row times one path on a hostile input of size 2n against the same path at size n,
interleaved in one run (``bench_body.compare``), and reports the ratio: 2 is linear, 4
quadratic. The target is ≤ 2.5 (doubling, plus the machine's noise). Where a path is bounded
by a cap (the schema problems listed, the hint items kept, the members of an exception group
shown), the ratio is about 1.

The inputs are those of the audit: a window of ``xpwd:`` (every key start refused), cookie
headers whose values are no cookies, schema problems, hints with hundreds of list items,
a megabyte wire object and MCP result, an exception group of thousands of members logged,
and the JSONL stream of ``agenterr classify --jsonl``.

``tests/test_linear.py`` asserts the same properties by counting work, never by timing.

Run ``python benchmarks/run.py bench_linear``, or ``python benchmarks/bench_linear.py``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_body import _row, compare

from agenterr import Code, Outcome, from_status, schema_invalid
from agenterr._cli import answer_line
from agenterr._policy import traceback_text
from agenterr.integrations.mcp import from_call_tool_result

__all__ = ["DOUBLING_LIMIT", "main"]

DOUBLING_LIMIT = 2.5
"""Issue 24: the time at 2n within 2.5× the time at n (linear, plus noise)."""


def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _group(members: int) -> BaseException:
    errors: list[Exception] = []
    for number in range(members):
        try:
            raise ValueError(f"{_repeat('xpwd:', 400)} {number}")
        except ValueError as exc:
            errors.append(exc)
    return ExceptionGroup("many", errors)


def _mcp_result(size: int) -> dict[str, Any]:
    hint = _repeat("\n- " + "xpwd:" * 60, size)
    wire = {"ok": False, "code": "UNAVAILABLE", "retryable": True, "llm_hint": hint}
    return {"isError": True, "content": [{"type": "text", "text": hint}], "structuredContent": wire}


def _jsonl(count: int) -> list[bytes]:
    hostile = _repeat("xpwd:", 8192)
    return [
        json.dumps({"status": 400, "body": hostile}).encode(),
        json.dumps({"status": 401, "body": _repeat("Cookie:", 8192)}).encode(),
    ] * (count // 2)


def _cases() -> list[tuple[str, Callable[[int], Callable[[], object]], int]]:
    """(name, a path at size n as a thunk, n)."""

    def redact(unit: str) -> Callable[[int], Callable[[], object]]:
        def at(n: int) -> Callable[[], object]:
            text = _repeat(unit, n)
            return lambda: redact(text)

        return at

    def status(n: int) -> Callable[[], object]:
        body = _repeat("xpwd:", n)
        return lambda: from_status(400, body)

    def schema(n: int) -> Callable[[], object]:
        problems = [_repeat("xpwd:", 4096)] * n
        return lambda: schema_invalid(*problems)

    def items(n: int) -> Callable[[], object]:
        hint = "lead" + ("\n- " + _repeat("xpwd:", 300)) * n
        return lambda: Outcome(Code.UNKNOWN, hint)

    def wire(n: int) -> Callable[[], object]:
        data = {"ok": False, "code": "UNKNOWN", "llm_hint": _repeat("\n- " + "xpwd:" * 60, n)}
        return lambda: Outcome.from_dict(data)

    def mcp(n: int) -> Callable[[], object]:
        result = _mcp_result(n)
        return lambda: from_call_tool_result(result)

    def group(n: int) -> Callable[[], object]:
        error = _group(n)
        return lambda: traceback_text(error)

    def jsonl(n: int) -> Callable[[], object]:
        lines = _jsonl(n)
        return lambda: [answer_line(number, line) for number, line in enumerate(lines)]

    return [
        ("redaction, refused key starts (xpwd:…)", redact("xpwd:"), 4096),
        ("redaction, refused key starts (xsecret=…)", redact("xsecret="), 4096),
        ("redaction, cookie headers without a cookie (cookie:…)", redact("cookie:"), 4096),
        ("from_status(400, xpwd:…)", status, 4096),
        ("schema_invalid, hostile problems (5 → 10)", schema, 5),
        ("Outcome(…), hint list items (200 → 400)", items, 200),
        ("Outcome.from_dict, wire hint (0.5 → 1 MB)", wire, 1 << 19),
        ("MCP from_call_tool_result (0.5 → 1 MB)", mcp, 1 << 19),
        ("ExceptionGroup logged (1,000 → 2,000 members)", group, 1000),
        ("classify --jsonl answers, hostile lines (50 → 100)", jsonl, 50),
    ]


def main(quick: bool = False) -> list[dict[str, Any]]:
    """One row per path: the time at 2n over the time at n."""
    rows = []
    for name, path, size in _cases():
        small, large = path(size), path(2 * size)
        large_s, small_s = compare(large, small, quick=quick)
        rows.append(
            _row(
                f"doubling: {name}",
                large_s,
                small_s,
                limit=DOUBLING_LIMIT,
                note="2n against n; 2 is linear, 4 quadratic",
            )
        )
    return rows


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from run import render

    quick_run = "--quick" in sys.argv[1:]
    print(render(main(quick=quick_run), quick=quick_run, chart=None))
