"""The per-turn call from Python next to the same call from Rust (figures, not pass/fail).

    .venv-py/bin/python benches/python/per_turn.py bench-results/registry-1000.json

Runs `cargo run --release --example per_turn` for the Rust time, then the same `plan_turn`
(intent, three promoted tools, Anthropic catalog mode) through the binding — arguments as
Python dicts, the plan back as dicts, so conversion is included — checks both give the same
fingerprint, and prints both medians and the ratio (goal: Python ≤ 1.5× Rust).
"""

import json
import subprocess
import sys
import time
from pathlib import Path

import tool_intent

INTENT = {"toolset": "full", "web_search": True, "disabled": ["mcp__github0__*", "memory"]}


def main() -> None:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "bench-results/registry-1000.json")
    rust = json.loads(
        subprocess.run(
            ["cargo", "run", "--quiet", "--release", "--example", "per_turn", "--", str(path)],
            check=True, capture_output=True, text=True,
        ).stdout
    )
    registry = tool_intent.Registry.from_json(path.read_text())
    state = tool_intent.begin_turn(tool_intent.record_loaded(None, rust["loaded"]))
    plan = registry.plan_turn(INTENT, state=state)
    assert plan["fingerprint"] == rust["fingerprint"], "Python and Rust planned different payloads"
    rounds = []
    for _ in range(15):
        n = 200
        t = time.perf_counter()
        for _ in range(n):
            registry.plan_turn(INTENT, state=state)
        rounds.append((time.perf_counter() - t) * 1e6 / n)
    rounds.sort()
    py = rounds[len(rounds) // 2]
    ratio = py / rust["microsPerCall"]
    print(f"per-turn plan_turn at {len(registry)} tools: Rust {rust['microsPerCall']:.1f} µs, "
          f"Python {py:.1f} µs ({ratio:.2f}× Rust; goal ≤ 1.5×)")


if __name__ == "__main__":
    main()
