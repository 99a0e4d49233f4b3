"""``diabolo.Batch``: N simulations of one scenario stepped together (docs/batch.md).

Each member is a :class:`diabolo.Simulation` of the scenario with parameters of its own (the
command line's ``--set`` dotted paths, one value per member), and all of them advance in one
call: a pool of Rust threads steps the members with the interpreter released, the hands' inputs
come in as one numpy array of shape ``(N, 2, D)`` (left and right hand; D is 2 in the plane, 3
in space) and the observations come out as one array ``(N, 13)`` (``(N, 20)`` in space), the
observation of :mod:`diabolo.gym` (one definition, in the Rust core of the package). A member
whose run fails stops there (status 1, its message in :meth:`Batch.failure`); the others go
on. A member stepped in a batch takes the same steps as the same :class:`Simulation` stepped
alone with the same inputs (``set_hand`` left then right, then ``step``): the same numbers, bit
for bit, whatever the number of threads.
"""

from __future__ import annotations

import json
import numbers
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import InvalidScenario, ScenarioLike, Simulation, _diabolo, _json, _sets, _source

__all__ = ["Batch", "BatchStep", "InvalidBatch", "RUNNING", "FAILED", "FINISHED"]

RUNNING, FAILED, FINISHED = 0, 1, 2
"""A member's status: running, failed (its run stopped; see :meth:`Batch.failure`), at its
duration."""

ON_STRING, FLYING, DROPPED = 0, 1, 2
"""The first diabolo's mode (``BatchStep.mode``)."""

Members = Union[None, Sequence[bool], Sequence[int], np.ndarray]


class InvalidBatch(InvalidScenario, ValueError):
    """A batch that cannot be built: the member, its parameters and the command line's message
    (the JSON path, the value, the fix). Both an :class:`InvalidScenario` and a ``ValueError``."""


class BatchStep(NamedTuple):
    """What :meth:`Batch.step`, :meth:`Batch.reset` and :meth:`Batch.observe` return: three
    arrays of every member (fresh arrays, one copy out of the Rust core), and named views of
    them.

    Attributes:
        observations: ``(N, 13)`` float32 (``(N, 20)`` in space), the observation of
            :mod:`diabolo.gym` (relative to the hands; see its documentation).
        values: ``(N, 8)`` float64: ``t``, ``x``, ``y``, ``hands_x``, ``speed``, ``spin``,
            ``tilt``, ``hands_y`` (the properties below).
        flags: ``(N, 4)`` int32: ``status``, ``mode``, ``lands``, ``drops``.
    """

    observations: np.ndarray
    values: np.ndarray
    flags: np.ndarray

    @property
    def t(self) -> np.ndarray:
        """Each member's time, s."""
        return self.values[:, 0]

    @property
    def x(self) -> np.ndarray:
        """The first diabolo's x, m."""
        return self.values[:, 1]

    @property
    def y(self) -> np.ndarray:
        """The first diabolo's height y, m."""
        return self.values[:, 2]

    @property
    def hands_x(self) -> np.ndarray:
        """The sticks' mean x, m."""
        return self.values[:, 3]

    @property
    def speed(self) -> np.ndarray:
        """The first diabolo's speed, m/s."""
        return self.values[:, 4]

    @property
    def spin(self) -> np.ndarray:
        """The first diabolo's spin w (the axle's surface speed), m/s."""
        return self.values[:, 5]

    @property
    def tilt(self) -> np.ndarray:
        """The first diabolo's axle tilt, degrees (NaN in the plane)."""
        return self.values[:, 6]

    @property
    def hands_y(self) -> np.ndarray:
        """The sticks' mean height, m."""
        return self.values[:, 7]

    @property
    def status(self) -> np.ndarray:
        """``RUNNING`` (0), ``FAILED`` (1) or ``FINISHED`` (2, at the scenario's duration)."""
        return self.flags[:, 0]

    @property
    def mode(self) -> np.ndarray:
        """The first diabolo's mode: ``ON_STRING`` (0), ``FLYING`` (1), ``DROPPED`` (2)."""
        return self.flags[:, 1]

    @property
    def lands(self) -> np.ndarray:
        """The ``land`` events of the call (a flying diabolo caught by the string)."""
        return self.flags[:, 2]

    @property
    def drops(self) -> np.ndarray:
        """The ``drop`` events of the call (a diabolo on the floor)."""
        return self.flags[:, 3]


def _value(value: Any, what: str) -> str:
    """A ``--set`` value: a string stays text, anything else (numpy numbers too) as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, np.generic):
        value = value.item()
    return _json(value, what)


class Batch:
    """N simulations of one scenario stepped together by Rust threads.

    Args:
        scenario: a dict, a JSON text or a path of a scenario file (one diabolo is observed:
            the first).
        n: the number of members; by default the length of ``params``' arrays.
        params: ``{dotted path: N values}``: member i gets ``--set path=values[i]``
            (``{"params.friction": np.linspace(0.1, 0.3, 64)}``).
        overrides: ``--set`` dotted paths and values for every member.
        jobs: threads (default: one per core; at most one per member and per core); the
            numbers do not depend on it.
        stiffness, damping, max_force: the gains of a ``target`` input (as
            :meth:`Simulation.set_hand`'s ``path_target``: 400 N/m, critical damping, 50 N).

    Raises:
        InvalidBatch: a member's scenario is invalid: the member's index, its parameters and
            the command line's message (the field, the value and the fix).
    """

    def __init__(
        self,
        scenario: ScenarioLike,
        n: Optional[int] = None,
        *,
        params: Optional[Mapping[str, Sequence[Any]]] = None,
        overrides: Optional[Mapping[str, Any]] = None,
        jobs: Optional[int] = None,
        stiffness: float = 400.0,
        damping: Optional[float] = None,
        max_force: float = 50.0,
    ) -> None:
        columns: List[Tuple[str, List[str]]] = []
        for key, values in (params or {}).items():
            if isinstance(values, (str, bytes, Mapping)) or not np.ndim(values):
                raise InvalidBatch(
                    f"params[{key!r}]: give one value per member (a list or an array), got a"
                    " single value; use overrides= for a value every member shares"
                )
            values = values.tolist() if isinstance(values, np.ndarray) else list(values)
            columns.append(
                (str(key), [_value(v, f"params[{key!r}][{i}]") for i, v in enumerate(values)])
            )
        if n is None:
            if not columns:
                raise InvalidBatch("Batch: give n (the number of members) or params")
            n = len(columns[0][1])
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise InvalidBatch(f"n must be a whole number >= 1 (members), got {n!r}")
        for key, values in columns:
            if len(values) != n:
                raise InvalidBatch(
                    f"params[{key!r}]: {len(values)} values for {n} members; give one per member"
                )
        if jobs is not None and (
            isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral) or jobs < 1
        ):
            raise InvalidBatch(f"jobs must be a whole number >= 1 (threads), got {jobs!r}")
        text, label = _source(scenario)
        try:
            self._native = _diabolo.Batch(text, label, _sets(overrides), int(n), columns, jobs)
        except InvalidScenario as error:
            raise InvalidBatch(str(error)) from None
        for name, gain in (("stiffness", stiffness), ("max_force", max_force)):
            if not (isinstance(gain, numbers.Real) and np.isfinite(gain) and gain >= 0):
                raise InvalidBatch(f"{name} must be a finite number >= 0, got {gain!r}")
        if damping is None:
            damping = 2.0 * (float(stiffness) * self._native.stick_mass) ** 0.5
        self._gains = (float(stiffness), float(damping), float(max_force))
        self._n = int(n)
        self._dim = 3 if self._native.space else 2

    def __len__(self) -> int:
        return self._n

    @property
    def space(self) -> bool:
        """Whether the scenario runs in space (inputs and observations with z)."""
        return self._native.space

    @property
    def observation_size(self) -> int:
        """The length of an observation: 13 in the plane, 20 in space."""
        return self._native.size

    @property
    def threads(self) -> int:
        """The threads that step the members."""
        return self._native.threads

    def _index(self, member: Any) -> int:
        """``member`` as an index of the batch, or a ``ValueError`` naming it and the range."""
        if isinstance(member, bool) or not isinstance(member, numbers.Integral):
            raise ValueError(f"member must be a whole number, got {member!r}")
        if not 0 <= member < self._n:
            raise ValueError(f"member {member}: the batch has members 0..{self._n - 1}")
        return int(member)

    def _mask(self, members: Members) -> Optional[List[bool]]:
        """``members`` (None, a bool mask or indices) as a bool list, or None for all."""
        if members is None:
            return None
        chosen = np.asarray(members)
        if chosen.dtype == bool:
            if chosen.shape != (self._n,):
                raise ValueError(
                    f"members: a mask of shape {chosen.shape} for {self._n} members; give"
                    f" shape ({self._n},) or indices"
                )
            return chosen.tolist()
        if chosen.size and not np.issubdtype(chosen.dtype, np.integer):
            raise ValueError(f"members: give a bool mask or member indices, got {members!r}")
        mask = np.zeros(self._n, dtype=bool)
        indices = chosen.astype(np.int64).ravel()
        bad = indices[(indices < 0) | (indices >= self._n)]
        if bad.size:
            raise ValueError(f"members: {int(bad[0])} is no member; give 0..{self._n - 1}")
        mask[indices] = True
        return mask.tolist()

    def _input(
        self, accel: Any, force: Any, target: Any
    ) -> Tuple[Optional[str], Optional[np.ndarray], Optional[Tuple[float, float, float]]]:
        given = [(k, v) for k, v in (("accel", accel), ("force", force), ("target", target)) if v is not None]
        if not given:
            return None, None, None
        if len(given) > 1:
            raise ValueError(
                f"give at most one of accel=, force=, target= (got {', '.join(k for k, _ in given)})"
            )
        kind, values = given[0]
        try:
            array = np.ascontiguousarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{kind}: give numbers of shape (members, 2, {self._dim}), got {values!r}"
            ) from None
        return kind, array, self._gains if kind == "target" else None

    def step(
        self,
        dt: float,
        accel: Any = None,
        *,
        force: Any = None,
        target: Any = None,
        members: Members = None,
    ) -> BatchStep:
        """Sets both hands of each member (when an input is given) and advances them by ``dt``
        seconds.

        Args:
            dt: the step, s.
            accel: the sticks' accelerations, m/s^2, shape ``(M, 2, D)`` (left, right; D = 2,
                or 3 in space), M the members stepped.
            force: the forces on the sticks, N, the same shape.
            target: points the hands pull the sticks toward (the batch's gains), m.
            members: the members to step (a bool mask of N or indices; default all); the
                others stay where they are (their ``lands`` and ``drops`` zero).

        Returns:
            The arrays of all members after the step. A member that fails on the way is
            ``FAILED`` with its last observation; its message is :meth:`failure`.
        """
        kind, values, gains = self._input(accel, force, target)
        return BatchStep(*self._native.step(float(dt), kind, values, gains, self._mask(members)))

    def reset(
        self,
        members: Members = None,
        *,
        accel: Any = None,
        force: Any = None,
        target: Any = None,
    ) -> BatchStep:
        """Starts members over at t = 0 with the scenario's hands (all by default), then gives
        them ``accel``, ``force`` or ``target`` (one row per member reset) when given."""
        kind, values, gains = self._input(accel, force, target)
        return BatchStep(*self._native.reset(self._mask(members), kind, values, gains))

    def observe(self) -> BatchStep:
        """The arrays of all members now (``lands`` and ``drops`` those of the last call)."""
        return BatchStep(*self._native.observe())

    def events(self, member: int) -> List[Dict[str, Any]]:
        """Member ``member``'s events since the last call (dicts, as in ``Run.events``)."""
        events = self._native.events(self._index(member))
        return json.loads(events) if events else []

    def failure(self, member: int) -> Optional[str]:
        """Why member ``member``'s run stopped (the time and the object), or None."""
        return self._native.failure(self._index(member))

    def simulation(self, member: int) -> Simulation:
        """An independent copy of a member as a :class:`Simulation`, to step on alone."""
        return Simulation._wrap(self._native.member_copy(self._index(member)))

    def __repr__(self) -> str:
        return f"Batch(n={self._n}, space={self.space}, threads={self.threads})"
