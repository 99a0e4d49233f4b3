"""diabolo.Batch and diabolo.gym.DiaboloVectorEnv (docs/batch.md): a batch member is the same
simulation stepped alone, bit for bit, whatever the threads; bad member parameters are named;
a failing member stops alone; the vector environment is N single environments, bit for bit,
with next-step autoreset and per-member seeds, made by gymnasium.make_vec."""

from __future__ import annotations

import numpy as np
import pytest

import diabolo
from diabolo.batch import FAILED, RUNNING


def gym_scenario() -> dict:
    from diabolo.gym import default_scenario

    return default_scenario(10.0)


FRICTIONS = [0.1, 0.2, 0.3, 0.45]


def alone(friction: float) -> diabolo.Simulation:
    return diabolo.Simulation(gym_scenario(), {"params.friction": friction})


def same(a, b) -> bool:
    """Equal bit for bit: arrays and numbers (NaN equal to NaN), strings and lists."""
    a, b = np.asarray(a), np.asarray(b)
    return np.array_equal(a, b, equal_nan=a.dtype.kind == "f" and b.dtype.kind == "f")


def test_a_batch_member_is_the_simulation_stepped_alone_bit_for_bit_whatever_the_threads():
    rng = np.random.default_rng(7)
    accels = rng.uniform(-8.0, 8.0, size=(40, len(FRICTIONS), 2, 2))
    finals = []
    for jobs in (1, 2):
        batch = diabolo.Batch(gym_scenario(), params={"params.friction": FRICTIONS}, jobs=jobs)
        assert len(batch) == 4 and batch.observation_size == 13
        history = [batch.step(0.01, accel) for accel in accels]
        assert all((out.status == RUNNING).all() for out in history)
        finals.append((history, [batch.simulation(i).state for i in range(len(FRICTIONS))]))
    # The same numbers on one thread and on two.
    for one, two in zip(finals[0][0], finals[1][0]):
        for a, b in zip(one, two):
            assert same(a, b)
    history, states = finals[0]
    for i, friction in enumerate(FRICTIONS):
        sim = alone(friction)
        for k, accel in enumerate(accels):
            sim.set_hands(accel=(accel[i, 0], accel[i, 1]))
            sim.step(0.01)
            state = sim.state
            out = history[k]
            assert out.t[i] == state["t"]
            assert out.x[i] == state["positions"][0][0] and out.y[i] == state["positions"][0][1]
            assert out.spin[i] == state["spins"][0]
            relative = (state["positions"][0] - state["stick_positions"][0]).astype(np.float32)
            assert np.array_equal(out.observations[i, 0:2], relative)
        # The whole state at the end, every array.
        for key, value in state.items():
            assert same(states[i][key], value), key
    # Frictions differ, so do the members.
    assert len({float(x) for x in history[-1].x}) == len(FRICTIONS)


def test_a_target_input_is_set_hands_path_target_bit_for_bit():
    targets = np.array([[[-0.45, 1.4], [0.35, 1.6]], [[-0.3, 1.5], [0.5, 1.45]]])
    batch = diabolo.Batch(gym_scenario(), 2, jobs=2)
    for _ in range(20):
        out = batch.step(0.01, target=targets)
    for i in range(2):
        sim = diabolo.Simulation(gym_scenario())
        for _ in range(20):
            sim.set_hands(path_target=(targets[i, 0], targets[i, 1]))
            sim.step(0.01)
        assert out.x[i] == sim.state["positions"][0][0]
        assert np.array_equal(batch.simulation(i).state["stick_positions"], sim.state["stick_positions"])


@pytest.mark.parametrize(
    "params, n, words",
    [
        ({"params.friction": [0.1, -1.0, 0.3]}, None, ["member 1", "params.friction", "-1", "from 0 to 5"]),
        ({"params.frction": [0.1, 0.2]}, None, ["member 0", "params.frction"]),
        ({"params.friction": [0.1, 0.2]}, 3, ["params.friction", "2 values for 3 members"]),
        ({"params.friction": 0.1}, None, ["params.friction", "one value per member", "overrides="]),
        ({}, None, ["give n"]),
    ],
)
def test_bad_member_parameters_raise_value_error_naming_member_field_and_value(params, n, words):
    with pytest.raises(ValueError) as error:
        diabolo.Batch(gym_scenario(), n, params=params)
    assert isinstance(error.value, diabolo.InvalidScenario)
    for word in words:
        assert word in str(error.value), (word, str(error.value))


def test_bad_inputs_are_named_with_their_value_and_the_fix():
    batch = diabolo.Batch(gym_scenario(), 2)
    with pytest.raises(ValueError, match=r"accel: 4 numbers for 2 members; give 2 x 2 hands x 2"):
        batch.step(0.01, np.zeros((1, 2, 2)))
    with pytest.raises(ValueError, match=r"accel\[1, 0, 1\] = NaN: give finite numbers"):
        batch.step(0.01, np.array([[[0, 0], [0, 0]], [[0, np.nan], [0, 0]]]))
    with pytest.raises(ValueError, match="dt must be a finite number"):
        batch.step(-1.0)
    with pytest.raises(ValueError, match="5 is no member"):
        batch.reset([5])
    with pytest.raises(ValueError, match=r"member -1: the batch has members 0..1"):
        batch.failure(-1)
    with pytest.raises(ValueError, match="give 1 to 100000"):
        diabolo.Batch(gym_scenario(), 10**7)
    with pytest.raises(ValueError, match="at most one of accel=, force="):
        batch.step(0.01, np.zeros((2, 2, 2)), force=np.zeros((2, 2, 2)))


def test_a_failing_member_stops_alone_with_its_message_and_the_others_go_on():
    batch = diabolo.Batch(gym_scenario(), params={"params.friction": [0.1, 0.2, 0.3]})
    apart = np.zeros((3, 2, 2))
    apart[1] = [[-300.0, 0.0], [300.0, 0.0]]  # the hands torn apart: they pull the string straight
    for _ in range(10):
        out = batch.step(0.01, apart)
    assert out.status.tolist() == [RUNNING, FAILED, RUNNING]
    assert out.t[0] == out.t[2] == pytest.approx(0.1)
    message = batch.failure(1)
    assert message is not None and "pull the string straight" in message, message
    assert batch.failure(0) is None and batch.events(1)[-1]["kind"] == "failure"
    before = out.observations[1].copy()
    out = batch.step(0.01, np.zeros((3, 2, 2)))
    assert out.status[1] == FAILED and np.array_equal(out.observations[1], before)
    # Started over, it runs again.
    out = batch.reset([1])
    assert out.status.tolist() == [RUNNING] * 3 and out.t[1] == 0.0 and out.t[0] > 0.1


def test_reset_starts_chosen_members_over_and_leaves_the_others():
    batch = diabolo.Batch(gym_scenario(), 3)
    first = batch.observe()
    for _ in range(5):
        batch.step(0.01, np.full((3, 2, 2), 2.0))
    moved = batch.observe()
    out = batch.reset(np.array([True, False, True]))
    assert out.t.tolist() == [0.0, pytest.approx(0.05), 0.0]
    assert np.array_equal(out.observations[0], first.observations[0])
    assert np.array_equal(out.observations[1], moved.observations[1])
    # Stepping only member 1.
    out = batch.step(0.01, np.zeros((1, 2, 2)), members=[1])
    assert out.t.tolist() == [0.0, pytest.approx(0.06), 0.0]


def test_the_vector_env_plays_what_sync_vector_env_of_single_envs_plays_bit_for_bit():
    gym = pytest.importorskip("gymnasium")
    from diabolo.gym import DiaboloEnv, DiaboloVectorEnv

    n = 3
    kwargs = {"task": "hold", "episode_seconds": 0.3}
    vector = DiaboloVectorEnv(num_envs=n, jobs=2, **kwargs)
    sync = gym.vector.SyncVectorEnv([lambda: DiaboloEnv(**kwargs) for _ in range(n)])
    assert sync.metadata["autoreset_mode"] == vector.metadata["autoreset_mode"]
    assert vector.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    obs_v, _ = vector.reset(seed=11)
    obs_s, _ = sync.reset(seed=11)
    assert np.array_equal(obs_v, obs_s)
    rng = np.random.default_rng(3)
    ends = 0
    ended = np.zeros(n, dtype=bool)
    for _ in range(120):
        actions = rng.uniform(-1, 1, size=(n, 4)).astype(np.float32)
        got = vector.step(actions)
        want = sync.step(actions)
        for a, b in zip(got[:4], want[:4]):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        assert vector.observation_space.contains(got[0])
        # Next-step autoreset: a member that ended is reset by this step, with no reward.
        assert (got[1][ended] == 0).all() and not got[2][ended].any() and not got[3][ended].any()
        ended = got[2] | got[3]
        ends += int(ended.sum())
    assert ends >= n  # episodes ended (0.3 s each) and were started over
    # Seeds per member: member i of reset(seed=s) is a single environment reset with s + i.
    single = DiaboloEnv(**kwargs)
    obs_v, _ = vector.reset(seed=[4, 5, 6])
    assert np.array_equal(obs_v[1], single.reset(seed=5)[0])
    assert np.array_equal(vector.reset(seed=4)[0], obs_v)


def test_make_vec_returns_the_vector_env_its_spaces_hold_what_it_returns_and_seeds_repeat_it():
    gym = pytest.importorskip("gymnasium")
    from diabolo.gym import DiaboloEnv, DiaboloVectorEnv

    env = gym.make_vec("Diabolo-v0", num_envs=4, vectorization_mode="vector_entry_point", task="spin_up")
    assert isinstance(env.unwrapped, DiaboloVectorEnv) and env.num_envs == 4
    assert env.single_observation_space.shape == (13,) and env.observation_space.shape == (4, 13)
    assert env.single_action_space.shape == (4,) and env.action_space.shape == (4, 4)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and info == {}
    env.action_space.seed(0)
    for _ in range(10):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert obs.shape == (4, 13) and obs.dtype == np.float32
        assert reward.shape == (4,) and reward.dtype == np.float64 and np.isfinite(reward).all()
        assert terminated.dtype == bool and truncated.dtype == bool
        assert env.observation_space.contains(obs)
    assert isinstance(gym.make_vec("diabolo.gym:Diabolo-v0", num_envs=2), DiaboloVectorEnv)
    # The single environment keeps its registration under the same id.
    assert isinstance(gym.make("Diabolo-v0").unwrapped, DiaboloEnv)
    env.close()
    # The same seeds and actions, the same episodes, on one thread or two.
    runs = []
    for jobs in (1, 2):
        env = DiaboloVectorEnv(num_envs=3, task="toss", episode_seconds=0.2, jobs=jobs)
        env.action_space.seed(1)
        steps = [env.reset(seed=9)[0]]
        steps += [env.step(env.action_space.sample())[:4] for _ in range(40)]
        runs.append(steps)
    for a, b in zip(*runs):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
    space = DiaboloVectorEnv(num_envs=2, task="level", space=True)
    obs, _ = space.reset(seed=1)
    assert obs.shape == (2, 20) and space.single_action_space.shape == (6,)


def test_a_batch_member_in_space_is_the_simulation_stepped_alone_bit_for_bit():
    from diabolo.gym import default_space_scenario

    scenario = default_space_scenario(10.0)
    rng = np.random.default_rng(5)
    accels = rng.uniform(-2.0, 2.0, size=(25, 2, 2, 3))
    batch = diabolo.Batch(scenario, params={"params.spin_inertia": [20, 40]}, jobs=2)
    assert batch.space and batch.observation_size == 20
    for accel in accels:
        out = batch.step(0.01, accel)
    assert (out.status == RUNNING).all()
    for i, inertia in enumerate([20, 40]):
        sim = diabolo.Simulation(scenario, {"params.spin_inertia": inertia})
        for accel in accels:
            sim.set_hand("left", accel=tuple(accel[i, 0]))
            sim.set_hand("right", accel=tuple(accel[i, 1]))
            sim.step(0.01)
        state = sim.state
        assert out.tilt[i] == state["tilts"][0] and out.spin[i] == state["spins"][0]
        assert np.array_equal(out.observations[i, 18], np.float32(np.radians(state["tilts"][0])))
        for key, value in state.items():
            assert same(batch.simulation(i).state[key], value), key


def test_stepping_releases_the_interpreter_on_one_thread_too():
    import threading
    import time

    # 256 members: each step holds about a millisecond of work, whatever the core's speed.
    batch = diabolo.Batch(gym_scenario(), 256, jobs=1)
    hands = np.full((256, 2, 2), 0.5)
    done = threading.Event()

    def work():
        for _ in range(100):
            batch.step(0.01, hands)
        done.set()

    thread = threading.Thread(target=work)
    thread.start()
    counted = 0
    while not done.is_set():
        counted += 1
        time.sleep(0)
    thread.join()
    # With the interpreter held through each step this thread would count about once a step.
    assert counted > 300, counted
