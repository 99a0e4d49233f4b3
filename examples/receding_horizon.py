"""Receding-horizon control with ``diabolo.plan``: keep a diabolo at a target point when the
"real" diabolo is not the planner's model.

The real diabolo (a ``diabolo.Simulation``) hangs on a compliant string (EA = 200 N,
eta = 3 N s, the fitted string of scenarios/stretchy_catch.json) with 30 % more capstan friction
than the planner's model (inextensible, friction 0.17). It starts at a random place on the
string with a random kick along it (seeded, ``--trials`` of them) and spins at 1 m/s (the
friction makes it drift). The left stick is held still; the right hand is planned.

Closed loop, every ``--execute`` s (0.1): read the real state, project it onto the model's
string (the diabolo's x kept, its height the inextensible string's there, its velocity along
the string), plan the right hand ``--horizon`` s ahead (1 s, ``--keyframes`` 3, ``--budget``
300 runs) on the model so that the diabolo is at the aim at rest at the horizon's end, within
2 cm of it ``--early`` s ahead (0.5 s) and never off the string, drive the real right stick
along the first ``--execute`` s of the planned spline, and plan again.

The real stick is moving at a replan. By default the plan starts the stick at rest and the real
stick goes on from its own velocity along the C2 spline through the planned keyframes that
leaves the first at that velocity (``set_hand(path=..., path_velocity=...)``), a mismatch the
replanning absorbs. ``--plan-moving`` plans from the measured velocity instead (the task's
``initial.right`` with its velocity: the planned spline is then exactly the one the real stick
follows). ``--reset`` sets the stick at rest at every replan (a velocity jump). The aim is the
target minus the measured offset between the real diabolo and its projection (the stretched string's sag) plus integral action on the lasting error
(``--ki`` 1/s, clamped to 5 cm): offset-free predictive control, for the friction's drift that
the model gets wrong.

Open loop, for contrast: the same disturbances, one plan of the whole trial (``--duration``,
6 keyframes, ``--open-budget`` 3000 runs) from the initial state with the same sag correction,
executed without replanning.

Success: the real diabolo within ``--tolerance`` (3 cm) of the target at the trial's end
(``--duration``, 3 s), never off the string.

    python examples/receding_horizon.py                # 100 trials, closed and open loop
    python examples/receding_horizon.py --trials 5 -v  # a quick look
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

import diabolo

STRING = 1.46
LEFT = (-0.5, 1.2)
RIGHT = (0.5, 1.2)
TARGET = (0.10, 0.70)
SPIN = 1.0
FRICTION = 0.17
REAL = {"friction": FRICTION * 1.3, "string_stiffness": 200.0, "string_damping": 3.0}
BOX = [[0.15, 0.8], [0.95, 1.7]]


def on_string(x: float, vel: Tuple[float, float], right: Tuple[float, float]) -> Dict[str, Any]:
    """The model's (inextensible) state nearest a measured one: the diabolo at x on the taut
    string, its velocity along the string there. Returns the model's height too."""
    (ax, ay), (bx, by) = LEFT, right
    # The lower point at abscissa x with |p - a| + |p - b| = L: bisection on y.
    lo, hi = min(ay, by) - STRING, min(ay, by)
    for _ in range(80):
        y = 0.5 * (lo + hi)
        if math.hypot(x - ax, y - ay) + math.hypot(x - bx, y - by) > STRING:
            lo = y
        else:
            hi = y
    y = 0.5 * (lo + hi)
    ua = np.array([x - ax, y - ay]) / math.hypot(x - ax, y - ay)
    ub = np.array([x - bx, y - by]) / math.hypot(x - bx, y - by)
    normal = (ua + ub) / np.linalg.norm(ua + ub)
    v = np.asarray(vel, dtype=float)
    v = v - normal * float(v @ normal)
    return {"x": x, "y": y, "vel": [float(v[0]), float(v[1])]}


def scenario(
    x: float, vel: List[float], spin: float, right: Tuple[float, float], duration: float,
    right_vel: Optional[List[float]] = None,
) -> Dict[str, Any]:
    """The model's scenario from a diabolo at x (on the string) with the right stick at rest, or
    moving at `right_vel` (a planning task's moving start: the stick's start given in
    `initial`, the drive replaced by the plan)."""
    doc = {
        "params": {"string_length": STRING, "friction": FRICTION},
        "initial": {"diabolos": [{"x": x, "vel": vel, "spin": spin}]},
        "drive": {
            "left": {"type": "path", "keyframes": [[0.0, *LEFT]]},
            "right": {"type": "path", "keyframes": [[0.0, *right]]},
        },
        "sim": {"duration": duration, "output_interval": duration},
    }
    if right_vel is not None and any(v != 0.0 for v in right_vel):
        doc["initial"]["right"] = {"pos": list(right), "vel": list(right_vel)}
        doc["drive"]["right"] = {"type": "accel", "value": [0.0, 0.0]}
    return doc


def task(state: Dict[str, Any], horizon: float, keyframes: int, aim: Tuple[float, float],
         early: float = 0.0, moving: bool = False):
    """The planning task from a measured state: the model's start nearest it (the right stick
    at rest, or moving as measured with `moving`), the target aimed at `aim` at the horizon's
    end."""
    right = tuple(float(v) for v in state["stick_positions"][1])
    right_vel = [float(v) for v in state["stick_velocities"][1]] if moving else None
    pos = state["positions"][0]
    start = on_string(float(pos[0]), state["velocities"][0], right)
    doc = scenario(start["x"], start["vel"], float(state["spins"][0]), right, horizon, right_vel)
    box = [[min(BOX[0][0], right[0]), min(BOX[0][1], right[1])],
           [max(BOX[1][0], right[0]), max(BOX[1][1], right[1])]]
    doc["plan"] = {
        "hands": {"right": {"keyframes": keyframes, "box": box}},
        "limits": {"speed": 3.0, "accel": 40.0},
        "targets": [
            {"state": {"diabolo": 1, "time": horizon, "pos": list(aim), "pos_tolerance": 0.01,
                       "vel": [0.0, 0.0], "vel_tolerance": 0.05}},
            {"stay_on": {"diabolo": 1}},
        ] + ([{"state": {"diabolo": 1, "time": early, "pos": list(aim),
                         "pos_tolerance": 0.02}}] if 0.0 < early < horizon else []),
        "minimize": "nothing",
    }
    return doc, start


def real(x0: float, kick: float, duration: float) -> diabolo.Simulation:
    """The real diabolo: compliant string, more friction, started at x0 with a kick along the
    string (m/s, positive to the right)."""
    start = on_string(x0, (kick, 0.0), RIGHT)
    v = np.array(start["vel"])
    v = kick * v / max(np.linalg.norm(v), 1e-12)
    doc = scenario(x0, [float(v[0]), float(v[1])], SPIN, RIGHT, duration)
    doc["params"].update(REAL)
    return diabolo.Simulation(doc)


def offset(state: Dict[str, Any], start: Dict[str, Any]) -> np.ndarray:
    """The real diabolo's position minus the model's projection of it (the stretch's sag)."""
    return np.asarray(state["positions"][0], dtype=float) - np.array([start["x"], start["y"]])


def left_string(events: List[Dict[str, Any]]) -> bool:
    return any(e.get("kind") in ("leave", "drop") for e in events)


def closed_loop(sim: diabolo.Simulation, args: argparse.Namespace) -> Dict[str, Any]:
    plans = runs = met = 0
    largest_jump = fastest = 0.0
    off = False
    integral = np.zeros(2)
    while sim.time < args.duration - 1e-9:
        state = sim.state
        _, start = task(state, args.horizon, args.keyframes, TARGET)
        # Integral action (offset-free control): the aim moves against the lasting error,
        # clamped to 5 cm, besides the measured sag.
        error = np.asarray(TARGET) - np.asarray(state["positions"][0], dtype=float)
        integral = np.clip(integral + args.execute * error, -0.05 / max(args.ki, 1e-9),
                           0.05 / max(args.ki, 1e-9))
        aim = np.asarray(TARGET) - offset(state, start) + args.ki * integral
        doc, _ = task(state, args.horizon, args.keyframes, (float(aim[0]), float(aim[1])),
                      args.early, args.plan_moving)
        planned = diabolo.plan(doc, max_simulations=args.budget, jobs=args.jobs)
        plans += 1
        runs += planned.report["simulations"]
        met += planned.met
        velocity = [float(v) for v in state["stick_velocities"][1]]
        fastest = max(fastest, math.hypot(*velocity))
        if args.reset:
            largest_jump = fastest
            sim.set_hand("right", path=planned.keyframes("right"))
        else:
            sim.set_hand("right", path=planned.keyframes("right"), path_velocity=velocity)
        off |= left_string(sim.step(min(args.execute, args.duration - sim.time)))
        if off or sim.failure:
            break
    return {"plans": plans, "runs": runs, "met": met, "jump": largest_jump, "speed": fastest,
            "off": off}


def open_loop(sim: diabolo.Simulation, args: argparse.Namespace) -> Dict[str, Any]:
    state = sim.state
    _, start = task(state, args.duration, args.keyframes, TARGET)
    aim = np.asarray(TARGET) - offset(state, start)
    doc, _ = task(state, args.duration, 2 * args.keyframes, (float(aim[0]), float(aim[1])))
    planned = diabolo.plan(doc, max_simulations=args.open_budget, jobs=args.jobs)
    sim.set_hand("right", path=planned.keyframes("right"))
    off = left_string(sim.step(args.duration))
    return {"plans": 1, "runs": planned.report["simulations"], "met": int(planned.met),
            "jump": 0.0, "speed": 0.0, "off": off}


def trial(x0: float, kick: float, closed: bool, args: argparse.Namespace) -> Dict[str, Any]:
    sim = real(x0, kick, args.duration)
    out = (closed_loop if closed else open_loop)(sim, args)
    state = sim.state if not sim.failure else None
    if state is None or state["modes"][0] != "string":
        out["off"] = True
    error = math.inf if state is None else float(
        np.linalg.norm(np.asarray(state["positions"][0]) - np.asarray(TARGET)))
    out["error"] = error
    out["success"] = (not out["off"]) and error <= args.tolerance
    return out


def summary(name: str, results: List[Dict[str, Any]], wall: float) -> str:
    errors = [r["error"] for r in results]
    ok = sum(r["success"] for r in results)
    plans = sum(r["plans"] for r in results)
    return (
        f"{name}: {ok}/{len(results)} within tolerance, final error median "
        f"{100 * statistics.median(errors):.2f} cm, worst {100 * max(errors):.2f} cm, "
        f"off the string {sum(r['off'] for r in results)}; {plans} plans "
        f"({sum(r['met'] for r in results)} met), {sum(r['runs'] for r in results)} runs, "
        f"stick speed at a replan up to {max(r['speed'] for r in results):.2f} m/s "
        f"(reset to rest: up to {max(r['jump'] for r in results):.2f} m/s), "
        f"wall {wall:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--duration", type=float, default=3.0)
    parser.add_argument("--horizon", type=float, default=1.0)
    parser.add_argument("--execute", type=float, default=0.1)
    parser.add_argument("--keyframes", type=int, default=3)
    parser.add_argument("--early", type=float, default=0.5,
                        help="a second target, the position only (2 cm), this far ahead (s)")
    parser.add_argument("--budget", type=int, default=300, help="runs per replan")
    parser.add_argument("--open-budget", type=int, default=3000, help="runs of the one plan")
    parser.add_argument("--tolerance", type=float, default=0.03)
    parser.add_argument("--ki", type=float, default=1.0,
                        help="integral gain of the aim, 1/s (0: none)")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--reset", action="store_true",
                        help="start each executed piece at rest (the planner's start)")
    parser.add_argument("--open-only", action="store_true")
    parser.add_argument("--plan-moving", action="store_true",
                        help="plan each replan from the stick's measured velocity (a moving "
                        "start) instead of from rest")
    parser.add_argument("--closed-only", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    # The disturbances: where on the string (m) and the kick along it (m/s).
    disturbances = [(float(rng.uniform(-0.2, 0.2)), float(rng.uniform(-0.5, 0.5)))
                    for _ in range(args.trials)]
    print(f"target {TARGET}, real {REAL} against the model's inextensible string and friction "
          f"{FRICTION}; {args.trials} disturbances (x0 in [-0.2, 0.2] m, kick in [-0.5, 0.5] "
          f"m/s along the string), seed {args.seed}")
    modes = [m for m, skip in (("closed", args.open_only), ("open", args.closed_only)) if not skip]
    for mode in modes:
        results = []
        begin = time.perf_counter()
        for k, (x0, kick) in enumerate(disturbances):
            r = trial(x0, kick, mode == "closed", args)
            results.append(r)
            if args.verbose:
                print(f"  {mode} {k}: x0 {x0:+.3f} kick {kick:+.3f}: error "
                      f"{100 * r['error']:.2f} cm, off {r['off']}, plans {r['plans']} "
                      f"({r['met']} met), runs {r['runs']}", flush=True)
        loop = "closed loop (replanning)" if mode == "closed" else "open loop (one plan)"
        print(summary(loop, results, time.perf_counter() - begin), flush=True)


if __name__ == "__main__":
    main()
