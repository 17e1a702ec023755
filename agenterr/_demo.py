"""``agenterr demo``: an agent, a flaky API and agenterr deciding, call by call, in seconds.

A small payments API runs on 127.0.0.1 (stdlib ``http.server``, a free port, stopped at the
end) and injects the failures real APIs produce: rate limits with Retry-After, 5xx blips,
slow answers, invented ids, invalid amounts and an expired token. Tools decorated with
``@classified_tool`` call it through httpx (or urllib when httpx is not installed). No language
model runs: a script stands in for one, proposing calls (some with wrong arguments) and
taking the next proposal when re-prompted, and the demo says so. The loop reacts to each
Outcome: retry after the server's delay, re-prompt with the hint, or escalate. A summary then
states the calls and model turns that two naive policies would have wasted on the same
failures.

Everything is offline and seeded; nothing here is imported by ``import agenterr``.
"""

from __future__ import annotations

import json
import os
import random
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO

from ._decorator import classified_tool
from ._outcome import Outcome
from ._taxonomy import Class
from ._transport import from_error

__all__ = ["run_demo"]

CLIENT_TIMEOUT = 0.4
"""Seconds the demo's HTTP client waits; the API's slow answers take longer."""
MAX_ATTEMPTS = 4
"""Calls per step before the loop gives up on a transient failure."""
BACKOFF = 0.2
"""Seconds to wait before retrying a transient failure that advised no delay."""

CHARGES = {"ch_3Nq8": 4200, "ch_7Kp2": 1500, "ch_9Xw4": 990}
VALID_TOKEN = "demo-token"


# --- the flaky API ---------------------------------------------------------------------


_Fault = tuple[int, dict[str, str], str] | str
"""An injected failure: (status, headers, error message), or "slow" (answer too late)."""


@dataclass
class _Faults:
    """Failures the API injects, consumed in order by the routes that match them."""

    queue: dict[str, list[_Fault]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next(self, route: str) -> _Fault | None:
        with self.lock:
            pending = self.queue.get(route)
            return pending.pop(0) if pending else None


def _handler(faults: _Faults) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _send(
            self, status: int, payload: object, headers: dict[str, str] | None = None
        ) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def _fault(self, route: str) -> bool:
            fault = faults.next(route)
            if fault is None:
                return False
            if isinstance(fault, str):  # "slow"
                time.sleep(CLIENT_TIMEOUT * 2)
                self._send(200, {"late": True})
                return True
            status, headers, message = fault
            self._send(status, {"error": message}, headers)
            return True

        def _authorised(self) -> bool:
            if self.headers.get("Authorization") == f"Bearer {VALID_TOKEN}":
                return True
            self._send(401, {"error": "token expired"})
            return False

        def do_GET(self) -> None:
            if not self._authorised() or self._fault("charges"):
                return
            if self.path == "/charges":
                self._send(200, {"charges": sorted(CHARGES)})
                return
            charge = self.path.rpartition("/")[2]
            if charge not in CHARGES:
                self._send(404, {"error": f"No such charge: '{charge}'"})
                return
            self._send(200, {"id": charge, "amount": CHARGES[charge]})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            args = json.loads(self.rfile.read(length) or b"{}")
            if not self._authorised() or self._fault("refunds"):
                return
            charge, amount = args.get("charge_id"), args.get("amount")
            if charge not in CHARGES:
                self._send(404, {"error": f"No such charge: '{charge}'"})
            elif not isinstance(amount, int) or amount <= 0:
                self._send(422, {"error": "amount must be a positive integer"})
            elif amount > CHARGES[charge]:
                self._send(422, {"error": f"amount exceeds the charge ({CHARGES[charge]})"})
            else:
                self._send(200, {"refund": f"re_{charge[3:]}", "amount": amount})

        def log_message(self, *args: object) -> None:
            pass

    return Handler


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a slow answer's client has gone (it timed out): that is the point, not an error


@contextmanager
def _api(faults: _Faults) -> Iterator[str]:
    server = _QuietServer(("127.0.0.1", 0), _handler(faults))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


# --- the tools ---------------------------------------------------------------------------


@contextmanager
def _client(base: str, token: str) -> Iterator[tuple[str, Callable[..., Any]]]:
    """An HTTP call function returning what agenterr understands, closed at the end."""
    headers = {"Authorization": f"Bearer {token}"}
    try:
        import httpx
    except ImportError:
        httpx = None  # type: ignore[assignment]
    if httpx is not None:
        # trust_env=False: the API is on 127.0.0.1, so a proxy from the environment
        # (HTTP_PROXY, ALL_PROXY) must not see, or break, the demo's traffic.
        with httpx.Client(
            base_url=base, headers=headers, timeout=CLIENT_TIMEOUT, trust_env=False
        ) as client:

            def call_httpx(method: str, path: str, body: object = None) -> Any:
                return client.request(method, path, json=body)

            yield "httpx", call_httpx
        return

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no env proxies

    def call_urllib(method: str, path: str, body: object = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            base + path, data=data, method=method, headers=headers | {"Content-Type": "json"}
        )
        try:
            with opener.open(request, timeout=CLIENT_TIMEOUT) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            # Classify while the error still holds the body (from_error peeks at it), then
            # release the connection; the decorator passes the typed error through.
            with exc:
                from_error(exc).raise_for_failure()
            raise

    yield "urllib", call_urllib


def _json(response: Any) -> Any:
    return response.json() if hasattr(response, "json") else response


def _tools(call: Callable[..., Any]) -> dict[str, Callable[..., Outcome[Any]]]:
    @classified_tool
    def get_charge(charge_id: str) -> Any:
        """Look up a charge by id."""
        return call("GET", f"/charges/{charge_id}")

    @classified_tool
    def list_charges() -> Any:
        """List the ids of recent charges."""
        return call("GET", "/charges")

    @classified_tool
    def refund(charge_id: str, amount: int) -> Any:
        """Refund part or all of a charge."""
        return call("POST", "/refunds", {"charge_id": charge_id, "amount": amount})

    return {"get_charge": get_charge, "list_charges": list_charges, "refund": refund}


# --- the scripted model --------------------------------------------------------------------


@dataclass
class _Task:
    """What the user asked, and the calls the stand-in model proposes for it, in order.

    The model moves to its next proposal after a lookup that succeeded, or when it is
    re-prompted with a hint (self-correction); the task is done when a final call succeeds.
    """

    ask: str
    proposals: list[tuple[str, dict[str, Any], bool]]  # (tool, arguments, final)


def _script(rng: random.Random) -> tuple[list[_Task], _Faults]:
    charge = rng.choice(sorted(CHARGES))
    other = rng.choice([c for c in sorted(CHARGES) if c != charge])
    invented = "ch_" + "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(4))
    amount = CHARGES[charge] // 2
    tasks = [
        _Task(
            f"Refund {amount} on charge {charge}.",
            [("refund", {"charge_id": charge, "amount": amount}, True)],
        ),
        _Task(
            "Refund the customer's last order in full.",
            [
                ("get_charge", {"charge_id": invented}, True),  # an invented id
                ("list_charges", {}, False),
                ("refund", {"charge_id": other, "amount": -CHARGES[other]}, True),  # wrong sign
                ("refund", {"charge_id": other, "amount": CHARGES[other]}, True),
            ],
        ),
        _Task(
            f"What was charged on {charge}?",
            [
                ("get_charge", {"charge_id": charge, "currency": "usd"}, True),  # no such param
                ("get_charge", {"charge_id": charge}, True),
            ],
        ),
    ]
    rng.shuffle(tasks)
    refund_blips: list[_Fault] = [(503, {}, "upstream connect error"), "slow"]
    lookup_blips: list[_Fault] = [(502, {}, "bad gateway"), "slow"]
    faults = _Faults(
        {
            "refunds": [
                (429, {"Retry-After": "1"}, "rate limit exceeded"),
                rng.choice(refund_blips),
            ],
            "charges": [rng.choice(lookup_blips)],
        }
    )
    return tasks, faults


# --- the loop and its narration -----------------------------------------------------------


@dataclass
class _Tally:
    calls: int = 0
    tasks: int = 0
    wasted_calls: int = 0
    retries: int = 0
    reprompts: int = 0
    escalations: int = 0
    done: int = 0
    by_class: dict[Class, int] = field(default_factory=lambda: dict.fromkeys(Class, 0))


class _Printer:
    def __init__(self, out: TextIO, color: bool) -> None:
        self.out, self.color = out, color

    def paint(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def line(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()


_CLASS_COLOR = {
    Class.TRANSIENT: "33",
    Class.SELF_CORRECTABLE: "36",
    Class.AUTH: "35",
    Class.INDETERMINATE: "31",
}


def _show_call(name: str, args: dict[str, Any]) -> str:
    shown = ", ".join(f"{k}={v!r}" for k, v in args.items())
    return f"{name}({shown})"


def _call(
    name: str,
    args: dict[str, Any],
    tools: dict[str, Callable[..., Outcome[Any]]],
    p: _Printer,
    tally: _Tally,
) -> Outcome[Any]:
    """One proposal: call, and retry transient failures unchanged, honouring Retry-After."""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        tally.calls += 1
        outcome = tools[name](**args)
        if outcome.ok:
            shown = json.dumps(_json(outcome.value))
            p.line(f"  {_show_call(name, args)}  {p.paint('ok', '32')}  {shown}")
            return outcome
        assert outcome.class_ is not None
        tally.by_class[outcome.class_] += 1
        status = f"HTTP {outcome.status}" if outcome.status else "no response"
        label = f"{outcome.code} ({outcome.class_}, {status})"
        p.line(f"  {_show_call(name, args)}  {p.paint(label, _CLASS_COLOR[outcome.class_])}")
        if not outcome.retryable:
            return outcome
        if attempt == MAX_ATTEMPTS:
            tally.wasted_calls += attempt  # retried to the cap and still failing
            return outcome
        wait = outcome.retry_after if outcome.retry_after is not None else BACKOFF
        why = "the server's Retry-After" if outcome.retry_after is not None else "backoff"
        p.line(f"    → retry unchanged after {wait:g}s ({why})")
        tally.retries += 1
        time.sleep(wait)
    raise AssertionError("unreachable")  # pragma: no cover


def _run_task(
    task: _Task, tools: dict[str, Callable[..., Outcome[Any]]], p: _Printer, tally: _Tally
) -> None:
    tally.tasks += 1
    p.line(p.paint(f"user: {task.ask}", "1"))
    for step, (name, args, final) in enumerate(task.proposals):
        outcome = _call(name, args, tools, p, tally)
        if outcome.ok:
            if final:
                tally.done += 1
                return
            continue
        more = step + 1 < len(task.proposals)
        if outcome.class_ is Class.SELF_CORRECTABLE and more:
            hint = outcome.llm_hint.replace("\n", "\n      ")
            p.line(f"    → re-prompt the (scripted) model: {p.paint(hint, '2')}")
            tally.reprompts += 1
            continue
        reason = "gave up retrying" if outcome.retryable else "escalate to a human"
        p.line(f"    → {reason}: {outcome.llm_hint}")
        tally.escalations += 1
        return


def run_demo(seed: int | None = None, out: TextIO | None = None, color: bool | None = None) -> int:
    """Run the demo; returns 0. ``seed`` makes the run reproducible."""
    out = out or sys.stdout
    if color is None:
        color = out.isatty() and not os.environ.get("NO_COLOR")
    if seed is None:
        seed = random.SystemRandom().randrange(10_000)
    p = _Printer(out, color)
    tasks, faults = _script(random.Random(seed))
    tally = _Tally()
    started = time.monotonic()
    with _api(faults) as base, _client(base, VALID_TOKEN) as (client_name, call):
        tools = _tools(call)
        p.line(p.paint(f"agenterr demo — seed {seed} (rerun with --seed {seed})", "1"))
        p.line(f"a flaky payments API on {base}, called through {client_name}")
        p.line(
            "the model is scripted: no LLM runs; a fixed script proposes the calls (some with"
            " wrong arguments) and moves to its next proposal when re-prompted\n"
        )
        for task in tasks:
            _run_task(task, tools, p, tally)
            p.line()
        # The token expires: no edit of the arguments can fix this, so the loop must escalate.
        p.line(p.paint("(the API token expires)", "2"))
        with _client(base, "expired-token") as (_, expired_call):
            task = _Task(
                "Refund 100 on charge ch_7Kp2.",
                [("refund", {"charge_id": "ch_7Kp2", "amount": 100}, True)],
            )
            _run_task(task, _tools(expired_call), p, tally)
    _summary(p, tally, time.monotonic() - started)
    return 0


def _summary(p: _Printer, tally: _Tally, elapsed: float) -> None:
    transient = tally.by_class[Class.TRANSIENT]
    fixable = tally.by_class[Class.SELF_CORRECTABLE]
    auth = tally.by_class[Class.AUTH]
    retry_waste = (fixable + auth) * (MAX_ATTEMPTS - 1)
    p.line()
    p.line(p.paint("summary: the same failures under three policies", "1"))
    p.line(
        f"  agenterr: {tally.done} of {tally.tasks} tasks done in {tally.calls} calls "
        f"({elapsed:.1f}s). {tally.retries} retries, each of a transient failure; "
        f"{tally.reprompts} re-prompts, each of a fixable error; {tally.escalations} "
        f"escalated. Wasted calls: {tally.wasted_calls}. Wasted model turns: 0."
    )
    p.line(
        f"  retry every error instead: {retry_waste} wasted calls. The {fixable} fixable and "
        f"{auth} auth failure(s) would each be retried unchanged {MAX_ATTEMPTS - 1} more "
        "times, fail each time, and the tasks they block would not be done."
    )
    p.line(
        f"  re-prompt on every error instead: {transient + auth} wasted model turns. The "
        f"{transient} transient and {auth} auth failure(s) would go to the model, which can "
        "only rewrite arguments that were already right."
    )
