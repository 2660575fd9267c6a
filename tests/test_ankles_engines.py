"""The ankle joint group in both engines (PyBullet always, MuJoCo where installed): indexing
(a biped's hip yaws included), the position motor holding an ankle, the foot link at the
ankle (the hip yaw turning the leg), a mechanic standing on its
soles with each foot's centre of pressure under the sole, and sphere walkers untouched."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gaitsim.feet import foot_hip_yaws, from_hip
from gaitsim.ik import leg_fk
from gaitsim.sim.engine import load_robot, make_world, mujoco_available
from gaitsim.terrain import Flat

ENGINES = [
    "pybullet",
    pytest.param(
        "mujoco",
        marks=pytest.mark.skipif(not mujoco_available(), reason="the mujoco extra is missing"),
    ),
]


def _rot(quat) -> np.ndarray:
    """The rotation matrix of a unit quaternion (x, y, z, w)."""
    x, y, z, w = quat
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])  # fmt: skip


@pytest.mark.parametrize("engine", ENGINES)
def test_a_mechanic_loads_with_its_ankles_indexed(engine):
    with make_world(engine, Flat()) as world:
        robot = load_robot(world, "mechanic")
        names = robot.body.ankle_joint_names
        n = 2 * 3  # per leg a hip yaw, then the derived ankle's pitch and roll
        assert len(names) == n and robot.ankle_names == list(names)
        assert [x.split("_", 1)[1] for x in names] == ["hip_yaw", "ankle_pitch",
                                                        "ankle_roll"] * 2  # fmt: skip
        np.testing.assert_allclose(robot.ankle_effort, robot.body.ankle_effort)
        q, v = robot.ankle_state()
        assert q.shape == v.shape == (n,)
        # it starts with the soles flat under the home pose
        np.testing.assert_allclose(q, robot.home_ankles, atol=1e-9)
        np.testing.assert_allclose(robot.home_ankles, robot.flat_ankles(robot.home_joints))
        target = np.array([0.1, 0.2, -0.1, -0.05, -0.3, 0.05])
        robot.set_ankle_positions(target)
        q, v = robot.ankle_state()
        np.testing.assert_allclose(q, target, atol=1e-9)
        np.testing.assert_allclose(v, 0.0, atol=1e-12)
        np.testing.assert_allclose(robot.sense().ankle_positions, target, atol=1e-9)


@pytest.mark.parametrize("engine", ENGINES)
def test_command_ankles_holds_an_ankle_angle(engine):
    """Base fixed in the air, legs held at home: 0.3 rad of pitch (and some roll) reached and
    held within 0.02 rad after 0.5 s; with no force, the motors move nothing."""
    with make_world(engine, Flat()) as world:
        robot = load_robot(world, "mechanic", base_position=(0, 0, 2.0), fixed_base=True)
        target = robot.home_ankles + np.array([0.1, 0.3, 0.1, -0.1, 0.3, -0.1])
        steps = round(0.5 / world.dt)
        for _ in range(steps):
            robot.command_positions(robot.home_joints)
            robot.command_ankles(target)
            world.step(1)
        q, v = robot.ankle_state()
        assert np.abs(q - target).max() < 0.02, q - target
        assert np.abs(v).max() < 0.05
        # the force limits may be given: motors without force do not lift the toes
        for _ in range(steps // 2):
            robot.command_positions(robot.home_joints)
            robot.command_ankles(target - 0.2, kp=0.5, forces=np.zeros(len(target)))
            world.step(1)
        pitch = [k for k, n in enumerate(robot.body.ankle_joint_names) if n.endswith("_pitch")]
        assert np.abs(robot.ankle_state()[0] - (target - 0.2))[pitch].min() > 0.15


@pytest.mark.parametrize("engine", ENGINES)
def test_the_foot_link_origin_is_the_ankle(engine):
    """Sensed feet are the ankle joints: the leg's forward kinematics, whatever the ankles."""
    rng = np.random.default_rng(5)
    tol = 1e-6
    with make_world(engine, Flat()) as world:
        robot = load_robot(world, "mechanic")
        chain = robot.geometry.chain
        for _ in range(4):
            q = robot.home_joints + rng.uniform(-0.3, 0.3, size=robot.home_joints.shape)
            yaw = rng.uniform(-math.pi, math.pi)
            quat = (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))
            pos = np.array([rng.uniform(-1, 1), rng.uniform(-1, 1), 1.5])
            robot.reset_base(pos, quat)
            robot.set_joint_positions(q)
            qa = rng.uniform(-0.5, 0.5, size=len(robot.home_ankles))
            robot.set_ankle_positions(qa)
            s = robot.sense()
            turned = from_hip(leg_fk(chain, q), chain.mount, foot_hip_yaws(robot.body.soles, qa))
            expected = pos + turned @ _rot(quat).T
            np.testing.assert_allclose(s.feet, expected, atol=tol)
            np.testing.assert_allclose(robot.foot_positions(), expected, atol=tol)


def _sole_frame_cop(cop, foot_position, foot_quaternion) -> np.ndarray:
    """A world centre of pressure in the foot link's frame (origin at the ankle)."""
    return _rot(foot_quaternion).T @ (np.asarray(cop) - np.asarray(foot_position))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_mechanic_stands_on_its_soles(engine):
    """Free base, legs at home, soles flat, upper body held: after 1 s both feet touch, each
    carries about half the weight with its centre of pressure on its sole, and the base is
    within the pads' few millimetres of the standing height."""
    with make_world(engine, Flat()) as world:
        robot = load_robot(world, "mechanic")
        upper = np.zeros(len(robot.body.upper_joint_names))
        for _ in range(round(1.0 / world.dt)):
            robot.command_positions(robot.home_joints)
            robot.command_ankles(robot.home_ankles)
            robot.command_upper(upper)
            world.step(1)
        s = robot.sense()
        assert all(s.contacts) and not s.body_contact and not s.leg_contact
        weight = robot.mass * world.gravity
        assert sum(s.foot_forces) == pytest.approx(weight, rel=0.1)
        for force in s.foot_forces:
            assert 0.3 * weight < force < 0.7 * weight
        assert len(s.foot_cops) == 2
        for sole, cop, x, quat in zip(robot.body.soles, s.foot_cops, s.feet, s.foot_quaternions,
                                      strict=True):  # fmt: skip
            assert cop is not None
            local = _sole_frame_cop(cop, x, quat)
            assert -sole.heel <= local[0] <= sole.toe, local
            assert abs(local[1]) <= sole.width / 2, local
            assert local[2] == pytest.approx(-sole.height, abs=0.005)  # on the sole's bottom
            # the sole lies flat: its normal is the world's up
            assert _rot(quat)[2, 2] > math.cos(math.radians(2.0))
        sink = robot.geometry.standing_height - s.position[2]
        assert 0.0 < sink < 0.008, sink  # the pad's 10 % of the ankle height is 4.8 mm
        np.testing.assert_allclose(s.ankle_positions, robot.home_ankles, atol=0.01)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_foot_in_the_air_has_no_centre_of_pressure(engine):
    with make_world(engine, Flat()) as world:
        robot = load_robot(world, "mechanic", base_position=(0, 0, 2.0))
        world.step(1)
        assert robot.sense().foot_cops == [None, None]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", ["fox", "spider_bot"])
def test_sphere_walkers_have_no_ankles(engine, name):
    with make_world(engine, Flat()) as world:
        robot = load_robot(world, name)
        assert robot.ankle_names == [] and robot.home_ankles.shape == (0,)
        q, v = robot.ankle_state()
        assert q.shape == v.shape == (0,)
        robot.command_ankles([])  # nothing to command
        robot.set_ankle_positions([])
        robot.command_positions(robot.home_joints)
        world.step(5)
        s = robot.sense()
        assert s.ankle_positions == () and s.foot_cops == ()


def test_a_soles_corners_get_the_sole_pad():
    """PyBullet: a sole's link carries Body.sole_pad (each corner point's pad); a sphere
    foot keeps the whole pad. Friction as on sphere feet."""
    import pybullet as p

    with make_world("pybullet", Flat()) as world:
        for name in ("mechanic", "fox"):
            robot = load_robot(world, name)
            body = robot.body
            k, d = body.pad if body.sole_pad is None else body.sole_pad
            assert (body.sole_pad is None) == (name == "fox")
            for f in robot.foot_index:
                info = p.getDynamicsInfo(robot.body_id, int(f), physicsClientId=world.client)
                assert info[1] == 1.0  # lateral friction: the world's sets the pair's
                assert info[7] == pytest.approx(robot.geometry.foot_radius)  # spinning
                assert info[9] == pytest.approx(k)  # contact stiffness
                assert info[8] == pytest.approx(d)  # contact damping
            robot.remove()


@pytest.mark.skipif(not mujoco_available(), reason="the mujoco extra is missing")
def test_mujoco_soles_get_the_foot_contact():
    """MuJoCo: each sole's corner spheres win their pairs with the foot's friction,
    torsional friction and the sole's time constant: one over the natural frequency of a
    flat sole's stiffness (its four corners' ``Body.sole_pad``, PyBullet's) under an even
    share of the mass, by hand (the pad's own would be sqrt(k_sole / k_pad) longer); the
    ankles have motors after the upper body's."""
    import math

    import mujoco

    with make_world("mujoco", Flat(), friction=0.8) as world:
        robot = load_robot(world, "mechanic")
        m = world.model
        for name in robot.foot_names:
            geoms = [g for g in range(m.ngeom) if m.geom_bodyid[g] == m.body(name).id]
            # the sole's four corner spheres (urdf.sole_spheres), each with the foot's contact
            assert len(geoms) == 4
            for g in geoms:
                assert m.geom_type[g] == mujoco.mjtGeom.mjGEOM_SPHERE
                assert m.geom_priority[g] == 1 and m.geom_condim[g] == 4
                np.testing.assert_allclose(m.geom_friction[g, :2],
                                           [0.8, robot.geometry.foot_radius])  # fmt: skip
                body = robot.body
                k_sole = 4 * body.sole_pad[0]
                c_sole = 4 * body.sole_pad[1]
                share = body.mass / 2
                assert m.geom_solref[g, 0] == pytest.approx(math.sqrt(share / k_sole))
                zeta = c_sole / (2 * math.sqrt(k_sole * share))
                assert m.geom_solref[g, 1] == pytest.approx(zeta)
                assert k_sole > 2 * body.pad[0]  # stiffer than the pad (the corners' EDGE_SINK)
        n = len(robot.body.ankle_joint_names)
        names = [m.actuator(a).name for a in range(m.nu)][-n:]
        assert names == list(robot.body.ankle_joint_names)
