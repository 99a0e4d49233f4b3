"""diabolo: diabolo string dynamics from Python.

The same Rust core as the ``diabolo`` command line, called in process:

- :func:`run` runs a scenario and returns a :class:`Run` whose ``trajectory`` holds the
  trajectory CSV's columns as numpy arrays (the same values, bit for bit), with the events and
  the summary.
- :func:`plan` plans the hands of a task (a scenario with a ``plan`` object, docs/plan.md) as
  ``diabolo plan`` does and returns a :class:`Plan`: the planned scenario and the report.
- :func:`sweep` runs a scenario over a grid, lists or random samples of parameter values in
  parallel and returns the summary table, one row per point in point order.
- :class:`Simulation` steps a scenario for control: change the hands' inputs between steps,
  read the state, snapshot it with :meth:`Simulation.copy`.
- :class:`Batch` steps N simulations of one scenario together, each with parameters of its
  own, on Rust threads: the hands' inputs and the observations as numpy arrays (docs/batch.md).
- :mod:`diabolo.gym` (with ``gymnasium`` installed) wraps it as a reinforcement-learning
  environment, single (``DiaboloEnv``) or vectorized (``DiaboloVectorEnv``).

A scenario is a dict (the JSON scenario format of docs/interface.md), a JSON text, or the
path of a scenario file; ``overrides`` are the command line's ``--set`` dotted paths, as a dict
(``{"sim.duration": 2, "params.friction": 0.3}``). Bad input raises :class:`InvalidScenario`
with the command line's message (the JSON path, the value and the fix); a run that stops early
raises :class:`RunFailed` carrying the partial run.
"""

from __future__ import annotations

import csv
import io
import json
import math
import numbers
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _diabolo
from ._diabolo import DiaboloError, InvalidScenario, RunFailed

__all__ = [
    "run",
    "sweep",
    "plan",
    "validate",
    "schema",
    "Run",
    "Plan",
    "Simulation",
    "Batch",
    "BatchStep",
    "InvalidBatch",
    "DiaboloError",
    "InvalidScenario",
    "InvalidTask",
    "RunFailed",
    "__version__",
]

__version__: str = _diabolo.__version__


class InvalidTask(InvalidScenario, ValueError):
    """A task that cannot be planned (``diabolo plan``'s exit 2): the command line's message,
    the field's JSON path first (``plan.targets[0].state.diabolo = 3: ...``). Both an
    :class:`InvalidScenario` and a ``ValueError``."""

ScenarioLike = Union[Mapping[str, Any], str, "os.PathLike[str]"]


def _json(value: Any, what: str) -> str:
    """``value`` as JSON text; a NaN or infinity (JSON has none) is an ``InvalidScenario`` naming
    ``what``, the value and the fix, instead of json's bare "Out of range float values"."""
    try:
        return json.dumps(value, allow_nan=False)
    except ValueError:
        raise InvalidScenario(
            f"{what}: {value!r} holds a NaN or an infinity, which JSON (and a scenario) cannot"
            " hold; give finite numbers"
        ) from None


def _source(scenario: ScenarioLike) -> Tuple[Optional[str], str]:
    """(JSON text or None for a file, the name messages use)."""
    if isinstance(scenario, Mapping):
        return _json(scenario, "scenario"), "<scenario>"
    if isinstance(scenario, os.PathLike):
        return None, os.fspath(scenario)
    if isinstance(scenario, str):
        if scenario.lstrip().startswith("{"):
            return scenario, "<scenario>"
        return None, scenario
    raise TypeError(
        f"scenario must be a dict, a JSON text or a path, got {type(scenario).__name__}"
    )


def _sets(overrides: Optional[Mapping[str, Any]]) -> List[Tuple[str, str]]:
    """``--set KEY=VALUE`` pairs: a string stays text, anything else is written as JSON."""
    if overrides is None:
        return []
    if not isinstance(overrides, Mapping):
        raise TypeError("overrides must be a dict of dotted paths to values")
    return [
        (str(key), value if isinstance(value, str) else _json(value, f"overrides[{key!r}]"))
        for key, value in overrides.items()
    ]


def _count(value: Any, name: str, least: int) -> int:
    """``value`` as a whole number of at least ``least``, or a ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise ValueError(
            f"{name} must be a whole number >= {least}, got {value!r}; give {least} or more"
        )
    return int(value)


def _gain(value: Any, name: str, unit: str) -> float:
    """``value`` as a finite number >= 0, or a ``ValueError`` naming ``name``, its unit and the
    value."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not (math.isfinite(number) and number >= 0.0):
        raise ValueError(
            f"set_hand: {name} must be a finite number >= 0 ({unit}), got {value!r};"
            f" give 0 or more (the default stiffness is 400 N/m)"
        )
    return number


def _columns(native: Mapping[str, Any]) -> Dict[str, np.ndarray]:
    """The native columns with the name columns as numpy string arrays."""
    out: Dict[str, np.ndarray] = {}
    for name, values in native.items():
        if isinstance(values, tuple):
            codes, names = values
            out[name] = np.asarray(names, dtype=str)[codes] if names else np.array([], dtype=str)
        else:
            out[name] = values
    return out


class Run:
    """A finished (or failed) run.

    Attributes:
        trajectory: the trajectory CSV's columns by name (``t``, ``phase``, ``d1_x``, ...):
            float64 arrays (NaN where the CSV field is empty), int64 for ``dK_slot``, str for
            ``phase`` and ``dK_mode``.
        events: the event log, one dict per event (the ``--events`` JSON lines).
        summary: the run's summary (the JSON line ``diabolo run`` prints).
        status: ``"ok"`` or ``"failed"``.
        failure: why the run stopped early, or None.
        warnings: the scenario's plausibility warnings.
    """

    def __init__(
        self,
        trajectory: Dict[str, np.ndarray],
        events: List[Dict[str, Any]],
        summary: Dict[str, Any],
        failure: Optional[str],
        warnings: List[str],
    ) -> None:
        self.trajectory = trajectory
        self.events = events
        self.summary = summary
        self.failure = failure
        self.status = "failed" if failure is not None else "ok"
        self.warnings = warnings

    def __len__(self) -> int:
        t = self.trajectory.get("t")
        return 0 if t is None else len(t)

    def __repr__(self) -> str:
        return (
            f"Run(status={self.status!r}, rows={len(self)}, events={len(self.events)}, "
            f"end_time={self.summary.get('end_time')!r})"
        )

    def to_pandas(self) -> "Any":
        """The trajectory as a pandas DataFrame (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.trajectory)

    def to_polars(self) -> "Any":
        """The trajectory as a polars DataFrame (needs polars)."""
        import polars as pl

        return pl.DataFrame(self.trajectory)


def run(
    scenario: ScenarioLike,
    overrides: Optional[Mapping[str, Any]] = None,
    *,
    rows: bool = True,
) -> Run:
    """Runs a scenario to its end; the interpreter is released while it runs.

    Args:
        scenario: a dict, a JSON text or a path of a scenario file.
        overrides: ``--set`` dotted paths and values.
        rows: False to skip collecting the trajectory (the summary and events only).

    Raises:
        InvalidScenario: the scenario cannot be run (the message names the JSON path).
        RunFailed: the run stopped early; ``error.run`` is the partial :class:`Run`.
    """
    text, label = _source(scenario)
    columns, events, summary, failure, warnings = _diabolo.run(text, label, _sets(overrides), rows)
    result = Run(_columns(columns), json.loads(events), json.loads(summary), failure, warnings)
    if failure is not None:
        error = RunFailed(failure)
        error.run = result  # type: ignore[attr-defined]
        raise error
    return result


def validate(scenario: ScenarioLike, overrides: Optional[Mapping[str, Any]] = None) -> List[str]:
    """Checks a scenario as ``diabolo validate`` does: its plausibility warnings.

    Raises:
        InvalidScenario: what is wrong, with the JSON path and the fix.
    """
    text, label = _source(scenario)
    return list(_diabolo.validate(text, label, _sets(overrides)))


def schema() -> Dict[str, Any]:
    """The JSON Schema of the scenario format."""
    return json.loads(_diabolo.schema())


def _typed(values: Sequence[str]) -> np.ndarray:
    """A summary column as numbers where every field is one (int64, else float64 with NaN for
    empty fields), booleans for true/false, else strings."""
    if all(v in ("true", "false") for v in values) and values:
        return np.array([v == "true" for v in values], dtype=bool)
    try:
        return np.array([int(v) for v in values], dtype=np.int64)
    except ValueError:
        pass
    try:
        return np.array([float(v) if v != "" else np.nan for v in values], dtype=np.float64)
    except ValueError:
        return np.array(values, dtype=str)


def sweep(
    scenario: ScenarioLike,
    grid: Optional[Mapping[str, Tuple[float, float, int]]] = None,
    lists: Optional[Mapping[str, Sequence[Any]]] = None,
    *,
    samples: Optional[int] = None,
    seed: int = 0,
    jobs: Optional[int] = None,
    overrides: Optional[Mapping[str, Any]] = None,
    frame: bool = False,
    executor: Any = None,
    chunk: Optional[int] = None,
) -> Union[Dict[str, np.ndarray], "Any"]:
    """Runs a scenario over parameter values in parallel, as ``diabolo sweep`` does.

    Args:
        scenario: a dict, a JSON text or a path of a scenario file.
        grid: ``{key: (start, stop, count)}``: count values from start to stop inclusive.
        lists: ``{key: [values]}``: the listed values.
        samples: random points instead of the grid product (grid axes uniform, list axes one of
            their values), reproducible from ``seed``.
        seed: the seed of the random points.
        jobs: threads (default: one per core); the rows do not depend on it.
        overrides: ``--set`` dotted paths fixed for every point.
        frame: True for a pandas DataFrame instead of a dict of arrays.
        executor: where to run the points instead of this process's threads: any
            ``concurrent.futures.Executor`` or a ``dask.distributed.Client`` (anything with
            ``submit(fn, *args)`` returning a future with ``result()``). The points go out in
            chunks of consecutive points, each run by ``diabolo`` on the worker (on ``jobs``
            threads there, default 1); the table is the local sweep's, row for row. A path
            scenario (and the files it names) must be readable at the same path by the workers.
        chunk: points per chunk (default: the points split into 32 chunks, at least 1 point
            each).

    Returns:
        The summary table, one row per point in point order: ``index``, the swept values,
        ``status`` (``ok`` or ``failed``), ``error`` and the metrics of ``diabolo sweep``.
        Failed points are rows with status ``failed``; they raise nothing.
    """
    text, label = _source(scenario)
    grid_axes = [
        (str(k), float(a), float(b), _count(n, f"grid[{k!r}] count", 1))
        for k, (a, b, n) in (grid or {}).items()
    ]
    list_axes = [(str(k), _json(list(v), f"lists[{k!r}]")) for k, v in (lists or {}).items()]
    if samples is not None:
        samples = _count(samples, "samples", 1)
    if jobs is not None:
        jobs = _count(jobs, "jobs (threads; None for one per core)", 1)
    if not grid_axes and not list_axes:
        raise InvalidScenario("sweep: give at least one axis (grid={...} or lists={...})")
    args = (text, label, _sets(overrides), grid_axes, list_axes, samples, int(seed))
    if executor is None:
        csv_text, _failed, _total = _diabolo.sweep(*args, jobs)
    else:
        csv_text = _spread(executor, args, jobs, chunk)
    table = _table(csv_text)
    if frame:
        import pandas as pd

        return pd.DataFrame(table)
    return table


CHUNKS = 32
"""The chunks a sweep is split into on an executor by default."""


def _sweep_points(args: Tuple[Any, ...], jobs: int, start: int, end: int) -> Tuple[str, str]:
    """Runs the points ``start..end`` of a sweep (on a worker): ``("ok", rows)`` (the CSV rows
    without the header) or ``("invalid", message)`` (the message crosses processes as text)."""
    try:
        text, _failed, _total = _diabolo.sweep(*args, jobs, (start, end))
    except InvalidScenario as error:
        return "invalid", str(error)
    return "ok", text.split("\n", 1)[1]


def _spread(executor: Any, args: Tuple[Any, ...], jobs: Optional[int], chunk: Optional[int]) -> str:
    """The summary CSV of a sweep whose points ran in chunks on ``executor``."""
    header, _failed, total = _diabolo.sweep(*args, 1, (0, 0))
    if chunk is None:
        chunk = max(1, -(-total // CHUNKS))
    chunk = _count(chunk, "chunk (points per task)", 1)
    threads = 1 if jobs is None else jobs
    futures = [
        executor.submit(_sweep_points, args, threads, start, min(start + chunk, total))
        for start in range(0, total, chunk)
    ]
    parts = [header]
    for future in futures:
        status, text = future.result()
        if status != "ok":
            raise InvalidScenario(text)
        parts.append(text)
    return "".join(parts)


def _table(csv_text: str) -> Dict[str, np.ndarray]:
    """A summary CSV as typed columns."""
    reader = csv.reader(io.StringIO(csv_text))
    header = next(reader)
    records = list(reader)
    return {name: _typed([r[i] for r in records]) for i, name in enumerate(header)}


class Plan:
    """A planned task (:func:`plan`).

    Attributes:
        scenario: the planned scenario as a dict: the task without ``plan``, each planned hand's
            drive a cubic ``path`` (what ``diabolo plan -o`` writes).
        text: the same scenario as the command line writes it, byte for byte; ``diabolo run``
            (or :func:`run`) on it reproduces the planner's checks.
        report: the ``--report`` JSON as a dict: ``checks`` (each ``what``, ``diabolo``,
            ``value``, ``margin``: positive where met, in the value's unit), ``effort``
            (m^2/s^3), ``iterations``, ``simulations``, ``starts``, ``wall_time`` (s) and
            ``stopped`` (``met``, ``settled``, ``budget``, ``starts``).
        met: whether every target and limit holds (the command line's exit 0).
        unmet: the checks that do not hold (dicts of ``report["checks"]``).
    """

    def __init__(self, text: str, report: Dict[str, Any], met: Sequence[bool]) -> None:
        self.text = text
        self.scenario: Dict[str, Any] = json.loads(text)
        self.report = report
        checks = report.get("checks", [])
        self.unmet: List[Dict[str, Any]] = [c for c, ok in zip(checks, met) if not ok]
        self.met: bool = all(met)

    def keyframes(self, hand: str) -> List[Tuple[float, float, float]]:
        """The planned keyframes (t, x, y) of ``hand`` (``"left"`` or ``"right"``), for
        :meth:`Simulation.set_hand`'s ``path``."""
        drive = self.scenario.get("drive", {}).get(hand, {})
        return [(float(t), float(x), float(y)) for t, x, y in drive.get("keyframes", [])]

    def __repr__(self) -> str:
        return (
            f"Plan(met={self.met!r}, simulations={self.report.get('simulations')!r}, "
            f"effort={self.report.get('effort')!r}, stopped={self.report.get('stopped')!r})"
        )


def plan(
    task: ScenarioLike,
    overrides: Optional[Mapping[str, Any]] = None,
    *,
    seed: int = 1,
    jobs: Optional[int] = None,
    max_simulations: int = 10000,
) -> Plan:
    """Plans the hands of a task as ``diabolo plan`` does (docs/plan.md, docs/plan_python.md).

    The search runs with the interpreter released on ``jobs`` threads; Ctrl-C stops it and
    raises ``KeyboardInterrupt``. A plan that misses a target is returned (``met`` False,
    ``unmet`` naming the checks), as the command line writes it and exits 1.

    Args:
        task: a dict, a JSON text or the path of a task (a scenario with a ``plan`` object); a
            path's folder is the base of its relative files.
        overrides: ``--set`` dotted paths and values (``{"plan.limits.speed": 4}``).
        seed: the seed of the random starts (``--seed``); the plan depends on it, not on
            ``jobs``.
        jobs: threads (default: one per core).
        max_simulations: the budget of runs (``--max-simulations``).

    Raises:
        InvalidTask: a bad task (a ``ValueError`` and an :class:`InvalidScenario`): the
            command line's message, the field's JSON path first.
    """
    text, label = _source(task)
    if jobs is not None:
        jobs = _count(jobs, "jobs (threads; None for one per core)", 1)
    max_simulations = _count(max_simulations, "max_simulations", 1)
    seed = _count(seed, "seed", 0)
    try:
        planned, report, met = _diabolo.plan(
            text, label, _sets(overrides), seed, jobs, max_simulations
        )
    except InvalidScenario as e:
        raise InvalidTask(str(e)) from None
    return Plan(planned, json.loads(report), met)


class Simulation:
    """A scenario stepped for control.

    ``step(dt)`` advances with the current hand inputs and returns the events on the way;
    ``set_hand`` changes a hand's input between steps. Without changes the steps and events are
    those of :func:`run` (the state at each step is the run's row at that time, bit for bit).
    The scenario's ``sim.duration`` is the horizon: ``finished`` turns True there.
    """

    def __init__(self, scenario: ScenarioLike, overrides: Optional[Mapping[str, Any]] = None):
        text, label = _source(scenario)
        self._native = _diabolo.Stepper(text, label, _sets(overrides))

    @classmethod
    def _wrap(cls, native: Any) -> "Simulation":
        sim = cls.__new__(cls)
        sim._native = native
        return sim

    def step(self, dt: float) -> List[Dict[str, Any]]:
        """Advances by ``dt`` seconds; the events on the way (dicts, as in ``Run.events``).

        Raises:
            RunFailed: the run failed on the way (time and object in the message); every later
                step raises it again.
        """
        events = self._native.step(dt)
        return json.loads(events) if events else []

    def set_hand(
        self,
        hand: str,
        *,
        force: Optional[Sequence[float]] = None,
        accel: Optional[Sequence[float]] = None,
        path_target: Optional[Sequence[float]] = None,
        path: Optional[Sequence[Sequence[float]]] = None,
        path_velocity: Optional[Sequence[float]] = None,
        released: bool = False,
        stiffness: float = 400.0,
        damping: Optional[float] = None,
        max_force: float = 50.0,
    ) -> None:
        """Changes a hand's input from now on (exactly one of the inputs).

        Args:
            hand: ``"left"`` or ``"right"``.
            force: the force on the stick (x, y), N; (x, y, z) in space.
            accel: the stick's acceleration (x, y), m/s^2; (x, y, z) in space.
            path_target: a point (x, y), m ((x, y, z) in space), the hand pulls the stick toward with ``stiffness``
                (N/m), ``damping`` (N s/m; default critical, 2 sqrt(k M)) and at most
                ``max_force`` (N).
            path: keyframes (t, x, y) (s, m; t counted from now, increasing) the stick follows
                exactly on the format's clamped cubic spline (a ``"path"`` drive with
                ``"interpolation": "cubic"``: at rest at the first and the last keyframe, held
                at the last), e.g. :meth:`Plan.keyframes`; in the plane only. The stick jumps
                to the path's first point and velocity (at rest) as a velocity jump does.
            path_velocity: with ``path``, the velocity (vx, vy), m/s, the spline leaves its
                first keyframe with (C2, still at rest at the last; the format's
                ``"start_velocity"``), so that a moving stick (give its velocity,
                ``state["stick_velocities"]``, and its position as the first keyframe) goes on
                along the path without a jump.
            released: the hand lets go of the stick.
        """
        side = {"left": 0, "right": 1}.get(hand)
        if side is None:
            raise ValueError(f"hand must be 'left' or 'right', got {hand!r}")
        if path_velocity is not None and path is None:
            raise ValueError("set_hand: path_velocity= goes with path=")
        name, kind, value = _one_input("set_hand", force, accel, path_target, path, released)
        if kind == "path":
            velocity = None
            if path_velocity is not None:
                vx, vy = _pair(path_velocity, "path_velocity")[:2]
                velocity = (vx, vy)
            _diabolo.set_path(self._native, side, _keyframes(path), velocity)
        elif kind == "released":
            self._native.set_hand(side, "released")
        else:
            gains = self._gains(stiffness, damping, max_force) if kind == "target" else None
            self._native.set_hand(side, kind, _pair(value, name), gains)

    def set_hands(
        self,
        *,
        force: Optional[Sequence[Sequence[float]]] = None,
        accel: Optional[Sequence[Sequence[float]]] = None,
        path_target: Optional[Sequence[Sequence[float]]] = None,
        released: bool = False,
        stiffness: float = 400.0,
        damping: Optional[float] = None,
        max_force: float = 50.0,
    ) -> None:
        """Changes both hands' inputs at once (exactly one kind of input, as
        :meth:`set_hand`'s): ``force``, ``accel`` and ``path_target`` are pairs (left, right)
        of (x, y) values ((x, y, z) in space). In the plane the string is entered again once,
        not once per hand: cheaper, and what :class:`Batch` does, bit for bit (two
        ``set_hand`` calls give the same motion within round-off, not the same bits)."""
        name, kind, value = _one_input("set_hands", force, accel, path_target, None, released)
        if kind == "released":
            self._native.set_hands("released")
            return
        try:
            left, right = value
        except (TypeError, ValueError):
            raise ValueError(
                f"set_hands: {name} must be a pair (left, right) of (x, y) values, got {value!r}"
            ) from None
        pair = [list(_pair(left, name)), list(_pair(right, name))]
        gains = self._gains(stiffness, damping, max_force) if kind == "target" else None
        self._native.set_hands(kind, pair, gains)

    def _gains(
        self, stiffness: float, damping: Optional[float], max_force: float
    ) -> Tuple[float, float, float]:
        """A target hand's (stiffness, damping, max force), checked; damping critical by
        default, 2 sqrt(k M)."""
        stiffness = _gain(stiffness, "stiffness", "N/m")
        if damping is None:
            damping = 2.0 * (stiffness * self._native.stick_mass) ** 0.5
        return (stiffness, _gain(damping, "damping", "N s/m"), _gain(max_force, "max_force", "N"))

    @property
    def state(self) -> Dict[str, Any]:
        """The state now: ``t``, ``phase``, ``stick_positions`` and ``stick_velocities`` (2x2,
        left then right), ``positions`` and ``velocities`` (Nx2), ``spins`` (N, m/s at the
        axle), ``thetas``, ``knots``, ``modes`` (string, flying, dropped), ``slots``,
        ``tensions`` (T_0..T_n, N), ``hand_forces`` (2x2, N), ``gear_ratio``,
        ``centrifugal_term`` (None while loose), ``energy`` and the ledger (J), ``slack`` (m).

        In space (``space`` is True): ``t``, ``phase``, ``stick_positions`` and
        ``stick_velocities`` (2x3), ``positions`` and ``velocities`` (Nx3), ``axles`` and
        ``axle_rates`` (Nx3: each axle's unit direction and its rate), ``tilts`` and ``turns``
        (N, degrees: the axle's elevation and its azimuth about the vertical), ``spins``,
        ``knots``, ``modes`` and ``slots`` (a diabolo leaves, flies and lands in space as in the
        plane)."""
        return self._native.state()

    @property
    def space(self) -> bool:
        """Whether the scenario runs in space (x, y, z and the axles' tilt and turn)."""
        return self._native.space

    @property
    def time(self) -> float:
        """The time reached, s."""
        return self._native.time

    @property
    def duration(self) -> float:
        """The scenario's duration, the horizon of the stepping, s."""
        return self._native.duration

    @property
    def finished(self) -> bool:
        """Whether the duration is reached or the run failed."""
        return self._native.finished

    @property
    def failure(self) -> Optional[str]:
        """Why the run failed, or None."""
        return self._native.failure

    def report(self) -> Dict[str, Any]:
        """Steps, evaluations, the events so far and the failure, if any."""
        return json.loads(self._native.report())

    def reset(self) -> None:
        """Back to t = 0 with the scenario's own hand inputs."""
        self._native.reset()

    def copy(self) -> "Simulation":
        """An independent snapshot (for planning by rollouts)."""
        return Simulation._wrap(self._native.copy())

    def __repr__(self) -> str:
        return f"Simulation(t={self.time!r}, finished={self.finished!r})"


def _one_input(
    where: str, force: Any, accel: Any, path_target: Any, path: Any, released: bool
) -> Tuple[str, str, Any]:
    """The one input given to ``where`` as (its argument's name, the native kind, its value):
    the kind "force", "accel", "target", "path" or "released" (value None)."""
    given = [
        (name, kind, v)
        for name, kind, v in (
            ("force", "force", force),
            ("accel", "accel", accel),
            ("path_target", "target", path_target),
            ("path", "path", path),
        )
        if v is not None
    ] + ([("released", "released", None)] if released else [])
    if len(given) != 1:
        names = ", ".join(name for name, _, _ in given) or "none"
        options = "force=, accel=, path_target=, path=" if where == "set_hand" else "force=, accel=, path_target="
        raise ValueError(f"{where}: give exactly one of {options}, released=True (got {names})")
    return given[0]


def _pair(value: Sequence[float], name: str) -> Tuple[float, ...]:
    """``value`` as (x, y) or, for a scenario in space, (x, y, z) numbers."""
    try:
        numbers_ = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        numbers_ = ()
    if len(numbers_) not in (2, 3):
        raise ValueError(
            f"{name} must be (x, y) or, in space, (x, y, z) numbers, got {value!r}"
        )
    return numbers_


def _keyframes(path: Sequence[Sequence[float]]) -> List[Tuple[float, float, float]]:
    """``path`` as (t, x, y) numbers."""
    out: List[Tuple[float, float, float]] = []
    for k, frame in enumerate(path):
        try:
            t, x, y = (float(v) for v in frame)
        except (TypeError, ValueError):
            raise ValueError(
                f"path[{k}] must be (t, x, y) numbers (s, m), got {frame!r}"
            ) from None
        out.append((t, x, y))
    return out


from .batch import Batch, BatchStep, InvalidBatch  # noqa: E402  (it builds on the above)
