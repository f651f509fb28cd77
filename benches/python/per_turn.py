"""The per-turn call from Python next to the same call from Rust (figures, not pass/fail).

    .venv-py/bin/python benches/python/per_turn.py bench-results/registry-1000.json

Starts `cargo run --release --example per_turn` (the Rust side, kept running), then times the
same `plan_turn` (intent, three promoted tools, Anthropic catalog mode) through the binding —
arguments as Python dicts, the plan back as a `TurnPlan`, so conversion is included — checks
both give the same fingerprint, and prints the ratio of the fastest rounds (goal: Python ≤
1.5× Rust) and of the median rounds. The two sides alternate round by round (60 rounds each,
about a second in all), so a slow spell of the machine hits both; the fastest round of each
side is the figure least moved by it.
"""

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import tool_intent

INTENT = {"toolset": "full", "web_search": True, "disabled": ["mcp__github0__*", "memory"]}
ROUNDS, CALLS = 60, 100


def python_round(registry, state):
    t = time.perf_counter()
    for _ in range(CALLS):
        registry.plan_turn(INTENT, state=state)
    return (time.perf_counter() - t) * 1e6 / CALLS


def main() -> None:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "bench-results/registry-1000.json")
    rust = subprocess.Popen(
        ["cargo", "run", "--quiet", "--release", "--example", "per_turn", "--", str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    header = json.loads(rust.stdout.readline())
    registry = tool_intent.Registry.from_json(path.read_text())
    state = registry.begin_turn(tool_intent.record_loaded(None, header["loaded"]))
    plan = registry.plan_turn(INTENT, state=state)
    assert plan["fingerprint"] == header["fingerprint"], "Python and Rust planned different payloads"
    rust_rounds, py_rounds = [], []
    for _ in range(ROUNDS):
        rust.stdin.write(f"{CALLS}\n")
        rust.stdin.flush()
        rust_rounds.append(float(rust.stdout.readline()))
        py_rounds.append(python_round(registry, state))
    rust.stdin.close()
    assert rust.wait() == 0, "the Rust side failed"
    rust_min, py_min = min(rust_rounds), min(py_rounds)
    rust_median, py_median = statistics.median(rust_rounds), statistics.median(py_rounds)
    print(f"per-turn plan_turn at {len(registry)} tools: fastest of {ROUNDS} alternating rounds "
          f"Rust {rust_min:.1f} µs, Python {py_min:.1f} µs, {py_min / rust_min:.2f}× Rust (goal ≤ 1.5×); "
          f"medians Rust {rust_median:.1f} µs, Python {py_median:.1f} µs, {py_median / rust_median:.2f}×")


if __name__ == "__main__":
    main()
