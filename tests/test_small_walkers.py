"""Walkers a few centimetres or millimetres tall, and a body a user sized by hand (stop 60):
the feet's radius floor never makes a foot more than half its shin, small walkers on sphere
feet run their servos on their own clock (``geometry.servo_clock``), and the third
catalog's mouse and tortoise and the second catalog's ant walk."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaitsim.catalog import MIN_LENGTH, load_catalog
from gaitsim.generate import random_entry
from gaitsim.geometry import (
    FOOT_RADIUS_CAP,
    FOOT_RADIUS_FLOOR,
    FOOT_RADIUS_FRACTION,
    FOOT_SHIN_MAX,
    _sphere_radius,
    geometry,
)

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


def _catalog(name: str):
    return load_catalog(str(EXPERIMENTS / name))


def _with_shins(gait, lower: float):
    return dataclasses.replace(gait, legs=tuple(dataclasses.replace(leg, lower=lower)
                                                for leg in gait.legs))  # fmt: skip


def test_the_feet_s_radius_by_hand():
    """0.12 of the shortest shin, clipped to 4-30 mm, the floor at most half that shin and
    at least 1 mm: the ant's 4 mm shins get 2 mm feet (were 4 mm, as long as the shin), the
    mouse's 14 mm shins 4 mm (0.12 x 14 = 1.7 mm, raised to the floor), a 1.5 mm shin 1 mm,
    a 0.1 m shin 12 mm and a 0.5 m shin the 30 mm cap."""
    assert (FOOT_RADIUS_FRACTION, FOOT_RADIUS_FLOOR, FOOT_RADIUS_CAP) == (0.12, 0.004, 0.03)
    assert FOOT_SHIN_MAX == 0.5 and MIN_LENGTH == 0.001
    assert geometry(_catalog("second_catalog.json")["ant"].gait).foot_radius == 0.002
    mouse = _catalog("third_catalog.json")["mouse"].gait
    assert geometry(mouse).foot_radius == 0.004
    gait = random_entry(3).gait
    for lower, radius in ((0.0015, 0.001), (0.1, 0.012), (0.5, 0.03)):
        g = _with_shins(gait, lower)
        assert _sphere_radius(g) == pytest.approx(radius, abs=1e-12), lower


@settings(max_examples=200, deadline=None)
@given(st.floats(0.001, 2.0))
def test_a_default_foot_is_never_more_than_half_a_short_shin(lower):
    """Any shortest shin: the default foot lies in [1 mm, 30 mm], is 0.12 of the shin
    wherever that lies in 4-30 mm, and is at most half the shin where the shin is at least
    2 mm (below that the 1 mm least length rules)."""
    r = _sphere_radius(_with_shins(random_entry(3).gait, lower))
    assert MIN_LENGTH <= r <= FOOT_RADIUS_CAP
    if FOOT_RADIUS_FLOOR <= 0.12 * lower <= FOOT_RADIUS_CAP:
        assert r == pytest.approx(0.12 * lower)
    if lower >= 2 * MIN_LENGTH:
        assert r <= FOOT_SHIN_MAX * lower + 1e-15


@pytest.mark.parametrize(("catalog", "walker"), [("second_catalog.json", "ant"),
                                                 ("third_catalog.json", "mouse"),
                                                 ("third_catalog.json", "tortoise")])  # fmt: skip
def test_small_and_hand_sized_walkers_walk(catalog, walker):
    """10 s on flat ground on their default body: the ant (standing 5.5 mm, 0.7 g; fell
    or walked backwards on 4 mm feet), the mouse (legs of 26 mm; knelt on the tuned gains,
    its shins carrying 0.13 of its weight) and the tortoise (its 0.12 m deep body lay on
    the ground at 0.00 s with its hips inset from the body's sides) walk: verdict
    ``walked``, every leg's duty within 0.08 of the catalog's, at most 1.2 landings a
    stance."""
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    entry = _catalog(catalog)[walker]
    s = simulate(entry, seconds=10.0, config=ControlConfig(body="auto")).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert max(abs(d - entry.gait.duty) for d in s["duty_by_leg"]) <= 0.08, s["duty_by_leg"]
    assert s["touchdowns_per_stance"] <= 1.2
