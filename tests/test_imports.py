"""``import agenterr`` stays light: none of the optional integrations' packages load."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

HEAVY = ("httpx", "httpx2", "requests", "aiohttp", "tenacity", "pydantic", "urllib3")

pytestmark = pytest.mark.external

_PROBE = """
import sys, json
{statement}
print(json.dumps(sorted({{m.partition(".")[0] for m in sys.modules}} & set(sys.argv[1:]))))
"""


def _heavy_loaded_after(statement: str) -> list[str]:
    """The heavy packages a fresh interpreter has loaded after running ``statement``."""
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(statement=statement), *HEAVY],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    loaded: list[str] = json.loads(out.stdout)
    return loaded


@pytest.mark.parametrize(
    "statement",
    [
        "import agenterr",
        "from agenterr import *",
        "import agenterr.errors",
        "from agenterr import classify, from_error, from_response, from_status",
    ],
)
def test_import_loads_no_heavy_package(statement: str) -> None:
    """A fresh interpreter that imports agenterr has none of the heavy packages loaded."""
    assert _heavy_loaded_after(statement) == []


def test_classifying_loads_no_heavy_package() -> None:
    """Classifying statuses, headers, bodies and errors does not import them either."""
    statement = (
        "import agenterr\n"
        "agenterr.from_status(429, b'{}', headers={'Retry-After': '2'})\n"
        "agenterr.from_error(TimeoutError('slow'))\n"
        "agenterr.from_response(object())\n"
    )
    assert _heavy_loaded_after(statement) == []


def test_decorator_loads_on_first_use() -> None:
    """wrapt (and the asyncio it imports) load only when classified_tool is first used."""
    probe = (
        "import sys, agenterr\n"
        "before = {'wrapt', 'asyncio'} & set(sys.modules)\n"
        "tool = agenterr.classified_tool\n"
        "print(sorted(before), 'wrapt' in sys.modules, tool.__module__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["[]", "True", "agenterr._decorator"]
