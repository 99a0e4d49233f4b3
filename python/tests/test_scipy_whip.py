"""The whip, run by the command line and by an independent SciPy implementation
(`benches/scipy_whip.py`: the one-diabolo model written from docs/model.md, integrated in
Cartesian coordinates by `solve_ivp(DOP853)` with its own event location, impulse pieces and
ledger), agree through all eleven events: the same events in the same order, at the same times,
with the same impulses, and the same trajectory.

Both runs are at rtol 1e-10, where each is about 3e-10 m from a run at rtol 1e-12 (measured:
the command line 3.7e-10 m, SciPy 2.4e-10 m over the 3 s); the bounds below are 5 to 10 times
what two such errors can add up to, so a difference in the physics (a term, a sign, an event
missed or taken at the wrong time) fails them by orders of magnitude.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def scipy_whip():
    spec = importlib.util.spec_from_file_location("scipy_whip", ROOT / "benches" / "scipy_whip.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cli() -> str:
    return os.environ.get("DIABOLO_BIN") or str(ROOT / "target" / "release" / "diabolo")


def rows(path: Path) -> dict[str, dict[str, str]]:
    with open(path) as f:
        return {row["t"]: row for row in csv.DictReader(f)}


def largest_difference(ours, theirs, columns) -> float:
    return max(abs(float(ours[t][c]) - float(theirs[t][c])) for t in theirs for c in columns)


def test_an_independent_scipy_whip_agrees_with_the_command_line(tmp_path):
    rtol = 1e-10
    rust_csv, rust_events = tmp_path / "rust.csv", tmp_path / "rust.jsonl"
    subprocess.run(
        [cli(), "run", str(ROOT / "scenarios" / "whip.json"), "--set", "sim.duration=3",
         "--set", f"sim.rtol={rtol}", "--set", "sim.output_interval=0.01",
         "-o", str(rust_csv), "--events", str(rust_events), "-q"],
        check=True,
    )
    module = scipy_whip()
    scipy_csv = tmp_path / "scipy.csv"
    ours = module.whole_job(str(ROOT / "scenarios" / "whip.json"), str(scipy_csv), 3.0, 0.01,
                            rtol, 1e-11)
    theirs = [json.loads(line) for line in rust_events.read_text().splitlines() if line]

    assert [e["kind"] for e in ours] == [e["kind"] for e in theirs]
    assert [e["kind"] for e in theirs].count("tense") == 4
    for a, b in zip(ours, theirs):
        assert abs(a["t"] - b["t"]) < 1e-9, (a, b)
    for a, b in zip([e for e in ours if e["kind"] == "tense"],
                    [e for e in theirs if e["kind"] == "tense"]):
        assert math.isclose(a["impulse"], b["impulse"], rel_tol=0, abs_tol=1e-9), (a, b)
        assert math.isclose(a["energy_lost"], b["energy_lost"], rel_tol=0, abs_tol=1e-8), (a, b)

    ours_rows, their_rows = rows(scipy_csv), rows(rust_csv)
    assert ours_rows.keys() == their_rows.keys() and len(their_rows) == 301
    assert all(ours_rows[t]["phase"] == their_rows[t]["phase"] for t in their_rows)
    assert largest_difference(ours_rows, their_rows, ["d1_x", "d1_y"]) < 5e-9
    assert largest_difference(ours_rows, their_rows, ["d1_vx", "d1_vy"]) < 2e-8
    assert largest_difference(ours_rows, their_rows, ["d1_w"]) < 1e-9
    assert largest_difference(ours_rows, their_rows, ["T0", "T1", "right_fx", "right_fy"]) < 5e-8
    assert largest_difference(ours_rows, their_rows, ["hand_work", "impulse_loss"]) < 5e-8
