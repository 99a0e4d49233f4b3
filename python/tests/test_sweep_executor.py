"""diabolo.sweep(executor=...): a sweep's points spread in chunks over a concurrent.futures
executor or a dask.distributed client give the local sweep's table, row for row; an invalid
point raises the local message."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Dict

import numpy as np
import pytest

import diabolo
from test_diabolo import ROOT

SCENARIO = ROOT / "scenarios" / "swing.json"
AXES = {
    "grid": {"params.friction": (0.1, 0.5, 5)},
    "lists": {"params.spin_drag": [0, 0.0001]},
    "overrides": {"sim.duration": 0.5},
}


def same_table(a: Dict[str, np.ndarray], b: Dict[str, np.ndarray]) -> bool:
    """The same columns in the same order with the same values, bit for bit (NaN equal)."""
    if list(a) != list(b):
        return False
    return all(
        np.array_equal(a[k], b[k], equal_nan=a[k].dtype.kind == "f") and a[k].dtype == b[k].dtype
        for k in a
    )


def test_a_sweep_on_an_executor_is_the_local_sweep_row_for_row():
    local = diabolo.sweep(SCENARIO, **AXES)
    sampled = diabolo.sweep(SCENARIO, grid={"params.friction": (0.1, 0.5, 3)}, samples=5, seed=7,
                            overrides={"sim.duration": 0.2})
    spawn = multiprocessing.get_context("spawn")  # fresh workers, not forks of a threaded process
    with ThreadPoolExecutor(2) as threads, ProcessPoolExecutor(2, mp_context=spawn) as processes:
        for executor in (threads, processes):
            for chunk in (None, 1, 3, 100):
                got = diabolo.sweep(SCENARIO, executor=executor, chunk=chunk, **AXES)
                assert same_table(got, local), (executor, chunk)
            got = diabolo.sweep(SCENARIO, grid={"params.friction": (0.1, 0.5, 3)}, samples=5,
                                seed=7, overrides={"sim.duration": 0.2}, executor=executor)
            assert same_table(got, sampled)
        # A bad point raises the local sweep's message, from whichever chunk holds it.
        bad = {"lists": {"params.friction": [0.2, 0.3, -1.0]}, "overrides": {"sim.duration": 0.2}}
        with pytest.raises(diabolo.InvalidScenario) as locally:
            diabolo.sweep(SCENARIO, **bad)
        with pytest.raises(diabolo.InvalidScenario) as remotely:
            diabolo.sweep(SCENARIO, executor=processes, chunk=1, **bad)
        assert str(remotely.value) == str(locally.value) and "params.friction" in str(locally.value)
        with pytest.raises(ValueError, match="chunk"):
            diabolo.sweep(SCENARIO, executor=threads, chunk=0, **AXES)


def test_a_sweep_on_a_dask_local_cluster_is_the_local_sweep_row_for_row():
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - the test environment installs dask
        pytest.skip(
            "SKIPPED: dask.distributed is not importable, the Dask sweep is NOT tested;"
            " pip install 'dask[distributed]'"
        )
    local = diabolo.sweep(SCENARIO, **AXES)
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, Client(cluster) as client:
        got = diabolo.sweep(SCENARIO, executor=client, chunk=2, **AXES)
        assert same_table(got, local)
        assert same_table(diabolo.sweep(SCENARIO, executor=client, **AXES), local)
