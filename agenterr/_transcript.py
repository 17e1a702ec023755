"""Raw HTTP response transcripts, as ``curl -i`` and ``curl -D`` write them, for the CLI.

A transcript is a status line (``HTTP/1.1 429 Too Many Requests``, ``HTTP/2 429``), header
lines, a blank line and the body, with CRLF or LF line endings. Responses that came before
the final one — an interim ``HTTP/1.1 100 Continue``, a proxy's ``HTTP/1.1 200 Connection
established``, a redirect followed with ``curl -L`` — are skipped: a head followed directly
by another status line is not the response being classified.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import BinaryIO

__all__ = [
    "HEAD_LIMIT",
    "Transcript",
    "TranscriptError",
    "looks_like_transcript",
    "parse_headers",
    "parse_transcript",
    "read_transcript",
]

HEAD_LIMIT = 1 << 16
"""Most bytes of status lines and headers (all the heads of a transcript together) read."""

_STATUS_LINE = re.compile(rb"HTTP/\d(?:\.\d)?[ \t]+(\d{3})(?:[ \t][^\r\n]*)?\r?(?:\n|\Z)")
_FIELD_NAME = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_BOM = b"\xef\xbb\xbf"


class TranscriptError(ValueError):
    """The text is not an HTTP response transcript (the message says where)."""


@dataclass(frozen=True, slots=True)
class Transcript:
    """The final response of a transcript: its status, header fields in order, body bytes."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes


def _start(data: bytes) -> int:
    """Where the first status line may start: after a BOM and leading blank lines."""
    pos = len(_BOM) if data.startswith(_BOM) else 0
    while pos < len(data) and data[pos] in b" \t\r\n":
        pos += 1
    return pos


def looks_like_transcript(data: bytes) -> bool:
    """Whether ``data`` begins with an HTTP status line (after blank lines)."""
    return _STATUS_LINE.match(data, _start(data)) is not None


def _line(data: bytes, pos: int) -> tuple[bytes, int]:
    """The line at ``pos`` without its CRLF or LF, and where the next one starts."""
    end = data.find(b"\n", pos)
    if end < 0:
        return data[pos:].removesuffix(b"\r"), len(data)
    return data[pos:end].removesuffix(b"\r"), end + 1


def _shown(line: bytes) -> str:
    return repr(line[:60].decode("latin-1")) + ("…" if len(line) > 60 else "")


def _fields(data: bytes, pos: int, number: int) -> tuple[list[tuple[str, str]], int, int]:
    """The header fields from ``pos`` up to a blank line (or the end); where the body starts,
    and the number of the line read last."""
    headers: list[tuple[str, str]] = []
    while pos < len(data):
        line, pos = _line(data, pos)
        number += 1
        if not line:
            break
        if line[:1] in (b" ", b"\t") and headers:  # an obsolete folded continuation line
            folded, before = headers[-1]
            headers[-1] = (folded, f"{before} {line.strip().decode('latin-1')}".strip())
            continue
        name, sep, value = line.partition(b":")
        if not sep or not _FIELD_NAME.fullmatch(name):
            raise TranscriptError(
                f"line {number}: expected a header 'Name: value', got {_shown(line)}"
            )
        headers.append((name.decode("latin-1"), value.strip(b" \t").decode("latin-1")))
    return headers, pos, number


def parse_transcript(data: bytes) -> Transcript:
    """The final response of a ``curl -i`` / ``curl -D -`` transcript.

    Raises :class:`TranscriptError` when it does not start with a status line, when a
    head line is not a header, or when the heads are longer than :data:`HEAD_LIMIT`.
    """
    pos = _start(data)
    number = data.count(b"\n", 0, pos)
    while True:
        match = _STATUS_LINE.match(data, pos)
        if match is None:
            line, _ = _line(data, pos)
            raise TranscriptError(
                f"line {number + 1}: expected an HTTP status line such as "
                f"'HTTP/1.1 200 OK', got {_shown(line)}"
            )
        status = int(match[1])
        headers, pos, number = _fields(data, match.end(), number + 1)
        if pos > HEAD_LIMIT:
            raise TranscriptError(f"the status lines and headers exceed {HEAD_LIMIT} bytes")
        if _STATUS_LINE.match(data, pos) is None:
            return Transcript(status, headers, data[pos:])
        # A head followed by another response's status line: 1xx, CONNECT, a redirect.


def read_transcript(stream: BinaryIO, body_limit: int) -> Transcript:
    """:func:`parse_transcript` of ``stream``, reading at most the head limit and
    ``body_limit`` bytes of body."""
    transcript = parse_transcript(stream.read(HEAD_LIMIT + body_limit))
    if len(transcript.body) > body_limit:
        return Transcript(transcript.status, transcript.headers, transcript.body[:body_limit])
    return transcript


def parse_headers(data: bytes) -> tuple[int | None, list[tuple[str, str]]]:
    """A headers file: ``Name: value`` lines, or what ``curl -D FILE`` writes (status lines
    first). The status of the final response when the file has one, and its headers."""
    if looks_like_transcript(data):
        transcript = parse_transcript(data)
        if transcript.body.strip():
            raise TranscriptError("text after the headers (a body belongs in --body-file)")
        return transcript.status, transcript.headers
    headers: list[tuple[str, str]] = []
    pos = _start(data)
    number = data.count(b"\n", 0, pos)
    while pos < len(data):  # blank lines may separate blocks of header lines
        found, pos, number = _fields(data, pos, number)
        headers += found
    return None, headers
