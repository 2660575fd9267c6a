"""The stance ankles' torque ranges (``SoleDriver.cop_limits``): the centre of pressure kept
from the heel's edge to COP_TOE_SHARE of the toe, half the width either way, a lifting
foot's pitch held to its range while its sole touches; and a bias that shifts an ankle's
range in both engines, positive toe down."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaitsim.sim.engine import load_robot, make_world, mujoco_available
from gaitsim.sim.soles import ANKLE_FLOOR, COP_TOE_SHARE
from gaitsim.terrain import Flat

ENGINES = [
    "pybullet",
    pytest.param(
        "mujoco",
        marks=pytest.mark.skipif(not mujoco_available(), reason="the mujoco extra is missing"),
    ),
]
FULL = 170.0


def _range(limits, bias):
    lim, b = np.asarray(limits), np.asarray(bias)
    return b - lim, b + lim


def test_the_ranges_by_hand(sole_driver):
    """The mechanic's joints per leg: hip yaw, ankle pitch, ankle roll. Left in stance on
    1000 N; right lifting off (planned swing) on 500 N: its pitch keeps a stance range, its
    roll and yaw are free. (Loads large enough that no range is the floor.)"""
    drv = sole_driver()
    heel, toe, width = drv._heel[0], drv._toe[0], drv._width[0]
    lim, bias = drv.cop_limits([1000.0, 500.0], [True, False], [FULL] * 6)
    lo, hi = _range(lim, bias)
    assert (lo[0], hi[0]) == pytest.approx((-FULL, FULL))  # a hip yaw: free
    assert (lo[1], hi[1]) == pytest.approx((-1000.0 * heel, 1000.0 * COP_TOE_SHARE * toe))
    assert (lo[2], hi[2]) == pytest.approx((-500.0 * width, 500.0 * width))
    assert (lo[3], hi[3]) == pytest.approx((-FULL, FULL))
    assert (lo[4], hi[4]) == pytest.approx((-500.0 * heel, 500.0 * COP_TOE_SHARE * toe))
    assert (lo[5], hi[5]) == pytest.approx((-FULL, FULL))  # a lifting foot's roll: free
    # off the ground, a swing foot is free; a stance foot not yet loaded keeps the floor
    lim, bias = drv.cop_limits([0.0, 0.0], [True, False], [FULL] * 6)
    lo, hi = _range(lim, bias)
    floor = ANKLE_FLOOR * FULL
    assert (lo[1], hi[1]) == pytest.approx((-floor, floor))
    assert (lo[4], hi[4]) == pytest.approx((-FULL, FULL))
    # ankle_cop's share scales the lever
    lim2, bias2 = drv.cop_limits([1000.0, 0.0], [True, False], [FULL] * 6, share=0.5)
    lim1, bias1 = drv.cop_limits([500.0, 0.0], [True, False], [FULL] * 6)
    assert lim2 == pytest.approx(lim1) and bias2 == pytest.approx(bias1)


@settings(max_examples=80, deadline=None)
@given(normal=st.lists(st.floats(0, 5000), min_size=2, max_size=2),
       stance=st.lists(st.booleans(), min_size=2, max_size=2),
       full=st.floats(1.0, 300.0))  # fmt: skip
def test_every_range_holds_zero_within_the_full_effort(sole_driver, normal, stance, full):
    """Whatever the loads: each range lies within the motor's full effort, holds zero (the
    servo may always stop), and is at least the floor wide where it is capped."""
    drv = sole_driver()
    lim, bias = drv.cop_limits(normal, stance, [full] * 6)
    lo, hi = _range(lim, bias)
    tol = 1e-9 * full
    assert np.all(lo >= -full - tol) and np.all(hi <= full + tol)
    assert np.all(lo <= tol) and np.all(hi >= -tol)
    assert np.all(np.asarray(lim) >= min(ANKLE_FLOOR * full, full) - tol)


def test_the_toe_side_reaches_further_than_the_heel_side(sole_driver):
    """A loaded stance sole's pitch range: the centre of pressure may go COP_TOE_SHARE of
    the toe ahead of the ankle, more than the heel behind it (the raptor's and the
    mechanic's soles are a quarter heel), so the bias is toward toe down."""
    drv = sole_driver("raptor")
    lim, bias = drv.cop_limits([200.0, 0.0], [True, False], [FULL] * 6)
    assert drv._heel[0] < COP_TOE_SHARE * drv._toe[0]
    assert bias[1] > 0.0 and bias[1] + lim[1] > -(bias[1] - lim[1])


@pytest.mark.parametrize("engine", ENGINES)
def test_a_bias_turns_an_unloaded_ankle_toe_down(engine):
    """Base fixed in the air, legs held at home: with no motor force, a bias of +2 N m
    turns each ankle's pitch positive, and positive is toe down (the sole's forward axis
    points below the horizontal); -2 N m turns it toe up."""
    for sign in (1.0, -1.0):
        with make_world(engine, Flat()) as world:
            robot = load_robot(world, "mechanic", base_position=(0, 0, 2.0), fixed_base=True)
            names = robot.body.ankle_joint_names
            pitch = [k for k, n in enumerate(names) if n.endswith("_pitch")]
            bias = np.zeros(len(names))
            bias[pitch] = 2.0 * sign
            start = robot.ankle_state()[0].copy()
            for _ in range(round(0.2 / world.dt)):
                robot.command_positions(robot.home_joints)
                robot.command_ankles(start, forces=np.zeros(len(names)), bias=bias)
                world.step(1)
            moved = robot.ankle_state()[0] - start
            assert np.all(sign * moved[pitch] > 0.05), moved
            for quat in robot.sense().foot_quaternions:
                x, y, z, w = quat
                forward_z = 2.0 * (x * z - w * y)  # the sole's x axis, its world z
                assert sign * forward_z < -0.03, forward_z
