"""Benchmarks of the Python package (figures in BENCHMARKS.md, "Python package").

    pip install ./python gymnasium && python benches/python_bench.py

1. `diabolo.run` on the 10 s whip with rows every millisecond: the whole call against the run
   inside it (the summary's `wall_time`: the run and the rows gathered into columns), so the
   difference is reading the scenario and handing the arrays to Python.
2. `Simulation.step(0.001)` on a taut, event-free stretch (the swing on still hands): the cost
   per call against the integration itself (the same stretch run in one call, per millisecond),
   and a 1 kHz control loop (set a hand, step, read the state) in steps per second.
3. The Gymnasium environment with a random policy: environment steps per second.

Each figure is the minimum over repeats (timings vary with the machine's load).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

import diabolo

ROOT = Path(__file__).resolve().parents[1]
WHIP = ROOT / "scenarios" / "whip.json"
SWING = ROOT / "scenarios" / "swing.json"


def best(f, repeats: int = 15) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_run() -> None:
    overrides = {"sim.duration": 10, "sim.output_interval": 0.001}
    inner = []

    def call():
        result = diabolo.run(WHIP, overrides)
        inner.append(result.summary["wall_time"])

    total = best(call)
    run_only = min(inner)
    rows = len(diabolo.run(WHIP, overrides))
    print(
        f"run whip 10 s, {rows} rows: {total * 1e3:.2f} ms per call, the run inside "
        f"{run_only * 1e3:.2f} ms, the rest {100 * (total - run_only) / run_only:.1f} %"
    )
    no_rows = best(lambda: diabolo.run(WHIP, {"sim.duration": 10}, rows=False))
    print(f"run whip 10 s without rows: {no_rows * 1e3:.2f} ms per call")


def bench_step() -> None:
    n = 2000
    overrides = {"sim.duration": 100}
    base = diabolo.Simulation(SWING, overrides)
    base.step(0.5)

    def stepping():
        sim = base.copy()
        for _ in range(n):
            sim.step(0.001)

    def one_call():
        sim = base.copy()
        sim.step(n * 0.001)

    def control():
        sim = base.copy()
        for k in range(n):
            sim.set_hand("right", path_target=(0.4, 1.5 + 0.01 * np.sin(k * 0.01)))
            sim.step(0.001)
            sim.state

    per_step = best(stepping, 7) / n
    integration = best(one_call, 7) / n
    loop = best(control, 7) / n
    print(
        f"step(0.001): {per_step * 1e6:.2f} us per call, the integration {integration * 1e6:.2f} us "
        f"per ms, overhead {(per_step - integration) * 1e6:.2f} us per call"
    )
    print(
        f"1 kHz control loop (set_hand, step, state): {loop * 1e6:.1f} us per step, "
        f"{1 / loop:,.0f} steps/s ({1 / loop / 1000:.0f}x real time)"
    )


def bench_env() -> None:
    try:
        from diabolo.gym import DiaboloEnv
    except ImportError:
        print("gymnasium not installed: no environment figures")
        return
    env = DiaboloEnv(task="hold")
    env.action_space.seed(0)
    env.reset(seed=0)
    n = 5000

    def steps():
        for _ in range(n):
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            if terminated or truncated:
                env.reset()

    per = best(steps, 3) / n
    print(f"DiaboloEnv (hold, dt 0.01 s, random policy): {1 / per:,.0f} environment steps/s")


if __name__ == "__main__":
    bench_run()
    bench_step()
    bench_env()
