"""Smoke-run the decorator benchmark so it never rots (row structure only, no timing asserts)."""

from __future__ import annotations

import importlib.util
import math
from typing import Any

import pytest

from ._bench import load_benchmark


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = load_benchmark("bench_decorator").main(quick=True)
    return result


def _one(rows: list[dict[str, Any]], *words: str) -> dict[str, Any]:
    (found,) = [r for r in rows if all(w in r["name"] for w in words)]
    return found


def test_rows_are_well_formed(rows: list[dict[str, Any]]) -> None:
    """Every row is a result row; a missing retry package degrades to a 'not installed' row."""
    names = [r["name"] for r in rows]
    assert len(names) == len(set(names)) == 7
    for r in rows:
        assert isinstance(r["target"], str) and r["target"]
        assert isinstance(r["note"], str)
        if r["agenterr_s"] is None:
            assert r["met"] is None and r["note"].endswith("not installed"), r
            continue
        for key in ("agenterr_s", "baseline_s"):
            assert isinstance(r[key], float) and math.isfinite(r[key]) and r[key] > 0, r
        assert r["ratio"] == pytest.approx(r["agenterr_s"] / r["baseline_s"])
        assert r["met"] is None or isinstance(r["met"], bool)


def test_issue_targets_have_rows(rows: list[dict[str, Any]]) -> None:
    """raises ≤ 1.3, Outcome ≤ 1.8 (sync and async) and tenacity ≤ 0.1 carry verdicts."""
    expected = {
        ("raises=True", "bare wrapt"): "≤ 1.3",
        ("Outcome mode", "bare wrapt"): "≤ 1.8",
        ("async raises=True",): "≤ 1.3",
        ("async Outcome mode",): "≤ 1.8",
    }
    for words, target in expected.items():
        found = _one([r for r in rows if r["name"].startswith(words[0])], *words)
        assert found["target"] == target and isinstance(found["met"], bool), found
    tenacity = _one(rows, "tenacity")
    assert tenacity["target"].startswith("≤ 0.1")
    assert isinstance(tenacity["met"], bool)  # tenacity is in the test extra


@pytest.mark.parametrize("package", ["stamina", "backoff"])
def test_other_retry_packages(rows: list[dict[str, Any]], package: str) -> None:
    """stamina and backoff are informational rows, measured whenever they are installed."""
    found = _one(rows, package)
    assert found["target"] == "info" and found["met"] is None
    if importlib.util.find_spec(package) is None:
        assert found["note"] == f"{package} not installed"
    else:
        assert found["ratio"] > 0


def test_stamina_is_measured_in_production_mode(rows: list[dict[str, Any]]) -> None:
    """stamina's row times its real success path: active, not in testing mode."""
    stamina = pytest.importorskip("stamina")
    assert stamina.is_active() and not stamina.is_testing()
    assert "production mode" in _one(rows, "stamina")["note"]
    assert "NOT" not in _one(rows, "stamina")["note"]


def test_runner_discovers_the_suite() -> None:
    """run.py picks the suite up with the others."""
    assert "bench_decorator" in load_benchmark("run").discover()
