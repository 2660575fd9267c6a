"""Catalog: the built-in walkers, gait patterns, Gaitkit round trips, atomic saves,
one test per validation rule, and fuzzing (anything either loads or raises CatalogError)."""

from __future__ import annotations

import copy
import dataclasses
import errno
import json
import math
import os
import re
import stat
import tempfile
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import gaitsim
from gaitsim import Catalog, CatalogError, Entry, Gait, Leg
from gaitsim.catalog import (
    GAIT_EXTRA_KEYS,
    MAX_DUTY,
    MAX_FOOT_SLIDE_MM,
    MAX_LEGS,
    MAX_LENGTH,
    MAX_MASS,
    MAX_NAME_LENGTH,
    MAX_SPEED,
    MIN_DUTY,
    MIN_LENGTH,
    MIN_MASS,
    MIN_SPEED,
    WriteError,
    dumps_catalog,
    gait_pattern,
    gait_to_dict,
    gaitkit_to_rep103,
    parse_catalog,
    rep103_to_gaitkit,
)
from gaitsim.generate import random_walker

BUILTIN_NAMES = ["fox", "hound", "mechanic", "raptor", "horn_beetle", "spider_bot"]

# The seed's fox, verbatim (Gaitkit frame: x left, y up, z forward).
SEED_FOX_GAIT = {
    "stride": 0.15,
    "duty": 0.7,
    "lift": 0.035,
    "clip_speed": 0.375,
    "segments": [
        {
            "name": "leg_0",
            "side": "L",
            "phase": 0.75,
            "knee": "forward",
            "upper": 0.11,
            "lower": 0.12,
            "home": [0.048, 0, 0.155],
        },
        {
            "name": "leg_1",
            "side": "L",
            "phase": 0,
            "knee": "back",
            "upper": 0.125,
            "lower": 0.14,
            "home": [0.048, 0, -0.175],
        },
        {
            "name": "leg_2",
            "side": "R",
            "phase": 0.25,
            "knee": "forward",
            "upper": 0.11,
            "lower": 0.12,
            "home": [-0.048, 0, 0.155],
        },
        {
            "name": "leg_3",
            "side": "R",
            "phase": 0.5,
            "knee": "back",
            "upper": 0.125,
            "lower": 0.14,
            "home": [-0.048, 0, -0.175],
        },
    ],
}


def builtin_text() -> str:
    return resources.files("gaitsim").joinpath("data/catalog.json").read_text("utf-8")


def fox_catalog() -> dict:
    """A one-walker catalog file: the seed's fox plus a walk test."""
    return {"fox": {"gait": copy.deepcopy(SEED_FOX_GAIT), "walk_test": {"foot_slide_mm": 0.3}}}


def write_json(path: Path, obj) -> Path:
    path.write_text(json.dumps(obj, indent=2), encoding="utf-8")
    return path


def listing(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def fore(leg: Leg) -> bool:
    return leg.home[0] > 0  # REP-103 x is forward


# ---------------------------------------------------------------------------- built-in catalog


def test_builtin_catalog_has_the_six_walkers_in_order():
    cat = gaitsim.load_catalog()
    assert isinstance(cat, Catalog)
    assert list(cat) == BUILTIN_NAMES
    assert not cat.bare
    for name, entry in cat.items():
        assert isinstance(entry, Entry) and entry.name == name
        assert isinstance(entry.gait, Gait)
        assert all(isinstance(leg, Leg) for leg in entry.gait.legs)


def test_unknown_walker_name_lists_the_known_ones():
    with pytest.raises(KeyError, match="fox, hound"):
        gaitsim.load_catalog()["wolf"]


def test_builtin_fox_has_the_seeds_numbers():
    gait = gaitsim.load_catalog()["fox"].gait
    assert (gait.stride, gait.duty, gait.lift, gait.clip_speed) == (0.15, 0.7, 0.035, 0.375)
    assert gait.cycle == pytest.approx(0.15 / 0.7)
    want = [
        ("leg_0", "L", 0.75, "forward", 0.11, 0.12, (0.048, 0, 0.155)),
        ("leg_1", "L", 0.0, "back", 0.125, 0.14, (0.048, 0, -0.175)),
        ("leg_2", "R", 0.25, "forward", 0.11, 0.12, (-0.048, 0, 0.155)),
        ("leg_3", "R", 0.5, "back", 0.125, 0.14, (-0.048, 0, -0.175)),
    ]
    assert gait.leg_names == tuple(w[0] for w in want)
    for leg, row in zip(gait.legs, want, strict=True):
        name, side, phase, knee, upper, lower, (gx, gy, gz) = row
        assert (leg.name, leg.side, leg.phase, leg.knee) == (name, side, phase, knee)
        assert (leg.upper, leg.lower) == (upper, lower)
        # REP-103 (x forward, y left, z up) == Gaitkit (z, x, y), exactly
        assert leg.home == (gz, gx, gy)
        assert leg.reach == upper + lower
        assert leg.side_sign == (1.0 if side == "L" else -1.0)
    # and written back in Gaitkit form, the Gaitkit keys are the seed's object exactly
    saved = {k: v for k, v in gait_to_dict(gait).items() if k not in GAIT_EXTRA_KEYS}
    assert saved == SEED_FOX_GAIT


def test_rep103_conversion_for_every_builtin_home_and_hip():
    raw = json.loads(builtin_text())
    cat = gaitsim.load_catalog()
    for name, entry in cat.items():
        for leg, seg in zip(entry.gait.legs, raw[name]["gait"]["segments"], strict=True):
            gx, gy, gz = seg["home"]
            assert leg.home == (gz, gx, gy)
            assert leg.side_sign * leg.home[1] > 0  # left legs at y > 0 in REP-103
            if "hip" in seg:
                hx, hy, hz = seg["hip"]
                assert leg.hip == (hz, hx, hy)
            else:
                assert leg.hip is None


@given(st.tuples(*[st.floats(allow_nan=False, allow_infinity=False)] * 3))
def test_frame_conversions_are_inverse_permutations(v):
    assert rep103_to_gaitkit(gaitkit_to_rep103(v)) == v
    assert gaitkit_to_rep103(v) == (v[2], v[0], v[1])


# ---------------------------------------------------------------------------- gait patterns


def test_fox_walks_in_lateral_sequence():
    gait = gaitsim.load_catalog()["fox"].gait
    assert gait_pattern(gait) == "walk (lateral sequence)"
    phase = {(leg.side, fore(leg)): leg.phase for leg in gait.legs}
    assert phase == {("L", False): 0.0, ("L", True): 0.75, ("R", False): 0.5, ("R", True): 0.25}
    assert gait.duty == pytest.approx(0.7)


def test_hound_trots_in_diagonal_pairs():
    gait = gaitsim.load_catalog()["hound"].gait
    assert gait_pattern(gait) == "trot"
    assert gait.duty == pytest.approx(0.55)
    groups: dict[float, list[Leg]] = {}
    for leg in gait.legs:
        groups.setdefault(leg.phase, []).append(leg)
    assert sorted(groups) == [0.0, 0.5]
    for a, b in groups.values():
        assert a.side != b.side and fore(a) != fore(b)


@pytest.mark.parametrize(("legs", "pattern"), [(2, "hop"), (4, "pronk"), (6, "pronk")])
def test_legs_that_all_move_as_one_hop_or_pronk(legs, pattern):
    (walker,) = random_walker(3, legs=legs).values()
    for seg in walker["gait"]["segments"]:
        seg["phase"] = 0.25
    (entry,) = parse_catalog({"w": walker}).values()
    assert gait_pattern(entry.gait) == pattern
    walker["gait"]["segments"][0]["phase"] = 0.5  # one leg out of step: not one group
    (entry,) = parse_catalog({"w": walker}).values()
    assert gait_pattern(entry.gait) not in ("hop", "pronk")


def test_a_one_legged_walker_hops():
    """One leg has one phase: its foot is up for 1 - duty of every cycle with nothing else
    down, so it hops (stop 60: it was named '1-group')."""
    raptor = gaitsim.load_catalog()["raptor"].gait
    assert gait_pattern(dataclasses.replace(raptor, legs=raptor.legs[:1])) == "hop"


@pytest.mark.parametrize(("name", "knee"), [("mechanic", "forward"), ("raptor", "back")])
def test_bipeds_alternate_half_a_cycle_apart(name, knee):
    gait = gaitsim.load_catalog()[name].gait
    assert gait_pattern(gait) == "biped"
    assert gait.n_legs == 2
    left, right = sorted(gait.legs, key=lambda leg: leg.side)
    assert (left.side, right.side) == ("L", "R")
    assert (right.phase - left.phase) % 1.0 == pytest.approx(0.5)
    assert gait.duty == pytest.approx(0.6)
    assert {leg.knee for leg in gait.legs} == {knee}


def test_horn_beetle_uses_the_alternating_tripod():
    gait = gaitsim.load_catalog()["horn_beetle"].gait
    assert gait_pattern(gait) == "tripod"
    assert gait.n_legs == 6 and gait.duty == pytest.approx(0.55)
    assert {leg.knee for leg in gait.legs} == {"up"}
    groups: dict[float, set[str]] = {}
    for leg in gait.legs:
        groups.setdefault(leg.phase, set()).add(leg.name)
    assert groups == {0.0: {"front_l", "rear_l", "mid_r"}, 0.5: {"front_r", "rear_r", "mid_l"}}
    # front and back on one side really are the extreme legs, the middle one is between
    by_name = {leg.name: leg for leg in gait.legs}
    assert by_name["front_l"].home[0] > by_name["mid_r"].home[0] > by_name["rear_l"].home[0]


def test_six_legs_in_three_pairs_are_a_tetrapod_gait():
    """The sixth catalog's stick insect: one pair swings at a time, a third of a cycle
    apart; three groups of six legs that are not pairs stay a wave."""
    path = Path(__file__).resolve().parents[1] / "experiments" / "sixth_catalog.json"
    gait = gaitsim.load_catalog(path)["stick_insect"].gait
    assert gait_pattern(gait) == "tetrapod"
    phases = [0.0, 1 / 3, 2 / 3, 0.0, 1 / 3, 1 / 6]
    legs = tuple(dataclasses.replace(leg, phase=f)
                 for leg, f in zip(gait.legs, phases, strict=True))  # fmt: skip
    assert gait_pattern(dataclasses.replace(gait, legs=legs)) == "wave"


def test_spider_bot_uses_a_wave_gait():
    gait = gaitsim.load_catalog()["spider_bot"].gait
    assert gait_pattern(gait) == "wave"
    assert gait.n_legs == 8 and gait.duty == pytest.approx(0.65)
    assert {leg.knee for leg in gait.legs} == {"up"}
    for side in "LR":
        legs = sorted((leg for leg in gait.legs if leg.side == side), key=lambda g: -g.home[0])
        assert len(legs) == 4
        assert len({leg.phase for leg in legs}) == 4  # a ripple: every leg on a side differs


def test_a_walk_written_with_its_phases_as_landing_times_is_named_diagonal():
    """The hand-written elephant (fore left 0, fore right 0.5, hind left 0.75, hind right
    0.25: the hind left 'before' the fore left, read as landing times) lands hind left,
    right fore, right hind, left fore: a diagonal-sequence walk, and it is named so; a
    walk with three legs on one side has no sequence to name."""
    from gaitsim.catalog import load_catalog

    path = Path(__file__).resolve().parents[1] / "experiments" / "user_walkers.json"
    assert gait_pattern(load_catalog(path)["elephant"].gait) == "walk (diagonal sequence)"
    fox = gaitsim.load_catalog()["fox"].gait
    lopsided = tuple(dataclasses.replace(leg, side="L") if k == 3 else leg
                     for k, leg in enumerate(fox.legs))  # fmt: skip
    assert gait_pattern(dataclasses.replace(fox, legs=lopsided)) == "walk"


@pytest.mark.parametrize(
    ("phases", "pattern"),
    [((0, 0.5, 0.5, 0), "trot"), ((0, 0, 0.5, 0.5), "pace"), ((0, 0.5, 0, 0.5), "bound"),
     # a larger phase lands earlier: hind left 0 lands first, then the leg of phase 0.75
     ((0.75, 0, 0.25, 0.5), "walk (lateral sequence)"),
     ((0.25, 0, 0.75, 0.5), "walk (diagonal sequence)"),
     ((0.3, 0, 0.8, 0.5), "walk (diagonal sequence)"),  # fore legs 0.2 after: still
     # after the hind left the hind right, then the fore legs: a gallop's order, by
     # hand: hind left 0, hind right (0.75) 0.25 later, fore left (0.5) 0.5 later, fore
     # right (0.25) 0.75 later: the order crosses the body (transverse)
     ((0.5, 0, 0.25, 0.75), "gallop (transverse)"),
     # a greyhound's: fore right 0.7, fore left 0.6, hind left 0.1, hind right 0: the order
     # runs round the body; the fore legs swapped, it crosses it
     ((0.6, 0.1, 0.7, 0.0), "gallop (rotary)"), ((0.7, 0.1, 0.6, 0.0), "gallop (transverse)"),
     # the fore legs first, then the hind legs: hind left 0, fore left (0.9) 0.1 later,
     # fore right (0.8) 0.2 later, hind right (0.5) 0.5 later: round the body
     ((0.9, 0, 0.8, 0.5), "gallop (rotary)")],
    ids=["diagonal-pairs", "same-side-pairs", "front-back-pairs", "lateral-walk",
         "diagonal-walk", "diagonal-walk-0.2", "hind-then-hind", "rotary-gallop",
         "transverse-gallop", "fore-pair-first"],
)
def test_gait_pattern_tells_four_legged_pairings_and_sequences_apart(phases, pattern):
    # fox legs: leg_0 fore-left, leg_1 hind-left, leg_2 fore-right, leg_3 hind-right
    fox = gaitsim.load_catalog()["fox"].gait
    legs = tuple(dataclasses.replace(leg, phase=p) for leg, p in zip(fox.legs, phases, strict=True))
    assert gait_pattern(dataclasses.replace(fox, legs=legs)) == pattern


# ---------------------------------------------------------------------------- file formats


def test_bare_gait_file_loads_as_one_walker_named_after_the_file(tmp_path):
    cat = gaitsim.load_catalog(write_json(tmp_path / "fox.json", SEED_FOX_GAIT))
    assert cat.bare and list(cat) == ["fox"]
    entry = cat["fox"]
    assert entry.walk_test is None
    # the built-in fox is the seed's gait plus gaitsim's optional mass, height and head
    builtin = gaitsim.load_catalog()["fox"].gait
    assert entry.gait == dataclasses.replace(builtin, mass=None, hip_height=None, upper_body=None)
    assert entry.gait.legs == builtin.legs


def test_catalog_file_with_walk_test_loads(tmp_path):
    cat = gaitsim.load_catalog(write_json(tmp_path / "mine.json", fox_catalog()))
    assert not cat.bare and list(cat) == ["fox"]
    assert dict(cat["fox"].walk_test) == {"foot_slide_mm": 0.3}
    assert cat["fox"].gait.legs == gaitsim.load_catalog()["fox"].gait.legs


def test_loads_catalog_takes_text_and_accepts_pathlike_and_str_paths(tmp_path):
    path = write_json(tmp_path / "mine.json", fox_catalog())
    a = gaitsim.loads_catalog(path.read_text())
    assert a == gaitsim.load_catalog(path) == gaitsim.load_catalog(str(path))


def test_boundary_values_are_accepted():
    obj = fox_catalog()
    g = obj["fox"]["gait"]
    g.update(duty=MIN_DUTY, lift=0, stride=MIN_LENGTH)
    g["segments"][1]["phase"] = 0
    g["segments"][0]["phase"] = 0.999999
    gait = parse_catalog(obj)["fox"].gait
    assert gait.lift == 0 and gait.legs[0].phase == 0.999999
    assert gait.stride == MIN_LENGTH and gait.duty == MIN_DUTY
    g["duty"] = MAX_DUTY
    assert parse_catalog(obj)["fox"].gait.duty == MAX_DUTY


# ---------------------------------------------------------------------------- round trips


def test_builtin_catalog_saves_back_byte_for_byte(tmp_path):
    raw = resources.files("gaitsim").joinpath("data/catalog.json").read_bytes()
    cat = gaitsim.load_catalog()
    assert dumps_catalog(cat) == raw.decode("utf-8")
    gaitsim.save_catalog(cat, tmp_path / "catalog.json")
    assert (tmp_path / "catalog.json").read_bytes() == raw
    assert listing(tmp_path) == ["catalog.json"]  # no temp file left over


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_load_save_load_gives_equal_entries(tmp_path, name):
    entry = gaitsim.load_catalog()[name]
    path = tmp_path / f"{name}.json"
    gaitsim.save_catalog(entry, path)  # an Entry saves as a one-walker catalog
    again = gaitsim.load_catalog(path)
    assert list(again) == [name] and not again.bare
    assert again[name] == entry
    assert again[name].gait == entry.gait
    assert again[name].gait.legs == entry.gait.legs


def test_unknown_keys_at_every_level_are_kept(tmp_path):
    obj = fox_catalog()
    obj["fox"]["notes"] = {"author": "me", "tags": ["quick", 1, None, True]}
    obj["fox"]["walk_test"]["max_slip_mm"] = 2.5
    obj["fox"]["gait"]["gaitkit_version"] = "1.4"
    obj["fox"]["gait"]["speed_curve"] = [0.1, [0.2, {"a": None}]]
    obj["fox"]["gait"]["segments"][2]["color"] = "#ff8800"
    obj["fox"]["gait"]["segments"][2]["paw"] = {"toes": 4}
    # and gaitsim's own optional keys
    obj["fox"]["gait"].update(hip_height=0.17, foot_radius=0.01, bob=0.004, body=[0.4, 0.1, 0.1])
    obj["fox"]["gait"]["segments"][0]["hip"] = [0.03, 0.17, 0.15]
    obj["hound"] = {"gait": copy.deepcopy(SEED_FOX_GAIT), "colour": "brown"}
    path = write_json(tmp_path / "in.json", obj)

    cat = gaitsim.load_catalog(path)
    assert cat["fox"].extra["notes"]["author"] == "me"
    assert cat["fox"].gait.extra["gaitkit_version"] == "1.4"
    assert cat["fox"].gait.legs[2].extra["color"] == "#ff8800"
    assert cat["fox"].gait.legs[0].hip == (0.15, 0.03, 0.17)

    out = tmp_path / "out.json"
    gaitsim.save_catalog(cat, out)
    assert json.loads(out.read_text()) == obj  # the same walkers, every key kept
    assert gaitsim.load_catalog(out) == cat
    # once saved by gaitsim the text is stable
    assert dumps_catalog(gaitsim.load_catalog(out)) == out.read_text()


def test_bare_gait_file_saves_back_as_a_bare_gait(tmp_path):
    gait = copy.deepcopy(SEED_FOX_GAIT)
    gait["gaitkit_version"] = "1.4"
    gait["segments"][3]["color"] = "grey"
    cat = gaitsim.load_catalog(write_json(tmp_path / "fox.json", gait))
    out = tmp_path / "fox_out.json"
    gaitsim.save_catalog(cat, out)
    saved = json.loads(out.read_text())
    assert "segments" in saved and "fox" not in saved
    assert saved == gait
    again = gaitsim.load_catalog(out)
    assert again.bare and list(again) == ["fox_out"]
    assert again["fox_out"].gait == cat["fox"].gait


# ---------------------------------------------------------------------------- atomic save


@pytest.fixture
def builtin() -> Catalog:
    return gaitsim.load_catalog()


def _boom(*_args, **_kwargs):
    raise RuntimeError("boom")


@pytest.mark.parametrize("existing", [False, True], ids=["new-file", "existing-file"])
@pytest.mark.parametrize(
    "target",
    ["gaitsim.catalog.dumps_catalog", "json.dumps"],
    ids=["dumps_catalog-raises", "json.dumps-raises"],
)
def test_serialization_failure_writes_nothing(tmp_path, monkeypatch, builtin, target, existing):
    path = tmp_path / "catalog.json"
    if existing:
        path.write_text("old contents")
    monkeypatch.setattr(target, _boom)
    with pytest.raises(RuntimeError, match="boom"):
        gaitsim.save_catalog(builtin, path)
    assert listing(tmp_path) == (["catalog.json"] if existing else [])
    if existing:
        assert path.read_text() == "old contents"


def test_unserializable_value_writes_nothing(tmp_path):
    obj = fox_catalog()
    obj["fox"]["gait"]["note"] = float("nan")  # an unknown key is not validated on load...
    cat = parse_catalog(obj)
    path = tmp_path / "catalog.json"
    path.write_text("old contents")
    with pytest.raises(ValueError):  # ...but JSON cannot hold it, so the save refuses
        gaitsim.save_catalog(cat, path)
    assert listing(tmp_path) == ["catalog.json"]
    assert path.read_text() == "old contents"


@pytest.mark.parametrize("target", ["os.replace", "os.fsync"], ids=["rename-fails", "fsync-fails"])
def test_failure_after_the_temp_file_exists_removes_it(tmp_path, monkeypatch, builtin, target):
    path = tmp_path / "catalog.json"
    path.write_text("old contents")

    def fail(*_args, **_kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(target, fail)
    with pytest.raises(OSError, match="disk full"):
        gaitsim.save_catalog(builtin, path)
    monkeypatch.undo()
    assert listing(tmp_path) == ["catalog.json"]
    assert path.read_text() == "old contents"


def test_temp_file_cannot_be_created(tmp_path, monkeypatch, builtin):
    def deny(*_args, **_kwargs):
        raise PermissionError("read-only")

    monkeypatch.setattr(tempfile, "mkstemp", deny)
    with pytest.raises(WriteError, match=f"^{tmp_path / 'catalog.json'}: cannot write it"):
        gaitsim.save_catalog(builtin, tmp_path / "catalog.json")
    assert listing(tmp_path) == []


def test_read_only_directory_leaves_nothing(tmp_path, builtin):
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "catalog.json").write_text("old contents")
    ro.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        if os.access(ro, os.W_OK):
            pytest.skip("running with privileges that ignore directory permissions")
        with pytest.raises(WriteError, match="permission denied") as info:
            gaitsim.save_catalog(builtin, ro / "catalog.json")
        assert info.value.errno == errno.EACCES
        with pytest.raises(WriteError, match="permission denied"):
            gaitsim.save_catalog(builtin, ro / "new.json")
        assert listing(ro) == ["catalog.json"]
        assert (ro / "catalog.json").read_text() == "old contents"
    finally:
        ro.chmod(stat.S_IRWXU)


def test_parent_that_is_a_file_leaves_nothing(tmp_path, builtin):
    (tmp_path / "blocker").write_text("x")
    with pytest.raises(OSError):
        gaitsim.save_catalog(builtin, tmp_path / "blocker" / "catalog.json")
    assert listing(tmp_path) == ["blocker"]
    assert (tmp_path / "blocker").read_text() == "x"


def test_save_replaces_an_existing_file_and_creates_missing_directories(tmp_path, builtin):
    path = tmp_path / "a" / "b" / "catalog.json"
    gaitsim.save_catalog(builtin, path)
    path.write_text("old contents")
    gaitsim.save_catalog(builtin, path)
    assert gaitsim.load_catalog(path) == builtin
    assert listing(path.parent) == ["catalog.json"]


# ---------------------------------------------------------------------------- validation

SEG = "fox.gait.segments[2]"  # leg_2: R, phase 0.25, forward, home [-0.048, 0, 0.155]


def _set(path, value):
    def mutate(obj):
        node = obj
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return mutate


def _del(path):
    def mutate(obj):
        node = obj
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]

    return mutate


def _gait(key, value=None, *, delete=False):
    path = ("fox", "gait", key)
    return _del(path) if delete else _set(path, value)


def _seg(key, value=None, *, delete=False):
    path = ("fox", "gait", "segments", 2, key)
    return _del(path) if delete else _set(path, value)


def check_error(obj, place: str, *fragments: str) -> str:
    """parse_catalog (and loads_catalog on the same JSON) raise CatalogError naming the place."""
    with pytest.raises(CatalogError) as info:
        parse_catalog(obj)
    msg = str(info.value)
    assert msg.startswith(f"{place}: "), msg
    for fragment in fragments:
        assert fragment in msg, msg
    if _json_safe(obj):
        with pytest.raises(CatalogError) as again:
            gaitsim.loads_catalog(json.dumps(obj))
        assert str(again.value) == msg
    return msg


def _json_safe(obj) -> bool:
    try:
        json.dumps(obj, allow_nan=False)
    except ValueError:
        return False
    return True


GAIT_FIELDS = ["stride", "duty", "lift", "clip_speed", "segments"]
SEGMENT_FIELDS = ["name", "side", "phase", "knee", "upper", "lower", "home"]

MISSING = [
    pytest.param(_gait(k, delete=True), f"fox.gait.{k}", id=f"missing-gait-{k}")
    for k in GAIT_FIELDS
] + [
    pytest.param(_seg(k, delete=True), f"{SEG}.{k}", id=f"missing-segment-{k}")
    for k in SEGMENT_FIELDS
]


@pytest.mark.parametrize(("mutate", "place"), MISSING)
def test_missing_field(mutate, place):
    obj = fox_catalog()
    mutate(obj)
    check_error(obj, place, "missing")


WRONG_TYPE = [
    pytest.param(_gait("stride", "0.15"), "fox.gait.stride", "'0.15'", id="string-for-stride"),
    pytest.param(_gait("duty", True), "fox.gait.duty", "True", id="bool-for-duty"),
    pytest.param(_gait("lift", None), "fox.gait.lift", "None", id="null-for-lift"),
    pytest.param(_gait("clip_speed", [1]), "fox.gait.clip_speed", "[1]", id="list-for-clip"),
    pytest.param(_seg("upper", "0.11"), f"{SEG}.upper", "'0.11'", id="string-for-upper"),
    pytest.param(_seg("lower", False), f"{SEG}.lower", "False", id="bool-for-lower"),
    pytest.param(_seg("phase", True), f"{SEG}.phase", "True", id="bool-for-phase"),
    pytest.param(_seg("home", [-0.048, 0]), f"{SEG}.home", "list of 3", id="home-of-2"),
    pytest.param(_seg("home", [-0.048, 0, 0, 1]), f"{SEG}.home", "list of 3", id="home-of-4"),
    pytest.param(_seg("home", "-0.048 0 0.155"), f"{SEG}.home", "list of 3", id="home-string"),
    pytest.param(
        _seg("home", [-0.048, "0", 0.155]), f"{SEG}.home[1]", "'0'", id="home-string-component"
    ),
    pytest.param(
        _seg("home", [-0.048, 0, True]), f"{SEG}.home[2]", "True", id="home-bool-component"
    ),
    pytest.param(_seg("hip", [0, 1]), f"{SEG}.hip", "list of 3", id="hip-of-2"),
    pytest.param(_seg("name", 2), f"{SEG}.name", "non-empty string", id="number-for-name"),
    pytest.param(_seg("name", ""), f"{SEG}.name", "non-empty string", id="empty-name"),
    pytest.param(
        _gait("segments", {"leg_0": {}}), "fox.gait.segments", "list", id="object-for-segments"
    ),
    pytest.param(
        _set(("fox", "gait", "segments", 2), 7), SEG, "must be an object", id="number-for-segment"
    ),
    pytest.param(_set(("fox", "gait"), []), "fox.gait", "must be an object", id="list-for-gait"),
    pytest.param(_set(("fox",), 3), "fox", "must be an object", id="number-for-entry"),
    pytest.param(
        _set(("fox", "walk_test"), "low"), "fox.walk_test", "must be an object", id="walk-test"
    ),
    pytest.param(
        _set(("fox", "walk_test", "foot_slide_mm"), "0"),
        "fox.walk_test.foot_slide_mm",
        "'0'",
        id="string-for-foot-slide",
    ),
    pytest.param(_gait("mass", "3 kg"), "fox.gait.mass", "'3 kg'", id="string-for-mass"),
    pytest.param(_gait("body", [0.4, 0.1]), "fox.gait.body", "[0.4, 0.1]", id="body-of-2"),
]


@pytest.mark.parametrize(("mutate", "place", "fragment"), WRONG_TYPE)
def test_wrong_type(mutate, place, fragment):
    obj = fox_catalog()
    mutate(obj)
    check_error(obj, place, "must be", fragment)


def test_top_level_must_be_an_object():
    check_error([SEED_FOX_GAIT], "catalog", "must be a gait object or an object of walkers")


NAN = float("nan")
INF = float("inf")
NON_FINITE = [
    pytest.param(_gait("stride", NAN), "fox.gait.stride", "nan", id="nan-stride"),
    pytest.param(_gait("duty", INF), "fox.gait.duty", "inf", id="inf-duty"),
    pytest.param(_gait("lift", NAN), "fox.gait.lift", "nan", id="nan-lift"),
    pytest.param(_gait("clip_speed", INF), "fox.gait.clip_speed", "inf", id="inf-clip-speed"),
    pytest.param(_seg("phase", NAN), f"{SEG}.phase", "nan", id="nan-phase"),
    pytest.param(_seg("upper", INF), f"{SEG}.upper", "inf", id="inf-upper"),
    pytest.param(_seg("lower", -INF), f"{SEG}.lower", "-inf", id="minus-inf-lower"),
    pytest.param(_seg("home", [-0.048, NAN, 0.155]), f"{SEG}.home[1]", "nan", id="nan-home"),
    pytest.param(_seg("hip", [-0.03, 0.1, INF]), f"{SEG}.hip[2]", "inf", id="inf-hip"),
    pytest.param(_gait("mass", NAN), "fox.gait.mass", "nan", id="nan-mass"),
    pytest.param(_gait("bob", INF), "fox.gait.bob", "inf", id="inf-bob"),
    pytest.param(_gait("body", [0.4, NAN, 0.1]), "fox.gait.body", "nan", id="nan-body"),
    pytest.param(
        _set(("fox", "walk_test", "foot_slide_mm"), NAN),
        "fox.walk_test.foot_slide_mm",
        "nan",
        id="nan-foot-slide",
    ),
]


@pytest.mark.parametrize(("mutate", "place", "fragment"), NON_FINITE)
def test_non_finite_float_values(mutate, place, fragment):
    obj = fox_catalog()
    mutate(obj)
    check_error(obj, place, "must be", fragment)


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_json_literals_are_rejected_at_parse(token, tmp_path):
    text = json.dumps(fox_catalog(), indent=2)
    text = text.replace('"upper": 0.11', f'"upper": {token}', 2).replace(
        f'"upper": {token}', '"upper": 0.11', 1
    )  # only leg_2's upper
    pos = text.index(token)
    line = text.count("\n", 0, pos) + 1
    column = pos - text.rfind("\n", 0, pos)
    path = tmp_path / "fox.json"
    path.write_text(text)
    with pytest.raises(CatalogError) as info:
        gaitsim.load_catalog(path)
    msg = str(info.value)
    assert msg.startswith(f"{path}: "), msg
    assert token in msg and "not a number JSON allows" in msg, msg
    assert f"line {line}, column {column}" in msg, msg


RANGES = [
    pytest.param(_gait("stride", 0), "fox.gait.stride", "positive", id="stride-zero"),
    pytest.param(_gait("stride", -0.15), "fox.gait.stride", "positive", id="stride-negative"),
    pytest.param(_gait("duty", 0), "fox.gait.duty", "between 0 and 1", id="duty-zero"),
    pytest.param(_gait("duty", 1), "fox.gait.duty", "between 0 and 1", id="duty-one"),
    pytest.param(_gait("duty", 1.5), "fox.gait.duty", "between 0 and 1", id="duty-1.5"),
    pytest.param(_gait("duty", -0.1), "fox.gait.duty", "between 0 and 1", id="duty-negative"),
    pytest.param(_gait("lift", -0.001), "fox.gait.lift", ">= 0", id="lift-negative"),
    pytest.param(_gait("clip_speed", 0), "fox.gait.clip_speed", "positive", id="clip-zero"),
    pytest.param(_gait("clip_speed", -1), "fox.gait.clip_speed", "positive", id="clip-negative"),
    pytest.param(_seg("phase", 1.0), f"{SEG}.phase", "same phase as 0: write that",
                 id="phase-one"),
    pytest.param(_seg("phase", -0.1), f"{SEG}.phase", "same phase as 0.9: write that",
                 id="phase-negative"),
    pytest.param(_seg("upper", 0), f"{SEG}.upper", "positive", id="upper-zero"),
    pytest.param(_seg("lower", -0.1), f"{SEG}.lower", "positive", id="lower-negative"),
    pytest.param(_gait("mass", 0), "fox.gait.mass", "positive", id="mass-zero"),
    pytest.param(_gait("hip_height", -1), "fox.gait.hip_height", "positive", id="hip-height"),
    pytest.param(_gait("bob", -0.01), "fox.gait.bob", ">= 0", id="bob-negative"),
    pytest.param(_gait("body", [0.4, 0, 0.1]), "fox.gait.body", "> 0", id="body-zero-width"),
]


@pytest.mark.parametrize(("mutate", "place", "fragment"), RANGES)
def test_value_out_of_range(mutate, place, fragment):
    obj = fox_catalog()
    mutate(obj)
    check_error(obj, place, "must be", fragment)


@pytest.mark.parametrize("knee", ["sideways", "Up", "", None, 1], ids=repr)
def test_unknown_knee(knee):
    obj = fox_catalog()
    _seg("knee", knee)(obj)
    check_error(obj, f"{SEG}.knee", "must be one of up, forward, back", repr(knee))


@pytest.mark.parametrize("side", ["X", "l", "left", None, 0], ids=repr)
def test_unknown_side(side):
    obj = fox_catalog()
    _seg("side", side)(obj)
    check_error(obj, f"{SEG}.side", "must be 'L' or 'R'", repr(side))


def test_duplicate_leg_names():
    obj = fox_catalog()
    _set(("fox", "gait", "segments", 3, "name"), "leg_0")(obj)
    check_error(obj, "fox.gait.segments[3].name", "duplicate", "'leg_0'", "segments[0]")


def test_zero_legs():
    obj = fox_catalog()
    _gait("segments", [])(obj)
    check_error(obj, "fox.gait.segments", "empty", "at least one leg")


@pytest.mark.parametrize(
    ("index", "home", "side"),
    [
        (0, [-0.048, 0, 0.155], "L"),
        (2, [0.048, 0, 0.155], "R"),
    ],
    ids=["L-with-x-negative", "R-with-x-positive"],
)
def test_home_on_the_wrong_side(index, home, side):
    obj = fox_catalog()
    _set(("fox", "gait", "segments", index, "home"), home)(obj)
    want = "x >= 0" if side == "L" else "x <= 0"
    check_error(obj, f"fox.gait.segments[{index}].home", f"side is '{side}'", want)


@pytest.mark.parametrize(("index", "side"), [(0, "L"), (2, "R")])
def test_a_home_on_the_midline_loads_on_either_side(index, side):
    """A foot at Gaitkit x = 0 (a tail, a centre leg) belongs to neither side: it loads
    under either label (stop 60: it was refused under both)."""
    obj = fox_catalog()
    _set(("fox", "gait", "segments", index, "home"), [0, 0, 0.155])(obj)
    leg = gaitsim.catalog.parse_catalog(obj)["fox"].gait.legs[index]
    assert leg.side == side and leg.home[1] == 0.0


def test_hip_on_the_wrong_side():
    obj = fox_catalog()
    _seg("hip", [0.03, 0.17, 0.15])(obj)  # leg_2 is R: Gaitkit x must be <= 0
    check_error(obj, f"{SEG}.hip", "wrong side")


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ('{\n  "fox": {\n    ,\n  }\n}', 3, 5),
        ('{\n  "fox": {"gait": {"stride": 0.15,}}\n}', 2, 35),
        ('{\n  "fox": {\n', 3, 1),
        ("", 1, 1),
        ("{'fox': 1}", 1, 2),
    ],
    ids=["stray-comma", "trailing-comma", "truncated", "empty-text", "single-quotes"],
)
def test_json_syntax_error_names_line_and_column(tmp_path, text, line, column):
    with pytest.raises(CatalogError) as info:
        gaitsim.loads_catalog(text, label="mine.json")
    msg = str(info.value)
    assert msg.startswith("mine.json: invalid JSON"), msg
    assert f"line {line}, column {column}" in msg, msg
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(CatalogError, match=f"^{path}: .*line {line}, column {column}"):
        gaitsim.load_catalog(path)


def test_missing_file(tmp_path):
    path = tmp_path / "nowhere" / "fox.json"
    with pytest.raises(CatalogError) as info:
        gaitsim.load_catalog(path)
    assert str(info.value).startswith(f"{path}: ")
    assert "no such file" in str(info.value)


def test_unreadable_path_is_a_catalog_error(tmp_path):
    with pytest.raises(CatalogError, match=f"^{tmp_path}: cannot read it"):
        gaitsim.load_catalog(tmp_path)  # a directory
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"f\xf6x": 1}')
    with pytest.raises(CatalogError, match="cannot read it"):
        gaitsim.load_catalog(bad)


def test_empty_catalog():
    check_error({}, "catalog", "empty", "at least one walker")


def test_entry_without_a_gait():
    check_error({"fox": {"walk_test": {"foot_slide_mm": 0}}}, "fox.gait", "missing")


def test_bare_gait_errors_are_named_after_the_file(tmp_path):
    gait = copy.deepcopy(SEED_FOX_GAIT)
    gait["segments"][2]["upper"] = -0.1
    with pytest.raises(CatalogError) as info:
        gaitsim.load_catalog(write_json(tmp_path / "fox.json", gait))
    assert str(info.value).startswith("fox.segments[2].upper: must be"), str(info.value)
    assert "-0.1" in str(info.value)


# ---------------------------------------------------------------------------- hostile input

HUGE_INT = 10**400  # a valid JSON integer that no float can hold


@pytest.mark.parametrize(
    ("mutate", "place"),
    [
        pytest.param(_gait("stride", HUGE_INT), "fox.gait.stride", id="stride"),
        pytest.param(_seg("upper", -HUGE_INT), f"{SEG}.upper", id="upper"),
        pytest.param(_seg("home", [-0.048, HUGE_INT, 0.155]), f"{SEG}.home[1]", id="home"),
        pytest.param(_gait("body", [0.4, HUGE_INT, 0.1]), "fox.gait.body", id="body"),
        pytest.param(
            _set(("fox", "walk_test", "foot_slide_mm"), HUGE_INT),
            "fox.walk_test.foot_slide_mm",
            id="foot-slide",
        ),
    ],
)
def test_integer_too_large_for_a_float(mutate, place):
    obj = fox_catalog()
    mutate(obj)
    check_error(obj, place, "must be")


def test_deeply_nested_json_is_a_catalog_error():
    depth = 100_000
    for text in ("[" * depth + "]" * depth, '{"fox": ' * depth + "1" + "}" * depth):
        with pytest.raises(CatalogError, match="nested too deeply"):
            gaitsim.loads_catalog(text)


def test_deeply_nested_value_is_a_catalog_error():
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(CatalogError):
        parse_catalog({"fox": {"gait": deep}})


# ---------------------------------------------------------------------------- fuzzing

KNOWN_KEYS = [
    "fox",
    "gait",
    "walk_test",
    "foot_slide_mm",
    *GAIT_FIELDS,
    *SEGMENT_FIELDS,
    *GAIT_EXTRA_KEYS,
    "hip",
]

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([2**53 + 1, 2**64, 10**308, HUGE_INT, -HUGE_INT])
    | st.floats()  # includes NaN, +-inf, -0.0, subnormals
    | st.sampled_from([1e308, -1e308, 1.7976931348623157e308, 5e-324, 2.0**53, 0.5, 1.0, -0.0])
    | st.text(max_size=12)
    | st.sampled_from(["L", "R", "up", "forward", "back", "", "NaN"])
)
json_values = st.recursive(
    json_scalars,
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.dictionaries(st.text(max_size=8) | st.sampled_from(KNOWN_KEYS), kids, max_size=4)
    ),
    max_leaves=16,
)
# values that sit right on a validation edge, drawn as often as everything else together
edge_values = st.sampled_from(
    [
        *(None, True, False, 0, 1, -1, 0.0, -0.0, 1.0, 0.999999, -1e-9, 1e308, -1e308),
        *(HUGE_INT, -HUGE_INT, float("nan"), float("inf"), float("-inf")),
        *("", "0.1", "L", "R", "up", [], {}, [0, 0], [0, 0, 0], [1, 0, 0], [-1, 0, 0], [[]]),
    ]
)
replacements = edge_values | json_values


def _nodes(node, prefix=()):
    """Every (path, node) in a decoded JSON tree, the root included."""
    out = [(prefix, node)]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _nodes(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _nodes(v, (*prefix, i))
    return out


def _get(root, path):
    for key in path:
        root = root[key]
    return root


def _mutate(data, root):
    op = data.draw(st.sampled_from(["delete", "replace", "resize", "rename"]), label="op")
    nodes = _nodes(root)
    if op == "resize":
        candidates = [p for p, n in nodes if isinstance(n, list)]
    elif op == "rename":
        candidates = [p for p, n in nodes if isinstance(n, dict) and n]
    elif op == "delete":
        candidates = [p for p, _ in nodes if p]
    else:
        candidates = [p for p, _ in nodes]
    if not candidates:
        return root
    path = data.draw(st.sampled_from(candidates), label="path")
    if op == "replace":
        value = copy.deepcopy(data.draw(replacements, label="value"))
        if not path:
            return value
        _get(root, path[:-1])[path[-1]] = value
    elif op == "delete":
        del _get(root, path[:-1])[path[-1]]
    elif op == "resize":
        lst = _get(root, path)
        n = data.draw(st.integers(0, len(lst) + 3), label="length")
        if n <= len(lst):
            del lst[n:]
        else:
            for _ in range(n - len(lst)):
                if lst and data.draw(st.booleans(), label="copy"):
                    lst.append(copy.deepcopy(data.draw(st.sampled_from(lst))))
                else:
                    lst.append(data.draw(json_values, label="new item"))
    else:  # rename a key, keeping the order
        node = _get(root, path)
        old = data.draw(st.sampled_from(list(node)), label="old key")
        new = data.draw(st.text(max_size=8) | st.sampled_from(KNOWN_KEYS), label="new key")
        items = [(new if k == old else k, v) for k, v in node.items()]
        node.clear()
        node.update(items)
    return root


def check_valid(cat: Catalog) -> None:
    """What a loaded catalog promises, whatever it was loaded from."""
    assert isinstance(cat, Catalog) and len(cat) >= 1
    for name, entry in cat.items():
        assert isinstance(entry, Entry) and entry.name == name
        gait = entry.gait
        assert isinstance(gait, Gait)
        assert math.isfinite(gait.stride) and gait.stride > 0
        assert 0 < gait.duty < 1 and math.isfinite(gait.lift) and gait.lift >= 0
        assert math.isfinite(gait.clip_speed) and gait.clip_speed > 0
        assert gait.n_legs >= 1 and len(set(gait.leg_names)) == gait.n_legs
        for leg in gait.legs:
            assert isinstance(leg, Leg) and isinstance(leg.name, str) and leg.name
            assert leg.side in ("L", "R") and leg.knee in ("up", "forward", "back")
            assert 0 <= leg.phase < 1
            assert math.isfinite(leg.upper) and leg.upper > 0
            assert math.isfinite(leg.lower) and leg.lower > 0
            assert len(leg.home) == 3 and all(math.isfinite(c) for c in leg.home)
            assert leg.home[1] * leg.side_sign >= 0  # (0: on the midline, either side)
        assert isinstance(gait_pattern(gait), str)


def check_round_trip(cat: Catalog) -> None:
    text = dumps_catalog(cat)
    again = gaitsim.loads_catalog(text)
    assert again == cat
    assert again.bare == cat.bare
    assert dumps_catalog(again) == text


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(data=st.data(), base=st.sampled_from(["builtin", "fox", "bare"]))
def test_fuzz_mutated_catalogs_load_or_raise_catalog_error(data, base):
    if base == "builtin":
        root = json.loads(builtin_text())
    elif base == "fox":
        root = fox_catalog()
    else:
        root = copy.deepcopy(SEED_FOX_GAIT)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        root = _mutate(data, root)

    try:
        cat = parse_catalog(root)
    except CatalogError:
        event("parse_catalog: CatalogError")
    else:
        event("parse_catalog: loaded")
        check_valid(cat)

    text = json.dumps(root)  # NaN / Infinity come out as the JSON extension literals
    try:
        cat = gaitsim.loads_catalog(text)
    except CatalogError:
        event("loads_catalog: CatalogError")
        return
    event("loads_catalog: loaded")
    check_valid(cat)
    check_round_trip(cat)


TOKENS = ["NaN", "Infinity", "-Infinity", "null", "true", "1e999", "1" + "0" * 400, "-0"]
TOKENS += ["[", "]", "{", "}", "{}", "[]", '"', '"x"', ",", ":", "0", "-", ".", "e", "\\"]


NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
NUMBER_TOKENS = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1" + "0" * 400, "-0"]
NUMBER_TOKENS += ["0", "1", "-1", "1.0", "0.999999", "null", "true", '"1"', "[]", "5e-324"]


@st.composite
def text_edits(draw, text: str):
    for _ in range(draw(st.integers(1, 5))):
        pos = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["delete", "insert", "replace", "cut", "duplicate", "number"]))
        if op == "number":  # swap one number literal for an edge token
            numbers = list(NUMBER.finditer(text))
            if numbers:
                m = draw(st.sampled_from(numbers))
                piece = draw(st.sampled_from(NUMBER_TOKENS))
                text = text[: m.start()] + piece + text[m.end() :]
        elif op == "delete":
            text = text[:pos] + text[pos + 1 :]
        elif op in ("insert", "replace"):
            piece = draw(st.sampled_from(TOKENS) | st.characters() | st.text(max_size=3))
            text = text[:pos] + piece + text[pos + (op == "replace") :]
        else:
            end = pos + draw(st.integers(0, 200))
            chunk = text[pos:end]
            text = text[:pos] + text[end:] if op == "cut" else text[:end] + chunk + text[end:]
    return text


@FUZZ
@given(text=text_edits(builtin_text()))
def test_fuzz_edited_json_text_loads_or_raises_catalog_error(text):
    try:
        cat = gaitsim.loads_catalog(text)
    except CatalogError as exc:
        assert str(exc)
        event("CatalogError")
        return
    event("loaded")
    check_valid(cat)
    check_round_trip(cat)


# ---------------------------------------------------------------------------- duplicate keys


def _dup_error(text: str) -> str:
    with pytest.raises(CatalogError) as info:
        gaitsim.loads_catalog(text, label="mine.json")
    return str(info.value)


def test_a_walker_given_twice_is_refused_naming_both_places(tmp_path):
    fox = json.dumps(fox_catalog()["fox"])
    text = '{\n  "fox": ' + fox + ',\n  "hound": ' + fox + ',\n  "fox": ' + fox + "\n}\n"
    assert json.loads(text).keys() == {"fox", "hound"}  # plain json silently drops one
    msg = _dup_error(text)
    assert msg.startswith("mine.json: walker 'fox' is given twice at the top level"), msg
    assert "line 2, column 3 and line 4, column 3" in msg, msg
    # and `validate --write` never gets to drop it: the file is refused and left alone
    path = tmp_path / "cat.json"
    path.write_text(text)
    from gaitsim.cli import main

    assert main(["validate", "-q", "--catalog", str(path), "--write"]) == 2
    assert path.read_text() == text


@pytest.mark.parametrize(
    ("edit", "place", "key"),
    [
        (
            lambda t: t.replace('"upper": 0.11,', '"upper": 0.11, "upper": 0.5,', 1),
            "fox.gait.segments[0]",
            "upper",
        ),
        (
            lambda t: t.replace('"stride": 0.15,', '"stride": 0.15, "stride": 0.3,', 1),
            "fox.gait",
            "stride",
        ),
        (
            lambda t: t.replace('"foot_slide_mm": 0.3', '"foot_slide_mm": 0.3, "foot_slide_mm": 9'),
            "fox.walk_test",
            "foot_slide_mm",
        ),
        (
            lambda t: t.replace('"side": "L",', '"paw": {"toes": 4, "toes": 5}, "side": "L",', 1),
            "fox.gait.segments[0].paw",
            "toes",
        ),
    ],
    ids=["segment-key", "gait-key", "walk-test-key", "unknown-nested-key"],
)
def test_a_key_given_twice_anywhere_is_refused(edit, place, key):
    text = edit(json.dumps(fox_catalog()))
    msg = _dup_error(text)
    assert msg.startswith(f"mine.json: {place}: key {key!r} is given twice (line 1, column "), msg
    assert " and line 1, column " in msg


def test_a_bare_gait_key_given_twice_is_refused(tmp_path):
    text = json.dumps(SEED_FOX_GAIT).replace('"duty": 0.7,', '"duty": 0.7, "duty": 0.5,')
    path = tmp_path / "fox.json"
    path.write_text(text)
    with pytest.raises(CatalogError, match=rf"^{path}: catalog: key 'duty' is given twice"):
        gaitsim.load_catalog(path)


# ---------------------------------------------------------------------------- what is read


def test_a_folder_is_refused_before_reading(tmp_path):
    with pytest.raises(CatalogError, match=rf"^{tmp_path}: cannot read it: it is a folder"):
        gaitsim.load_catalog(tmp_path)


def test_a_named_pipe_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "cat.json"
    os.mkfifo(fifo)  # opening it to read would block until a writer came
    with pytest.raises(CatalogError, match=rf"^{fifo}: cannot read it: it is a named pipe"):
        gaitsim.load_catalog(fifo)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_refused_before_reading():
    with pytest.raises(CatalogError, match=r"^/dev/zero: cannot read it: it is a character device"):
        gaitsim.load_catalog("/dev/zero")
    from gaitsim.cli import main

    assert main(["validate", "--catalog", "/dev/zero"]) == 2


def test_a_file_over_the_size_limit_is_refused_before_reading(tmp_path, monkeypatch):
    from gaitsim.catalog import MAX_CATALOG_BYTES

    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(MAX_CATALOG_BYTES + 1)  # sparse: no disk used
    reads = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda *a, **k: reads.append(a) or real_open(*a, **k))
    with pytest.raises(CatalogError, match=rf"^{big}: is {MAX_CATALOG_BYTES + 1} bytes, over"):
        gaitsim.load_catalog(big)
    assert reads == []  # refused before the file was opened
    ok = write_json(tmp_path / "ok.json", fox_catalog())  # a file within the limit loads
    assert list(gaitsim.load_catalog(ok)) == ["fox"]


def test_a_symlinked_catalog_is_read_through_the_link(tmp_path):
    real = write_json(tmp_path / "real.json", fox_catalog())
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert gaitsim.load_catalog(link) == gaitsim.load_catalog(real)


# ---------------------------------------------------------------------------- physical bounds

BOUNDS = [
    pytest.param(_gait("stride", MAX_LENGTH * 1.01), "fox.gait.stride", "at most", id="stride-max"),
    pytest.param(_gait("stride", MIN_LENGTH / 2), "fox.gait.stride", "at least", id="stride-min"),
    pytest.param(_gait("duty", 1e-300), "fox.gait.duty", "at least 0.05", id="duty-tiny"),
    pytest.param(_gait("duty", MIN_DUTY / 2), "fox.gait.duty", "at least", id="duty-min"),
    pytest.param(_gait("duty", 0.99), "fox.gait.duty", "at most 0.98", id="duty-max"),
    pytest.param(_gait("lift", 1e300), "fox.gait.lift", "at most", id="lift-huge"),
    pytest.param(_gait("clip_speed", MAX_SPEED * 2), "fox.gait.clip_speed", "at most", id="v-max"),
    pytest.param(_gait("clip_speed", MIN_SPEED / 2), "fox.gait.clip_speed", "at least", id="v-min"),
    pytest.param(_seg("upper", 1e300), f"{SEG}.upper", "at most 10 m", id="upper-huge"),
    pytest.param(_seg("lower", MIN_LENGTH / 10), f"{SEG}.lower", "at least", id="lower-tiny"),
    pytest.param(_seg("home", [-0.048, 0, 1e300]), f"{SEG}.home[2]", "within", id="home-far"),
    pytest.param(_seg("hip", [-0.03, 11, 0.15]), f"{SEG}.hip[1]", "within", id="hip-far"),
    pytest.param(_gait("foot_radius", 1e300), "fox.gait.foot_radius", "at most", id="foot-huge"),
    pytest.param(_gait("foot_radius", 1e-9), "fox.gait.foot_radius", "at least", id="foot-tiny"),
    pytest.param(_gait("hip_height", 1e300), "fox.gait.hip_height", "at most", id="hip-h-huge"),
    pytest.param(_gait("mass", MAX_MASS * 10), "fox.gait.mass", "at most", id="mass-huge"),
    pytest.param(_gait("mass", MIN_MASS / 10), "fox.gait.mass", "at least", id="mass-tiny"),
    pytest.param(_gait("bob", 1e300), "fox.gait.bob", "at most", id="bob-huge"),
    pytest.param(_gait("body", [0.4, 1e300, 0.1]), "fox.gait.body[1]", "at most", id="body-huge"),
    pytest.param(_gait("body", [1e-6, 0.1, 0.1]), "fox.gait.body[0]", "at least", id="body-tiny"),
    pytest.param(
        _set(("fox", "walk_test", "foot_slide_mm"), MAX_FOOT_SLIDE_MM * 2),
        "fox.walk_test.foot_slide_mm",
        "at most",
        id="slide-huge",
    ),
    pytest.param(
        _set(("fox", "walk_test", "foot_slide_mm"), -1),
        "fox.walk_test.foot_slide_mm",
        "at least 0",
        id="slide-negative",
    ),
]


@pytest.mark.parametrize(("mutate", "place", "fragment"), BOUNDS)
def test_value_outside_its_physical_bound(mutate, place, fragment):
    obj = fox_catalog()
    mutate(obj)
    msg = check_error(obj, place, "must be", fragment)
    assert "bound" in msg, msg


def test_too_many_legs():
    obj = fox_catalog()
    legs = obj["fox"]["gait"]["segments"]
    extra = [dict(copy.deepcopy(legs[i % 4]), name=f"leg_{i}") for i in range(4, MAX_LEGS + 1)]
    legs += extra
    check_error(obj, "fox.gait.segments", f"{MAX_LEGS + 1} legs", f"at most {MAX_LEGS}")
    del legs[MAX_LEGS:]
    assert parse_catalog(obj)["fox"].gait.n_legs == MAX_LEGS


# ---------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("fox\n", "control character '\\n'"),
        ("fo\x00x", "control character '\\x00'"),
        ("fox\u2028", "control character"),
        ("\tfox", "control character '\\t'"),
        (" fox", "starts or ends with a space"),
        ("fox ", "starts or ends with a space"),
        ("x" * 300, f"300 characters long; use at most {MAX_NAME_LENGTH}"),
        ("x" * (MAX_NAME_LENGTH + 1), "characters long"),
        ("a/b", "contains '/'"),
        ("..\\b", "contains '\\\\'"),
        ("", "non-empty string"),
    ],
    ids=repr,
)
def test_bad_walker_names_are_refused(name, fragment):
    obj = {name: fox_catalog()["fox"]}
    msg = check_error(obj, "catalog", fragment)
    assert len(msg) < 300, msg  # a long name is shortened in the message


@pytest.mark.parametrize("name", ["fox\n", "l" * 300, "a/b"], ids=repr)
def test_bad_leg_names_are_refused(name):
    obj = fox_catalog()
    _seg("name", name)(obj)
    check_error(obj, f"{SEG}.name", "leg name")


def test_good_unusual_names_still_load():
    for name in ("x" * MAX_NAME_LENGTH, "Fuchs-2 (rot)", "renard_über", "a b"):
        assert list(parse_catalog({name: fox_catalog()["fox"]})) == [name]


def test_a_bare_gait_file_with_an_unusable_name_says_to_rename_the_file(tmp_path):
    path = write_json(tmp_path / "fox\n.json", SEED_FOX_GAIT)
    with pytest.raises(CatalogError, match="rename the file"):
        gaitsim.load_catalog(path)


def test_a_300_character_walker_name_is_a_clean_cli_error(tmp_path, capsys):
    from gaitsim.cli import main

    path = write_json(tmp_path / "cat.json", {"x" * 300: fox_catalog()["fox"]})
    out = tmp_path / "urdf"
    assert main(["urdf", "--catalog", str(path), "--out", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert f"{path}: catalog: walker name" in err and "300 characters" in err, err
    assert not out.exists()


def test_entries_pickle_and_deep_copy():
    """Every built-in entry (and a user's, with extra keys) survives pickling and deep
    copying unchanged, extras read-only still: what a vector env's worker process, a process
    pool or Gymnasium's env checker does with a walker passed as an Entry."""
    import copy
    import pickle

    cat = gaitsim.load_catalog()
    for name, entry in cat.items():
        assert pickle.loads(pickle.dumps(entry)) == entry, name
        assert copy.deepcopy(entry) == entry, name
    d = gaitsim.catalog.catalog_to_dict(cat)
    d["fox"]["notes"] = "a user's own key"
    d["fox"]["gait"]["segments"][0]["colour"] = "red"
    fox = parse_catalog(d)["fox"]
    again = pickle.loads(pickle.dumps(fox))
    assert again == fox and again.extra["notes"] == "a user's own key"
    assert again.gait.legs[0].extra["colour"] == "red"
    with pytest.raises(TypeError):
        again.extra["notes"] = "changed"  # still read-only


def test_an_env_made_from_an_entry_passes_the_checker():
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    import gaitsim.sim  # registers the ids

    env = gym.make("gaitsim/Walk-v0", walker=gaitsim.load_catalog()["horn_beetle"])
    check_env(env.unwrapped, skip_render_check=True)
    env.close()
