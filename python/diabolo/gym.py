"""A Gymnasium environment: two hands play one diabolo (needs ``gymnasium``).

``DiaboloEnv(task=...)`` steps a :class:`diabolo.Simulation` of one diabolo on a 1.46 m string
(or a scenario of your own with one diabolo) at ``dt`` (default 0.01 s). Each action sets the
two sticks' accelerations; the observation is the diabolo's and the sticks' state relative to
the hands.

Action (``Box(-1, 1, (4,))``): the left and the right stick's acceleration (x, y) as fractions
of ``max_accel`` (default 30 m/s^2), held for one step.

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
run fails (the string cannot hold the hands' motion, the sticks meet); ``truncated`` when the
episode reaches ``episode_seconds``. ``info`` carries the step's events and, on a failure, its
message.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

try:
    import gymnasium as gym
    from gymnasium import spaces
except ImportError as error:  # pragma: no cover - only without the optional extra
    raise ImportError(
        "diabolo.gym needs gymnasium: pip install 'diabolo[gym]' (or pip install gymnasium)"
    ) from error

from . import RunFailed, Simulation

TASKS = ("hold", "spin_up", "toss", "level")


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
    ) -> None:
        if task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, got {task!r}")
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
            self._scenario = dict(scenario)
        elif space:
            self._scenario = default_space_scenario(episode_seconds)
        else:
            self._scenario = default_scenario(episode_seconds)
        overrides = {"sim.duration": self.episode_seconds + self.dt}
        self._base = Simulation(self._scenario, overrides)
        if self._base._native.diabolos != 1:
            raise ValueError("DiaboloEnv plays one diabolo: the scenario has another number")
        self._dim = 3 if self._base.space else 2
        if self.task == "level" and self._dim != 3:
            raise ValueError("the level task needs a scenario in space (space=True)")
        self.action_space = spaces.Box(-1.0, 1.0, shape=(2 * self._dim,), dtype=np.float32)
        size = 13 if self._dim == 2 else 20
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
        self._sim: Optional[Simulation] = None
        self._apex = -math.inf
        self._hand_height = 1.5

    def _observe(self, state: Dict[str, Any]) -> np.ndarray:
        sticks = state["stick_positions"]
        stick_vel = state["stick_velocities"]
        d = state["positions"][0]
        v = state["velocities"][0]
        k = self._dim
        obs = np.empty(self.observation_space.shape[0], dtype=np.float32)
        obs[0:k] = d - sticks[0]
        obs[k : 2 * k] = d - sticks[1]
        obs[2 * k : 3 * k] = v - stick_vel.mean(axis=0)
        obs[3 * k] = state["spins"][0]
        obs[3 * k + 1 : 4 * k + 1] = stick_vel[0]
        obs[4 * k + 1 : 5 * k + 1] = stick_vel[1]
        obs[5 * k + 1] = 1.0 if state["phase"] == "taut" else 0.0
        obs[5 * k + 2] = 1.0 if state["modes"][0] == "string" else 0.0
        if k == 3:
            obs[18] = math.radians(float(state["tilts"][0]))
            obs[19] = math.radians(float(state["turns"][0]))
        return obs

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        sim = self._base.copy()
        # A random push of the diabolo's spin and the hands' first accelerations.
        k = self._dim
        noise = self.np_random.uniform(-1.0, 1.0, size=2 * k) * self.start_noise * self.max_accel
        sim.set_hand("left", accel=tuple(float(x) for x in noise[:k]))
        sim.set_hand("right", accel=tuple(float(x) for x in noise[k:]))
        self._sim = sim
        state = sim.state
        self._hand_height = float(state["stick_positions"][:, 1].mean())
        self._apex = -math.inf
        return self._observe(state), {}

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        if self._sim is None:
            raise RuntimeError("call reset() before step()")
        sim = self._sim
        k = self._dim
        a = np.clip(np.asarray(action, dtype=np.float64).reshape(2 * k), -1.0, 1.0)
        before = sim.state
        info: Dict[str, Any] = {"events": []}
        try:
            sim.set_hand("left", accel=tuple(float(x) * self.max_accel for x in a[:k]))
            sim.set_hand("right", accel=tuple(float(x) * self.max_accel for x in a[k:]))
            events: List[Dict[str, Any]] = sim.step(self.dt)
            info["events"] = events
            state = sim.state
        except RunFailed as failure:
            info["failure"] = str(failure)
            obs = self._observe(before)
            return obs, -1.0, True, False, info
        reward = self._reward(before, state, events) - self.action_cost * float(a @ a)
        dropped = state["modes"][0] == "dropped" or any(e.get("kind") == "drop" for e in events)
        terminated = bool(dropped)
        truncated = bool(not terminated and sim.time >= self.episode_seconds - 1e-9)
        return self._observe(state), float(reward), terminated, truncated, info

    def _reward(self, before: Dict[str, Any], state: Dict[str, Any], events: List[Dict[str, Any]]) -> float:
        d = state["positions"][0]
        if self.task == "hold":
            mid = state["stick_positions"][:, 0].mean()
            speed = float(np.linalg.norm(state["velocities"][0]))
            return 1.0 - min(1.0, abs(d[0] - mid) / 0.4) - 0.1 * min(1.0, speed)
        if self.task == "spin_up":
            return 10.0 * (abs(float(state["spins"][0])) - abs(float(before["spins"][0])))
        if self.task == "level":
            return 1.0 - min(1.0, abs(float(state["tilts"][0])) / 10.0)
        # toss
        if state["modes"][0] == "flying":
            self._apex = max(self._apex, float(d[1]) - self._hand_height)
        reward = 0.0
        for event in events:
            if event.get("kind") == "land" and math.isfinite(self._apex):
                miss = abs(self._apex - self.target_height) / self.target_height
                reward += 1.0 - min(1.0, miss)
                self._apex = -math.inf
        return reward
