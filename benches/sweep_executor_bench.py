#!/usr/bin/env python3
"""The cost of spreading a sweep over an executor (`diabolo.sweep(executor=...)`, BENCHMARKS.md
"`sweep_executor_bench.py`"): the same sweep run locally (the package's threads) and in chunks
on a thread pool, a process pool and a Dask LocalCluster, each with two workers of one thread
on the machine's two cores; the overhead per point is (executor - local) / points.

    python benches/sweep_executor_bench.py                  # 512 points of the swing, 0.5 s each
    python benches/sweep_executor_bench.py --points 2048 --duration 0.2
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import numpy as np

import diabolo

ROOT = Path(__file__).resolve().parents[1]


def best(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=512)
    parser.add_argument("--duration", type=float, default=0.5, help="simulated s per point")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    scenario = ROOT / "scenarios" / "swing.json"
    axes = {
        "grid": {"params.friction": (0.1, 0.5, args.points)},
        "overrides": {"sim.duration": args.duration},
    }
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}, {args.points} points")
    local_table = diabolo.sweep(scenario, jobs=2, **axes)
    local = best(lambda: diabolo.sweep(scenario, jobs=2, **axes), args.repeat)
    print("| executor | chunks | s | points/s | overhead per point |")
    print("|---|---|---|---|---|")
    print(f"| local (2 threads) | - | {local:.3f} | {args.points / local:,.0f} | - |")
    spawn = multiprocessing.get_context("spawn")
    executors = [
        ("ThreadPoolExecutor(2)", lambda: ThreadPoolExecutor(2)),
        ("ProcessPoolExecutor(2)", lambda: ProcessPoolExecutor(2, mp_context=spawn)),
    ]
    try:
        from dask.distributed import Client, LocalCluster

        def dask_client():
            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
            client.shutdown_cluster = cluster  # closed below with the client
            return client

        executors.append(("Dask LocalCluster(2 x 1)", dask_client))
    except ImportError:
        print("dask.distributed is not importable: its row is left out")
    for name, make in executors:
        executor = make()
        try:
            for chunk in (None, max(1, args.points // 4), 1):
                chunks = -(-args.points // (chunk or max(1, -(-args.points // diabolo.CHUNKS))))
                table = diabolo.sweep(scenario, executor=executor, chunk=chunk, **axes)  # warm
                assert list(table) == list(local_table) and all(
                    np.array_equal(table[k], local_table[k], equal_nan=table[k].dtype.kind == "f")
                    for k in table
                ), "the executor's table differs from the local one"
                took = best(lambda: diabolo.sweep(scenario, executor=executor, chunk=chunk, **axes),
                            args.repeat)
                print(f"| {name} | {chunks} | {took:.3f} | {args.points / took:,.0f} |"
                      f" {(took - local) / args.points * 1e6:,.0f} us |")
        finally:
            if hasattr(executor, "shutdown_cluster"):
                executor.close()
                executor.shutdown_cluster.close()
            else:
                executor.shutdown()


if __name__ == "__main__":
    main()
