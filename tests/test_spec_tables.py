"""SPEC.md's rule tables and the package's rule data are one source: a test fails when they
disagree (regenerate with ``python -m tests.spec_tables --write``)."""

from __future__ import annotations

import pytest

from .spec_tables import (
    FOREIGN_JSON,
    SPEC,
    STATUS_JSON,
    TABLES,
    foreign_json,
    marked,
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
