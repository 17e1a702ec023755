"""Smoke-run the body benchmarks so they never rot (no timing asserts)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from agenterr import from_status

from ._bench import load_benchmark


@pytest.fixture(scope="module")
def bench() -> Any:
    return load_benchmark("bench_body")


@pytest.fixture(scope="module")
def rows(bench: Any) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = bench.main(quick=True)
    return result


def test_rows_are_well_formed(rows: list[dict[str, Any]]) -> None:
    """Every row has a unique name, positive finite times, their ratio and a verdict."""
    names = [r["name"] for r in rows]
    assert len(names) == len(set(names))
    for r in rows:
        for key in ("agenterr_s", "baseline_s"):
            assert isinstance(r[key], float) and math.isfinite(r[key]) and r[key] > 0, r
        assert r["ratio"] == pytest.approx(r["agenterr_s"] / r["baseline_s"])
        assert r["met"] is None or isinstance(r["met"], bool)
        assert isinstance(r["note"], str)


def test_issue_targets_have_their_rows(rows: list[dict[str, Any]]) -> None:
    """The two ratios of issues 11 and 22 are present, with their bounds, and carry a verdict."""
    targeted = {r["name"]: r for r in rows if r["met"] is not None}
    assert len(targeted) == 2
    (typical,) = [r for n, r in targeted.items() if "json.loads" in n]
    (stream,) = [r for n, r in targeted.items() if "classify --jsonl" in n]
    assert typical["limit"] == 12 and typical["target"] == "≤ 12"
    assert stream["limit"] == 5 and stream["target"] == "≤ 5"
    # One informational row per body, the quoting floor, the command's own overhead, the
    # whole-process run.
    assert len(rows) == len(load_benchmark("bench_body").BODIES) + 5
    (floor,) = [r for r in rows if r["name"].startswith("the floor:")]
    assert floor["met"] is None


def test_bodies_are_typical(bench: Any) -> None:
    """10 to 20 bodies of at most 1 KiB from the providers the issue names, each a failure."""
    bodies = bench.BODIES
    assert 10 <= len(bodies) <= 20
    names = " ".join(b.name for b in bodies)
    for provider in (
        "OpenAI",
        "Anthropic",
        "Google",
        "AWS JSON",
        "XML",
        "Azure",
        "Stripe",
        "Slack",
        "GitHub",
        "JSON-RPC",
        "problem+json",
    ):
        assert provider in names
    for b in bodies:
        assert len(b.body.encode()) <= 1024 and b.headers
        assert from_status(b.status, b.body, headers=b.headers).failed


def test_jsonl_lines_are_requests(bench: Any) -> None:
    """The stream is request objects of SPEC §9.2, cycling through the bodies."""
    lines = bench.jsonl_lines(len(bench.BODIES) + 1).decode().splitlines()
    first, *_, last = (json.loads(line) for line in lines)
    assert first == last
    assert set(first) == {"status", "headers", "body"}
