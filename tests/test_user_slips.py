"""Things users write that the catalog format allows but gaitsim once mishandled (the fourth
catalog, experiments/fourth_catalog.json, stop 60): feet written below the body frame, a
leg on the midline, a lift of 0, and a hip height so low that the knees touch down."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaitsim.catalog import CatalogError, load_catalog, parse_gait
from gaitsim.geometry import (
    SWING_LIFT_FLOOR,
    geometry,
    knee_height_floor,
    knees_on_ground,
    physics_lift,
)

FOURTH = Path(__file__).resolve().parents[1] / "experiments" / "fourth_catalog.json"


def _leg(name, side, x, y=0.0, z=0.1, **kw):
    return {"name": name, "side": side, "phase": 0.5 if name in ("rf", "lh") else 0.0,
            "knee": "forward", "upper": 0.12, "lower": 0.12, "home": [x, y, z], **kw}


def _quad(y=0.0, **kw):
    return {"stride": 0.12, "duty": 0.6, "lift": 0.04, "clip_speed": 0.3, "segments": [
        _leg("lf", "L", 0.1, y, 0.15), _leg("rf", "R", -0.1, y, 0.15),
        _leg("lh", "L", 0.1, y, -0.15), _leg("rh", "R", -0.1, y, -0.15)], **kw}  # fmt: skip


def test_a_height_every_home_shares_only_places_the_frame():
    """Every home at y = -0.2 (feet written 0.2 m below the body): the homes land on the
    foot plane (z = 0), as Gaitkit, which ignores a home's y, would walk them, and a hip
    given in the same frame keeps its height over the feet (0.22 - -0.2 = 0.42 m); the
    walker is the same as one written with y = 0. Homes at different heights are kept."""
    low = parse_gait(_quad(-0.2))
    assert {leg.home[2] for leg in low.legs} == {0.0}
    assert low == parse_gait(_quad(0.0))
    hipped = _quad(-0.2)
    hipped["segments"][0]["hip"] = [0.07, 0.22, 0.15]
    assert parse_gait(hipped).legs[0].hip == pytest.approx((0.15, 0.07, 0.42))
    uneven = _quad(0.0)
    uneven["segments"][0]["home"][1] = 0.01
    assert [leg.home[2] for leg in parse_gait(uneven).legs] == [0.01, 0.0, 0.0, 0.0]


def test_a_foot_on_the_midline_may_be_either_side():
    """A tail or a centre leg (Gaitkit x = 0) loads as 'L' or 'R'; a foot on the other
    side of the midline is still refused, naming the field and the fix."""
    for side in ("L", "R"):
        gait = _quad()
        gait["segments"].append(_leg("tail", side, 0.0, 0.0, -0.3))
        assert parse_gait(gait).legs[-1].home[1] == 0.0
    wrong = _quad()
    wrong["segments"].append(_leg("tail", "R", 0.01, 0.0, -0.3))
    with pytest.raises(CatalogError, match=r"segments\[4\]\.home: side is 'R'.*x <= 0"):
        parse_gait(wrong)


def test_the_physics_lift_by_hand():
    """At least SWING_LIFT_FLOOR (a half) of the foot's radius: the fourth catalog's
    shuffler (lift 0, 9.6 mm feet) swings 4.8 mm high in physics; a lift above the floor
    is kept as written."""
    cat = load_catalog(str(FOURTH))
    shuffler = cat["shuffler"].gait
    geo = geometry(shuffler)
    assert SWING_LIFT_FLOOR == 0.5 and shuffler.lift == 0.0
    assert physics_lift(shuffler, geo) == pytest.approx(0.5 * geo.foot_radius) == 0.0048
    fox = load_catalog()["fox"].gait
    assert physics_lift(fox, geometry(fox)) == fox.lift


def test_a_hip_height_that_kneels_is_named(tmp_path, capsys):
    """The fourth catalog's crouched walker (hip_height 0.07 m on 0.2 m legs) puts its
    stance knees on the ground, whose floor is knee_height_floor (0.0962 m): the note says
    so and how to fix it; `gaitsim validate` prints it; the default height gets none."""
    from gaitsim.cli import main

    crouched = load_catalog(str(FOURTH))["crouched"].gait
    floor = knee_height_floor(crouched)
    assert floor == pytest.approx(0.0962, abs=1e-4)
    msg = knees_on_ground(crouched)
    assert msg.startswith("its hip_height 0.07 m puts its stance knees on the ground"), msg
    assert f"raise 'hip_height' to at least {floor:.4g} m" in msg, msg
    assert knees_on_ground(parse_gait(_quad())) is None
    own = knee_height_floor(parse_gait(_quad()))
    assert knees_on_ground(parse_gait(_quad(hip_height=own + 1e-3))) is None
    assert knees_on_ground(parse_gait(_quad(hip_height=own - 1e-3))) is not None
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"crouched": {"gait": json.loads(FOURTH.read_text())[
        "crouched"]["gait"]}}))  # fmt: skip
    assert main(["validate", "--catalog", str(path)]) == 0
    assert f"note: crouched: {msg}" in capsys.readouterr().err


def test_the_bob_s_fall_by_hand():
    """Two legs at phases 0 and 0.5, duty 0.5: one leg is always in stance, so the bob per
    metre is 2 sin^2(pi s) - 1 = -cos(4 pi t / T) over a cycle of T = stride / duty /
    clip_speed = 0.2 / 0.5 / 0.5 = 0.8 s, and it falls fastest at its top, (4 pi / T)^2 =
    246.74 m/s^2 per metre. A Walker's ``bob_accel`` caps the amplitude there: the fourth
    catalog's bouncy walker (a 4 cm bob asking 0.84 g) gets 0.5 / 0.84 of it; physics runs
    cap at ``BOB_ACCEL`` (0.5 g) unless told otherwise; the fox's bob is untouched."""
    from gaitsim.geometry import GRAVITY
    from gaitsim.sim.run import BOB_ACCEL, physics_walker_options
    from gaitsim.walker import Walker, bob_fall_per_metre

    legs = [{"name": n, "side": sd, "phase": p, "knee": "back", "upper": 0.3, "lower": 0.3,
             "home": [x, 0, 0]} for n, sd, p, x in (("l", "L", 0.0, 0.1), ("r", "R", 0.5, -0.1))]
    biped = parse_gait({"stride": 0.2, "duty": 0.5, "lift": 0.05, "clip_speed": 0.5,
                        "segments": legs})  # fmt: skip
    assert bob_fall_per_metre(biped) == pytest.approx((4 * 3.141592653589793 / 0.8) ** 2,
                                                      rel=1e-4)  # fmt: skip
    bouncy = load_catalog(str(FOURTH))["bouncy"]
    per_m = bob_fall_per_metre(bouncy.gait)
    assert 0.04 * per_m / GRAVITY == pytest.approx(0.84, abs=0.01)
    assert Walker(bouncy).bob == 0.04
    capped = Walker(bouncy, bob_accel=0.5)
    assert capped.bob == pytest.approx(0.5 * GRAVITY / per_m) and capped.key != Walker(bouncy).key
    assert BOB_ACCEL == 0.5 and physics_walker_options()["bob_accel"] == 0.5
    assert physics_walker_options({"bob_accel": None})["bob_accel"] is None
    fox = Walker("fox", bob_accel=0.5)
    assert fox.bob == fox.geometry.bob
    with pytest.raises(ValueError, match="bob_accel"):
        Walker("fox", bob_accel=0.0)


@pytest.mark.parametrize("walker", ["low_homes", "shuffler", "pentapod", "bouncy"])
def test_the_fourth_catalog_s_slips_walk(walker):
    """10 s flat, on the default body: feet written 0.2 m below the body (fell through
    the ground at once, speed ratio 4.8), a lift of 0 (dragged its feet, 1.9 landings a
    stance, fell), five legs with a tail on the midline (refused by the catalog) and a 4
    cm bob at three steps a second (1.9 landings a stance: its fall asked 0.84 g) walk
    within the gait-fidelity bounds: every leg's duty within 0.08 of the catalog's, at
    most 1.2 landings a stance."""
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    entry = load_catalog(str(FOURTH))[walker]
    s = simulate(entry, seconds=10.0, config=ControlConfig(body="auto")).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert max(abs(d - entry.gait.duty) for d in s["duty_by_leg"]) <= 0.08, s["duty_by_leg"]
    assert s["touchdowns_per_stance"] <= 1.2
