"""Walkers whose legs differ from pair to pair, as users write them: the generator's
``mixed_legs`` draw, each leg mounted at a height its own reach serves, bones no wider than
the feet, and (slow) their walk in physics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaitsim.catalog import parse_catalog
from gaitsim.generate import (
    MIX_LENGTH,
    random_entry,
    random_walker,
)
from gaitsim.geometry import (
    BONE_FOOT_MAX,
    _height_rule,
    _own_heights,
    default_hip_height,
    geometry,
    hip_height_bounds,
    knee_height_floor,
    leg_radii,
    mount_heights,
)
from gaitsim.validate import validate_entry

SEEDS = range(60)


def test_mixed_legs_is_seeded_and_leaves_two_legs_alone():
    multi = mixed_count = 0
    for seed in range(40):
        plain, mixed = random_walker(seed), random_walker(seed, mixed_legs=True)
        assert random_walker(seed, mixed_legs=True) == mixed  # the same draw every time
        (gait,), (base,) = ([v["gait"] for v in w.values()] for w in (mixed, plain))
        if len(base["segments"]) == 2:
            assert mixed == plain
            continue
        multi += 1
        if mixed == plain:  # no mix of this walker's legs could stand (seed 0 of these)
            with pytest.raises(ValueError):
                geometry(parse_catalog({"m": {"gait": _mixed_once(base, seed)}})["m"].gait)
            continue
        mixed_count += 1
        # stride, lift, duty and speed as drawn: every leg at least as long as drawn
        assert {k: gait[k] for k in ("stride", "lift", "duty", "clip_speed")} == {
            k: base[k] for k in ("stride", "lift", "duty", "clip_speed")
        }
        drawn = base["segments"][0]["upper"] + base["segments"][0]["lower"]
        lengths = [s["upper"] + s["lower"] for s in gait["segments"]]
        assert min(lengths) >= drawn * MIX_LENGTH[0] - 1e-4
        assert max(lengths) <= drawn * MIX_LENGTH[1] + 1e-4
        assert len(gait["segments"]) in (len(base["segments"]), len(base["segments"]) - 1)
    assert mixed_count >= 0.9 * multi
    # the plain draws do not move: the mix has its own generator
    assert random_walker(7) == random_walker(7, mixed_legs=False)


def _mixed_once(gait: dict, seed: int) -> dict:
    """The mix's first draw for ``seed`` (``generate._mixed``)."""
    from gaitsim.generate import _mixed

    return _mixed(gait, np.random.default_rng([seed, 1]))


@pytest.mark.parametrize("seed", SEEDS)
def test_every_mixed_walker_passes_the_walk_test(seed):
    # every foot inside its leg's reachable annulus over the whole cycle, lift and bob
    # included, on each leg's own mount height: no shortfall walking straight or turning
    # in place on level ground (the walk test's fixed arc, slope and bumps may be out of a
    # small walker's reach; reported, as for every walker)
    r = validate_entry(random_entry(seed, mixed_legs=True))
    assert r["pass"], (seed, r)
    level = [r["max_shortfall_m"][k] for k in ("straight", "turn_in_place")]
    assert max(level) == 0.0, (seed, r["max_shortfall_m"])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 5000))
def test_legs_alike_hang_at_the_one_default_height(seed):
    gait = random_entry(seed).gait
    h = default_hip_height(gait)
    assert mount_heights(gait, h) == [h] * gait.n_legs
    # and the knees' raise changes nothing for them: the one rule over all the legs
    low, high, highest = hip_height_bounds(gait)
    assert h == _height_rule(low, high, highest, knee_height_floor(gait))
    assert np.all(geometry(gait).chain.mount[:, 2] == 0.0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 5000))
def test_each_leg_hangs_at_most_at_its_own_height(seed):
    gait = random_entry(seed, mixed_legs=True).gait
    geo = geometry(gait)
    heights = mount_heights(gait, geo.hip_height)
    own = _own_heights(gait)
    for h, mine in zip(heights, own, strict=True):
        assert h == pytest.approx(min(geo.hip_height, mine))
    # the body stands on its tallest legs: some leg hangs at the body's height
    assert max(heights) == pytest.approx(geo.hip_height)
    assert np.allclose(geo.chain.mount[:, 2], np.array(heights) - geo.hip_height)


def _short_front() -> dict:
    """Short front legs and long-thighed hind legs: a hind foot lifted at the top of its
    swing needs the hips higher (its inner reach, thigh minus shin, plus the lift) than the
    front legs can reach down from."""
    segs = []
    for name, side, phase, x, z, upper, lower in (
        ("fl", "L", 0.0, 0.06, 0.14, 0.05, 0.05),
        ("fr", "R", 0.5, -0.06, 0.14, 0.05, 0.05),
        ("hl", "L", 0.5, 0.06, -0.14, 0.15, 0.05),
        ("hr", "R", 0.0, -0.06, -0.14, 0.15, 0.05),
    ):
        segs.append({"name": name, "side": side, "phase": phase, "knee": "forward",
                     "upper": upper, "lower": lower, "home": [x, 0.0, z]})  # fmt: skip
    gait = {"stride": 0.04, "duty": 0.7, "lift": 0.012, "clip_speed": 0.1, "segments": segs}
    return parse_catalog({"short_front": {"gait": gait}})["short_front"]


def test_legs_no_one_height_serves_hang_at_their_own():
    entry = _short_front()
    gait = entry.gait
    low, high, highest = hip_height_bounds(gait)
    assert _height_rule(low, high, highest, knee_height_floor(gait)) is None  # no one height
    fl, fr, hl, hr = _own_heights(gait)
    geo = geometry(gait)
    # the body stands at the hind legs' own height, the front legs hang at theirs
    assert geo.hip_height == pytest.approx(hl) and hl == pytest.approx(hr)
    assert fl == pytest.approx(fr) and fl < hl - 0.05
    assert geo.chain.mount[:, 2] == pytest.approx([fl - hl, fr - hl, 0.0, 0.0])
    assert geo.body[2] >= 2 * (hl - fl)  # the body box reaches down to the front hips
    r = validate_entry(entry)
    level = [r["max_shortfall_m"][k] for k in ("straight", "turn_in_place")]
    assert r["pass"] and max(level) == 0.0, r["max_shortfall_m"]


def test_a_gait_no_leg_can_stand_on_is_still_a_catalog_error():
    import dataclasses

    from gaitsim.catalog import CatalogError

    gait = _short_front().gait
    # the leg named with its own figures: the front leg cannot reach a 0.3 m stride
    own = r"segments\[0\] \(fl\).*at most 0 m.*at least 0.015.*set 'hip_height'"
    with pytest.raises(CatalogError, match=own):
        default_hip_height(dataclasses.replace(gait, stride=0.3))


def test_a_catalog_hip_height_hangs_every_leg_there():
    import dataclasses

    entry = _short_front()
    gait = dataclasses.replace(entry.gait, hip_height=0.09)
    assert np.all(geometry(gait).chain.mount[:, 2] == 0.0)


def test_no_bone_is_wider_than_the_feet():
    # by hand: a tenth of the shorter bone, capped at BONE_FOOT_MAX of the foot
    assert leg_radii([0.3, 0.1], [0.2, 0.1], 0.012).tolist() == pytest.approx(
        [min(0.02, BONE_FOOT_MAX * 0.012), 0.01]
    )
    assert leg_radii([0.3], [0.2]).tolist() == pytest.approx([0.02])  # no foot: no cap
    for seed in SEEDS:
        for kw in ({}, {"mixed_legs": True}):
            geo = geometry(random_entry(seed, **kw).gait)
            assert np.all(geo.leg_radius <= BONE_FOOT_MAX * geo.foot_radius + 1e-12)
        # legs alike never reach the cap: a tenth of the shorter bone, uncapped
        gait = random_entry(seed).gait
        plain = leg_radii([g.upper for g in gait.legs], [g.lower for g in gait.legs])
        assert np.array_equal(geometry(gait).leg_radius, plain), seed


def test_a_mixed_walker_walks_on_its_feet_not_its_shins():
    # generated mixed-legs walker 1002: 7.5-7.9 mm shins on 5.3 mm feet before the bones
    # were capped at the feet's width; uncapped, its shins carried 0.39 of its weight and
    # its worst leg's duty was off by 0.43 (4 s flat)
    from gaitsim.sim.run import simulate

    entry = random_entry(1002, mixed_legs=True)
    s = simulate(entry, seconds=4.0).summary
    assert s["verdict"] == "walked"
    assert max(abs(d - entry.gait.duty) for d in s["duty_by_leg"]) <= 0.08
    assert s["touchdowns_per_stance"] <= 1.2
    assert s["leg_load_per_weight"] <= 0.05  # the feet carry it, not the shins


MIXED_SAMPLE = [s for s in range(1000, 1040)
                if (e := random_entry(s, mixed_legs=True)).gait.n_legs >= 4
                and e.gait.duty >= 0.5][:6]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("seed", MIXED_SAMPLE)
def test_mixed_walkers_walk_their_gait(seed):
    # the gait-fidelity bounds, 10 s flat, free body
    from gaitsim.sim.run import simulate

    entry = random_entry(seed, mixed_legs=True)
    s = simulate(entry, seconds=10.0).summary
    duty = entry.gait.duty
    err = [abs(d - duty) for d in s["duty_by_leg"]]
    assert s["verdict"] == "walked", (seed, s["verdict_reason"])
    assert max(err) <= 0.08 and sum(err) / len(err) <= 0.05, seed
    assert s["touchdowns_per_stance"] <= 1.2 and s["contact_timing_error"] <= 0.10, seed
    assert 0.9 <= s["speed_ratio"] <= 1.1 and math.isfinite(s["slip_mm_per_stance"]), seed


def test_a_walker_on_its_shins_is_kneeling_not_walked():
    # generated walker 206 with its hip at 0.154 m (3 % below its default before the knee
    # floor's sag allowance, 0.1589 m; 0.1668 m now): at speed, heading and reach, but its
    # shins carried a third of its weight and its feet were down 0.40 of the cycle against
    # 0.51; the verdict said `walked`
    import dataclasses

    from gaitsim.sim.metrics import MAX_LEG_LOAD
    from gaitsim.sim.run import simulate

    entry = random_entry(206)
    low = dataclasses.replace(entry.gait, hip_height=0.154)
    s = simulate(dataclasses.replace(entry, gait=low), seconds=3.0).summary
    assert not s["fell"] and 0.8 <= s["speed_ratio"] <= 1.2
    assert s["leg_load_per_weight"] > 2 * MAX_LEG_LOAD
    assert s["verdict"] == "kneeling" and "thighs and shins" in s["verdict_reason"]
    own = simulate(entry, seconds=3.0).summary  # on its default height: on its feet
    assert own["verdict"] == "walked" and own["leg_load_per_weight"] < 0.05
