"""`diabolo.plan` against `diabolo plan`: the same planned scenario byte for byte, the same
report, the same refusal of a bad task; a seed's plan does not depend on the threads; a planned
path driven with `Simulation.set_hand(path=...)` is the planned run."""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path

import numpy as np
import pytest

import diabolo
from test_diabolo import ROOT, run_cli

CARRY = ROOT / "scenarios" / "plans" / "carry.json"
# The report's fields that depend on the machine, not on the plan.
TIMING = ("wall_time",)


def without_timing(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in TIMING}


def test_carry_is_the_clis_plan_byte_for_byte(tmp_path: Path):
    out, report = tmp_path / "planned.json", tmp_path / "report.json"
    done = run_cli("plan", str(CARRY), "-o", str(out), "--report", str(report), "--quiet",
                   "--jobs", "2")
    assert done.returncode == 0
    planned = diabolo.plan(CARRY, jobs=1)
    assert planned.met and planned.unmet == []
    assert planned.text == out.read_text()
    assert planned.scenario == json.loads(out.read_text())
    assert "plan" not in planned.scenario
    cli_report = json.loads(report.read_text())
    assert list(planned.report) == list(cli_report)
    assert without_timing(planned.report) == without_timing(cli_report)
    assert planned.report["stopped"] == "met" or planned.report["stopped"] == "settled"
    # A dict and a JSON text plan the same (the task names no relative file).
    assert diabolo.plan(json.loads(CARRY.read_text())).text == planned.text
    assert diabolo.plan(CARRY.read_text()).text == planned.text


def test_a_plan_depends_on_its_seed_not_on_the_threads():
    a = diabolo.plan(CARRY, seed=3, jobs=1, max_simulations=300)
    b = diabolo.plan(CARRY, seed=3, jobs=2, max_simulations=300)
    assert a.text == b.text
    assert without_timing(a.report) == without_timing(b.report)


def test_a_missed_target_is_returned_with_its_checks_named(tmp_path: Path):
    out = tmp_path / "planned.json"
    planned = diabolo.plan(CARRY, max_simulations=5)
    done = run_cli("plan", str(CARRY), "-o", str(out), "--max-simulations", "5", "--quiet",
                   check=False)
    assert done.returncode == 1
    assert not planned.met
    assert planned.text == out.read_text()
    assert planned.report["stopped"] == "budget"
    assert planned.unmet and all(c["margin"] < 0 for c in planned.unmet)
    for check in planned.unmet:
        assert check["what"] in done.stderr


def test_a_bad_task_raises_value_error_with_the_clis_message(tmp_path: Path):
    overrides = {"plan.targets[0].state.diabolo": 3}
    with pytest.raises(ValueError) as caught:
        diabolo.plan(CARRY, overrides)
    assert isinstance(caught.value, diabolo.InvalidScenario)
    message = str(caught.value)
    assert message.startswith("plan.targets[0].state.diabolo = 3"), message
    done = run_cli("plan", str(CARRY), "-o", str(tmp_path / "x.json"),
                   "--set", "plan.targets[0].state.diabolo=3", check=False)
    assert done.returncode == 2
    assert f"error: {message}" in done.stderr
    with pytest.raises(diabolo.InvalidTask, match="plan"):
        diabolo.plan(ROOT / "scenarios" / "swing.json")
    with pytest.raises(ValueError, match="max_simulations"):
        diabolo.plan(CARRY, max_simulations=0)
    with pytest.raises(ValueError, match="jobs"):
        diabolo.plan(CARRY, jobs=0)


def test_driving_the_planned_path_is_the_planned_run():
    planned = diabolo.plan(CARRY)
    duration = planned.scenario["sim"]["duration"]
    by_scenario = diabolo.Simulation(planned.scenario)
    by_scenario.step(duration)
    task = json.loads(CARRY.read_text())
    del task["plan"]
    stepped = diabolo.Simulation(task)
    stepped.set_hand("right", path=planned.keyframes("right"))
    stepped.step(duration)
    a, b = by_scenario.state, stepped.state
    np.testing.assert_allclose(a["positions"], b["positions"], atol=1e-9)
    np.testing.assert_allclose(a["stick_positions"], b["stick_positions"], atol=1e-12)
    target = planned.scenario["drive"]["right"]["keyframes"][-1][1:]
    np.testing.assert_allclose(b["stick_positions"][1], target, atol=1e-12)
    with pytest.raises(ValueError, match=r"path\[0\]"):
        stepped.set_hand("right", path=[(0.0, 1.0)])


def test_a_moving_stick_goes_on_along_a_path_from_its_velocity():
    planned = diabolo.plan(CARRY)
    frames = planned.keyframes("right")
    duration = planned.scenario["sim"]["duration"]
    whole = diabolo.Simulation(planned.scenario)
    whole.step(duration)
    # Midway, at a keyframe, the rest of the spline is the spline through the keyframes left
    # that leaves the first at the stick's velocity there.
    t1 = frames[2][0]
    stepped = diabolo.Simulation(planned.scenario)
    stepped.step(t1)
    velocity = stepped.state["stick_velocities"][1]
    assert np.linalg.norm(velocity) > 0.05
    rest = [(t - t1, x, y) for t, x, y in frames[2:]]
    stepped.set_hand("right", path=rest, path_velocity=velocity)
    stepped.step(duration - t1)
    a, b = whole.state, stepped.state
    np.testing.assert_allclose(a["stick_positions"], b["stick_positions"], atol=1e-6)
    np.testing.assert_allclose(a["stick_velocities"], b["stick_velocities"], atol=1e-6)
    np.testing.assert_allclose(a["positions"], b["positions"], atol=1e-5)
    with pytest.raises(ValueError, match="path_velocity"):
        stepped.set_hand("right", path_velocity=(0.0, 0.0))


def test_ctrl_c_stops_a_long_plan():
    spin_up = ROOT / "scenarios" / "plans" / "spin_up.json"
    timer = threading.Timer(0.5, lambda: signal.raise_signal(signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            diabolo.plan(spin_up, max_simulations=10**6)
    finally:
        timer.cancel()
