"""The README's interactive examples are true."""

import doctest
import functools
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import tenacity

import agenterr

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def test_readme_doctests() -> None:
    """Every ```python block written as a session (>>>) prints what it claims."""
    blocks = [b for b in re.findall(r"```python\n(.*?)```", README, re.S) if ">>>" in b]
    assert blocks, "the README shows at least one interactive example"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, {"agenterr": agenterr}, f"README[{i}]", "README.md", 0)
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_readme_names_the_two_setup_commands() -> None:
    """The first screen shows how to run the tests and the demo."""
    first_screen = README[:2500]
    assert 'pip install -e ".[test]" && pytest' in first_screen
    assert "pip install . && " in first_screen


# --- the README's code blocks that are not sessions ----------------------------------------


def code_blocks() -> list[str]:
    return [b for b in re.findall(r"```python\n(.*?)```", README, re.S) if ">>>" not in b]


def block_with(text: str) -> str:
    found = [b for b in code_blocks() if text in b]
    assert len(found) == 1, f"one README block contains {text!r}"
    return found[0]


def test_every_python_block_is_valid_python() -> None:
    """Every non-session block at least compiles (a typo in an example is a bug)."""
    blocks = code_blocks()
    assert len(blocks) > 5
    for block in blocks:
        compile(block, "README.md", "exec")


@pytest.mark.parametrize(
    ("status", "headers", "branch"),
    [
        (200, {}, "done"),
        (429, {"Retry-After": "3"}, "sleep 3.0"),
        (429, {"Retry-After": "0"}, "sleep 0.0"),  # "retry now" is advice, not its absence
        (503, {"Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"}, "sleep 0.0"),  # a past date
        (503, {}, "sleep backoff"),
        (404, {}, "hint"),
        (401, {}, "escalate"),
    ],
)
def test_first_example_branches_by_class(status: int, headers: dict[str, str], branch: str) -> None:
    """The first example, run on a real httpx response, takes the branch its comments say."""
    block = block_with("out = agenterr.from_response(response)")
    taken: list[str] = []
    namespace: dict[str, Any] = {
        "response": httpx.Response(status, headers=headers, json={"error": "x"}),
        "sleep": lambda seconds: taken.append(f"sleep {seconds}"),
        "backoff": lambda: "backoff",
        "messages": [],
        "tool_message": lambda hint: taken.append("hint") or hint,
        "escalate": lambda out: taken.append("escalate"),
    }
    exec(
        block.replace("...  # 2xx: done", "taken.append('done')  # 2xx: done"),
        namespace | {"taken": taken},
    )
    assert taken == [branch]


def _run_decorator_example(
    monkeypatch: pytest.MonkeyPatch, responses: list[httpx.Response], arguments: dict[str, Any]
) -> tuple[dict[str, Any], list[float], list[httpx.Request]]:
    """Run the README's decorator block against a mock API; tenacity's sleep hook records
    the waits instead of sleeping."""
    block = block_with("@classified_tool(raises=True)  # the value on success")
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return responses.pop(0)

    def get(url: str, **kwargs: Any) -> httpx.Response:
        with httpx.Client(transport=httpx.MockTransport(handler)) as client:
            return client.get(url, **kwargs)

    waits: list[float] = []
    monkeypatch.setattr(httpx, "get", get)
    monkeypatch.setattr(tenacity, "retry", functools.partial(tenacity.retry, sleep=waits.append))
    namespace: dict[str, Any] = {"model_arguments": arguments, "escalate": print}
    exec(block, namespace)
    return namespace, waits, requests


@pytest.mark.parametrize("seconds", [1, 7])
def test_decorator_example_waits_the_retry_after(
    monkeypatch: pytest.MonkeyPatch, seconds: int
) -> None:
    """A 429 with ``Retry-After`` is retried after the server's delay, not the backoff's."""
    namespace, waits, requests = _run_decorator_example(
        monkeypatch,
        [
            httpx.Response(429, headers={"Retry-After": str(seconds)}),
            httpx.Response(200, json={"city": "Paris", "high": 21}),
        ],
        {"city": "Paris"},
    )
    assert waits == [float(seconds)]
    assert len(requests) == 2
    assert namespace["outcome"].ok
    assert namespace["reply"] == {"city": "Paris", "high": 21}


def test_decorator_example_hint_names_the_bad_argument(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comment's hint is the real one: a hallucinated argument never reaches the API."""
    namespace, waits, requests = _run_decorator_example(monkeypatch, [], {"town": "Paris"})
    assert waits == []
    assert requests == []
    assert "unexpected argument 'town'" in namespace["reply"]
    assert "city: str (required), days: int" in namespace["reply"]


@pytest.mark.parametrize("advised", [0, 7, 30, 31, 3600])
def test_decorator_example_never_retries_before_the_server_asked(
    monkeypatch: pytest.MonkeyPatch, advised: int
) -> None:
    """The first tenacity example: a Retry-After within its limit is waited exactly; a
    longer one (an hour) ends the retries at once instead of retrying after the limit."""
    namespace, waits, requests = _run_decorator_example(
        monkeypatch,
        [
            httpx.Response(429, headers={"Retry-After": str(advised)}),
            httpx.Response(200, json={"city": "Paris", "high": 21}),
        ],
        {"city": "Paris"},
    )
    outcome = namespace["outcome"]
    if advised <= 30:
        assert waits == [float(advised)] and len(requests) == 2 and outcome.ok
    else:
        assert waits == [] and len(requests) == 1
        assert outcome.code is agenterr.Code.RATE_LIMITED and outcome.retry_after == advised


@pytest.mark.parametrize("advised", [7, 31, 3600])
def test_tenacity_section_example_never_retries_before_the_server_asked(
    monkeypatch: pytest.MonkeyPatch, advised: int
) -> None:
    """The tenacity section's example, run: the same guarantee, with its logging hook."""
    block = block_with("**retry_policy(max_wait=30),  # transient only")
    answers = [
        httpx.Response(429, headers={"Retry-After": str(advised)}),
        httpx.Response(200, json={"high": 21}),
    ]

    def get(url: str, **kwargs: Any) -> httpx.Response:
        transport = httpx.MockTransport(lambda request: answers.pop(0))
        with httpx.Client(transport=transport) as client:
            return client.get(url, **kwargs)

    waits: list[float] = []
    monkeypatch.setattr(httpx, "get", get)
    monkeypatch.setattr(tenacity, "retry", functools.partial(tenacity.retry, sleep=waits.append))
    namespace: dict[str, Any] = {"__name__": "readme"}
    exec(block, namespace)
    if advised <= 30:
        assert namespace["get_forecast"]("Paris") == {"high": 21}
        assert waits == [float(advised)]
    else:
        with pytest.raises(httpx.HTTPStatusError):
            namespace["get_forecast"]("Paris")
        assert waits == [] and len(answers) == 1


def test_the_one_line_policies_are_what_the_readme_and_examples_use() -> None:
    """No README block or example combines the strategies by hand: a wait limit written
    without its stop (or the other way round) retries before the server asked."""
    examples = Path(__file__).parent.parent / "examples"
    texts = {"README.md": "\n".join(code_blocks())} | {
        path.name: path.read_text(encoding="utf-8") for path in examples.glob("*.py")
    }
    for name, text in texts.items():
        assert "wait_retry_after(" not in text, name
        assert "stop_if_retry_after_exceeds(" not in text, name
        assert "retry_if_exception_type(TransientToolError)" not in text, name
        if "tenacity" in text and "retry(" in text:
            assert "retry_policy(" in text, name
        if "stamina.retry" in text:
            assert "retry_policy(" in text, name
