"""The fast paths of the JSONL stream give exactly what the general paths give."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import threading
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agenterr import Code, Failure, Outcome
from agenterr._cli import request_batches
from agenterr._headers import HeaderView
from agenterr._protocol import iter_jsonl

_TEXT = st.text(st.characters(codec="utf-8") | st.sampled_from('"\\\n\t\x00\x7f—\u2028'))


@given(
    code=st.none() | st.sampled_from(list(Code)),
    hint=_TEXT | st.sampled_from(["a\udcffb", ""]),
    retry_after=st.none() | st.floats(min_value=0, max_value=86_400),
    status=st.sampled_from([0, 100, 404, 429, 503, 599]),
    success_status=st.sampled_from([0, 200, 204]),
)
def test_compact_json_is_json_dumps_of_to_dict(
    code: Code | None, hint: str, retry_after: float | None, status: int, success_status: int
) -> None:
    """to_json() writes the wire form by hand; it must be byte for byte json.dumps's."""
    if code is None:  # a success carries no hint, no delay and a 2xx (or no) status
        hint, retry_after, status = "", None, success_status
    outcome: Outcome[None] = Outcome(code, hint, retry_after, status)
    expected = json.dumps(outcome.to_dict(), ensure_ascii=False, separators=(",", ":"))
    assert outcome.to_json() == expected


def test_compact_json_of_odd_field_types_falls_back() -> None:
    """A field of an unexpected type, or a subclass's own to_dict, is written by json.dumps."""
    outcome: Outcome[None] = Outcome(Code.UNKNOWN, "x", None, 500)
    object.__setattr__(outcome, "status", True)  # past any validation: the writer's fallback
    assert outcome.to_json() == json.dumps(outcome.to_dict(), separators=(",", ":"))

    class Custom(Failure):
        def to_dict(self, *, explain: bool = False) -> dict[str, Any]:
            return {"custom": True}

    assert Custom(Code.UNKNOWN).to_json() == '{"custom":true}'


def test_an_outcome_subclass_must_be_a_kind() -> None:
    """Every outcome is a Success or a Failure: a subclass of Outcome itself cannot be built."""

    class Neither(Outcome[None]):
        pass

    with pytest.raises(TypeError, match="Success or Failure"):
        Neither(Code.UNKNOWN)


_NAMES = st.sampled_from(["Retry-After", "retry-after", "DATE", "X-Other", "content-type"])
_KEYS = _NAMES | st.text(max_size=5)
_VALUES = st.text(max_size=8) | st.just("x" * 5000)


@given(
    headers=st.dictionaries(_KEYS, _VALUES | st.binary(max_size=4) | st.integers(), max_size=8),
    names=st.none() | st.just(frozenset({"retry-after", "date"})),
)
def test_header_view_of_a_dict_reads_as_pairs_do(
    headers: dict[str, object], names: frozenset[str] | None
) -> None:
    """The plain-dict fast path keeps what the general loop keeps, first value per name."""
    fast = HeaderView.of(headers, names)
    general = HeaderView.of(list(headers.items()), names)
    for name in {str(k).lower() for k in headers} | {"retry-after", "date"}:
        assert fast.get(name) == general.get(name)
    assert bool(fast) == bool(general)


class _Trickle(io.RawIOBase):
    """A stream that returns its data in the given piece sizes, as a pipe may."""

    def __init__(self, data: bytes, sizes: list[int]) -> None:
        self._data, self._sizes = data, sizes or [1]

    def read1(self, size: int = -1) -> bytes:
        piece = self._sizes[0]
        self._sizes = self._sizes[1:] or self._sizes
        piece = min(piece, size) if size >= 0 else piece
        out, self._data = self._data[:piece], self._data[piece:]
        return out


@given(
    lines=st.lists(
        st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")), min_size=0, max_size=8
    ),
    trailing=st.booleans(),
    sizes=st.lists(st.integers(1, 9), min_size=1, max_size=5),
    limit=st.integers(1, 10),
)
def test_request_batches_split_as_readline_does(
    lines: list[bytes], trailing: bool, sizes: list[int], limit: int
) -> None:
    """Whatever pieces the input arrives in, the lines (and over-long ones) are readline's,
    without their newline."""
    data = b"\n".join(lines) + (b"\n" if trailing and lines else b"")
    batches = list(request_batches(_Trickle(data, sizes), limit))
    assert all(batches)
    got = [item for batch in batches for item in batch]
    expected = [
        (number, None if line is None else line.removesuffix(b"\n"))
        for number, line in iter_jsonl(io.BytesIO(data), limit)
    ]
    assert got == expected


@pytest.mark.external
def test_jsonl_answers_each_line_before_the_next_arrives() -> None:
    """Answers are flushed per read: an interactive writer gets each one before writing on."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "agenterr", "classify", "--jsonl"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    # Unflushed answers would block readline for ever: the timer turns that into a failure.
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    try:
        for status, code in ((503, "UNAVAILABLE"), (404, "NOT_FOUND"), (429, "RATE_LIMITED")):
            proc.stdin.write(json.dumps({"status": status}).encode() + b"\n")
            proc.stdin.flush()
            assert json.loads(proc.stdout.readline())["code"] == code
        proc.stdin.close()
        assert proc.wait(60) == 0
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()
        proc.stdout.close()
