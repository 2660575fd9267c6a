"""The Gymnasium envs: one battery over every registered gaitsim id and every action mode.

Battery: Gymnasium's and SB3's check_env, equal rollouts from equal
seeds (fresh envs and a reused one), reward terms that sum to the reward, no NaN and no
observation outside its space under random actions, independent envs in one process,
close() twice, bounded memory over many resets, AsyncVectorEnv. Then the API: presets as
keyword variants, randomization, action modes, rendering, errors, and one physical
outcome (the fox walks at its commanded speed on the gait prior).
"""

import os
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gaitsim.envs.actions import ACTION_MODES
from gaitsim.envs.rewards import TERMS, RewardWeights
from gymnasium.utils.env_checker import check_env, data_equivalence

import gaitsim
from gaitsim.sim.world import DisplayError

IDS = sorted(k for k in gym.registry if k.startswith("gaitsim/"))
BATTERY_STEPS = 200  # TimeLimit of the battery's envs: keeps rough ground small and fast
ENTRY_POINT = "gaitsim.envs.walk:WalkEnv"


def make(env_id, mode="prior", **kw):
    kw.setdefault("max_episode_steps", BATTERY_STEPS)
    kw.setdefault("cover_steps", kw["max_episode_steps"])  # rough ground for that long only
    return gym.make(env_id, action_mode=mode, **kw)


@pytest.fixture
def headless(monkeypatch):
    """No display, whatever the developer's session has: "human" is then unavailable."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


def rollout(env, seed, steps=BATTERY_STEPS):
    """Reset with ``seed`` and step seeded random actions, resetting (unseeded) on episode
    ends; returns everything returned."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out = [(obs, info)]
    shape = env.action_space.shape
    for _ in range(steps):
        a = rng.uniform(-1.0, 1.0, shape).astype(np.float32)
        step = env.step(a)
        out.append(step)
        if step[2] or step[3]:
            out.append(env.reset())
    return out


# ---------------------------------------------------------------------------- registration


def test_ids_are_registered():
    assert IDS == ["gaitsim/Rough-v0", "gaitsim/Slope-v0", "gaitsim/Turn-v0", "gaitsim/Walk-v0"]


def test_import_gaitsim_registers_the_ids_without_importing_pybullet():
    code = (
        "import sys, gaitsim, gymnasium as gym;"
        "ids = sorted(k for k in gym.registry if k.startswith('gaitsim/'));"
        "print(len(ids), 'pybullet' in sys.modules, 'gaitsim.envs' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["4", "False", "False"], out.stdout + out.stderr


def test_make_with_the_module_prefix_imports_gaitsim_itself():
    code = (
        "import gymnasium as gym;"
        "env = gym.make('gaitsim:gaitsim/Walk-v0', walker='fox');"
        "obs, _ = env.reset(seed=0); obs, *_ = env.step(env.action_space.sample());"
        "print(type(env.unwrapped).__name__, obs.shape); env.close()"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # the fox's 48 leg-and-body values and its head's 3 joint positions and 3 velocities
    assert out.stdout.split()[-2:] == ["WalkEnv", "(54,)"], out.stdout + out.stderr


def test_presets_are_keyword_variants_of_one_class():
    for env_id in IDS:
        spec = gym.spec(env_id)
        assert spec.entry_point == ENTRY_POINT
        assert spec.max_episode_steps == gaitsim.ENV_EPISODE_STEPS == 1000
        assert spec.kwargs == gaitsim.ENV_PRESETS[env_id]
    assert gym.spec("gaitsim/Slope-v0").kwargs == {"slope_deg": 10.0}
    assert gym.spec("gaitsim/Rough-v0").kwargs == {"terrain": "rough", "roughness": 0.02}
    assert gym.spec("gaitsim/Turn-v0").kwargs == {"turn": 1.0}


def test_the_registered_time_limit_truncates_a_walk_after_1000_steps():
    env = gym.make("gaitsim/Walk-v0")
    env.reset(seed=0)
    for k in range(1, 1001):
        _, _, terminated, truncated, info = env.step(np.zeros(0, np.float32))
        assert not terminated, (k, info["fall"])
        if truncated:
            break
    assert k == 1000 and truncated
    assert info["t"] == pytest.approx(1000 / 60)
    env.close()


# ---------------------------------------------------------------------------- the battery

BATTERY = [(env_id, mode) for env_id in IDS for mode in ACTION_MODES]


@pytest.mark.parametrize(("env_id", "mode"), BATTERY)
def test_gymnasium_check_env_passes_without_warnings(env_id, mode, headless):
    env = make(env_id, mode)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)  # the raw env, as check_env recommends
    env.close()
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize(("env_id", "mode"), BATTERY)
def test_sb3_check_env_passes(env_id, mode):
    pytest.importorskip("stable_baselines3", reason="rl extra not installed")
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = make(env_id, mode)
    sb3_check_env(env.unwrapped, warn=True)
    env.close()


@pytest.mark.parametrize(("env_id", "mode"), BATTERY)
def test_equal_seeds_give_identical_rollouts_and_rewards_sum_their_terms(env_id, mode):
    a, b = make(env_id, mode), make(env_id, mode)
    ra = rollout(a, seed=7)
    rb = rollout(b, seed=7)
    again = rollout(a, seed=7)  # the same env, its world reused: as good as new
    assert len(ra) == len(rb) == len(again)
    for x, y, z in zip(ra, rb, again, strict=True):
        assert data_equivalence(x, y, exact=True)
        assert data_equivalence(x, z, exact=True)
    for step in ra:
        if len(step) == 5:
            _, reward, _, _, info = step
            parts = [info[f"reward_{t}"] for t in TERMS]
            assert reward == pytest.approx(sum(parts), abs=1e-12)
            assert np.isfinite(reward)
    a.close()
    b.close()


def random_steps(env_id, mode, n):
    env = make(env_id, mode)
    space = env.observation_space
    env.action_space.seed(1)
    obs, _ = env.reset(seed=1)
    episodes = 1
    for _ in range(n):
        obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        assert np.all(np.isfinite(obs)) and np.isfinite(reward), (obs, reward)
        assert space.contains(obs), obs[(obs < space.low) | (obs > space.high)]
        if terminated or truncated:
            obs, _ = env.reset()
            assert space.contains(obs)
            episodes += 1
    env.close()
    return episodes


@pytest.mark.parametrize(("env_id", "mode"), BATTERY)
def test_random_actions_stay_finite_and_inside_the_space(env_id, mode):
    random_steps(env_id, mode, 300)


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "mode"), BATTERY)
def test_10000_random_action_steps_stay_finite_and_inside_the_space(env_id, mode):
    assert random_steps(env_id, mode, 10_000) >= 10_000 // BATTERY_STEPS


@pytest.mark.parametrize("env_id", IDS)
def test_two_envs_in_one_process_do_not_interfere(env_id):
    mode = "residual"
    alone = make(env_id, mode)
    ref = rollout(alone, seed=3, steps=60)
    alone.close()
    a, b = make(env_id, mode), make(env_id, mode)
    rng = np.random.default_rng(3)
    out_a = [a.reset(seed=3)]
    out_b = [b.reset(seed=3)]
    for _ in range(60):  # interleaved: a, b, a, b, ...
        act = rng.uniform(-1.0, 1.0, a.action_space.shape).astype(np.float32)
        for env, out in ((a, out_a), (b, out_b)):
            step = env.step(act)
            out.append(step)
            if step[2] or step[3]:
                out.append(env.reset())
    assert data_equivalence(out_a, ref, exact=True)
    assert data_equivalence(out_b, ref, exact=True)
    a.close()
    b.close()


@pytest.mark.parametrize("env_id", IDS)
def test_close_twice_is_fine_and_releases_the_client(env_id):
    env = make(env_id)
    env.reset(seed=0)
    world = env.unwrapped.world
    env.close()
    assert world.closed and env.unwrapped.world is None
    env.close()
    env.unwrapped.close()


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


# Rough ground is rebuilt at every reset until World turns on deterministic overlapping
# pairs (see envs/arena.py): 1000 rebuilds take minutes, so that case runs with the slow tests
RESET_IDS = [pytest.param(i, marks=pytest.mark.slow) if "Rough" in i else i for i in IDS]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
@pytest.mark.parametrize("env_id", RESET_IDS)
def test_1000_resets_grow_memory_by_less_than_20_mb(env_id):
    env = make(env_id, "residual", max_episode_steps=50)
    for k in range(50):  # warm up: allocator pools, the URDF cache, first episodes
        env.reset(seed=k)
        env.step(env.action_space.sample())
    before = _rss_mb()
    for k in range(1000):
        env.reset(seed=k)
        env.step(env.action_space.sample())
    grown = _rss_mb() - before
    env.close()
    assert grown < 20.0, f"{grown:.1f} MB"


@pytest.mark.parametrize(("env_id", "mode"), [(i, "residual") for i in IDS] + [(IDS[-1], "prior")])
def test_async_vector_env_with_two_workers(env_id, mode):
    from functools import partial

    fn = partial(
        gym.make,
        env_id,
        action_mode=mode,
        max_episode_steps=BATTERY_STEPS,
        cover_steps=BATTERY_STEPS,
    )
    venv = gym.vector.AsyncVectorEnv([fn, fn])
    try:
        obs, _ = venv.reset(seed=[0, 1])
        assert obs.shape == (2, *venv.single_observation_space.shape)
        for _ in range(10):
            obs, reward, _, _, info = venv.step(venv.action_space.sample())
        assert obs.shape[0] == reward.shape[0] == 2
        assert np.all(np.isfinite(obs)) and np.all(np.isfinite(reward))
        assert "reward_progress" in info and info["distance"].shape == (2,)
    finally:
        venv.close()


# ---------------------------------------------------------------------------- the walk itself


def test_fox_walks_at_its_commanded_speed_on_the_gait_prior():
    env = gym.make("gaitsim/Walk-v0", walker="fox")
    _, info = env.reset(seed=0)
    speed = info["commanded_speed"]
    for _ in range(300):  # 5 s
        _, _, terminated, truncated, info = env.step(np.zeros(0, np.float32))
        assert not (terminated or truncated), info["fall"]
    assert info["t"] == pytest.approx(5.0)
    assert abs(info["speed"] / speed - 1.0) < 0.15, (info["speed"], speed)
    assert info["distance"] > 0.85 * speed * 5.0
    assert info["tilt_deg"] < 20.0
    assert info["shortfall_m"] < 0.01
    env.close()


def test_a_catalog_entry_walks_as_well_as_a_name(catalog):
    env = make("gaitsim/Walk-v0", walker=catalog["hound"])
    obs, _ = env.reset(seed=0)
    assert obs.shape == (54,) and env.unwrapped.entry.name == "hound"  # 48 + its head's 6
    for _ in range(30):
        _, _, terminated, _, _ = env.step(None)
        assert not terminated
    env.close()


def test_observation_layout_at_the_start():
    env = gym.make("gaitsim/Turn-v0")
    u = env.unwrapped
    obs, info = env.reset(seed=0)
    lay = u.observation_layout
    L, U = u.n_legs, len(u.body.upper_joint_names)  # the fox: 4 legs, a head of 3 joints
    assert obs.shape == (12 + 9 * L + 2 * U,) and obs.dtype == np.float32
    assert [s.stop - s.start for s in lay.values()] == [3, 3, 3, 1, 3 * L, 3 * L, L, L, L,
                                                        U, U, 2]  # fmt: skip
    np.testing.assert_allclose(obs[lay["gravity_body"]], [0.0, 0.0, -1.0], atol=0.02)
    assert obs[lay["height"]][0] == pytest.approx(u.standing_height, rel=0.1)
    np.testing.assert_allclose(np.hypot(obs[lay["phase_sin"]], obs[lay["phase_cos"]]), 1.0, 1e-6)
    assert set(np.unique(obs[lay["contact"]])) <= {0.0, 1.0}
    speed, yaw = obs[lay["command"]]
    assert speed == pytest.approx(0.375) and yaw == pytest.approx(0.375 / 1.0)  # Turn: r = 1 m
    assert info["params"] == {"speed_scale": 1.0, "start_phase": 0.0, "turn": 1.0, "friction": 1.0}
    env.close()


def test_modulate_and_joint_actions_reach_the_controller():
    env = make("gaitsim/Walk-v0", "modulate", max_yaw_rate_deg=30.0)
    env.reset(seed=0)
    env.step(np.array([1.0, -1.0, 0.5], np.float32))
    ctl = env.unwrapped.controller
    assert (ctl.speed_scale, ctl.lift_scale) == (1.5, 0.5)
    assert ctl.yaw_rate == pytest.approx(np.radians(15.0))
    env.step(np.array([5.0, -5.0, 0.0], np.float32))  # clipped to [-1, 1]
    assert (ctl.speed_scale, ctl.lift_scale) == (1.5, 0.5)
    env.close()
    env = make("gaitsim/Walk-v0", "joint")
    env.reset(seed=0)
    n = env.action_space.shape[0]
    robot = env.unwrapped.robot
    env.step(-np.ones(n, np.float32))
    np.testing.assert_allclose(env.unwrapped.controller.q_command, robot.lower.ravel())
    env.step(np.ones(n, np.float32))
    np.testing.assert_allclose(env.unwrapped.controller.q_command, robot.upper.ravel())
    env.close()


def test_residual_actions_offset_the_gait_targets():
    prior, residual = make("gaitsim/Walk-v0", "prior"), make("gaitsim/Walk-v0", "residual")
    prior.reset(seed=0)
    residual.reset(seed=0)
    a = np.linspace(-1.0, 1.0, residual.action_space.shape[0]).astype(np.float32)
    prior.step(np.zeros(0, np.float32))
    _, _, _, _, info = residual.step(a)
    q0 = np.array(prior.unwrapped.controller.q_command)
    q1 = np.array(residual.unwrapped.controller.q_command)
    np.testing.assert_allclose(q1 - q0, 0.25 * a, atol=1e-6)
    assert info["reward_action_rate"] == pytest.approx(-0.01 * float(np.sum(a.astype(float) ** 2)))
    prior.close()
    residual.close()


def test_prior_mode_has_a_zero_sized_action_space():
    env = make("gaitsim/Walk-v0")
    assert env.action_space.shape == (0,) and env.action_space.dtype == np.float32
    env.reset(seed=0)
    env.step(env.action_space.sample())
    env.step(None)  # no action at all is accepted too
    with pytest.raises(ValueError, match=r"shape \(0,\)"):
        env.step(np.zeros(3, np.float32))
    env.close()


# ---------------------------------------------------------------------------- randomization

RANDOMIZED = [
    ("gaitsim/Walk-v0", {"speed_scale": (0.8, 1.2)}, "speed_scale"),
    ("gaitsim/Walk-v0", {"start_phase": (0.0, 1.0)}, "start_phase"),
    ("gaitsim/Walk-v0", {"friction": (0.6, 1.2)}, "friction"),
    ("gaitsim/Walk-v0", {"turn": (0.8, 2.0)}, "turn"),
    ("gaitsim/Walk-v0", {"yaw_rate_deg": (-20.0, 20.0)}, "yaw_rate_deg"),
    ("gaitsim/Slope-v0", {"slope_deg": (-8.0, 8.0)}, "slope_deg"),
    ("gaitsim/Slope-v0", {"uphill_heading_deg": (-90.0, 90.0)}, "uphill_heading_deg"),
    ("gaitsim/Rough-v0", {"roughness": (0.01, 0.03)}, "roughness"),
]


@pytest.mark.parametrize(("env_id", "kw", "name"), RANDOMIZED)
def test_different_seeds_draw_different_episodes(env_id, kw, name):
    env = make(env_id, "residual", **kw)
    lo, hi = kw[name]
    seen, first = [], None
    for seed in (1, 2, 3):
        obs, info = env.reset(seed=seed)
        assert lo <= info["params"][name] <= hi
        seen.append(info["params"][name])
        if first is None:
            first = obs, env.step(np.full(env.action_space.shape, 0.1, np.float32))
    assert len(set(seen)) == 3
    obs, _ = env.reset(seed=1)
    step = env.step(np.full(env.action_space.shape, 0.1, np.float32))
    assert data_equivalence((obs, step), first, exact=True)
    env.close()


def test_speed_scale_range_changes_the_initial_state():
    env = make("gaitsim/Walk-v0", speed_scale=(0.8, 1.2))
    o1, _ = env.reset(seed=1)
    o2, _ = env.reset(seed=2)
    joints = env.unwrapped.observation_layout["joint_position"]
    assert not np.array_equal(o1[joints], o2[joints])  # the stride, hence the pose, differs
    assert o1[-2] != o2[-2]  # the commanded speed
    env.close()


def test_reset_options_override_the_draw():
    env = make("gaitsim/Walk-v0", speed_scale=(0.8, 1.2))
    _, info = env.reset(seed=0, options={"speed_scale": 1.1})
    assert info["params"]["speed_scale"] == 1.1 and info["commanded_speed"] == pytest.approx(0.4125)
    with pytest.raises(ValueError, match="unknown key"):
        env.reset(options={"gravity": 1.0})
    with pytest.raises(ValueError, match="slope_deg does not apply"):
        env.reset(options={"slope_deg": 5.0})
    with pytest.raises(ValueError, match="exceeds the observation bound"):
        env.reset(options={"speed_scale": 3.0})
    env.close()


def test_the_world_is_reused_while_the_ground_is_unchanged():
    env = make("gaitsim/Walk-v0", speed_scale=(0.8, 1.2))
    for seed in range(3):
        env.reset(seed=seed)
    assert env.unwrapped.arena.builds == 1
    env.close()
    env = make("gaitsim/Walk-v0", friction=(0.8, 1.2))  # a new friction is set, not rebuilt
    for seed in range(3):
        _, info = env.reset(seed=seed)
        assert env.unwrapped.arena.world.friction == info["params"]["friction"]
    assert env.unwrapped.arena.builds == 1
    env.close()


def test_a_repeated_command_reuses_its_reference_table():
    """The reference body is tabulated once per command and kept (the last TABLE_CACHE
    commands): an episode with the same command and ground reuses it; rollouts are the
    same either way (the battery compares a reused env with a fresh one)."""
    from gaitsim.envs.walk import TABLE_CACHE

    env = make("gaitsim/Walk-v0", speed_scale=(0.8, 1.2)).unwrapped
    env.reset(seed=0)
    first = env.controller.table
    for _ in range(50):
        env.step(np.zeros(0, np.float32))
    env.reset(seed=0)
    assert env.controller.table is first
    env.reset(seed=1)  # another speed: another table
    assert env.controller.table is not first and env.controller.table.key != first.key
    env.reset(seed=0)
    assert env.controller.table is first
    for seed in range(1, 2 + TABLE_CACHE):
        env.reset(seed=seed)
    assert len(env._tables) == TABLE_CACHE
    env.reset(seed=0)
    assert env.controller.table is not first  # evicted, tabulated again
    env.close()
    assert not env._tables


def test_a_controller_refuses_a_table_of_another_walker():
    from gaitsim.sim.controller import GaitController, ReferenceTable
    from gaitsim.sim.robot import Robot
    from gaitsim.sim.world import World

    with World() as world:
        robot = Robot(world, "fox")
        table = ReferenceTable(gaitsim.Walker("fox", speed_scale=1.1))
        with pytest.raises(ValueError, match="another walker"):
            GaitController(world, robot, gaitsim.Walker("fox"), table=table)
        ctl = GaitController(world, robot, gaitsim.Walker("fox", speed_scale=1.1), table=table)
        assert ctl.table is table


def test_rough_ground_covers_the_whole_episode_path():
    env = gym.make("gaitsim/Rough-v0", turn=(1.0, 3.0), cover_steps=600)
    env.reset(seed=0)
    u = env.unwrapped
    rough = u.arena.terrain
    horizon = u.task.speed_max() * 600 / 60  # 600 steps at 60 Hz
    ox, oy = rough.origin
    side = (rough.n - 1) * rough.cell
    for r in (1.0, 2.0, 3.0):
        s = np.linspace(0.0, horizon, 100)
        xy, _ = gaitsim.Arc(r).pose(s)
        assert np.all(xy >= (ox, oy)) and np.all(xy <= (ox + side, oy + side)), r
    assert rough.cell == 0.04 and rough.amplitude == 0.02
    env.close()


# ---------------------------------------------------------------------------- rendering


@pytest.mark.parametrize("env_id", ["gaitsim/Walk-v0", "gaitsim/Rough-v0"])
def test_rgb_array_renders_headless_frames(env_id, headless):
    env = make(env_id, render_mode="rgb_array", render_size=(96, 64))
    assert env.unwrapped.metadata["render_modes"] == ["rgb_array"]
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (64, 96, 3) and frame.dtype == np.uint8
    assert frame.std() > 5  # a scene, not a blank image
    env.step(env.action_space.sample())
    env.reset(seed=1)  # the camera follows the robot of the new episode
    assert env.render().shape == (64, 96, 3)
    env.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="display check is for X/Wayland")
def test_human_mode_without_a_display_raises_at_construction(headless):
    with pytest.raises(DisplayError, match="no display"):
        gym.make("gaitsim/Walk-v0", render_mode="human")


# ---------------------------------------------------------------------------- input errors

BAD = [
    ({"action_mode": "torque"}, "action_mode must be one of"),
    ({"terrain": "ice"}, "terrain must be one of"),
    ({"terrain": "flat", "slope_deg": 5.0}, "slope_deg applies only to terrain='slope'"),
    ({"slope_deg": 5.0, "roughness": 0.01}, "give one"),
    ({"speed_scale": (1.2, 0.8)}, r"speed_scale: range low must be <= high"),
    ({"speed_scale": -1.0}, r"speed_scale: must be > 0"),
    ({"friction": (0.5, 1.0, 2.0)}, r"friction: a range must be \(low, high\)"),
    ({"turn": (-1.0, 1.0)}, "must not include 0"),
    ({"turn": 1.0, "yaw_rate_deg": 10.0}, "either turn or yaw_rate_deg"),
    ({"start_phase": 1.5}, r"start_phase: must lie in \[0, 1\]"),
    ({"control_hz": 70.0}, "must divide the sim rate"),
    ({"body": "floating"}, "body must be one of"),
    ({"reward_weights": {"speed": 1.0}}, "unknown term"),
    ({"reward_weights": {"slip": -1.0}}, r"reward_weights.slip: must be a number >= 0"),
    ({"render_mode": "ascii"}, "render_mode must be"),
    ({"cover_steps": 0}, "cover_steps must be a positive"),
]


@pytest.mark.parametrize(("kw", "message"), BAD)
def test_bad_parameters_are_named(kw, message):
    with warnings.catch_warnings():
        # gymnasium.make itself warns first about a render mode outside the metadata
        warnings.filterwarnings("ignore", message=".*not in the possible render_modes")
        with pytest.raises(ValueError, match=message):
            gym.make("gaitsim/Walk-v0", **kw)


def test_bad_actions_are_rejected_and_steps_need_a_reset():
    env = gym.make("gaitsim/Walk-v0", action_mode="residual", disable_env_checker=True)
    with pytest.raises(gym.error.ResetNeeded):
        env.unwrapped.step(np.zeros(12, np.float32))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="finite"):
        env.step(np.full(12, np.nan, np.float32))
    with pytest.raises(ValueError, match=r"shape \(12,\)"):
        env.step(np.zeros(3, np.float32))
    env.close()


def test_overspeed_weight_one_caps_progress_at_the_command():
    """A modulate policy at full gait rate outruns its command: with overspeed weighted 1,
    progress + overspeed is min(progress ratio, 1) each step; by default it is 0."""
    fast = np.array([1.0, 0.0, 0.0], np.float32)  # gait rate 1.5x, normal lift, no steering
    capped = make("gaitsim/Walk-v0", "modulate", reward_weights={"overspeed": 1.0})
    plain = make("gaitsim/Walk-v0", "modulate")
    capped.reset(seed=0)
    plain.reset(seed=0)
    above = 0
    for _ in range(120):
        *_, info = capped.step(fast)
        *_, info0 = plain.step(fast)
        ratio = info0["reward_progress"]  # progress weight 1: the ratio itself
        assert info["reward_progress"] == ratio  # the same walk
        got = info["reward_progress"] + info["reward_overspeed"]
        assert got == pytest.approx(min(ratio, 1.0), abs=1e-12)
        assert info0["reward_overspeed"] == 0.0
        above += ratio > 1.0
    assert above > 30, "the fast gait should outrun the command on many steps"
    capped.close()
    plain.close()


def test_reward_weights_are_frozen_and_scale_their_terms():
    w = RewardWeights(slip=0.0, alive=2.0)
    with pytest.raises(AttributeError):
        w.slip = 1.0  # type: ignore[misc]
    env = make("gaitsim/Walk-v0", reward_weights=w)
    env.reset(seed=0)
    _, reward, _, _, info = env.step(None)
    assert info["reward_slip"] == 0.0 and info["reward_alive"] == 2.0
    assert reward == pytest.approx(sum(info[f"reward_{t}"] for t in TERMS))
    env.close()
