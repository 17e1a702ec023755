"""How long the hints are that a model reads: median and 95th percentile over the corpus.

Every response of ``tests/corpus`` (the in-sample files and both held-out sets) is classified
as ``tests/test_corpus.py`` classifies it, and the length of its ``llm_hint`` is taken in
characters. "Before" is the same run with HTML and XML quoted as markup, as agenterr did before
SPEC 3.0 (``_quote.is_markup`` answering "no markup"); "after" is today's quoting, which keeps an
error page's text and drops its tags. The rows carry no times: the note says the lengths, and
the ratio is after / before. ``tests/test_quote.py`` checks, page by page, that the words a
model needs (title, heading, error code and message) survive.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"

__all__ = ["hint_lengths", "main"]


def _responses() -> list[dict[str, Any]]:
    return [
        entry["response"]
        for path in sorted(CORPUS.glob("*.json"))
        for entry in json.loads(path.read_text(encoding="utf-8"))["entries"]
    ]


def _hint(response: dict[str, Any]) -> str:
    from agenterr import from_envelope, from_status, succeeded

    if succeeded(response["status"]):
        return from_envelope(response["body"], headers=response["headers"]).llm_hint
    return from_status(response["status"], response["body"], headers=response["headers"]).llm_hint


@contextmanager
def _markup_quoted_raw() -> Iterator[None]:
    from agenterr import _quote

    original = _quote.is_markup
    _quote.is_markup = lambda text: False
    try:
        yield
    finally:
        _quote.is_markup = original


def hint_lengths(markup_as_text: bool = True) -> tuple[list[int], list[int]]:
    """Hint lengths over every corpus response, and over those whose body is markup."""
    from agenterr import _quote

    responses = _responses()
    markup = [
        r for r in responses if isinstance(r["body"], str) and _quote.is_markup(r["body"][:4096])
    ]
    if markup_as_text:
        return [len(_hint(r)) for r in responses], [len(_hint(r)) for r in markup]
    with _markup_quoted_raw():
        return [len(_hint(r)) for r in responses], [len(_hint(r)) for r in markup]


def _p95(values: list[int]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def _row(name: str, before: float, after: float, count: int) -> dict[str, Any]:
    return {
        "name": name,
        "ratio": after / before,
        "target": "info",
        "met": None,
        "note": f"{before:.0f} → {after:.0f} characters over {count} hints (ratio: after / before)",
    }


def main(quick: bool = False) -> list[dict[str, Any]]:
    """Rows for the median and 95th-percentile hint length, before and after."""
    before_all, before_markup = hint_lengths(markup_as_text=False)
    after_all, after_markup = hint_lengths(markup_as_text=True)
    rows = [
        _row(
            "hint length, median, every corpus response",
            statistics.median(before_all),
            statistics.median(after_all),
            len(after_all),
        ),
        _row(
            "hint length, 95th percentile, every corpus response",
            _p95(before_all),
            _p95(after_all),
            len(after_all),
        ),
    ]
    if after_markup:
        rows += [
            _row(
                "hint length, median, HTML and XML error pages",
                statistics.median(before_markup),
                statistics.median(after_markup),
                len(after_markup),
            ),
            _row(
                "hint length, 95th percentile, HTML and XML error pages",
                _p95(before_markup),
                _p95(after_markup),
                len(after_markup),
            ),
        ]
    return rows


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from run import render

    print(render(main(), quick=False, chart=None))
