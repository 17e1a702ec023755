"""Replay every conformance vector of spec/vectors.json (SPEC.md section 9).

Each vector's input becomes one call of the Python API (``classify``, ``schema_invalid`` or
``Outcome.from_dict``), and the outcome's wire form must equal the vector's ``expect`` as a JSON
value, hint included code point for code point. The vectors run as one test per part of SPEC.md
(``test_core_vector``, ``test_annex_a_vector``, ``test_annex_b_vector``), so a failure names its
part and one part can be run alone. The file itself is checked too: unique ids, rules that name
anchors of SPEC.md's normative parts, a ``part`` that matches the rule's, and coverage of every
status row, error kind and redaction rule, so SPEC.md, the vectors and the code cannot drift
apart.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agenterr import retry_after_from_headers, tool_result_text
from agenterr._protocol import outcome_for_request
from agenterr._reason import RULES as REASON_RULES
from agenterr._shared import BoundedCache

ROOT = Path(__file__).resolve().parent.parent
SPEC_TEXT = (ROOT / "SPEC.md").read_text(encoding="utf-8")
DOCUMENT: dict[str, Any] = json.loads((ROOT / "spec" / "vectors.json").read_text(encoding="utf-8"))
VECTORS: list[dict[str, Any]] = DOCUMENT["vectors"]
ANCHORS = set(re.findall(r'<a id="([^"]+)"></a>', SPEC_TEXT))

PARTS = ("core", "annex-a", "annex-b")
# The anchor that opens each part of SPEC.md; "notes" (informative) states no rule.
_PART_OPENERS = {
    "part-core": "core",
    "annex-a": "annex-a",
    "annex-b": "annex-b",
    "rationale": "notes",
}


def _anchor_parts(text: str) -> dict[str, str]:
    """Every anchor of the spec → the part it lies in, read from the part-opening anchors."""
    parts: dict[str, str] = {}
    part = "preamble"
    for anchor in re.findall(r'<a id="([^"]+)"></a>', text):
        part = _PART_OPENERS.get(anchor, part)
        parts[anchor] = part
    return parts


ANCHOR_PARTS = _anchor_parts(SPEC_TEXT)

_CLASSIFY_FIELDS = {"status", "body", "body_base64", "headers", "error", "now"}
_ERROR_FIELDS = {"kind", "message", "cause", "status", "headers", "body", "members"}
_WIRE_KEYS = {"ok", "code", "class", "retryable", "llm_hint", "retry_after_seconds", "status"}


# --- one test per vector --------------------------------------------------------------------


def _of_part(part: str) -> pytest.MarkDecorator:
    """Parametrise a test over the vectors of one part, each named by its id."""
    chosen = [v for v in VECTORS if v.get("part") == part]
    return pytest.mark.parametrize("vector", chosen, ids=[v["id"] for v in chosen])


@_of_part("core")
def test_core_vector(vector: dict[str, Any]) -> None:
    """Part I: taxonomy, status, transport, Retry-After, hints, quoting, wire JSON."""
    _check(vector)


@_of_part("annex-a")
def test_annex_a_vector(vector: dict[str, Any]) -> None:
    """Annex A: provider refinements of headers and error bodies."""
    _check(vector)


@_of_part("annex-b")
def test_annex_b_vector(vector: dict[str, Any]) -> None:
    """Annex B: envelopes inside successful responses."""
    _check(vector)


def _check(vector: dict[str, Any]) -> None:
    if "expect_error" in vector:
        field = vector["expect_error"]
        with pytest.raises(ValueError) as caught:
            outcome_for_request(vector["input"])
        assert str(caught.value).startswith(f"{field}:"), str(caught.value)
        return
    outcome = outcome_for_request(vector["input"])
    # Compare as JSON values: what goes on the wire, not Python object identity.
    assert json.loads(outcome.to_json()) == vector["expect"]
    if "expect_reason" in vector:  # SPEC 8.4: the explain level
        explained = json.loads(outcome.to_json(explain=True))
        reason = explained["reason"]
        assert reason["rule"] in REASON_RULES
        assert {k: v for k, v in reason.items() if k != "evidence"} == vector["expect_reason"]
    if "expect_model_text" in vector:  # SPEC 6.8
        call = vector.get("model_text_call", {})
        text = tool_result_text(outcome, tool=call.get("tool"), arguments=call.get("arguments"))
        assert text == vector["expect_model_text"]


# --- the file itself --------------------------------------------------------------------------


def test_spec_version_matches_spec() -> None:
    assert f"**Spec version {DOCUMENT['spec_version']}.**" in SPEC_TEXT


def test_enough_vectors() -> None:
    assert len(VECTORS) >= 150


def test_ids_unique_and_kebab_case() -> None:
    ids = [v["id"] for v in VECTORS]
    assert len(ids) == len(set(ids))
    for vector_id in ids:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", vector_id), vector_id


def test_rules_name_spec_anchors() -> None:
    """Every rule is an anchor of Part I or an annex (never of the informative Notes)."""
    unknown = {v["id"]: v["rule"] for v in VECTORS if ANCHOR_PARTS.get(v["rule"]) not in PARTS}
    assert not unknown


def test_spec_parts_in_order() -> None:
    """SPEC.md opens Part I, Annex A, Annex B and the Notes in that order, once each."""
    openers = [a for a in re.findall(r'<a id="([^"]+)"></a>', SPEC_TEXT) if a in _PART_OPENERS]
    assert openers == list(_PART_OPENERS)
    assert ANCHOR_PARTS["scope"] == "core" and ANCHOR_PARTS["notes"] == "core"
    assert ANCHOR_PARTS["refinements"] == "annex-a" and ANCHOR_PARTS["hint-quota"] == "annex-a"
    assert ANCHOR_PARTS["envelopes"] == "annex-b" and ANCHOR_PARTS["r-sources"] == "notes"


def test_every_vector_has_its_rules_part() -> None:
    """``part`` is the part of SPEC.md that the vector's rule anchor lies in."""
    wrong = {v["id"]: (v.get("part"), ANCHOR_PARTS.get(v["rule"])) for v in VECTORS}
    assert {k: parts for k, parts in wrong.items() if parts[0] != parts[1]} == {}
    assert {v["part"] for v in VECTORS} == set(PARTS)


def test_every_note_is_linked_and_every_link_resolves() -> None:
    """The Notes are reached from the rules, and no link points at a missing anchor."""
    links = set(re.findall(r"\]\(#([^)]+)\)", SPEC_TEXT))
    assert links <= ANCHORS
    notes = {a for a, part in ANCHOR_PARTS.items() if part == "notes" and a != "rationale"}
    assert notes and notes <= links


@pytest.mark.parametrize(
    "name",
    [
        "identifiers",
        "quota-phrases",
        "rate-phrases",
        "envelope-identifiers",
        "envelope-phrases",
        "jsonrpc-codes",
        "reason-phrases",
    ],
)
def test_data_tables_are_marked(name: str) -> None:
    """Each table that code mirrors sits between one start and one end marker."""
    start, end = f"<!-- table:{name}:start -->", f"<!-- table:{name}:end -->"
    assert SPEC_TEXT.count(start) == SPEC_TEXT.count(end) == 1
    body = SPEC_TEXT[SPEC_TEXT.index(start) + len(start) : SPEC_TEXT.index(end)]
    assert "`" in body and "<!--" not in body and "\n#" not in body


def test_core_vectors_need_no_annex(monkeypatch: pytest.MonkeyPatch) -> None:
    """SPEC section 1: a port with Part I alone passes every core vector. Here the refinements
    are switched off (the table's code stands, an HTTP-date is measured against ``now``, a delay
    is kept for transient codes only) and every core vector must still pass."""
    import agenterr._classify as classify_module
    from agenterr._refine import Refined

    def table_only(  # noqa: PLR0917 - refine's signature
        status: int,
        code: Any,
        body: object,
        view: object,
        retry_after: Any,
        now: Any,
        layers: object = (),
        quota: bool = False,
    ) -> Refined:
        return Refined(code, quota, retry_after if code.retryable else None, None)

    monkeypatch.setattr(classify_module, "refine", table_only)
    monkeypatch.setattr(
        classify_module,
        "header_delay",
        lambda view, now: retry_after_from_headers(view, now=now),  # no Date (A.8)
    )
    monkeypatch.setattr(classify_module, "_BY_HEADER", BoundedCache(4096))
    for vector in VECTORS:
        if vector["part"] == "core":
            _check(vector)


def test_model_text_vectors_cover_every_code() -> None:
    """SPEC 6.8 is pinned for every code, with and without a quote and a delay."""
    pinned = [v for v in VECTORS if "expect_model_text" in v]
    assert {v["expect"]["code"] for v in pinned} == {
        "SCHEMA_INVALID",
        "INVALID_REQUEST",
        "NOT_FOUND",
        "UNAUTHORIZED",
        "RATE_LIMITED",
        "TIMEOUT",
        "UNAVAILABLE",
        "UNKNOWN",
    }
    assert all(v["rule"] == "model-text" for v in pinned)
    texts = [v["expect_model_text"] for v in pinned]
    assert any("`````" in t for t in texts) and any("after waiting 1 second." in t for t in texts)
    # 6.8.1: each kind of evidence, a listing of several names, and a cleaned tool name.
    called = [v for v in pinned if "model_text_call" in v]
    notes = " ".join(v["note"] for v in called)
    for kind in ("value", "pointer", "loc", "name in prose", "envelope word", "three names"):
        assert kind in notes, kind


def test_vector_shape() -> None:
    for vector in VECTORS:
        allowed = {"id", "rule", "part", "note", "input", "expect", "expect_error"}
        optional = {"expect_model_text", "model_text_call", "expect_reason"}
        assert set(vector) <= allowed | optional, vector["id"]
        assert "expect_model_text" not in vector or "expect" in vector, vector["id"]
        assert "model_text_call" not in vector or "expect_model_text" in vector, vector["id"]
        assert ("expect" in vector) != ("expect_error" in vector), vector["id"]
        assert ("expect_error" not in vector) or "wire" in vector["input"], vector["id"]
        if "expect" in vector:
            expect = vector["expect"]
            assert set(expect) <= _WIRE_KEYS and {"ok", "retryable"} <= set(expect), vector["id"]
            # Every failure a classifier decides names its rule; a wire outcome read back
            # has none unless the wire carried one (SPEC 8.4).
            decided = expect["ok"] is False and "wire" not in vector["input"]
            assert ("expect_reason" in vector) == decided, vector["id"]
        if "expect_reason" in vector:
            assert set(vector["expect_reason"]) <= {"rule", "replaced"}, vector["id"]
            assert vector["expect_reason"].get("replaced") != vector["expect"]["code"]


def test_reason_rules_are_reached() -> None:
    """Every rule of SPEC 8.4 (its table is rendered from the package's, see spec_tables)
    that a vector input can reach is reached, and the vectors name no other."""
    used = {v["expect_reason"]["rule"] for v in VECTORS if "expect_reason" in v}
    unreachable = {  # no vector input can reach them: user rules, SDKs and the decorator
        "user-status", "user-rule", "sdk-credentials", "binding", "errors-map",
        "tool-raised", "idempotent", "internal",
    }  # fmt: skip
    assert used == set(REASON_RULES) - unreachable


@pytest.mark.parametrize("prefix", ["status-row-", "error-kind-", "redaction-rule-"])
def test_every_row_is_covered(prefix: str) -> None:
    rows = {anchor for anchor in ANCHORS if anchor.startswith(prefix)}
    assert rows, prefix
    covered = {v["rule"] for v in VECTORS}
    assert rows - covered == set()


def test_every_normative_section_is_covered() -> None:
    sections = {
        "status-rules",
        "transport-rules",
        "error-chain",
        "retry-after",
        "retry-after-headers",
        "retry-after-delta",
        "retry-after-dates",
        "retry-after-list",
        "retry-after-result",
        "hint-templates",
        "hint-placeholders",
        "hint-malformed",
        "hint-unknown",
        "hint-schema",
        "hint-examples",
        "quoting-window",
        "quoting-clean",
        "quoting-steps",
        "redaction",
        "wire-reading",
    }
    assert sections <= ANCHORS
    covered = {v["rule"] for v in VECTORS}
    prefixes = ("status-row-", "error-kind-", "redaction-rule-")
    covered |= {"status-rules"} if any(r.startswith(prefixes[0]) for r in covered) else set()
    covered |= {"redaction"} if any(r.startswith(prefixes[2]) for r in covered) else set()
    assert sections - covered == set()


def _status_in_row(status: object, row: str) -> bool:
    if row == "non-integer":
        return not isinstance(status, int) or isinstance(status, bool)
    if not isinstance(status, int) or isinstance(status, bool):
        return False
    if row == "other-integer":
        return status != 0 and not 100 <= status <= 599
    if row == "4xx-other":
        return 400 <= status <= 499
    if row.endswith("xx"):
        return status // 100 == int(row[0])
    low, _, high = row.partition("-")
    return int(low) <= status <= int(high or low)


def test_status_rows_use_their_statuses() -> None:
    for vector in VECTORS:
        rule = vector["rule"]
        if rule.startswith("status-row-"):
            status = vector["input"].get("status", 0)
            assert _status_in_row(status, rule.removeprefix("status-row-")), vector["id"]


def test_error_kind_rows_use_their_kind() -> None:
    for vector in VECTORS:
        rule = vector["rule"]
        if rule.startswith("error-kind-"):
            kind = vector["input"]["error"]["kind"]
            assert rule == f"error-kind-{kind.replace('_', '-')}", vector["id"]


def test_spec_json_schema_accepts_every_expected_outcome() -> None:
    """The JSON Schema printed in SPEC.md section 8 validates every vector's expectation."""
    import jsonschema

    blocks = re.findall(r"```json\n(\{\n  \"\$schema\".*?)```", SPEC_TEXT, re.S)
    assert len(blocks) == 1, "SPEC.md prints exactly one JSON Schema"
    schema = json.loads(blocks[0])
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for vector in VECTORS:
        if "expect" in vector and "wire" not in vector["input"]:
            validator.validate(vector["expect"])
    assert not validator.is_valid({"ok": False, "retryable": False, "code": "NOPE"})
