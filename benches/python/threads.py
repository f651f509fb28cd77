"""Throughput of plan_turn from 1 and 2 threads against one registry (figures, not a test):
the binding releases the GIL while the core works, so two threads on two cores overlap.

    .venv-py/bin/python benches/python/threads.py bench-results/registry-1000.json
"""

import pathlib
import sys
import threading
import time

import tool_intent

INTENT = {"toolset": "full"}


def calls_per_second(registry, threads, seconds=1.5):
    counts = [0] * threads
    stop = time.perf_counter() + seconds
    barrier = threading.Barrier(threads)

    def run(slot):
        barrier.wait()
        n = 0
        while time.perf_counter() < stop:
            registry.plan_turn(INTENT)
            n += 1
        counts[slot] = n

    pool = [threading.Thread(target=run, args=(t,)) for t in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return sum(counts) / seconds


def main():
    path = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "bench-results/registry-1000.json")
    registry = tool_intent.Registry.from_json(path.read_text())
    registry.plan_turn(INTENT)  # warm the render cache
    rounds = []
    for _ in range(3):
        one = calls_per_second(registry, 1)
        two = calls_per_second(registry, 2)
        rounds.append((one, two))
    for one, two in rounds:
        print(f"plan_turn at {len(registry)} tools: 1 thread {one:,.0f}/s, 2 threads {two:,.0f}/s ({two / one:.2f}x)")


if __name__ == "__main__":
    main()
