"""FootPlanner (the controller's per-step foot plan) against Walker.feet_plan (the pure plan).

With no feedback (planned touchdowns, no placement correction, no steering) the planner
must agree with the Walker on which feet are down, where each stance foot is, where each
swing starts and ends, and how high a swing foot is; between its ends a swing foot moves
on the straight world chord (documented difference) and never leaves it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaitsim import load_catalog
from gaitsim.footplan import FootPlanner, Steering
from gaitsim.gait import clearance_floor, swing_height
from gaitsim.generate import random_entry
from gaitsim.path import Arc, Straight, TurnInPlace
from gaitsim.terrain import Flat, Rough, Slope
from gaitsim.walker import Walker

CAT = load_catalog()
NAMES = sorted(CAT)


def _entry(key):
    return CAT[key] if isinstance(key, str) else random_entry(key)


def _path(kind, entry):
    if kind == "straight":
        return Straight()
    if kind == "arc":
        return Arc(0.8)
    return TurnInPlace(0.3)


def _terrain(kind):
    return {"flat": Flat(), "slope": Slope.from_degrees(8.0), "rough": Rough(0.01, seed=3)}[kind]


walkers = st.one_of(st.sampled_from(NAMES), st.integers(0, 60))


@settings(max_examples=30, deadline=None)
@given(
    key=walkers,
    path=st.sampled_from(["straight", "arc", "turn"]),
    terrain=st.sampled_from(["flat", "slope", "rough"]),
    start=st.floats(0.0, 3.0),
    swing=st.sampled_from(["sine", "clearance"]),
)
def test_planner_agrees_with_the_walker(key, path, terrain, start, swing):
    entry = _entry(key)
    w = Walker(entry, _terrain(terrain), _path(path, entry), swing=swing)
    plan = FootPlanner(w)
    s0 = start * w.cycle
    plan.reset(s0)
    ds = w.cycle / 37.0
    for k in range(1, 80):
        s = s0 + k * ds
        now, ahead, _ = plan.advance(s, ds)
        xy, stance, u, _ = w.feet_plan(np.array(s))
        assert plan.stance == [bool(x) for x in stance]
        for i in range(w.gait.n_legs):
            if stance[i]:
                assert now[i][:2] == pytest.approx(tuple(xy[i]), abs=1e-9)
                z = float(w.ground_point(xy[i])) + w.gait.legs[i].home[2]
                assert now[i][2] == pytest.approx(z, abs=1e-9)
                assert ahead[i] == now[i]
            else:
                assert plan.swing_progress[i] == pytest.approx(float(u[i]), abs=1e-9)
                _check_swing(w, plan, i, now[i], float(u[i]))


def _check_swing(w, plan, i, target, u):
    a, b = plan.lift_from[i], plan.land_at[i]
    # the ends are the Walker's plants of the stances before and after this swing
    t = plan.cycle_position(plan.s, i)
    before = w.feet_plan(np.array(plan.mid_before(plan.s, t)))[0][i]
    after = w.feet_plan(np.array(plan.mid_after(plan.s, t)))[0][i]
    assert a[:2] == pytest.approx(tuple(before), abs=1e-9)
    assert b[:2] == pytest.approx(tuple(after), abs=1e-9)
    # on the chord between them, eased by smoothstep
    sig = u * u * (3 - 2 * u)
    x = a[0] + sig * (b[0] - a[0])
    y = a[1] + sig * (b[1] - a[1])
    assert target[:2] == pytest.approx((x, y), abs=1e-9)
    # lifted by the Walker's arc over the chord (or the ground under the foot, if higher)
    floor = clearance_floor(1.0)
    lift = w.gait.lift * float(swing_height(u, w.swing, floor))
    chord_z = a[2] + sig * (b[2] - a[2])
    ground = plan.rest_z(i, x, y) if isinstance(w.terrain, Rough) and 0 < u < 1 else -math.inf
    rise = float(w.flight_rise(plan.s))  # with a flying body (0 without flight phases)
    assert target[2] == pytest.approx(max(chord_z, ground) + lift + rise, abs=1e-9)


def test_touchdown_where_the_foot_really_is_and_placement_correction():
    w = Walker("horn_beetle")
    plan = FootPlanner(w)
    plan.reset(0.0)
    ds = w.cycle / 50
    feet = [(100.0 + i, 200.0 + i) for i in range(w.gait.n_legs)]
    seen = 0
    for k in range(1, 120):
        before = list(plan.stance)
        plan.advance(k * ds, ds, touchdown=feet)
        for i, (was, now) in enumerate(zip(before, plan.stance, strict=True)):
            if now and not was:  # touched down: held where the physics says it is
                assert plan.plant[i][:2] == feet[i]
                seen += 1
    assert seen >= w.gait.n_legs
    plan.reset(0.0)
    for k in range(1, 120):
        before = list(plan.stance)
        plan.advance(k * ds, ds, corr=(0.01, -0.02))
        for i, (was, now) in enumerate(zip(before, plan.stance, strict=True)):
            if now and not was:  # the planned landing point, moved by the correction
                a = plan.land_at[i]
                assert plan.plant[i][:2] == pytest.approx((a[0] + 0.01, a[1] - 0.02))


def test_steering_turns_the_footholds():
    w = Walker("spider_bot")
    st_ = Steering()
    plan = FootPlanner(w, st_)
    base = [plan.plant_point(i, 0.3) for i in range(w.gait.n_legs)]
    st_.turn(math.pi / 2, 0.0, 0.0)
    turned = [plan.plant_point(i, 0.3) for i in range(w.gait.n_legs)]
    for (x, y, _), (tx, ty, _) in zip(base, turned, strict=True):
        assert (tx, ty) == pytest.approx((-y, x), abs=1e-12)
    assert st_.angle == pytest.approx(math.pi / 2)
