"""Every record the decorator logs passes the cleaning and redaction gate.

The WARNING for ``UNKNOWN`` carries the traceback; an exception's message can hold a
credential (a request URL's ``api_key=``), and so can the message of an ``on_failure``
observer or an ``errors=`` rule that raised. What any formatter prints must not.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agenterr import Code, classified_tool

SECRET = "sk-abcdefghijklmnopqrstuvwxyz0123456789"
URL = f"https://api.example.com/v1/orders?api_key={SECRET}"


@pytest.fixture
def log() -> Iterator[tuple[io.StringIO, list[logging.LogRecord]]]:
    """What a plain handler of the application prints, and the records themselves."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = logging.getLogger("agenterr")
    keep = Keep()
    logger.addHandler(handler)
    logger.addHandler(keep)
    previous = logger.level
    logger.setLevel(logging.DEBUG)
    try:
        yield stream, records
    finally:
        logger.setLevel(previous)
        logger.removeHandler(handler)
        logger.removeHandler(keep)


def _bug() -> None:
    raise ValueError(f"could not parse the answer of {URL}")


def _bug_from_a_failure() -> None:
    try:
        raise ConnectionError(f"GET {URL} failed")
    except ConnectionError:
        raise KeyError(f"token={SECRET}") from None


def _bug_while_handling() -> None:
    try:
        raise ValueError(f"Authorization: Bearer {SECRET}")
    except ValueError:
        raise RuntimeError("handler bug")  # noqa: B904 - the implicit context is the point


def _bug_with_a_cause() -> None:
    try:
        raise ValueError(f"password={SECRET}")
    except ValueError as exc:
        raise RuntimeError(f"retry of {URL} broke") from exc


def _group_of_bugs() -> None:
    raise ExceptionGroup("batch", [ValueError(f"api_key={SECRET}"), KeyError(URL)])


def _note() -> None:
    error = ValueError("bad")
    error.add_note(f"while calling {URL}")
    raise error


def _multiline() -> None:
    raise ValueError(f"first line\nCRITICAL forged record api_key={SECRET}")


BUGS: dict[str, Callable[[], None]] = {
    "message": _bug,
    "raised from None": _bug_from_a_failure,
    "context": _bug_while_handling,
    "cause": _bug_with_a_cause,
    "group": _group_of_bugs,
    "note": _note,
    "newline": _multiline,
}


def _assert_clean(text: str) -> None:
    assert SECRET not in text
    assert SECRET[:12] not in text


@pytest.mark.parametrize("body", list(BUGS.values()), ids=list(BUGS))
def test_the_unknown_warning_traceback_is_redacted(
    body: Callable[[], None], log: tuple[io.StringIO, list[logging.LogRecord]]
) -> None:
    """The traceback is there, as exc_text, with every credential redacted."""
    stream, records = log
    outcome = classified_tool(body)()
    assert outcome.code is Code.UNKNOWN
    text = stream.getvalue()
    _assert_clean(text)
    assert "Traceback (most recent call last):" in text
    assert "[REDACTED]" in text
    (record,) = records
    assert record.levelno == logging.WARNING
    assert record.exc_info is None  # a formatter could print exc_info's messages raw
    assert record.exc_text is not None and record.exc_text in text
    assert not any(line.startswith("CRITICAL") for line in text.splitlines())


def test_the_raising_mode_is_redacted_too(
    log: tuple[io.StringIO, list[logging.LogRecord]],
) -> None:
    stream, _ = log
    with pytest.raises(Exception, match="could not be classified"):
        classified_tool(raises=True)(_bug)()
    _assert_clean(stream.getvalue())
    assert "ValueError: could not parse the answer of" in stream.getvalue()


def test_an_observer_that_raises_is_logged_redacted(
    log: tuple[io.StringIO, list[logging.LogRecord]],
) -> None:
    stream, records = log

    def observer(name: str, outcome: Any, exc: BaseException | None) -> None:
        raise RuntimeError(f"could not post to {URL}")

    classified_tool(on_failure=observer)(_bug)()
    _assert_clean(stream.getvalue())
    assert any("observer" in r.getMessage() and r.exc_text for r in records)


def test_an_errors_rule_that_raises_is_logged_redacted(
    log: tuple[io.StringIO, list[logging.LogRecord]],
) -> None:
    stream, records = log

    def rule(exc: Exception) -> None:
        raise RuntimeError(f"rule failed for {URL}")

    classified_tool(errors={ValueError: rule})(_bug)()
    _assert_clean(stream.getvalue())
    assert any("errors= rule" in r.getMessage() and r.exc_text for r in records)


def test_arguments_of_a_record_are_quoted_through_the_gate(
    log: tuple[io.StringIO, list[logging.LogRecord]],
) -> None:
    """The tool's name and an errors= rule's result type reach the text cleaned too."""
    stream, _ = log

    class Weird:
        pass

    Weird.__name__ = f"Result\x1b[31m api_key={SECRET}"

    def rule(exc: Exception) -> Any:
        return Weird()

    classified_tool(errors={ValueError: rule})(_bug)()
    text = stream.getvalue()
    _assert_clean(text)
    assert "\x1b" not in text


def test_a_plain_failure_is_logged_as_before(
    log: tuple[io.StringIO, list[logging.LogRecord]],
) -> None:
    """A classified failure: one INFO line, no traceback."""
    stream, records = log

    def down() -> None:
        raise ConnectionResetError(104, f"reset by {URL}")

    classified_tool(down)()
    (record,) = records
    assert record.levelno == logging.INFO and record.exc_text is None
    assert stream.getvalue() == "INFO agenterr tool down failed: UNAVAILABLE class=transient\n"
