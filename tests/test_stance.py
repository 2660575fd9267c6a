"""The stance legs' load sharing (gaitsim.sim.stance): pure maths, checked by hand and by
hypothesis."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaitsim.sim.metrics import support_margin
from gaitsim.sim.stance import (
    attitude_arms,
    availability,
    load_shares,
    solve3,
    stiffness_blend,
)


def test_two_equal_feet_either_side_share_equally():
    assert load_shares([1.0, 1.0], [(0.1, 0.0), (-0.1, 0.0)]) == pytest.approx([0.5, 0.5])


def test_lever_rule_by_hand():
    # feet at x = +0.1 and x = -0.3 about the centre of mass: the moment balance
    # F1 * 0.1 = F2 * 0.3 with F1 + F2 = 1 gives F1 = 0.75, F2 = 0.25
    shares = load_shares([1.0, 1.0], [(0.1, 0.0), (-0.3, 0.0)])
    assert shares == pytest.approx([0.75, 0.25], abs=1e-5)


def test_a_requested_moment_moves_load_to_that_side():
    arms = [(0.1, 0.1), (0.1, -0.1), (-0.1, 0.1), (-0.1, -0.1)]
    level = load_shares([1.0] * 4, arms)
    assert level == pytest.approx([0.25] * 4)
    left = load_shares([1.0] * 4, arms, moment=(0.0, 0.02))  # sum F dy / W = 0.02
    # exact up to the regularization (1e-6 of the feet's spread) that keeps lines of feet
    # solvable
    assert sum(s * dy for s, (_, dy) in zip(left, arms, strict=True)) == pytest.approx(
        0.02, rel=1e-5
    )
    assert left[0] > level[0] and left[1] < level[1]


def test_swing_legs_carry_nothing_and_min_share_keeps_stance_feet_loaded():
    arms = [(0.2, 0.0), (-0.2, 0.0), (0.0, 0.3)]
    shares = load_shares([1.0, 1.0, 0.0], arms)
    assert shares[2] == 0.0 and sum(shares) == pytest.approx(1.0)
    # the centre of mass over the first foot: the second would be unloaded ...
    shares = load_shares([1.0, 1.0], [(0.0, 0.0), (-0.4, 0.0)])
    assert shares[1] == pytest.approx(0.0, abs=1e-5)  # up to the regularization
    # ... unless each stance foot keeps a minimum share
    shares = load_shares([1.0, 1.0], [(0.0, 0.0), (-0.4, 0.0)], min_share=0.1)
    assert shares[1] == pytest.approx(0.1 / 1.1)


def test_availability_ramps_in_and_out():
    a = availability([True] * 5 + [False], [0.0, 0.075, 0.15, 0.5, 1.0, 0.3], ramp=0.15)
    assert a[0] == pytest.approx(1e-3)  # the floor at touchdown
    assert a[1] == pytest.approx(0.5)  # smoothstep(0.5)
    assert a[2] == a[3] == 1.0
    assert a[4] == pytest.approx(1e-3)
    assert a[5] == 0.0


def test_solve3_against_numpy():
    rng = np.random.default_rng(4)
    for _ in range(20):
        m = rng.normal(size=(3, 3))
        a = m @ m.T + 0.1 * np.eye(3)
        b = rng.normal(size=3)
        x = solve3(a[0, 0], a[0, 1], a[0, 2], a[1, 1], a[1, 2], a[2, 2], *b)
        assert np.allclose(x, np.linalg.solve(a, b))


def test_attitude_arms_push_under_the_low_side():
    # turned by -0.1 rad about +x: the body's z axis tips toward +y, the left side is down,
    # so more load goes to the left feet (positive dy) to push it back up
    q = (math.sin(-0.05), 0.0, 0.0, math.cos(-0.05))
    mx, my = attitude_arms(q, (0.0, 0.0, 0.0), height=0.2, gain=1.0, damping=0.0)
    assert mx == pytest.approx(0.0, abs=1e-12)
    assert my == pytest.approx(0.2 * math.sin(0.1))
    # pitched nose down (about +y by +0.1): z tips toward +x, load goes to the front feet
    q = (0.0, math.sin(0.05), 0.0, math.cos(0.05))
    mx, my = attitude_arms(q, (0.0, 0.0, 0.0), height=0.2, gain=1.0, damping=0.0)
    assert mx == pytest.approx(0.2 * math.sin(0.1)) and my == pytest.approx(0.0, abs=1e-12)
    assert attitude_arms(q, (1.0, 0.0, 0.0), 0.2, 0.0, 0.0) == (0.0, 0.0)


def test_stiffness_blend():
    assert stiffness_blend(0.05, 0.02) == 0.0  # well inside
    assert stiffness_blend(-0.05, 0.02) == 1.0  # outside
    assert stiffness_blend(0.0, 0.02) == pytest.approx(0.5)  # on the edge
    assert stiffness_blend(-math.inf, 0.02) == 1.0  # no support at all


feet = st.lists(
    st.tuples(st.floats(-0.5, 0.5), st.floats(-0.5, 0.5), st.floats(0.05, 1.0)),
    min_size=3,
    max_size=8,
)


@settings(max_examples=200, deadline=None)
@given(feet=feet)
def test_shares_are_a_partition_and_balance_when_they_can(feet):
    arms = [(x, y) for x, y, _ in feet]
    avail = [a for *_, a in feet]
    shares = load_shares(avail, arms)
    assert all(s >= 0 for s in shares)
    assert sum(shares) == pytest.approx(1.0)
    # when the centre of mass (the origin) lies well inside the feet's hull the split is
    # exact: no net moment about it from the vertical forces
    if support_margin((0.0, 0.0), arms, [True] * len(arms)) > 0.02 and all(
        s > 1e-6 for s in shares
    ):
        mx = sum(s * x for s, (x, _) in zip(shares, arms, strict=True))
        my = sum(s * y for s, (_, y) in zip(shares, arms, strict=True))
        assert abs(mx) < 1e-4 and abs(my) < 1e-4


# ---------------------------------------------------------------------------- the line
# support and the share of a placement the body follows (``line_support``,
# ``foothold_follow``)


def test_a_trots_line_support_by_hand():
    # legs at phases 0 and 0.5, duty 0.64: all four feet down for u in [0, 0.14) and
    # [0.5, 0.64), a diagonal pair alone for [0.14, 0.5) and [0.64, 1): 0.36 of the cycle
    # on a line, after 0.14 on four feet
    from gaitsim.sim.stance import SUPPORT_SAMPLES, line_support

    line, before = line_support([0.5, 0.0, 0.0, 0.5], 0.64, 2.0)
    tol = 2.0 * 2.0 / SUPPORT_SAMPLES
    assert line == pytest.approx(0.36 * 2.0, abs=tol)
    assert before == pytest.approx(0.14 * 2.0, abs=tol)


def test_line_support_of_walks_bipeds_and_standing():
    from gaitsim.sim.stance import line_support

    # a wave of eight legs at duty 0.65: at least five feet always down
    assert line_support([k / 8 for k in range(8)], 0.65, 1.0) == (0.0, 1.0)
    # a biped: never three feet down
    assert line_support([0.0, 0.5], 0.6, 0.8) == (0.8, 0.0)
    # a quadruped walk at duty 0.7 (lateral sequence 0, 0.5, 0.25, 0.75): two feet down
    # while two consecutive swings overlap, 0.05 of the cycle, after 0.2 on three
    line, before = line_support([0.0, 0.5, 0.25, 0.75], 0.7, 1.0)
    assert line == pytest.approx(0.05, abs=2.0 / 720)
    assert before == pytest.approx(0.20, abs=2.0 / 720)


def _gait(phases, duty, sides):
    from gaitsim.catalog import parse_catalog

    segs = [{"name": f"l{k}", "side": sd, "phase": ph, "knee": "forward", "upper": 0.1,
             "lower": 0.1, "home": [0.05 if sd == "L" else -0.05, 0.0, 0.1 - 0.05 * k]}
            for k, (ph, sd) in enumerate(zip(phases, sides, strict=True))]  # fmt: skip
    gait = {"stride": 0.05, "duty": duty, "lift": 0.02, "clip_speed": 0.1, "segments": segs}
    return parse_catalog({"w": {"gait": gait}})["w"].gait


def test_support_shares_by_hand():
    from gaitsim.sim.stance import SUPPORT_SAMPLES, support_shares

    tol = 2.0 / SUPPORT_SAMPLES
    # a biped at duty 0.6: double support 0.2 of the cycle, one foot (on one side) 0.8
    s = support_shares(_gait([0.0, 0.5], 0.6, "LR"))
    assert s["under_three"] == 1.0
    assert s["one_foot"] == pytest.approx(0.8, abs=tol) == s["one_side"]
    # a trot at duty 0.75 (fore left and hind right together): a diagonal pair alone
    # half the cycle, both sides always down
    s = support_shares(_gait([0.0, 0.5, 0.5, 0.0], 0.75, "LRLR"))
    assert s["under_three"] == pytest.approx(0.5, abs=tol)
    assert s["one_foot"] == 0.0 and s["one_side"] == 0.0
    # the same legs paced (each side together): a lateral pair alone half the cycle
    s = support_shares(_gait([0.0, 0.5, 0.0, 0.5], 0.75, "LRLR"))
    assert s["under_three"] == pytest.approx(0.5, abs=tol) == s["one_side"]
    # three legs at duty 0.6, a third of a cycle apart: two swings overlap 0.0667 of it
    s = support_shares(_gait([0.0, 1 / 3, 2 / 3], 0.6, "LRL"))
    assert s["one_foot"] == pytest.approx(3 * (0.4 - 1 / 3), abs=tol)
    assert s["under_three"] == 1.0


def _oval_gait(phases, duty, track=0.12, length=0.3):
    """Three legs a side (Gaitkit frame): fore and hind ``track`` m apart across, the
    middle ones half as far again out, so each side's feet make a triangle whose inner
    edge passes ``track / 2`` from the centre."""
    from gaitsim.catalog import parse_catalog

    segs = []
    for side, sign in (("L", 1.0), ("R", -1.0)):
        for k, (x, z) in enumerate(((0.5, 0.5), (0.75, 0.0), (0.5, -0.5))):
            segs.append({"name": f"{side}{k}", "side": side, "phase": phases[len(segs)],
                         "knee": "forward", "upper": 0.1, "lower": 0.1,
                         "home": [sign * x * track, 0.0, z * length]})  # fmt: skip
    gait = {"stride": 0.06, "duty": duty, "lift": 0.02, "clip_speed": 0.1, "segments": segs}
    return parse_catalog({"w": {"gait": gait}})["w"].gait


def test_a_whole_side_of_legs_holds_the_body_no_better_than_a_line():
    # six legs paced (each side's three together) at duty 0.7: for 0.3 of the cycle only one
    # side's three feet are down, their triangle 60 mm from the centre: weak, like a
    # trot's diagonal. The same legs in a tripod keep the centre inside every triangle
    from gaitsim.sim.stance import SUPPORT_SAMPLES, line_stand, weak_support

    tol = 2.0 / SUPPORT_SAMPLES
    pace = _oval_gait([0.0] * 3 + [0.5] * 3, 0.7)
    weak = weak_support(pace)
    assert weak.mean() == pytest.approx(0.6, abs=tol)  # each side alone 0.3 of the cycle
    phases = [leg.phase for leg in pace.legs]
    assert line_stand(phases, 0.7, 1.0, weak=weak) == pytest.approx(0.3, abs=tol)
    assert line_stand(phases, 0.7, 1.0) == 0.0  # three feet are never "fewer than three"
    tripod = _oval_gait([0.0, 0.5, 0.0, 0.5, 0.0, 0.5], 0.7)
    assert not weak_support(tripod).any()
    assert not weak_support(tripod).flags.writeable


def test_the_off_centre_depth_is_a_share_of_the_standing_height():
    # the same pace on a narrow track: one side's feet leave the centre outside by half the
    # track; under OFF_CENTRE_SHARE standing heights they hold it (as a walk's three-foot
    # phases, which the sway carries it into), over it they do not
    from gaitsim.geometry import geometry
    from gaitsim.sim.stance import OFF_CENTRE_SHARE, weak_support

    for track in (0.02, 0.12):
        g = _oval_gait([0.0] * 3 + [0.5] * 3, 0.7, track=track)
        depth = OFF_CENTRE_SHARE * geometry(g).standing_height
        assert weak_support(g).any() == (track / 2 > depth), (track, depth)
    assert OFF_CENTRE_SHARE * geometry(_oval_gait([0.0] * 6, 0.7)).standing_height > 0.01


def test_foothold_follow_by_hand():
    from gaitsim.sim.stance import foothold_follow

    # 0.36 s on a line at a standing height of 0.25 m: omega T = 0.36 sqrt(9.81 / 0.25)
    # = 2.2551, a drift grows G = e^2.2551 = 9.536 times; 0.14 s of pull at a time
    # constant of 1/12 s pulls R = 1 - e^(-1.68) = 0.8136 of the way back; the body keeps
    # 1 - 1 / (R G) = 1 - 1 / 7.758 = 0.8711
    assert foothold_follow(0.36, 0.14, 0.25, 1.0 / 12.0) == pytest.approx(0.8711, abs=1e-4)
    growth = math.exp(0.36 * math.sqrt(9.81 / 0.25))
    pulled = 1.0 - math.exp(-0.14 * 12.0)
    assert foothold_follow(0.36, 0.14, 0.25, 1.0 / 12.0) == pytest.approx(
        1.0 - 1.0 / (growth * pulled))
    # where R G <= 1 the old tracking keeps enough: 0
    assert foothold_follow(0.01, 0.2, 0.25, 1.0 / 12.0) == 0.0  # G 1.065, R 0.909
    # (0.05 s on the line: G = 1.368, R G = 1.244, the body keeps 1 - 1 / 1.244 = 0.196)
    assert foothold_follow(0.05, 0.2, 0.25, 1.0 / 12.0) == pytest.approx(0.196, abs=1e-3)
    assert foothold_follow(0.36, 0.005, 0.25, 1.0 / 12.0) == 0.0  # R 0.058
    # no line, no multi-foot phase, no pull: 0
    assert foothold_follow(0.0, 0.5, 0.25, 1.0 / 12.0) == 0.0
    assert foothold_follow(0.5, 0.0, 0.25, 1.0 / 12.0) == 0.0
    assert foothold_follow(0.5, 0.5, 0.25, math.inf) == 0.0


def test_line_growth_by_hand():
    from gaitsim.sim.stance import line_growth

    # 0.36 s on a line at 0.25 m: omega T = 0.36 sqrt(9.81 / 0.25) = 2.2551, e^2.2551 = 9.536
    assert line_growth(0.36, 0.25) == pytest.approx(9.536, abs=1e-3)
    assert line_growth(0.0, 0.25) == 1.0  # no stand on a line: no growth
    # a taller body falls slower: the same stand grows a drift less
    assert line_growth(0.36, 1.0) < line_growth(0.36, 0.25)
    with pytest.raises(ValueError, match="height must be positive"):
        line_growth(0.36, 0.0)
    # a stand of hours (a catalog's slow, long cycle) saturates instead of overflowing
    assert line_growth(40000.0, 26.25) == math.inf


@given(line=st.floats(0.0, 2.0), h=st.floats(0.01, 2.0), dh=st.floats(0.01, 1.0))
def test_line_growth_rises_with_the_stand_and_falls_with_height(line, h, dh):
    from gaitsim.sim.stance import line_growth

    g = line_growth(line, h)
    assert g >= 1.0
    assert line_growth(line + 0.1, h) > g
    assert line_growth(line, h + dh) <= g


def test_line_stand_by_hand():
    from gaitsim.sim.stance import SUPPORT_SAMPLES, line_stand

    tol = 2.0 / SUPPORT_SAMPLES
    # a trot of duty exactly 0.5: each diagonal pair stands alone for half the cycle (to
    # line_support the whole cycle is one stretch on two feet)
    assert line_stand([0.5, 0.0, 0.0, 0.5], 0.5, 1.0) == pytest.approx(0.5, abs=tol)
    # duty 0.64 over 2 s: 0.36 of the cycle on a diagonal, as line_support has it
    assert line_stand([0.5, 0.0, 0.0, 0.5], 0.64, 2.0) == pytest.approx(0.72, abs=2 * tol)
    # a biped at duty 0.6: single support, 0.4 of the cycle
    assert line_stand([0.0, 0.5], 0.6, 1.0) == pytest.approx(0.4, abs=tol)
    assert line_stand([k / 8 for k in range(8)], 0.65, 1.0) == 0.0  # five always down
    assert line_stand([0.0, 0.0], 1.0, 3.0) == 3.0  # two feet, never lifted: one stand
