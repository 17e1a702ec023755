"""Smoke-run the agent-loop simulation so it never rots (structure and sanity, no timing)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ._bench import load_benchmark


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_benchmark("bench_agent_loop")


@pytest.fixture(scope="module")
def rows(bench: ModuleType) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = bench.main(quick=True)
    return result


def _by_policy(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["policy"]: r for r in rows}


def test_every_policy_ran_the_same_tasks(bench: ModuleType, rows: list[dict[str, Any]]) -> None:
    assert [r["policy"] for r in rows] == list(bench.POLICIES)
    assert len({r["name"] for r in rows}) == len(rows)
    assert {r["tasks"] for r in rows} == {bench.QUICK_TASKS}
    assert len({r["tasks_digest"] for r in rows}) == 1
    assert len({r["auth_fault_tasks"] for r in rows}) == 1


def test_counts_are_non_negative_and_add_up(bench: ModuleType, rows: list[dict[str, Any]]) -> None:
    for r in rows:
        for key, _label in bench.METRICS:
            value = r[key]
            if key in ("wait_s", "wall_s"):
                assert isinstance(value, float) and value >= 0, (key, r)
            else:
                assert isinstance(value, int) and not isinstance(value, bool), (key, r)
                assert value >= 0, (key, r)
        ended = (
            r["completed"]
            + r["completed_altered"]
            + r["escalated_correct"]
            + r["escalated_wrong"]
            + r["failed"]
        )
        assert ended == r["tasks"], r
        assert r["failed"] == r["capped_retry"] + r["capped_reprompt"], r
        assert r["reprompts_wasted"] <= r["reprompts"], r
        assert r["payloads_changed"] <= r["reprompts"], r
        assert r["tool_calls"] >= r["tasks"], r
        assert r["wall_s"] >= r["wait_s"], r
        # run.py's row convention: an informational row with a name and a note.
        assert r["target"] == "info" and r["met"] is None and isinstance(r["note"], str)


def test_policies_behave_as_defined(rows: list[dict[str, Any]]) -> None:
    p = _by_policy(rows)
    # agenterr never re-prompts on a transient or auth failure, so never corrupts a payload.
    assert p["agenterr"]["reprompts_wasted"] == 0
    assert p["agenterr"]["payloads_changed"] == 0
    assert p["agenterr"]["completed_altered"] == 0
    # retry-all never asks the model; reprompt-all never waits.
    assert p["retry-all"]["reprompts"] == 0
    assert p["retry-all"]["capped_reprompt"] == 0
    assert p["reprompt-all"]["wait_s"] == 0
    assert p["reprompt-all"]["capped_retry"] == 0
    # Only agenterr escalates.
    for name in ("retry-all", "reprompt-all", "status-only"):
        assert p[name]["escalated_correct"] == p[name]["escalated_wrong"] == 0


def test_deterministic(bench: ModuleType, rows: list[dict[str, Any]]) -> None:
    assert bench.main(quick=True) == rows


def test_parameters_are_documented(bench: ModuleType) -> None:
    import dataclasses

    for f in dataclasses.fields(bench.Params):
        assert isinstance(f.metadata.get("why"), str) and f.metadata["why"], f.name


def test_outputs_render(bench: ModuleType, rows: list[dict[str, Any]], tmp_path: Path) -> None:
    """The Markdown table has one line per metric and the SVG is well-formed XML."""
    params = bench.Params(tasks=bench.QUICK_TASKS)
    md, svg = tmp_path / "agent_loop.md", tmp_path / "agent_loop.svg"
    runs = [("as above", rows)]
    bench.write(rows, params, markdown=md, svg=svg, runs=runs)
    document = md.read_text(encoding="utf-8")
    assert "](agent_loop.svg)" in document
    table = bench.render_table(rows)
    assert table in document
    assert len(table.splitlines()) == len(bench.METRICS) + 2
    root = ET.fromstring(svg.read_text(encoding="utf-8"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    rects = root.findall("{http://www.w3.org/2000/svg}rect")
    assert len(rects) == 1 + len(rows) + len(bench.CHART) * len(rows)
