"""The hint-length benchmark: its rows, and what they must show (lengths, not times)."""

from __future__ import annotations

from typing import Any

import pytest

from agenterr import _quote

from ._bench import load_benchmark


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = load_benchmark("bench_hints").main(quick=True)
    return result


def test_rows_are_well_formed(rows: list[dict[str, Any]]) -> None:
    """Median and 95th percentile, over every response and over the markup pages."""
    assert [r["name"] for r in rows] == [
        "hint length, median, every corpus response",
        "hint length, 95th percentile, every corpus response",
        "hint length, median, HTML and XML error pages",
        "hint length, 95th percentile, HTML and XML error pages",
    ]
    for r in rows:
        assert r["met"] is None and r["target"] == "info"
        assert "→" in r["note"]


def test_markup_pages_get_shorter_hints(rows: list[dict[str, Any]]) -> None:
    """Quoting an error page as its text saves the model tokens; nothing else grows."""
    markup = [r for r in rows if "markup" in r["name"] or "HTML" in r["name"]]
    assert all(r["ratio"] < 0.9 for r in markup)
    assert all(r["ratio"] <= 1.0 for r in rows)


def test_the_before_run_restores_quoting() -> None:
    """Measuring "before" swaps the markup test out and puts it back."""
    original = _quote.is_markup
    before = load_benchmark("bench_hints").hint_lengths(markup_as_text=False)
    assert _quote.is_markup is original
    assert before[1] and len(before[0]) > len(before[1])
