"""The robot's angular momentum about the vertical through its centre of mass: the
vectorised formula against hand-computed cases and an independent computation, and
each engine's readings conserved in free flight."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from gaitsim.sim.robot import momentum_about_com


def frame(r, q=(0.0, 0.0, 0.0, 1.0), v=(0.0, 0.0, 0.0), w=(0.0, 0.0, 0.0)):
    return (*r, *q, *v, *w)


def test_two_masses_circling_their_centre():
    """Two 2 kg points 0.5 m either side of the centre of mass moving at 3 m/s opposite
    ways: h = 2 * (2 kg * 0.5 m * 3 m/s) = 6 kg m^2/s (counter-clockwise, +z)."""
    frames = [[frame((0.5, 0.0, 0.0), v=(0.0, 3.0, 0.0)),
               frame((-0.5, 0.0, 0.0), v=(0.0, -3.0, 0.0))]]  # fmt: skip
    h = momentum_about_com([2.0, 2.0], [(0.0, 0.0, 0.0)] * 2, frames)
    assert h == pytest.approx([6.0])


def test_a_spinning_body_tipped_onto_its_side():
    """A body whose principal z inertia is 0.3 and x inertia 0.1, turned 90 deg about y so
    its body x axis points down: spinning at 2 rad/s about world z it spins about its own x
    axis, h = 0.1 * 2 = 0.2; upright it would be 0.3 * 2 = 0.6."""
    inertia = [(0.1, 0.2, 0.3)]
    upright = [[frame((1.0, 2.0, 0.5), w=(0.0, 0.0, 2.0))]]
    q = Rotation.from_euler("y", 90, degrees=True).as_quat()  # (x, y, z, w)
    tipped = [[frame((1.0, 2.0, 0.5), q=q, w=(0.0, 0.0, 2.0))]]
    assert momentum_about_com([1.0], inertia, upright) == pytest.approx([0.6])
    assert momentum_about_com([1.0], inertia, tipped) == pytest.approx([0.2])


unit = st.floats(-1.0, 1.0, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_matches_the_sum_over_bodies(n, seed):
    """Random bodies: the same as R I R^T w and m (r - c) x v summed body by body with
    scipy's rotations, and independent of where the bodies stand (a shift of all of them)."""
    rng = np.random.default_rng(seed)
    m = rng.uniform(0.1, 3.0, n)
    inertia = rng.uniform(0.01, 0.5, (n, 3))
    r = rng.normal(size=(n, 3))
    q = Rotation.random(n, random_state=seed).as_quat()
    v, w = rng.normal(size=(n, 3)), rng.normal(size=(n, 3))
    frames = [[(*r[i], *q[i], *v[i], *w[i]) for i in range(n)]]
    c = (m[:, None] * r).sum(0) / m.sum()
    want = 0.0
    for i in range(n):
        rot = Rotation.from_quat(q[i]).as_matrix()
        spin = rot @ np.diag(inertia[i]) @ rot.T @ w[i]
        want += m[i] * np.cross(r[i] - c, v[i])[2] + spin[2]
    got = momentum_about_com(m, inertia, frames)
    assert got == pytest.approx([want], abs=1e-9)
    shifted = [[(*(r[i] + (5.0, -3.0, 1.0)), *q[i], *v[i], *w[i]) for i in range(n)]]
    assert momentum_about_com(m, inertia, shifted) == pytest.approx(got, abs=1e-9)


def test_a_recorded_walk_has_its_momentum_every_step():
    """A recorded PyBullet walk's momentum series is finite every step, and its summary's
    yaw moment positive."""
    from gaitsim.sim.run import simulate

    res = simulate("fox", seconds=1)
    h = res.record["momentum_z"]
    assert h.shape == res.record["t"].shape and np.isfinite(h).all()
    assert math.isfinite(res.summary["yaw_moment_com_rms_nm"])
    assert res.summary["yaw_moment_com_rms_nm"] > 0.0


def _flight(engine: str, drop_spin: bool = False) -> np.ndarray:
    """The fox tossed 5 m up with a spin (1.5 rad/s about z, a tumble about x and y),
    its legs swinging 0.4 rad at 12 rad/s by their motors for a quarter second, before
    anything touches the ground: the engine's own readings through ``momentum_series``."""
    from gaitsim.sim.engine import load_robot, make_world

    with make_world(engine) as world:
        robot = load_robot(world, "fox", base_position=(0.0, 0.0, 5.0))
        robot.set_base_velocity((0.3, 0.0, 0.0), (0.4, -0.3, 1.5))
        q0 = np.asarray(robot.home_joints, dtype=float)
        raw = []
        for k in range(60):
            robot.command_positions(q0 + 0.4 * math.sin(12.0 * k * world.dt))
            world.step(1)
            raw.append(robot.sense().momentum_z)
        if drop_spin:  # PyBullet's formula without the links' own spin
            robot._inertia_list = [(0.0, 0.0, 0.0)] * len(robot._inertia_list)
        return robot.momentum_series(raw)


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_momentum_is_conserved_in_free_flight(engine):
    """In the air nothing outside acts about the vertical through the centre of mass, so
    what the legs' motors swing one way the body turns the other: the whole robot's
    momentum stays put. Measured: a spread of 3.0 % of its mean on PyBullet (its links'
    default velocity damping and the motors' constraint solve), 0.4 % on MuJoCo
    (``subtree_angmom``); the PyBullet formula without the links' spin spreads 26 %."""
    if engine == "mujoco":
        pytest.importorskip("mujoco")
    h = _flight(engine)
    assert np.isfinite(h).all() and h.mean() > 0.05
    assert np.ptp(h) <= 0.05 * h.mean(), (h.min(), h.max())
    if engine == "pybullet":
        broken = _flight(engine, drop_spin=True)
        assert np.ptp(broken) > 0.15 * abs(broken.mean())  # the check can fail


def test_pybullet_readings_are_the_link_frames_bit_for_bit():
    """PyBullet's raw reading (packed doubles, ``Robot._frames``) holds exactly the base's
    pose and velocity and each link's centre of mass, inertial orientation and world
    velocities, and ``momentum_series`` works out the same values from it as from those
    numbers as a tuple."""
    import pybullet as p

    from gaitsim.sim.engine import load_robot, make_world
    from gaitsim.sim.robot import _FRAME_SIZE

    with make_world("pybullet") as world:
        robot = load_robot(world, "fox", base_position=(0.0, 0.0, 0.5))
        robot.set_base_velocity((0.3, -0.1, 0.2), (0.4, -0.3, 1.5))
        world.step(3)
        reading = robot.sense().momentum_z
        cid, body = robot.client, robot.body_id
        pos, quat = p.getBasePositionAndOrientation(body, physicsClientId=cid)
        lin, ang = p.getBaseVelocity(body, physicsClientId=cid)
        links = p.getLinkStates(body, robot._all_links, computeLinkVelocity=1,
                                computeForwardKinematics=1, physicsClientId=cid)  # fmt: skip
        flat = [*pos, *quat, *lin, *ang]
        for st in links:
            flat += [*st[0], *st[1], *st[6], *st[7]]
        assert isinstance(reading, bytes)
        assert np.frombuffer(reading, dtype=float).tolist() == flat
        frames = np.array([flat], dtype=float).reshape(1, -1, _FRAME_SIZE)
        expected = momentum_about_com(robot._mass_list, robot._inertia_list, frames)
        got = robot.momentum_series([reading, math.nan])
        assert got[0] == expected[0] and math.isnan(got[1])
