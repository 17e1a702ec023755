"""`agenterr demo`: offline, seeded, every reaction shown, colour only where it belongs."""

import io
import os
import re
import subprocess
import sys

import pytest

from agenterr._demo import run_demo

pytestmark = pytest.mark.external


def _demo(seed: int, color: bool = False) -> str:
    out = io.StringIO()
    assert run_demo(seed=seed, out=out, color=color) == 0
    return out.getvalue()


def _stable(text: str) -> str:
    """The transcript without what legitimately varies: the port and the elapsed time."""
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)
    return re.sub(r"\d+\.\ds\b", "Ts", text)


@pytest.mark.parametrize("seed", [1, 4])
def test_demo_shows_every_reaction(seed: int) -> None:
    """Retry after Retry-After, re-prompt with the hint, and escalate all appear."""
    text = _demo(seed)
    assert "RATE_LIMITED (transient, HTTP 429)" in text
    assert "→ retry unchanged after 1s (the server's Retry-After)" in text
    assert "SCHEMA_INVALID (self_correctable, no response)" in text
    assert "NOT_FOUND (self_correctable, HTTP 404)" in text
    assert "INVALID_REQUEST (self_correctable, HTTP 422)" in text
    assert "→ re-prompt the (scripted) model: The API could not find" in text
    assert "UNAUTHORIZED (auth, HTTP 401)" in text
    assert "→ escalate to a human: The API rejected this call as unauthorized" in text
    assert "agenterr: 3 of 4 tasks done" in text
    assert "retry every error instead:" in text and "re-prompt on every error instead:" in text
    assert "\x1b[" not in text


def test_demo_says_the_model_is_scripted() -> None:
    """Nobody should think an LLM ran: the header says a script stands in for it."""
    head = _demo(5).splitlines()[:3]
    assert any("the model is scripted: no LLM runs" in line for line in head)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_summary_states_the_waste_plainly(seed: int) -> None:
    """Each policy's waste is a number with its unit, and the numbers add up."""
    text = _demo(seed)
    ours = re.search(r"Wasted calls: (\d+)\. Wasted model turns: (\d+)\.", text)
    assert ours is not None and ours.groups() == ("0", "0")
    retry = re.search(
        r"retry every error instead: (\d+) wasted calls\. The (\d+) fixable and (\d+) auth", text
    )
    assert retry is not None
    wasted, fixable, auth = map(int, retry.groups())
    assert wasted == (fixable + auth) * 3 and wasted > 0
    reprompt = re.search(
        r"re-prompt on every error instead: (\d+) wasted model turns\. "
        r"The (\d+) transient and (\d+) auth",
        text,
    )
    assert reprompt is not None
    turns, transient, auth_again = map(int, reprompt.groups())
    assert turns == transient + auth_again and auth_again == auth and turns > 0


def test_demo_is_reproducible() -> None:
    """The same seed gives the same transcript."""
    assert _stable(_demo(7)) == _stable(_demo(7))


def test_slow_answers_time_out() -> None:
    """A seed that injects a slow answer shows a client-side TIMEOUT and a retry."""
    texts = [_demo(seed) for seed in range(4)]
    assert any("TIMEOUT (transient, no response)" in t for t in texts)


def test_color_on_request() -> None:
    """Colour codes appear only when asked for (or on a terminal)."""
    assert "\x1b[1m" in _demo(1, color=True)


def test_urllib_when_httpx_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without httpx the demo calls the API through urllib and still shows every reaction."""
    monkeypatch.setitem(sys.modules, "httpx", None)
    text = _demo(2)
    assert "called through urllib" in text
    assert "NOT_FOUND (self_correctable, HTTP 404)" in text
    assert "UNAUTHORIZED (auth, HTTP 401)" in text


def test_cli_demo_respects_no_color() -> None:
    """`agenterr demo` runs from the command line; NO_COLOR keeps it plain."""
    done = subprocess.run(
        [sys.executable, "-m", "agenterr", "demo", "--seed", "3"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=os.environ | {"NO_COLOR": "1"},
    )
    assert "agenterr demo — seed 3" in done.stdout
    assert "\x1b[" not in done.stdout
    assert done.stderr == ""


@pytest.mark.parametrize("client", ["httpx", "urllib"])
def test_demo_ignores_proxies_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, client: str
) -> None:
    """A proxy in the environment (here a dead one) never sees the demo's 127.0.0.1 calls."""
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    if client == "urllib":
        monkeypatch.setitem(sys.modules, "httpx", None)
    text = _demo(1)
    assert f"called through {client}" in text
    assert "CONNECTION_FAILED" not in text and "gave up retrying" not in text
    assert "RATE_LIMITED (transient, HTTP 429)" in text
    assert "NOT_FOUND (self_correctable, HTTP 404)" in text
    assert "UNAUTHORIZED (auth, HTTP 401)" in text
    assert "agenterr: 3 of 4 tasks done" in text
