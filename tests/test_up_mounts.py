"""Where a sprawled ('up'-kneed) leg's hip goes by default (``geometry._default_mount_xy``):
inset toward the body sideways, and moved along the body where the stride would sweep the
hip yaw through more than ``UP_MAX_SWEEP`` over a stance."""

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaitsim.catalog import load_catalog
from gaitsim.generate import irregular_entry, random_entry
from gaitsim.geometry import (
    UP_HIP_INSET,
    UP_MAX_SWEEP,
    _default_mount_xy,
    body_origin,
    geometry,
)


def _sweep(gait, leg, mount) -> float:
    """The angle (rad) through which the hip-to-foot direction turns while the foot runs
    from stride / 2 ahead of its home to stride / 2 behind it, along the body."""
    dx, dy = leg.home[0] - mount[0], leg.home[1] - mount[1]
    half = 0.5 * gait.stride
    return abs(math.atan2(dy, dx + half) - math.atan2(dy, dx - half))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 5000))
def test_an_up_hip_sweeps_at_most_the_limit(seed):
    """Every default 'up' hip of an irregular walker (feet round an oval, the end legs'
    homes nearly in line with the body) keeps its sideways inset, stays between its home
    and the body's origin along the body, and sweeps at most UP_MAX_SWEEP, unless it has
    come as far as the origin."""
    gait = irregular_entry(seed).gait
    ox = body_origin(gait)[0]
    for leg in gait.legs:
        if leg.knee != "up":
            continue
        mx, my = _default_mount_xy(gait, leg)
        assert my == leg.home[1] * UP_HIP_INSET
        lo, hi = sorted((leg.home[0], ox))
        assert lo - 1e-12 <= mx <= hi + 1e-12
        if mx != ox:
            assert _sweep(gait, leg, (mx, my)) <= UP_MAX_SWEEP + 1e-9


def test_an_end_leg_by_hand():
    """A foot 0.4 m ahead of the origin and 0.1 m to the side, on a 0.2 m stride: the hip
    goes in to 0.04 m sideways (0.06 m from the home), which would sweep
    2 atan(0.1 / 0.06) = 118 degrees. The home must be 0.1 / tan(30 deg) = 0.173205 m
    from the hip, so the hip moves back sqrt(0.173205^2 - 0.06^2) = 0.162481 m, to
    x = 0.237519; the foot then turns through atan2(0.06, 0.062481) - atan2(0.06, 0.262481)
    = 43.84 - 12.88 = 30.96 degrees."""
    gait = irregular_entry(3).gait
    assert body_origin(gait) == (0.0, 0.0)
    leg = dataclasses.replace(gait.legs[2], home=(0.4, 0.1, 0.0), knee="up", hip=None)
    g = dataclasses.replace(gait, legs=(leg, *gait.legs[1:]), stride=0.2)
    assert body_origin(g) == (0.0, 0.0)
    mx, my = _default_mount_xy(g, leg)
    assert (mx, my) == pytest.approx((0.237519, 0.04), abs=1e-6)
    assert math.degrees(_sweep(g, leg, (mx, my))) == pytest.approx(30.96, abs=0.01)
    # the same leg out at the side (0.3 m: 0.18 m from its hip) keeps the hip over its home
    side = dataclasses.replace(leg, home=(0.4, 0.3, 0.0))
    assert _default_mount_xy(g, side) == pytest.approx((0.4, 0.12), abs=1e-12)


def test_side_legs_keep_their_hips():
    """The built-in sprawled walkers (51 and 58 degree sweeps) and the plain generator's
    sprawled walkers (feet well out to the side) keep the hips they had: over the home
    along the body, at UP_HIP_INSET of its sideways offset."""
    cat = load_catalog()  # the built-in catalog
    gaits = [cat["spider_bot"].gait, cat["horn_beetle"].gait]
    gaits += [random_entry(s).gait for s in range(120)]
    seen = 0
    for gait in gaits:
        for leg in gait.legs:
            if leg.knee == "up":
                seen += 1
                assert _default_mount_xy(gait, leg) == (leg.home[0], leg.home[1] * UP_HIP_INSET)
    assert seen > 100


def test_the_chain_uses_the_moved_hip():
    """The URDF's chain (``geometry().chain``) mounts irregular walker 3's front leg where
    the rule puts it, and points its neutral azimuth from there at the home."""
    gait = irregular_entry(3).gait
    geo = geometry(gait)
    i = 2  # leg2: home 0.409 m ahead, 0.113 m to the left
    mx, my = _default_mount_xy(gait, gait.legs[i])
    assert mx < gait.legs[i].home[0] - 0.1
    ox, oy = body_origin(gait)
    assert geo.chain.mount[i][:2] == pytest.approx(np.array([mx - ox, my - oy]), abs=1e-12)
    home = np.array(gait.legs[i].home[:2])
    d = home - np.array([mx, my])
    assert float(geo.chain.yaw0[i]) == pytest.approx(math.atan2(d[1], d[0]), abs=1e-12)


def test_the_body_keeps_its_length():
    """Moving an 'up' hip in along the body leaves the default body box as long as the
    hips over their homes would make it: irregular 128 (three legs, a 0.46 m stride) kept
    a 0.61-fold body and a quarter of its yaw inertia otherwise, and turned round on its
    vertical axis under the assist."""
    for seed in (3, 128):
        gait = irregular_entry(seed).gait
        geo = geometry(gait)
        ox = body_origin(gait)[0]
        homes_x = np.array([leg.home[0] for leg in gait.legs]) - ox
        assert float(np.ptp(geo.chain.mount[:, 0])) < float(np.ptp(homes_x)) - 0.1  # moved in
        radius = float(geo.leg_radius.max())
        thigh = float(np.mean([leg.upper for leg in gait.legs]))
        assert geo.body[0] == pytest.approx(float(np.ptp(homes_x)) + 2 * radius + 0.2 * thigh,
                                            abs=1e-12)  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 150])
def test_end_legs_that_swept_walk_cleanly(seed):
    """Irregular walkers whose end legs' hips once sat beside their feet. 3 (six sprawled
    legs, the front one 0.068 m beside its hip on a 0.2 m stride: a 111 degree sweep)
    walked, but that leg was dragged mid-stance and landed 3.6 times a stance (1.80 over
    all legs); 150 landed 1.31 times. With the hips moved along the body, 10 s flat,
    free: 1.08 and 1.02 touchdowns per stance (this machine)."""
    s, duty = _walk_free(seed)
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert s["touchdowns_per_stance"] <= 1.2
    assert max(abs(d - duty) for d in s["duty_by_leg"]) <= 0.08


@pytest.mark.slow
def test_an_end_legged_walker_that_fell_walks():
    """Irregular walker 163 (six sprawled legs, its front and back legs' feet nearly in
    line with their hips) fell at 3.4 s on flat ground, free. With the hips moved along
    the body it walks 10 s, every leg's duty within 0.08 of the catalog's (it lands
    1.19-1.25 times a stance: a float's difference in its mounts moves it across the
    flat-ground bound of 1.2, so that bound is not asserted here)."""
    s, duty = _walk_free(163)
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert max(abs(d - duty) for d in s["duty_by_leg"]) <= 0.08


def _walk_free(seed: int) -> tuple[dict, float]:
    """Irregular walker ``seed``, 10 s on flat ground, free: its summary and catalog duty."""
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    entry = irregular_entry(seed)
    s = simulate(entry, seconds=10.0, config=ControlConfig(body="free")).summary
    return s, entry.gait.duty


TORTOISE = {
    "stride": 0.06, "duty": 0.85, "lift": 0.015, "clip_speed": 0.04, "mass": 8,
    "body": [0.35, 0.25, 0.12],
    "segments": [
        {"name": n, "side": s, "phase": p, "knee": "up", "upper": 0.06, "lower": 0.07,
         "home": [x, 0, z]}
        for n, s, p, x, z in (("lf", "L", 0.0, 0.17, 0.12), ("rh", "R", 0.25, -0.17, -0.12),
                              ("rf", "R", 0.5, -0.17, 0.12), ("lh", "L", 0.75, 0.17, -0.12))
    ],
}  # fmt: skip


def _gait_of(obj: dict):
    from gaitsim.catalog import parse_gait

    return parse_gait(obj)


def test_a_catalog_body_puts_up_hips_at_its_side():
    """A tortoise written with a 0.25 m wide body and its feet 0.17 m out (third catalog,
    stop 60): its hips go to the body's side, 0.125 m out, not to UP_HIP_INSET of 0.17 m
    (0.068 m), so its 0.13 m legs stand it higher than its 0.12 m deep body's half depth.
    Without a body the same legs keep the inset; a body wider than UP_BODY_SIDE_MAX of
    the feet's offset puts the hips there, not out over the feet."""
    from gaitsim.geometry import UP_BODY_SIDE_MAX

    gait = _gait_of(TORTOISE)
    for leg in gait.legs:
        assert _default_mount_xy(gait, leg)[1] == pytest.approx(math.copysign(0.125, leg.home[1]))
    geo = geometry(gait)
    assert geo.hip_height - geo.bob - 0.5 * geo.body[2] > 0.01  # it clears the ground
    bare = _gait_of({k: v for k, v in TORTOISE.items() if k != "body"})
    for leg in bare.legs:
        assert _default_mount_xy(bare, leg)[1] == pytest.approx(leg.home[1] * UP_HIP_INSET)
    wide = _gait_of({**TORTOISE, "body": [0.35, 0.5, 0.05]})
    for leg in wide.legs:
        assert _default_mount_xy(wide, leg)[1] == pytest.approx(leg.home[1] * UP_BODY_SIDE_MAX)


def test_a_catalog_body_that_reaches_into_the_ground_is_named(tmp_path, capsys):
    """A body 0.2 m deep centred on hips about 0.084 m up reaches into the ground. The
    catalog still loads and validates (whatever loads can be validated, turned into a
    URDF and run: tests/test_bounds.py), but ``geometry.body_in_ground`` says what is wrong
    (how deep the body may be, the hip height that would hold it), ``gaitsim validate``
    prints it as a note and ``gaitsim walk`` prints it beside the fall it causes
    (``body_contact`` at once); a body that clears the ground gets no note."""
    import json

    from gaitsim.cli import main
    from gaitsim.geometry import body_in_ground

    deep = _gait_of({**TORTOISE, "body": [0.35, 0.25, 0.2]})
    msg = body_in_ground(deep)
    hip = geometry(deep).hip_height
    assert msg.startswith("its body, a box 0.2 m deep") and "into the ground" in msg, msg
    assert f"{(0.1 - hip) * 1000:.1f} mm into the ground" in msg, msg
    assert f"less than {2 * hip:.4g} m deep" in msg and "'hip_height' above 0.1 m" in msg
    assert body_in_ground(_gait_of(TORTOISE)) is None
    assert body_in_ground(_gait_of({k: v for k, v in TORTOISE.items() if k != "body"})) is None
    path = tmp_path / "tortoise.json"
    path.write_text(json.dumps({"tortoise": {"gait": {**TORTOISE, "body": [0.35, 0.25, 0.2]}}}))
    assert main(["validate", "--catalog", str(path)]) == 0
    assert f"note: tortoise: {msg}" in capsys.readouterr().err
    assert main(["walk", "tortoise", "--catalog", str(path), "--seconds", "0.5"]) == 1
    out = capsys.readouterr()
    assert "body_contact" in out.out and msg in out.err + out.out
