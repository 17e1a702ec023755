"""Every script in examples/ runs offline and exits cleanly."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path: Path) -> None:
    """The example exits 0 within a few seconds and prints something."""
    result = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()


def test_quickstart_reacts_by_class() -> None:
    """The quick start shows one reaction per class."""
    out = subprocess.run(
        [sys.executable, str(EXAMPLES[0].parent / "quickstart.py")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert "-> done" in out
    assert "-> retry unchanged after 2s" in out
    assert "-> re-prompt the model: The API rejected this call as invalid (HTTP 422)." in out
    assert "-> escalate (UNAUTHORIZED)" in out
