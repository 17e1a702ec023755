"""SPEC.md's data tables, rendered from the package's rule data (``agenterr._rules``).

The tables between ``<!-- table:NAME:start -->`` and ``<!-- table:NAME:end -->`` in SPEC.md
are this module's output; ``tests/test_spec_tables.py`` fails when they differ. After
changing a rule, regenerate them with::

    python -m tests.spec_tables --write
"""

from __future__ import annotations

import html
import html.entities
import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from urllib.parse import urlsplit

from agenterr._hints import QUOTA_TEMPLATE, TEMPLATES, wait_phrase, where
from agenterr._quote import INVISIBLE, REDACTIONS
from agenterr._reason import RULES as REASON_RULES
from agenterr._rules import (
    ANCHORS,
    BUILTIN,
    GENERAL,
    JSONRPC_CODES,
    JSONRPC_OTHER,
    JSONRPC_SERVER_ERROR,
    PRECEDENCE,
    REASON_PHRASES,
    Rule,
)
from agenterr._status import STATUS_TABLE
from agenterr._taxonomy import Code, codes
from agenterr._tool_result import MODEL_TEXT
from agenterr._transport import FOREIGN_WINDOW, FOREIGN_WORDINGS, MALFORMED_HINT

SPEC = Path(__file__).resolve().parent.parent / "SPEC.md"
_MARKED = re.compile(r"(<!-- table:([a-z-]+):start -->\n)(.*?)(<!-- table:\2:end -->)", re.S)


def _code(code: Code, quota: bool = False) -> str:
    return f"`{code.value}` (quota wording)" if quota else f"`{code.value}`"


def _ticks(items: Iterable[object]) -> str:
    return ", ".join(f"`{item}`" for item in items)


def _source(url: str) -> str:
    host = urlsplit(url).hostname or url
    return f"[{host.removeprefix('www.').removeprefix('docs.')}]({url})"


def status() -> str:
    rows = ["| Status | Result | Src | Reason |", "| --- | --- | --- | --- |"]
    for row in STATUS_TABLE:
        result = "ok" if row.code is None else _code(row.code)
        rows.append(
            f'| <a id="{row.anchor}"></a>{row.statuses} | {result} | {row.source} | {row.reason} |'
        )
    return "\n".join(rows)


def identifiers() -> str:
    rows = ["| Rank | Group (anchor) | Code | Identifiers (as documented; compared normalised) |"]
    rows.append("| --- | --- | --- | --- |")
    for rank, (code, quota) in enumerate(PRECEDENCE, 1):
        anchor = ANCHORS[(code, quota)]
        names = [
            r.match
            for r in BUILTIN
            if r.kind == "identifier" and r.scope == "any" and (r.code, r.quota) == (code, quota)
        ]
        rows.append(
            f'| {rank} | <a id="{anchor}"></a>`{anchor}` | {_code(code, quota)} | {_ticks(names)} |'
        )
    return "\n".join(rows)


def _http_phrases(test: Callable[[Rule], bool], label: str) -> str:
    phrases = [r.match for r in BUILTIN if r.kind == "phrase" and r.scope == "http" and test(r)]
    return f"**{label}:** {_ticks(phrases)}."


def quota_phrases() -> str:
    return _http_phrases(lambda r: r.quota, "Quota phrases")


def rate_phrases() -> str:
    return _http_phrases(lambda r: r.code is Code.RATE_LIMITED, "Rate phrases")


def envelope_identifiers() -> str:
    rows = ["| Identifier | Code | Source | Reason |", "| --- | --- | --- | --- |"]
    for r in BUILTIN:
        if r.kind == "identifier" and r.scope == "envelope":
            rows.append(f"| `{r.match}` | {_code(r.code)} | {_source(r.source)} | {r.reason} |")
    return "\n".join(rows)


def envelope_phrases() -> str:
    rows = ["| Phrase | Code | Source | Reason |", "| --- | --- | --- | --- |"]
    for r in BUILTIN:
        if r.kind == "phrase" and r.scope == "envelope":
            rows.append(f"| `{r.match}` | {_code(r.code)} | {_source(r.source)} | {r.reason} |")
    return "\n".join(rows)


def jsonrpc_codes() -> str:
    rows = ["| `error.code` | Code | Source | Reason |", "| --- | --- | --- | --- |"]
    for number, rule in JSONRPC_CODES.items():
        final = " †" if rule.final else ""
        rows.append(
            f"| {number} | {_code(rule.code)}{final} | {_source(rule.source)} | {rule.reason} |"
        )
    for label, rule in (
        ("any other −32099…−32000 (server error)", JSONRPC_SERVER_ERROR),
        ("any other integer, or none", JSONRPC_OTHER),
    ):
        rows.append(f"| {label} | {_code(rule.code)} | {_source(rule.source)} | {rule.reason} |")
    return "\n".join(rows)


def reason_phrases() -> str:
    rows = ["| Status | Phrases |", "| --- | --- |"]
    rows.extend(f"| {status} | {_ticks(p)} |" for status, p in REASON_PHRASES.items())
    return "\n".join(rows)


def general() -> str:
    rows = ["| Group | Code | Phrases (at a word start) | Fragments (in identifiers) | Source |"]
    rows.append("| --- | --- | --- | --- | --- |")
    for code, quota in PRECEDENCE:
        sources: dict[str, tuple[list[str], list[str]]] = {}
        for r in GENERAL:
            if (r.code, r.quota) == (code, quota):
                phrases, fragments = sources.setdefault(r.source, ([], []))
                (phrases if r.kind == "phrase" else fragments).append(str(r.key))
        for source, (phrases, fragments) in sources.items():
            rows.append(
                f"| `{ANCHORS[(code, quota)]}` | {_code(code, quota)} | {_ticks(phrases)} | "
                f"{_ticks(fragments)} | {_source(source)} |"
            )
    return "\n".join(rows)


def model_text() -> str:
    """SPEC 6.8: each code's model-text lines, and whether the reason line is there."""
    rows = ["| Code | First line | Last line | `Why:` line |", "| --- | --- | --- | --- |"]
    for code in dict.fromkeys((Code.RATE_LIMITED, Code.TIMEOUT, Code.UNAVAILABLE, *codes())):
        lines = MODEL_TEXT[code]
        why = "yes" if lines.why else "no"
        rows.append(f"| {_code(code)} | `{lines.first}` | `{lines.last}` | {why} |")
    return "\n".join(rows)


_FOREIGN_DECIDES = {
    "permanent": "`UNKNOWN`, as step 5",
    "timeout": "`TIMEOUT`, as step 3",
    "connection": "not decisive",
}


def foreign_transport() -> str:
    """SPEC 4.2 step 3.6: the foreign transport wordings, group by group, in order."""
    rows = [
        "| Group | Decides | Runtimes | Anywhere in the message | As a whole word |",
        "| --- | --- | --- | --- | --- |",
    ]
    for group in FOREIGN_WORDINGS:
        rows.append(
            f"| `{group.concept}` | {_FOREIGN_DECIDES[group.kind]} | {group.runtimes} "
            f"| {_ticks(group.texts)} | {_ticks(group.words) or '—'} |"
        )
    return "\n".join(rows)


FOREIGN_JSON = SPEC.parent / "spec" / "foreign-transport.json"
"""SPEC 4.2 step 3.6's wordings as data for ports: the groups in the order they are tested."""


def foreign_json() -> str:
    groups = [
        {
            "group": group.concept,
            "decides": {"permanent": "UNKNOWN", "timeout": "TIMEOUT"}.get(group.kind),
            "anywhere": list(group.texts),
            "whole_word": list(group.words),
        }
        for group in FOREIGN_WORDINGS
    ]
    document = {"window": FOREIGN_WINDOW, "case_sensitive": True, "groups": groups}
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


ENTITIES_JSON = SPEC.parent / "spec" / "html-entities.json"
"""SPEC 7.1's HTML unescaping as data: the tables of Python's ``html.unescape``, which the
package applies to the text of a markup window."""


def entities_json() -> str:
    document = {
        "reference": r"&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)",
        "invalid_charrefs": {
            str(number): text
            for number, text in sorted(html._invalid_charrefs.items())  # type: ignore[attr-defined]
        },
        "invalid_codepoints": sorted(html._invalid_codepoints),  # type: ignore[attr-defined]
        "named": dict(sorted(html.entities.html5.items())),
    }
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


def templates() -> str:
    """SPEC 6.1: each code's hint template."""
    rows = ["| Code | Template |", "| --- | --- |"]
    rows += [f"| `{code.value}` | `{template}` |" for code, template in TEMPLATES.items()]
    return "\n".join(rows)


HINTS_JSON = SPEC.parent / "spec" / "hint-templates.json"
"""SPEC 6.1-6.4 and 11.7's hint texts as data: templates and what fills them."""


def hints_json() -> str:
    document = {
        "templates": {code.value: template for code, template in TEMPLATES.items()},
        "quota_template": QUOTA_TEMPLATE,
        "malformed_request": MALFORMED_HINT,
        "where": {
            "status": where(503).replace("503", "{status}"),
            "transport": where(0, transport=True),
            "no_valid_status": where(0),
        },
        "wait": {
            "absent": wait_phrase(None),
            "zero": wait_phrase(0),
            "one": wait_phrase(1),
            "more": wait_phrase(2).replace("2", "{n}"),
        },
        "said": " The API said: {quote}",
        "client_said": " The HTTP client said: {message}",
    }
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


QUOTING_JSON = SPEC.parent / "spec" / "quoting.json"
"""SPEC 7.3-7.4's sets and patterns as data: the invisible characters and the redaction
rules in the order they run (Python ``re`` syntax, ASCII; see the porting notes)."""


def _ranges(test: Callable[[str], bool]) -> list[list[int]]:
    spans: list[list[int]] = []
    for point in range(0x110000):
        if test(chr(point)):
            if spans and spans[-1][1] == point - 1:
                spans[-1][1] = point
            else:
                spans.append([point, point])
    return spans


def quoting_json() -> str:
    document = {
        "invisible": _ranges(lambda char: INVISIBLE.match(char) is not None),
        "redaction_rules": [
            {
                "rule": index,
                "pattern": rule.pattern.pattern,
                "case_insensitive": rule.fold,
                "literals": list(rule.literals),
            }
            for index, rule in enumerate(REDACTIONS, 1)
        ],
    }
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


def reason_rules() -> str:
    rows = ["| Rule | Decided by |", "| --- | --- |"]
    rows += [f"| `{rule}` | {meaning} |" for rule, meaning in REASON_RULES.items()]
    return "\n".join(rows)


TABLES: dict[str, Callable[[], str]] = {
    "templates": templates,
    "foreign-transport": foreign_transport,
    "status": status,
    "identifiers": identifiers,
    "quota-phrases": quota_phrases,
    "rate-phrases": rate_phrases,
    "envelope-identifiers": envelope_identifiers,
    "envelope-phrases": envelope_phrases,
    "jsonrpc-codes": jsonrpc_codes,
    "reason-phrases": reason_phrases,
    "general": general,
    "model-text": model_text,
    "reason-rules": reason_rules,
}


def marked(text: str) -> dict[str, str]:
    """The body of every marked table in ``text``, by name."""
    return {m[2]: m[3].rstrip("\n") for m in _MARKED.finditer(text)}


def rendered(text: str) -> str:
    """``text`` with every marked table replaced by its rendering from the rule data."""
    return _MARKED.sub(lambda m: f"{m[1]}{TABLES[m[2]]()}\n{m[4]}", text)


STATUS_JSON = SPEC.parent / "spec" / "status-table.json"
"""The status table as data for ports: one object per row, in the table's order."""


def status_json() -> str:
    """The status table as JSON: each row's statuses 100–599 as ``[first, last]`` spans (a
    narrower row wins where spans overlap; ``[]``: a row about inputs outside 100–599)."""
    rows = [
        {
            "anchor": row.anchor,
            "statuses": row.statuses,
            "covers": [row.covers.start, row.covers.stop - 1] if row.covers else [],
            "code": None if row.code is None else row.code.value,
            "source": row.source,
            "reason": row.reason,
        }
        for row in STATUS_TABLE
    ]
    return json.dumps({"rows": rows}, ensure_ascii=False, indent=1) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        SPEC.write_text(rendered(SPEC.read_text(encoding="utf-8")), encoding="utf-8")
        STATUS_JSON.write_text(status_json(), encoding="utf-8")
        FOREIGN_JSON.write_text(foreign_json(), encoding="utf-8")
        ENTITIES_JSON.write_text(entities_json(), encoding="utf-8")
        HINTS_JSON.write_text(hints_json(), encoding="utf-8")
        QUOTING_JSON.write_text(quoting_json(), encoding="utf-8")
    else:
        sys.stdout.write(rendered(SPEC.read_text(encoding="utf-8")))
