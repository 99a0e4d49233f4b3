#!/usr/bin/env python3
"""The axle's tilt and turn rates on the inclination take (data/inclination/) against the
gyroscopic prediction; the sign conventions a 3D model needs.

Run: python3 scripts/inclination_analysis.py [data/inclination] [HALF_WIDTH_S]
(numpy and scipy: python3 -m venv /tmp/ana && /tmp/ana/bin/pip install numpy scipy).

Conventions (docs: src/model/axle_angles.rs): x right along the hands, y up, z toward the
audience; a the axle's unit direction with a_z >= 0 (the near end), tilt = asin(a_y),
turn = atan2(a_x, a_z) (positive: counter-clockwise seen from above); the recorded spin is the
rotation rate about a (about +z), rad/s.

The tilt-rate model. u_L = unit(dia - left tip), u_R = unit(right tip - dia): both along the
string from left to right. The string's tension from the diabolo's force balance,
T = m |acc + g| / |u_R - u_L| (g = 9.81 m/s^2 up the y axis, acc the centre's acceleration),
and alpha, half the V angle between the two sides, cos(2 alpha) = -u_L . u_R. The fitted law

    d(tilt)/dt [rad/s] = k * ((u_L + u_R) . a) * cos(alpha) * (|acc + g| / |u_R - u_L|) / Omega,

Omega = spin (rad/s, about a). The gyroscope (I_p Omega a' = tau_perp, the two sides pulling at
their tangent points on an axle of radius r, the string under the axle) gives k = -m r / I_p
= -1/(J r) with I_p = J m r^2: -3.08 per metre for J = 50, r = 6.5 mm.
"""
import glob
import io
import sys

import numpy as np
from scipy.signal import savgol_filter

FOLDER = sys.argv[1] if len(sys.argv) > 1 else "data/inclination"
HALF_WIDTH = float(sys.argv[2]) if len(sys.argv) > 2 else 0.07  # replay::AXLE_SMOOTHING
G = 9.81
J, R = 50.0, 0.0065
FPS = 120.0


def load(path):
    lines = [l for l in open(path) if not l.startswith("#")]
    return np.genfromtxt(io.StringIO("".join(lines)), delimiter=",", names=True)


def moving_average(t, v, half_width):
    """Centred mean over the frames within half_width s (cut short at the ends), as
    Space::smoothed_axle."""
    out = np.empty_like(v)
    for i, ti in enumerate(t):
        sel = np.abs(t - ti) <= half_width + 1e-9
        out[i] = v[sel].mean(axis=0)
    return out


def vec(d, name):
    return np.stack([d[f"{name}_{c}"] for c in "xyz"], axis=1)


def unit(v):
    return v / np.linalg.norm(v, axis=1)[:, None]


def segment(path):
    d = load(path)
    t = d["t"]
    left, right, dia = vec(d, "left"), vec(d, "right"), vec(d, "dia")
    a = unit(moving_average(t, vec(d, "axle"), HALF_WIDTH))
    tilt = np.arcsin(a[:, 1])  # rad
    turn = np.arctan2(a[:, 0], a[:, 2])
    # Derivatives: Savitzky-Golay (cubic over 0.2 s) of the smoothed angles and of the centre.
    w = 25
    dt = 1.0 / FPS
    tilt_rate = savgol_filter(tilt, w, 3, deriv=1, delta=dt)
    turn_rate = savgol_filter(turn, w, 3, deriv=1, delta=dt)
    acc = savgol_filter(dia, w, 3, deriv=2, delta=dt, axis=0)
    u_l, u_r = unit(dia - left), unit(right - dia)
    up = np.array([0.0, G, 0.0])
    pull = np.linalg.norm(acc + up, axis=1) / np.linalg.norm(u_r - u_l, axis=1)  # T / m
    cos_alpha = np.cos(0.5 * np.arccos(np.clip(-np.sum(u_l * u_r, axis=1), -1, 1)))
    omega = d["spin"]
    sum_a = np.sum((u_l + u_r) * a, axis=1)
    diff_a = np.sum((u_r - u_l) * a, axis=1)
    sin_alpha = np.sqrt(1 - cos_alpha**2)
    keep = slice(w, len(t) - w)  # the derivatives' ends are one-sided
    return dict(
        name=path.split("/")[-1],
        tilt=tilt[keep], turn=turn[keep], tilt_rate=tilt_rate[keep], turn_rate=turn_rate[keep],
        x_sum=(sum_a * cos_alpha * pull / omega)[keep],
        x_diff=(diff_a * cos_alpha * pull / omega)[keep],
        x_yaw=(diff_a * sin_alpha * pull / omega)[keep],
        hands_dz=(right[:, 2] - left[:, 2])[keep], spin=omega[keep], pull=pull[keep],
    )


def through_origin(x, y):
    k = np.sum(x * y) / np.sum(x * x)
    r2 = 1 - np.sum((y - k * x) ** 2) / np.sum((y - y.mean()) ** 2)
    return k, r2


def line(x, y):
    A = np.stack([x, np.ones_like(x)], 1)
    (b, c), *_ = np.linalg.lstsq(A, y, rcond=None)
    r2 = 1 - np.sum((y - A @ [b, c]) ** 2) / np.sum((y - y.mean()) ** 2)
    return b, c, r2


def main():
    segs = [segment(p) for p in sorted(glob.glob(f"{FOLDER}/*.csv"))]
    cat = {k: np.concatenate([s[k] for s in segs]) for k in segs[0] if k != "name"}
    print(f"{len(segs)} segments, {len(cat['tilt'])} frames; axle smoothed over +-{HALF_WIDTH} s")
    print(f"spin: {np.mean(cat['spin'] > 0):.1%} of frames positive (about a, toward +z); "
          f"median {np.median(cat['spin']):.1f} rad/s, range {cat['spin'].min():.1f} to "
          f"{cat['spin'].max():.1f}")
    print(f"gyroscopic prediction of k: -1/(J r) = {-1 / (J * R):.2f} per metre (J = {J}, r = {R} m)")

    print("\n1. tilt rate (rad/s) = k * predictor, through the origin")
    for key, what in [("x_sum", "((u_L + u_R) . a) cos(alpha) (|acc+g|/|u_R-u_L|) / Omega"),
                      ("x_diff", "((u_R - u_L) . a) cos(alpha) (|acc+g|/|u_R-u_L|) / Omega")]:
        k, r2 = through_origin(cat[key], cat["tilt_rate"])
        print(f"  {what}: pooled k = {k:+.2f} /m, R^2 = {r2:.3f}")
    print("  per segment, (u_L + u_R) form:")
    ks = []
    for s in segs:
        k, r2 = through_origin(s["x_sum"], s["tilt_rate"])
        ks.append(k)
        print(f"    {s['name']:<18} n {len(s['tilt']):5d}  k = {k:+.2f} /m  R^2 = {r2:.3f}")
    print(f"  per-segment k: {min(ks):+.2f} to {max(ks):+.2f} /m, median {np.median(ks):+.2f}")
    # Lag: the predictor shifted against the rate.
    best = max(range(-24, 25), key=lambda L: through_origin(
        np.concatenate([np.roll(s["x_sum"], L)[30:-30] for s in segs]),
        np.concatenate([s["tilt_rate"][30:-30] for s in segs]))[1])
    print(f"  best lag of the rate behind the predictor: {best} frames ({best / FPS * 1000:+.0f} ms)")

    print("\n2. which end goes down when the right stick moves toward +z (the audience)")
    b, c, r2 = line(cat["hands_dz"], np.degrees(cat["tilt_rate"]))
    print(f"  tilt rate (deg/s) vs right_z - left_z (m): slope {b:+.1f} deg/s per m, R^2 {r2:.3f}")
    print("  (tilt is the near end's elevation: a negative slope = the near end goes down, "
          "the far end up)")

    print("\n3. turn rate (deg/s) against tilt (deg)")
    b, c, r2 = line(np.degrees(cat["tilt"]), np.degrees(cat["turn_rate"]))
    print(f"  d(turn)/dt = {b:+.3f} * tilt {c:+.3f} deg/s, R^2 {r2:.3f}")
    bs = [line(np.degrees(s["tilt"]), np.degrees(s["turn_rate"]))[0] for s in segs]
    print(f"  per segment slope: {min(bs):+.3f} to {max(bs):+.3f}, median {np.median(bs):+.3f}")
    k, r2 = through_origin(cat["x_yaw"], cat["turn_rate"])
    print(f"  the same gyroscopic torque's turn part, ((u_R-u_L).a) sin(alpha) (|acc+g|/|u_R-u_L|)"
          f"/Omega: k = {k:+.2f} /m, R^2 {r2:.3f}")
    A = np.stack([cat["x_yaw"], np.degrees(cat["tilt"]) * np.pi / 180, np.ones_like(cat["tilt"])], 1)
    coef, *_ = np.linalg.lstsq(A, cat["turn_rate"], rcond=None)
    y = cat["turn_rate"]
    r2 = 1 - np.sum((y - A @ coef) ** 2) / np.sum((y - y.mean()) ** 2)
    print(f"  both: k_yaw = {coef[0]:+.2f} /m, {coef[1]:+.3f} (deg/s per deg), R^2 {r2:.3f}")


if __name__ == "__main__":
    main()
