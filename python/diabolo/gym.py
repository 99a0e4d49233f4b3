"""A Gymnasium environment: two hands play one diabolo (needs ``gymnasium``).

``DiaboloEnv(task=...)`` steps a :class:`diabolo.Simulation` of one diabolo on a 1.46 m string
(or a scenario of your own with one diabolo) at ``dt`` (default 0.01 s). Each action sets the
two sticks' accelerations; the observation is the diabolo's and the sticks' state relative to
the hands.

Action (``Box(-1, 1, (4,))``): the left and the right stick's acceleration (x, y) as fractions
of ``max_accel`` (default 30 m/s^2), held for one step. Such hands have no force limit: drawn
apart, they pull the string straight, which ends the episode (a failure). With
``hands="target"`` the action is instead each hand's target point relative to where the hand
starts, as fractions of ``reach`` (default 0.3 m); the hand pulls its stick toward it with
400 N/m, critical damping and at most ``max_force`` (default 50 N), and the string can pull the
stick back: a random policy no longer pulls the string straight.

Observation (``Box(-inf, inf, (13,), float32)``):

====  ===========================================================
0-1   diabolo position minus the left stick's, m
2-3   diabolo position minus the right stick's, m
4-5   diabolo velocity minus the mean of the sticks' velocities, m/s
6     spin w (axle surface speed), m/s
7-8   left stick velocity, m/s
9-10  right stick velocity, m/s
11    1 while the string is taut, else 0
12    1 while the diabolo is on the string, else 0
====  ===========================================================

In space (a scenario with ``"sim": {"space": true}``, or ``space=True`` for the default one):
the action is ``Box(-1, 1, (6,))`` (each stick's acceleration (x, y, z)), and the observation is
``Box(-inf, inf, (20,), float32)``: the same quantities with three components each (0-2, 3-5,
6-8 the diabolo relative to the sticks and its velocity, 9 the spin, 10-12 and 13-15 the
sticks' velocities, 16 taut, 17 on the string), then 18 the axle's tilt and 19 its turn, in
radians (the tilt every player fights: its elevation above the horizontal; the turn: its
azimuth about the vertical).

Tasks and rewards (per step; all also pay ``-action_cost * |action|^2``):

- ``"hold"``: keep the diabolo centred between the hands and still: ``1 - min(1, |x_d -
  x_mid| / 0.4) - 0.1 min(1, |v_d|)``.
- ``"level"`` (in space): keep the axle level: ``1 - min(1, |tilt| / 10 degrees)``.
- ``"spin_up"``: raise the spin: ``10 * (|w| after - |w| before)`` (m/s of axle speed).
- ``"toss"``: throw the diabolo up to ``target_height`` (m above the hands' mean height) and
  catch it: on each catch (a ``land`` event) ``1 - min(1, |apex - target| / target)``, where
  the apex is the highest point since the diabolo left the string; otherwise 0.

``terminated`` is True when the diabolo is dropped (reaches the floor, 0.1 m by default) or the
run fails (acceleration hands pull the string straight, the sticks meet, ...; the reward is
then -1 and the observation the one before the step); ``truncated`` when the episode reaches
``episode_seconds``. ``info`` carries the step's events and, on a failure, its message.

``DiaboloVectorEnv(num_envs=N, task=...)`` is the same environment N times over, a
``gymnasium.vector.VectorEnv`` on a :class:`diabolo.Batch` (Rust threads, the interpreter
released; docs/batch.md): the same spaces batched, the same rewards, next-step autoreset
(``metadata["autoreset_mode"]``), ``reset(seed=s)`` seeding member i with ``s + i`` (or a list
of seeds), so that member i plays exactly what ``DiaboloEnv`` plays reset with that seed (and
what ``gymnasium.vector.SyncVectorEnv`` of N ``DiaboloEnv`` plays), bit for bit. ``info`` has
``failure`` (with its mask ``_failure``) when a member failed; the events of member i are
``env.batch.events(i)``. Both share one implementation of the actions, observations and
rewards (:class:`Play`).

``import diabolo.gym`` registers ``Diabolo-v0``: ``gymnasium.make("Diabolo-v0", task=...)`` and
``gymnasium.make_vec("Diabolo-v0", num_envs=N, vectorization_mode="vector_entry_point")``
(or the id ``"diabolo.gym:Diabolo-v0"``, which imports the module first).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np

try:
    import gymnasium as gym
    from gymnasium import spaces
except ImportError as error:  # pragma: no cover - only without the optional extra
    raise ImportError(
        "diabolo.gym needs gymnasium: pip install 'diabolo[gym]' (or pip install gymnasium)"
    ) from error

from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .batch import DROPPED, FAILED, FLYING, Batch, BatchStep

TASKS = ("hold", "spin_up", "toss", "level")
HANDS = ("accel", "target")


def default_scenario(episode_seconds: float) -> Dict[str, Any]:
    """One diabolo spinning at 0.3 m/s on a 1.46 m string between two hands 0.8 m apart at
    1.5 m, both hands driven by accelerations (held still at the start), a floor at 0.1 m."""
    return {
        "name": "gym",
        "params": {"string_length": 1.46},
        "initial": {
            "left": {"pos": [-0.4, 1.5], "vel": [0.0, 0.0]},
            "right": {"pos": [0.4, 1.5], "vel": [0.0, 0.0]},
            "diabolos": [{"x": 0.0, "spin": 0.3}],
        },
        "drive": {
            "left": {"type": "accel", "value": [0.0, 0.0]},
            "right": {"type": "accel", "value": [0.0, 0.0]},
        },
        "sim": {"duration": episode_seconds, "output_interval": episode_seconds, "floor": 0.1},
    }


def default_space_scenario(episode_seconds: float) -> Dict[str, Any]:
    """The default scenario in space: the same diabolo and hands with a third coordinate, the
    axle level and toward the audience, spinning at 100 rad/s the way the recordings do
    (w = -0.65 m/s); no floor (the model in space stops where the diabolo would leave the
    string)."""
    return {
        "name": "gym in space",
        "params": {"string_length": 1.46},
        "initial": {
            "left": {"pos": [-0.4, 1.5, 0.0], "vel": [0.0, 0.0, 0.0]},
            "right": {"pos": [0.4, 1.5, 0.0], "vel": [0.0, 0.0, 0.0]},
            "diabolos": [{"x": 0.0, "spin": -0.65}],
        },
        "drive": {
            "left": {"type": "accel", "value": [0.0, 0.0, 0.0]},
            "right": {"type": "accel", "value": [0.0, 0.0, 0.0]},
        },
        "sim": {"duration": episode_seconds, "output_interval": episode_seconds, "space": True},
    }


class Play:
    """The environments' one implementation: N members of a :class:`Batch` acted on, stepped and
    rewarded together (``DiaboloEnv`` is N = 1). Arguments as :class:`DiaboloEnv`'s; ``jobs``
    the batch's threads."""

    def __init__(
        self,
        num: int,
        task: str = "hold",
        scenario: Optional[Mapping[str, Any]] = None,
        dt: float = 0.01,
        max_accel: float = 30.0,
        episode_seconds: float = 10.0,
        target_height: float = 1.0,
        action_cost: float = 1e-3,
        start_noise: float = 0.05,
        space: bool = False,
        jobs: Optional[int] = None,
        hands: str = "accel",
        reach: float = 0.3,
        max_force: float = 50.0,
    ) -> None:
        if task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, got {task!r}")
        if hands not in HANDS:
            raise ValueError(f"hands must be one of {HANDS}, got {hands!r}")
        if not (reach > 0 and max_force > 0):
            raise ValueError("reach and max_force must be > 0")
        self.hands = hands
        self.reach = float(reach)
        self.max_force = float(max_force)
        if not (dt > 0 and max_accel > 0 and episode_seconds > 0 and target_height > 0):
            raise ValueError("dt, max_accel, episode_seconds and target_height must be > 0")
        self.task = task
        self.dt = float(dt)
        self.max_accel = float(max_accel)
        self.episode_seconds = float(episode_seconds)
        self.target_height = float(target_height)
        self.action_cost = float(action_cost)
        self.start_noise = float(start_noise)
        if scenario is not None:
            self.scenario = dict(scenario)
        elif space:
            self.scenario = default_space_scenario(episode_seconds)
        else:
            self.scenario = default_scenario(episode_seconds)
        overrides = {"sim.duration": self.episode_seconds + self.dt}
        self.batch = Batch(
            self.scenario, num, overrides=overrides, jobs=jobs, max_force=self.max_force
        )
        if self.batch._native.diabolos != 1:
            raise ValueError("DiaboloEnv plays one diabolo: the scenario has another number")
        self.dim = 3 if self.batch.space else 2
        if self.task == "level" and self.dim != 3:
            raise ValueError("the level task needs a scenario in space (space=True)")
        self.action_space = spaces.Box(-1.0, 1.0, shape=(2 * self.dim,), dtype=np.float32)
        size = self.batch.observation_size
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
        # Where each hand starts (2, D), m: a target hand's action is relative to it.
        self.rest = np.asarray(self.batch.simulation(0).state["stick_positions"], dtype=float)
        self.apex = np.full(num, -np.inf)
        self.hand_height = np.full(num, 1.5)
        self.last: BatchStep = self.batch.observe()

    def reset(self, chosen: np.ndarray, rngs: List[np.random.Generator]) -> BatchStep:
        """Starts the members of the mask ``chosen`` over, each pushed by its generator (in
        order): a random push of the hands' first accelerations (or targets)."""
        k = self.dim
        scale = self.max_accel if self.hands == "accel" else self.reach
        noise = np.array(
            [rng.uniform(-1.0, 1.0, size=2 * k) * self.start_noise * scale for rng in rngs]
        ).reshape(len(rngs), 2, k)
        if self.hands == "accel":
            out = self.batch.reset(chosen, accel=noise)
        else:
            out = self.batch.reset(chosen, target=self.rest + noise)
        self.hand_height[chosen] = out.hands_y[chosen]
        self.apex[chosen] = -np.inf
        self.last = out
        return out

    def step(
        self, actions: Any, chosen: Optional[np.ndarray] = None
    ) -> Tuple[BatchStep, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Acts (``actions``: one row per member of the mask ``chosen``, default all) and
        steps: (the arrays, rewards, terminated, truncated, failed now), one per member (zero
        and False off ``chosen``)."""
        n = len(self.batch)
        active = np.ones(n, dtype=bool) if chosen is None else chosen
        k = self.dim
        a = np.clip(np.asarray(actions, dtype=np.float64).reshape(-1, 2 * k), -1.0, 1.0)
        before = self.last
        if self.hands == "accel":
            out = self.batch.step(self.dt, (a * self.max_accel).reshape(-1, 2, k), members=chosen)
        else:
            target = self.rest + (a * self.reach).reshape(-1, 2, k)
            out = self.batch.step(self.dt, target=target, members=chosen)
        self.last = out
        cost = np.zeros(n)
        cost[active] = a[:, 0] * a[:, 0]
        for j in range(1, 2 * k):
            cost[active] += a[:, j] * a[:, j]
        reward = self._reward(before, out, active) - self.action_cost * cost
        failed = active & (out.status == FAILED)
        dropped = active & ((out.mode == DROPPED) | (out.drops > 0))
        terminated = failed | dropped
        truncated = active & ~terminated & (out.t >= self.episode_seconds - 1e-9)
        reward[failed] = -1.0
        reward[~active] = 0.0
        return out, reward, terminated, truncated, failed

    def _reward(self, before: BatchStep, out: BatchStep, active: np.ndarray) -> np.ndarray:
        if self.task == "hold":
            off = np.minimum(1.0, np.abs(out.x - out.hands_x) / 0.4)
            return 1.0 - off - 0.1 * np.minimum(1.0, out.speed)
        if self.task == "spin_up":
            return 10.0 * (np.abs(out.spin) - np.abs(before.spin))
        if self.task == "level":
            return 1.0 - np.minimum(1.0, np.abs(out.tilt) / 10.0)
        # toss: the apex since the diabolo left the string, paid for at its catch
        flying = active & (out.mode == FLYING)
        self.apex[flying] = np.maximum(self.apex[flying], out.y[flying] - self.hand_height[flying])
        caught = active & (out.lands > 0) & np.isfinite(self.apex)
        reward = np.zeros(len(self.batch))
        miss = np.abs(self.apex[caught] - self.target_height) / self.target_height
        reward[caught] = 1.0 - np.minimum(1.0, miss)
        self.apex[caught] = -np.inf
        return reward


class DiaboloEnv(gym.Env):
    """Two hands, one diabolo: see the module documentation for spaces, tasks and rewards."""

    metadata = {"render_modes": []}

    def __init__(
        self,
        task: str = "hold",
        scenario: Optional[Mapping[str, Any]] = None,
        dt: float = 0.01,
        max_accel: float = 30.0,
        episode_seconds: float = 10.0,
        target_height: float = 1.0,
        action_cost: float = 1e-3,
        start_noise: float = 0.05,
        space: bool = False,
        hands: str = "accel",
        reach: float = 0.3,
        max_force: float = 50.0,
    ) -> None:
        self._play = Play(
            1, task, scenario, dt, max_accel, episode_seconds, target_height, action_cost,
            start_noise, space, None, hands, reach, max_force,
        )
        for name in _SETTINGS:
            setattr(self, name, getattr(self._play, name))
        self.action_space = self._play.action_space
        self.observation_space = self._play.observation_space
        self._started = False

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        out = self._play.reset(np.ones(1, dtype=bool), [self.np_random])
        self._play.batch.events(0)  # the events so far are not this episode's
        self._started = True
        return out.observations[0], {}

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        out, reward, terminated, truncated, failed = self._play.step(action)
        info: Dict[str, Any] = {"events": self._play.batch.events(0)}
        if failed[0]:
            info["failure"] = self._play.batch.failure(0)
        return out.observations[0], float(reward[0]), bool(terminated[0]), bool(truncated[0]), info


_SETTINGS = (
    "task", "dt", "max_accel", "episode_seconds", "target_height", "action_cost", "start_noise",
    "hands", "reach", "max_force",
)


class DiaboloVectorEnv(VectorEnv):
    """``num_envs`` DiaboloEnvs stepped together on a :class:`diabolo.Batch`, with next-step
    autoreset: see the module documentation. The other arguments are :class:`DiaboloEnv`'s;
    ``jobs`` the threads (default one per core)."""

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        num_envs: int = 1,
        task: str = "hold",
        scenario: Optional[Mapping[str, Any]] = None,
        dt: float = 0.01,
        max_accel: float = 30.0,
        episode_seconds: float = 10.0,
        target_height: float = 1.0,
        action_cost: float = 1e-3,
        start_noise: float = 0.05,
        space: bool = False,
        jobs: Optional[int] = None,
        hands: str = "accel",
        reach: float = 0.3,
        max_force: float = 50.0,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
        self.num_envs = num_envs
        self._play = Play(
            num_envs, task, scenario, dt, max_accel, episode_seconds, target_height,
            action_cost, start_noise, space, jobs, hands, reach, max_force,
        )
        self.batch = self._play.batch
        self.single_action_space = self._play.action_space
        self.single_observation_space = self._play.observation_space
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self._rngs: List[Optional[np.random.Generator]] = [None] * num_envs
        self._autoreset = np.zeros(num_envs, dtype=bool)
        self._started = False

    def _generator(self, i: int) -> np.random.Generator:
        rng = self._rngs[i]
        if rng is None:
            rng, _ = seeding.np_random()
            self._rngs[i] = rng
        return rng

    def reset(
        self,
        *,
        seed: Union[int, List[Optional[int]], None] = None,
        options: Optional[Dict[str, Any]] = None,
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        """Resets every member (or those of ``options["reset_mask"]``); ``seed`` an int seeds
        member i with ``seed + i``, a list gives each member's seed (None: go on with its
        generator)."""
        n = self.num_envs
        if seed is None:
            seeds: List[Optional[int]] = [None] * n
        elif isinstance(seed, int) and not isinstance(seed, bool):
            super().reset(seed=seed)
            seeds = [seed + i for i in range(n)]
        else:
            seeds = list(seed)
            if len(seeds) != n:
                raise ValueError(f"seed: {len(seeds)} seeds for {n} environments; give {n}")
        chosen = np.ones(n, dtype=bool)
        if options is not None and "reset_mask" in options:
            chosen = np.asarray(options["reset_mask"], dtype=bool)
            if chosen.shape != (n,):
                raise ValueError(f"options['reset_mask'] must have shape ({n},), got {chosen.shape}")
        for i in np.flatnonzero(chosen):
            if seeds[i] is not None:
                self._rngs[i], _ = seeding.np_random(seeds[i])
        out = self._play.reset(chosen, [self._generator(int(i)) for i in np.flatnonzero(chosen)])
        for i in np.flatnonzero(chosen):
            self.batch.events(int(i))
        self._autoreset[chosen] = False
        self._started = True
        return out.observations, {}

    def step(
        self, actions: Any
    ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        ending = self._autoreset
        if ending.any():
            self._play.reset(ending, [self._generator(int(i)) for i in np.flatnonzero(ending)])
            active = ~ending
            out, reward, terminated, truncated, failed = self._play.step(actions[active], active)
        else:
            out, reward, terminated, truncated, failed = self._play.step(actions)
        info: Dict[str, Any] = {}
        if failed.any():
            info["failure"] = np.array(
                [self.batch.failure(i) if f else None for i, f in enumerate(failed)], dtype=object
            )
            info["_failure"] = failed
        self._autoreset = terminated | truncated
        return out.observations, reward, terminated, truncated, info


if "Diabolo-v0" not in gym.registry:
    gym.register(
        "Diabolo-v0",
        entry_point="diabolo.gym:DiaboloEnv",
        vector_entry_point="diabolo.gym:DiaboloVectorEnv",
    )
