"""The upper body: the catalog block, the defaults, the kinematic rules and the Walker's use
of them (pure numpy: no physics here)."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from importlib import resources

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gaitsim import Arc, Slope, Straight, Walker, load_catalog
from gaitsim.catalog import (
    UPPER_BODY_FIELDS,
    UPPER_BODY_LIMITS,
    CatalogError,
    UpperBodySpec,
    dumps_catalog,
    gait_to_dict,
    loads_catalog,
    parse_gait,
    save_catalog,
)
from gaitsim.generate import random_entry
from gaitsim.geometry import geometry
from gaitsim.upper import (
    ARM_MASS_SHARE,
    HEAD_MASS_SHARE_TWO_LEGS,
    MIN_BODY_SHARE,
    arm_angles,
    hip_twist,
    neck_angles,
    neck_angles_at,
    side_signals,
    step_rate,
    upper_geometry,
    upper_joints,
)

CAT = load_catalog()
PARTS = ("torso", "arms", "head")
FULL = {"torso": {}, "arms": {}, "head": {}}


def with_upper(gait, block):
    """``gait`` with the catalog ``upper_body`` block ``block`` (parsed like a file's)."""
    obj = gait_to_dict(gait)
    obj["upper_body"] = block
    return parse_gait(obj)


GAITS = {
    "mechanic": CAT["mechanic"].gait,  # built in: torso, arms and head
    "fox": CAT["fox"].gait,  # built in: a head alone
    "hound": CAT["hound"].gait,  # built in: a head alone
    "raptor": with_upper(CAT["raptor"].gait, FULL),
    "fox_full": with_upper(CAT["fox"].gait, FULL),
    "hound_full": with_upper(CAT["hound"].gait, FULL),
    "spider_full": with_upper(CAT["spider_bot"].gait, FULL),
}
BIPEDS = ("mechanic", "raptor")  # one leg a side, in antiphase
ARMED = [n for n, g in GAITS.items() if upper_geometry(g).arms is not None]
TWISTING = [n for n, g in GAITS.items() if upper_geometry(g).torso is not None]


def _wrap(a):
    return (np.asarray(a) + np.pi) % (2 * np.pi) - np.pi


def _cycle_grid(gait, scale=1.0, n=4001):
    return np.linspace(0.0, gait.stride * scale / gait.duty, n)


# ---------------------------------------------------------------------------- catalog


FULL_BLOCK = {  # every key, each part's keys in an order of its own (kept on save)
    "torso": {
        "shoulder_ratio": 1.1,
        "height": 0.35,
        "mass": 6.5,
        "twist_deg": 7.5,
        "twist_ref_hz": 1.75,
    },
    "arms": {
        "shoulder": [0.15, 0.93, 0.01],
        "upper": 0.22,
        "lower": 0.205,
        "mass": 1.25,
        "swing_gain": 0.55,
        "elbow_deg": 65,
        "elbow_offset": 0.35,
    },
    "head": {
        "neck": 0.11,
        "neck_deg": 25.5,
        "radius": 0.065,
        "mass": 1.5,
        "mount": [0, 0.98, -0.005],
        "gaze_gain": 0.8,
        "preview_s": 0.35,
    },
}


def _mechanic_text(block) -> str:
    """The built-in mechanic as a catalog file of its own with ``block`` as its upper body,
    in gaitsim's own layout (what ``dumps_catalog`` writes)."""
    root = json.loads(resources.files("gaitsim").joinpath("data/catalog.json").read_text("utf-8"))
    mech = root["mechanic"]
    assert "upper_body" in mech["gait"]  # keeps its place among the gait's keys
    mech["gait"]["upper_body"] = block
    return json.dumps({"mechanic": mech}, indent=2) + "\n"


@pytest.mark.parametrize(
    "block",
    [FULL_BLOCK, {}, {"head": {}}, {"arms": {"upper": 0.2}}, {"torso": {}, "head": {}}],
    ids=["full", "empty", "head", "arms", "torso-head"],
)
def test_upper_body_round_trip_is_byte_exact(block, tmp_path):
    text = _mechanic_text(block)
    cat = loads_catalog(text)
    assert dumps_catalog(cat) == text
    path = tmp_path / "mech.json"
    save_catalog(cat, path)
    assert path.read_text("utf-8") == text
    again = load_catalog(path)
    assert again == cat and dumps_catalog(again) == text
    spec = cat["mechanic"].gait.upper_body
    for part in PARTS:
        assert (spec.part(part) is None) == (part not in block)


def test_upper_body_points_are_converted_to_rep103():
    spec = loads_catalog(_mechanic_text(FULL_BLOCK))["mechanic"].gait.upper_body
    arms, head = spec.part("arms"), spec.part("head")
    assert arms["shoulder"] == (0.01, 0.15, 0.93)  # Gaitkit (x left, y up, z fwd) -> REP-103
    assert head["mount"] == (-0.005, 0.0, 0.98)
    assert list(arms) == list(FULL_BLOCK["arms"])  # the file's key order
    assert spec.torso == tuple(FULL_BLOCK["torso"].items())


_KIND_VALUES = {
    "length": st.floats(1e-3, 10.0),
    "mass": st.floats(1e-3, 1e5),
    "point": st.tuples(*[st.floats(-10.0, 10.0)] * 3).map(list),
    **{kind: st.floats(lo, hi) for kind, (lo, hi) in UPPER_BODY_LIMITS.items()},
}


@st.composite
def upper_blocks(draw):
    block = {}
    for part, fields in UPPER_BODY_FIELDS.items():
        if not draw(st.booleans()):
            continue
        keys = draw(st.permutations(list(fields)))
        keys = keys[: draw(st.integers(0, len(keys)))]
        block[part] = {k: draw(_KIND_VALUES[fields[k][0]]) for k in keys}
    if "shoulder" in block.get("arms", {}):
        block["arms"]["shoulder"][0] = draw(st.floats(1e-3, 10.0))  # the left shoulder
    return block


@given(block=upper_blocks())
def test_any_valid_upper_body_round_trips(block):
    cat = loads_catalog(_mechanic_text(block))
    text = dumps_catalog(cat)
    again = loads_catalog(text)
    assert again == cat and dumps_catalog(again) == text
    saved = json.loads(text)["mechanic"]["gait"]["upper_body"]
    assert saved == block  # the same numbers, keys and key order (ints for whole floats)
    assert [list(p) for p in saved.values()] == [list(p) for p in block.values()]


BAD_BLOCKS = [
    ({"tail": {}}, "gait.upper_body.tail", "unknown part"),
    ({"torso": {"colour": 1}}, "gait.upper_body.torso.colour", "unknown key"),
    ({"head": {"eyes": 2}}, "gait.upper_body.head.eyes", "unknown key"),
    ({"arms": {"upper": -0.2}}, "gait.upper_body.arms.upper", "positive"),
    ({"arms": {"lower": 0}}, "gait.upper_body.arms.lower", "positive"),
    ({"head": {"neck": -1e-3}}, "gait.upper_body.head.neck", "positive"),
    ({"head": {"radius": 11}}, "gait.upper_body.head.radius", "at most 10 m"),
    ({"torso": {"mass": -1}}, "gait.upper_body.torso.mass", "positive"),
    ({"arms": {"mass": 2e5}}, "gait.upper_body.arms.mass", "at most 100000 kg"),
    ({"torso": {"twist_deg": 91}}, "gait.upper_body.torso.twist_deg", "at most 90 deg"),
    ({"head": {"neck_deg": -90.5}}, "gait.upper_body.head.neck_deg", "at least -90 deg"),
    ({"arms": {"elbow_deg": 120}}, "gait.upper_body.arms.elbow_deg", "at most 90 deg"),
    ({"torso": {"twist_ref_hz": 0}}, "gait.upper_body.torso.twist_ref_hz", "at least 0.05 Hz"),
    ({"head": {"preview_s": -0.1}}, "gait.upper_body.head.preview_s", "at least 0 s"),
    ({"arms": {"swing_gain": 5.5}}, "gait.upper_body.arms.swing_gain", "at most 5"),
    ({"torso": {"shoulder_ratio": -0.1}}, "gait.upper_body.torso.shoulder_ratio", "at least 0"),
    ({"head": {"gaze_gain": "0.5"}}, "gait.upper_body.head.gaze_gain", "must be a number"),
    ({"torso": {"height": True}}, "gait.upper_body.torso.height", "positive"),
    ({"torso": {"mass": float("nan")}}, "gait.upper_body.torso.mass", "positive"),
    ({"arms": {"shoulder": [-0.1, 0.9, 0]}}, "gait.upper_body.arms.shoulder", "left shoulder"),
    ({"arms": {"shoulder": [0, 0.9, 0]}}, "gait.upper_body.arms.shoulder", "left shoulder"),
    ({"arms": {"shoulder": [0.1, 0.9]}}, "gait.upper_body.arms.shoulder", "3 numbers"),
    ({"head": {"mount": [0, "x", 0]}}, "gait.upper_body.head.mount[1]", "finite number"),
    ({"head": {"mount": [0, 11, 0]}}, "gait.upper_body.head.mount[1]", "+/-10 m"),
    ({"torso": []}, "gait.upper_body.torso", "must be an object"),
    ({"arms": None}, "gait.upper_body.arms", "must be an object"),
    ({"head": 1}, "gait.upper_body.head", "must be an object"),
    ([], "gait.upper_body", "must be an object"),
    ("head", "gait.upper_body", "must be an object"),
]


@pytest.mark.parametrize(("block", "place", "fragment"), BAD_BLOCKS)
def test_bad_upper_body_names_the_field(block, place, fragment):
    obj = gait_to_dict(CAT["mechanic"].gait)
    obj["upper_body"] = block
    with pytest.raises(CatalogError, match=rf"^{re.escape(place)}: .*{re.escape(fragment)}"):
        parse_gait(obj)


def test_bad_upper_body_in_a_catalog_file_names_the_walker():
    text = _mechanic_text({"arms": {"elbow_deg": -91}})
    with pytest.raises(CatalogError, match=r"^mechanic\.gait\.upper_body\.arms\.elbow_deg: "):
        loads_catalog(text)


def test_too_heavy_upper_body_is_refused_by_upper_geometry():
    gait = CAT["mechanic"].gait  # 20 kg: a body box of 18 kg, arms 1 kg, head 1.6 kg
    body = geometry(gait).body_mass
    assert body == pytest.approx(18.0)
    floor = MIN_BODY_SHARE * body
    # the torso that leaves the body exactly its floor; a little lighter loads, heavier not
    edge = body - floor - 2 * ARM_MASS_SHARE * 20.0 - HEAD_MASS_SHARE_TWO_LEGS * 20.0
    light = with_upper(gait, {"torso": {"mass": edge - 0.01}, "arms": {}, "head": {}})
    assert upper_geometry(light).body_mass == pytest.approx(floor + 0.01)
    for block in (
        {"torso": {"mass": edge + 0.01}, "arms": {}, "head": {}},
        {"arms": {"mass": 7.3}},
        {"head": {"mass": 14.5}},
        {"torso": {"mass": 1e5}},
    ):
        heavy = with_upper(gait, block)  # loads: the masses are each valid on their own
        with pytest.raises(CatalogError, match=r"^upper_body: .*weigh"):
            upper_geometry(heavy)
        with pytest.raises(CatalogError, match=r"^upper_body: "):
            Walker(heavy)


# ---------------------------------------------------------------------------- defaults


def test_mechanic_defaults_hand_computed():
    gait = CAT["mechanic"].gait  # 20 kg, legs 0.3 + 0.3, body box 0.1 x 0.24 x 0.144
    geo = geometry(gait)
    assert geo.total_mass == pytest.approx(20.0) and geo.body_mass == pytest.approx(18.0)
    assert geo.body == pytest.approx((0.1, 0.24, 0.144))
    ug = upper_geometry(gait)
    t, a, h = ug.torso, ug.arms, ug.head
    # masses: chest 40 % of the body box, an arm 5 % and the head 8 % of the whole walker
    assert t.mass == pytest.approx(0.4 * 18.0)
    assert a.mass == pytest.approx(1.0)
    assert h.mass == pytest.approx(1.6)
    assert ug.body_mass == pytest.approx(18.0 - 7.2 - 2 * 1.0 - 1.6)
    # lengths from the mean leg reach 0.6 m
    assert t.height == pytest.approx(0.36)  # 0.6 of the reach (two legs)
    assert t.box == pytest.approx((0.1, 0.24, 0.36))
    assert t.waist == pytest.approx((0.0, 0.0, 0.072))  # the body box's top centre
    assert (a.upper, a.lower) == pytest.approx((0.21, 0.21))  # 0.35 of the reach each
    assert a.radius == pytest.approx(0.12 * 0.21)
    # the shoulder just outside the chest's top corner
    assert a.shoulder == pytest.approx((0.0, 0.12 + 0.0252, 0.072 + 0.36 - 0.0252))
    assert h.neck == pytest.approx(0.12) and h.radius == pytest.approx(0.06)
    assert h.neck_deg == 30.0 and h.mount == pytest.approx((0.0, 0.0, 0.432))
    assert (t.twist_deg, t.twist_ref_hz, t.shoulder_ratio) == (6.0, 1.6, 1.2)
    assert (a.swing_gain, a.elbow_deg, a.elbow_offset) == (0.6, 70.0, 0.4)
    assert (h.gaze_gain, h.preview_s) == (0.82, 0.4)
    assert ug.leg_ratio == pytest.approx(0.5)
    assert ug.stride_angle == pytest.approx(math.atan(0.15 / geo.hip_height))
    assert ug.joint_names == (
        "waist_yaw",
        "arm_left_shoulder", "arm_left_elbow", "arm_right_shoulder", "arm_right_elbow",
        "neck_yaw", "neck_pitch", "head_pitch",
    )  # fmt: skip
    assert ug.n_joints == 8 and ug.index("neck_yaw") == 5


def test_fox_head_defaults_hand_computed():
    gait = CAT["fox"].gait  # 3.5 kg; legs 0.11 + 0.12 and 0.125 + 0.14 (mean reach 0.2475)
    geo = geometry(gait)
    ug = upper_geometry(gait)
    assert ug.torso is None and ug.arms is None
    h = ug.head
    assert h.mass == pytest.approx(0.02 * 3.5)  # more than two legs: 2 % of the mass
    assert ug.body_mass == pytest.approx(0.9 * 3.5 - 0.07)
    assert h.neck == pytest.approx(0.4 * 0.2475)  # more than two legs: 0.4 of the reach
    assert h.radius == pytest.approx(0.35 * 0.099)
    assert h.neck_deg == 45.0
    bx, _, bz = geo.body
    assert h.mount == pytest.approx((bx / 2, 0.0, bz / 2))  # the body box's front top edge
    assert ug.joint_names == ("neck_yaw", "neck_pitch", "head_pitch")


def test_given_values_override_the_defaults():
    gait = with_upper(CAT["mechanic"].gait, FULL_BLOCK)
    ug = upper_geometry(gait)
    hip = geometry(gait).hip_height
    assert ug.torso.mass == 6.5 and ug.torso.height == 0.35 and ug.torso.twist_deg == 7.5
    assert ug.arms.upper == 0.22 and ug.arms.lower == 0.205 and ug.arms.elbow_deg == 65
    # catalog points (foot plane origin) -> body frame B (hip plane origin)
    assert ug.arms.shoulder == pytest.approx((0.01, 0.15, 0.93 - hip))
    assert ug.head.mount == pytest.approx((-0.005, 0.0, 0.98 - hip))
    assert ug.body_mass == pytest.approx(18.0 - 6.5 - 2 * 1.25 - 1.5)


def test_no_block_no_upper_body_and_an_empty_block_no_joints():
    assert upper_geometry(CAT["raptor"].gait) is None
    empty = with_upper(CAT["raptor"].gait, {})
    assert empty.upper_body == UpperBodySpec()
    ug = upper_geometry(empty)
    assert ug.joint_names == () and ug.body_mass == geometry(empty).body_mass
    assert upper_joints(ug, empty, np.zeros((3, 2))).shape == (3, 2, 0)


# ---------------------------------------------------------------------------- side signals


@pytest.mark.parametrize("name", list(GAITS))
@given(d=st.floats(-50, 50, allow_nan=False), scale=st.floats(0.25, 2.5))
def test_side_signals_in_range(name, d, scale):
    gait = GAITS[name]
    sig = side_signals(gait, d, scale)
    assert sig.shape == (2,)
    assert np.all(np.isfinite(sig)) and np.all(np.abs(sig) <= 1.0 + 1e-12), sig
    grid = side_signals(gait, d + np.zeros((3, 4)), scale)
    assert grid.shape == (3, 4, 2) and np.array_equal(grid, np.broadcast_to(sig, grid.shape))


@pytest.mark.parametrize("name", BIPEDS)
@given(n=st.integers(-30, 30), scale=st.floats(0.25, 2.5))
def test_biped_signal_is_one_at_touchdown_minus_one_at_lift_off(name, n, scale):
    gait = GAITS[name]
    cycle = gait.stride * scale / gait.duty
    for leg in gait.legs:
        k = 0 if leg.side == "L" else 1
        touchdown = (n - leg.phase) * cycle  # the leg's cycle position is 0
        lift_off = touchdown + gait.duty * cycle
        assert side_signals(gait, touchdown, scale)[k] == pytest.approx(1.0, abs=1e-9)
        assert side_signals(gait, lift_off, scale)[k] == pytest.approx(-1.0, abs=1e-9)
        mid = touchdown + gait.duty * cycle / 2  # mid-stance: under the hip
        assert side_signals(gait, mid, scale)[k] == pytest.approx(0.0, abs=1e-9)


def test_a_side_without_legs_mirrors_the_other():
    gait = CAT["raptor"].gait
    one = dataclasses.replace(gait, legs=gait.legs[:1])  # the left leg alone
    sig = side_signals(one, _cycle_grid(one))
    assert np.all(np.isfinite(sig))
    assert np.array_equal(sig[:, 1], -sig[:, 0])


# ---------------------------------------------------------------------------- hip twist


def test_step_rate_and_twist_amplitude_hand_computed_mechanic():
    gait = CAT["mechanic"].gait
    assert (gait.stride, gait.duty, gait.clip_speed) == (0.3, 0.6, 0.6)
    for scale in (0.5, 1.0, 1.5):  # the stride scales with the speed: one rate
        assert step_rate(gait, scale) == pytest.approx(1.2)  # 0.6 m/s / (0.3 m / 0.6)
    t = upper_geometry(gait).torso
    amp = math.radians(t.twist_deg) * step_rate(gait) / t.twist_ref_hz
    assert math.degrees(amp) == pytest.approx(4.5)  # 6 deg x 1.2 / 1.6


def test_mechanic_hips_twist_by_4_5_deg():
    gait = CAT["mechanic"].gait
    tw = hip_twist(upper_geometry(gait), gait, _cycle_grid(gait, n=20001))
    assert math.degrees(np.abs(tw).max()) == pytest.approx(4.5, rel=1e-3)


@pytest.mark.parametrize("name", BIPEDS)
@given(
    twist_deg=st.floats(0.5, 20.0),
    ref_hz=st.floats(0.5, 4.0),
    duty=st.floats(0.5, 0.9),
    scale=st.floats(0.5, 1.5),
)
def test_hip_twist_amplitude_follows_the_step_rate(name, twist_deg, ref_hz, duty, scale):
    """The hips twist by +-twist_deg x step rate / twist_ref_hz (max over a fine grid)."""
    base = dataclasses.replace(GAITS[name], duty=duty)
    gait = with_upper(base, {"torso": {"twist_deg": twist_deg, "twist_ref_hz": ref_hz}})
    ug = upper_geometry(gait)
    tw = hip_twist(ug, gait, _cycle_grid(gait, scale, 20001), scale)
    want = math.radians(twist_deg) * step_rate(gait, scale) / ref_hz
    got = float(np.abs(tw).max())
    assert got == pytest.approx(want, rel=1e-3), f"duty {duty}: {got / want:.4f} of the amplitude"


@pytest.mark.parametrize("name", TWISTING)
def test_hip_twist_rule(name):
    gait = GAITS[name]
    ug = upper_geometry(gait)
    d = _cycle_grid(gait)
    sig = side_signals(gait, d, end="hind")  # the hips twist with the hind legs
    amp = math.radians(ug.torso.twist_deg) * step_rate(gait) / ug.torso.twist_ref_hz
    tw = hip_twist(ug, gait, d)
    assert tw.shape == d.shape
    half = (sig[:, 0] - sig[:, 1]) / 2
    peak = np.abs(half).max()
    if peak > 0:  # normalised to the cycle's peak: the twist reaches its amplitude
        assert np.allclose(tw, -amp * half / peak, atol=1e-12)
        assert np.abs(tw).max() == pytest.approx(amp, rel=1e-3)
    else:
        assert np.array_equal(tw, np.zeros(d.shape))
    assert np.array_equal(hip_twist(ug, gait, d, twist=False), np.zeros(d.shape))
    head_only = upper_geometry(GAITS["fox"])
    assert np.array_equal(hip_twist(head_only, GAITS["fox"], d), np.zeros(d.shape))
    assert np.array_equal(hip_twist(None, gait, d), np.zeros(d.shape))


def test_left_foot_forward_turns_the_hips_right_and_the_shoulders_left():
    gait = CAT["mechanic"].gait
    ug = upper_geometry(gait)
    left = next(leg for leg in gait.legs if leg.side == "L")
    d = (1.0 - left.phase) * gait.cycle  # the left foot's touchdown
    assert hip_twist(ug, gait, d) < 0  # the left hip forward: the hips yaw right
    q = upper_joints(ug, gait, d)
    chest_yaw = hip_twist(ug, gait, d) + q[ug.index("waist_yaw")]
    assert chest_yaw > 0  # the shoulders counter-rotate
    assert q[ug.index("arm_right_shoulder")] > 0 > q[ug.index("arm_left_shoulder")]


# ---------------------------------------------------------------------------- arms


def _arm_scales(gait, scale: float):
    """(upper geometry, shoulder amplitude, largest elbow bend) by hand from the rule."""
    ug = upper_geometry(gait)
    a = ug.arms
    amp = a.swing_gain * math.atan(gait.stride * scale / 2 / geometry(gait).hip_height)
    return ug, amp, math.radians(a.elbow_deg) * (a.elbow_offset + ug.leg_ratio)


@pytest.mark.parametrize("name", ARMED)
@given(scale=st.floats(0.25, 2.0))
def test_arm_angles(name, scale):
    gait = GAITS[name]
    ug, amp, bend = _arm_scales(gait, scale)
    d = _cycle_grid(gait, scale, 1201)
    sig = side_signals(gait, d, scale)
    out = {mode: arm_angles(ug, gait, d, scale, mode) for mode in ("swing", "anti", "held")}
    swing = out["swing"]
    assert swing.shape == (*d.shape, 2, 2)
    assert np.allclose(swing[..., 0], -amp * sig, atol=1e-12)
    assert np.all(swing[..., 0] * sig <= 0), "a shoulder swings against its side's legs"
    assert np.abs(swing[..., 0]).max() <= amp * (1 + 1e-12)
    assert np.array_equal(out["anti"][..., 0], -swing[..., 0])
    assert np.array_equal(out["held"][..., 0], np.zeros(sig.shape))
    for mode, q in out.items():
        elbow, forward = q[..., 1], q[..., 0] / amp
        assert np.all(elbow >= 0) and np.all(elbow <= bend * (1 + 1e-12)), mode
        # the bend grows with the swing forward: all of it at the front, none at the back
        assert np.allclose(elbow, bend * (1 + forward) / 2, atol=1e-12), mode


@pytest.mark.parametrize("name", [n for n in ARMED if n in BIPEDS])
@given(scale=st.floats(0.25, 2.0))
def test_biped_arms_reach_the_front_and_back_of_the_swing(name, scale):
    gait = GAITS[name]
    ug, amp, bend = _arm_scales(gait, scale)
    cycle = gait.stride * scale / gait.duty
    for leg in gait.legs:
        k = 0 if leg.side == "L" else 1
        touchdown = (1 - leg.phase) * cycle
        back = arm_angles(ug, gait, touchdown, scale)[k]  # this side's foot is forward
        front = arm_angles(ug, gait, touchdown + gait.duty * cycle, scale)[k]  # lift-off
        assert back.tolist() == pytest.approx([-amp, 0.0], abs=1e-9)
        assert front.tolist() == pytest.approx([amp, bend], abs=1e-9)


def test_mechanic_arm_numbers_hand_computed():
    gait = CAT["mechanic"].gait
    ug = upper_geometry(gait)
    d = _cycle_grid(gait, n=6001)
    q = arm_angles(ug, gait, d)
    hip = geometry(gait).hip_height
    assert q[..., 0].max() == pytest.approx(0.6 * math.atan(0.15 / hip), rel=1e-6)
    assert q[..., 1].max() == pytest.approx(math.radians(70.0 * (0.4 + 0.5)), rel=1e-6)
    with pytest.raises(ValueError, match="arms must be one of"):
        arm_angles(ug, gait, d, mode="flail")


# ---------------------------------------------------------------------------- neck and head


def _head(neck=0.12, neck_deg=30.0):
    return dataclasses.replace(upper_geometry(CAT["mechanic"].gait).head, neck=neck,
                               neck_deg=neck_deg)  # fmt: skip


@given(
    neck=st.floats(0.01, 2.0),
    neck_deg=st.floats(-80.0, 80.0),
    c=st.floats(math.cos(1.4), 1.0),
    body_pitch=st.floats(-0.6, 0.6),
)
def test_neck_angles_raise_the_head_by_rise_and_keep_it_level(neck, neck_deg, c, body_pitch):
    head = _head(neck, neck_deg)
    phi0 = math.radians(neck_deg)
    rise = neck * (c - math.cos(phi0))  # a reachable rise: the neck leans 0 to 1.4 rad
    n, h = neck_angles(head, rise, body_pitch)
    phi = body_pitch + n  # the neck's world lean
    assert neck * math.cos(phi) - neck * math.cos(phi0) == pytest.approx(rise, abs=1e-9)
    assert body_pitch + n + h == pytest.approx(0.0, abs=1e-12)  # the head is level


@given(
    neck=st.floats(0.01, 2.0),
    neck_deg=st.floats(-80.0, 80.0),
    rise=st.floats(-3.0, 3.0),
    body_pitch=st.floats(-0.6, 0.6),
)
def test_the_scalar_neck_angles_are_the_vectorised_ones_bit_for_bit(neck, neck_deg, rise,
                                                                     body_pitch):  # fmt: skip
    # the head loop (every physics substep) uses the scalar one; the kinematics and the
    # clips the vectorised one: a run must not depend on which
    head = _head(neck, neck_deg)
    want = tuple(float(x) for x in neck_angles(head, rise, body_pitch))
    assert neck_angles_at(head, rise, body_pitch) == want


@given(neck_deg=st.floats(-90.0, 90.0), neck=st.floats(0.01, 2.0))
def test_no_bob_holds_the_neutral_neck(neck_deg, neck):
    """With nothing to cancel, the stabilised neck is the fixed (neutral) one."""
    head = _head(neck, neck_deg)
    still = np.array(neck_angles(head, 0.0, 0.0), dtype=float)
    neutral = np.array(neck_angles(head, 0.0, 0.0, stabilised=False), dtype=float)
    # arccos near 1 resolves angles only to ~sqrt(machine epsilon) = 1.5e-8 rad
    assert np.allclose(still, neutral, rtol=0, atol=1e-7), f"neck_deg {neck_deg}: {still}"


def test_fixed_gaze_is_the_neutral_pose():
    head = _head(0.1, 30.0)
    rise = np.linspace(-0.05, 0.05, 7)
    pitch = np.linspace(-0.3, 0.3, 7)
    n, h = neck_angles(head, rise, pitch, stabilised=False)
    assert n.shape == h.shape == rise.shape
    assert np.array_equal(n, np.full(7, math.radians(30.0)))
    assert np.array_equal(h, np.full(7, -math.radians(30.0)))
    n, h = neck_angles(head, rise, pitch)
    assert n.shape == h.shape == rise.shape
    assert np.allclose(pitch + n + h, 0.0, atol=1e-12)


# ---------------------------------------------------------------------------- all joints


def _names(parts):
    names = ["waist_yaw"] if "torso" in parts else []
    if "arms" in parts:
        names += ["arm_left_shoulder", "arm_left_elbow", "arm_right_shoulder", "arm_right_elbow"]
    if "head" in parts:
        names += ["neck_yaw", "neck_pitch", "head_pitch"]
    return names


@given(
    parts=st.sets(st.sampled_from(PARTS)),
    arms=st.sampled_from(["swing", "held", "anti"]),
    twist=st.booleans(),
    gaze=st.sampled_from(["stabilised", "fixed"]),
    scale=st.floats(0.5, 1.5),
    seed=st.integers(0, 2**32 - 1),
)
def test_upper_joints_columns_follow_the_rules(parts, arms, twist, gaze, scale, seed):
    gait = with_upper(CAT["mechanic"].gait, {p: {} for p in PARTS if p in parts})
    ug = upper_geometry(gait)
    names = _names(parts)
    assert list(ug.joint_names) == names
    rng = np.random.default_rng(seed)
    d = rng.uniform(-3.0, 3.0, size=(4, 5))
    bob, pitch, gaze_yaw = (rng.uniform(-a, a, size=d.shape) for a in (0.02, 0.3, 1.0))
    q = upper_joints(ug, gait, d, speed_scale=scale, arms=arms, twist=twist, gaze=gaze,
                     bob=bob, body_pitch=pitch, gaze_yaw=gaze_yaw)  # fmt: skip
    assert q.shape == (*d.shape, len(names))
    col = {n: q[..., i] for i, n in enumerate(names)}
    waist = np.zeros(d.shape)
    if "torso" in parts:
        waist = -(1 + ug.torso.shoulder_ratio) * hip_twist(ug, gait, d, scale, twist)
        assert np.allclose(col["waist_yaw"], waist, atol=1e-15)
    if "arms" in parts:
        a = arm_angles(ug, gait, d, scale, arms)
        for k, side in enumerate(("left", "right")):
            assert np.allclose(col[f"arm_{side}_shoulder"], a[..., k, 0], atol=1e-15)
            assert np.allclose(col[f"arm_{side}_elbow"], a[..., k, 1], atol=1e-15)
    if "head" in parts:
        stab = gaze == "stabilised"
        n, h = neck_angles(ug.head, -ug.head.gaze_gain * bob, pitch, stab)
        assert np.allclose(col["neck_pitch"], n, atol=1e-15)
        assert np.allclose(col["head_pitch"], h, atol=1e-15)
        yaw = gaze_yaw - waist if stab else np.zeros(d.shape)
        assert np.allclose(col["neck_yaw"], yaw, atol=1e-15)
    plain = upper_joints(ug, gait, d, speed_scale=scale, arms=arms, twist=twist, gaze=gaze)
    assert plain.shape == q.shape  # bob, pitch and gaze default to 0


# ---------------------------------------------------------------------------- the Walker


@pytest.mark.parametrize("name", list(CAT))
def test_pose_upper_joints_shape(name):
    w = Walker(CAT[name])
    ug = upper_geometry(CAT[name].gait)
    u = 0 if ug is None else ug.n_joints
    assert u == {"mechanic": 8, "fox": 3, "hound": 3}.get(name, 0)
    assert w.pose_at(np.linspace(0, w.cycle, 7)).upper_joints.shape == (7, u)
    assert w.pose_at(np.zeros((2, 3))).upper_joints.shape == (2, 3, u)
    assert w.pose_at(0.1).upper_joints.shape == (u,)


@pytest.mark.parametrize("path", [Straight(), Arc(0.8), Arc(-0.5)], ids=["straight", "l", "r"])
def test_body_yaw_is_the_heading_plus_the_hip_twist(path):
    entry = CAT["mechanic"]
    for scale in (0.5, 1.0, 1.5):
        w = Walker(entry, path=path, speed_scale=scale)
        d = np.linspace(0.0, 2 * w.cycle, 401)
        pose = w.pose_at(d)
        R = pose.body_rotation
        yaw = np.arctan2(R[..., 1, 0], R[..., 0, 0])
        twist = hip_twist(w.upper, w.gait, d, scale)
        assert np.abs(twist).max() > math.radians(1.0)
        assert np.allclose(_wrap(yaw - pose.heading), twist, atol=1e-12)
        off = Walker(entry, path=path, speed_scale=scale, twist=False).pose_at(d)
        R = off.body_rotation
        assert np.allclose(_wrap(np.arctan2(R[..., 1, 0], R[..., 0, 0]) - off.heading), 0.0,
                           atol=1e-12)  # fmt: skip
        assert np.array_equal(off.upper_joints[:, 0], np.zeros(d.shape))  # the waist too


def test_walker_modes_reach_the_rules():
    entry = CAT["mechanic"]
    ug = upper_geometry(entry.gait)
    d = np.linspace(0.0, entry.gait.cycle, 101)
    for arms in ("swing", "held", "anti"):
        q = Walker(entry, arms=arms).pose_at(d).upper_joints
        a = arm_angles(ug, entry.gait, d, 1.0, arms)
        assert np.allclose(q[:, 1:5], a.reshape(-1, 4), atol=1e-15), arms
    fixed = Walker(entry, gaze="fixed").pose_at(d).upper_joints
    phi0 = math.radians(ug.head.neck_deg)
    assert np.allclose(fixed[:, 5:], [0.0, phi0, -phi0], atol=1e-15)


def test_walker_head_stays_level_on_a_slope_with_lean():
    for name in ("mechanic", "fox"):
        w = Walker(CAT[name], Slope.from_degrees(12.0), lean=True)
        ug = w.upper
        pose = w.pose_at(np.linspace(0.0, w.cycle, 101))
        pitch = np.arcsin(-pose.body_rotation[..., 2, 0])
        q = pose.upper_joints
        assert np.abs(pitch).max() > 0.01
        world = pitch + q[:, ug.index("neck_pitch")] + q[:, ug.index("head_pitch")]
        assert np.allclose(world, 0.0, atol=1e-12), name


def test_walker_rejects_bad_upper_options():
    with pytest.raises(ValueError, match="arms must be one of"):
        Walker(CAT["mechanic"], arms="bogus")
    with pytest.raises(ValueError, match="gaze must be one of"):
        Walker(CAT["mechanic"], gaze="bogus")
    w = Walker(CAT["mechanic"])
    for option in ({"arms": "held"}, {"twist": False}, {"gaze": "fixed"}):
        assert Walker(CAT["mechanic"], **option).key != w.key, option


def test_generated_walkers_have_an_upper_body_only_when_asked():
    """``random_walker(seed)`` is the same walker as before upper bodies existed (its
    legs' lengths once shadowed the switch and gave every walker a head); ``upper=True``
    adds one to the same legs."""
    from gaitsim.generate import random_walker

    for seed in range(12):
        plain = random_walker(seed)[f"generated_{seed}"]["gait"]
        with_upper = random_walker(seed, upper=True)[f"generated_{seed}"]["gait"]
        assert "upper_body" not in plain
        assert "head" in with_upper.pop("upper_body")
        assert with_upper == plain


HEAD_ALONE = {"fox": GAITS["fox"], "hound": GAITS["hound"],
              **{f"generated_{s}": random_entry(s, upper=True).gait for s in (1, 3, 6)}}


@pytest.mark.parametrize("name", sorted(HEAD_ALONE))
@given(d=st.floats(-50, 50, allow_nan=False), scale=st.floats(0.25, 2.5),
       arms=st.sampled_from(["swing", "held", "anti"]), twist=st.booleans())  # fmt: skip
def test_a_head_alone_is_held_neutral_by_the_rules(name, d, scale, arms, twist):
    """With no torso and no arms the rules (gaze fixed: the physics driver's feedforward)
    give the same joints at every distance and speed: ``UpperBodyDriver`` works them out
    once on that ground."""
    gait = HEAD_ALONE[name]
    ug = upper_geometry(gait)
    assert ug.torso is None and ug.arms is None and ug.head is not None
    q = upper_joints(ug, gait, d, speed_scale=scale, arms=arms, twist=twist, gaze="fixed")
    q0 = upper_joints(ug, gait, 0.0, gaze="fixed")
    np.testing.assert_array_equal(q, q0)
