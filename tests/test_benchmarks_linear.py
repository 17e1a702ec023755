"""Smoke-run the linear-time benchmarks so they never rot (no timing asserts)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from ._bench import load_benchmark


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = load_benchmark("bench_linear").main(quick=True)
    return result


def test_rows_are_well_formed(rows: list[dict[str, Any]]) -> None:
    names = [r["name"] for r in rows]
    assert len(names) == len(set(names))
    for r in rows:
        for key in ("agenterr_s", "baseline_s"):
            assert isinstance(r[key], float) and math.isfinite(r[key]) and r[key] > 0, r
        assert r["ratio"] == pytest.approx(r["agenterr_s"] / r["baseline_s"])
        assert isinstance(r["met"], bool)


def test_every_path_of_the_issue_has_its_doubling_row(rows: list[dict[str, Any]]) -> None:
    """Issue 24: one doubling ratio per path, each with the target ≤ 2.5."""
    names = " ".join(r["name"] for r in rows)
    for path in (
        "redaction, refused key starts",
        "cookie headers",
        "from_status",
        "schema_invalid",
        "Outcome(…), hint list items",
        "Outcome.from_dict",
        "MCP from_call_tool_result",
        "ExceptionGroup logged",
        "classify --jsonl",
    ):
        assert path in names, path
    assert all(r["name"].startswith("doubling: ") for r in rows)
    assert {(r["target"], r["limit"]) for r in rows} == {("≤ 2.5", 2.5)}
