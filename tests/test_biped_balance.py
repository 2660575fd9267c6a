"""Bipeds on their own feet (issue 11): the free-body balance on soles, measured.

Short physics runs with measured outcomes: the built-in mechanic walks free on flat ground
and survives sideways pushes; with the assist, ankles that can yaw let both built-in bipeds
walk a turn; holding its trunk level lets it walk 5 deg slopes. What does not work yet is
pinned as a measured miss in the README (the raptor falls free, the mechanic falls free on
1 cm rough ground and a 1.5 m arc)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from gaitsim.sim.controller import ControlConfig
from gaitsim.sim.run import simulate
from gaitsim.terrain import Slope
from gaitsim.walker import resolve_entry

FREE = ControlConfig(body="free")


def test_the_mechanic_walks_free_on_its_soles():
    """No assist, 10 s flat: not fallen, on speed and heading, feet in reach, the soles
    rolling heel to toe, and the centre of pressure inside the soles on average."""
    s = simulate("mechanic", seconds=10.0, config=FREE).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert 0.9 <= s["speed_ratio"] <= 1.1
    assert s["sole_pitch_deg_at_touchdown"] <= -5.0 and s["sole_pitch_deg_at_liftoff"] >= 5.0
    assert s["cop_margin_mm_mean"] > 0.0


def _on_slope(deg: float, seed=None, **walker_options) -> dict:
    terrain = Slope(math.radians(deg))
    return simulate("mechanic", seconds=10.0, config=FREE, terrain=terrain, seed=seed,
                    walker_options=walker_options).summary  # fmt: skip


def test_the_free_mechanic_climbs_5_deg_with_its_trunk_level():
    """Its default body attitude on a slope is level (``Walker.lean`` "level"): 10 s up
    5 deg, on speed. Tilted with the ground instead, its trunk sits back over its heels
    and it falls (measured: 3.3, 4.3 and 3.5 s from the three start points)."""
    s = _on_slope(5.0, seed=1)
    assert s["lean"] == "level"
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert 0.9 <= s["speed_ratio"] <= 1.1
    tilted = _on_slope(5.0, seed=1, lean=False)
    assert tilted["verdict"] == "fell", tilted["verdict_reason"]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [None, 2])
@pytest.mark.parametrize("deg", [5.0, -5.0])
def test_the_free_mechanic_walks_5_deg_slopes_from_every_start(deg, seed):
    """Up and down 5 deg from the other start points too (measured: all walked, speed
    ratio 0.97-0.99; at 7 deg one start of three falls each way)."""
    s = _on_slope(deg, seed=seed)
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert 0.9 <= s["speed_ratio"] <= 1.1


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_without_the_ankle_torque_cap_the_free_mechanic_falls(seed):
    """The ankle strategy matters (20 s from the start points the defaults walk): ankles at
    full effort push the CoP off the sole and roll it onto an edge (measured: fell at 7.6
    and 11.2 s). Stance legs that push the body all the way back onto its reference each
    step (``sole_track_gain=1``) fell at 13.9 s on an earlier machine but walk both starts
    on the README's, so that piece is not asserted."""
    s = simulate("mechanic", seconds=20.0, config=ControlConfig(body="free", ankle_cop=0.0),
                 seed=seed).summary  # fmt: skip
    assert s["verdict"] == "fell", s["verdict_reason"]


def _with_ankle(name: str, ankle: str):
    entry = resolve_entry(name)
    legs = tuple(dataclasses.replace(leg, foot=(("ankle", ankle),)) for leg in entry.gait.legs)
    return dataclasses.replace(entry, gait=dataclasses.replace(entry.gait, legs=legs))


def test_ankles_that_yaw_let_a_biped_walk_a_turn():
    """With the assist on a 1 m arc: a sole whose ankle can turn keeps its heading while
    the body turns over it (the raptor walks); a pitch-and-roll ankle holds the body's
    heading to the planted sole (it falls behind its turn: off heading)."""
    turn = dict(seconds=10.0, turn_radius=1.0, config=ControlConfig(body="assist"))
    yaw = simulate(_with_ankle("raptor", "yaw_pitch_roll"), **turn).summary
    assert yaw["verdict"] == "walked", yaw["verdict_reason"]
    fixed = simulate(_with_ankle("raptor", "pitch_roll"), **turn).summary
    assert fixed["heading_error_deg"] > yaw["heading_error_deg"] + 5.0, (fixed, yaw)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_the_mechanic_walks_free_for_20_s(seed):
    """20 s free on flat ground from two start points. From the default start it fell at
    15.2 s on one machine and walked on two others, with the same code: the free biped's
    outcome is sensitive to rounding, so only what held on all three is asserted."""
    s = simulate("mechanic", seconds=20.0, config=FREE, seed=seed).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert 0.85 <= s["speed_ratio"] <= 1.15


@pytest.mark.slow
@pytest.mark.parametrize("velocity", [0.1, -0.3])
def test_the_free_mechanic_takes_a_sideways_push(velocity):
    """Pushes it survives, 10 s with the push at 5 s: 0.1 m/s to its left and 0.3 m/s to
    its right on every machine measured; 0.2 m/s to its left on two of three
    (``experiments/biped_free.py`` sweeps 0.1-0.4 m/s both ways)."""
    s = simulate("mechanic", seconds=10.0, config=FREE, push_at=5.0,
                 push_velocity=velocity).summary  # fmt: skip
    assert s["verdict"] == "walked", s["verdict_reason"]


@pytest.mark.parametrize("name", ["mechanic", "raptor"])
def test_assisted_bipeds_walk_on_their_soles_on_mujoco(name):
    """The soles on the other engine: with the assist, 6 s flat, walked, the soles striking
    toe up (measured 10 s: the assist carries 0.20 / 0.18 of the weight; free, MuJoCo's
    mechanic falls at 7.8 s where PyBullet's walks 20 s)."""
    pytest.importorskip("mujoco")
    s = simulate(name, seconds=6.0, engine="mujoco", config=ControlConfig(body="assist")).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert s["sole_pitch_deg_at_touchdown"] < 0.0


@pytest.mark.parametrize("seed", [None, 1])
def test_with_a_yawing_ankle_the_legs_hold_the_body_s_yaw(seed):
    """A yaw_pitch_roll ankle no longer locks the body's yaw to the planted sole, so the
    stance legs hold it to the reference in full (``track_gain``), not half way as a
    pitch_roll ankle's do (``sole_track_gain``): free on flat ground, the yaw-ankled
    mechanic stays up longer from each start point than pulled half way (measured, 12 s:
    10.2 and 7.0 s against 5.8 and 3.9 s). It still falls, so pitch_roll stays the
    default."""
    import dataclasses

    def fall_time(track_gain: float) -> float:
        config = dataclasses.replace(FREE, track_gain=track_gain)
        s = simulate(_with_ankle("mechanic", "yaw_pitch_roll"), seconds=12.0, config=config,
                     seed=seed).summary  # fmt: skip
        return s["time_to_fall_s"] if s["fell"] else 12.0

    full, half = fall_time(1.0), fall_time(0.5)
    assert full > half + 1.0, (full, half)


def _biped_free():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
    import biped_free

    return biped_free


def test_set_back_moves_every_home_by_half_the_sole_and_lets_the_ankle_yaw():
    """``experiments/biped_free.set_back`` by hand on the raptor: its derived soles reach
    0.04 m behind the ankle and 0.12 m ahead (a third of its 0.48 m leg, a quarter of that
    behind), so every home (and the hip above it) moves 0.04 m back; the ankle yaws; the
    variant is still a valid catalog walker (the kinematic walk test passes)."""
    from gaitsim.feet import soles
    from gaitsim.validate import validate_entry

    raptor = resolve_entry("raptor")
    sole = soles(raptor.gait)[0]
    assert (sole.heel, sole.toe) == pytest.approx((0.04, 0.12))
    moved = _biped_free().set_back(raptor)
    for a, b in zip(raptor.gait.legs, moved.gait.legs, strict=True):
        assert b.home == pytest.approx((a.home[0] - 0.04, a.home[1], a.home[2]))
        assert dict(b.foot)["ankle"] == "yaw_pitch_roll"
    assert soles(moved.gait)[0].ankle == "yaw_pitch_roll"
    assert validate_entry(moved)["pass"]
    with pytest.raises(ValueError, match="no soles"):
        _biped_free().set_back(resolve_entry("fox"))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [None, 2])
def test_the_raptor_walks_free_with_its_soles_set_back(seed):
    """Set back under its hips and with ankles that yaw, the raptor walks free (10 s flat;
    measured 20 s from these start points, it fell at 12.6 s from seed 1), where on its
    derived feet it falls at 3.7 and 5.1 s: its body pitches back over the heels of soles
    that reach three times as far ahead of the ankle as behind it."""
    kw = {} if seed is None else {"seed": seed}
    entry = _biped_free().set_back(resolve_entry("raptor"))
    s = simulate(entry, seconds=10.0, config=FREE, **kw).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    derived = simulate("raptor", seconds=10.0, config=FREE, **kw).summary
    assert derived["verdict"] == "fell"


@pytest.mark.slow
def test_a_biped_falls_free_at_a_slow_tempo_and_walks_at_a_brisk_one():
    """The free bipeds' envelope is the gait's tempo (README): the mechanic walks at its
    catalog's 0.6 m/s (a cycle of 0.59 pendulum periods) and falls at 0.5 m/s (0.71);
    generated biped 48 (cycle 1.09 pendulum periods) falls within a second and walks at
    0.5 (``biped_free.at_tempo``, its stride unchanged)."""
    bf = _biped_free()
    mechanic = resolve_entry("mechanic")
    slow = dataclasses.replace(mechanic, gait=dataclasses.replace(mechanic.gait, clip_speed=0.5))
    assert simulate(slow, seconds=10.0, config=FREE).summary["verdict"] == "fell"
    own = bf.entry_of("seed48", "derived")
    s = simulate(own, seconds=10.0, config=FREE).summary
    assert s["verdict"] == "fell" and s["time_to_fall_s"] < 2.0
    brisk = bf.entry_of("seed48", "derived", tempo=0.5)
    assert brisk.gait.clip_speed > 2.0 * own.gait.clip_speed
    for seed in (None, 1):
        kw = {} if seed is None else {"seed": seed}
        s = simulate(brisk, seconds=10.0, config=FREE, **kw).summary
        assert s["verdict"] == "walked", s["verdict_reason"]
