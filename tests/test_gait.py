"""Foot targets over distance: the seed's formula, seamless phase, swing profiles, sub-phases."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gaitsim import foot_targets, load_catalog, stance_phase_labels, swing_height, swing_time_below
from gaitsim.catalog import rep103_to_gaitkit
from gaitsim.gait import (
    CLEARANCE_DROP,
    CLEARANCE_RISE,
    STANCE_PHASES,
    clearance_floor,
    cycle_position,
)

CAT = load_catalog()
NAMES = list(CAT)


def seed_foot_target(gait, leg, distance):
    """Direct transcription of the seed's footTarget (Gaitkit frame, plain Python floats)."""
    smooth = lambda t: t * t * (3 - 2 * t)  # noqa: E731
    cycle = gait["stride"] / gait["duty"]
    t = ((distance / cycle + leg["phase"]) % 1 + 1) % 1
    hx, _, hz = leg["home"]
    if t < gait["duty"]:
        s = t / gait["duty"]
        return [hx, 0, hz + gait["stride"] * (0.5 - s)]
    s = smooth((t - gait["duty"]) / (1 - gait["duty"]))
    return [hx, math.sin(math.pi * s) * gait["lift"], hz + gait["stride"] * (s - 0.5)]


def gaitkit_dict(gait, speed_scale=1.0):
    return {
        "stride": gait.stride * speed_scale,
        "duty": gait.duty,
        "lift": gait.lift,
    }


@pytest.mark.parametrize("name", NAMES)
@given(d=st.floats(-50, 50, allow_nan=False), scale=st.floats(0.25, 2.5))
def test_foot_targets_equal_seed_formula(name, d, scale):
    gait = CAT[name].gait
    ours = foot_targets(gait, d, speed_scale=scale)
    g = gaitkit_dict(gait, scale)
    for i, leg in enumerate(gait.legs):
        ref = seed_foot_target(g, {"phase": leg.phase, "home": rep103_to_gaitkit(leg.home)}, d)
        assert np.allclose(rep103_to_gaitkit(ours[i]), ref, atol=1e-12), (name, d, i)


def test_foot_targets_hand_computed_fox():
    # fox leg_1 (phase 0): at distance 0 it has just touched down -> home + stride/2 forward
    gait = CAT["fox"].gait
    p = foot_targets(gait, 0.0)
    assert p[1] == pytest.approx([-0.175 + 0.075, 0.048, 0.0])
    # a quarter cycle on (0.0535714 m), leg_1 is at stance progress 0.25/0.7
    q = foot_targets(gait, gait.cycle / 4)
    assert q[1, 0] == pytest.approx(-0.175 + 0.15 * (0.5 - 0.25 / 0.7))
    # leg_0 (phase 0.75) at distance 0 is at t=0.75: swing u=(0.75-0.7)/0.3=1/6
    u = 1 / 6
    s = u * u * (3 - 2 * u)
    assert p[0, 2] == pytest.approx(0.035 * math.sin(math.pi * s))
    assert p[0, 0] == pytest.approx(0.155 + 0.15 * (s - 0.5))


def test_foot_targets_shapes():
    gait = CAT["spider_bot"].gait
    assert foot_targets(gait, 0.3).shape == (8, 3)
    assert foot_targets(gait, np.zeros((4, 5))).shape == (4, 5, 8, 3)


@pytest.mark.parametrize("name", NAMES)
@given(d=st.floats(-20, 20, allow_nan=False))
def test_phase_wraps_without_a_seam(name, d):
    """Between distances 1e-4 cycles apart, no foot jumps more than the steepest swing allows."""
    gait = CAT[name].gait
    eps = gait.cycle * 1e-4
    a, b = foot_targets(gait, d), foot_targets(gait, d + eps)
    # swing covers stride in (1-duty) cycles with smoothstep slope <= 1.5, lift arc slope <= pi*1.5
    bound = eps / (1 - gait.duty) / gait.cycle * 1.5 * (gait.stride + math.pi * gait.lift)
    assert np.max(np.linalg.norm(a - b, axis=-1)) <= bound * 1.01 + 1e-12


@pytest.mark.parametrize("name", NAMES)
def test_stance_foot_moves_back_exactly_with_the_body(name):
    gait = CAT[name].gait
    d = np.linspace(0, 2 * gait.cycle, 2001)
    p = foot_targets(gait, d)
    t = cycle_position(gait, d)
    stance = (t[1:] < gait.duty) & (t[:-1] < gait.duty)
    dx = np.diff(p[..., 0], axis=0)
    step = d[1] - d[0]
    assert np.allclose(dx[stance], -step, atol=1e-12)
    assert np.all(p[..., 2][t < gait.duty] == 0.0)


def test_cycle_position_wraps_exactly():
    gait = CAT["fox"].gait
    t = cycle_position(gait, np.array([0.0, gait.cycle, -gait.cycle, -1e-300, 1e9]))
    assert np.all((t >= 0) & (t < 1))


def test_swing_profiles_start_and_end_on_the_ground():
    for profile in ("sine", "clearance"):
        h = swing_height(np.array([0.0, 1.0]), profile)
        assert np.allclose(h, 0.0, atol=1e-15)
        assert swing_height(0.5, profile) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="swing profile"):
        swing_height(0.5, "square")


def test_clearance_arc_cuts_time_near_the_ground():
    lift = 0.04
    for frac in (0.1, 0.25, 0.5):
        sine = swing_time_below(frac * lift, lift, "sine")
        corr = swing_time_below(frac * lift, lift, "clearance")
        assert corr < 0.5 * sine, (frac, sine, corr)
    # hand check: sine arc spends ~34 % of the swing below a quarter of the lift; the
    # clearance arc only while rising to and dropping from its floor: about 13 %
    assert swing_time_below(0.25 * lift, lift, "sine") == pytest.approx(0.34, abs=0.02)
    assert swing_time_below(0.25 * lift, lift, "clearance") == pytest.approx(0.133, abs=0.01)


@pytest.mark.parametrize(("ratio", "floor"), [(1.0, 0.6), (2.0, 0.3), (4.0, 0.3), (0.8, 0.75),
                                              (0.5, 1.0), (0.25, 1.0)])  # fmt: skip
def test_clearance_floor_grows_as_the_step_rate_falls(ratio, floor):
    # the second seed: min height * clamp(rate_ref / rate, 0.5, 2), here 0.6 of the lift at
    # the gait's own rate, never above the lift
    assert clearance_floor(ratio) == pytest.approx(floor)
    u = np.linspace(CLEARANCE_RISE, 1.0 - CLEARANCE_DROP, 201)
    assert np.all(swing_height(u, "clearance", floor) >= floor - 1e-12)
    with pytest.raises(ValueError, match="rate_ratio"):
        clearance_floor(0.0)


def test_clearance_profile_in_foot_targets():
    gait = CAT["fox"].gait
    d = np.linspace(0, gait.cycle, 601)
    sine = foot_targets(gait, d)
    corr = foot_targets(gait, d, swing="clearance")
    assert np.allclose(sine[..., :2], corr[..., :2])  # only the height differs
    assert np.mean(corr[..., 2] > 0.5 * gait.lift) > np.mean(sine[..., 2] > 0.5 * gait.lift)


def test_stance_sub_phases_follow_the_seed_split():
    gait = CAT["mechanic"].gait  # duty 0.6 like the seed
    leg0 = gait.legs[0]
    assert leg0.phase == 0
    # seed: contact 12 %, loading 18 %, mid 15 %, push-off 15 %, swing 40 % of a step
    cases = {0.05: "contact", 0.2: "loading", 0.4: "mid-stance", 0.55: "push-off", 0.8: "swing"}
    for t, want in cases.items():
        lab = stance_phase_labels(gait, t * gait.cycle)
        assert STANCE_PHASES[lab[0]] == want, (t, STANCE_PHASES[lab[0]])
    labels = stance_phase_labels(gait, np.linspace(0, gait.cycle, 1000, endpoint=False))[:, 0]
    share = np.bincount(labels, minlength=5) / 1000
    assert share == pytest.approx([0.12, 0.18, 0.15, 0.15, 0.40], abs=0.002)
