"""Agent-loop simulation: what an agent's failure policy costs, agenterr against three baselines.

A seeded stream of tasks, each needing one to three tool calls, runs against a simulated API
(in-process, no sockets) whose failures follow the documented mix in :class:`Params` below, with
a simulated model that fixes its arguments when told what is wrong, and that sometimes rewrites
arguments that were fine when it is re-prompted on a failure it did not cause. Four policies
react to each failure, with the same caps and the same backoff:

``agenterr``
    Branch on the Outcome: transient → retry unchanged after ``retry_after`` (else backoff);
    self-correctable → re-prompt the model with ``llm_hint``; auth / indeterminate → escalate.
``retry-all``
    Retry every failure, unchanged, with exponential backoff.
``reprompt-all``
    Hand every failure's error text back to the model and resend what it returns.
``status-only``
    A naive inline map: 5xx / 429 / transport exception → retry with backoff (no Retry-After);
    any other 4xx → re-prompt with the raw error text.

Every policy meets the same tasks and the same failures (common random numbers: the API's draws
are keyed by task, call and attempt number, the model's by task, call and re-prompt number), so
differences between columns are the policies', not the dice's. The model's fix rate is the same
whichever policy re-prompts it: agenterr's hint is *not* assumed to be better than the raw error
text, so agenterr gains only from routing.

``python benchmarks/bench_agent_loop.py`` runs the full simulation and writes
``agent_loop.md`` (tables) and ``agent_loop.svg`` (chart) next to this file;
``python benchmarks/run.py`` does the same as one of its suites. ``main(quick=True)`` runs
about 50 tasks and writes nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import hashlib
import html
import json
import math
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import agenterr
from agenterr import Class

__all__ = [
    "CHART",
    "METRICS",
    "POLICIES",
    "QUICK_TASKS",
    "SENSITIVITY",
    "Params",
    "main",
    "render_markdown",
    "render_sensitivity",
    "render_svg",
    "render_table",
    "sensitivity",
    "simulate",
    "write",
]

HERE = Path(__file__).resolve().parent
MARKDOWN = HERE / "agent_loop.md"
SVG = HERE / "agent_loop.svg"

_T = TypeVar("_T")


def _p(value: _T, why: str) -> _T:
    """A simulation parameter with its one-line justification (rendered in agent_loop.md)."""
    return field(default=value, metadata={"why": why})


# --- the simulation's parameters -------------------------------------------------------------
@dataclass(frozen=True)
class Params:
    """Every knob of the simulation, each with the reason for its value."""

    seed: int = _p(20240601, "fixed, so every run (and every policy) sees the same tasks")
    tasks: int = _p(2000, "enough that rates are stable to about ±1 point between seeds")
    max_calls: int = _p(3, "a task chains 1 to 3 tool calls (uniform): lookup, act, confirm")
    # Argument errors: the model's own mistakes, drawn once per call, before the first attempt.
    p_invalid_args: float = _p(0.08, "function-calling evals show several % of wrong arguments")
    p_invented_id: float = _p(0.05, "invented ids or names: the commonest wrong argument")
    # Transient failures, drawn per attempt.
    p_timeout: float = _p(0.02, "read timeouts on a slow third-party endpoint")
    timeout_s: float = _p(10.0, "a typical client read timeout, spent before the exception")
    p_rate_limit: float = _p(0.05, "a shared key under load; opens a window, not a single 429")
    retry_after_max: int = _p(8, "Retry-After drawn from 1..8 s, the seconds scale APIs send")
    p_rate_limit_403: float = _p(0.10, "GitHub's secondary limit is a 403 with Retry-After")
    p_5xx: float = _p(0.04, "independent 500/502/503/504 blips, no Retry-After")
    # Auth faults, drawn once per task; they persist until a human acts.
    p_token_expired: float = _p(0.03, "hour-long OAuth tokens expire mid-session (401)")
    p_quota_402: float = _p(0.01, "credits exhausted, answered 402 Payment Required")
    p_quota_429: float = _p(0.01, "OpenAI-style insufficient_quota: a 429, no Retry-After")
    # The model, when re-prompted.
    p_fix_invalid: float = _p(0.75, "told which argument is wrong and why, a model mostly fixes it")
    p_fix_invented_id: float = _p(0.60, "an invented id needs a real lookup: harder to fix")
    p_corrupt: float = _p(0.25, "shown an error it did not cause, it often 'tries something else'")
    p_corrupt_valid: float = _p(0.50, "half of those edits still validate: a silently other call")
    # Same caps and delays for every policy.
    max_recoveries: int = _p(6, "retries + re-prompts allowed per call, for every policy")
    backoff_base_s: float = _p(1.0, "exponential backoff 1, 2, 4, 8 … s, for every policy")
    backoff_max_s: float = _p(30.0, "backoff ceiling, for every policy")
    retry_after_cap_s: float = _p(60.0, "agenterr: never sleep longer than this on Retry-After")
    call_s: float = _p(0.3, "latency of one tool call that answers")
    model_turn_s: float = _p(3.0, "latency of one model turn spent on a re-prompt")


QUICK_TASKS = 50


# --- the simulated world ---------------------------------------------------------------------
class Args(enum.Enum):
    """The state of one call's arguments."""

    OK = "ok"  # what the user meant
    INVALID = "invalid"  # fails validation: 400 / 422 with a message
    INVENTED_ID = "invented_id"  # names something that does not exist: 404
    DRIFTED = "drifted"  # validates, but is not what the user meant (a changed payload)


class Truth(enum.Enum):
    """What a failure really is, whatever a policy thinks it is."""

    TRANSIENT = "transient"
    AUTH = "auth"
    ARGS = "args"


@dataclass(frozen=True, slots=True)
class Task:
    index: int
    calls: tuple[Args, ...]  # the model's first arguments for each call
    auth_fault: str | None  # "token_expired" | "quota_402" | "quota_429" | None
    auth_from_call: int  # the call from which the fault answers


@dataclass(frozen=True, slots=True)
class Failure:
    """One failed attempt: an HTTP answer or a transport exception, plus the ground truth."""

    truth: Truth
    kind: str
    status: int = 0
    body: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    error: BaseException | None = None

    def text(self) -> str:
        """The raw error text a naive agent would paste back to the model."""
        if self.error is not None:
            return f"{type(self.error).__name__}: {self.error}"
        return f"HTTP {self.status}: {self.body}"


def _rng(params: Params, *key: object) -> random.Random:
    # String seeds are hashed with SHA-512: deterministic across runs and PYTHONHASHSEED.
    return random.Random(":".join(str(k) for k in (params.seed, *key)))


def make_tasks(params: Params, count: int) -> list[Task]:
    """The task stream: identical for every policy."""
    tasks = []
    for i in range(count):
        r = _rng(params, "task", i)
        n = r.randint(1, params.max_calls)
        calls = []
        for _ in range(n):
            u = r.random()
            if u < params.p_invalid_args:
                calls.append(Args.INVALID)
            elif u < params.p_invalid_args + params.p_invented_id:
                calls.append(Args.INVENTED_ID)
            else:
                calls.append(Args.OK)
        u = r.random()
        fault = None
        for name, p in (
            ("token_expired", params.p_token_expired),
            ("quota_402", params.p_quota_402),
            ("quota_429", params.p_quota_429),
        ):
            if u < p:
                fault = name
                break
            u -= p
        tasks.append(Task(i, tuple(calls), fault, r.randrange(n)))
    return tasks


_INVALID_BODIES = (
    (
        400,
        '{"error": {"message": "Invalid value for \'amount\': expected an integer number of '
        'cents, got \\"12.50\\".", "type": "invalid_request_error", "param": "amount"}}',
    ),
    (
        422,
        '{"detail": [{"loc": ["body", "currency"], "msg": "value is not a valid enumeration '
        "member; permitted: 'usd', 'eur', 'gbp'\", \"type\": \"type_error.enum\"}]}",
    ),
)
_NOT_FOUND_BODY = '{"error": {"message": "No such customer: \'cus_8fJ2kQ\'", "code": "not_found"}}'
_AUTH = {
    "token_expired": (401, '{"error": "invalid_token", "error_description": "token expired"}'),
    "quota_402": (402, '{"error": {"message": "Payment required: your credits are exhausted."}}'),
    "quota_429": (
        429,
        '{"error": {"message": "You exceeded your current quota, please check your plan and '
        'billing details.", "type": "insufficient_quota", "code": "insufficient_quota"}}',
    ),
}
_RATE_LIMIT_BODY = '{"error": {"message": "Rate limit reached for requests per minute."}}'
_SECONDARY_BODY = '{"message": "You have exceeded a secondary rate limit. Please wait."}'


@dataclass(slots=True)
class _Api:
    """The simulated API for one task under one policy: a clock and a rate-limit window."""

    params: Params
    task: Task
    now: float = 0.0
    limited_until: float = 0.0
    limited_status: int = 429

    def call(self, call: int, attempt: int, args: Args) -> Failure | None:
        """One attempt at call ``call``; None on success. Advances the clock."""
        p = self.params
        r = _rng(p, "api", self.task.index, call, attempt)
        # Draw everything up front, in a fixed order, so every policy sees the same dice.
        u_timeout, u_limit, u_403, u_5xx = r.random(), r.random(), r.random(), r.random()
        retry_after = r.randint(1, p.retry_after_max)
        status_5xx = r.choice((500, 502, 503, 504))
        invalid_status, invalid_body = r.choice(_INVALID_BODIES)

        if u_timeout < p.p_timeout:
            self.now += p.timeout_s
            return Failure(Truth.TRANSIENT, "timeout", error=TimeoutError("The read timed out"))
        self.now += p.call_s
        if self.now >= self.limited_until and u_limit < p.p_rate_limit:
            self.limited_until = self.now + retry_after
            self.limited_status = 403 if u_403 < p.p_rate_limit_403 else 429
        if self.now < self.limited_until:
            wait = str(math.ceil(self.limited_until - self.now))
            if self.limited_status == 403:
                return Failure(
                    Truth.TRANSIENT, "rate_limit_403", 403, _SECONDARY_BODY, {"Retry-After": wait}
                )
            return Failure(
                Truth.TRANSIENT, "rate_limit", 429, _RATE_LIMIT_BODY, {"Retry-After": wait}
            )
        if self.task.auth_fault is not None and call >= self.task.auth_from_call:
            status, body = _AUTH[self.task.auth_fault]
            return Failure(Truth.AUTH, self.task.auth_fault, status, body)
        if u_5xx < p.p_5xx:
            return Failure(Truth.TRANSIENT, "5xx", status_5xx, "<html>Bad gateway</html>")
        if args is Args.INVALID:
            return Failure(Truth.ARGS, "invalid", invalid_status, invalid_body)
        if args is Args.INVENTED_ID:
            return Failure(Truth.ARGS, "invented_id", 404, _NOT_FOUND_BODY)
        return None


def _reprompt(params: Params, r: random.Random, args: Args, failure: Failure) -> tuple[Args, bool]:
    """The model's next arguments, and whether it changed arguments that were right."""
    u_fix, u_valid = r.random(), r.random()
    if failure.truth is Truth.ARGS:
        p = params.p_fix_invalid if args is Args.INVALID else params.p_fix_invented_id
        return (Args.OK if u_fix < p else args), False
    if args is Args.OK and u_fix < params.p_corrupt:
        return (Args.DRIFTED if u_valid < params.p_corrupt_valid else Args.INVALID), True
    return args, False


# --- the policies ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Action:
    kind: str  # "retry" | "reprompt" | "escalate"
    wait: float = 0.0


Policy = Callable[[Params, Failure, int], Action]
"""(params, failure, retries so far on this call) -> what to do."""


def backoff(params: Params, retries: int) -> float:
    """The shared exponential backoff: base · 2^retries, capped."""
    return min(params.backoff_max_s, params.backoff_base_s * 2.0**retries)


def agenterr_policy(params: Params, f: Failure, retries: int) -> Action:
    out = agenterr.classify(f.status, f.body, f.error, headers=f.headers)
    if out.retryable:
        ra = out.retry_after
        wait = min(ra, params.retry_after_cap_s) if ra is not None else backoff(params, retries)
        return Action("retry", wait)
    if out.class_ is Class.SELF_CORRECTABLE:
        return Action("reprompt")  # with out.llm_hint
    return Action("escalate")


def retry_all_policy(params: Params, f: Failure, retries: int) -> Action:
    return Action("retry", backoff(params, retries))


def reprompt_all_policy(params: Params, f: Failure, retries: int) -> Action:
    return Action("reprompt")  # with f.text()


def status_only_policy(params: Params, f: Failure, retries: int) -> Action:
    if f.error is not None or f.status >= 500 or f.status == 429:
        return Action("retry", backoff(params, retries))
    if 400 <= f.status < 500:
        return Action("reprompt")  # with f.text()
    return Action("escalate")


POLICIES: dict[str, Policy] = {
    "agenterr": agenterr_policy,
    "retry-all": retry_all_policy,
    "reprompt-all": reprompt_all_policy,
    "status-only": status_only_policy,
}


# --- the loop and its counters ---------------------------------------------------------------
METRICS: tuple[tuple[str, str], ...] = (
    ("completed", "Tasks completed as asked"),
    ("completed_altered", "Tasks completed with a silently changed payload"),
    ("escalated_correct", "Escalated, correctly (auth or quota)"),
    ("escalated_wrong", "Escalated, wrongly (not an auth or quota fault)"),
    ("auth_unescalated", "Auth or quota faults abandoned unescalated"),
    ("failed", "Tasks abandoned at a cap"),
    ("tool_calls", "Tool calls made"),
    ("reprompts", "Model turns spent on re-prompts"),
    ("reprompts_wasted", "Re-prompts wasted on transient or auth failures"),
    ("payloads_changed", "Correct payloads changed by the model"),
    ("capped_retry", "Retry loops that hit the cap"),
    ("capped_reprompt", "Re-prompt loops that hit the cap"),
    ("wait_s", "Time waiting on backoff / Retry-After (s)"),
    ("wall_s", "Simulated wall-clock, all tasks (s)"),
)
_FLOAT_METRICS = frozenset({"wait_s", "wall_s"})

SENSITIVITY: tuple[tuple[str, dict[str, Any]], ...] = (
    ("as above", {}),
    ("model never rewrites a good payload (`p_corrupt=0`)", {"p_corrupt": 0.0}),
    ("model rewrites good payloads twice as often (`p_corrupt=0.5`)", {"p_corrupt": 0.5}),
    (
        "no 403 rate limits, no 429 quota (the status table's misroutes removed)",
        {"p_rate_limit_403": 0.0, "p_quota_429": 0.0},
    ),
)
"""Re-runs of the full simulation with one assumption changed (full mode only)."""


def _run_task(params: Params, task: Task, policy: Policy, c: dict[str, Any]) -> None:
    api = _Api(params, task)
    altered = False
    for call, first_args in enumerate(task.calls):
        args = first_args
        retries = reprompts = 0
        while True:
            failure = api.call(call, retries + reprompts, args)
            c["tool_calls"] += 1
            if failure is None:
                altered = altered or args is Args.DRIFTED
                break
            action = policy(params, failure, retries)
            if action.kind == "escalate":
                c["escalated_correct" if failure.truth is Truth.AUTH else "escalated_wrong"] += 1
                c["wall_s"] += api.now
                return
            if retries + reprompts >= params.max_recoveries:
                c["capped_" + action.kind] += 1
                c["failed"] += 1
                c["auth_unescalated"] += failure.truth is Truth.AUTH
                c["wall_s"] += api.now
                return
            if action.kind == "retry":
                retries += 1
                api.now += action.wait
                c["wait_s"] += action.wait
            else:
                r = _rng(params, "model", task.index, call, reprompts)
                reprompts += 1
                c["reprompts"] += 1
                c["reprompts_wasted"] += failure.truth is not Truth.ARGS
                args, changed = _reprompt(params, r, args, failure)
                c["payloads_changed"] += changed
                api.now += params.model_turn_s
    c["completed_altered" if altered else "completed"] += 1
    c["wall_s"] += api.now


def tasks_digest(tasks: Sequence[Task]) -> str:
    """A short fingerprint of the task stream, to show every policy ran the same tasks."""
    text = json.dumps([[t.index, [a.value for a in t.calls], t.auth_fault] for t in tasks])
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def simulate(params: Params, policies: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """One row per policy: the counters of :data:`METRICS` plus run.py's keys."""
    tasks = make_tasks(params, params.tasks)
    digest = tasks_digest(tasks)
    rows = []
    for name in policies if policies is not None else POLICIES:
        c: dict[str, Any] = {key: 0 for key, _ in METRICS}
        c["wait_s"] = c["wall_s"] = 0.0
        for task in tasks:
            _run_task(params, task, POLICIES[name], c)
        c["wait_s"], c["wall_s"] = round(c["wait_s"], 1), round(c["wall_s"], 1)
        rows.append(
            {
                "name": f"agent loop: {name}",
                "policy": name,
                "tasks": len(tasks),
                "tasks_digest": digest,
                "auth_fault_tasks": sum(t.auth_fault is not None for t in tasks),
                **c,
                "target": "info",
                "met": None,
                "note": (
                    f"{c['completed']}/{len(tasks)} completed as asked, "
                    f"{c['reprompts_wasted']} wasted re-prompts, "
                    f"{c['payloads_changed']} payloads changed, "
                    f"{c['capped_retry'] + c['capped_reprompt']} capped loops"
                ),
            }
        )
    return rows


# --- output ----------------------------------------------------------------------------------
def _fmt(key: str, value: Any) -> str:
    if key in _FLOAT_METRICS:
        return f"{value:,.0f}"
    return f"{value:,}"


def render_table(rows: Sequence[dict[str, Any]]) -> str:
    """Metrics as rows, policies as columns (GitHub-flavoured Markdown)."""
    lines = [
        "| metric | " + " | ".join(f"`{r['policy']}`" for r in rows) + " |",
        "| --- |" + " ---: |" * len(rows),
    ]
    for key, label in METRICS:
        lines.append(f"| {label} | " + " | ".join(_fmt(key, r[key]) for r in rows) + " |")
    return "\n".join(lines)


def sensitivity(params: Params) -> list[tuple[str, list[dict[str, Any]]]]:
    """The simulation re-run under each scenario of :data:`SENSITIVITY`."""
    return [(label, simulate(dataclasses.replace(params, **kw))) for label, kw in SENSITIVITY]


def render_sensitivity(runs: Sequence[tuple[str, Sequence[dict[str, Any]]]]) -> str:
    """One line per scenario: completed as asked / correct payloads changed, per policy."""
    policies = [r["policy"] for r in runs[0][1]]
    lines = [
        "| scenario | " + " | ".join(f"`{p}`" for p in policies) + " |",
        "| --- |" + " ---: |" * len(policies),
    ]
    for label, rows in runs:
        cells = (f"{r['completed']:,} / {r['payloads_changed']:,}" for r in rows)
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render_markdown(
    rows: Sequence[dict[str, Any]],
    params: Params,
    *,
    svg_name: str,
    runs: Sequence[tuple[str, Sequence[dict[str, Any]]]] = (),
) -> str:
    """The whole results document: set-up, results table, chart, sensitivity, parameters."""
    first = rows[0]
    extra = []
    if runs:
        extra = [
            "## Sensitivity",
            "",
            "Tasks completed as asked / correct payloads changed by the model, with one"
            " assumption changed at a time (same seed and tasks).",
            "",
            render_sensitivity(runs),
            "",
        ]
    param_lines = ["| parameter | value | why |", "| --- | ---: | --- |"]
    for f in dataclasses.fields(Params):
        value = getattr(params, f.name)
        param_lines.append(f"| `{f.name}` | {value} | {f.metadata['why']} |")
    return "\n".join(
        [
            "# Agent-loop simulation",
            "",
            "Generated by `python benchmarks/bench_agent_loop.py` (source and rationale in that "
            "file's docstring).",
            f"{first['tasks']:,} tasks (seed {params.seed}, task stream `{first['tasks_digest']}`),"
            f" {first['auth_fault_tasks']} of them with an auth or quota fault; every policy runs"
            " the same tasks against the same failures, with the same caps and backoff.",
            "",
            "- `agenterr`: branch on the Outcome — transient: retry unchanged after `retry_after`"
            " (else backoff); self-correctable: re-prompt with `llm_hint`; auth / unknown:"
            " escalate.",
            "- `retry-all`: retry every failure unchanged, with backoff.",
            "- `reprompt-all`: give every failure's error text to the model and resend.",
            "- `status-only`: 5xx / 429 / exception → retry with backoff (Retry-After ignored);"
            " other 4xx → re-prompt with the raw error text.",
            "",
            render_table(rows),
            "",
            f"![Agent-loop simulation: key metrics per policy]({svg_name})",
            "",
            "The model fixes a wrong argument equally often whichever policy re-prompts it:"
            " agenterr's hint is not credited with being better than the raw error text, so its"
            " gains here come from routing alone. The mix includes the failures a plain status"
            " table misroutes: a GitHub-style 403 secondary rate limit with Retry-After and an"
            " OpenAI-style 429 `insufficient_quota`; agenterr's provider-aware rules (SPEC.md"
            " section 11) route them to `transient` and `auth`.",
            "",
            *extra,
            "## Parameters",
            "",
            *param_lines,
            "",
        ]
    )


CHART: tuple[tuple[str, str], ...] = (
    ("completed", "Tasks completed as asked ↑"),
    ("escalated_correct", "Auth/quota faults escalated ↑"),
    ("failed", "Tasks abandoned at a cap ↓"),
    ("tool_calls", "Tool calls made ↓"),
    ("reprompts", "Model turns spent on re-prompts ↓"),
    ("reprompts_wasted", "Re-prompts wasted on transient/auth ↓"),
    ("payloads_changed", "Correct payloads changed by the model ↓"),
    ("capped_retry", "Retry loops that hit the cap ↓"),
    ("wait_s", "Time waiting on backoff, hours ↓"),
)
_COLOURS = ("#2b6cb0", "#a0aec0", "#dd6b20", "#718096")


def render_svg(rows: Sequence[dict[str, Any]]) -> str:
    """Small multiples: one panel per key metric, one horizontal bar per policy (stdlib only)."""
    cols, panel_w, panel_h, label_w, bar_h, gap = 3, 300, 150, 92, 20, 6
    top = 52
    n_rows = math.ceil(len(CHART) / cols)
    width, height = cols * panel_w + 20, top + n_rows * panel_h + 10
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" '
        'font-size="12">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="10" y="22" font-size="15" font-weight="bold">Agent-loop simulation: '
        f"{rows[0]['tasks']:,} tasks, same failures for every policy</text>",
    ]
    x = 10
    for i, r in enumerate(rows):
        colour = _COLOURS[i % len(_COLOURS)]
        out.append(f'<rect x="{x}" y="33" width="12" height="12" fill="{colour}"/>')
        out.append(f'<text x="{x + 17}" y="43">{html.escape(r["policy"])}</text>')
        x += 30 + 8 * len(r["policy"])
    for p, (key, title) in enumerate(CHART):
        px, py = 10 + (p % cols) * panel_w, top + (p // cols) * panel_h
        values = [float(r[key]) / (3600.0 if key == "wait_s" else 1.0) for r in rows]
        peak = max(values) or 1.0
        out.append(f'<text x="{px}" y="{py + 16}" font-weight="bold">{html.escape(title)}</text>')
        span = panel_w - label_w - 60
        for i, (r, v) in enumerate(zip(rows, values, strict=True)):
            y = py + 26 + i * (bar_h + gap)
            w = span * v / peak
            text = f"{v:,.1f}" if key == "wait_s" else f"{v:,.0f}"
            out.append(
                f'<text x="{px + label_w - 6}" y="{y + 14}" text-anchor="end">'
                f"{html.escape(r['policy'])}</text>"
            )
            out.append(
                f'<rect x="{px + label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" '
                f'fill="{_COLOURS[i % len(_COLOURS)]}"/>'
            )
            out.append(f'<text x="{px + label_w + w + 4:.1f}" y="{y + 14}">{text}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write(
    rows: Sequence[dict[str, Any]],
    params: Params,
    *,
    markdown: Path = MARKDOWN,
    svg: Path = SVG,
    runs: Sequence[tuple[str, Sequence[dict[str, Any]]]] = (),
) -> None:
    """Write the Markdown results (with the sensitivity runs, if any) and the SVG chart."""
    svg.write_text(render_svg(rows), encoding="utf-8")
    document = render_markdown(rows, params, svg_name=svg.name, runs=runs)
    markdown.write_text(document, encoding="utf-8")


def main(quick: bool = False) -> list[dict[str, Any]]:
    """Run every policy; the full run also writes agent_loop.md and agent_loop.svg."""
    params = Params(tasks=QUICK_TASKS) if quick else Params()
    rows = simulate(params)
    if not quick:
        write(rows, params, runs=sensitivity(params))
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_TASKS} tasks, write nothing")
    parser.add_argument("--seed", type=int, default=Params.seed, help="seed of the task stream")
    parser.add_argument("--tasks", type=int, default=None, help="number of tasks")
    ns = parser.parse_args()
    chosen = Params(seed=ns.seed, tasks=ns.tasks or (QUICK_TASKS if ns.quick else Params.tasks))
    result = simulate(chosen)
    print(render_table(result))
    if not ns.quick:
        write(result, chosen, runs=sensitivity(chosen))
        print(f"\nwrote {MARKDOWN.name} and {SVG.name}", file=sys.stderr)
