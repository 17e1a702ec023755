"""Where the time of the body benchmarks goes, split by module (cProfile).

Usage::

    python benchmarks/profile_body.py            # classify --jsonl over the bench_body lines
    python benchmarks/profile_body.py --typical  # from_status over the bench_body bodies

Prints each agenterr module's share of the run: the time spent in its own Python functions
plus the built-in and standard-library calls it makes (a regex ``sub`` or a ``json.loads``
counts for the module that calls it), so the table answers "which module would have to get
faster". Profiling slows Python code more than
built-ins, so the shares are a guide, not a measurement; ``bench_body.py`` measures.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_body  # noqa: E402

from agenterr import from_status  # noqa: E402
from agenterr._cli import main as cli_main  # noqa: E402

Key = tuple[str, int, str]


def _module(key: Key) -> str:
    filename = key[0]
    if filename == "~":
        return "(built-in)"
    path = Path(filename)
    if path.parent.name == "agenterr":
        return f"agenterr/{path.name}"
    if path.parent.name == "json":
        return f"json/{path.name}"
    return path.name


def by_module(stats: pstats.Stats) -> dict[str, float]:
    """Seconds per agenterr module: its functions' own time, plus the time of the built-ins
    and standard-library functions (``json``, ``re``) it calls, shared among their callers
    in proportion to the time spent under each call site."""
    table: dict[Key, tuple[int, int, float, float, dict[Key, tuple[int, int, float, float]]]]
    table = stats.stats  # type: ignore[attr-defined]
    owners: dict[Key, dict[str, float]] = {}

    def owner(key: Key, seen: frozenset[Key]) -> dict[str, float]:
        if key in owners:
            return owners[key]
        module = _module(key)
        callers = table[key][4] if key in table else {}
        if module.startswith("agenterr/") or not callers or key in seen:
            result: dict[str, float] = {module: 1.0}
        else:
            result = defaultdict(float)
            edge_total = sum(edge[3] for edge in callers.values()) or 1.0
            for caller, edge in callers.items():
                for name, share in owner(caller, seen | {key}).items():
                    result[name] += share * edge[3] / edge_total
        owners[key] = result
        return result

    shares: dict[str, float] = defaultdict(float)
    for key, (_cc, _nc, own, _cum, _callers) in table.items():
        for name, share in owner(key, frozenset()).items():
            shares[name] += own * share
    return shares


def profile(typical: bool) -> dict[str, float]:
    if typical:
        cases = [(b.status, b.body, b.headers) for b in bench_body.BODIES] * 200

        def work() -> None:
            for status, body, headers in cases:
                from_status(status, body, headers=headers)

    else:
        stdin = bench_body.jsonl_lines(200 * len(bench_body.BODIES))
        sink = open(os.devnull, "wb")  # noqa: SIM115

        def work() -> None:
            with bench_body._stdio(stdin, sink):
                cli_main(["classify", "--jsonl"])

    work()  # warm the caches, as a long stream would
    profiler = cProfile.Profile()
    profiler.enable()
    work()
    profiler.disable()
    return by_module(pstats.Stats(profiler))


def main() -> None:
    typical = "--typical" in sys.argv[1:]
    shares = profile(typical)
    total = sum(shares.values())
    what = "from_status over the bodies" if typical else "classify --jsonl over the lines"
    print(f"{what}: {total:.3f} s profiled")
    for module, seconds in sorted(shares.items(), key=lambda item: -item[1]):
        if seconds / total >= 0.001:
            print(f"{seconds / total * 100:5.1f}%  {module}")


if __name__ == "__main__":
    main()
