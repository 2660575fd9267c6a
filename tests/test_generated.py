"""Walkers nobody wrote by hand: the seeded generator, the derived defaults that must serve
any of them, and (slow) their walk in physics."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from gaitsim.catalog import CatalogError, parse_catalog
from gaitsim.cli import main
from gaitsim.generate import (
    BONE_RATIO_RANGE,
    DUTY_RANGE,
    LEG_COUNTS,
    LEG_LENGTH_RANGE,
    random_entry,
    random_walker,
)
from gaitsim.geometry import default_hip_height, geometry, hip_height_bounds
from gaitsim.validate import validate_entry

SEEDS = range(60)


def test_the_generator_is_seeded_and_spans_its_ranges():
    assert random_walker(7) == random_walker(7)
    assert random_walker(7) != random_walker(8)
    entries = [random_entry(s) for s in range(300)]
    legs = {e.gait.n_legs for e in entries}
    knees = {leg.knee for e in entries for leg in e.gait.legs}
    assert legs == set(LEG_COUNTS) and knees == {"up", "forward", "back"}
    duty = [e.gait.duty for e in entries]
    assert DUTY_RANGE[0] <= min(duty) < 0.4 and 0.8 < max(duty) <= DUTY_RANGE[1]
    lengths = [e.gait.legs[0].reach for e in entries]
    assert LEG_LENGTH_RANGE[0] <= min(lengths) < 0.06 and 1.2 < max(lengths) <= LEG_LENGTH_RANGE[1]
    ratios = [e.gait.legs[0].upper / e.gait.legs[0].lower for e in entries]
    assert BONE_RATIO_RANGE[0] <= min(ratios) < 0.25 and 4 < max(ratios) <= BONE_RATIO_RANGE[1]


def test_a_hind_pair_turns_its_knees_alike():
    """Mixed fore and hind knees flip the hind pair together; ``lopsided_knees`` draws the
    flip per hind leg (the walkers an earlier generator drew for 19 of seeds 0-399, e.g.
    201: back, back, back, forward) and changes no other walker."""
    mixed = lopsided = 0
    for seed in range(400):
        a, b = random_entry(seed).gait, random_entry(seed, lopsided_knees=True).gait
        knees = [leg.knee for leg in a.legs]
        if a.n_legs == 4:
            assert knees[2] == knees[3], (seed, knees)
            mixed += knees[0] != knees[2]
        if a != b:  # only the hind knees differ, and only one of them
            lopsided += 1
            other = [leg.knee for leg in b.legs]
            assert other[:3] == knees[:3] and other[3] != knees[3], (seed, knees, other)
            assert a.legs[:3] == b.legs[:3] and a.stride == b.stride and a.duty == b.duty
    assert lopsided == 19 and mixed >= 7
    assert [leg.knee for leg in random_entry(201, lopsided_knees=True).gait.legs] == [
        "back", "back", "back", "forward"]


@pytest.mark.parametrize("seed", SEEDS)
def test_every_generated_walker_passes_the_walk_test(seed):
    # the derived hip height keeps every foot inside its reachable annulus over the whole
    # cycle, lift and bob included: no shortfall walking straight or turning in place on
    # level ground (the walk test's fixed 0.5 m arc, 10 deg slope and 2 cm bumps may be out
    # of a large or small walker's reach; that is reported as shortfall, not hidden)
    entry = random_entry(seed)
    r = validate_entry(entry)
    assert r["pass"], r
    level = {k: v for k, v in r["max_shortfall_m"].items() if k in ("straight",
                                                                      "turn_in_place")}  # fmt: skip
    assert len(level) == 2 and max(level.values()) == 0.0, r["max_shortfall_m"]


def test_default_hip_height_respects_the_inner_reach():
    # the walker: a lower bone five times the upper one. The old rule (85 % reach
    # at stance ends) left a lifted foot inside the folded leg's reach: 1 mm of shortfall.
    legs = [("fl", "L", 0.0, 0.08, 0.15), ("fr", "R", 0.5, -0.08, 0.15),
            ("hl", "L", 0.5, 0.08, -0.15), ("hr", "R", 0.0, -0.08, -0.15)]  # fmt: skip
    segments = [
        {
            "name": n,
            "side": s,
            "phase": p,
            "knee": "forward",
            "upper": 0.04,
            "lower": 0.2,
            "home": [y, 0, x],
        }
        for n, s, p, y, x in legs
    ]
    gait = {"stride": 0.12, "duty": 0.6, "lift": 0.04, "clip_speed": 0.3, "segments": segments}
    cat = {"long_shin": {"gait": gait}}
    entry = parse_catalog(cat)["long_shin"]
    low, high, highest = hip_height_bounds(entry.gait)
    assert low > high  # 85 % reach is too low for this leg ...
    h = default_hip_height(entry.gait)
    assert low <= h <= highest  # ... so the default rises to keep the lifted foot clear
    r = validate_entry(entry)
    assert r["pass"] and max(r["max_shortfall_m"].values()) == 0.0
    assert geometry(entry.gait).hip_height == pytest.approx(h)


def test_a_catalog_no_body_can_stand_on_is_a_usage_error(tmp_path, capsys):
    seg = {"name": "a", "side": "L", "phase": 0.0, "knee": "forward", "upper": 0.1,
           "lower": 0.1, "home": [0.05, 0, 0]}  # fmt: skip
    other = {**seg, "name": "b", "side": "R", "phase": 0.5, "home": [-0.05, 0, 0]}
    gait = {"stride": 0.1, "duty": 0.6, "lift": 0.19, "clip_speed": 0.3, "segments": [seg, other]}
    cat = {"stilts": {"gait": gait}}
    with pytest.raises(CatalogError, match="no hip height"):
        geometry(parse_catalog(cat)["stilts"].gait)
    path = tmp_path / "stilts.json"
    path.write_text(json.dumps(cat))
    for argv in (["validate"], ["urdf", "--out", str(tmp_path / "u")], ["walk", "stilts"]):
        code = main([*argv, "--catalog", str(path)])
        err = capsys.readouterr().err
        assert code == 2, (argv, err)
        assert "stilts" in err and "segments[" in err and "lift" in err, err
        assert "Traceback" not in err


# ---------------------------------------------------------------------------- physics
# every generated walker among seeds 0-39 with four or more legs and no flight phase
PHYSICS_SEEDS = [s for s in range(40) if random_entry(s).gait.n_legs >= 4 and
                 random_entry(s).gait.duty >= 0.5]  # fmt: skip


def _joint_origins(urdf: str) -> list[float]:
    """Every joint's origin xyz in a URDF's text, in file order, flat."""
    import xml.etree.ElementTree as ET

    return [float(v) for j in ET.fromstring(urdf).iter("joint")
            for v in j.find("origin").get("xyz").split()]  # fmt: skip


def _moved_ahead(entry, dx: float):
    """``entry`` with every home (and catalog hip) ``dx`` m further forward: its legs all
    in front of the catalog's origin when ``dx`` exceeds its rearmost home's distance
    behind it."""
    import dataclasses

    legs = tuple(dataclasses.replace(
        leg, home=(leg.home[0] + dx, *leg.home[1:]),
        hip=None if leg.hip is None else (leg.hip[0] + dx, *leg.hip[1:]),
    ) for leg in entry.gait.legs)  # fmt: skip
    return dataclasses.replace(entry, gait=dataclasses.replace(entry.gait, legs=legs))


@pytest.mark.parametrize("seed", PHYSICS_SEEDS[:2])
def test_a_walker_with_every_leg_ahead_of_its_origin_walks_centred_over_them(seed):
    """Generated walkers moved so that every home stands ahead of the catalog's origin
    (a user's front-footed walker: the awkward catalog's hexapod crawled at 0.46 of its
    speed with its body hanging behind its feet): the body is centred over the homes, the
    URDF is the unmoved walker's, and it walks 4 s as the unmoved one does (the same body;
    the homes' last bits differ, so the runs agree closely, not to the digit)."""
    from gaitsim.sim.run import simulate
    from gaitsim.urdf import build

    entry = random_entry(seed)
    back = -min(leg.home[0] for leg in entry.gait.legs)
    moved = _moved_ahead(entry, back + 0.05)
    assert geometry(moved.gait).origin == pytest.approx((back + 0.05, 0.0), abs=1e-9)
    assert geometry(moved.gait).homes == pytest.approx(geometry(entry.gait).homes, abs=1e-9)
    assert _joint_origins(build(moved)) == pytest.approx(_joint_origins(build(entry)), abs=1e-9)
    a = simulate(entry, seconds=4.0).summary
    b = simulate(moved, seconds=4.0).summary
    assert b["verdict"] == "walked", (seed, b["verdict_reason"])
    assert b["speed_ratio"] == pytest.approx(a["speed_ratio"], abs=0.02)
    assert b["touchdowns_per_stance"] <= max(1.2, a["touchdowns_per_stance"])
    assert b["slip_mm_per_stance"] == pytest.approx(a["slip_mm_per_stance"], rel=0.25)


@pytest.mark.slow
@pytest.mark.parametrize("seed", PHYSICS_SEEDS)
def test_generated_walkers_walk_their_gait(seed):
    """10 s flat, free body, the default controller: the gait-fidelity bounds (every leg's
    duty within 0.08 of the catalog's except the measured miss above, the mean within
    0.05, contact and plan disagreeing in at most 10 % of leg-steps, speed ratio 0.9-1.1,
    at most 1.2 touchdowns per stance)."""
    from gaitsim.sim.run import simulate

    entry = random_entry(seed)
    s = simulate(entry, seconds=10.0).summary
    assert s["verdict"] == "walked", (seed, s["verdict_reason"])
    assert s["duty_error_max"] <= 0.08, (seed, s["duty_by_leg"])
    assert s["duty_error_mean"] <= 0.05, (seed, s["duty_by_leg"], entry.gait.duty)
    assert s["contact_timing_error"] <= 0.10, seed
    assert 0.9 <= s["speed_ratio"] <= 1.1, seed
    assert s["touchdowns_per_stance"] <= 1.2, seed


@pytest.mark.slow
@pytest.mark.parametrize("seed", [s for s in range(40) if random_entry(s).gait.duty < 0.5][:4])
def test_generated_gaits_with_flight_phases_walk_with_the_assist(seed):
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import default_body, simulate

    entry = random_entry(seed)
    assert default_body(entry) == "assist"
    s = simulate(entry, seconds=10.0, config=ControlConfig(body="assist")).summary
    assert not s["fell"] and abs(s["speed_ratio"] - 1.0) < 0.2, seed
    # and the summary says how much the assist carried (the verdict is `carried` past 30 %)
    # and how much its thighs and shins did (`kneeling` past 10 %: seed 4, ten back-kneed
    # legs with 0.23 m thighs on 0.05 m shins, laid its shins down under the assist at a
    # 0.239 m hip, 0.22 of its weight on them; the knee floor's sag allowance raised it to
    # 0.251 m, where they carry about 0.06)
    share, legs = s["assist_mean_force_per_weight"], s["leg_load_per_weight"]
    want = "carried" if share > 0.3 else "kneeling" if legs > 0.1 else "walked"
    assert np.isfinite(share) and np.isfinite(legs) and s["verdict"] == want, seed
    assert want == "walked", (seed, share, legs)


@pytest.mark.slow
def test_a_flight_gait_many_legs_carry_walks_on_legs_sized_for_them():
    """Generated walker 5063 (12 legs in two groups of six, duty 0.49): its legs are
    sized for six carrying it (``urdf.n_stance_min``). Sized for one (a flight phase
    counted as no leg down), it ran off at 5.9 times its speed and fell at 3.8 s."""
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import default_body, simulate

    entry = random_entry(5063)
    assert default_body(entry) == "assist"
    s = simulate(entry, seconds=5.0, config=ControlConfig(body="assist")).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert 0.9 <= s["speed_ratio"] <= 1.1 and s["heading_error_deg"] < 5.0
    assert s["touchdowns_per_stance"] <= 1.2 and min(s["duty_by_leg"]) >= 0.4


def _two_legs(duty: float, phases=(0.0, 0.5)):
    """Generated biped 0's gait at ``duty`` with its legs at ``phases``."""
    (walker,) = random_walker(0, legs=2, duty=duty).values()
    for seg, phase in zip(walker["gait"]["segments"], phases, strict=True):
        seg["phase"] = phase
    (entry,) = parse_catalog({"two": walker}).values()
    return entry.gait


def test_a_hip_yaw_is_stiff_only_for_gaits_with_flight_phases():
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.stance import FLIGHT_HIP_YAW_KP, HIP_YAW_KP, hip_yaw_gain

    run, walk = _two_legs(0.49), _two_legs(0.5)
    hop = _two_legs(0.7, phases=(0.0, 0.0))  # both feet up together for 0.3 of the cycle
    assert (hip_yaw_gain(run), hip_yaw_gain(walk), hip_yaw_gain(hop)) == (0.3, 0.03, 0.3)
    assert (FLIGHT_HIP_YAW_KP, HIP_YAW_KP) == (0.3, 0.03)
    assert ControlConfig().kp_hip_yaw is None  # the gait's own unless asked for
    with pytest.raises(ValueError, match="kp_hip_yaw"):
        ControlConfig(kp_hip_yaw=0.0)


STARTS = (None, 1, 2, 3)  # the default start and episode seeds 1-3


@pytest.mark.parametrize("seed", [1095, 1097])
def test_a_small_two_legged_runner_keeps_its_heading_on_either_hip_yaw_gain(seed):
    """Generated runners (duty 0.36 and 0.39, 28 g and 190 g) under the assist, 4 s flat,
    from four start points: on the gait's own hip yaw gain (0.3) and on the soft one of
    the walking bipeds (0.03) they walk their heading from every start, landing once a
    stance; the stiff gain keeps the smaller heading error on average.

    Measured (stop 53): own 2.8-3.3 deg (1095) and 3.5-4.0 (1097); soft 3.4-3.5 and
    4.8-5.7. Until stop 53 the stance hip turned the body from where the sole was planned
    to face, not where it landed facing (``GaitController._hip_facings``), and the soft
    gain failed: stop 49 measured 7.6-17.2 deg with 3 of 4 starts no progress (1095) and
    9.1-12.4 deg with 2 of 4 (1097), which is why runners got the stiff gain."""
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import default_body, simulate

    entry = random_entry(seed)
    assert entry.gait.n_legs == 2 and entry.gait.duty < 0.5 and default_body(entry) == "assist"
    runs = {(k, start): simulate(entry, seconds=4.0, seed=start,
                                 config=ControlConfig(body="assist", kp_hip_yaw=k)).summary
            for k in (None, 0.03) for start in STARTS}  # fmt: skip
    for s in runs.values():
        assert s["verdict"] == "walked" and s["heading_error_deg"] < 10.0, (seed, s["verdict"])
        assert s["touchdowns_per_stance"] <= 1.1, seed
    own, soft = ([runs[k, start]["heading_error_deg"] for start in STARTS] for k in (None, 0.03))
    assert np.mean(own) < np.mean(soft), (seed, own, soft)


# on MuJoCo (the engine issue): the same walkers, the same bounds


@pytest.mark.slow
@pytest.mark.parametrize("seed", PHYSICS_SEEDS)
def test_generated_walkers_walk_their_gait_on_mujoco(seed):
    pytest.importorskip("mujoco")
    from gaitsim.sim.run import simulate

    entry = random_entry(seed)
    s = simulate(entry, seconds=10.0, engine="mujoco").summary
    assert s["verdict"] == "walked", (seed, s["verdict_reason"])
    assert s["duty_error_max"] <= 0.08, (seed, s["duty_by_leg"])
    assert s["duty_error_mean"] <= 0.05, (seed, s["duty_by_leg"], entry.gait.duty)
    assert s["contact_timing_error"] <= 0.10, seed
    assert 0.9 <= s["speed_ratio"] <= 1.1, seed
    assert s["touchdowns_per_stance"] <= 1.2, seed


# the gait-fidelity issue's second bound, off flat ground: the generated walkers above
# that used to bounce up a 5 deg slope (1.55-3.1 touchdowns per stance)
TERRAIN_SEEDS = [8, 38, 39]


@pytest.mark.slow
@pytest.mark.parametrize("seed", TERRAIN_SEEDS)
@pytest.mark.parametrize("terrain", ["up5", "down5", "rough1cm"])
def test_generated_walkers_keep_their_contact_off_flat_ground(seed, terrain):
    """10 s up and down a 5 deg slope and on 1 cm rough ground: the walked verdict and at
    most 1.5 touchdowns per stance."""
    import math

    from gaitsim.sim.run import simulate
    from gaitsim.terrain import Rough, Slope

    ground = {"up5": Slope(angle=math.radians(5.0)), "down5": Slope(angle=math.radians(-5.0)),
              "rough1cm": Rough(amplitude=0.01, seed=0)}[terrain]  # fmt: skip
    s = simulate(random_entry(seed), terrain=ground, seconds=10.0).summary
    assert s["verdict"] == "walked", (seed, terrain, s["verdict_reason"])
    assert s["touchdowns_per_stance"] <= 1.5, (seed, terrain)


# the slow point-footed trots (duty 0.64 and 0.68, 0.42 and 0.34 s on each diagonal pair)
# that fell in every condition while the stance legs pulled the body back to its reference
# off the footholds that capture-point placement had just chosen (``foothold_follow``)
SLOW_TROTS = [54, 74]


# Seed 54 up 5 deg is marginal: on stop 49's machine it falls from 2 of 6 starts (the
# default start at 8.6 s, seed 5 at 7.7 s; 1.04-1.14 touchdowns a stance from the four
# that walk), where the machine that added the test walked it. A known miss of the
# gait-fidelity issue's slope bound, not strict.
SLOW_TROT_MISSES = {(54, "up5"): "falls up 5 deg from 2 of 6 starts on stop 49's machine "
                                 "(the default start at 8.6 s)"}


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_TROTS)
@pytest.mark.parametrize("ground", ["flat", "flat_seed1", "up5", "down5", "rough1cm"])
def test_slow_trots_walk_in_every_condition(seed, ground, request):
    """10 s, free body, the five gait-fidelity conditions: on flat ground (two start points)
    the walked verdict and every flat bound; up and down 5 deg and on 1 cm rough ground the
    walked verdict and at most 1.5 touchdowns per stance."""
    import math

    if (seed, ground) in SLOW_TROT_MISSES:
        request.applymarker(pytest.mark.xfail(strict=False, reason=SLOW_TROT_MISSES[seed, ground]))

    from gaitsim.sim.run import simulate
    from gaitsim.terrain import Rough, Slope

    kw = {"seed": 1} if ground == "flat_seed1" else {}
    if not ground.startswith("flat"):
        kw["terrain"] = {"up5": Slope(angle=math.radians(5.0)),
                         "down5": Slope(angle=math.radians(-5.0)),
                         "rough1cm": Rough(amplitude=0.01, seed=0)}[ground]  # fmt: skip
    entry = random_entry(seed)
    s = simulate(entry, seconds=10.0, **kw).summary
    assert s["verdict"] == "walked", (seed, ground, s["verdict_reason"])
    if ground.startswith("flat"):
        assert s["duty_error_max"] <= 0.08, (seed, ground, s["duty_by_leg"])
        assert s["duty_error_mean"] <= 0.05, (seed, ground, s["duty_by_leg"])
        assert s["contact_timing_error"] <= 0.10, (seed, ground)
        assert 0.9 <= s["speed_ratio"] <= 1.1, (seed, ground, s["speed_ratio"])
        assert s["touchdowns_per_stance"] <= 1.2, (seed, ground)
    else:
        assert s["touchdowns_per_stance"] <= 1.5, (seed, ground)


# slow point-footed trots: a stand on a line long enough that no placement catches the body


def _trot(duty: float, cycle_scale: float = 1.0) -> dict:
    """A 4-legged trot on point feet (20 cm legs), its cycle ``cycle_scale`` times 1 s."""
    legs = [("fl", "L", 0.0, 0.08), ("fr", "R", 0.5, 0.08), ("hl", "L", 0.5, -0.08),
            ("hr", "R", 0.0, -0.08)]  # fmt: skip
    stride = 0.06
    return {"slow_trot": {"gait": {
        "stride": stride, "duty": duty, "lift": 0.02,
        "clip_speed": stride / duty / cycle_scale,
        "segments": [{"name": n, "side": s, "phase": p, "knee": "forward", "upper": 0.1,
                      "lower": 0.1, "home": [0.08 if s == "L" else -0.08, 0.0, z]}
                     for n, s, p, z in legs],
    }}}  # fmt: skip


def test_the_line_drift_growth_of_a_trot_by_hand():
    from gaitsim.gait import cycle_length
    from gaitsim.sim.run import LINE_GROWTH_LIMIT, default_body, line_drift_growth
    from gaitsim.sim.stance import line_growth

    entry = parse_catalog(_trot(0.5))["slow_trot"]
    g, h = entry.gait, geometry(entry.gait).standing_height
    period = cycle_length(g) / g.clip_speed  # 1 s
    assert period == pytest.approx(1.0)
    # duty 0.5: each diagonal pair stands alone for half the cycle
    assert line_drift_growth(entry) == pytest.approx(line_growth(0.5, h), rel=0.01)
    assert line_drift_growth(entry) > LINE_GROWTH_LIMIT
    assert default_body(entry) == "assist"
    # four times the cadence: the stand is a quarter as long, the growth its fourth root
    fast = parse_catalog(_trot(0.5, cycle_scale=0.25))["slow_trot"]
    assert line_drift_growth(fast) == pytest.approx(line_growth(0.125, h), rel=0.02)
    assert default_body(fast) == "free"
    # the built-in walkers keep their bodies: the hound's trot grows a drift 6.6-fold
    assert line_drift_growth("hound") == pytest.approx(6.6, abs=0.1)
    assert default_body("hound") == "free" and default_body("fox") == "free"
    assert line_drift_growth("mechanic") == 1.0  # soles


def _rephased(phases: dict[str, float], duty: float = 0.6) -> dict:
    """``_trot`` (8 cm half track, fore and hind feet 8 cm from the middle, a 1 s cycle)
    with the legs' phases changed: a pace or a bound on the same feet."""
    cat = _trot(duty)
    for seg in cat["slow_trot"]["gait"]["segments"]:
        seg["phase"] = phases[seg["name"]]
    return cat


def test_how_far_beside_the_body_a_pace_and_a_bound_stand_by_hand():
    """``line_offset``: a trot's diagonals pass under the body's centre (0); a pace's
    lateral pairs stand a half track beside it, a bound's pairs 8 cm ahead of it and
    behind it, each as a share of the standing height."""
    from gaitsim.sim.stance import line_offset

    trot = parse_catalog(_trot(0.6))["slow_trot"].gait
    pace = parse_catalog(_rephased({"fl": 0.0, "hl": 0.0, "fr": 0.5, "hr": 0.5}))
    bound = parse_catalog(_rephased({"fl": 0.0, "fr": 0.0, "hl": 0.5, "hr": 0.5}))
    h = geometry(trot).standing_height
    assert line_offset(trot) == pytest.approx(0.0, abs=1e-12)
    assert line_offset(pace["slow_trot"].gait) == pytest.approx(0.08 / h, rel=1e-6)
    assert line_offset(bound["slow_trot"].gait) == pytest.approx(0.08 / h, rel=1e-6)
    # three or more feet always down hold it: nothing is measured
    walk = parse_catalog(_rephased({"fl": 0.0, "hl": 0.25, "fr": 0.5, "hr": 0.75}, 0.8))
    assert line_offset(walk["slow_trot"].gait) == 0.0


def test_gaits_that_stand_beside_the_body_get_the_assist_sooner():
    """A pace of duty 0.7 on 1 s cycles: its stands beside the body let a drift grow
    9.2-fold, past OFFSET_LINE_GROWTH_LIMIT, so it gets the assist, where the trot on the
    same feet, whose diagonals pass under the body, keeps LINE_GROWTH_LIMIT and a free
    body; at four times the cadence the pace is free too. A bound of duty 0.5 never has
    all four feet down to carry the body across: assisted at any cadence (the sixth
    catalog's Minitaur pitched 42 deg free)."""
    from gaitsim.catalog import load_catalog
    from gaitsim.sim.run import (
        LINE_GROWTH_LIMIT,
        OFFSET_LINE_GROWTH_LIMIT,
        default_body,
        line_drift_growth,
    )

    pace = _rephased({"fl": 0.0, "hl": 0.0, "fr": 0.5, "hr": 0.5}, 0.7)
    trot = parse_catalog(_trot(0.7))["slow_trot"]
    growth = line_drift_growth(trot)
    assert OFFSET_LINE_GROWTH_LIMIT < growth < LINE_GROWTH_LIMIT
    assert line_drift_growth(parse_catalog(pace)["slow_trot"]) == pytest.approx(growth)
    assert default_body(parse_catalog(pace)["slow_trot"]) == "assist"
    assert default_body(trot) == "free"
    pace["slow_trot"]["gait"]["clip_speed"] *= 4
    assert default_body(parse_catalog(pace)["slow_trot"]) == "free"
    path = Path(__file__).resolve().parents[1] / "experiments" / "sixth_catalog.json"
    sixth = load_catalog(path)
    assert line_drift_growth(sixth["minitaur_bound"]) < OFFSET_LINE_GROWTH_LIMIT
    assert default_body(sixth["minitaur_bound"]) == default_body(sixth["giraffe_pace"]) == (
        "assist")
    assert {k for k, e in sixth.items() if default_body(e) == "assist"} == {
        "minitaur_bound", "giraffe_pace", "tribot", "serval_tall", "grey_heron"}


def test_a_slow_trot_falls_free_and_walks_with_the_assist_it_gets_by_default(capsys, tmp_path):
    # generated walker 195: a trot of duty 0.50 (no four-foot phase) on 6.7 cm legs, whose
    # diagonal stands let a drift grow 21.7-fold; free it falls (at 5.1 s on its soft
    # stance legs, within 4 s on the stiffer ones before), and the walk says why
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import default_body, simulate

    entry = random_entry(195)
    assert default_body(entry) == "assist"
    s = simulate(entry, seconds=4.0, config=ControlConfig(body="assist")).summary
    assert s["verdict"] == "walked" and s["touchdowns_per_stance"] <= 1.2
    assert s["line_drift_growth"] == pytest.approx(21.7, abs=0.1)
    cat = tmp_path / "trot.json"
    cat.write_text(json.dumps({"trot": random_walker(195)["generated_195"]}))
    code = main(["walk", "trot", "--catalog", str(cat), "--body", "free", "--seconds", "7",
                 "--quiet"])  # fmt: skip
    out = capsys.readouterr()
    assert code == 1 and "did not walk: fell" in out.out
    assert "line drift growth (x)" in out.out and "21.7" in out.out
    assert out.err == ""  # --quiet: no note
    main(["walk", "trot", "--catalog", str(cat), "--body", "free", "--seconds", "7"])
    assert "grow 21.7-fold" in capsys.readouterr().err


def test_the_stance_gain_softens_where_a_gait_stands_on_a_line():
    # the stance legs' position gain comes from the gait: 0.05, or 0.03 for a free body
    # where a drift across a line of point feet at least doubles over the stand on it
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.stance import (
        LINE_STANCE_KP,
        SOFT_STANCE_GROWTH,
        STANCE_KP,
        line_drift_growth,
        stance_gain,
    )

    assert stance_gain(1.0) == STANCE_KP and stance_gain(math.inf) == LINE_STANCE_KP
    assert stance_gain(SOFT_STANCE_GROWTH) == LINE_STANCE_KP
    assert stance_gain(np.nextafter(SOFT_STANCE_GROWTH, 0.0)) == STANCE_KP
    assert line_drift_growth("fox") < SOFT_STANCE_GROWTH < line_drift_growth("hound")
    assert ControlConfig().kp is None  # derived unless asked for
    with pytest.raises(ValueError, match="kp"):
        ControlConfig(kp=0.0)
    assert stance_gain(100.0, free=False) == STANCE_KP


@pytest.mark.slow
def test_a_slow_trot_lands_once_a_stance_on_soft_stance_legs():
    # generated walker 231 (a 170 kg trot of duty 0.554 whose diagonal stands grow a drift
    # 8.1-fold): at the old stance gain its body rocked about the diagonal and the foot at
    # the high end lifted and landed again, 1.38 touchdowns per stance; at the gait's own
    # (softer) gain it lands once a stance
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    entry = random_entry(231)
    soft = simulate(entry, seconds=10.0).summary
    assert soft["verdict"] == "walked" and soft["touchdowns_per_stance"] <= 1.05
    stiff = simulate(entry, seconds=10.0, config=ControlConfig(kp=0.05)).summary
    assert stiff["touchdowns_per_stance"] > 1.2


SOLE_SEEDS = [s for s in range(60) if random_entry(s).gait.n_legs >= 4
              and random_entry(s).gait.duty >= 0.5
              and all(leg.knee != "up" for leg in random_entry(s).gait.legs)][:6]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("seed", SOLE_SEEDS)
def test_generated_multi_legged_walkers_walk_on_soles(seed):
    """The first six generated walkers with four or more hanging legs and duty >= 0.5,
    given soles on every leg (the catalog's ``"foot": {}``), 10 s free on flat ground:
    walked, landing at most 1.75 times a stance (measured on the first twelve: all walked,
    1.00-1.71; all fell in 10 s before the width guard compared only feet on opposite
    sides)."""
    import dataclasses

    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    entry = random_entry(seed)
    legs = tuple(dataclasses.replace(leg, foot=()) for leg in entry.gait.legs)
    entry = dataclasses.replace(entry, gait=dataclasses.replace(entry.gait, legs=legs))
    s = simulate(entry, seconds=10.0, config=ControlConfig(body="free")).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert s["touchdowns_per_stance"] <= 1.75


def test_a_scaled_walker_is_the_same_gait_at_the_same_froude_number():
    """``scaled_entry``: the hound at twice its size has twice its bones, homes, stride,
    lift and (derived) hip height, sqrt(2) its speed, so its fall time and gait cycle both
    take sqrt(2) as long; a sole's lengths scale with it; bad scales and upper-body parts
    with keys of their own are refused."""
    import dataclasses

    from gaitsim.catalog import UpperBodySpec
    from gaitsim.gait import cycle_length
    from gaitsim.generate import scaled_entry
    from gaitsim.geometry import fall_time
    from gaitsim.walker import resolve_entry

    hound = resolve_entry("hound")
    big = scaled_entry(hound, 2.0)
    a, b = hound.gait, big.gait
    assert [leg.upper for leg in b.legs] == pytest.approx([2 * leg.upper for leg in a.legs])
    assert np.array([leg.home for leg in b.legs]) == pytest.approx(
        2 * np.array([leg.home for leg in a.legs]))
    assert (b.stride, b.lift, b.clip_speed) == pytest.approx(
        (2 * a.stride, 2 * a.lift, math.sqrt(2) * a.clip_speed))
    assert geometry(b).hip_height == pytest.approx(2 * geometry(a).hip_height)
    assert fall_time(geometry(b)) == pytest.approx(math.sqrt(2) * fall_time(geometry(a)),
                                                   rel=0.05)  # (the foot radius caps)
    period = cycle_length(b) / b.clip_speed
    assert period == pytest.approx(math.sqrt(2) * cycle_length(a) / a.clip_speed)
    sole = dataclasses.replace(a.legs[0], foot=(("heel", 0.02), ("ankle", "pitch")))
    soled = dataclasses.replace(hound, gait=dataclasses.replace(a, legs=(sole, *a.legs[1:])))
    assert dict(scaled_entry(soled, 3.0).gait.legs[0].foot) == {"heel": pytest.approx(0.06),
                                                                "ankle": "pitch"}
    for bad in (0.0, -1.0, math.nan):
        with pytest.raises(ValueError, match="scale"):
            scaled_entry(hound, bad)
    armed = dataclasses.replace(hound, gait=dataclasses.replace(
        a, upper_body=UpperBodySpec(arms=(("upper", 0.1),))))
    with pytest.raises(ValueError, match="upper-body"):
        scaled_entry(armed, 2.0)


@pytest.mark.slow
def test_a_two_legged_runner_s_heading_does_not_swing_wider_each_step():
    """Generated runner 5051 (two legs, duty 0.36) under the assist, 7 s flat: its stance
    leg is solved in a hip frame turned to where the planted sole really faces
    (``_hip_facings``): it walks, its mean heading error 2.9 deg, the flight phases'
    spikes (the legs' scissor turns the body while no foot is down) at most 16.2 deg in any
    second and not growing to a fall. Solved in the sole's planned frame, the body was held
    off by the sole's landing twist, the next foot landed with it and the heading swung to alternate
    sides further each step (+-7 deg at 1 s, +-19 at 4 s, +26 at 5.2 s) until it fell at
    6.5 s."""
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import default_body, simulate

    entry = random_entry(5051)
    assert entry.gait.n_legs == 2 and entry.gait.duty < 0.5 and default_body(entry) == "assist"
    res = simulate(entry, seconds=7.0, config=ControlConfig(body="assist"))
    s = res.summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert s["heading_error_deg"] < 5.0, s["heading_error_deg"]
    swing = np.degrees(np.abs(res.record["heading_error"])).max()
    assert swing < 20.0, swing


@pytest.mark.slow
@pytest.mark.parametrize("name", ["minitaur_bound", "giraffe_pace"])
def test_the_sixth_catalogs_bound_and_pace_walk_on_their_default_body(name):
    """Free, the bound pitched 42 deg and reached 221 mm short, the pace landed 2.0 times a
    stance (stop 61); on the assist they get by default both walk cleanly."""
    from gaitsim.catalog import load_catalog
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    path = Path(__file__).resolve().parents[1] / "experiments" / "sixth_catalog.json"
    s = simulate(load_catalog(path)[name], seconds=10.0,
                 config=ControlConfig(body="auto")).summary  # fmt: skip
    assert s["body"] == "assist" and s["verdict"] == "walked", s["verdict_reason"]
    assert s["touchdowns_per_stance"] <= 1.2 and s["duty_error_mean"] <= 0.05
