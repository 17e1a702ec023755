"""Smoke test: the decorator benchmark runs end to end and reports its numbers."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_decorator.py"


def test_quick_run_reports_every_measure(capsys: pytest.CaptureFixture[str]) -> None:
    """main(quick=True) prints and returns per-call times and the three ratios."""
    spec = importlib.util.spec_from_file_location("bench_decorator", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results = module.main(quick=True)
    for key in ("raises / bare", "outcome / bare", "tenacity / raises", "bare wrapt ns"):
        assert results[key] > 0
    assert "targets:" in capsys.readouterr().out
