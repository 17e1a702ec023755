"""SPEC.md 7.4 and the package redact alike: the patterns are read from SPEC.md's tables,
applied exactly as the section says (in order, in the view, marker or pair), and compared
with the package's fast path on every redaction example of the test suite and on generated
credentials. A pattern edited on one side only fails here."""

from __future__ import annotations

import base64
import binascii
import re
from typing import NamedTuple

import pytest
from hypothesis import given, settings

from agenterr._quote import REDACTED, redact

from .spec_tables import SPEC
from .test_quote import NEW_SHAPES, embedded_credential_strategy

TEXT = SPEC.read_text(encoding="utf-8")
_SECTION = TEXT[TEXT.index('<a id="redaction"></a>') :]
_SECTION = _SECTION[: _SECTION.index("Consequences worth knowing")]


def _cells(line: str) -> list[str]:
    """A Markdown table row's cells, with the escaped pipes of the patterns restored."""
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line)[1:-1]]


def _first_code(cell: str) -> str:
    found = re.search(r"`([^`]+)`", cell)
    assert found is not None, cell
    return found.group(1)


def _blocks() -> dict[str, str]:
    blocks: dict[str, str] = {}
    for line in _SECTION.splitlines():
        cells = _cells(line) if line.startswith("| `") else []
        if len(cells) == 2:
            name = cells[0].strip("`").partition("(")[0]
            blocks[name] = _first_code(cells[1])
    # Defined in CRED's prose: TOK without the digits.
    blocks["NDTOK"] = blocks["TOK"].replace("0-9", "")
    return blocks


class _SpecRule(NamedTuple):
    number: int
    pattern: re.Pattern[str]
    pair: bool


def _expand(pattern: str, blocks: dict[str, str]) -> str:
    def key(match: re.Match[str]) -> str:
        keys, separator = match.group(1), match.group(2)
        return blocks["KEY"].replace("(?:K)", f"(?:{keys})").replace("S\\s*)", separator + "\\s*)")

    # KEY(K, S) first (its body names K and S), then the other blocks until none is left
    # (a block may name another: CRED names TOK and NDTOK).
    expanded = re.sub(r"KEY\(([^,]+), ([^)]+)\)", key, pattern)
    names = re.compile(rf"(?<![A-Za-z])({'|'.join(sorted(set(blocks) - {'KEY'}))})(?![A-Za-z])")
    for _ in range(5):
        expanded = names.sub(lambda m: blocks[m.group(1)], expanded)
    return expanded.replace("\\z", "\\Z")


def _rules() -> list[_SpecRule]:
    blocks = _blocks()
    rules = []
    for line in _SECTION.splitlines():
        if not re.match(r"\| \d+ \| <a id=\"redaction-rule-", line):
            continue
        number, _anchor, targets, pattern, replacement = _cells(line)
        flags = re.ASCII | (re.IGNORECASE if "*(i)*" in targets else 0)
        source = _expand(_first_code(pattern), blocks)
        rules.append(
            _SpecRule(int(number), re.compile(source, flags), replacement.startswith("pair"))
        )
    assert [r.number for r in rules] == list(range(1, len(rules) + 1))
    return rules


RULES = _rules()


def _view(text: str) -> str:
    return text.replace("\\n", "  ").replace("\\r", "  ").replace("\\t", "  ")


def _basic_has_colon(value: str) -> bool:
    if len(value) % 4:
        return False
    try:
        return b":" in base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False


def _quote_of(value: str) -> str:
    if value[:1] in ('"', "'"):
        return value[:1]
    run = len(value) - len(value.lstrip("\\"))
    return value[: run + 1] if run and value[run : run + 1] == '"' else ""


def _structure_end(view: str, start: int) -> int:
    """SPEC 7.4, *Structured values*, character by character as written there."""
    depth, index, quote = 0, start, ""
    while index < len(view):
        char = view[index]
        if char == "\\":
            index += 2
            continue
        if quote:
            if char == quote:
                quote = ""
                if depth == 0:
                    return index + 1
        elif char in "\"'":
            quote = char
        elif char in "{[(":
            depth += 1
        elif char in "}])":
            depth -= 1
            if depth <= 0:
                return index + 1
        index += 1
    return len(view)


_CALL = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,63}(?=\()|[bBrRuUfF]{1,2}(?=['\"])")


def _value_end(view: str, start: int, end: int) -> int:
    if view[start : start + 1] in ("{", "[", "("):
        return _structure_end(view, start)
    lead = _CALL.match(view, start)
    if lead is not None and lead.end() <= end:
        return _structure_end(view, lead.end())
    return end


def spec_redact(text: str) -> str:
    """Section 7.4, step by step, from the patterns in SPEC.md."""
    for rule in RULES:
        pieces: list[str] = []
        done = 0
        for match in rule.pattern.finditer(_view(text)):
            if "keep" in rule.pattern.groupindex and match.group("keep") is not None:
                continue
            start, end = match.span()
            if rule.pair:
                start = match.end(1)
            if start < done:
                continue  # inside a structured value already redacted
            end = _value_end(_view(text), start, end)
            value = text[start:end]
            if rule.number == 18 and not _basic_has_colon(value):
                continue
            quote = _quote_of(value) if rule.pair else ""
            pieces += (text[done:start], quote, REDACTED, quote)
            done = end
        if pieces:
            text = "".join(pieces) + text[done:]
    return text


def test_every_rule_and_block_was_read() -> None:
    assert len(RULES) == 32
    names = {"STRONG", "WORD", "SPACED", "SESSION", "SIGNED", "QKEY", "START", "TSTART"}
    names |= {"EQ", "COLON", "TOK", "CRED", "KEY", "USER", "NAMED", "YAML", "TAGNAME"}
    assert names <= set(_blocks())
    names = "|".join(set(_blocks()) - {"KEY"})
    for rule in RULES:  # every block was substituted (rule 19's "PRIVATE KEY" is text)
        unexpanded = rf"KEY\([A-Z|]+, |(?<![A-Za-z])(?:{names})(?![A-Za-z])"
        assert not re.search(unexpanded, rule.pattern.pattern), rule


def test_the_examples_redact_as_the_spec_says() -> None:
    for raw, _expected in NEW_SHAPES:
        text = " ".join(raw.split())
        assert redact(text) == spec_redact(text), text


@settings(max_examples=300, deadline=None)
@given(embedded_credential_strategy())
def test_generated_credentials_redact_as_the_spec_says(case: tuple[str, str]) -> None:
    body, _secret = case
    text = " ".join(body.split())[:2000]
    assert redact(text) == spec_redact(text)


def test_a_changed_pattern_would_fail_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: a SPEC table without rule 7 (OpenAI keys) disagrees with the
    package on an OpenAI key."""
    key = "sk-" + "a1" * 12
    assert redact(f"key {key}") == spec_redact(f"key {key}") == f"key {REDACTED}"
    monkeypatch.setitem(globals(), "RULES", [r for r in RULES if r.number != 7])
    assert redact(f"key {key}") != spec_redact(f"key {key}")
