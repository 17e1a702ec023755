"""SPEC.md's rule tables and the package's rule data are one source: a test fails when they
disagree (regenerate with ``python -m tests.spec_tables --write``)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .spec_tables import (
    ENTITIES_JSON,
    FOREIGN_JSON,
    HINTS_JSON,
    QUOTING_JSON,
    SPEC,
    STATUS_JSON,
    TABLES,
    entities_json,
    foreign_json,
    hints_json,
    marked,
    quoting_json,
    status_json,
)

TEXT = SPEC.read_text(encoding="utf-8")


def test_every_table_is_marked_once() -> None:
    for name in TABLES:
        assert TEXT.count(f"<!-- table:{name}:start -->") == 1, name
        assert TEXT.count(f"<!-- table:{name}:end -->") == 1, name
    assert set(marked(TEXT)) == set(TABLES)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_spec_table_equals_the_rule_data(name: str) -> None:
    assert marked(TEXT)[name] == TABLES[name](), (
        f"SPEC.md's {name} table differs from agenterr._rules: "
        "run `python -m tests.spec_tables --write`"
    )


def test_a_changed_rule_changes_the_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above can fail: a rule added to the data shows in the rendering."""
    from agenterr import Code, _rules

    from . import spec_tables

    extra = _rules.Rule("identifier", "ERR_EXTRA_1", Code.NOT_FOUND)
    monkeypatch.setattr(spec_tables, "BUILTIN", (*_rules.BUILTIN, extra))
    assert "`ERR_EXTRA_1`" in spec_tables.identifiers()
    assert spec_tables.identifiers() != marked(TEXT)["identifiers"]


def test_the_status_table_ships_as_json() -> None:
    """spec/status-table.json is the status table's data, for ports that read it."""
    assert STATUS_JSON.read_text(encoding="utf-8") == status_json(), (
        "run `python -m tests.spec_tables --write`"
    )


def test_the_foreign_wordings_ship_as_json() -> None:
    """spec/foreign-transport.json is SPEC 4.2 step 3.6's table, for ports that read it."""
    assert FOREIGN_JSON.read_text(encoding="utf-8") == foreign_json(), (
        "run `python -m tests.spec_tables --write`"
    )


def test_the_entity_tables_ship_as_json() -> None:
    """spec/html-entities.json holds what SPEC 7.1's unescaping needs."""
    assert ENTITIES_JSON.read_text(encoding="utf-8") == entities_json(), (
        "run `python -m tests.spec_tables --write`"
    )


_ENTITIES = json.loads(ENTITIES_JSON.read_text(encoding="utf-8"))


def _port_unescape(text: str) -> str:
    """SPEC 7.1's unescaping as a port writes it from spec/html-entities.json."""
    named, charrefs = _ENTITIES["named"], _ENTITIES["invalid_charrefs"]
    dropped = set(_ENTITIES["invalid_codepoints"])

    def one(match: re.Match[str]) -> str:
        ref = match.group(1)
        if ref[0] == "#":
            number = int(ref[2:].rstrip(";"), 16) if ref[1] in "xX" else int(ref[1:].rstrip(";"))
            if str(number) in charrefs:
                return str(charrefs[str(number)])
            if 0xD800 <= number <= 0xDFFF or number > 0x10FFFF:
                return "\ufffd"
            return "" if number in dropped else chr(number)
        if ref in named:
            return str(named[ref])
        for length in range(len(ref) - 1, 1, -1):
            if ref[:length] in named:
                return str(named[ref[:length]]) + ref[length:]
        return "&" + ref

    return re.sub(_ENTITIES["reference"], one, text)


_ENTITY_PIECES = st.sampled_from(
    ["&", "#", "x", "X", ";", "amp", "not", "notin", "it", "lt", "0", "1c", "80", "d800",
     "110000", "99999999999", " ", "a", "\t", "<", "é", "AElig", "zwnj"]
)  # fmt: skip


@given(st.lists(_ENTITY_PIECES, max_size=16))
def test_the_entity_algorithm_is_html_unescape(pieces: list[str]) -> None:
    """The algorithm SPEC 7.1 writes out, run on the shipped tables, is html.unescape."""
    assert _ENTITIES["reference"] == html._charref.pattern  # type: ignore[attr-defined]
    text = "".join(pieces)
    assert _port_unescape(text) == html.unescape(text)


@pytest.mark.parametrize(
    ("path", "render"),
    [(HINTS_JSON, hints_json), (QUOTING_JSON, quoting_json)],
    ids=["hint-templates", "quoting"],
)
def test_the_hint_and_quoting_tables_ship_as_json(path: Path, render: Callable[[], str]) -> None:
    """spec/hint-templates.json and spec/quoting.json are the package's data, for ports."""
    assert path.read_text(encoding="utf-8") == render(), "run `python -m tests.spec_tables --write`"


def test_the_shipped_templates_build_the_hints() -> None:
    """The shipped templates, filled as they say, give the package's hints."""
    from agenterr import from_status

    data = json.loads(HINTS_JSON.read_text(encoding="utf-8"))
    template = data["templates"]["RATE_LIMITED"]
    where = data["where"]["status"].format(status=429)
    wait = data["wait"]["more"].format(n=5)
    said = data["said"].format(quote="slow down")
    expected = template.format(where=where, wait=wait, said=said)
    outcome = from_status(429, "slow down", headers={"Retry-After": "5"})
    assert outcome.llm_hint == expected
