"""Knees that stay off the ground: the default hip height keeps every stance knee above the
ground (``geometry.knee_height_floor``), checked against the IK's own knee, by hand, and
(slow) in physics on the generated walker that knelt."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaitsim.generate import irregular_entry, random_entry
from gaitsim.geometry import (
    BOB_FRACTION,
    FLIGHT_SAMPLES,
    FLIGHT_SHARE_MIN,
    KNEE_MARGIN,
    KNEE_SAG,
    KNEE_SAG_FLIGHT,
    KNEES,
    _default_mount_xy,
    _lowest_knee,
    _sphere_radius,
    bone_radii,
    default_hip_height,
    flight_gait,
    flight_share,
    geometry,
    knee_height_floor,
)
from gaitsim.ik import LegChain, leg_fk, leg_ik


def _ik_knees(gait, i: int, hip: float) -> float:
    """The lowest knee over the stance by the IK itself: ``ik.leg_ik`` places the foot,
    ``ik.leg_fk`` on a chain with no shin gives the knee."""
    leg = gait.legs[i]
    mx, my = _default_mount_xy(gait, leg)
    top = hip * (1.0 - BOB_FRACTION)
    kind = np.array([KNEES.index(leg.knee)])
    chain = LegChain(np.array([[mx, my, top]]), np.array([leg.upper]),
                     np.array([leg.lower]), kind, np.zeros(1))  # fmt: skip
    thigh_only = LegChain(chain.mount, chain.upper, np.zeros(1), kind, np.zeros(1))
    zs = []
    for s in np.linspace(-gait.stride / 2, gait.stride / 2, 9):
        q, _ = leg_ik(chain, np.array([[leg.home[0] + s, leg.home[1], leg.home[2]]]))
        zs.append(float(leg_fk(thigh_only, q)[0, 2]))
    return min(zs)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), frac=st.floats(0.5, 1.5))
def test_the_lowest_knee_is_the_iks_knee(seed, frac):
    """Over generated walkers (catalog bob unset) and hip heights around the default."""
    gait = random_entry(seed).gait
    hip = frac * default_hip_height(gait)
    for i in range(gait.n_legs):
        got = _lowest_knee(gait, i, hip)
        assert got == pytest.approx(_ik_knees(gait, i, hip), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), frac=st.floats(0.5, 1.5))
def test_an_up_knee_is_the_iks_knee(seed, frac):
    """'up' knees on the irregular walkers (sprawled legs, each its own proportions): the
    knee rises above the hip-to-foot line, not necessarily above the ground."""
    gait = irregular_entry(seed, pattern="rotary").gait
    hip = frac * default_hip_height(gait)
    for i in range(gait.n_legs):
        assert _lowest_knee(gait, i, hip) == pytest.approx(_ik_knees(gait, i, hip), abs=1e-9)


def test_an_up_knee_by_hand():
    """A sprawled leg, stride ~0: thigh 0.4, shin 0.3, its foot 0.3 m out from the mount
    and 0.4 m below it (hip 0.4 / (1 - bob share)): hip to foot 0.5 m, a right angle at
    the knee. The thigh leaves the hip-to-foot line (53.13 deg below level) 36.87 deg
    upward, so it points 16.26 deg below level: the knee 0.4 * sin(16.26 deg) = 0.112 m
    below the hip, 0.288 m over the foot (and 0.384 m out, beyond it)."""
    gait = irregular_entry(0).gait
    leg0 = gait.legs[0]
    mx, my = _default_mount_xy(gait, dataclasses.replace(leg0, knee="up"))
    leg = dataclasses.replace(leg0, knee="up", upper=0.4, lower=0.3, hip=(mx, my, 0.4),
                              home=(mx + 0.3, my, 0.0))  # fmt: skip
    g = dataclasses.replace(gait, legs=(leg,), stride=1e-9)
    assert _lowest_knee(g, 0, 0.4 / (1.0 - BOB_FRACTION)) == pytest.approx(0.288, abs=1e-9)


def test_a_long_thigh_up_knee_raises_the_hip():
    """Irregular walker 163: leg2's 0.52 m thigh and 0.21 m shin, knee up, under the
    reach rule's hip (0.394 m; 0.403 m before the end legs' hips moved along the body,
    ``geometry.UP_MAX_SWEEP``), reach out and down to a knee on the ground, the shin laid
    back along it to the foot (in physics the shin carried up to 400 N and the walker
    rolled over within a second). The default height now keeps every knee
    clear (the long leg's floor is within its own reach; shorter legs mount lower)."""
    from gaitsim.geometry import (
        _height_rule,
        _knee_floors,
        _leg_height_bounds,
        hip_height_bounds,
        mount_heights,
    )

    gait = irregular_entry(163).gait
    radii = bone_radii(gait)
    hip = default_hip_height(gait)
    reach_rule = _height_rule(*hip_height_bounds(gait), 0.0)  # the height without knees
    assert reach_rule == pytest.approx(0.394, abs=1e-3)
    assert hip > reach_rule + 0.05
    for i, (floor, (_, _, highest), mount) in enumerate(
        zip(_knee_floors(gait), _leg_height_bounds(gait), mount_heights(gait, hip), strict=True)
    ):
        assert floor <= highest  # every leg's knee floor is within its own full reach
        need = (1.0 + KNEE_MARGIN) * float(radii[i]) - _sphere_radius(gait)
        need += KNEE_SAG * gait.legs[i].upper
        assert _lowest_knee(gait, i, mount) >= need - 1e-9
    # at the reach rule's height leg2's knee would be planned 22 mm under the feet's
    # centres: below the ground, which lies a foot radius (19 mm) under them
    assert _lowest_knee(gait, 2, reach_rule) < -_sphere_radius(gait)


def test_the_lowest_knee_by_hand():
    """A foot straight under its hip (stride ~0): the knee sits (d^2 - u^2 + l^2) / (2 d)
    over the foot, d the hip's height over it; u = 0.3, l = 0.1, d = 0.25 (hip 0.25 /
    (1 - bob share)): (0.0625 - 0.09 + 0.01) / 0.5 = -0.035 m, below the foot."""
    gait = random_entry(206).gait
    leg = dataclasses.replace(gait.legs[0], upper=0.3, lower=0.1,
                              home=(*_default_mount_xy(gait, gait.legs[0]), 0.0))  # fmt: skip
    g = dataclasses.replace(gait, legs=(leg,), stride=1e-9)
    d = 0.25
    assert _lowest_knee(g, 0, d / (1.0 - BOB_FRACTION)) == pytest.approx(-0.035, abs=1e-9)


def _gait_with(phases, duty):
    gait = random_entry(206).gait
    legs = tuple(dataclasses.replace(gait.legs[i % gait.n_legs], phase=p)
                 for i, p in enumerate(phases))  # fmt: skip
    return dataclasses.replace(gait, legs=legs, duty=duty)


@pytest.mark.parametrize(
    ("phases", "duty", "share"),
    [
        ((0.0, 0.5), 0.6, 0.0),  # a walking biped: a double support, never in the air
        ((0.0, 0.5), 0.4, 0.2),  # a runner: down 0.4 + 0.4 of the cycle
        ((0.0, 0.5, 0.5, 0.0), 0.45, 0.1),  # a trot with flight phases
        ((0.0, 0.0, 0.0, 0.0), 0.3, 0.7),  # a pronk: all feet as one
        ((0.0, 0.25, 0.5, 0.75), 0.2, 0.2),  # four legs in turn, each down a fifth
    ],
)
def test_flight_share_by_hand(phases, duty, share):
    # sampled at FLIGHT_SAMPLES points: each switch of a foot may fall a sample off
    tol = 2 * len(phases) / FLIGHT_SAMPLES
    assert flight_share(_gait_with(phases, duty)) == pytest.approx(share, abs=tol)


@pytest.mark.parametrize(
    ("phases", "duty", "flies"),
    [
        ((0.0, 0.5), 0.6, False),  # a walking biped
        ((0.0, 0.5), 0.49, True),  # a runner: duty below 0.5
        ((0.0, 0.25, 0.5, 0.75), 0.4, True),  # some foot always down, but duty below 0.5
        ((0.0, 0.0), 0.6, True),  # a hop: both feet up together for 0.4 of the cycle
        ((0.0, 0.0, 0.0, 0.0), 0.9, True),  # a pronk: all four up for 0.1
        ((0.0, 0.0, 0.48, 0.48), 0.5, True),  # two pairs 0.02 of a cycle apart
        ((0.0, 0.0, 0.495, 0.495), 0.5, False),  # ... 0.005 apart: below FLIGHT_SHARE_MIN
    ],
)
def test_flight_gait_by_hand(phases, duty, flies):
    gait = _gait_with(phases, duty)
    assert flight_gait(gait) is flies
    assert flight_gait(gait) is (duty < 0.5 or flight_share(gait) > FLIGHT_SHARE_MIN)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_flight_share_bounds(seed):
    """At most the swing's share; 0 once some foot is always down (duty >= 0.5 on the
    generated gaits, whose phases are spread evenly)."""
    gait = random_entry(seed).gait
    share = flight_share(gait)
    assert 0.0 <= share <= 1.0 - gait.duty + 1e-9
    if gait.duty >= 0.5:
        assert share == 0.0


def test_the_floor_is_where_the_knee_clears_the_ground():
    """206's knees reach the ground at its old hip height (0.1517 m): just below the floor
    the lowest knee is under the clearance (its bone's radius and margin, with the body
    sunk by KNEE_SAG of the thigh), at the floor on it, and the default is the floor (the
    reach bound alone is lower)."""
    gait = random_entry(206).gait
    floor = knee_height_floor(gait)
    radii = bone_radii(gait)
    need = (1.0 + KNEE_MARGIN) * float(radii[0]) - _sphere_radius(gait)
    need += KNEE_SAG * gait.legs[0].upper
    lowest = min(_lowest_knee(gait, i, floor) for i in range(gait.n_legs))
    assert lowest >= need - 1e-9
    assert min(_lowest_knee(gait, i, floor - 1e-4) for i in range(gait.n_legs)) < need
    assert 0.1517 < floor < 0.17
    assert geometry(gait).hip_height == pytest.approx(floor)


def test_the_sag_allowance_by_hand():
    """One leg, its foot 0.05 m (a shin) ahead of its hip's line, stride ~0: at the floor
    the knee clears ``need`` = 1.5 bone radii - foot radius + (KNEE_SAG + KNEE_SAG_FLIGHT
    * its flight share) * thigh over the feet's centres, and a thigh's length from the hip
    (its mount given, bobbed down)."""
    gait = random_entry(206).gait
    leg = dataclasses.replace(gait.legs[0], upper=0.2, lower=0.05, hip=(0.0, 0.0, 0.2),
                              home=(0.05, 0.0, 0.0))  # fmt: skip
    g = dataclasses.replace(gait, legs=(leg,), stride=1e-9)
    need = (1.0 + KNEE_MARGIN) * float(bone_radii(g)[0]) - _sphere_radius(g)
    # one leg of duty 0.51 is in flight the other 0.49 of its cycle
    assert flight_share(g) == pytest.approx(0.49, abs=2e-3)
    need += (KNEE_SAG + KNEE_SAG_FLIGHT * flight_share(g)) * 0.2
    top = knee_height_floor(g) * (1.0 - BOB_FRACTION)  # the hip at its lowest bob
    # at the floor the knee is ``need`` over the feet's centres and a shin from the foot,
    # behind it (a back knee, as 206's), and a thigh from the hip
    assert leg.knee == "back"
    knee_x = 0.05 - math.sqrt(0.05**2 - need**2)
    assert math.hypot(knee_x, top - need) == pytest.approx(0.2, abs=1e-6)


BUILT_IN = ["fox", "hound", "horn_beetle", "spider_bot", "mechanic", "raptor"]


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_built_in_walkers_knees_never_set_their_height(name):
    """Their knees clear the ground at the reach rule's height: their bodies are unchanged."""
    from gaitsim.geometry import hip_height_bounds
    from gaitsim.walker import resolve_entry

    gait = resolve_entry(name).gait
    _, high, _ = hip_height_bounds(gait)
    assert knee_height_floor(gait) < high


@pytest.mark.slow
@pytest.mark.parametrize("seed", [206, 215])
def test_walkers_that_knelt_walk_on_their_feet(seed):
    """206 (8 legs, 0.156 m thighs on 0.031 m shins) knelt at a 0.152 m hip: its shins
    carried half its weight and its feet lifted halfway through each stance (measured duty
    0.30-0.41 against 0.51, 2.07 touchdowns per stance). At the knee floor, 10 s flat:
    duty 0.51-0.52, 1.01 touchdowns per stance, timing error 0.005 (this machine). 215
    (12 legs, 1.9 touchdowns per stance on 1 cm rough ground before) likewise."""
    from gaitsim.sim.run import simulate

    gait = random_entry(seed).gait
    s = simulate(random_entry(seed), seconds=10.0).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert s["touchdowns_per_stance"] <= 1.2
    assert max(abs(d - gait.duty) for d in s["duty_by_leg"]) <= 0.08


@pytest.mark.slow
@pytest.mark.parametrize("seed", [69, 155])
def test_up_knees_that_knelt_walk_on_their_feet(seed):
    """Irregular walkers with sprawled legs whose knees the hip height once ignored (an
    'up' knee was taken to stay above the ground). 69 (six legs pacing, duty 0.84) fell at
    4.7 s with 2.5 touchdowns per stance, 155 (five legs, duty 0.76) at 5.8 s. With the
    knees' floor, 10 s flat, free: both walk, 1.06 and 1.00 touchdowns per stance, worst
    leg's duty 0.012 and 0.030 off (this machine)."""
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    entry = irregular_entry(seed)
    s = simulate(entry, seconds=10.0, config=ControlConfig(body="free")).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert s["touchdowns_per_stance"] <= 1.2
    assert max(abs(d - entry.gait.duty) for d in s["duty_by_leg"]) <= 0.08
