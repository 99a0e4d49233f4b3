"""diabolo from Python, notebook style: run a shipped scenario, plot the diabolo's height with
its events, run a small sweep, and step a simulation in a control loop.

    pip install ./python matplotlib     # from the repository root
    python examples/python_quickstart.py   # writes quickstart_height.png
"""

from pathlib import Path

import numpy as np

import diabolo

ROOT = Path(__file__).resolve().parents[1]

# 1. A run: the trajectory CSV's columns as numpy arrays, the events, the summary.
run = diabolo.run(ROOT / "scenarios" / "whip.json", {"sim.output_interval": 0.002})
t, height, spin = run.trajectory["t"], run.trajectory["d1_y"], run.trajectory["d1_w"]
print(run)
print(f"spin {spin[0]:.3f} -> {spin[-1]:.3f} m/s, max tension {run.summary['max_tension']:.2f} N")

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.5))
    ax.plot(t, height, lw=1.2, label="diabolo height d1_y")
    for event in run.events:
        if event["kind"] in ("loosen", "tense"):
            ax.axvline(event["t"], color="tab:red" if event["kind"] == "loosen" else "tab:green",
                       lw=0.6, alpha=0.6)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("height (m)")
    ax.set_title("The whip: loosen (red) and tense (green) events")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig("quickstart_height.png", dpi=120)
    print("wrote quickstart_height.png")
except ImportError:
    print("matplotlib is not installed: no plot")

# 2. A sweep: friction x spin drag, in parallel, one summary row per point.
table = diabolo.sweep(
    ROOT / "scenarios" / "swing.json",
    grid={"params.friction": (0.1, 0.5, 5)},
    lists={"params.spin_drag": [0.0, 1e-4]},
    overrides={"sim.duration": 2.0},
)
for f, drag, w in zip(table["params.friction"], table["params.spin_drag"], table["d1_w_final"]):
    print(f"friction {f:.2f}, spin drag {drag:g}: final spin {w:.4f} m/s")

# 3. A control loop at 1 kHz: the right hand pulled toward a point that circles slowly.
sim = diabolo.Simulation(ROOT / "scenarios" / "swing.json")
for k in range(1000):
    phase = 2 * np.pi * k / 1000
    sim.set_hand("right", path_target=(0.4 + 0.03 * np.cos(phase), 1.5 + 0.03 * np.sin(phase)))
    for event in sim.step(0.001):
        print("event", event["kind"], "at", round(event["t"], 4))
state = sim.state
print(f"t = {state['t']:.3f} s, diabolo at {state['positions'][0]}, tensions {state['tensions']}")
