"""Four-legged walks as users write them after animals (``generate.quadruped_walker``):
four-beat lateral- and diagonal-sequence walks on narrow tracks, the family the paired
generator never draws (its four-legged walkers all trot). The generator's promises, the
controller's sideways balance on point feet (``side_track_gain``, ``zmp_share``, the
attitude gain) by hand, and (slow) their walk in physics."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaitsim.catalog import parse_catalog
from gaitsim.feet import soles
from gaitsim.generate import (
    QUADRUPED_DUTY,
    QUADRUPED_LAG,
    QUADRUPED_PATTERNS,
    QUADRUPED_TRACK,
    quadruped_entry,
    quadruped_walker,
    random_entry,
    random_walker,
)
from gaitsim.geometry import geometry
from gaitsim.sim.controller import NARROW_ATTITUDE, ControlConfig
from gaitsim.sim.run import NARROW_ASSIST, default_body
from gaitsim.sim.stance import NARROW_FROM, NARROW_TO, narrow_share, tipping_ratio
from gaitsim.validate import validate_entry
from gaitsim.walker import resolve_entry


def _legs(entry):
    return {leg.name: leg for leg in entry.gait.legs}


def test_the_quadruped_generator_is_seeded_and_spans_its_draws():
    assert quadruped_walker(3) == quadruped_walker(3)
    assert quadruped_walker(3) != quadruped_walker(4)
    entries = [quadruped_entry(s) for s in range(200)]
    assert {e.gait.n_legs for e in entries} == {4}
    duty = [e.gait.duty for e in entries]
    assert QUADRUPED_DUTY[0] <= min(duty) < 0.57 and 0.78 < max(duty) <= QUADRUPED_DUTY[1]
    track = [abs(_legs(e)["fore_l"].home[1]) / _legs(e)["fore_l"].reach for e in entries]
    assert QUADRUPED_TRACK[0] <= min(track) < 0.09 and 0.29 < max(track) <= QUADRUPED_TRACK[1]
    # narrower than the paired generator ever draws (a quarter of the leg at least)
    assert sum(t < 0.25 for t in track) > 100
    kinds = {(_legs(e)["fore_l"].knee, _legs(e)["hind_l"].knee) for e in entries}
    assert kinds == {("forward", "back"), ("forward", "forward"), ("back", "back")}
    assert random_walker(3) == random_walker(3)  # the paired generator is untouched


def _landings(landings, gait) -> dict[str, float]:
    """Each leg's touchdown in its cycle, by leg name (the ``landings`` fixture)."""
    return dict(zip((leg.name for leg in gait.legs), landings(gait), strict=True))


@pytest.mark.parametrize("seed", range(16))
def test_each_walk_lands_its_feet_one_at_a_time_in_its_order(seed, landings):
    """Read from where the plan puts each foot down (not from the phases' values: a leg
    whose phase is larger lands earlier, and until stop 44 the two orders' names were
    swapped): lateral, left hind -> left fore -> right hind -> right fore; diagonal, left
    hind -> right fore -> right hind -> left fore; each next foot 0.2-0.3 of a cycle
    later, the sides half a cycle apart."""
    drawn = quadruped_entry(seed)
    assert _landings(landings, drawn.gait) in (
        _landings(landings, quadruped_entry(seed, p).gait) for p in QUADRUPED_PATTERNS)
    orders = {"lateral": ("hind_l", "fore_l", "hind_r", "fore_r"),
              "diagonal": ("hind_l", "fore_r", "hind_r", "fore_l")}
    for pattern in QUADRUPED_PATTERNS:
        td = _landings(landings, quadruped_entry(seed, pattern).gait)
        start = td["hind_l"]
        rel = {k: (v - start) % 1.0 for k, v in td.items()}
        assert tuple(sorted(rel, key=rel.get)) == orders[pattern], (pattern, rel)
        first, second, third, fourth = (rel[k] for k in orders[pattern])
        assert third == pytest.approx(0.5, abs=1e-3)
        lag = second - first
        assert QUADRUPED_LAG[0] - 1e-3 <= lag <= QUADRUPED_LAG[1] + 1e-3
        assert fourth - third == pytest.approx(lag, abs=1e-3)
    with pytest.raises(ValueError, match="pattern must be one of"):
        quadruped_walker(0, "gallop")


def test_the_fox_walks_the_lateral_sequence(landings):
    """The built-in fox: left hind, left fore, right hind, right fore (the README's table
    says lateral sequence; the generator's ``lateral`` is the same order)."""
    legs = {leg.name: leg for leg in resolve_entry("fox").gait.legs}
    names = {("L", False): "hind_l", ("L", True): "fore_l", ("R", False): "hind_r",
             ("R", True): "fore_r"}  # fmt: skip
    td = _landings(landings, resolve_entry("fox").gait)
    by_role = {names[leg.side, leg.home[0] > 0]: td[n] for n, leg in legs.items()}
    rel = {k: (v - by_role["hind_l"]) % 1.0 for k, v in by_role.items()}
    assert tuple(sorted(rel, key=rel.get)) == ("hind_l", "fore_l", "hind_r", "fore_r")


@pytest.mark.parametrize("seed", range(40))
def test_every_drawn_walk_passes_the_walk_test(seed):
    report = validate_entry(quadruped_entry(seed))
    assert report["pass"], report


def test_a_narrow_walk_stands_many_times_taller_than_its_half_track():
    ratios = []
    for s in range(100):
        geo = geometry(quadruped_entry(s).gait)
        ratios.append(geo.standing_height / min(abs(h[1]) for h in geo.homes))
    assert min(ratios) < 3 and max(ratios) > 10
    assert all(math.isfinite(r) for r in ratios)


# -- the sideways balance of a narrow body (``stance.narrow_share``) by hand ---------------


def test_the_tipping_ratio_and_the_narrow_share_by_hand():
    # homes 0.1 m either side of the body, standing 0.45 m tall: 4.5 times its half track,
    # half way from NARROW_FROM (4) to NARROW_TO (5)
    entry = _narrow_entry(0.1)
    geo = geometry(entry.gait)
    assert tipping_ratio(geo) == pytest.approx(geo.standing_height / 0.1)
    assert narrow_share(geo) == pytest.approx(
        (tipping_ratio(geo) - NARROW_FROM) / (NARROW_TO - NARROW_FROM))
    assert narrow_share(geometry(_narrow_entry(0.5).gait)) == 0.0
    assert narrow_share(geometry(_narrow_entry(0.02).gait)) == 1.0
    # the built-in walkers and every plain generated one stand below NARROW_FROM: their
    # controller is the wide body's, bit for bit (README, "Four-legged walks")
    for name in ("fox", "hound", "horn_beetle", "spider_bot"):
        assert narrow_share(geometry(resolve_entry(name).gait)) == 0.0
    for s in range(0, 1100, 7):
        gait = random_entry(s).gait
        if soles(gait) is None:
            assert narrow_share(geometry(gait)) == 0.0


def _narrow_entry(half_track: float):
    """A four-legged walk (0.25 m thighs on 0.25 m shins, feet 0.3 m fore and aft) whose
    feet stand ``half_track`` m either side of its body."""
    return parse_catalog({"narrow": {"gait": _narrow_gait(half_track)}})["narrow"]


def _narrow_gait(half_track: float) -> dict:
    return {
        "stride": 0.15, "duty": 0.65, "lift": 0.04, "clip_speed": 0.25,
        "segments": [
            {"name": f"{end}_{side.lower()}", "side": side, "phase": ph, "knee": "forward",
             "upper": 0.25, "lower": 0.25, "home": [sign * half_track, 0.0, z]}
            for end, z, phases in (("fore", 0.3, (0.25, 0.75)), ("hind", -0.3, (0.0, 0.5)))
            for (side, sign), ph in zip((("L", 1.0), ("R", -1.0)), phases, strict=True)
        ],
    }  # fmt: skip


def test_a_wide_body_keeps_its_sideways_track_and_a_narrow_free_one_leaves_it(
        built_controller):  # fmt: skip
    wide, narrow = _narrow_entry(0.5), _narrow_entry(0.02)
    assert built_controller(wide, "_side_gain") == 1.0
    assert built_controller(wide, "_zmp_k") == 0.0
    assert built_controller(wide, "_attitude") == (1.0, 1.0)
    ctl = built_controller(narrow)
    assert ctl._side_gain == 0.0 and ctl._attitude == (NARROW_ATTITUDE, NARROW_ATTITUDE)
    assert ctl._zmp_k == pytest.approx(-ctl._fall_time**2)
    # held upright by the assist, it keeps the wide body's (it does not tip with its legs)
    held = built_controller(narrow, body="assist")
    assert (held._side_gain, held._zmp_k, held._attitude) == (1.0, 0.0, (1.0, 1.0))
    # asked for, a value holds whatever the body
    asked = built_controller(wide, side_track_gain=0.3, zmp_share=0.5, attitude_gain=2.0)
    assert asked._side_gain == 0.3 and asked._attitude == (2.0, 1.0)
    assert asked._zmp_k == pytest.approx(-0.5 * asked._fall_time**2)
    # soles keep their own: the bipeds' sole_track_gain, no ZMP shift, attitude 1
    mech = built_controller("mechanic")
    assert (mech._side_gain, mech._zmp_k, mech._attitude) == (None, 0.0, (1.0, 1.0))


def test_the_virtual_body_closes_the_error_along_the_path_but_not_across_it(built_controller):
    ctl = built_controller(_narrow_entry(0.02), foothold_follow=0.0)
    sensed = ctl.sensed
    mx, my = sensed.position[0], sensed.position[1]
    heading = 0.3  # the path's heading; the reference 0.1 m ahead of the body and 0.05 left
    c, s = math.cos(heading), math.sin(heading)
    ref = (mx + 0.1 * c - 0.05 * s, my + 0.1 * s + 0.05 * c, 0.4)
    rot = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
    (x, y, z), _ = ctl._virtual_body(sensed, ref, rot, heading, (0.01 * c, 0.01 * s))
    along, across = c * (x - mx) + s * (y - my), c * (y - my) - s * (x - mx)
    assert along == pytest.approx(ctl.config.track_gain * 0.1)  # (point feet: no lead)
    assert across == pytest.approx(0.0, abs=1e-12) and z == 0.4


@pytest.mark.parametrize("lead", [0.0, 0.2, 0.5])
def test_the_virtual_body_of_soles_leads_by_the_speed_error(built_controller, lead):
    """On soles the stance legs' pose is pulled ``sole_track_gain`` of the way to the
    reference and led ``sole_track_lead`` seconds of the speed error along the path's
    heading (hand-computed: the reference 0.1 m ahead moving at 0.6 m/s, the body at
    0.25 m/s along the heading and 0.4 m/s across it, which the lead ignores)."""
    from types import SimpleNamespace

    ctl = built_controller("mechanic", sole_track_lead=lead, foothold_follow=0.0)
    heading = -0.7
    c, s = math.cos(heading), math.sin(heading)
    mx, my, mz = ctl.sensed.position
    sensed = SimpleNamespace(position=(mx, my, mz),
                             linear_velocity=(0.25 * c - 0.4 * s, 0.25 * s + 0.4 * c, 0.1))
    rot = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
    dpos = (0.6 * ctl.dt * c, 0.6 * ctl.dt * s)
    (x, y, _), _ = ctl._virtual_body(sensed, (mx + 0.1 * c, my + 0.1 * s, 0.4), rot,
                                      heading, dpos)  # fmt: skip
    along, across = c * (x - mx) + s * (y - my), c * (y - my) - s * (x - mx)
    assert along == pytest.approx(ctl.config.sole_track_gain * 0.1 + lead * 0.35)
    assert across == pytest.approx(0.0, abs=1e-12)


@pytest.fixture(scope="module")
def narrow_ctl(built_controller):
    return built_controller(_narrow_entry(0.02))


@given(st.floats(-3.0, 3.0), st.floats(-3.0, 3.0), st.floats(0.0, 1.0))
@settings(max_examples=40, deadline=None)
def test_the_zmp_shift_is_the_references_acceleration_over_omega_squared(
        narrow_ctl, ax, ay, share):  # fmt: skip
    """A reference accelerating at (ax, ay) m/s^2: central differences over three control
    periods give it exactly (to rounding), and the shift is -share (ax, ay) / omega^2."""
    ctl = narrow_ctl
    ctl._zmp_k = -share * ctl._fall_time**2
    dt = ctl.dt
    pts = [(0.5 * ax * (k * dt) ** 2 + 0.2 * k * dt, 0.5 * ay * (k * dt) ** 2) for k in (0, 1, 2)]
    ctl._ref_before = pts[0]
    zx, zy = ctl._zmp_shift(pts[1], pts[2])
    w2 = ctl._fall_time**-2
    assert zx == pytest.approx(-share * ax / w2, abs=1e-9)
    assert zy == pytest.approx(-share * ay / w2, abs=1e-9)
    assert ctl._ref_before == pts[1]
    # the first step has no period before it: no acceleration
    ctl._ref_before = None
    assert ctl._zmp_shift(pts[1], (2 * pts[1][0], 2 * pts[1][1])) == (0.0, 0.0)



def test_the_new_settings_are_checked():
    for bad in (-0.1, 1.5, math.nan):
        with pytest.raises(ValueError, match="side_track_gain is a share"):
            ControlConfig(side_track_gain=bad)
        with pytest.raises(ValueError, match="zmp_share is a share"):
            ControlConfig(zmp_share=bad)
    with pytest.raises(ValueError, match="attitude_gain must be a number >= 0 or None"):
        ControlConfig(attitude_gain=-1.0)
    ControlConfig(side_track_gain=None, zmp_share=None, attitude_gain=None)


def test_a_body_taller_than_six_half_tracks_gets_the_assist_by_default():
    assert default_body(_narrow_entry(0.05)) == "assist"  # 0.45 / 0.05 = 9
    assert default_body(_narrow_entry(0.1)) == "free"  # 4.5
    assert default_body("fox") == "free"
    tall = [s for s in range(60) if tipping_ratio(geometry(quadruped_entry(s).gait)) > 6]
    assert tall and all(default_body(quadruped_entry(s)) == "assist" for s in tall)


# -- in physics (slow) ---------------------------------------------------------------------

def _ratio(seed: int) -> float:
    return tipping_ratio(geometry(quadruped_entry(seed).gait))


MID = [s for s in range(40) if NARROW_FROM < _ratio(s) <= NARROW_ASSIST]  # 18 walkers
TALL = [s for s in range(40) if _ratio(s) > NARROW_ASSIST][:4]
WIDE_BODYS = {"side_track_gain": 1.0, "zmp_share": 0.0, "attitude_gain": 1.0,
              "attitude_damping": 1.0}  # the controller before stop 43, bit for bit


def _flat(cell) -> dict:
    from gaitsim.sim.run import simulate

    seed, config = cell
    return simulate(quadruped_entry(seed), seconds=10.0, config=ControlConfig(**config)).summary


def _within_flat_bounds(s: dict) -> bool:
    """The gait-fidelity issue's flat-ground bounds (free body)."""
    return (s["verdict"] == "walked" and s["duty_error_max"] <= 0.08
            and s["duty_error_mean"] <= 0.05 and s["contact_timing_error"] <= 0.10
            and 0.9 <= s["speed_ratio"] <= 1.1 and s["touchdowns_per_stance"] <= 1.2)  # fmt: skip


@pytest.mark.slow
def test_narrow_walks_meet_the_flat_bounds_free_more_often_than_before():
    """The 18 walks of seeds 0-39 standing 4-6 times as tall as their half track, 10 s
    flat, free: 14 met every bound with the narrow body's sideways balance when it was
    measured, 7 with the wide body's (README, "Four-legged walks")."""
    from concurrent.futures import ProcessPoolExecutor

    assert len(MID) == 18
    with ProcessPoolExecutor(2) as pool:
        new = list(pool.map(_flat, [(s, {}) for s in MID]))
        old = list(pool.map(_flat, [(s, WIDE_BODYS) for s in MID]))
    n_new, n_old = sum(map(_within_flat_bounds, new)), sum(map(_within_flat_bounds, old))
    assert n_new >= 12 and n_new - n_old >= 4, (n_new, n_old)


@pytest.mark.slow
@pytest.mark.parametrize("seed", TALL)
def test_a_tall_narrow_walk_walks_on_the_assist_it_gets_by_default(seed):
    from gaitsim.sim.run import simulate

    entry = quadruped_entry(seed)
    assert default_body(entry) == "assist"
    s = simulate(entry, seconds=10.0, config=ControlConfig(body="assist")).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert s["touchdowns_per_stance"] <= 1.2 and s["tipping_ratio"] > NARROW_ASSIST


def test_a_free_narrow_walker_that_falls_is_told_why_and_what_to_change(tmp_path, capsys):
    from types import SimpleNamespace

    from gaitsim.cli import _narrow_note

    fell = SimpleNamespace(body="free", fell=True, tipping_ratio=8.0)
    note = _narrow_note(fell)
    assert "8.0 times as tall as half its track" in note and "7 deg" in note
    assert "--body assist" in note and "hip_height" in note
    for other in ({"body": "assist"}, {"fell": False}, {"tipping_ratio": 3.0},
                  {"tipping_ratio": None}):  # fmt: skip
        assert _narrow_note(SimpleNamespace(**{**vars(fell), **other})) is None
    # the walk table reports the ratio
    from gaitsim.cli import main

    path = tmp_path / "narrow.json"
    path.write_text(json.dumps({"narrow": {"gait": _narrow_gait(0.1)}}))
    assert main(["walk", "narrow", "--catalog", str(path), "--seconds", "1", "-q"]) in (0, 1)
    out = capsys.readouterr().out
    assert "height / half track" in out and "4.5" in out


def test_a_free_diagonal_walk_that_did_not_walk_is_told_its_order_and_the_edit():
    """The note names the order, how each order measured, and that swapping the fore
    legs' phases gives the lateral one (checked: it does); only for a free run that did
    not walk, of a diagonal-sequence walk."""
    import dataclasses
    from types import SimpleNamespace

    from gaitsim.catalog import gait_pattern
    from gaitsim.cli import _sequence_note

    entry = quadruped_entry(21, "diagonal")
    failed = SimpleNamespace(body="free", walked=False)
    note = _sequence_note(entry, failed)
    assert "diagonal-sequence walk" in note and "57 of 144" in note and "116 of 156" in note
    assert _sequence_note(entry, SimpleNamespace(body="free", walked=True)) is None
    assert _sequence_note(entry, SimpleNamespace(body="assist", walked=False)) is None
    assert _sequence_note(quadruped_entry(21, "lateral"), failed) is None
    assert _sequence_note(resolve_entry("fox"), failed) is None
    # the edit the note suggests: the fore legs' phases swapped
    legs = {leg.name: leg for leg in entry.gait.legs}
    fl, fr = legs["fore_l"].phase, legs["fore_r"].phase
    swapped = tuple(dataclasses.replace(leg, phase={"fore_l": fr, "fore_r": fl}.get(
        leg.name, leg.phase)) for leg in entry.gait.legs)  # fmt: skip
    assert gait_pattern(dataclasses.replace(entry.gait, legs=swapped)) == (
        "walk (lateral sequence)")
