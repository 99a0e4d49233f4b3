#!/usr/bin/env python3
"""Throughput of ``diabolo.Batch`` and ``diabolo.gym.DiaboloVectorEnv`` (docs/batch.md,
BENCHMARKS.md "`batch_bench.py`").

The job is the Gymnasium environment's: the default scenario (one diabolo on a 1.46 m string),
the hold task, dt 0.01 s, a random policy (each stick's acceleration uniform in +-30 m/s^2, a
new draw every step), a member started over when it fails, drops or reaches 10 s. An "env step"
is one member advanced by one dt with its hands set: the figures are env steps per second,
numpy in and out included. The cost of a step grows as the random hands fling the sticks about,
so every N plays the same thing: blocks of ``--steps`` steps (default 200, 2 s) from a reset,
repeated until ``--seconds`` have passed. Two policies by default: the random one (actions
uniform in +-1, the single environment's 3,760 steps/s) and a gentle one (+-0.1, hands within
+-3 m/s^2), where the string stays taut. Rows:

- ``vector env``: ``DiaboloVectorEnv(num_envs=N).step`` (actions in, observations, rewards,
  terminations out, autoreset);
- ``batch``: ``Batch.step(dt, accel)`` alone (the same hands, ended members reset);
- ``python loop``: N ``Simulation`` objects stepped one after the other in Python
  (``set_hand`` left and right, ``step``, ``state``: what the single environment did per step);
- ``single env``: ``DiaboloEnv.step`` (N does not apply).

Then where the time of ``Batch.step`` goes at the largest N: the core's step on one thread
(hand change and integration), the same without a hand change, the call without any
integration (the state read, numpy in and out), and the dispatch to the threads. CPU time
(all threads) is printed beside wall time: with other processes on the machine the wall-clock
figures fall, the CPU time per step much less.

    python benches/batch_bench.py                 # N = 1, 16, 64, 256
    python benches/batch_bench.py --sizes 256 --seconds 5
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Callable, Optional, Tuple

import numpy as np

import diabolo
from diabolo.gym import DiaboloEnv, DiaboloVectorEnv, default_scenario

DT = 0.01
ACCEL = 30.0


STEPS = 200
SCALE = 1.0  # the policy's actions are uniform in +-SCALE


def timed(make: Callable[[], Callable[[], int]], seconds: float) -> Tuple[float, float]:
    """(env steps per wall second, CPU microseconds per env step) of blocks of ``STEPS`` calls
    of the stepper ``make()`` returns (each call: its env steps; ``make`` starts it at reset,
    untimed), repeated for about ``seconds``."""
    steps, wall, cpu = 0, 0.0, 0.0
    while wall < seconds:
        run = make()
        w, c = time.perf_counter(), time.process_time()
        for _ in range(STEPS):
            steps += run()
        wall += time.perf_counter() - w
        cpu += time.process_time() - c
    return steps / wall, cpu / steps * 1e6


def vector_env(n: int, jobs: Optional[int]) -> Callable[[], int]:
    env = DiaboloVectorEnv(num_envs=n, jobs=jobs)
    env.reset(seed=0)
    rng = np.random.default_rng(0)

    def run() -> int:
        env.step(rng.uniform(-SCALE, SCALE, size=(n, 4)).astype(np.float32))
        return n

    return run


def batch(n: int, jobs: Optional[int], accel: Optional[str] = "random", dt: float = DT) -> Callable[[], int]:
    scenario = default_scenario(10.0)
    members = diabolo.Batch(scenario, n, overrides={"sim.duration": 10.0 + DT}, jobs=jobs)
    rng = np.random.default_rng(0)
    ended = np.zeros(n, dtype=bool)

    def run() -> int:
        nonlocal ended
        if ended.any():
            members.reset(ended)
        hands = None
        if accel == "random":
            hands = rng.uniform(-SCALE * ACCEL, SCALE * ACCEL, size=(n, 2, 2))
        elif accel == "zero":
            hands = np.zeros((n, 2, 2))
        out = members.step(dt, hands)
        ended = (out.status != diabolo.batch.RUNNING) | (out.mode == diabolo.batch.DROPPED)
        return n

    return run


def python_loop(n: int) -> Callable[[], int]:
    base = diabolo.Simulation(default_scenario(10.0), {"sim.duration": 10.0 + DT})
    sims = [base.copy() for _ in range(n)]
    rng = np.random.default_rng(0)

    def run() -> int:
        hands = rng.uniform(-SCALE * ACCEL, SCALE * ACCEL, size=(n, 2, 2))
        for i, sim in enumerate(sims):
            try:
                sim.set_hand("left", accel=(float(hands[i, 0, 0]), float(hands[i, 0, 1])))
                sim.set_hand("right", accel=(float(hands[i, 1, 0]), float(hands[i, 1, 1])))
                sim.step(DT)
                state = sim.state
                if state["modes"][0] == "dropped" or sim.finished:
                    sims[i] = base.copy()
            except diabolo.RunFailed:
                sims[i] = base.copy()
        return n

    return run


def single_env() -> Callable[[], int]:
    env = DiaboloEnv()
    env.reset(seed=0)
    env.action_space.seed(0)

    def run() -> int:
        _, _, terminated, truncated, _ = env.step(SCALE * env.action_space.sample())
        if terminated or truncated:
            env.reset()
        return 1

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,16,64,256", help="members N, comma-separated")
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    parser.add_argument("--jobs", type=int, default=None, help="threads (default per core)")
    parser.add_argument(
        "--policies", default="1,0.1", help="the random policies' action ranges, comma-separated"
    )
    parser.add_argument("--steps", type=int, default=STEPS, help="steps of a block from reset")
    args = parser.parse_args()
    globals()["STEPS"] = args.steps
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")
    for scale in [float(s) for s in args.policies.split(",")]:
        globals()["SCALE"] = scale
        single, single_cpu = timed(single_env, args.seconds)
        print(
            f"\npolicy: actions uniform in +-{scale:g} (hands +-{scale * ACCEL:g} m/s^2);"
            f" single env {single:,.0f} env steps/s ({single_cpu:.1f} us CPU per step)"
        )
        print("| N | vector env | batch | python loop | vector env / single env |"
              " vector env / 3,760 | CPU us per env step (vector env, batch, loop) |")
        print("|---|---|---|---|---|---|---|")
        for n in sizes:
            v, v_cpu = timed(lambda: vector_env(n, args.jobs), args.seconds)
            b, b_cpu = timed(lambda: batch(n, args.jobs), args.seconds)
            p, p_cpu = timed(lambda: python_loop(n), args.seconds)
            print(
                f"| {n} | {v:,.0f} | {b:,.0f} | {p:,.0f} | {v / single:.1f}x | {v / 3760:.1f}x |"
                f" {v_cpu:.1f}, {b_cpu:.1f}, {p_cpu:.1f} |"
            )
    globals()["SCALE"] = 1.0
    n = max(sizes)
    print(f"\nwhere Batch.step's time goes at N = {n} (env steps/s, CPU us per env step):")
    for label, make in [
        ("the core's step, one thread (random hands set, 10 ms integrated)", lambda: batch(n, 1)),
        ("the core's step, threads (the same)", lambda: batch(n, args.jobs)),
        ("hands set still (zero) every step, one thread", lambda: batch(n, 1, accel="zero")),
        ("no hand change, still hands (integration only), one thread", lambda: batch(n, 1, accel=None)),
        ("no integration (dt 0: state read, numpy in and out), one thread", lambda: batch(n, 1, accel=None, dt=0.0)),
        ("no integration, threads (the dispatch)", lambda: batch(n, args.jobs, accel=None, dt=0.0)),
    ]:
        rate, cpu = timed(make, args.seconds)
        print(f"  {label}: {rate:,.0f} ({cpu:.2f} us)")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
