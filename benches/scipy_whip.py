"""The whip, in SciPy: the shipped scenario `scenarios/whip.json` run for 3 s, rows every 1 ms.

This is the job issue 17's "300x faster than the scipy script" is measured against, written again
(the original script was lost) as a user would write it: plain Python and NumPy for the physics,
`scipy.integrate.solve_ivp(method="DOP853")` and its event location for the hybrid run,
`scipy.interpolate.CubicSpline` for the hands' keyframe paths. It is written from the project's
documents (`docs/model.md` for the physics, `docs/interface.md` for the scenario format, the
defaults, the path interpolation, the CSV columns and the event kinds) and reads nothing from the
Rust code. One diabolo, both hands on keyframe paths (the whip's case; anything else is refused).

Usage (from the repository root):

    pip install scipy numpy
    python3 benches/scipy_whip.py --rtol 1e-9 --out /tmp/scipy_whip.csv
    python3 benches/scipy_whip.py --rtol 1e-9 --out /tmp/scipy_whip.csv \\
        --compare /tmp/rust_whip.csv --rust-events /tmp/rust_whip_events.csv
    python3 benches/scipy_whip.py --rtol 1e-9 --out /tmp/scipy_whip.csv --repeat 15
    python3 benches/scipy_whip.py --rtol 1e-9 --out /tmp/scipy_whip.csv --repeat 20 \
        --versus target/release/diabolo     # the same job as whole diabolo processes; ratios

with the Rust reference made by

    target/release/diabolo run scenarios/whip.json --set sim.duration=3 --set sim.rtol=1e-9 \\
        --set sim.output_interval=0.001 -o /tmp/rust_whip.csv --events /tmp/rust_whip_events.csv

(`--events` writes JSON lines whatever the file's name; `--rust-events` reads JSON lines or CSV.)

What it measures (`--repeat K`): the whole job K times (read the scenario JSON, build the paths,
integrate through every event, evaluate the row quantities, write the 3,001-row CSV) and,
separately, the integration alone (the same hybrid run with its events, no rows evaluated or
written); it prints the minimum and the median wall time of one job of each kind. When it was
written (2-core AMD EPYC, Python 3.11, NumPy 2.4, SciPy 1.17; 20 repeats): whole job min 196 ms,
median 199 ms; integration alone min 35 ms, median 35 ms (21 solve_ivp calls, 56 DOP853 steps,
855 right-hand side evaluations). Starting Python and importing NumPy and SciPy add about 0.6 s
to a run from the shell.

What it was checked against (`--compare RUST_CSV`, which prints the current figures): the Rust
trajectory and event log of the command above. When it was written (rtol 1e-9, atol 1e-10) the
largest differences over the 3,001 rows were 1.5e-9 m in the diabolo's position, 5.8e-9 m/s in
its velocity and 3.9e-11 m/s in its spin; the 11 events (2 slip_reversal, 5 loosen, 4 tense) came
in the same order, their times within 2.8e-10 s, the tense impulses J_0 within 4e-10 N s; every
row in the same phase. Both runs are then 1.6e-9 m from a run at rtol 1e-12, atol 1e-14, where
the script and the Rust run (same tolerances) agree to 4.8e-12 m, 1.4e-11 m/s and 7e-13 s in the
event times: what is left at rtol 1e-9 is each integrator's own error, not the model. The ledger
closes (energy - energy(0) = hand_work - friction_loss - drag_loss - impulse_loss) to 4e-9 J.

Tolerances: `--rtol` as the Rust `sim.rtol`; `--atol` (default 1e-10, in m, m/s and J alike) is
SciPy's per-component absolute tolerance. SciPy measures every state component by itself, while
the Rust run measures a position by its distance from the origin and a velocity by the speed
(docs/interface.md, "Tolerances"), so a component passing through zero (vx, vy at rest) is held
to atol alone there. 1e-10 is a tenth of rtol times the metre-sized positions and m/s-sized
velocities: with it the script is as accurate as the Rust run at rtol 1e-9 (1.6e-9 m from the
tight solution). atol 1e-12, 1e-11 and 1e-9 cost within 7 % of it (56 to 60 steps) and give
2.3e-9, 2.3e-9 and 3.4e-9 m.

Choices, and what the documents left open (each point resolved as stated; "src" marks the one
point read in src/ because the documents are silent on it):

1. State. docs/model.md integrates the taut phase in the reduced state X (segment lengths, phi_0,
   theta, frame velocities) and the loose phase in Cartesian coordinates. With both hands on
   paths the sticks are imposed, not integrated (docs/interface.md, "Tolerances"), and the Rust
   run puts the state back on the paths after every step, which solve_ivp cannot do. This
   script integrates the diabolo's Cartesian state (x, y, vx, vy, w, and the ledger's running
   integrals) in both phases; the taut phase's tension and accelerations are model.md's (S, G,
   F^_C, the stick matrix B with the path's accelerations, P, T_0 = M G P, a_1, w_1'), so
   d^2/dt^2 sum l = 0 holds and sum l = L drifts only by the integration error (the `slack`
   column: at most 2.5e-9 m on taut rows here). On 2,000 random states these formulas agree with
   model.md's "Independent cross-check" (Cartesian Newton, T_0 from d^2/dt^2 sum l = 0) to 7e-15.
2. Path drive (docs/interface.md): "a C2 cubic spline ... at rest at the first and last
   keyframe" is read as the clamped spline (zero end velocities), CubicSpline(bc_type="clamped");
   one keyframe is a fixed point; "held at the first point before" is read as t < t_first (at
   t_first the spline, with its acceleration). The Rust path columns agree to 5e-15.
3. (src) Each solve_ivp call ends at the paths' keyframes, where the spline's third derivative
   jumps. The documents were silent (interface.md says it now); src/simulation/drive/mod.rs
   (`Drive::breakpoints`: "the integrator ends its steps there instead of stepping over a jump in
   a derivative") settled it. Without it DOP853 accepted a step over the keyframe at t = 1.8 s in
   the loose phase whose hand-work quadrature was 1.4e-5 J off (positions were unaffected).
4. Initial placement by `x`: "the point of the taut string below both tips at that abscissa",
   solved by brentq on the height (sum l = L). Velocity zero, so L' = 0: a taut start without
   impulse.
5. Friction mode. The slip speed of the taut flow is w'_1 = w_1 - l_0' (sigma = +1); the capstan
   direction c' = c sign(w'_1) is held fixed between events and switched at a located
   `slip_reversal` after the Filippov check with c' = +c and -c. Both pointing back to zero is a
   grip, which this script does not model: it stops there (not reached in the whip; reached with
   e.g. friction 0.4, spin_inertia 2).
6. Tensing impulse, path-driven sticks infinitely heavy (1/M = 0, so M G -> m/S in model.md's
   closed form): followed in pieces of accumulated J_0 (Darboux-Keller), the ratio J_1/J_0 in a
   piece d = exp(c' theta'), c' from the sign of the symmetric slip speed w_1 - (l_0' - l_1')/2.
   model.md said "a piece ends when a slip speed reaches zero" without saying which (it now says
   the symmetric one); this script takes the symmetric one throughout, and at zero applies the Filippov rule along the impulse,
   gripping with the ratio that holds the slip at zero (d = 1 for one diabolo between immovable
   hands) within the capstan bounds. In the whip no piece ends early (one piece, the closed
   form); with spin_inertia 5 two of the four impacts take two pieces, and the impulses agree
   with the Rust run's to 7e-10 N s, energy_lost to 8e-9 J, the positions to 2e-9 m.
7. Ledger across a tense: energy_lost = kinetic energy lost + the hands' work during the impulse
   (model.md, "Energy lost"), so that work (the hand's impulse . the stick's velocity) must go
   into hand_work for the ledger to close; the Rust CSV's hand_work jumps at each tense by it.
8. Loose rows: T0 = T1 = 0; G and FC are "the taut formulas evaluated on the loose state"
   (interface.md), the capstan ratio in them taken from the sign of the taut slip speed
   w_1 - l_0' at that row (a guess then, interface.md says so now; the Rust G column agrees to
   5e-10). The hand force of a path
   stick on a slack string is M (a_path - g_vec) (model.md's M a = M g + F).
9. Events logged: slip_reversal, loosen, tense (impulse J_0, energy_lost, L' before and after).
   theta reaching pi (leave) or 2 pi (knot change) stops the run (not modelled here; not reached
   in the whip), as does T_0 < 0 right after a tense (model.md's "neither phase consistent").
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp
from scipy.interpolate import CubicSpline
from scipy.optimize import brentq

ROOT = Path(__file__).resolve().parents[1]
WHIP = ROOT / "scenarios" / "whip.json"

# Defaults of docs/interface.md, `params`.
DEFAULT_PARAMS = {
    "diabolo_mass": 0.2,
    "stick_mass": 0.04,
    "friction": 0.17,
    "spin_inertia": 50.0,
    "spin_drag": 0.0,
    "gravity": 9.81,
    "restitution": 0.0,
    "friction_law": "step",
}

HEADER = (
    "t,phase,left_x,left_y,left_vx,left_vy,right_x,right_y,right_vx,right_vy,"
    "d1_x,d1_y,d1_vx,d1_vy,d1_w,d1_theta,d1_knot,T0,T1,G,FC,"
    "left_fx,left_fy,right_fx,right_fy,energy,slack,"
    "hand_work,friction_loss,drag_loss,impulse_loss,d1_mode,d1_slot"
).split(",")


# ---------------------------------------------------------------------------------------------
# Scenario and hands


class Params:
    """The physical parameters: L, m, M, c, J, D, g (docs/interface.md, `params`)."""

    def __init__(self, params: dict):
        p = dict(DEFAULT_PARAMS)
        p.update(params)
        if p["friction_law"] != "step":
            raise SystemExit("only the step friction law is written here")
        if p["restitution"] != 0.0 or "string_stiffness" in p:
            raise SystemExit("only the plastic impact on an inextensible string is written here")
        self.L = p["string_length"]
        self.m = p["diabolo_mass"]
        self.M = p["stick_mass"]
        self.c = p["friction"]
        self.J = p["spin_inertia"]
        self.D = p["spin_drag"]
        self.g = p["gravity"]


class KeyframePath:
    """A `path` drive by keyframes [[t, x, y], ...]: a C2 cubic spline at rest at the first and last
    keyframe (clamped), held at the first point before and at the last point after."""

    def __init__(self, drive: dict):
        if drive.get("type") != "path" or "keyframes" not in drive:
            raise SystemExit("only keyframe paths are written here")
        if drive.get("interpolation", "cubic") != "cubic" or "tracking" in drive:
            raise SystemExit("only the cubic keyframe path is written here")
        k = np.array(drive["keyframes"], dtype=float)
        self.t_first, self.t_last = k[0, 0], k[-1, 0]
        self.first, self.last = k[0, 1:], k[-1, 1:]
        self.knots = list(k[:, 0])  # the spline's third derivative jumps there
        self.spline = CubicSpline(k[:, 0], k[:, 1:], bc_type="clamped") if len(k) > 1 else None

    def at(self, t: float):
        """Position, velocity and acceleration of the stick tip at time t."""
        if self.spline is None or t < self.t_first:
            return self.first, np.zeros(2), np.zeros(2)
        if t > self.t_last:
            return self.last, np.zeros(2), np.zeros(2)
        return self.spline(t), self.spline(t, 1), self.spline(t, 2)


class Scenario:
    def __init__(self, path: Path):
        spec = json.loads(Path(path).read_text())
        self.name = spec.get("name")
        self.params = Params(spec["params"])
        drive = spec.get("drive", {})
        if "left" not in drive or "right" not in drive:
            raise SystemExit("both hands must follow paths here")
        self.left = KeyframePath(drive["left"])
        self.right = KeyframePath(drive["right"])
        diabolos = spec["initial"]["diabolos"]
        if len(diabolos) != 1:
            raise SystemExit("one diabolo only here")
        self.diabolo = diabolos[0]
        if self.diabolo.get("knot", 0) != 0 or self.diabolo.get("mode", "string") != "string":
            raise SystemExit("a diabolo on the string with knot degree 0 only here")


# ---------------------------------------------------------------------------------------------
# Geometry and kinematics (docs/model.md, "Objects and geometry", "Kinematics")


def frame(phi):
    """alpha = (cos phi, sin phi), beta = (-sin phi, cos phi)."""
    c, s = math.cos(phi), math.sin(phi)
    return np.array([c, s]), np.array([-s, c])


def segments(x0, x1, x2):
    """Segment lengths l_0, l_1 and unit vectors e_0, e_1 (segment i joins object i and i+1)."""
    l0 = math.hypot(*(x1 - x0))
    l1 = math.hypot(*(x2 - x1))
    return l0, l1, (x1 - x0) / l0, (x2 - x1) / l1


def string_angles(e0, e1, knot=0):
    """phi_0, theta_1, psi_1, phi_1, phi_2.

    phi_0 from beta_0 = -e_0; theta_1 = pi + (turning angle from e_0 to e_1) + 2 pi k;
    psi_1 = (theta_1 - pi)/2, psi_0 = psi_2 = -pi/2, phi_i = phi_{i-1} + psi_{i-1} + psi_i."""
    phi0 = math.atan2(e0[0], -e0[1])
    turn = math.atan2(e0[0] * e1[1] - e0[1] * e1[0], e0 @ e1)
    theta = math.pi + turn + 2 * math.pi * knot
    psi = (theta - math.pi) / 2
    phi1 = phi0 - math.pi / 2 + psi
    phi2 = phi1 + psi - math.pi / 2
    return phi0, theta, psi, phi1, phi2


def frame_components(v, phi):
    """(u^a, u^b) of a velocity in the frame at angle phi."""
    alpha, beta = frame(phi)
    return v @ alpha, v @ beta


def angular_rates(u0, u1, u2, psi, l0, l1):
    """phi_0', phi_1', phi_2', theta_1' from the segment rates omega_0, omega_1."""
    omega0 = (u1[0] * math.sin(psi) + u1[1] * math.cos(psi) - u0[0]) / l0
    omega1 = (u1[0] * math.sin(psi) - u1[1] * math.cos(psi) - u2[0]) / l1
    return omega0, (omega0 + omega1) / 2, omega1, omega1 - omega0


def length_rates(v0, v1, v2, e0, e1):
    """l_0' and l_1' (the same as model.md's frame formula, written in x-y)."""
    return e0 @ (v1 - v0), e1 @ (v2 - v1)


# ---------------------------------------------------------------------------------------------
# Friction and spin (docs/model.md, "Friction and spin")


def slip_speed(w, l0_rate):
    """w'_1 = sigma w_1 - l_0' with sigma = +1 (the string under the axle)."""
    return w - l0_rate


def symmetric_slip_speed(w, l0_rate, l1_rate):
    """The slip speed of the tensing impulse: w_1 - (l_0' - l_1')/2."""
    return w - (l0_rate - l1_rate) / 2


def contact_angle(theta):
    """theta'_1 = theta_1 - pi for theta > pi."""
    return theta - math.pi


def capstan_ratio(c_eff, theta):
    """d_1 = T_1 / T_0 = exp(c' theta')."""
    return math.exp(c_eff * contact_angle(theta))


def spin_rate(T0, d, w, p: Params):
    """w_1' = -T_0 (d_1 - d_0)/(m J) - D w_1."""
    return -T0 * (d - 1.0) / (p.m * p.J) - p.D * w


# ---------------------------------------------------------------------------------------------
# Tension and accelerations (docs/model.md, "Tension and accelerations", "The stick matrix B")


def shape_sum(d, psi):
    """S = (d_1 + d_0) sin^2 psi_1."""
    return (d + 1.0) * math.sin(psi) ** 2


def gear_ratio(d, S, p: Params):
    """G = 2 / ((1 + d_N) + 2 (M/m) S)."""
    return 2.0 / ((1.0 + d) + 2.0 * (p.M / p.m) * S)


def centrifugal_term(u0, u1, u2, psi, rates):
    """The centrifugal term F^_C = 1/2 (-(u_0^a phi_0' + u_2^a phi_2')
    + 2 (u_1^a phi_1' sin psi_1 - u_1^b (theta_1'/2) cos psi_1))."""
    phi0_rate, phi1_rate, phi2_rate, theta_rate = rates
    return 0.5 * (
        -(u0[0] * phi0_rate + u2[0] * phi2_rate)
        + 2.0 * (u1[0] * phi1_rate * math.sin(psi) - u1[1] * (theta_rate / 2) * math.cos(psi))
    )


def hand_forces_for_path(a0, a2, phi0, phi2, d, G, F_C, p: Params):
    """The normalised hand forces F^ (in the sticks' frames) that give the path accelerations:
    F^ = B^-1 (a - C) with the beta block's inverse [[2 - dG, G], [dG, 2 - G]] / (2 - (1 + d)G)."""
    a0a, a0b = frame_components(a0, phi0)
    a2a, a2b = frame_components(a2, phi2)
    r0 = a0b - (-p.g * math.cos(phi0) - G * F_C)
    r2 = a2b - (-p.g * math.cos(phi2) - d * G * F_C)
    det = 2.0 - (1.0 + d) * G
    F0b = ((2.0 - d * G) * r0 + G * r2) / det
    F2b = (d * G * r0 + (2.0 - G) * r2) / det
    F0a = a0a + p.g * math.sin(phi0)
    F2a = a2a + p.g * math.sin(phi2)
    return (F0a, F0b), (F2a, F2b)


def tension(F0, F2, G, F_C, p: Params):
    """P = (F^_0^b + F^_{N+1}^b)/2 + F^_C, T_0 = M G P."""
    P = (F0[1] + F2[1]) / 2 + F_C
    return p.M * G * P, P


def diabolo_acceleration(G, P, d, psi, phi1, p: Params):
    """a_1 = (M/m) G P ((d_1 - d_0) cos psi, (d_1 + d_0) sin psi) - g (sin phi_1, cos phi_1) in the
    diabolo's frame, returned in x-y."""
    aa = (p.M / p.m) * G * P * (d - 1.0) * math.cos(psi) - p.g * math.sin(phi1)
    ab = (p.M / p.m) * G * P * (d + 1.0) * math.sin(psi) - p.g * math.cos(phi1)
    alpha, beta = frame(phi1)
    return aa * alpha + ab * beta


def hand_force_xy(F_hat, phi, p: Params):
    """The hand force in N, x-y, from its normalised frame components."""
    alpha, beta = frame(phi)
    return p.M * (F_hat[0] * alpha + F_hat[1] * beta)


def taut_quantities(t, y, mode, sc: Scenario):
    """Everything the taut phase needs at (t, y), c' = mode * c (mode None: the sign of the
    slip speed, as the loose rows take it)."""
    p = sc.params
    x0, v0, a0 = sc.left.at(t)
    x2, v2, a2 = sc.right.at(t)
    x1, v1, w = y[0:2], y[2:4], y[4]
    l0, l1, e0, e1 = segments(x0, x1, x2)
    phi0, theta, psi, phi1, phi2 = string_angles(e0, e1)
    u0 = frame_components(v0, phi0)
    u1 = frame_components(v1, phi1)
    u2 = frame_components(v2, phi2)
    rates = angular_rates(u0, u1, u2, psi, l0, l1)
    F_C = centrifugal_term(u0, u1, u2, psi, rates)
    l0_rate, l1_rate = length_rates(v0, v1, v2, e0, e1)
    slip = slip_speed(w, l0_rate)
    if mode is None:
        mode = 1 if slip > 0 else -1
    d = capstan_ratio(mode * p.c, theta)
    S = shape_sum(d, psi)
    G = gear_ratio(d, S, p)
    F0, F2 = hand_forces_for_path(a0, a2, phi0, phi2, d, G, F_C, p)
    T0, P = tension(F0, F2, G, F_C, p)
    return {
        "x0": x0, "v0": v0, "a0": a0, "x2": x2, "v2": v2, "a2": a2,
        "l0": l0, "l1": l1, "e0": e0, "e1": e1,
        "theta": theta, "psi": psi, "phi0": phi0, "phi1": phi1, "phi2": phi2,
        "slip": slip, "d": d, "S": S, "G": G, "F_C": F_C, "F0": F0, "F2": F2, "P": P, "T0": T0,
    }


# ---------------------------------------------------------------------------------------------
# The two phases. State y = (x_1, y_1, vx_1, vy_1, w_1, hand_work, friction_loss, drag_loss).


def taut_rhs(t, y, mode, sc: Scenario):
    p = sc.params
    q = taut_quantities(t, y, mode, sc)
    a1 = diabolo_acceleration(q["G"], q["P"], q["d"], q["psi"], q["phi1"], p)
    w_rate = spin_rate(q["T0"], q["d"], y[4], p)
    hand_power = (hand_force_xy(q["F0"], q["phi0"], p) @ q["v0"]
                  + hand_force_xy(q["F2"], q["phi2"], p) @ q["v2"])
    friction_power = (q["T0"] * q["d"] - q["T0"]) * q["slip"]  # sum (T_i - T_{i-1}) w'_i
    drag_power = p.m * p.J * p.D * y[4] ** 2
    return [y[2], y[3], a1[0], a1[1], w_rate, hand_power, friction_power, drag_power]


def loose_hand_force(a, p: Params):
    """A path stick on a slack string: M a = M g_vec + F."""
    return p.M * (a - np.array([0.0, -p.g]))


def loose_rhs(t, y, sc: Scenario):
    p = sc.params
    _, v0, a0 = sc.left.at(t)
    _, v2, a2 = sc.right.at(t)
    hand_power = loose_hand_force(a0, p) @ v0 + loose_hand_force(a2, p) @ v2
    return [y[2], y[3], 0.0, -p.g, -p.D * y[4], hand_power, 0.0, p.m * p.J * p.D * y[4] ** 2]


# Events (docs/model.md, "Events")


def loosen_event(t, y, mode, sc):
    """T_0 crosses zero downward."""
    return taut_quantities(t, y, mode, sc)["T0"]


loosen_event.terminal = True
loosen_event.direction = -1


def slip_event(t, y, mode, sc):
    """The slip speed w'_1 of the slipping axle changes sign."""
    x0, v0, _ = sc.left.at(t)
    x2, v2, _ = sc.right.at(t)
    _, _, e0, e1 = segments(x0, y[0:2], x2)
    return slip_speed(y[4], length_rates(v0, y[2:4], v2, e0, e1)[0])


slip_event.terminal = True


def straight_or_folded_event(t, y, mode, sc):
    """theta_1 reaches pi (leave) or 2 pi (knot change): sin of the turning angle vanishes."""
    x0, _, _ = sc.left.at(t)
    x2, _, _ = sc.right.at(t)
    _, _, e0, e1 = segments(x0, y[0:2], x2)
    return e0[0] * e1[1] - e0[1] * e1[0]


straight_or_folded_event.terminal = True


def tense_event(t, y, sc):
    """sum l reaches L with L' > 0."""
    x0, _, _ = sc.left.at(t)
    x2, _, _ = sc.right.at(t)
    l0, l1, _, _ = segments(x0, y[0:2], x2)
    return l0 + l1 - sc.params.L


tense_event.terminal = True
tense_event.direction = 1


# ---------------------------------------------------------------------------------------------
# Slip direction at zero slip: Filippov (docs/model.md, "Grip (stick)")


def slip_acceleration(t, y, mode, sc: Scenario):
    """d(w'_1)/dt = w_1' - l_0'' with c' = mode * c,
    l_0'' = e_0 . (a_1 - a_0) + (|v_10|^2 - (e_0 . v_10)^2) / l_0."""
    p = sc.params
    q = taut_quantities(t, y, mode, sc)
    a0 = q["a0"]
    a1 = diabolo_acceleration(q["G"], q["P"], q["d"], q["psi"], q["phi1"], p)
    v10 = y[2:4] - q["v0"]
    l0_acc = q["e0"] @ (a1 - a0) + (v10 @ v10 - (q["e0"] @ v10) ** 2) / q["l0"]
    return spin_rate(q["T0"], q["d"], y[4], p) - l0_acc


def slip_direction(t, y, sc: Scenario, fallback: int) -> int:
    up = slip_acceleration(t, y, +1, sc)
    down = slip_acceleration(t, y, -1, sc)
    if up > 0 and down > 0:
        return +1
    if up < 0 and down < 0:
        return -1
    if up < 0 < down:
        raise RuntimeError(f"t = {t}: the axle grips the string (not modelled in this script)")
    return fallback


# ---------------------------------------------------------------------------------------------
# The tensing impulse (docs/model.md, "The tensing impulse"), path sticks infinitely heavy


def tensing_impulse(t, y, sc: Scenario):
    """Velocities and spin after the string snaps taut, plastic (e = 0). Segment impulses J_0 and
    J_1 = d J_0 pull the diabolo toward both sticks; the impact is followed in pieces of the
    accumulated J_0, each with one friction mode, a piece ending where L' or the symmetric slip
    speed reaches zero (Darboux-Keller). Returns the new state, the log entry and energy_lost."""
    p = sc.params
    x0, v0, _ = sc.left.at(t)
    x2, v2, _ = sc.right.at(t)
    v1, w = np.array(y[2:4]), y[4]
    _, _, e0, e1 = segments(x0, y[0:2], x2)
    _, theta, _, _, _ = string_angles(e0, e1)

    def string_rates(v1, w):
        """L' and the symmetric slip speed."""
        l0_rate, l1_rate = length_rates(v0, v1, v2, e0, e1)
        return l0_rate + l1_rate, symmetric_slip_speed(w, l0_rate, l1_rate)

    def response(d):
        """The changes of L' and of the symmetric slip speed per unit J_0, with J_1 = d J_0."""
        dv1, dw = (d * e1 - e0) / p.m, -(d - 1.0) / (p.m * p.J)
        dl0, dl1 = e0 @ dv1, -(e1 @ dv1)
        return dl0 + dl1, dw - (dl0 - dl1) / 2

    length_rate_before, slip = string_rates(v1, w)
    kinetic_before = 0.5 * p.m * (v1 @ v1) + 0.5 * p.m * p.J * w * w
    J0_total = J1_total = 0.0
    grip, at_zero = False, slip == 0.0
    for piece in range(16):
        length_rate, slip = string_rates(v1, w)
        if length_rate <= 1e-14 * length_rate_before:
            break
        if at_zero and not grip:
            # Filippov along the impulse: both directions point back to zero -> the axle grips,
            # with the ratio that holds the slip at zero (the response is affine in d).
            slip_up = response(capstan_ratio(p.c, theta))[1]
            slip_down = response(capstan_ratio(-p.c, theta))[1]
            if slip_up < 0 < slip_down:
                s0, s1 = response(0.0)[1], response(1.0)[1]
                d = -s0 / (s1 - s0)
                if not capstan_ratio(-p.c, theta) <= d <= capstan_ratio(p.c, theta):
                    raise RuntimeError(f"t = {t}: the gripping impact leaves its capstan bounds")
                grip = True
            else:
                d = capstan_ratio(p.c if slip_up > 0 else -p.c, theta)
        elif not grip:
            d = capstan_ratio(math.copysign(p.c, slip), theta)
        dL, dslip = response(d)
        J0 = -length_rate / dL  # what brings L' to zero in this mode
        at_zero = not grip and dslip != 0.0 and 0.0 < -slip / dslip < J0
        if at_zero:
            J0 = -slip / dslip  # the slip reaches zero first: the piece ends there
        v1 = v1 + J0 * (d * e1 - e0) / p.m
        w = w - J0 * (d - 1.0) / (p.m * p.J)
        J0_total += J0
        J1_total += d * J0
        if not at_zero:
            break
    else:
        raise RuntimeError(f"t = {t}: the impact of the string cannot be solved")
    # The hands hold the sticks: their impulse is the opposite of the string's pull on them.
    hand_work = -J0_total * (e0 @ v0) + J1_total * (e1 @ v2)
    kinetic_after = 0.5 * p.m * (v1 @ v1) + 0.5 * p.m * p.J * w * w
    energy_lost = kinetic_before - kinetic_after + hand_work
    y_new = np.array(y, dtype=float)
    y_new[2:4], y_new[4] = v1, w
    y_new[5] += hand_work
    entry = {
        "t": t, "kind": "tense", "object": None, "impulse": J0_total, "energy_lost": energy_lost,
        "length_rate_before": length_rate_before, "length_rate_after": string_rates(v1, w)[0],
        "pieces": piece + 1,
    }
    return y_new, entry, energy_lost


# ---------------------------------------------------------------------------------------------
# The hybrid run


def initial_state(sc: Scenario):
    """The diabolo placed by `x` on the taut string below both tips (sum l = L)."""
    p = sc.params
    x0, _, _ = sc.left.at(0.0)
    x2, _, _ = sc.right.at(0.0)
    x = sc.diabolo["x"]

    def excess(height):
        return math.hypot(x - x0[0], height - x0[1]) + math.hypot(x2[0] - x, x2[1] - height) - p.L

    top = min(x0[1], x2[1])
    height = brentq(excess, top - p.L, top, xtol=1e-15, rtol=4 * np.finfo(float).eps)
    vel = sc.diabolo.get("vel", [0.0, 0.0])
    return np.array([x, height, vel[0], vel[1], sc.diabolo.get("spin", 0.0), 0.0, 0.0, 0.0])


def run(sc: Scenario, duration, interval, rtol, atol, rows=True):
    """Integrate the hybrid system to `duration`, each solve_ivp call ending at the next event or
    the next keyframe of a path (where the spline's third derivative jumps). Returns (pieces,
    events, stats): a piece is (phase, mode, t, y, impulse_loss) for the output times it covers
    (none when rows=False); stats counts solve_ivp calls, right-hand side evaluations and (without
    rows) steps."""
    y = initial_state(sc)
    t = 0.0
    n_rows = int(math.floor(duration / interval + 1e-9)) + 1
    out_t = np.arange(n_rows) * interval
    keyframes = sorted({k for path in (sc.left, sc.right) for k in path.knots
                        if 0.0 < k < duration})
    phase = "taut"
    mode = 1 if taut_quantities(t, y, -1, sc)["slip"] > 0 else -1
    impulse_loss = 0.0
    pieces, events = [], []
    stats = {"solve_ivp calls": 0, "rhs evaluations": 0, "steps": 0}
    while t < duration:
        t_stop = next((k for k in keyframes if k > t), duration)
        t_eval = out_t[(out_t >= t) & (out_t <= t_stop)] if rows else None
        if phase == "taut":
            slip_event.direction = -mode  # only a crossing out of the current slip direction
            sol = solve_ivp(taut_rhs, (t, t_stop), y, method="DOP853", rtol=rtol, atol=atol,
                            t_eval=t_eval, args=(mode, sc),
                            events=[loosen_event, slip_event, straight_or_folded_event])
        else:
            sol = solve_ivp(loose_rhs, (t, t_stop), y, method="DOP853", rtol=rtol, atol=atol,
                            t_eval=t_eval, args=(sc,), events=[tense_event])
        if sol.status < 0:
            raise RuntimeError(sol.message)
        stats["solve_ivp calls"] += 1
        stats["rhs evaluations"] += sol.nfev
        stats["steps"] += 0 if rows else len(sol.t) - 1
        hit = [(te[0], k) for k, te in enumerate(sol.t_events) if len(te)]
        t_end = min(hit)[0] if hit else t_stop
        if rows:
            keep = sol.t < t_end if t_end < duration else sol.t <= t_end
            pieces.append((phase, mode, sol.t[keep], sol.y[:, keep], impulse_loss))
        t = t_end
        if not hit:
            y = sol.y[:, -1]
            continue
        which = min(hit)[1]
        y = sol.y_events[which][0].copy()
        if phase == "taut" and which == 0:
            events.append({"t": t, "kind": "loosen", "object": None})
            phase = "loose"
        elif phase == "taut" and which == 1:
            events.append({"t": t, "kind": "slip_reversal", "object": 1})
            mode = slip_direction(t, y, sc, fallback=-mode)
        elif phase == "taut":
            raise RuntimeError(f"t = {t}: theta reaches pi or 2 pi (leave or knot change, "
                               "not modelled here)")
        else:
            y, entry, lost = tensing_impulse(t, y, sc)
            impulse_loss += lost
            events.append(entry)
            phase = "taut"
            slip = taut_quantities(t, y, mode, sc)["slip"]
            if slip != 0.0:
                mode = 1 if slip > 0 else -1
            else:
                mode = slip_direction(t, y, sc, fallback=mode)
            if taut_quantities(t, y, mode, sc)["T0"] < 0:
                raise RuntimeError(f"t = {t}: T_0 < 0 right after tensing (not modelled)")
        if len(events) > 1e4 * max(duration, 1.0):
            raise RuntimeError("event flood")
    return pieces, events, stats


# ---------------------------------------------------------------------------------------------
# Rows (docs/interface.md, "Trajectory CSV")


def energy(x0, v0, x2, v2, x1, v1, w, p: Params):
    """Translation, spin (1/2 m J w^2) and gravity."""
    return (0.5 * p.M * (v0 @ v0 + v2 @ v2) + 0.5 * p.m * (v1 @ v1) + 0.5 * p.m * p.J * w * w
            + p.g * (p.M * (x0[1] + x2[1]) + p.m * x1[1]))


def row(t, phase, mode, y, impulse_loss, sc: Scenario):
    p = sc.params
    x1, v1, w = y[0:2], y[2:4], y[4]
    if phase == "taut":
        q = taut_quantities(t, y, mode, sc)
        T0, T1 = q["T0"], q["T0"] * q["d"]
        f_left, f_right = hand_force_xy(q["F0"], q["phi0"], p), hand_force_xy(q["F2"], q["phi2"], p)
    else:
        q = taut_quantities(t, y, None, sc)  # G and F^_C: the taut formulas on the loose state
        T0 = T1 = 0.0
        f_left, f_right = loose_hand_force(q["a0"], p), loose_hand_force(q["a2"], p)
    x0, v0, x2, v2 = q["x0"], q["v0"], q["x2"], q["v2"]
    return [
        t, phase, x0[0], x0[1], v0[0], v0[1], x2[0], x2[1], v2[0], v2[1],
        x1[0], x1[1], v1[0], v1[1], w, q["theta"], 0, T0, T1, q["G"], q["F_C"],
        f_left[0], f_left[1], f_right[0], f_right[1],
        energy(x0, v0, x2, v2, x1, v1, w, p), p.L - q["l0"] - q["l1"],
        y[5], y[6], y[7], impulse_loss, "string", 1,
    ]


def write_csv(path, pieces, sc: Scenario):
    with open(path, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(HEADER)
        for phase, mode, ts, ys, impulse_loss in pieces:
            for k, t in enumerate(ts):
                out.writerow(row(float(t), phase, mode, ys[:, k], impulse_loss, sc))


def whole_job(scenario_path, out, duration, interval, rtol, atol):
    sc = Scenario(scenario_path)
    pieces, events, _ = run(sc, duration, interval, rtol, atol, rows=True)
    write_csv(out, pieces, sc)
    return events


# ---------------------------------------------------------------------------------------------
# Comparison with the Rust run


def read_events(path):
    text = Path(path).read_text()
    if text.lstrip().startswith("{"):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return list(csv.DictReader(text.splitlines()))


def compare(ours_csv, rust_csv, ours_events, rust_events_path):
    ours = {r["t"]: r for r in csv.DictReader(open(ours_csv))}
    rust = {r["t"]: r for r in csv.DictReader(open(rust_csv))}
    common = [t for t in rust if t in ours]
    print(f"rows: ours {len(ours)}, rust {len(rust)}, common {len(common)}")
    groups = {"position (x, y), m": ["d1_x", "d1_y"], "velocity (vx, vy), m/s": ["d1_vx", "d1_vy"],
              "spin w, m/s": ["d1_w"]}
    for name, columns in groups.items():
        worst = max((abs(float(ours[t][c]) - float(rust[t][c])), t, c)
                    for t in common for c in columns)
        print(f"largest difference of the {name}: {worst[0]:.3e} ({worst[2]} at t = {worst[1]})")
    dist = max(math.hypot(float(ours[t]["d1_x"]) - float(rust[t]["d1_x"]),
                          float(ours[t]["d1_y"]) - float(rust[t]["d1_y"])) for t in common)
    print(f"largest distance between the two positions: {dist:.3e} m")
    phase_differs = [t for t in common if ours[t]["phase"] != rust[t]["phase"]]
    print(f"rows whose phase differs: {len(phase_differs)}")
    print("other columns, largest difference:")
    for c in ["T0", "T1", "G", "FC", "left_fx", "left_fy", "right_fx", "right_fy", "energy",
              "slack", "hand_work", "friction_loss", "drag_loss", "impulse_loss"]:
        print(f"  {c:14s} {max(abs(float(ours[t][c]) - float(rust[t][c])) for t in common):.3e}")
    if rust_events_path:
        rust_events = read_events(rust_events_path)
        print(f"events: ours {len(ours_events)}, rust {len(rust_events)}")
        print(f"  {'kind':14s} {'ours t':>22s} {'rust t':>22s} {'difference':>11s}")
        for k in range(max(len(ours_events), len(rust_events))):
            a = ours_events[k] if k < len(ours_events) else None
            b = rust_events[k] if k < len(rust_events) else None
            kind = (a or b)["kind"]
            if a and b and a["kind"] != b["kind"]:
                kind += "/" + b["kind"]
            ta = f"{a['t']:.15f}" if a else "-"
            tb = f"{float(b['t']):.15f}" if b else "-"
            diff = f"{a['t'] - float(b['t']):+.2e}" if a and b else ""
            print(f"  {kind:14s} {ta:>22s} {tb:>22s} {diff:>11s}")
        print("  tense impulses (ours, rust) and energy_lost (ours, rust):")
        for a, b in zip([e for e in ours_events if e["kind"] == "tense"],
                        [e for e in rust_events if e["kind"] == "tense"]):
            print(f"    J_0 {a['impulse']:.12f} {float(b['impulse']):.12f}   "
                  f"lost {a['energy_lost']:.12f} {float(b['energy_lost']):.12f}")


# ---------------------------------------------------------------------------------------------


def time_processes(diabolo, scenario, duration, interval, rtol, out, repeat):
    """Wall times of `repeat` whole `diabolo run` processes of the job, s (each into a new file)."""
    command = [diabolo, "run", scenario, "--set", f"sim.duration={duration}",
               "--set", f"sim.rtol={rtol}", "--set", f"sim.output_interval={interval}",
               "-o", out, "-q"]
    times = []
    for _ in range(repeat):
        Path(out).unlink(missing_ok=True)
        start = time.perf_counter()
        subprocess.run(command, check=True)
        times.append(time.perf_counter() - start)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default=str(WHIP))
    ap.add_argument("--duration", type=float, default=3.0, help="s (default 3)")
    ap.add_argument("--output-interval", type=float, default=0.001, help="s (default 0.001)")
    ap.add_argument("--rtol", type=float, default=1e-9)
    ap.add_argument("--atol", type=float, default=1e-10)
    ap.add_argument("--out", default="/tmp/scipy_whip.csv", help="trajectory CSV")
    ap.add_argument("--events", help="write our event log here (JSON lines)")
    ap.add_argument("--compare", metavar="RUST_CSV", help="the Rust trajectory to compare with")
    ap.add_argument("--rust-events", help="the Rust event log (JSON lines or CSV)")
    ap.add_argument("--repeat", type=int, default=0, help="time K whole jobs and K integrations")
    ap.add_argument("--versus", metavar="DIABOLO",
                    help="with --repeat: also time K whole `DIABOLO run` processes of the same job "
                         "(rows to a new file) and print the ratios")
    a = ap.parse_args()

    start = time.perf_counter()
    events = whole_job(a.scenario, a.out, a.duration, a.output_interval, a.rtol, a.atol)
    print(f"wrote {a.out} in {time.perf_counter() - start:.3f} s; {len(events)} events")
    if a.events:
        with open(a.events, "w") as f:
            for e in events:
                f.write(json.dumps(e) + "\n")
    if a.compare:
        compare(a.out, a.compare, events, a.rust_events)
    if a.repeat:
        sc = Scenario(a.scenario)
        stats = run(sc, a.duration, a.output_interval, a.rtol, a.atol, rows=False)[2]
        print("integration alone: " + ", ".join(f"{v} {k}" for k, v in stats.items()))
        jobs, integrations = [], []
        for _ in range(a.repeat):
            start = time.perf_counter()
            whole_job(a.scenario, a.out, a.duration, a.output_interval, a.rtol, a.atol)
            jobs.append(time.perf_counter() - start)
        for _ in range(a.repeat):
            start = time.perf_counter()
            run(sc, a.duration, a.output_interval, a.rtol, a.atol, rows=False)
            integrations.append(time.perf_counter() - start)
        for name, times in [("whole job", jobs), ("integration alone", integrations)]:
            print(f"{name}: min {min(times) * 1e3:.1f} ms, "
                  f"median {statistics.median(times) * 1e3:.1f} ms over {len(times)}")
        if a.versus:
            processes = time_processes(a.versus, a.scenario, a.duration, a.output_interval,
                                       a.rtol, a.out + ".diabolo.csv", a.repeat)
            print(f"diabolo run, whole process: min {min(processes) * 1e3:.2f} ms, "
                  f"median {statistics.median(processes) * 1e3:.2f} ms over {len(processes)} "
                  f"(timed from Python: a process start costs about 0.5 ms more than by hyperfine)")
            print(f"whole job, SciPy / diabolo: {min(jobs) / min(processes):.0f}x (minima), "
                  f"{statistics.median(jobs) / statistics.median(processes):.0f}x (medians)")


if __name__ == "__main__":
    sys.exit(main())
