"""Bipeds on their own feet (issue 11): the free-body balance on soles, measured.

Short physics runs with measured outcomes: the built-in mechanic walks free on flat ground,
on 5 deg slopes and on 1 cm rough ground (its sole corners sized to their sink, so a
heightfield pushes them up, not down), survives sideways pushes and, with the hip yaw a
biped's legs get by default, follows a 1.5 m arc (without it no joint turns the body over
a planted sole: it falls); on MuJoCo the hip yaw keeps it walking too. The free raptor
walks flat ground and takes the issue's pushes since its stance legs keep half their feet's
placement offset (``stance.SOLE_FOLLOW``) and its feet land further ahead the faster it
goes than its reference (``stance.SOLE_SPEED_GAIN``). What does not work yet is pinned as a
measured miss in docs/bipeds.md (the raptor falls free uphill from every start, and from
some on rough ground and on the arc); since stop 47's wider soles it walks down 5 deg."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
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
    5 deg, on speed (measured from six start points: 5 walked, one ended off heading;
    tilted with the ground 4 walked, two fell)."""
    s = _on_slope(5.0, seed=1)
    assert s["lean"] == "level"
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert 0.9 <= s["speed_ratio"] <= 1.1


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2, 3])
@pytest.mark.parametrize("deg", [5.0, -5.0])
def test_the_free_mechanic_walks_5_deg_slopes_from_other_starts(deg, seed):
    """Up and down 5 deg from other start points (measured from six: down 6 walked, up 5;
    up from the default start the body's yaw drifts to -46 deg by 9.5 s while it walks
    straight, 16.6 deg mean heading error: off heading. The legs have no hip yaw, so the
    body turns only as its planted soles twist on the ground)."""
    s = _on_slope(deg, seed=seed)
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert 0.9 <= s["speed_ratio"] <= 1.1


def _contact_normals(walker: str, terrain, seconds: float, config=FREE):
    """A run's summary and the lowest z of any robot-ground contact normal in it, and the
    deepest contact (m, negative: into the ground), read after every control step."""
    from gaitsim.sim.robot import p

    low = {"nz": 1.0, "depth": 0.0}

    def on_step(ctl):
        robot = ctl.robot
        for c in p.getContactPoints(bodyA=robot.body_id, bodyB=ctl.world.ground_id,
                                    physicsClientId=robot.client):  # fmt: skip
            low["nz"] = min(low["nz"], c[7][2])
            low["depth"] = min(low["depth"], c[8])

    s = simulate(walker, terrain=terrain, seconds=seconds, config=config, on_step=on_step)
    return s.summary, low["nz"], low["depth"]


def test_a_heightfield_of_zero_height_is_the_plane_to_a_free_biped():
    """PyBullet's heightfield is a surface of triangles: a sole corner sphere pressed
    deeper than its radius has its centre under it, and the triangles then push it down
    (contact normals pointing into the ground). Before the corners were sized to their
    sink (``feet.corner_pad``, ``feet.CORNER_SHARE``) the free mechanic fell within 2 s
    on a heightfield of zero height, where on the plane it walks; now no normal tilts past
    25 deg and no corner sinks past its radius."""
    from gaitsim.body import compile_body
    from gaitsim.terrain import Rough

    s, nz, depth = _contact_normals("mechanic", Rough(0.0), 4.0)
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert nz > math.cos(math.radians(25.0)), nz
    corner = min(x.corner for x in compile_body("mechanic").soles)
    assert -depth < corner, (depth, corner)


def test_the_free_mechanic_walks_1_cm_rough_ground():
    """10 s over 1 cm bumps with a free body: walked, on speed (measured from eight rough
    grounds: all eight walked; before the sized corners none did, each fell in 1.2-2.3 s)."""
    from gaitsim.terrain import Rough

    s = simulate("mechanic", terrain=Rough(0.01, seed=1), seconds=10.0, config=FREE).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert 0.9 <= s["speed_ratio"] <= 1.1


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 2, 3])
def test_the_free_mechanic_walks_1_cm_rough_ground_from_other_grounds(seed):
    from gaitsim.terrain import Rough

    s = simulate("mechanic", terrain=Rough(0.01, seed=seed), seconds=10.0, config=FREE).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert 0.9 <= s["speed_ratio"] <= 1.1


def _with_ankle(name: str, ankle: str):
    entry = resolve_entry(name)
    legs = tuple(dataclasses.replace(leg, foot=(("ankle", ankle),)) for leg in entry.gait.legs)
    return dataclasses.replace(entry, gait=dataclasses.replace(entry.gait, legs=legs))


def _hip_yaw(name: str, on: bool):
    """A built-in biped whose legs have (``on``) or lack a hip yaw joint."""
    entry = resolve_entry(name)
    legs = tuple(dataclasses.replace(leg, foot=(("hip_yaw", on),)) for leg in entry.gait.legs)
    return dataclasses.replace(entry, gait=dataclasses.replace(entry.gait, legs=legs))


def test_ankles_that_yaw_let_a_biped_walk_a_turn():
    """With the assist on a 1 m arc and no hip yaw: a sole whose ankle can turn keeps its
    heading while the body turns over it (the raptor walks); a pitch-and-roll ankle holds
    the body's heading to the planted sole (it falls behind its turn: off heading)."""
    turn = dict(seconds=10.0, turn_radius=1.0, config=ControlConfig(body="assist"))
    yaw = simulate(_with_ankle("raptor", "yaw_pitch_roll"), **turn).summary
    assert yaw["verdict"] == "walked", yaw["verdict_reason"]
    fixed = simulate(_hip_yaw("raptor", False), **turn).summary
    assert fixed["heading_error_deg"] > yaw["heading_error_deg"] + 5.0, (fixed, yaw)


@pytest.mark.parametrize("name", ["mechanic", "raptor"])
def test_a_hip_yaw_lets_an_assisted_biped_follow_a_1_5_m_arc(name):
    """With the assist, 10 s on the 1.5 m arc: the default legs (hip yaw) walk it within
    15 deg of heading; without the hip yaw the body lags its turn (measured from three
    start points each: walked 3 of 3 against off heading 3 of 3, 35-60 deg)."""
    turn = dict(seconds=10.0, turn_radius=1.5, config=ControlConfig(body="assist"))
    s = simulate(name, **turn).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    without = simulate(_hip_yaw(name, False), **turn).summary
    assert without["verdict"] == "off_heading", without["verdict_reason"]


def test_a_hip_yaw_lets_the_free_mechanic_walk_a_1_5_m_arc():
    """Free, 10 s on the 1.5 m arc from the default start: walked with the hip yaw; without
    it the body's heading stays with its planted soles, the path turns away and it falls
    (measured from six start points: 5 of 6 walk with it, 0 of 6 without, falling at
    2.6-4.2 s)."""
    turn = dict(seconds=10.0, turn_radius=1.5, config=FREE)
    s = simulate("mechanic", **turn).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert 0.85 <= s["speed_ratio"] <= 1.15
    without = simulate(_hip_yaw("mechanic", False), **turn).summary
    assert without["fell"], without["verdict_reason"]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_free_mechanic_walks_the_arc_from_other_starts(seed):
    s = simulate("mechanic", seconds=10.0, turn_radius=1.5, config=FREE, seed=seed).summary
    assert s["verdict"] == "walked", s["verdict_reason"]


@pytest.mark.parametrize("name", ["raptor", "mechanic"])
@pytest.mark.parametrize("seed", [None, 1])
def test_on_mujoco_free_bipeds_walk_flat_ground_landing_once_a_stance(name, seed):
    """MuJoCo's soles with their own stiffness and light, quickly damped ankles
    (``mujoco_engine.ANKLE_ARMATURE``, ``ANKLE_VELOCITY_CLOSURE``): measured, 10 s flat from
    seven starts (the default and 0-5), all 14 runs of the two built-in bipeds walk with
    1.00-1.41 touchdowns a stance. With stop 49's (the pad's contact, ten times the
    ankles' rotor inertia) the raptor fell from the default start at 4.6 s and both
    landed 2.1-2.6 times a stance, the trailing sole lifting off and landing again."""
    pytest.importorskip("mujoco")
    s = simulate(name, seconds=10.0, engine="mujoco", config=FREE, seed=seed).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert s["touchdowns_per_stance"] <= 1.5


@pytest.mark.parametrize("seed", [1, 3])
def test_on_mujoco_the_free_mechanic_walks_with_its_hip_yaw(seed):
    """MuJoCo's planted soles twist more than PyBullet's: without a hip yaw nothing turns
    the free mechanic back. Measured, 10 s flat from seven start points (the default and
    0-5) on MuJoCo's sole contacts of stop 50 (the sole's stiffness, lighter ankles): with
    the hip yaw all 7 walk (heading error 3.1-3.9 deg); without it 4 of 7 fall or go off
    heading (16.5-27.5 deg), and the three that walk keep 3.3-7.0 deg (stop 47's contacts:
    6 of 7 failed). These two starts: walked with it, not walked without it."""
    pytest.importorskip("mujoco")
    run = dict(seconds=10.0, engine="mujoco", config=FREE, seed=seed)
    s = simulate("mechanic", **run).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    without = simulate(_hip_yaw("mechanic", False), **run).summary
    assert without["verdict"] != "walked", without


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
@pytest.mark.parametrize("seed", [None, 3])
def test_the_free_raptor_walks_20_s_of_flat_ground(seed):
    """Free, 20 s flat: walked, on speed. Its swing feet land further ahead the faster it
    goes than its reference (``stance.SOLE_SPEED_GAIN``); without that its speed surges
    about the reference's, slow then fast, and it falls (measured on stop 46's narrower
    soles from seven start points, the default and 0-5: 6 of 7 walk 20 s, start 1 falling
    at 17.9 s; without the speed gain 3 of 6 walk 10 s, and these two starts fall at 5.8
    and 6.0 s; on stop 47's soles 6 of 6 walk 20 s, the default and 1-5). Each stance's
    first touch is toe up and its last lift-off toe down, by the issue's 5 deg. Since stop
    48 (the planned ZMP at the stance sole's centre, the lifting ankle held) these two
    starts walk 10 s without the speed gain too (0.97-0.99 of its speed)."""
    s = simulate("raptor", seconds=20.0, config=FREE, seed=seed).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert 0.85 <= s["speed_ratio"] <= 1.15
    assert s["sole_pitch_deg_at_touchdown"] <= -5.0 and s["sole_pitch_deg_at_liftoff"] >= 5.0


@pytest.mark.slow
@pytest.mark.parametrize("seed", [None, 1])
def test_the_free_raptor_walks_down_5_deg(seed):
    """Free, 10 s down 5 deg: walked, on speed. On soles half as wide as they are long
    (stop 47) it walks down from six of six start points (the default and 1-5); on stop
    46's narrower soles from one, falling sideways as its yaw swings grew (docs/bipeds.md)."""
    s = simulate("raptor", seconds=10.0, config=FREE, seed=seed,
                 terrain=Slope(math.radians(-5.0))).summary  # fmt: skip
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert 0.85 <= s["speed_ratio"] <= 1.15


@pytest.mark.slow
@pytest.mark.parametrize("seed", [None, 1])
def test_the_free_raptor_walks_up_5_deg(seed):
    """Free, 10 s up 5 deg: walked, on speed, landing at most 1.3 times a stance. Until
    stop 48 it fell from every start (1.5-4.3 s): at each planned lift-off the trailing
    ankle, its force cap lifted, turned the toe onto the ground in one control step and
    threw the body off the new stance heel. With the lifting foot's pitch held to its
    stance range while the sole touches, and the planned ZMP at the stance sole's centre
    (``balance.SOLE_ZMP_TOE``, ``soles.COP_TOE_SHARE``), it walks up from five of six
    start points (the default and 1-5; the sixth, seed 3, reaches 40 mm short)."""
    s = simulate("raptor", seconds=10.0, config=FREE, seed=seed,
                 terrain=Slope(math.radians(5.0))).summary  # fmt: skip
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert 0.85 <= s["speed_ratio"] <= 1.15
    assert s["touchdowns_per_stance"] <= 1.3


@pytest.mark.slow
@pytest.mark.parametrize("velocity", [0.2, -0.2])
def test_the_free_mechanic_takes_a_sideways_push(velocity):
    """The issue's pushes, 10 s with the push at 5 s: 0.2 m/s either way (measured from
    six start points: 6 of 6 each way; at 0.3 m/s 2 and 3 of 6, where without the hip yaw
    5 and 6 of 6 survived; ``experiments/biped_free.py`` sweeps 0.1-0.4 m/s)."""
    s = simulate("mechanic", seconds=10.0, config=FREE, push_at=5.0,
                 push_velocity=velocity).summary  # fmt: skip
    assert s["verdict"] == "walked", s["verdict_reason"]


def _assisted_on_mujoco(name: str) -> dict:
    pytest.importorskip("mujoco")
    return simulate(name, seconds=6.0, engine="mujoco", config=ControlConfig(body="assist")).summary


@pytest.mark.parametrize("name", ["mechanic", "raptor"])
def test_assisted_bipeds_walk_on_their_soles_on_mujoco(name):
    """The soles on the other engine: with the assist, 6 s flat, walked."""
    s = _assisted_on_mujoco(name)
    assert s["verdict"] == "walked", s["verdict_reason"]


@pytest.mark.parametrize("name", ["mechanic", "raptor"])
def test_assisted_bipeds_strike_toe_up_on_mujoco(name):
    """... with each stance's first touch toe up. (Over these 6 s the raptor lands 2.8 times
    a stance there and the mechanic 2.1: the trailing toe touches again after the sole has
    left the ground. Until stop 47 the strike was the mean over every touch, those included, and
    the raptor's came out +0.6 deg: marked as a failure then.)"""
    assert _assisted_on_mujoco(name)["sole_pitch_deg_at_touchdown"] < 0.0


@pytest.mark.parametrize("seed", [None, 1])
def test_with_a_yawing_ankle_the_legs_hold_the_body_s_yaw(seed):
    """A yaw_pitch_roll ankle no longer locks the body's yaw to the planted sole, so the
    stance legs hold it to the reference in full (``track_gain``), not half way as a
    pitch_roll ankle's do (``sole_track_gain``): free on flat ground, 12 s, the
    yaw-ankled mechanic keeps a smaller mean heading error pulled in full (measured from
    six start points: 3.3-8.3 deg against 6.2-20.3 deg, lower in every pair). It walks
    from 2 of the 6 either way, so pitch_roll stays the default."""
    import dataclasses

    def heading_error(track_gain: float) -> float:
        config = dataclasses.replace(FREE, track_gain=track_gain)
        s = simulate(_with_ankle("mechanic", "yaw_pitch_roll"), seconds=12.0, config=config,
                     seed=seed).summary  # fmt: skip
        return s["heading_error_deg"]

    full, half = heading_error(1.0), heading_error(0.5)
    assert full < 0.8 * half, (full, half)


def test_set_back_moves_every_home_by_half_the_sole_and_lets_the_ankle_yaw(biped_free):
    """``experiments/biped_free.set_back`` by hand on the raptor: its derived soles reach
    0.04 m behind the ankle and 0.12 m ahead (a third of its 0.48 m leg, a quarter of that
    behind), so every home (and the hip above it) moves 0.04 m back; the ankle yaws; the
    variant is still a valid catalog walker (the kinematic walk test passes)."""
    from gaitsim.feet import soles
    from gaitsim.validate import validate_entry

    raptor = resolve_entry("raptor")
    sole = soles(raptor.gait)[0]
    assert (sole.heel, sole.toe) == pytest.approx((0.04, 0.12))
    moved = biped_free.set_back(raptor)
    for a, b in zip(raptor.gait.legs, moved.gait.legs, strict=True):
        assert b.home == pytest.approx((a.home[0] - 0.04, a.home[1], a.home[2]))
        assert dict(b.foot)["ankle"] == "yaw_pitch_roll"
    assert soles(moved.gait)[0].ankle == "yaw_pitch_roll"
    assert validate_entry(moved)["pass"]
    with pytest.raises(ValueError, match="no soles"):
        biped_free.set_back(resolve_entry("fox"))


def test_biped_free_runs_without_the_hip_yaw_and_from_many_starts(biped_free):
    """``--feet no_hip_yaw`` turns every leg's hip yaw off and keeps its other foot keys;
    ``--starts N`` runs every START_CONDITIONS entry from N starts, rough ground on N
    grounds."""
    from gaitsim.feet import soles

    plain = biped_free.without_hip_yaw(resolve_entry("mechanic"))
    assert not any(s.hip_yaw for s in soles(plain.gait))
    assert all(s.hip_yaw for s in soles(resolve_entry("mechanic").gait))
    yawing = biped_free.without_hip_yaw(_with_ankle("raptor", "pitch"))
    assert [s.ankle for s in soles(yawing.gait)] == ["pitch", "pitch"]
    cells = biped_free.start_cells(["mechanic"], "derived", 3)
    assert len(cells) == 3 * len(biped_free.START_CONDITIONS)
    rough = [kw for _, name, _, kw, _, _ in cells if name.startswith("rough")]
    assert [kw.get("ground") for kw in rough] == [0, 1, 2]
    assert [kw.get("seed") for kw in rough] == [None, 1, 2]
    # --engine: every cell's keywords name it, nothing else changes; pybullet leaves them
    assert biped_free.on_engine(cells, "pybullet") == cells
    moved = biped_free.on_engine(cells, "mujoco")
    assert [c[3] for c in moved] == [{**c[3], "engine": "mujoco"} for c in cells]
    assert [c[:3] + c[4:] for c in moved] == [c[:3] + c[4:] for c in cells]


def test_biped_free_picks_generated_walks_and_a_held_out_sample(biped_free):
    """``--generated N --walks-only --skip K``: the generated bipeds without flight phases
    in seed order, the first K left out, two starts each; without ``--walks-only`` runners
    are counted too."""
    from gaitsim.generate import random_entry

    every = [c[0] for c in biped_free.generated_cells(6, "derived")][::2]
    walks = [c[0] for c in biped_free.generated_cells(6, "derived", walks_only=True)][::2]
    later = [c[0] for c in biped_free.generated_cells(3, "derived", walks_only=True, skip=3)][::2]
    assert later == walks[3:] and len(biped_free.generated_cells(3, "derived", skip=3)) == 6
    for name in every + walks:
        assert random_entry(int(name[4:])).gait.n_legs == 2
    assert all(random_entry(int(w[4:])).gait.duty >= 0.5 for w in walks)
    assert any(random_entry(int(w[4:])).gait.duty < 0.5 for w in every)  # seed 11 runs


def test_biped_free_runs_a_users_catalog_and_says_what_is_wrong_with_one(tmp_path, biped_free):
    """``--catalog FILE``: every biped of the file by default, the named ones if given;
    a missing file, an unknown name and a walker with other than two legs are refused with
    a message that names them; a cell carries the file to the worker, which reads the
    walker from it."""
    import json
    from pathlib import Path

    from gaitsim.catalog import entry_to_dict

    path = Path(__file__).resolve().parents[1] / "experiments" / "awkward_walkers.json"
    assert biped_free.catalog_bipeds(str(path), None) == ("wader", "sparrow")
    assert biped_free.catalog_bipeds(str(path), "sparrow") == ("sparrow",)
    with pytest.raises(ValueError, match="no such file"):
        biped_free.catalog_bipeds(str(tmp_path / "none.json"), None)
    with pytest.raises(ValueError, match=r"not in .*: heron; its bipeds are wader, sparrow"):
        biped_free.catalog_bipeds(str(path), "wader,heron")
    with pytest.raises(ValueError, match=r"bounder \(4 legs\): this experiment runs bipeds"):
        biped_free.catalog_bipeds(str(path), "bounder")
    fox_only = tmp_path / "fox.json"
    fox_only.write_text(json.dumps({"fox": entry_to_dict(resolve_entry("fox"))}))
    with pytest.raises(ValueError, match="has no two-legged walker \\(it has fox\\)"):
        biped_free.catalog_bipeds(str(fox_only), None)
    walker, name, got = biped_free.run_cell(("wader", "flat", 0.5, {}, "derived", None, str(path)))
    assert (walker, name) == ("wader", "flat") and got["verdict"] is not None
    entry = biped_free.entry_of("wader", "derived", None, str(path))
    assert entry.name == "wader" and entry.gait.n_legs == 2


@pytest.mark.slow
def test_a_biped_falls_free_at_a_slow_tempo_and_walks_at_a_brisk_one(biped_free):
    """The plain stance's envelope is the gait's tempo (README): generated biped 48 (cycle
    1.09 pendulum periods) falls within a few seconds (within 2 s until stop 47, 3.3 s since stop
    48, 2.05 s at stop 55) and walks at 0.5 (``biped_free.at_tempo``,
    its stride unchanged). The mechanic at 0.5 m/s (0.71 periods) walks from start point 1
    (measured from six start points: 1 walked, 2 at a ``stance.SOLE_FOLLOW`` of 0, 5 at
    stop 32, when its sole corners were sized to their sink; the default start falls at
    9.2 s and did not before SOLE_FOLLOW; 2 at stop 55, the default start and 1). Since stop
    55 a free biped slower than 0.7 periods stands on the slow walk's stance by default
    (tests/test_slow_walk.py), so the plain stance is asked for here: on the slow walk the
    mechanic at 0.71 periods falls from all six starts (4.4-8.0 s) and biped 48 at its own
    tempo at 5.1 and 2.5 s (docs/bipeds.md, stop 55)."""
    plain = dataclasses.replace(FREE, slow_walk=False)
    mechanic = resolve_entry("mechanic")
    slow = dataclasses.replace(mechanic, gait=dataclasses.replace(mechanic.gait, clip_speed=0.5))
    s = simulate(slow, seconds=10.0, config=plain, seed=1).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    own = biped_free.entry_of("seed48", "derived")
    s = simulate(own, seconds=10.0, config=plain).summary
    assert s["verdict"] == "fell" and s["time_to_fall_s"] < 4.0
    brisk = biped_free.entry_of("seed48", "derived", tempo=0.5)
    assert brisk.gait.clip_speed > 2.0 * own.gait.clip_speed
    for seed in (None, 1):
        kw = {} if seed is None else {"seed": seed}
        s = simulate(brisk, seconds=10.0, config=FREE, **kw).summary
        assert s["verdict"] == "walked", s["verdict_reason"]


@pytest.mark.slow
def test_a_user_written_biped_walks_free_on_flat_ground():
    """The wader of ``experiments/awkward_walkers.json`` (a user's biped on forward knees,
    duty 0.62, its feet derived) walks 10 s of flat ground free from the default start,
    on speed (measured from three starts, the default and seeds 1-2, on stop 46's narrower
    soles: 3 walk at 0.88-0.93 of its speed, 1 without the speed gain; on stop 47's soles 3
    walk at 0.93-0.95; since stop 48 the default start walks without the speed gain too)."""
    from pathlib import Path

    from gaitsim.catalog import load_catalog

    wader = load_catalog(Path(__file__).resolve().parents[1] / "experiments"
                         / "awkward_walkers.json")["wader"]  # fmt: skip
    s = simulate(wader, seconds=10.0, config=FREE).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert 0.85 <= s["speed_ratio"] <= 1.15


def _with_gait(entry, **change):
    return dataclasses.replace(entry, gait=dataclasses.replace(entry.gait, **change))


def test_a_brisk_biped_on_soles_defaults_to_a_free_body_on_pybullet():
    """``default_body`` by the rule (``walks_free_biped``): the built-in bipeds (0.595 and
    0.667 pendulum periods a cycle, on soles, duty 0.6) walk free on PyBullet and get the
    assist on MuJoCo; the raptor slowed past FREE_BIPED_TEMPO (its clip speed lowered, so
    its cycle lasts longer), given point feet, or given a flight phase gets the assist."""
    from gaitsim.sim.run import FREE_BIPED_TEMPO, biped_tempo, default_body, walks_free_biped

    mechanic, raptor = resolve_entry("mechanic"), resolve_entry("raptor")
    assert biped_tempo(mechanic) == pytest.approx(0.595, abs=5e-4)
    assert biped_tempo(raptor) == pytest.approx(0.667, abs=5e-4)
    for e in (mechanic, raptor):
        assert walks_free_biped(e) and default_body(e) == "free"
        assert not walks_free_biped(e, "mujoco") and default_body(e, "mujoco") == "assist"
    # the tempo scales as 1 / clip speed: just past the bound, and just inside it
    g = raptor.gait
    edge = g.clip_speed * biped_tempo(raptor) / FREE_BIPED_TEMPO
    slow = _with_gait(raptor, clip_speed=0.99 * edge)
    brisk = _with_gait(raptor, clip_speed=1.01 * edge)
    assert biped_tempo(slow) > FREE_BIPED_TEMPO > biped_tempo(brisk)
    assert default_body(slow) == "assist" and default_body(brisk) == "free"
    assert default_body(_with_gait(raptor, duty=0.45)) == "assist"  # a flight phase
    # point feet (the catalog's ``"foot": "sphere"``)
    from gaitsim.feet import SPHERE_FOOT

    pointed = _with_gait(raptor, legs=tuple(dataclasses.replace(leg, foot=SPHERE_FOOT)
                                            for leg in g.legs))  # fmt: skip
    assert default_body(pointed) == "assist"
    assert default_body("fox") == "free" and default_body("fox", "mujoco") == "free"


def test_a_planted_sole_s_hip_turns_from_where_the_sole_really_faces():
    """``GaitController._hip_facings``: with ``hip_facing="measured"`` (by default under the
    assist) a leg in planned stance whose foot touches is turned from its sole's measured
    yaw; a swing leg, or a stance leg not yet down, from its planned facing (a swing foot
    lands facing its plan). With "planned" (by default on a free body) every leg is."""
    from types import SimpleNamespace

    from gaitsim.sim.controller import GaitController

    def yawed(a):
        return (0.0, 0.0, math.sin(a / 2), math.cos(a / 2))

    def facings(hip_facing, body):
        config = ControlConfig(body=body, hip_facing=hip_facing)
        ctl = SimpleNamespace(_facing=plan, config=config,
                              planner=SimpleNamespace(stance=[True, True, False, False]))
        return GaitController._hip_facings(ctl, sensed)

    plan = [0.1, -0.2, 0.3, 0.0]
    sensed = SimpleNamespace(contacts=[True, False, True, False],
                             foot_quaternions=[yawed(0.25), yawed(-0.5), yawed(1.0), yawed(2.0)])
    measured = [0.25, -0.2, 0.3, 0.0]
    for how, body in ((None, "assist"), ("measured", "assist"), ("measured", "free")):
        assert facings(how, body) == pytest.approx(measured), (how, body)
    for how, body in ((None, "free"), ("planned", "free"), ("planned", "assist")):
        assert facings(how, body) == pytest.approx(plan), (how, body)
    with pytest.raises(ValueError, match="hip_facing"):
        ControlConfig(hip_facing="sole")


@pytest.mark.parametrize("body_yaw", [0.0, 0.4, -2.9])
def test_a_hip_yaw_joint_is_commanded_toward_its_sole_s_planned_facing(sole_driver, body_yaw):
    """``SoleDriver.ankles``: a leg's hip yaw joint is commanded to its sole's planned
    facing less the body's yaw, wrapped and within ``feet.HIP_YAW_LIMIT``, in stance too,
    while the leg's IK may be solved in the sole's measured frame (``hip_facing``): the
    planted sole holds the leg where it really faces against the soft hip yaw servo, whose
    target turns the body back toward its reference heading. (Commanding the joint to
    the measured facing as well was measured at stop 54 and not kept: on MuJoCo the
    two-legged runners of seeds 0-1099 fell back from 37 to 30 of 58.)"""
    from gaitsim.feet import HIP_YAW_LIMIT

    drv = sole_driver()
    names = drv.robot.body.ankle_joint_names
    c, s = math.cos(body_yaw), math.sin(body_yaw)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]).ravel()
    hips = [i for i, n in enumerate(names) if n.endswith("hip_yaw")]
    targets = [(0.0, 0.1, 0.0), (0.0, -0.1, 0.0)]
    for planned, want in (([0.1, -0.1], [0.1, -0.1]),
                          ([0.3, -1.2], [0.3, -HIP_YAW_LIMIT]),
                          ([2 * math.pi + 0.2, -0.05], [0.2, -0.05])):  # fmt: skip
        q = drv.ankles(np.zeros(6), (rot, rot), [0.5, 0.5], targets,
                       [body_yaw + a for a in planned])  # fmt: skip
        assert q[hips] == pytest.approx(want, abs=1e-12), planned
