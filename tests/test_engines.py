"""The two physics engines behind one interface: choosing one, the MuJoCo world and robot
against the PyBullet ones (ground, kinematics, the position motor's law), walking on both,
the env and the CLI on MuJoCo. CI installs the mujoco extra, so these run there."""

from __future__ import annotations

import importlib.util
import json
import math

import numpy as np
import pytest

from gaitsim.sim.engine import ENGINES, EngineError, check_engine, load_robot, make_world
from gaitsim.terrain import Flat, Rough, Slope

mujoco = pytest.importorskip("mujoco")  # the extra; CI installs it (gaitsim[mujoco])

# ---------------------------------------------------------------------------- choosing one


def test_an_unknown_engine_is_refused_with_the_choices():
    with pytest.raises(EngineError, match="pybullet, mujoco"):
        check_engine("bullet")
    assert ENGINES == ("pybullet", "mujoco")


def test_a_missing_mujoco_says_how_to_install_it(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mujoco" else real(name, *a)
    )
    with pytest.raises(EngineError, match=r"pip install 'gaitsim\[mujoco\]'"):
        check_engine("mujoco")
    from gaitsim.cli import main

    assert main(["walk", "fox", "--engine", "mujoco", "--seconds", "1"]) == 2
    err = capsys.readouterr().err
    assert "--engine mujoco" in err and "gaitsim[mujoco]" in err and "Traceback" not in err


def test_the_gui_is_pybullets(capsys):
    from gaitsim.cli import main

    assert main(["walk", "fox", "--engine", "mujoco", "--gui", "--seconds", "1"]) == 2
    assert "--gui" in capsys.readouterr().err


def test_only_the_mujoco_engine_module_imports_mujoco():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    importers = set()
    for path in [*root.glob("gaitsim/**/*.py"), *root.glob("envs/*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n == "mujoco" or n.startswith("mujoco.") for n in names):
                importers.add(path.relative_to(root).as_posix())
    assert importers == {"gaitsim/sim/mujoco_engine.py"}


# ---------------------------------------------------------------------------- the world


@pytest.mark.parametrize(
    "terrain",
    [
        Flat(0.05),
        Slope(math.radians(8.0)),
        Slope(math.radians(-6.0), math.radians(40.0)),
        Rough(amplitude=0.03, wavelength=0.3, seed=4, size=2.0),
    ],
    ids=["flat", "slope_up", "slope_turned", "rough"],
)
def test_the_mujoco_ground_is_the_terrain(terrain):
    """Rays cast down on the MuJoCo ground meet terrain.height within 1 mm (rough ground:
    the grid's orientation, rows along y, would show as centimetres of error)."""
    rng = np.random.default_rng(0)
    xy = rng.uniform(-0.9, 0.9, size=(300, 2))
    with make_world("mujoco", terrain) as world:
        z = world.ray_heights(xy)
    want = terrain.height(xy[:, 0], xy[:, 1])
    assert np.max(np.abs(z - want)) < 1e-3


def test_motored_joints_have_no_dry_friction_rows():
    """The URDF's joint friction is no constraint row on MuJoCo (a third of a step's cost):
    every motored joint's frictionloss is 0; each hip pitch joint has, besides the URDF's
    damping, HIP_PITCH_FRICTION_DAMPING per N m of the friction it had."""
    from gaitsim.sim.mujoco_engine import HIP_PITCH_FRICTION_DAMPING
    from gaitsim.urdf import DAMPING_PER_EFFORT, FRICTION_PER_EFFORT

    with make_world("mujoco", Flat()) as world:
        robot = load_robot(world, "fox")
        m = world.model
        names = (*robot.body.joint_names, *robot.body.upper_joint_names)
        dofs = [m.jnt_dofadr[m.joint(n).id] for n in names]
        assert not m.dof_frictionloss[dofs].any()
        effort = robot.effort.ravel()
        extra = HIP_PITCH_FRICTION_DAMPING * FRICTION_PER_EFFORT
        want = DAMPING_PER_EFFORT * effort + np.where(np.arange(12) % 3 == 1, extra * effort, 0)
        np.testing.assert_allclose(m.dof_damping[dofs[:12]], want, rtol=1e-2)
        world.step(48)
        d = world.data
        assert d.ncon and int(mujoco.mjtConstraint.mjCNSTR_FRICTION_DOF) not in d.efc_type[: d.nefc]


def test_the_robot_meets_the_ground_through_explicit_pairs():
    """No geom collides by its contype (MuJoCo skips its broad phase): each robot geom has
    one pair with the ground, whose friction is the foot's (the world's, a torsional one of
    a foot radius) on feet and follows set_friction."""
    with make_world("mujoco", Flat()) as world:
        robot = load_robot(world, "fox")
        m = world.model
        assert not m.geom_contype.any() and not m.geom_conaffinity.any()
        assert m.npair == m.ngeom - 1 and set(m.pair_geom1) == {world.ground_id}
        robot.command_positions(robot.home_joints)
        for mu in (world.friction, 0.6):
            world.set_friction(mu)
            world.step(24)
            d = world.data
            bodies = robot._geom_body[d.contact.geom[: d.ncon, 1]]
            feet = [i for i, b in enumerate(bodies) if b in robot._feet]
            assert feet
            radius = robot.geometry.foot_radius
            for i in feet:
                assert d.contact.dim[i] == 4
                np.testing.assert_allclose(d.contact.friction[i], [mu, mu, radius, 0, 0], atol=1e-5)


def test_the_world_steps_and_closes():
    world = make_world("mujoco", Flat(), time_step=1 / 240)
    load_robot(world, "fox")
    world.step(24)
    assert world.steps == 24 and world.time == pytest.approx(0.1)
    world.close()
    world.close()  # idempotent
    assert world.closed


# ---------------------------------------------------------------------------- the robot


@pytest.fixture(scope="module")
def twins():
    """The fox in a PyBullet world and in a MuJoCo world, both on flat ground."""
    pb = make_world("pybullet", Flat())
    mj = make_world("mujoco", Flat())
    robots = load_robot(pb, "fox"), load_robot(mj, "fox")
    yield robots
    pb.close()
    mj.close()


def test_both_engines_load_the_same_body(twins):
    a, b = twins
    assert a.mass == pytest.approx(b.mass, rel=1e-9)
    np.testing.assert_allclose(a.effort, b.effort)
    np.testing.assert_allclose(a.lower, b.lower)
    np.testing.assert_allclose(a.upper, b.upper)
    np.testing.assert_allclose(a.home_joints, b.home_joints)


def test_both_engines_agree_on_the_kinematics(twins):
    """The same base pose and joint angles give the same feet, centre of mass and frames."""
    rng = np.random.default_rng(1)
    for _ in range(5):
        q = twins[0].home_joints + rng.uniform(-0.3, 0.3, size=twins[0].home_joints.shape)
        yaw = rng.uniform(-np.pi, np.pi)
        quat = (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))
        pos = (rng.uniform(-1, 1), rng.uniform(-1, 1), 0.5)
        readings = []
        for robot in twins:
            robot.reset_base(pos, quat)
            robot.set_joint_positions(q)
            readings.append(robot.sense())
        a, b = readings
        np.testing.assert_allclose(a.position, b.position, atol=1e-9)
        np.testing.assert_allclose(np.abs(np.dot(a.quaternion, b.quaternion)), 1.0, atol=1e-9)
        np.testing.assert_allclose(a.joint_positions, b.joint_positions, atol=1e-9)
        np.testing.assert_allclose(a.feet, b.feet, atol=1e-6)
        np.testing.assert_allclose(a.com, b.com, atol=1e-6)
        for qa, qb in zip(a.foot_quaternions, b.foot_quaternions, strict=True):
            assert abs(np.dot(qa, qb)) == pytest.approx(1.0, abs=1e-6)


def test_the_position_motor_closes_kp_of_the_error_per_step():
    """PyBullet's motor law, reproduced: a free leg in the air commanded kp = 0.3 toward a
    pose 0.2 rad away closes about 30 % of the error in each physics step on both engines
    (PyBullet solves it as a constraint, MuJoCo as a stiff velocity servo)."""
    shares = {}
    for engine in ENGINES:
        with make_world(engine, Flat()) as world:
            robot = load_robot(world, "fox", base_position=(0, 0, 2.0), fixed_base=True)
            q0 = robot.home_joints
            target = q0 + 0.2
            robot.command_positions(target, kp=0.3)
            errors = []
            for _ in range(6):
                world.step(1)
                errors.append(np.abs(target - robot.joint_state()[0]).mean())
            shares[engine] = 1 - (errors[-1] / errors[0]) ** (1 / 5)
    for share in shares.values():
        assert 0.2 <= share <= 0.4, shares
    assert abs(shares["pybullet"] - shares["mujoco"]) < 0.08, shares


def test_feedforward_torques_are_held_and_reported(twins):
    """command_torque_list holds its torques through every step until the next call, and
    both engines report a joint's torque as the motor's plus the feedforward."""
    for robot in twins:
        world = robot.world
        robot.reset_base((0, 0, 3.0))
        robot.set_joint_positions(robot.home_joints)
        robot.release_joints()
        tau = np.full(3 * robot.n_legs, 0.01)
        robot.command_torque_list(tau.tolist())
        world.step(3)
        np.testing.assert_allclose(robot.sense().joint_torques, tau, atol=1e-9)


def _spun_up_fox(world):
    """The fox in ``world``, held stiffly with its joints spinning at 1e12 rad/s: its next
    step diverges."""
    robot = load_robot(world, "fox")
    robot.command_joint_list([0.0] * 12, kp=[1.0] * 12, forces=[1e9] * 12)
    world.data.qvel[6:] = 1e12
    return robot


def test_a_diverged_mujoco_state_is_reported_not_reset():
    """MuJoCo resets a diverged state to the model's initial pose; gaitsim makes it NaN so
    the run ends with verdict non_finite instead of walking on from a teleport."""
    with make_world("mujoco", Flat()) as world:
        robot = _spun_up_fox(world)
        world.step(3)
        assert not np.isfinite(robot.sense().position).any()


def test_a_second_blow_up_is_reported_too():
    """MuJoCo's reset clears its warning counters, so a state that diverges again after a
    reset left them where they were: the clock running back still says so (generated
    walker 1051, a small runner, diverged twice within its first 0.1 s and walked on from
    the model's initial pose, its verdict `fell` instead of non_finite). And once diverged
    the state stays NaN: stepping on does not let MuJoCo reset it to a teleport."""
    with make_world("mujoco", Flat()) as world:
        robot = _spun_up_fox(world)
        world.step(1)
        assert not np.isfinite(robot.sense().position).any()
        world.step(5)
        assert not np.isfinite(robot.sense().position).any()
        robot.reset_base((0.0, 0.0, 0.5))  # a new start forgets it, and diverges anew
        world.data.qpos[7:] = 0.0
        world.data.qvel[:] = 0.0
        world.step(2)
        assert np.isfinite(robot.sense().position).all()
        world.data.qvel[6:] = 1e12  # the counters are where the first blow-up left them
        world.step(1)
        assert not np.isfinite(robot.sense().position).any()


@pytest.mark.parametrize("walker", ["fox", "mechanic", "gen1051"])
@pytest.mark.parametrize("hold", [1e3, 1e5])
def test_a_diverging_run_ends_non_finite(walker, hold):
    """An assist far too stiff for the step blows the state up, within a few steps (1000 x
    m g h: the mechanic after 5, the fox after 1) or in the first (1e5): the run ends with
    verdict non_finite, and the metrics of a record whose rows are all NaN (sphere feet's
    roll, soles' pitch: scipy raised on them) raise nothing."""
    pytest.importorskip("mujoco")
    from gaitsim.generate import random_entry
    from gaitsim.sim.bodymode import AssistGains
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    entry = random_entry(1051) if walker == "gen1051" else walker
    cfg = ControlConfig(body="assist", assist=AssistGains(attitude_hold=hold))
    s = simulate(entry, seconds=0.3, engine="mujoco", config=cfg).summary
    assert s["verdict"] == "non_finite" and not s["finite"]


def test_a_small_tall_walker_stays_finite_under_the_assist_on_mujoco():
    """The assist's wrench is set anew before each of MuJoCo's own steps: held over a
    whole world step (two of them) it diverged generated runner 1051 (7.9 g, 88 mm
    standing; the assist's attitude frequency x the world step 0.78) within 0.1 s."""
    pytest.importorskip("mujoco")
    from gaitsim.generate import random_entry
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    s = simulate(random_entry(1051), seconds=2.0, engine="mujoco",
                 config=ControlConfig(body="assist")).summary  # fmt: skip
    assert s["finite"] and not s["fell"]
    assert 0.8 <= s["speed_ratio"] <= 1.2


# ---------------------------------------------------------------------------- walking

BUILT_IN = ("fox", "hound", "horn_beetle", "spider_bot")


@pytest.mark.parametrize("name", BUILT_IN)
def test_built_in_walkers_walk_on_mujoco_as_on_pybullet(name):
    """10 s flat, free body: the walked verdict on MuJoCo, speed ratio within 0.1 of
    PyBullet's, and the gait-fidelity bounds (duty, clean contact)."""
    from gaitsim.sim.run import simulate

    mj = simulate(name, seconds=10.0, engine="mujoco").summary
    pb = simulate(name, seconds=10.0, engine="pybullet").summary
    assert mj["engine"] == "mujoco" and pb["engine"] == "pybullet"
    assert mj["verdict"] == "walked", mj["verdict_reason"]
    assert abs(mj["speed_ratio"] - pb["speed_ratio"]) <= 0.1
    assert mj["duty_error_max"] <= 0.08 and mj["duty_error_mean"] <= 0.05
    assert mj["contact_timing_error"] <= 0.10
    assert mj["touchdowns_per_stance"] <= 1.2


def millipede() -> dict:
    """A user's ten-legged walker: five pairs in a wave gait, front knees forward and hind
    knees back, written in the catalog format."""
    segments = []
    for i in range(5):
        x = 0.16 - 0.08 * i
        knee = "forward" if i < 3 else "back"
        for side, y, phase in (("L", 0.09, 0.2 * i), ("R", -0.09, 0.2 * i + 0.5)):
            leg = {"name": f"{side.lower()}{i}", "side": side, "phase": phase % 1.0}
            leg.update(knee=knee, upper=0.06, lower=0.08, home=[y, 0, x])
            segments.append(leg)
    gait = {"stride": 0.07, "duty": 0.7, "lift": 0.025, "clip_speed": 0.12, "segments": segments}
    return {"millipede": {"gait": gait}}


def test_a_users_ten_legged_walker_walks_on_mujoco(tmp_path, capsys):
    from gaitsim.cli import main

    path = tmp_path / "millipede.json"
    path.write_text(json.dumps(millipede()))
    code = main(["walk", "millipede", "--catalog", str(path), "--engine", "mujoco",
                 "--seconds", "10", "--json", "-q"])  # fmt: skip
    s = json.loads(capsys.readouterr().out)
    assert code == 0, s["verdict_reason"]
    assert s["engine"] == "mujoco" and s["verdict"] == "walked"
    assert len(s["duty_by_leg"]) == 10


# ---------------------------------------------------------------------------- the env


def test_the_mujoco_env_passes_the_checkers():
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    import gaitsim  # noqa: F401  (registers the ids)

    for mode in ("prior", "residual"):
        env = gym.make("gaitsim/Walk-v0", engine="mujoco", action_mode=mode)
        check_env(env.unwrapped, skip_render_check=True)
        sb3_check_env(env.unwrapped)
        env.close()


@pytest.mark.parametrize("body", ["assist", "free"])
def test_a_biped_on_mujoco_passes_the_checkers(body):
    """A biped's soles read the contact forces at every step (the ankles' limits): a reset
    that kept the last episode's motor targets and feedforward let mj_forward work them
    out differently, and Gymnasium's step-determinism check failed for the mechanic."""
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    import gaitsim  # noqa: F401  (registers the ids)

    env = gym.make("gaitsim/Walk-v0", walker="mechanic", engine="mujoco", body=body)
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def _rollout(env, seed: int, steps: int) -> np.ndarray:
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = [obs]
    for _ in range(steps):
        action = rng.uniform(-1, 1, size=env.action_space.shape).astype(np.float32)
        obs, *_ = env.step(action)
        out.append(obs)
    return np.array(out)


def test_seeded_mujoco_rollouts_are_identical():
    """Two envs, and one env reused for a second episode, replay a seeded rollout bit for
    bit (the reused world forgets the solver's warm start and applied forces)."""
    import gymnasium as gym

    import gaitsim  # noqa: F401

    kw = {"engine": "mujoco", "action_mode": "residual", "start_phase": (0.0, 1.0)}
    a, b = gym.make("gaitsim/Walk-v0", **kw), gym.make("gaitsim/Walk-v0", **kw)
    first = _rollout(a, 7, 120)
    np.testing.assert_array_equal(first, _rollout(b, 7, 120))
    _rollout(a, 8, 60)
    np.testing.assert_array_equal(first, _rollout(a, 7, 120))
    a.close()
    b.close()


def test_a_mujoco_run_renders_through_its_pybullet_twin():
    import gymnasium as gym

    import gaitsim  # noqa: F401

    env = gym.make("gaitsim/Walk-v0", engine="mujoco", render_mode="rgb_array",
                   render_size=(96, 64))  # fmt: skip
    env.reset(seed=0)
    frames = [env.render()]
    for _ in range(30):
        env.step(np.zeros(env.action_space.shape, np.float32))
    frames.append(env.render())
    assert frames[0].shape == (64, 96, 3)
    assert np.abs(frames[0].astype(int) - frames[1]).mean() > 0  # the twin moved
    env.close()
    with pytest.raises(ValueError, match="rgb_array"):
        gym.make("gaitsim/Walk-v0", engine="mujoco", render_mode="human")


# ---------------------------------------------------------------------------- sweeps


def test_a_sweep_names_its_engine(tmp_path):
    from gaitsim.sweep import SweepError, load_sweep

    bad = tmp_path / "bad.toml"
    bad.write_text(
        'name = "b"\nparameter = "speed_scale"\nvalues = [1.0]\nwalkers = ["fox"]\n'
        'seeds = 1\nseconds = 1.0\n[base]\nengine = "bullet"\n'
    )
    with pytest.raises(SweepError, match="engine"):
        load_sweep(bad)


def test_a_sweep_runs_on_mujoco_from_the_cli(tmp_path):
    """--engine mujoco sets the sweep's [base] engine: every episode says which engine ran
    it in results.csv."""
    import csv

    from gaitsim.cli import main

    d = tmp_path / "s.toml"
    d.write_text(
        'name = "s"\nparameter = "speed_scale"\nvalues = [0.8, 1.0]\nwalkers = ["horn_beetle"]\n'
        "seeds = 1\nseconds = 1.0\n"
    )
    out = tmp_path / "out"
    argv = ["sweep", str(d), "--out", str(out), "-q", "--no-plots", "--engine", "mujoco"]
    assert main(argv) == 0
    with open(out / "results.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 and {r["engine"] for r in rows} == {"mujoco"}


def test_rough_ground_fits_mujocos_constraint_memory():
    """Building the robot on rough ground and walking it overflows none of MuJoCo's contact or
    constraint buffers (an overflow drops constraints silently: only a warning counter says
    so). The inertia pass at build time runs without contacts, with the base still at the
    model's origin inside the ground."""
    from gaitsim.sim.controller import GaitController
    from gaitsim.walker import Walker

    terrain = Rough(amplitude=0.02, wavelength=0.5, seed=1, size=4.0)
    with make_world("mujoco", terrain) as world:
        robot = load_robot(world, "fox")
        ctl = GaitController(world, robot, Walker(robot.entry, terrain, sway=1.0))
        for _ in range(120):
            ctl.step()
        full = (mujoco.mjtWarning.mjWARN_CONTACTFULL, mujoco.mjtWarning.mjWARN_CNSTRFULL)
        assert [world.data.warning[int(w)].number for w in full] == [0, 0]
        assert not ctl.sensed.body_contact


@pytest.mark.parametrize("seed", [1, 39])
def test_a_generated_walker_loads_on_rough_ground_within_mujocos_memory(seed):
    """Generated walkers 1 and 39 on the gait-fidelity check's 1 cm bumps: loading them used
    to work out contacts with the base still at the model's origin (and then with the legs
    still at zero), inside the ground, and overflowed MuJoCo's constraint memory. The start
    pose is now written before anything is worked out, and the legs set before the base."""
    from gaitsim.generate import random_entry

    with make_world("mujoco", Rough(amplitude=0.01, seed=0)) as world:
        load_robot(world, random_entry(seed))
        full = (mujoco.mjtWarning.mjWARN_CONTACTFULL, mujoco.mjtWarning.mjWARN_CNSTRFULL)
        assert [world.data.warning[int(w)].number for w in full] == [0, 0]
