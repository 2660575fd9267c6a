"""Foot pads and capture-point foot placement: hand-computed values and what the physics
does with them."""

from __future__ import annotations

import math

import pybullet as p
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gaitsim.geometry import FOOT_PAD_DAMPING, FOOT_PAD_SINK, GRAVITY, foot_pad, geometry
from gaitsim.sim.controller import LIFT_FIRST_UNTIL, ControlConfig, GaitController
from gaitsim.sim.robot import Robot
from gaitsim.sim.run import physics_walker_options, simulate
from gaitsim.sim.world import World
from gaitsim.walker import Walker, resolve_entry


def test_foot_pad_by_hand():
    """The fox: 3.5 kg on four feet, foot radius r. Each foot sinks FOOT_PAD_SINK r under
    m g / 4, critically damped for m / 4."""
    geo = geometry(resolve_entry("fox").gait)
    k, d = foot_pad(geo)
    m = geo.total_mass / 4
    assert geo.total_mass == pytest.approx(3.5)
    assert k == pytest.approx(m * GRAVITY / (FOOT_PAD_SINK * geo.foot_radius))
    assert d == pytest.approx(FOOT_PAD_DAMPING * 2 * math.sqrt(k * m))
    # a heavier walker on the same feet gets stiffer pads, a smaller foot too
    assert foot_pad(geo, n_feet=2)[0] == pytest.approx(2 * k)


@pytest.mark.parametrize("walker", ["fox", "spider_bot"])
def test_the_robot_has_its_foot_pads(walker):
    with World() as world:
        robot = Robot(world, walker)
        k, d = foot_pad(robot.geometry)
        for f in robot.foot_index:
            info = p.getDynamicsInfo(robot.body_id, int(f), physicsClientId=world.client)
            assert info[9] == pytest.approx(k, rel=1e-6)  # contact stiffness
            assert info[8] == pytest.approx(d, rel=1e-6)  # contact damping


@pytest.mark.parametrize("walker", ["hound", "spider_bot"])
def test_a_standing_foot_sinks_about_its_share_of_the_pad(walker):
    """Standing 1 s on its home pose, every foot down: the feet sink on average about
    FOOT_PAD_SINK of their radius (between half and twice that: the shares are uneven)."""
    with World() as world:
        robot = Robot(world, walker)
        robot.command_positions(robot.home_joints)
        world.step(240)
        z = robot.foot_positions()[:, 2]
        r = robot.geometry.foot_radius
        sink = r - z  # the ground is at 0
        assert robot.foot_contacts().all()
    assert 0.5 * FOOT_PAD_SINK * r <= sink.mean() <= 2.0 * FOOT_PAD_SINK * r, sink / r


class _Sensed:
    def __init__(self, position, velocity):
        self.position = position
        self.linear_velocity = velocity


@pytest.mark.parametrize("gain", [1.0, 0.5])
def test_capture_point_placement_by_hand(gain):
    """A body 1 cm left of its reference and moving 0.1 m/s faster forward lands its feet
    gain x (0.1 / omega, 0.01) off the plan, omega = sqrt(g / standing height)."""
    entry = resolve_entry("hound")
    with World() as world:
        robot = Robot(world, entry)
        kin = Walker(entry, **physics_walker_options())
        ctl = GaitController(world, robot, kin, ControlConfig(capture_gain=gain))
        ref = ((0.0, 0.0, 0.3), None, 0.0, True)
        ref2 = ((0.01 * ctl.dt, 0.0, 0.3), None, 0.0, True)  # the reference at 0.01 m/s
        sensed = _Sensed((0.0, 0.01, 0.3), (0.11, 0.0, 0.0))
        cx, cy = ctl._placement(sensed, ref, ref2)
    omega = math.sqrt(GRAVITY / kin.geometry.standing_height)
    assert cx == pytest.approx(gain * 0.1 / omega)
    assert cy == pytest.approx(gain * 0.01)


def test_the_speed_gain_lands_the_feet_further_along_the_heading_by_hand():
    """A body on its reference's spot moving (0.1, 0.05) m/s, its reference standing and
    heading along +y: the capture point lands the feet (0.1, 0.05) / omega off the plan,
    and ``speed_gain`` 0.5 adds half the speed error along the heading (0.05 m/s, along y)
    over omega again: (0.1, 0.075) / omega. Across the heading it adds nothing."""
    entry = resolve_entry("hound")
    with World() as world:
        robot = Robot(world, entry)
        kin = Walker(entry, **physics_walker_options())
        ctl = GaitController(world, robot, kin, ControlConfig(speed_gain=0.5))
        ref = ((0.0, 0.0, 0.3), None, math.pi / 2, True)
        cx, cy = ctl._placement(_Sensed((0.0, 0.0, 0.3), (0.1, 0.05, 0.0)), ref, ref)
        only = GaitController(world, robot, kin, ControlConfig(capture_gain=0.0, speed_gain=0.5))
        ox, oy = only._placement(_Sensed((0.0, 0.02, 0.3), (0.1, 0.05, 0.0)), ref, ref)
    tc = 1.0 / math.sqrt(GRAVITY / kin.geometry.standing_height)
    assert (cx, cy) == pytest.approx((0.1 * tc, 0.075 * tc))
    assert (ox, oy) == pytest.approx((0.0, 0.025 * tc), abs=1e-12)


def test_the_speed_gain_by_default_and_its_bounds(built_controller):
    """``stance.SOLE_SPEED_GAIN`` for a free body on soles; 0 for a held one and for point
    feet; the config's own wins; a negative or non-finite gain is refused."""
    from gaitsim.sim.stance import SOLE_SPEED_GAIN

    assert SOLE_SPEED_GAIN > 0.0
    assert built_controller("mechanic", "_speed_k", body="free") == SOLE_SPEED_GAIN
    assert built_controller("raptor", "_speed_k", body="assist") == 0.0
    assert built_controller("fox", "_speed_k") == 0.0
    assert built_controller("raptor", "_speed_k", speed_gain=0.0) == 0.0
    assert built_controller("fox", "_speed_k", speed_gain=0.2) == 0.2
    for bad in (-0.1, math.inf, math.nan, True, "0.3"):
        with pytest.raises(ValueError, match="speed_gain"):
            ControlConfig(speed_gain=bad)


def test_no_capture_gain_no_placement_feedback():
    entry = resolve_entry("hound")
    with World() as world:
        robot = Robot(world, entry)
        ctl = GaitController(world, robot, Walker(entry), ControlConfig(capture_gain=0.0))
        ref = ((0.0, 0.0, 0.3), None, 0.0, True)
        assert ctl._placement(_Sensed((1.0, 1.0, 0.3), (1.0, 1.0, 0.0)), ref, ref) == (0, 0)


def test_physics_runs_sway_unless_told_not_to():
    assert physics_walker_options() == {"sway": 1.0, "bob_accel": 0.5, "turn_lean": 1.0}
    assert physics_walker_options({"sway": 0.0, "swing": "clearance"}) == {
        "sway": 0.0, "bob_accel": 0.5, "turn_lean": 1.0, "swing": "clearance"}  # fmt: skip
    s = simulate("fox", seconds=1.0, walker_options={"sway": 0.0}).summary
    assert s["finite"]


unit = st.tuples(*[st.floats(-1.0, 1.0)] * 4).filter(lambda q: sum(x * x for x in q) > 0.01)


@given(unit, unit, st.floats(0.001, 0.05))
@example((0.0, 0.0, 1.0, 0.0), (0.0, 1.0, 0.0, 0.0), 0.03125)  # a half turn (CI, stop 60)
@settings(max_examples=200, deadline=None)
def test_the_controllers_rolling_offset_is_the_metrics_one(q0, q1, radius):
    """The control loop's scalar rolling offset of a held sphere foot (what it adds to the
    plant) and the metrics' vectorized one (what slip takes out) are one formula."""
    import types

    import numpy as np

    from gaitsim.sim.metrics import rolled

    n0, n1 = math.sqrt(sum(x * x for x in q0)), math.sqrt(sum(x * x for x in q1))
    q0 = tuple(x / n0 for x in q0)
    q1 = tuple(x / n1 for x in q1)
    ctl = GaitController.__new__(GaitController)
    ctl.config = ControlConfig()
    ctl.soles = None  # a sphere foot (soles have no rolling offset)
    ctl.geo = types.SimpleNamespace(foot_radius=radius)
    ctl._td_quat = [q0]
    ox, oy = ctl._rolled(0, q1)
    want = rolled(np.array(q0), np.array(q1), radius)
    w = abs(sum(a * b for a, b in zip(q0, q1, strict=True)))  # cos of half the turn between
    if w < 1e-9:  # a half turn: about n and about -n are the same turn, either sign is right
        assert math.hypot(ox, oy) == pytest.approx(math.hypot(want[0], want[1]), abs=1e-9)
        return
    assert (ox, oy) == pytest.approx((want[0], want[1]), abs=1e-9)


def _late_swing_leg(ctl) -> int:
    """Step ``ctl`` until some leg is past the early-hold point of its swing; its index."""
    for _ in range(200):
        plan = ctl.planner
        for i, (st_, u) in enumerate(zip(plan.stance, plan.swing_progress, strict=True)):
            if not st_ and 0.6 < u < 0.8:
                return i
        ctl.step()
    raise AssertionError("no leg reached its late swing in 200 steps")


def test_a_foot_that_lands_early_is_held_where_it_touched():
    """Late in its swing a foot that the sensors report on the ground stays at that point
    (on the ground under it) on the following steps, touching or not, until its stance;
    with ``early_hold=1`` it follows the arc on."""
    entry = resolve_entry("horn_beetle")
    with World() as world:
        robot = Robot(world, entry)
        kin = Walker(entry, **physics_walker_options())
        ctl = GaitController(world, robot, kin, ControlConfig(), record=False)
        i = _late_swing_leg(ctl)
        sensed = ctl.sensed
        touch = list(sensed.contacts)
        touch[i] = True
        fx, fy, _ = sensed.feet[i]
        now, ahead, _ = ctl._plan_feet(sensed._replace(contacts=touch), (0.0, 0.0))
        held = (fx, fy, ctl.planner.rest_z(i, fx, fy))
        assert now[i] == ahead[i] == pytest.approx(held)
        ctl.s += 0.01 * ctl.planner.cycle  # a moment later, the sensor no longer sees it
        now2, _, _ = ctl._plan_feet(sensed, (0.0, 0.0))
        assert not ctl.planner.stance[i] and now2[i] == pytest.approx(held)
        # the arc itself would have moved on
        assert ctl.planner.swing_target(i, ctl.planner.swing_progress[i]) != pytest.approx(held)

        free = GaitController(world, robot, kin, ControlConfig(early_hold=1.0), record=False)
        j = _late_swing_leg(free)
        touch = list(free.sensed.contacts)
        touch[j] = True
        now, _, _ = free._plan_feet(free.sensed._replace(contacts=touch), (0.0, 0.0))
        u = free.planner.swing_progress[j]
        assert now[j] == pytest.approx(free.planner.swing_target(j, u))


def _lifting_leg(ctl) -> int:
    """Step ``ctl`` until some leg has just begun its swing with its foot still on the
    ground (the controller holding it); its index."""
    for _ in range(200):
        before = list(ctl.planner.stance)
        ctl.step()
        for i, (was, now) in enumerate(zip(before, ctl.planner.stance, strict=True)):
            if was and not now and ctl._lifting[i]:
                return i
    raise AssertionError("no leg lifted off in 200 steps")


def test_a_foot_still_down_after_lift_off_rises_where_it_stood_unless_dragged_off():
    """Just after lift-off a foot the sensors still see on the ground keeps the x, y of its
    lift-off point (it rises before it moves); one that the body has carried more than its
    radius away from that point follows its arc."""
    entry = resolve_entry("horn_beetle")
    with World() as world:
        robot = Robot(world, entry)
        kin = Walker(entry, **physics_walker_options())
        r = geometry(entry.gait).foot_radius
        for drag, held in ((0.5 * r, True), (1.5 * r, False)):
            ctl = GaitController(world, robot, kin, ControlConfig(), record=False)
            i = _lifting_leg(ctl)
            sensed = ctl.sensed
            x, y, _ = ctl.planner.lift_from[i]
            touch, feet = list(sensed.contacts), list(sensed.feet)
            touch[i] = True
            ctl._plan_feet(sensed._replace(contacts=touch), (0.0, 0.0))  # still down ...
            ctl.s += 0.1 * ctl.planner.cycle  # ... a fifth of its swing on (the arc moved)
            feet[i] = (x + drag, y, feet[i][2])  # carried forward by ``drag``
            now, _, _ = ctl._plan_feet(sensed._replace(contacts=touch, feet=feet), (0.0, 0.0))
            u = ctl.planner.swing_progress[i]
            assert 0.1 < u < LIFT_FIRST_UNTIL
            arc = ctl.planner.swing_target(i, u)
            assert (x, y) != pytest.approx(arc[:2], abs=1e-3)  # the arc has moved on
            want = (x, y) if held else arc[:2]
            assert now[i][:2] == pytest.approx(want, abs=1e-9), (drag, held)
            assert now[i][2] == pytest.approx(arc[2], abs=1e-9)  # rising on the arc


def test_a_stretched_hind_leg_is_not_held_out_of_reach():
    """The horn beetle at twice its stride: a hind foot dragged at lift-off, held where it
    lifted, fell behind its stretched leg's reach (shortfall 125 mm, verdict out_of_reach);
    let go once dragged, it walks within the verdict's 10 mm."""
    s = simulate("horn_beetle", seconds=4.0, speed_scale=2.0).summary
    assert s["max_shortfall_m"] <= 0.010 and s["verdict"] == "walked", s["verdict_reason"]


def test_early_hold_is_a_share_of_the_swing():
    with pytest.raises(ValueError, match="early_hold"):
        ControlConfig(early_hold=1.5)


def test_the_stance_gain_is_the_gaits_own_unless_asked_for(built_controller):
    # 0.03 for a free body whose gait stands on a line of point feet long enough for a
    # drift to at least double (the hound's trot), 0.05 otherwise (``stance.stance_gain``)
    from gaitsim.sim.stance import LINE_STANCE_KP, STANCE_KP

    cases = (("fox", {}, STANCE_KP), ("hound", {}, LINE_STANCE_KP),
             ("horn_beetle", {}, STANCE_KP), ("mechanic", {}, STANCE_KP),
             ("hound", {"kp": 0.05}, STANCE_KP),  # asked for: it wins
             ("hound", {"body": "assist"}, STANCE_KP))  # held upright: nothing tips it
    for name, config, want in cases:
        assert built_controller(name, "_kp", **config) == want, (name, config)


def test_which_walkers_follow_their_footholds(built_controller):
    def _follow(walker, **config):
        return built_controller(walker, "_follow", **config)

    """The body follows its stance feet's placement only where the gait stands on a line of
    point feet long enough, after a multi-foot phase long enough, that the legs' pull back
    to the reference would let the drift grow from step to step: the hound's trot, and
    generated seed 54's (0.416 s of a 1.152 s cycle on each diagonal at 0.268 m: G =
    e^2.66 = 14.3; after 0.160 s on four feet, pulled at its stance gain 0.03 x 240 Hz:
    R = 1 - e^(-1.152) = 0.684; 1 - 1 / (R G) = 0.898; at the stiffer 0.05: R = 1 -
    e^(-1.92) = 0.853, 0.918). The fox's walk and the six- and eight-legged walkers keep
    the old tracking exactly (0); free bipeds on soles keep ``stance.SOLE_FOLLOW`` (stop
    45), assisted ones 0."""
    from gaitsim.generate import random_entry
    from gaitsim.sim.stance import SOLE_FOLLOW

    for name in ("fox", "horn_beetle", "spider_bot"):
        assert _follow(name) == 0.0, name
    for name in ("mechanic", "raptor"):
        assert _follow(name) == SOLE_FOLLOW and _follow(name, body="assist") == 0.0, name
    assert 0.0 < SOLE_FOLLOW < 1.0
    assert _follow("raptor", foothold_follow=0.0) == 0.0  # on soles too the config's wins
    assert 0.25 < _follow("hound") < 0.3 < 0.5 < _follow("hound", kp=0.05) < 0.6
    assert _follow(random_entry(54)) == pytest.approx(0.898, abs=2e-3)
    assert _follow(random_entry(54), kp=0.05) == pytest.approx(0.918, abs=2e-3)
    assert _follow("hound", track_gain=0.0) == 0.0  # no pull back: nothing to undo
    assert _follow("fox", foothold_follow=0.5) == 0.5  # the config's share wins
    assert _follow("hound", foothold_follow=0.0) == 0.0


def test_foothold_follow_must_be_a_share():
    for bad in (-0.1, 1.5, math.nan):
        with pytest.raises(ValueError, match="foothold_follow"):
            ControlConfig(foothold_follow=bad)


def test_the_foothold_offset_by_hand():
    """Stance feet 2 cm and 0 cm ahead of their planned landing, at 0.25 and 0.75 of their
    stances: the offset is their mean weighted by the stance left (0.75 and 0.25, each plus
    FOLLOW_WEIGHT_FLOOR); swing feet do not count."""
    from gaitsim.sim.controller import FOLLOW_WEIGHT_FLOOR

    entry = resolve_entry("hound")
    with World() as world:
        robot = Robot(world, entry)
        ctl = GaitController(world, robot, Walker(entry, **physics_walker_options()))
        plan = ctl.planner
        plan.stance = [True, True, False, False]
        plan.stance_progress = [0.25, 0.75, 0.0, 0.0]
        plan.land_at = [(0.1, 0.1, 0.0), (0.3, -0.1, 0.0), (9.0, 9.0, 0.0), (9.0, 9.0, 0.0)]
        plan.plant = [(0.12, 0.1, 0.0), (0.3, -0.1, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)]
        ox, oy = ctl._foothold_offset()
    w0, w1 = 0.75 + FOLLOW_WEIGHT_FLOOR, 0.25 + FOLLOW_WEIGHT_FLOOR
    assert ox == pytest.approx(0.02 * w0 / (w0 + w1))
    assert oy == pytest.approx(0.0)
