"""Linear work on hostile input (issue 24): doubling an input at most doubles the work.

No timing is asserted here. Work is counted deterministically instead:

- in the redaction gate, the characters each regular-expression call of a rule reads at
  least (from where the call starts to where its match ends, or to the end of the text
  when there is none): a search that is resumed one character after a refused key start
  and scans the same value again counts that value again;
- on the paths above the gate (schema problems, hints given to ``Outcome``, wire objects,
  MCP results, logged exception groups, the CLI's JSONL stream), the characters handed to
  the gate, which is linear in them (the first test), and the size of what comes out.

``benchmarks/bench_linear.py`` times the same inputs at n and 2n, as a ratio.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import agenterr._quote as quote
from agenterr import Code, Outcome, from_status, schema_invalid
from agenterr._outcome import HINT_CAP, HINT_ITEMS

# Repetitions that made the gate rescan: a key start refused (a letter before the key),
# then the value read to the end of the text, once per repetition; a cookie header whose
# value is no cookie, once per header in the run.
HOSTILE_UNITS = (
    "xpwd:",
    "xpwd=",
    "xsecret:",
    "xsecret=",
    "xsid=",
    "xsession=",
    "xtoken=",
    "xtoken:a1",
    "xpwd%3d",
    "xtoken%3d",
    "xsecret\\u003d",
    "xapi_key:",
    'x"password":',
    "cookie:",
    "Cookie:",
    "Cookie:\\",
    "xpwd://a:",
    # the shapes of SPEC 7.4's rules 20-23 and the new keys
    "authorization: x ",
    "Authorization: ApiKey ",
    "bearer 1|",
    "1|",
    "://a1b2c3d4",
    "Set-Cookie: a=1, ",
    "xsig=",
    "?code=x",
    "auth:",
    "password\\u003a",
    # quoted values with escapes, objects and lists
    '"password":"\\',
    "password: {",
    "password: [",
    '"password":{"a":{',
    "password='\\'",
    # name/value entries
    '{"name":"xpassword","value":',
    '[["password",',
    '[[["password","',
    # YAML properties
    "password: | ",
    "password: !!a ",
    "password: &a &b ",
    # credential elements in text
    "<token>",
    "<a:password x>",
    "<token>a</token>",
    # issue 24's last shapes: words after a strong key, a URL password up to the last "@"
    # of its run, a doubled escaped quote inside a quoted value
    "password: a ",
    "password: a b: ",
    "xpassword: a ",
    "db: password: a ",
    "- password: a ",
    "[redacted] password: a b ",
    "://a:b/",
    "://a:b@",
    "://a:b/ @",
    "://a:@",
    '"password":"a\\\\"b',
    '"password":"\\\\"',
    # rules 23 and 27-29 and the percent-encoded colon
    "://a1b2c3d4e:x",
    '"sig":"a1',
    '\\"signature\\":\\"',
    '{"value":"a","name":"x',
    '"val":1,"key":"',
    "[('password', '",
    "(('token', ",
    "password%3a",
    # rules 30 and 31, spaced keys, tuples and calls under a key, double percent-encoding
    "--password ",
    "--token a1",
    "--a-b-c-token ",
    "<input type=password ",
    "<input type=password value=",
    "<input value=",
    "api key: ",
    "access token: a1",
    "{'token': (",
    "token: a(",
    "xpwd%253d",
    "%253fcode%253d",
    "('password', 'a1",
    "('token', '",
)
HOSTILE = ("xpwd:" * 1700)[: quote.SCAN_WINDOW]


class _Counted:
    """A compiled pattern that adds to ``work[0]`` what each call reads at least."""

    def __init__(self, pattern: re.Pattern[str], work: list[int]) -> None:
        self.pattern = pattern
        self.work = work

    def search(self, string: str, pos: int = 0) -> re.Match[str] | None:
        found = self.pattern.search(string, pos)
        self.work[0] += (len(string) if found is None else found.end()) - pos
        return found

    def match(self, string: str, pos: int = 0) -> re.Match[str] | None:
        found = self.pattern.match(string, pos)
        self.work[0] += 1 if found is None else max(found.end() - pos, 1)
        return found

    def finditer(self, string: str, pos: int = 0) -> Iterator[re.Match[str]]:
        self.work[0] += len(string) - pos
        return self.pattern.finditer(string, pos)

    def sub(self, replacement: str, string: str) -> str:
        self.work[0] += len(string)
        return self.pattern.sub(replacement, string)


@pytest.fixture
def redaction_work(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], int]:
    """The work the rules of SPEC 7.4 do to redact a text, counted as _Counted says."""
    work = [0]
    for rule in quote.REDACTIONS:
        monkeypatch.setattr(rule, "search", _Counted(rule.search, work))
        if rule.head is not None:
            monkeypatch.setattr(rule, "head", _Counted(rule.head, work))
    for name in ("_COOKIE_RUN", "_BACKSLASHES", "_URL_RUN"):
        monkeypatch.setattr(quote, name, _Counted(getattr(quote, name), work))

    def measure(text: str) -> int:
        work[0] = 0
        quote.redact(text)
        return work[0]

    return measure


def _repeated(unit: str, size: int) -> str:
    """``unit`` repeated to exactly ``size`` characters."""
    return (unit * (size // len(unit) + 1))[:size]


@pytest.mark.parametrize("unit", HOSTILE_UNITS)
def test_redaction_work_doubles_when_the_text_doubles(
    unit: str, redaction_work: Callable[[str], int]
) -> None:
    small, large = _repeated(unit, 2000), _repeated(unit, 4000)
    assert redaction_work(large) <= 2.2 * redaction_work(small) + 64, unit


# Pieces of the rules' shapes, for generated units: key words, separators (plain, encoded,
# escaped), quotes and escapes, brackets, URL and token parts, and the gate's own marker.
_PIECES = (
    *("password", "pwd", "secret", "token", "auth", "authorization", "api_key", "session"),
    *("sid", "sig", "signature", "cookie", "Cookie", "bearer ", "basic ", "key", "code"),
    *('"name"', '"value"', '"val"', "DB_PASSWORD", "x"),
    *(":", "=", "%3d", "%3a", "\\u003a", "\\u003d", " ", "  ", ",", ";", "&", "?"),
    *('"', "'", "\\", "\\\\", "{", "}", "[", "]", "(", ")", "<", ">", "</", "/"),
    *("://", "@", "a", "1", "a1b2c3d4", "|", "-", "- ", "!!", "&a", "[REDACTED]"),
    *("eyJ", "ghp_", "sk-", "AKIA", "-----BEGIN PRIVATE KEY-----"),
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(unit=st.lists(st.sampled_from(_PIECES), min_size=1, max_size=6).map("".join))
@example(unit="-----BEGIN PRIVATE KEY-----[ ")
def test_generated_units_do_linear_work(unit: str, redaction_work: Callable[[str], int]) -> None:
    """The hand-picked units above, generalised: any repetition of a few pieces of the
    rules' shapes costs work in proportion to the text. Looser than the hand-picked bound:
    a rule whose gate opens only past some repetition adds one step of linear work, so the
    doubling is allowed up to 3.2 times, and the whole stays within 16 reads per character
    (a quadratic rescan of 4,000 characters would be hundreds)."""
    # Whole units, so that both texts end alike: a unit cut at the end can open a rule's gate
    # in one text and not the other ("-----BEGIN PRIVATE KEY-----[ " cut or whole).
    small = unit * (2000 // len(unit) + 1)
    large = small + small
    work = redaction_work(large)
    assert work <= 3.2 * redaction_work(small) + 64, unit
    assert work <= 16 * len(large), unit


def test_a_refused_key_start_is_not_read_again(redaction_work: Callable[[str], int]) -> None:
    """The issue's input: every key start refused; each rule reads the text about once."""
    work = redaction_work(HOSTILE)
    assert work <= 8 * len(HOSTILE)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("xpwd:abc pwd:def", "xpwd:abc pwd:[REDACTED]"),
        ("cookie:cookie:cookie: a=b", "cookie:cookie:cookie: [REDACTED]"),
        ('cookie:cookie\\":x=1', 'cookie:cookie\\":[REDACTED]'),
        ("Cookie:Set-Cookie: sid=abc", "Cookie:Set-Cookie: [REDACTED]"),
        ('cookie:"a b" cookie:x', 'cookie:"[REDACTED]" cookie:x'),
        ('Cookie: \\\\"a b\\\\" x', 'Cookie: \\\\"[REDACTED]\\\\" x'),
        ("cookie: [REDACTED] cookie: a=1", "cookie: [REDACTED] cookie: [REDACTED]"),
    ],
)
def test_head_first_search_keeps_the_leftmost_matches(text: str, expected: str) -> None:
    assert quote.redact(text) == expected


# --- the paths above the gate -------------------------------------------------------------


@pytest.fixture
def gate_input(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[[], object]], int]:
    """The characters a call hands to the redaction gate."""
    redact = quote.redact
    seen = [0]

    def counted(text: str) -> str:
        seen[0] += len(text)
        return redact(text)

    monkeypatch.setattr(quote, "redact", counted)

    def measure(call: Callable[[], object]) -> int:
        seen[0] = 0
        call()
        return seen[0]

    return measure


def _items(count: int) -> str:
    return "lead" + ("\n- " + HOSTILE[:300]) * count


def test_schema_problems_past_the_list_are_never_quoted(
    gate_input: Callable[[Callable[[], object]], int],
) -> None:
    small = gate_input(lambda: schema_invalid(*[HOSTILE] * 40))
    assert small == gate_input(lambda: schema_invalid(*[HOSTILE] * 80))
    assert small <= 20 * (quote.SCAN_WINDOW + 2 * 300)  # a head of 2 × cap, then the window


def test_hint_items_and_length_are_capped(
    gate_input: Callable[[Callable[[], object]], int],
) -> None:
    small = gate_input(lambda: Outcome(Code.UNKNOWN, _items(200)))
    assert small == gate_input(lambda: Outcome(Code.UNKNOWN, _items(400)))
    hint = Outcome(Code.UNKNOWN, _items(400)).llm_hint
    assert hint.count("\n- ") == HINT_ITEMS == 21
    assert len(hint) <= HINT_CAP
    # Long items: the length cap stops first, and what is kept reads back unchanged.
    long_items = Outcome(Code.UNKNOWN, "lead" + ("\n- " + "word " * 400) * 50).llm_hint
    assert len(long_items) <= HINT_CAP
    assert 0 < long_items.count("\n- ") < 21
    assert Outcome(Code.UNKNOWN, long_items).llm_hint == long_items


def test_the_classifiers_hints_fit_the_caps() -> None:
    """The longest SCHEMA_INVALID hint (20 problems at their cap, and the count of the rest)
    reads back from the wire unchanged."""
    built = schema_invalid(*[f"field_{i} " + "word " * 100 for i in range(30)])
    assert len(built.llm_hint) <= HINT_CAP
    assert Outcome.from_dict(built.to_dict()) == built


@pytest.mark.parametrize("size", [1 << 19, 1 << 20])
def test_a_megabyte_wire_object_gives_a_bounded_hint(
    size: int, gate_input: Callable[[Callable[[], object]], int]
) -> None:
    wire = {"ok": False, "code": "UNKNOWN", "llm_hint": ("\n- " + "xpwd:" * 60) * size}
    wire["llm_hint"] = wire["llm_hint"][:size]
    read = gate_input(lambda: Outcome.from_dict(wire))
    assert read <= (HINT_ITEMS + 1) * 400
    assert len(Outcome.from_dict(wire).llm_hint) <= HINT_CAP
    one_line = {"ok": False, "code": "UNKNOWN", "llm_hint": HOSTILE * (size // len(HOSTILE))}
    assert gate_input(lambda: Outcome.from_dict(one_line)) <= quote.SCAN_WINDOW


def test_a_megabyte_mcp_result_gives_a_bounded_hint(
    gate_input: Callable[[Callable[[], object]], int],
) -> None:
    from agenterr.integrations.mcp import from_call_tool_result

    def result(size: int) -> dict[str, Any]:
        hint = (("\n- " + "xpwd:" * 60) * (size // 300))[:size]
        wire = {"ok": False, "code": "UNAVAILABLE", "retryable": True, "llm_hint": hint}
        return {
            "isError": True,
            "content": [{"type": "text", "text": hint}],
            "structuredContent": wire,
        }

    small = gate_input(lambda: from_call_tool_result(result(1 << 19)))
    assert small == gate_input(lambda: from_call_tool_result(result(1 << 20)))
    outcome = from_call_tool_result(result(1 << 20))
    assert outcome.code is Code.UNAVAILABLE and len(outcome.llm_hint) <= HINT_CAP


def _group(members: int, depth: int = 0) -> BaseException:
    errors: list[Exception] = []
    for number in range(members):
        try:
            raise ValueError(f"{HOSTILE[:400]} {number}")
        except ValueError as exc:
            errors.append(exc)
    group: Exception = ExceptionGroup("many", errors)
    for _ in range(depth):
        group = ExceptionGroup("nested", [group])
    return group


def test_a_logged_exception_group_honours_its_width(
    gate_input: Callable[[Callable[[], object]], int],
) -> None:
    from agenterr._policy import traceback_text

    texts = {members: traceback_text(_group(members)) for members in (100, 2000)}
    assert texts[100].count("\n") == texts[2000].count("\n")
    assert texts[2000].endswith("    and 1985 more exceptions")
    assert "+---------------- 15 ----------------" in texts[2000]
    assert "+---------------- 16 ----------------" not in texts[2000]
    small = gate_input(lambda: traceback_text(_group(100)))
    # The group's own line counts its members: "(2000 sub-exceptions)".
    assert gate_input(lambda: traceback_text(_group(2000))) <= small + 8


def test_a_logged_exception_group_honours_its_depth() -> None:
    from agenterr._policy import traceback_text

    text = traceback_text(_group(2, depth=14))
    assert "... (max_group_depth is 10)" in text
    assert text.count("ExceptionGroup: nested") == 11
    assert "ValueError" not in text


def test_one_member_and_exactly_the_width_are_shown_whole() -> None:
    from agenterr._policy import traceback_text

    assert "more exception" not in traceback_text(_group(15))
    assert "+---------------- 15 ----------------" in traceback_text(_group(15))
    assert traceback_text(_group(16)).endswith("    and 1 more exception")


@pytest.mark.external
def test_cli_jsonl_work_is_linear_in_the_lines(
    gate_input: Callable[[Callable[[], object]], int],
) -> None:
    from agenterr._cli import answer_line

    lines = [
        json.dumps({"status": 400, "body": HOSTILE}).encode(),
        json.dumps({"schema_invalid": [HOSTILE] * 40}).encode(),
        json.dumps({"wire": {"ok": False, "code": "UNKNOWN", "llm_hint": _items(400)}}).encode(),
        b'{"status": 400, "body": "' + b"xpwd:" * 200_000 + b'"}',
    ]

    def run(count: int) -> list[str | None]:
        return [answer_line(number, lines[number % len(lines)]) for number in range(count)]

    small = gate_input(lambda: run(100))
    assert gate_input(lambda: run(200)) <= 2 * small
    assert all(len(answer or "") <= 2 * HINT_CAP for answer in run(8))


def test_from_status_on_the_issues_input_is_cleaned() -> None:
    out = from_status(400, HOSTILE)
    assert out.code is Code.INVALID_REQUEST
    assert out.llm_hint.endswith(quote.TRUNCATED)


@pytest.mark.parametrize(
    "unit", ["password: {", 'password: {"', "password: {}", "{'password': [", '"api_key": [[']
)
def test_structured_values_are_scanned_once(unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """SPEC 7.4's structure scan reads each character about once per rule, however many
    values open structures, closed or not: a value inside one already redacted is skipped."""
    read = [0]
    search = quote._STRUCTURE_MARKS

    def counted(text: str, position: int) -> re.Match[str] | None:
        found = search(text, position)
        read[0] += (len(text) if found is None else found.end()) - position
        return found

    monkeypatch.setattr(quote, "_STRUCTURE_MARKS", counted)

    def work(size: int) -> int:
        read[0] = 0
        quote.redact(_repeated(unit, size))
        return read[0]

    small, large = work(2000), work(4000)
    assert 0 < large <= 2.2 * small + 64, unit
    assert large <= 4 * 4000, unit


# SPEC 7.3 step 3's YAML passes, on text with line breaks: keys without a block, blocks one
# inside another, a long block, keys at the same column.
YAML_UNITS = (
    "password:\n",
    "password: # c\n",
    "token:\n  x: a1\n",
    " password:\n",
    "- token:\n- auth:\n",
    "ValueError: token:\n",
    "password: a b\n",
    "xpassword:\n  \n",
)


@pytest.mark.parametrize("unit", YAML_UNITS)
def test_the_yaml_passes_work_doubles_when_the_text_doubles(
    unit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = [0]
    for name in ("_YAML_PARENT", "_LINE_END", "_YAML_LINE"):
        counted = _Counted(getattr(quote, name), work)
        monkeypatch.setattr(quote, name, counted)

    def measure(text: str) -> int:
        work[0] = 0
        quote.yaml_lines(text)
        return work[0]

    small, large = _repeated(unit, 2000), _repeated(unit, 4000)
    assert measure(large) <= 2.2 * measure(small) + 64, unit


def test_a_nested_yaml_block_is_read_once() -> None:
    """Indentation that deepens line by line: one block, every line read once."""
    text = "".join(" " * depth + "password:\n" for depth in range(2000)) + "x: 1"
    assert quote.yaml_lines(text) == f"password: {quote.REDACTED}\nx: 1"
