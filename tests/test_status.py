"""The status table as data (``agenterr._status``): every status has one deciding row, the
rows say what they cover, and the classifier gives each status its row's code."""

from __future__ import annotations

import re

import pytest

from agenterr import Code, code_for_status, from_status
from agenterr._status import STATUS_ROW_OF, STATUS_TABLE, StatusRow, as_status


def _spans(statuses: list[int]) -> str:
    """``418, 419, 420, 424`` → ``418–420, 424`` (the table's way of writing them)."""
    spans: list[list[int]] = []
    for status in statuses:
        if spans and spans[-1][1] == status - 1:
            spans[-1][1] = status
        else:
            spans.append([status, status])
    return ", ".join(
        f"{a}–{b}" if b > a + 1 else (f"{a}, {b}" if b > a else f"{a}") for a, b in spans
    )


def test_every_status_from_100_to_599_has_a_deciding_row() -> None:
    assert all(STATUS_ROW_OF[status] is not None for status in range(100, 600))


def test_anchors_are_unique_and_named_after_the_statuses() -> None:
    anchors = [row.anchor for row in STATUS_TABLE]
    assert len(anchors) == len(set(anchors))
    assert all(re.fullmatch(r"status-row-[0-9a-z-]+", anchor) for anchor in anchors)


@pytest.mark.parametrize("row", [r for r in STATUS_TABLE if r.covers], ids=lambda r: r.anchor)
def test_each_row_decides_what_it_names(row: StatusRow) -> None:
    """A row's label lists exactly the statuses it decides (narrower rows win the rest)."""
    decided = [s for s in range(100, 600) if STATUS_ROW_OF[s] is row]
    assert decided, "a row that decides nothing"
    label = row.statuses
    if label.startswith("other "):
        assert label == f"other 4xx ({_spans(decided)})"
    else:
        first, _, last = label.split(" ")[0].partition("–")
        assert (decided[0], decided[-1]) == (int(first), int(last or first))
        assert decided == list(range(decided[0], decided[-1] + 1))


def test_overlapping_rows_are_one_wide_and_one_narrow() -> None:
    """Only two kinds of overlap: a single status inside a range; never two ranges."""
    ranges = [r.covers for r in STATUS_TABLE if len(r.covers) > 1]
    for i, a in enumerate(ranges):
        for b in ranges[i + 1 :]:
            assert a.stop <= b.start or b.stop <= a.start, (a, b)


@pytest.mark.parametrize("status", range(100, 600))
def test_the_classifier_gives_the_rows_code(status: int) -> None:
    row = STATUS_ROW_OF[status]
    assert row is not None
    assert code_for_status(status) is row.code
    assert from_status(status).code is row.code


def test_the_rows_outside_100_to_599() -> None:
    outside = {r.anchor: r for r in STATUS_TABLE if not r.covers}
    assert set(outside) == {"status-row-0", "status-row-other-integer", "status-row-non-integer"}
    for status in (0, -1, 99, 600, True, "404", 404.5, None):
        assert code_for_status(status) is Code.UNKNOWN, status
    assert as_status(True) is None
