"""Issue 24's audit as a regression suite: every credential shape the audit found leaking,
through every output path that quotes it — the hint of a status and of a raised HTTP error,
``to_json``, a hint read from the wire, the decorator's Outcome and its logged traceback,
the CLI's JSONL answer, and the OpenAI and Anthropic tool messages. (The Temporal, Celery and
Dramatiq hand-offs have their own tests, on the real engines.)
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from agenterr import Code, Outcome, classified_tool, from_error, from_status
from agenterr._cli import answer_line
from agenterr.integrations.anthropic import tool_result_block
from agenterr.integrations.openai import chat_tool_message, function_call_output
from agenterr.testing import http_status_error

SANCTUM = "abcdefghijklmnopqrstuvwxyz0123456789ABCD"

# (what the API or the exception said, the secret in it)
AUDIT = [
    ('{"password":"hun\\"ter2zz"}', "ter2zz"),
    ("{'password': 'hun\\'ter2zz'}", "ter2zz"),
    ("password: |\n  hunter2zz\nuser: bob", "hunter2zz"),
    ("password: &pw hunter2zz", "hunter2zz"),
    ('{"password": {"value": "hunter2zz"}}', "hunter2zz"),
    ('{"api_key": ["hunter2zz"]}', "hunter2zz"),
    ("Authorization: ApiKey hunter2zz99", "hunter2zz99"),
    ("Authorization: SSWS 00QCjAl4MlV-hunter2zz", "hunter2zz"),
    (f"Authorization: Bearer 1|{SANCTUM}", SANCTUM),
    ("q=Bearer%20sk-proj-hunter2zzhunter2zz", "hunter2zzhunter2zz"),
    ("u?key%3Dsk-hunter2zzhunter2zz", "hunter2zzhunter2zz"),
    ("Set-Cookie: a=1; Path=/, sid=hunter2zz; HttpOnly", "hunter2zz"),
    ("<Error><Password><b>hun</b>ter2zz</Password></Error>", "ter2zz"),
    ("<Error><Token><Value>hunter2zz</Value></Token></Error>", "hunter2zz"),
    ("password\\u003ahunter2zz", "hunter2zz"),
    ("DefaultEndpointsProtocol=https;AccountKey=hunter2zz==;EndpointSuffix=x", "hunter2zz"),
    ("GET /b?sv=1&sig=hunter2zz%3D&se=2", "hunter2zz"),
    ("GET /k?X-Amz-Signature=hunter2zz&X-Amz-Date=1", "hunter2zz"),
    ("SignedHeaders=host, Signature=hunter2zz", "hunter2zz"),
    ("GET /u.json?auth=hunter2zz", "hunter2zz"),
    ("GET /cb?code=hunter2zz&state=x", "hunter2zz"),
    ("//registry.npmjs.org/:_auth=hunter2zz", "hunter2zz"),
    ('{"auths":{"r":{"auth":"hunter2zz"}}}', "hunter2zz"),
    ('{"name":"DB_PASSWORD","value":"hunter2zz"}', "hunter2zz"),
    ('[["Authorization","hunter2zz"]]', "hunter2zz"),
    ("X-Auth-Key: hunter2zz", "hunter2zz"),
    ("Ocp-Apim-Subscription-Key: hunter2zz", "hunter2zz"),
    ("apitoken=hunter2zz", "hunter2zz"),
    ("csrftoken=hunter2zz", "hunter2zz"),
    ("password&#61;hunter2zz", "hunter2zz"),
    ("token&colon; hunter2zz99", "hunter2zz99"),
    ("clone https://hunter2zz0123456789@github.com/o/r", "hunter2zz0123456789"),
    ("Authorization: Bearer hunter2", "hunter2"),
    # issue 24, the three shapes still leaking: a password of several words, alone and in a
    # YAML block; a URL password holding "/" and "#"; JSON inside a Python repr
    ("password: correct horse battery staple", "battery staple"),
    ("db:\n  password: correct horse battery staple\n  host: x", "battery staple"),
    ("- password: correct horse battery staple", "battery staple"),
    ('{"c": "db:\\n  password: correct horse battery staple\\n  host: x"}', "battery staple"),
    ("https://user:p/ss#w0rd@host/path", "ss#w0rd"),
    ("""KeyError('{"password":"hun\\\\"ter2zz"}')""", "ter2zz"),
    # the last of them: a multi-word value after a sibling top-level key, values nested
    # three levels and more, and a nested string holding a closing bracket
    ("user: admin\npassword: correct horse battery staple\nhost: x", "battery staple"),
    ("user: admin\r\n  - db_password: correct horse battery\r\n", "horse battery"),
    ('{"c": "user: admin\\npassword: correct horse battery staple"}', "battery staple"),
    ('{"password": {"a": {"b": {"c": "hunter2zz"}}}}', "hunter2zz"),
    ('{"api_key": [["x", ["hunter2zz"]]]}', "hunter2zz"),
    ('{"password": {"v": "a}b hunter2zz"}}', "hunter2zz"),
    ("""KeyError({'secret': {'a': {'b': ['hunter2zz']}}})""", "hunter2zz"),
    ("{'api_key': ('x', 'hunter2zz')}", "hunter2zz"),
    ("{'password': Secret(value='hunter2zz')}", "hunter2zz"),
    ("{'password': b'hunter2zz'}", "hunter2zz"),
    ('{"credentials":[{"type":"password","value":"hunter2zz"}]}', "hunter2zz"),
    ('{"ParameterKey":"DbPassword","ParameterValue":"hunter2zz"}', "hunter2zz"),
    ('{"name":"DB_PASSWORD","type":"string","value":"hunter2zz"}', "hunter2zz"),
]
IDS = [f"audit-{number}" for number in range(len(AUDIT))]


def _wire_text(outcome: Outcome[object]) -> str:
    return outcome.to_json() + json.dumps(outcome.to_dict())


@pytest.mark.parametrize(("said", "secret"), AUDIT, ids=IDS)
def test_the_hint_and_the_wire(said: str, secret: str) -> None:
    for outcome in (from_status(400, said), from_error(http_status_error(400, said))):
        assert outcome.code is Code.INVALID_REQUEST
        assert secret not in outcome.llm_hint
        assert secret not in _wire_text(outcome)
    read = Outcome.from_dict({"ok": False, "code": "UNKNOWN", "llm_hint": f"Bad: {said}"})
    assert secret not in read.llm_hint
    assert secret not in Outcome(Code.UNKNOWN, said).llm_hint


@pytest.mark.parametrize(("said", "secret"), AUDIT, ids=IDS)
def test_the_tool_messages(said: str, secret: str) -> None:
    outcome = from_status(400, said)
    messages = [
        chat_tool_message(outcome, "call_1"),
        function_call_output(outcome, "call_1"),
        tool_result_block(outcome, "toolu_1"),
    ]
    assert secret not in json.dumps(messages)


@pytest.mark.parametrize(("said", "secret"), AUDIT, ids=IDS)
def test_the_cli(said: str, secret: str) -> None:
    for request in ({"status": 400, "body": said}, {"schema_invalid": [said]}):
        answer = answer_line(1, json.dumps(request).encode())
        assert answer is not None and secret not in answer


@pytest.fixture
def log() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger = logging.getLogger("agenterr")
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.DEBUG)
    try:
        yield stream
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


@pytest.mark.parametrize(("said", "secret"), AUDIT, ids=IDS)
def test_the_decorator_and_its_log(said: str, secret: str, log: io.StringIO) -> None:
    @classified_tool(expose_errors=True)
    def tool() -> None:
        try:
            raise RuntimeError(said)
        except RuntimeError as inner:
            raise ValueError(said) from inner

    outcome = tool()
    assert outcome.code is Code.UNKNOWN
    assert secret not in outcome.llm_hint and secret not in _wire_text(outcome)
    text = log.getvalue()
    assert "Traceback" in text  # the WARNING's traceback, rendered through the gate
    assert secret not in text
