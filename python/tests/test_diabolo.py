"""The Python package against the command line: the same trajectories bit for bit, the same
errors, the same sweep rows; stepping reproduces a run; copies are independent; the
environment passes Gymnasium's checker; memory stays flat over 10^5 steps."""

from __future__ import annotations

import csv
import json
import math
import os
import struct
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import diabolo

ROOT = Path(__file__).resolve().parents[2]
# Every shipped scenario, in the plane and in space.
SCENARIOS = sorted((ROOT / "scenarios").glob("*.json"))
SPACE_SCENARIOS = [p for p in SCENARIOS if '"space": true' in p.read_text()]


def cli() -> str:
    """The command line built from this checkout (tests/run builds it first)."""
    path = os.environ.get("DIABOLO_BIN") or str(ROOT / "target" / "release" / "diabolo")
    assert os.access(path, os.X_OK), (
        f"no diabolo binary at {path}: build it (cargo build --release) or set DIABOLO_BIN"
    )
    return path


def run_cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([cli(), *args], capture_output=True, text=True)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


def read_csv(path: Path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def test_scenarios_are_shipped():
    assert len(SCENARIOS) >= 10


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.stem)
def test_run_matches_the_cli_csv_bit_for_bit(scenario: Path, tmp_path: Path):
    out = tmp_path / "cli.csv"
    run_cli("run", str(scenario), "-o", str(out), "--quiet")
    header, records = read_csv(out)
    result = diabolo.run(scenario)
    assert list(result.trajectory) == header
    assert len(result) == len(records)
    for c, name in enumerate(header):
        column = result.trajectory[name]
        fields = [r[c] for r in records]
        if column.dtype.kind == "f":
            for r, field in enumerate(fields):
                value = float(column[r])
                if field == "":
                    assert math.isnan(value), (name, r)
                else:
                    assert bits(float(field)) == bits(value), (name, r, field, value)
        elif column.dtype.kind == "i":
            assert [int(f) for f in fields] == column.tolist(), name
        else:
            assert fields == column.tolist(), name
    summary = json.loads(run_cli("run", str(scenario), "-o", os.devnull).stderr.strip().splitlines()[-1])
    for key in ("status", "end_time", "steps", "events", "energy_final", "max_tension"):
        assert result.summary[key] == summary[key], key


def test_events_are_the_cli_event_log(tmp_path: Path):
    events = tmp_path / "whip.jsonl"
    run_cli("run", str(ROOT / "scenarios" / "whip.json"), "-o", os.devnull, "--events", str(events), "--quiet")
    expected = [json.loads(line) for line in events.read_text().splitlines()]
    assert diabolo.run(ROOT / "scenarios" / "whip.json", rows=False).events == expected


def test_a_scenario_reads_the_same_as_a_dict_a_text_and_a_path():
    path = ROOT / "scenarios" / "swing.json"
    text = path.read_text()
    a = diabolo.run(path, {"sim.duration": 0.5})
    b = diabolo.run(json.loads(text), {"sim.duration": 0.5})
    c = diabolo.run(text, {"sim.duration": "0.5"})
    for name in a.trajectory:
        np.testing.assert_array_equal(a.trajectory[name], b.trajectory[name])
        np.testing.assert_array_equal(a.trajectory[name], c.trajectory[name])
    assert a.trajectory["t"][-1] == 0.5


BAD = [
    ({"sim.duration": -1}, "sim.duration"),
    ({"params.string_length": 0}, "params.string_length"),
    ({"params.frction": 0.3}, "frction"),
    ({"initial.diabolos": [{"x": 5.0}]}, "initial.diabolos"),
]


@pytest.mark.parametrize("overrides,path", BAD, ids=[p for _, p in BAD])
def test_bad_inputs_raise_with_the_clis_message(overrides, path, tmp_path: Path):
    scenario = ROOT / "scenarios" / "swing.json"
    with pytest.raises(diabolo.InvalidScenario) as caught:
        diabolo.run(scenario, overrides)
    message = str(caught.value)
    assert path in message
    sets = []
    for key, value in overrides.items():
        sets += ["--set", f"{key}={json.dumps(value)}"]
    done = run_cli("run", str(scenario), "-o", str(tmp_path / "x.csv"), *sets, check=False)
    assert done.returncode == 2
    assert message in done.stderr
    assert not (tmp_path / "x.csv").exists()


def test_a_missing_file_and_bad_json_raise_invalid_scenario(tmp_path: Path):
    with pytest.raises(diabolo.InvalidScenario, match="nothere.json"):
        diabolo.run(tmp_path / "nothere.json")
    with pytest.raises(diabolo.InvalidScenario, match="JSON"):
        diabolo.run("{not json")
    with pytest.raises(TypeError):
        diabolo.run(42)  # type: ignore[arg-type]


def test_a_failed_run_raises_run_failed_with_the_partial_run():
    # The sticks pulled apart at 400 m/s^2: the string cannot hold them.
    with pytest.raises(diabolo.RunFailed) as caught:
        diabolo.run(
            ROOT / "scenarios" / "swing.json",
            {"drive.left": {"type": "accel", "value": [-400.0, 0.0]}, "initial.left": {"pos": [-0.4, 1.5], "vel": [0, 0]}},
        )
    partial = caught.value.run
    assert partial.status == "failed"
    assert partial.failure == str(caught.value)
    assert partial.events[-1]["kind"] == "failure"
    assert len(partial) >= 1


def test_stepping_every_millisecond_reproduces_the_run():
    scenario = ROOT / "scenarios" / "whip.json"
    expected = diabolo.run(scenario, {"sim.output_interval": 0.001, "sim.duration": 1.5}).trajectory
    sim = diabolo.Simulation(scenario, {"sim.duration": 1.5})
    worst = 0.0
    events = []
    for k in range(1, len(expected["t"]) - 1):
        events += sim.step(0.001)
        state = sim.state
        assert abs(state["t"] - expected["t"][k]) < 1e-12
        d = state["positions"][0] - [expected["d1_x"][k], expected["d1_y"][k]]
        worst = max(worst, float(np.abs(d).max()))
        assert state["phase"] == expected["phase"][k]
    # The step times are sums of 0.001, off k * 0.001 by up to 5e-14 s: the positions differ by
    # that much motion (8e-14 m measured), the rest is the same run.
    assert worst < 1e-12, worst
    run_events = diabolo.run(scenario, {"sim.duration": 1.5}, rows=False).events
    assert [e["kind"] for e in events] == [e["kind"] for e in run_events][: len(events)]
    assert len(events) >= 5


def test_set_hand_changes_the_hand_and_the_ledger_stays_balanced():
    sim = diabolo.Simulation(ROOT / "scenarios" / "swing.json", {"sim.rtol": 1e-12})
    e0 = sim.state["energy"]
    for k in range(100):
        sim.set_hand("right", path_target=(0.4 + 0.05 * math.sin(0.2 * k), 1.5))
        sim.step(0.01)
        s = sim.state
        ledger = s["hand_work"] - s["friction_loss"] - s["drag_loss"] - s["impulse_loss"]
        assert abs(s["energy"] - e0 - ledger) < 1e-8
    assert sim.state["hand_work"] != 0.0
    with pytest.raises(ValueError, match="exactly one"):
        sim.set_hand("left", force=(0, 1), accel=(0, 0))
    with pytest.raises(ValueError, match="left"):
        sim.set_hand("middle", released=True)


def test_set_hands_moves_both_hands_as_two_set_hand_calls_do_within_round_off():
    scenario = ROOT / "scenarios" / "swing.json"
    both, each = diabolo.Simulation(scenario), diabolo.Simulation(scenario)
    for k in range(100):
        left, right = (-2.0 * math.sin(0.3 * k), 1.0), (2.0 * math.cos(0.2 * k), -1.0)
        both.set_hands(accel=(left, right))
        each.set_hand("left", accel=left)
        each.set_hand("right", accel=right)
        both.step(0.01)
        each.step(0.01)
    a, b = both.state, each.state
    assert a["t"] == b["t"] and a["modes"] == b["modes"]
    # One re-entry of the string instead of two: the same motion, round-off apart.
    assert np.abs(np.asarray(a["positions"]) - b["positions"]).max() < 1e-9
    assert np.abs(np.asarray(a["stick_positions"]) - b["stick_positions"]).max() < 1e-9
    with pytest.raises(ValueError, match="exactly one"):
        both.set_hands(force=((0, 1), (0, 1)), accel=((0, 0), (0, 0)))
    with pytest.raises(ValueError, match="accel must be a pair"):
        both.set_hands(accel=(0.0, 1.0, 2.0))
    both.set_hands(released=True)
    both.step(0.01)
    # Released hands apply no force.
    assert np.array_equal(np.asarray(both.state["hand_forces"]), np.zeros((2, 2)))


def test_copy_is_independent():
    sim = diabolo.Simulation(ROOT / "scenarios" / "swing.json")
    sim.step(0.2)
    snapshot = sim.copy()
    before = snapshot.state
    sim.set_hand("right", accel=(5.0, 0.0))
    sim.step(0.3)
    assert snapshot.time == pytest.approx(0.2)
    after = snapshot.state
    for key in ("positions", "velocities", "stick_positions"):
        np.testing.assert_array_equal(before[key], after[key])
    # The copy goes on as the original would have without the change.
    twin = diabolo.Simulation(ROOT / "scenarios" / "swing.json")
    twin.step(0.2)
    snapshot.step(0.3)
    twin.step(0.3)
    np.testing.assert_array_equal(snapshot.state["positions"], twin.state["positions"])
    assert not np.array_equal(sim.state["positions"], twin.state["positions"])


def test_reset_starts_over_with_the_scenarios_hands():
    sim = diabolo.Simulation(ROOT / "scenarios" / "swing.json")
    first = sim.state
    sim.set_hand("left", released=True)
    sim.step(0.5)
    sim.reset()
    assert sim.time == 0.0
    np.testing.assert_array_equal(sim.state["positions"], first["positions"])


def test_sweep_rows_equal_the_clis_sweep(tmp_path: Path):
    scenario = ROOT / "scenarios" / "swing.json"
    out = tmp_path / "sweep.csv"
    run_cli(
        "sweep", str(scenario), "--grid", "params.friction=0.1:0.5:3",
        "--list", "params.spin_drag=0,0.0001", "--set", "sim.duration=0.5",
        "-o", str(out), "--quiet", "--jobs", "2",
    )
    header, records = read_csv(out)
    table = diabolo.sweep(
        scenario, grid={"params.friction": (0.1, 0.5, 3)},
        lists={"params.spin_drag": [0, 0.0001]}, overrides={"sim.duration": 0.5}, jobs=1,
    )
    assert list(table) == header
    assert len(table["index"]) == len(records) == 6
    for c, name in enumerate(header):
        fields = [r[c] for r in records]
        column = table[name]
        if column.dtype.kind == "f":
            for field, value in zip(fields, column):
                assert (field == "" and math.isnan(value)) or bits(float(field)) == bits(float(value)), name
        elif column.dtype.kind == "b":
            assert fields == ["true" if v else "false" for v in column], name
        else:
            assert fields == [str(v) for v in column.tolist()], name
    samples = diabolo.sweep(scenario, grid={"params.friction": (0.1, 0.5, 3)}, samples=4, seed=7,
                            overrides={"sim.duration": 0.2})
    again = diabolo.sweep(scenario, grid={"params.friction": (0.1, 0.5, 3)}, samples=4, seed=7,
                          overrides={"sim.duration": 0.2}, jobs=2)
    np.testing.assert_array_equal(samples["params.friction"], again["params.friction"])
    with pytest.raises(diabolo.InvalidScenario, match="frction"):
        diabolo.sweep(scenario, grid={"params.frction": (0.1, 0.5, 3)})


def test_the_run_releases_the_interpreter():
    # A long run in a thread while this thread counts: with the interpreter held the count
    # would stay at 0 until the run ends.
    done = threading.Event()
    counts = []

    def work():
        diabolo.run(ROOT / "scenarios" / "swing.json", {"sim.duration": 1000, "sim.rtol": 1e-12}, rows=False)
        done.set()

    thread = threading.Thread(target=work)
    thread.start()
    count = 0
    while not done.is_set():
        count += 1
        time.sleep(0)
        if count == 1000:
            counts.append(done.is_set())
    thread.join()
    assert counts == [False], "the run ended before this thread counted to 1000"


def rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_no_memory_growth_over_a_hundred_thousand_steps():
    sim = diabolo.Simulation(ROOT / "scenarios" / "swing.json", {"sim.duration": 1000})
    for k in range(10_000):
        sim.step(0.001)
        if k % 10 == 0:
            sim.set_hand("right", accel=(0.0, 0.0))
        sim.state
    start = rss_kib()
    for k in range(100_000):
        sim.step(0.001)
        if k % 10 == 0:
            sim.set_hand("right", accel=(0.0, 0.0))
        sim.state
    grown = rss_kib() - start
    assert sim.time == pytest.approx(110.0)
    assert grown < 2048, f"RSS grew by {grown} KiB over 10^5 steps"


def test_target_hands_pass_the_checker_and_a_random_policy_no_longer_pulls_the_string_straight():
    pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env

    from diabolo.gym import DiaboloEnv, DiaboloVectorEnv

    for space in (False, True):
        env = DiaboloEnv(hands="target", space=space)
        check_env(env, skip_render_check=True)
        assert env.reach == 0.3 and env.max_force == 50.0
    # The action moves the target, not the stick: a hand held at its rest point stays there.
    env = DiaboloEnv(hands="target", start_noise=0.0)
    env.reset(seed=0)
    for _ in range(100):
        env.step(np.zeros(4, dtype=np.float32))
    left, right = env._play.batch.simulation(0).state["stick_positions"]
    assert abs(left[0] + 0.4) < 0.02 and abs(right[0] - 0.4) < 0.02
    straight = {}
    for hands in ("accel", "target"):
        envs = DiaboloVectorEnv(num_envs=16, hands=hands)
        envs.reset(seed=0)
        rng = np.random.default_rng(0)
        straight[hands] = 0
        for _ in range(300):
            *_, info = envs.step(rng.uniform(-1, 1, size=(16, 4)).astype(np.float32))
            for message in info.get("failure", []):
                straight[hands] += bool(message) and "pull the string straight" in message
    # Acceleration-driven hands have no force limit and pull the string straight (31 of 4,800
    # steps here); hands with a force limit are pulled back by the string.
    assert straight["accel"] > 10 and straight["target"] == 0, straight
    with pytest.raises(ValueError, match="hands must be one of"):
        DiaboloEnv(hands="tracking")


def test_the_environment_passes_the_checker_and_a_random_policy_runs_ten_thousand_steps():
    gym = pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env

    from diabolo.gym import TASKS, DiaboloEnv

    for task in TASKS:
        check_env(DiaboloEnv(task=task, space=task == "level"), skip_render_check=True)
    env = DiaboloEnv(task="hold")
    env.action_space.seed(0)
    env.reset(seed=0)
    episodes = 0
    for _ in range(10_000):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs)
        assert math.isfinite(reward)
        if terminated or truncated:
            episodes += 1
            env.reset()
    assert episodes > 0
    # Holding still on the hold task earns nearly the full reward per step.
    env.reset(seed=1)
    total = sum(env.step(np.zeros(4, dtype=np.float32))[1] for _ in range(50))
    assert total > 30
    assert gym is not None


def test_toss_pays_for_a_catch_by_how_near_its_apex_was_the_target():
    from diabolo.batch import FLYING, ON_STRING, BatchStep
    from diabolo.gym import DiaboloEnv

    env = DiaboloEnv(task="toss", target_height=0.5)
    env.reset(seed=0)
    play = env._play  # the rewards of DiaboloEnv and DiaboloVectorEnv
    hands = float(play.hand_height[0])
    one = np.ones(1, dtype=bool)

    def state(y, mode, lands=0):
        values = np.zeros((1, 8))
        values[0, 2] = y
        flags = np.array([[0, mode, lands, 0]], dtype=np.int32)
        return BatchStep(np.zeros((1, 13), dtype=np.float32), values, flags)

    def reward(before, after):
        return float(play._reward(before, after, one)[0])

    on = state(hands - 0.6, ON_STRING)
    # Up to 0.5 m above the hands and caught: the full reward, paid at the catch only.
    assert reward(on, state(hands + 0.3, FLYING)) == 0.0
    assert reward(on, state(hands + 0.5, FLYING)) == 0.0
    assert reward(on, state(hands - 0.5, ON_STRING, lands=1)) == pytest.approx(1.0)
    # Only 0.25 m: half of it.
    reward(on, state(hands + 0.25, FLYING))
    assert reward(on, state(hands - 0.5, ON_STRING, lands=1)) == pytest.approx(0.5)
    # A landing with no flight seen pays nothing.
    assert reward(on, state(hands - 0.6, ON_STRING, lands=1)) == 0.0


def test_bad_arguments_are_named_with_their_value_and_the_fix():
    # Each message names the argument, the value and what to give (issue 31): no "complex"
    # from a square root of a negative stiffness, no json's bare "Out of range float values",
    # no PyO3 "can't convert negative int to unsigned".
    sim = diabolo.Simulation(ROOT / "scenarios" / "swing.json")
    for gains, name, value in [
        ({"stiffness": -5}, "stiffness", "-5"),
        ({"stiffness": float("nan")}, "stiffness", "nan"),
        ({"damping": -1.0}, "damping", "-1.0"),
        ({"max_force": float("inf")}, "max_force", "inf"),
    ]:
        with pytest.raises(ValueError) as caught:
            sim.set_hand("right", path_target=(0.4, 1.5), **gains)
        message = str(caught.value)
        assert name in message and value in message and "give 0 or more" in message, message
        assert "complex" not in message
    scenario = ROOT / "scenarios" / "hanging.json"
    with pytest.raises(diabolo.InvalidScenario) as caught:
        diabolo.run(scenario, {"params.friction": float("nan")})
    message = str(caught.value)
    assert "overrides['params.friction']" in message and "nan" in message, message
    assert "give finite numbers" in message
    with pytest.raises(diabolo.InvalidScenario, match=r"scenario: .*give finite numbers"):
        diabolo.run({"params": {"string_length": float("inf")}})
    with pytest.raises(diabolo.InvalidScenario, match=r"lists\['params.friction'\]"):
        diabolo.sweep(scenario, lists={"params.friction": [0.1, float("nan")]})
    for arguments, name in [
        ({"jobs": -2}, "jobs"),
        ({"jobs": 0}, "jobs"),
        ({"samples": -1}, "samples"),
    ]:
        with pytest.raises(ValueError) as caught:
            diabolo.sweep(scenario, grid={"params.friction": (0.1, 0.5, 3)}, **arguments)
        message = str(caught.value)
        value = str(next(iter(arguments.values())))
        assert message.startswith(name) and f"got {value}" in message, message
        assert "give 1 or more" in message and "unsigned" not in message, message
    with pytest.raises(ValueError, match=r"grid\['params.friction'\] count .* got -3"):
        diabolo.sweep(scenario, grid={"params.friction": (0.1, 0.5, -3)})


def test_a_scenario_in_space_steps_with_3d_hands_and_reports_tilt_and_turn():
    assert SPACE_SCENARIOS, "a shipped scenario in space"
    sim = diabolo.Simulation(SPACE_SCENARIOS[0])
    assert sim.space
    state = sim.state
    assert state["positions"].shape == (1, 3) and state["axles"].shape == (1, 3)
    assert state["stick_positions"].shape == (2, 3)
    # Held still, then the right stick pushed toward the audience: the axle tilts (the
    # recordings' spin sense: the near end goes down).
    sim.set_hand("left", accel=(0.0, 0.0, 0.0))
    sim.set_hand("right", accel=(0.0, 0.0, 0.0))
    sim.step(0.2)
    level = float(sim.state["tilts"][0])
    sim.set_hand("right", accel=(0.0, 0.0, 2.0))
    sim.step(0.3)
    state = sim.state
    assert state["stick_positions"][1][2] > 0.05
    assert float(state["tilts"][0]) < level - 0.05
    with pytest.raises(ValueError, match="x, y"):
        sim.set_hand("right", accel=(1.0,))
    # A planar scenario refuses a third component.
    planar = diabolo.Simulation(ROOT / "scenarios" / "swing.json")
    assert not planar.space
    with pytest.raises(ValueError, match="in the plane"):
        planar.set_hand("right", accel=(0.0, 0.0, 1.0))


def test_a_toss_in_space_is_followed_off_the_string_and_back():
    sim = diabolo.Simulation(ROOT / "scenarios" / "toss_in_space.json")
    seen = []
    for _ in range(250):
        sim.step(0.01)
        state = sim.state
        seen.append((state["modes"][0], int(state["slots"][0])))
    modes = [m for m, _ in seen]
    assert "flying" in modes and modes[-1] == "string"
    first = modes.index("flying")
    assert seen[first][1] == 0 and seen[-1][1] == 1
    # The whole run's columns say the same, with theta empty (NaN) while it flies.
    columns = diabolo.run(ROOT / "scenarios" / "toss_in_space.json").trajectory
    flying = [i for i, m in enumerate(columns["d1_mode"]) if m == "flying"]
    assert flying and all(np.isnan(columns["d1_theta"][i]) for i in flying)


def test_the_environment_in_space_observes_the_tilt_and_pays_for_a_level_axle():
    pytest.importorskip("gymnasium")
    from diabolo.gym import DiaboloEnv

    env = DiaboloEnv(task="level", space=True, episode_seconds=1.0)
    assert env.action_space.shape == (6,) and env.observation_space.shape == (20,)
    obs, _ = env.reset(seed=0)
    assert abs(obs[18]) < 0.01
    total = 0.0
    # The right hand pushes toward the audience: the axle tilts, the reward falls below 1.
    push = np.array([0, 0, 0, 0, 0, 0.3], dtype=np.float32)
    for _ in range(40):
        obs, reward, terminated, truncated, info = env.step(push)
        total += reward
        if terminated or truncated:
            break
    assert abs(obs[18]) > 0.001, obs
    assert reward < 1.0
