"""Gaitkit-format catalogs: load, validate and save walkers.

On disk a catalog uses Gaitkit's three.js body frame (x left, y up, z forward). Inside
gaitsim every vector is REP-103 (x forward, y left, z up); the conversion is a pure axis
permutation done here and nowhere else, so a load/save round trip is exact.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import math
import os
import re
import stat
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

KNEES = ("up", "forward", "back")
SIDES = ("L", "R")

# gaitsim's own optional gait keys (Gaitkit readers ignore them) and their meaning.
GAIT_EXTRA_KEYS = {
    "hip_height": "height of the hip mounts above the foot centres at mid-stance (m)",
    "foot_radius": "radius of the sphere foot; foot points are sphere centres (m)",
    "bob": "amplitude of the body's vertical bob over a step (m)",
    "mass": "total mass of the walker (kg)",
    "body": "body box size [length, width, height] in the REP-103 frame (m)",
    "upper_body": "optional torso, arms and head (see UPPER_BODY_FIELDS); defaults from the legs",
}
SEGMENT_EXTRA_KEYS = {
    "hip": "hip mount point in the Gaitkit body frame (x left, y up, z forward), metres",
    "foot": "a sole and an ankle (an object of FOOT_FIELDS, {} for every default) or "
    "\"sphere\" for a point foot; default: soles for bipeds, spheres otherwise",
}

# The optional per-leg ``foot`` object: every key optional (``gaitsim.feet`` derives the
# missing ones from the leg). Lengths in metres, measured from the ankle joint.
FOOT_FIELDS = {
    "heel": "how far the sole reaches behind the ankle (m, >= 0)",
    "toe": "how far the sole reaches ahead of the ankle (m, > 0)",
    "width": "the sole's width (m)",
    "height": "the ankle joint's height over the bottom of the sole (m)",
    "ankle": "the ankle's joints: 'pitch', 'pitch_roll' (pitch, then roll below it) or "
    "'yaw_pitch_roll' (a yaw about the shin first, so a planted sole keeps its heading "
    "while the body turns)",
    "hip_yaw": "true for a yaw joint at the top of the leg (above the hip roll), so the "
    "whole leg turns with its sole and a planted sole keeps its heading while the body "
    "turns; not with 'yaw_pitch_roll'",
}
ANKLE_KINDS = ("pitch", "pitch_roll", "yaw_pitch_roll")
SPHERE_FOOT = "sphere"
MAX_SOLED_LEGS = 21  # a leg with a sole is 6 URDF joints (PyBullet holds at most 128)

# The optional ``upper_body`` block: each part is an object whose keys are all optional
# (a missing key takes the default that ``gaitsim.upper`` derives from the legs). Kind:
# "length" (m), "mass" (kg), "share" (a number >= 0), "deg" (degrees), "hz", "s",
# "point" ([x, y, z] metres in the Gaitkit frame, left side for the arms).
UPPER_BODY_FIELDS: dict[str, dict[str, tuple[str, str]]] = {
    "torso": {
        "height": ("length", "height of the chest box above the body (m)"),
        "mass": ("mass", "mass of the chest (kg), taken out of the body's"),
        "twist_deg": ("deg", "hip twist amplitude (deg) at the reference step rate"),
        "twist_ref_hz": ("hz", "the step rate at which the hips twist by twist_deg (Hz)"),
        "shoulder_ratio": ("share", "the shoulders turn this many times the hips' twist, "
                           "the other way"),
    },
    "arms": {
        "upper": ("length", "upper arm length (m)"),
        "lower": ("length", "forearm length (m)"),
        "mass": ("mass", "mass of one arm (kg), taken out of the body's"),
        "shoulder": ("point", "the left shoulder in the Gaitkit body frame (m); the right "
                     "one is its mirror"),
        "swing_gain": ("share", "shoulder swing amplitude as a share of the stride angle"),
        "elbow_deg": ("deg", "elbow bend scale (deg), times (elbow_offset + leg ratio)"),
        "elbow_offset": ("share", "added to the legs' lower / (upper + lower) for the bend"),
    },
    "head": {
        "neck": ("length", "neck length (m)"),
        "neck_deg": ("deg", "the neck's neutral lean forward of vertical (deg)"),
        "radius": ("length", "head sphere radius (m)"),
        "mass": ("mass", "mass of the head and neck (kg), taken out of the body's"),
        "mount": ("point", "the neck's base in the Gaitkit body frame (m)"),
        "gaze_gain": ("share", "share of the body's vertical bob the head cancels"),
        "preview_s": ("s", "the gaze turns along the path this many seconds ahead"),
    },
}
UPPER_BODY_LIMITS = {"deg": (-90.0, 90.0), "hz": (0.05, 20.0), "s": (0.0, 5.0),
                     "share": (0.0, 5.0)}  # fmt: skip

_GAIT_FIELDS = ("stride", "duty", "lift", "clip_speed", "segments")
_SEGMENT_FIELDS = ("name", "side", "phase", "knee", "upper", "lower", "home")

# Physical bounds of a catalog. Everything inside them loads, validates, builds a URDF and
# walks; anything outside is refused at load with the field named.
MAX_CATALOG_BYTES = 16 * 2**20  # a catalog file larger than this is refused before reading
MAX_NAME_LENGTH = 64  # characters in a walker or leg name (names become file names)
MAX_LEGS = 31  # a leg is 4 URDF joints; PyBullet cannot hold a body of 128 joints
MIN_LENGTH = 1e-3  # m: bones, stride, hip height, foot radius, body box sides
MAX_LENGTH = 10.0  # m: the same, plus lift, bob and every home / hip coordinate
MIN_DUTY = 0.05  # share of the cycle a foot is on the ground
MAX_DUTY = 0.98
MIN_SPEED = 1e-3  # m/s: clip speed
MAX_SPEED = 20.0
MIN_MASS = 1e-3  # kg
MAX_MASS = 1e5
MAX_FOOT_SLIDE_MM = 1e6  # walk_test.foot_slide_mm (a kilometre: any measured slide fits)


MAX_RUN_SECONDS = 36000.0  # the longest physics run gaitsim simulates (10 simulated hours)


class GaitsimError(Exception):
    """Bad input or an unusable environment (not a bug in gaitsim): the message names the
    place and the fix. The ``gaitsim`` command reports these with exit code 2."""


class CatalogError(GaitsimError, ValueError):
    """A catalog is malformed; the message names the place and how to fix it."""


class WriteError(GaitsimError, OSError):
    """A file could not be written (disk full, read-only, no permission, bad name...); the
    message names the path. Nothing half-written is left behind. ``errno`` is the cause's."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else super().__str__()


def gaitkit_to_rep103(v: Any) -> tuple[float, float, float]:
    """Gaitkit (x left, y up, z forward) -> REP-103 (x forward, y left, z up)."""
    x, y, z = v
    return (z, x, y)


def rep103_to_gaitkit(v: Any) -> tuple[float, float, float]:
    """REP-103 (x forward, y left, z up) -> Gaitkit (x left, y up, z forward)."""
    x, y, z = v
    return (y, z, x)


class FrozenMap(Mapping[str, Any]):
    """A read-only mapping (the catalog's free-form extras) that, unlike
    ``types.MappingProxyType``, pickles and deep-copies: an Entry can then cross to a
    worker process (vector envs, process pools, Ray) or through Gymnasium's env checker."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any] | None = None):
        self._data = dict(data or {})

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"

    def __reduce__(self):
        return (FrozenMap, (self._data,))


def _freeze(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return FrozenMap(mapping)


@dataclass(frozen=True)
class Leg:
    """One leg: its gait phase, knee kind and geometry, in the REP-103 body frame.

    The body frame's origin is on the foot plane below the body centre (Gaitkit's), so a
    home point has z = 0 when the foot rests level with the others.
    """

    name: str
    side: str
    phase: float
    knee: str
    upper: float
    lower: float
    home: tuple[float, float, float]
    hip: tuple[float, float, float] | None = None
    extra: Mapping[str, Any] = field(default_factory=FrozenMap, hash=False)
    foot: tuple[tuple[str, Any], ...] | str | None = None  # the ``foot`` key as given:
    # None when absent, "sphere", or the sole's (key, value) pairs in the file's order

    @property
    def reach(self) -> float:
        return self.upper + self.lower

    @property
    def side_sign(self) -> float:
        """+1 for a left leg (y > 0 in REP-103), -1 for a right leg."""
        return 1.0 if self.side == "L" else -1.0


@dataclass(frozen=True)
class UpperBodySpec:
    """The catalog's ``upper_body`` block as given (validated; vectors in REP-103): each
    part is None when absent, else a tuple of (key, value) pairs in the file's order (a
    part given as ``{}`` has every default). ``gaitsim.upper`` resolves the defaults."""

    torso: tuple[tuple[str, Any], ...] | None = None
    arms: tuple[tuple[str, Any], ...] | None = None
    head: tuple[tuple[str, Any], ...] | None = None

    def part(self, name: str) -> dict[str, Any] | None:
        """One part's given keys as a dict, or None when the part is absent."""
        value = getattr(self, name)
        return None if value is None else dict(value)


@dataclass(frozen=True)
class Gait:
    """A walk cycle as data: stride, duty factor, lift, clip speed and the legs."""

    stride: float
    duty: float
    lift: float
    clip_speed: float
    legs: tuple[Leg, ...]
    hip_height: float | None = None
    foot_radius: float | None = None
    bob: float | None = None
    mass: float | None = None
    body: tuple[float, float, float] | None = None
    upper_body: UpperBodySpec | None = None
    extra: Mapping[str, Any] = field(default_factory=FrozenMap, hash=False)

    @property
    def cycle(self) -> float:
        """Metres travelled in one full gait cycle (stride / duty)."""
        return self.stride / self.duty

    @property
    def n_legs(self) -> int:
        return len(self.legs)

    @property
    def leg_names(self) -> tuple[str, ...]:
        return tuple(leg.name for leg in self.legs)


@dataclass(frozen=True)
class Entry:
    """A named walker: its gait plus the catalog's other per-walker data."""

    name: str
    gait: Gait
    walk_test: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=FrozenMap, hash=False)


class Catalog(Mapping[str, Entry]):
    """An ordered, read-only mapping of walker name -> Entry."""

    def __init__(self, entries: Mapping[str, Entry] | list[Entry], *, bare: bool = False):
        items = entries.values() if isinstance(entries, Mapping) else entries
        self._entries = {e.name: e for e in items}
        self.bare = bare  # loaded from (and saved as) a bare gait object

    def __getitem__(self, name: str) -> Entry:
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(self._entries) or "(none)"
            raise KeyError(f"no walker named {name!r} in the catalog; known: {known}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Catalog({list(self._entries)})"


# ---------------------------------------------------------------------------- validation


def _fail(where: str, msg: str) -> CatalogError:
    return CatalogError(f"{where}: {msg}")


def _finite(v: Any) -> float | None:
    """v as a finite float; None for a non-number, NaN, inf or an int too large for a float."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:  # e.g. a 400-digit JSON integer
        return None
    return f if math.isfinite(f) else None


def _number(obj: Mapping[str, Any], key: str, where: str, what: str) -> float:
    if key not in obj:
        raise _fail(f"{where}.{key}", f"missing; add {what}")
    v = _finite(obj[key])
    if v is None:
        raise _fail(f"{where}.{key}", f"must be {what}, got {obj[key]!r}")
    return v


def _positive(obj, key, where, what):
    v = _number(obj, key, where, what)
    if v <= 0:
        raise _fail(f"{where}.{key}", f"must be {what}, got {v!r}")
    return v


def _within(v: float, place: str, lo: float, hi: float, unit: str, bound: str) -> float:
    """v, or a CatalogError naming the place and the physical bound it breaks."""
    if v < lo:
        raise _fail(place, f"must be at least {lo:g} {unit} ({bound} lower bound), got {v!r}")
    if v > hi:
        raise _fail(place, f"must be at most {hi:g} {unit} ({bound} upper bound), got {v!r}")
    return v


def _length(obj, key, where) -> float:
    """A positive length in metres within [MIN_LENGTH, MAX_LENGTH]."""
    v = _positive(obj, key, where, "a positive number of metres")
    return _within(v, f"{where}.{key}", MIN_LENGTH, MAX_LENGTH, "m", "length")


def _vector(obj: Mapping[str, Any], key: str, where: str) -> tuple[float, float, float]:
    if key not in obj:
        raise _fail(f"{where}.{key}", "missing; add [x, y, z] in metres (Gaitkit frame)")
    v = obj[key]
    if not isinstance(v, (list, tuple)) or len(v) != 3:
        raise _fail(f"{where}.{key}", f"must be a list of 3 numbers [x, y, z] in metres, got {v!r}")
    out = []
    for i, c in enumerate(v):
        f = _finite(c)
        if f is None:
            raise _fail(f"{where}.{key}[{i}]", f"must be a finite number of metres, got {c!r}")
        if abs(f) > MAX_LENGTH:
            raise _fail(
                f"{where}.{key}[{i}]",
                f"must be within +/-{MAX_LENGTH:g} m of the body centre (coordinate bound), "
                f"got {c!r}",
            )
        out.append(f)
    return gaitkit_to_rep103(out)


_NAME_FORBIDDEN = ("/", "\\")


def check_name(name: Any, place: str, what: str = "name") -> str:
    """A walker or leg name, or a CatalogError: a non-empty string of at most
    MAX_NAME_LENGTH printable characters without surrounding spaces or path separators
    (names become file names and table rows)."""
    if not isinstance(name, str) or not name:
        raise _fail(place, f"must be a non-empty string, got {name!r}")
    if len(name) > MAX_NAME_LENGTH:
        raise _fail(
            place,
            f"{what} {name[:20]!r}... is {len(name)} characters long; use at most "
            f"{MAX_NAME_LENGTH} (names become file names)",
        )
    bad = next((c for c in name if not c.isprintable()), None)
    if bad is not None:
        raise _fail(
            place,
            f"{what} {name!r} contains the control character {bad!r}; use printable "
            "characters only",
        )
    if name != name.strip():
        raise _fail(place, f"{what} {name!r} starts or ends with a space; remove it")
    sep = next((c for c in _NAME_FORBIDDEN if c in name), None)
    if sep is not None:
        raise _fail(
            place, f"{what} {name!r} contains {sep!r}; names become file names, so avoid it"
        )
    return name


def _parse_leg(obj: Any, where: str) -> Leg:
    if not isinstance(obj, Mapping):
        raise _fail(where, f"must be an object with {', '.join(_SEGMENT_FIELDS)}, got {obj!r}")
    for key, what in (("name", "a leg name"), ("side", "'L' or 'R'"), ("knee", "up|forward|back")):
        if key not in obj:
            raise _fail(f"{where}.{key}", f"missing; add {what}")
    name = check_name(obj.get("name"), f"{where}.name", "leg name")
    side = obj.get("side")
    if side not in SIDES:
        raise _fail(f"{where}.side", f"must be 'L' or 'R', got {side!r}")
    phase = _number(obj, "phase", where, "a number in [0, 1)")
    if not 0.0 <= phase < 1.0:
        raise _fail(f"{where}.phase", f"must be in [0, 1), got {phase!r} (the same phase "
                                      f"as {phase % 1.0:g}: write that)")
    knee = obj.get("knee")
    if knee not in KNEES:
        raise _fail(f"{where}.knee", f"must be one of up, forward, back, got {knee!r}")
    upper = _length(obj, "upper", where)
    lower = _length(obj, "lower", where)
    home = _vector(obj, "home", where)
    side_sign = 1.0 if side == "L" else -1.0
    if home[1] * side_sign < 0:  # a foot on the midline (x = 0: a tail) may be either
        want = ("x >= 0 (left, or 0 on the midline)" if side == "L"
                else "x <= 0 (right, or 0 on the midline)")  # fmt: skip
        raise _fail(
            f"{where}.home",
            f"side is {side!r} but home x is {rep103_to_gaitkit(home)[0]!r}; "
            f"a {side} foot needs Gaitkit {want}, or fix 'side'",
        )
    hip = _vector(obj, "hip", where) if "hip" in obj else None
    if hip is not None and hip[1] * side_sign < 0:
        raise _fail(f"{where}.hip", f"lies on the wrong side of the body for side {side!r}")
    foot = _parse_foot(obj["foot"], f"{where}.foot", knee) if "foot" in obj else None
    extra = {k: v for k, v in obj.items()
             if k not in _SEGMENT_FIELDS and k not in SEGMENT_EXTRA_KEYS}
    return Leg(name, side, phase, knee, upper, lower, home, hip, _freeze(extra), foot)


def _parse_foot(obj: Any, where: str, knee: str) -> tuple[tuple[str, Any], ...] | str:
    """A leg's ``foot``: "sphere", or an object of FOOT_FIELDS (checked, in file order)."""
    if obj == SPHERE_FOOT:
        return SPHERE_FOOT
    if not isinstance(obj, Mapping):
        raise _fail(where, f"must be an object of {', '.join(FOOT_FIELDS)} ({{}} for every "
                    f"default) or \"sphere\" for a point foot, got {obj!r}")  # fmt: skip
    if knee == "up":
        raise _fail(where, "a sole needs a leg that hangs below its hip (knee forward or "
                    "back); an 'up' leg keeps its sphere foot: remove 'foot' or use \"sphere\"")
    items = []
    for key in obj:
        if key not in FOOT_FIELDS:
            raise _fail(f"{where}.{key}", f"unknown key; a foot takes {', '.join(FOOT_FIELDS)}")
        if key == "hip_yaw":
            if not isinstance(obj[key], bool):
                raise _fail(f"{where}.hip_yaw", f"must be true or false, got {obj[key]!r}")
            if obj[key] and obj.get("ankle") == "yaw_pitch_roll":
                raise _fail(f"{where}.hip_yaw", "a leg turns its sole at the hip or at the "
                            "ankle, not both: drop 'hip_yaw' or use 'ankle': 'pitch_roll'")
            items.append((key, obj[key]))
        elif key == "ankle":
            if obj[key] not in ANKLE_KINDS:
                raise _fail(f"{where}.ankle", "must be 'pitch', 'pitch_roll' or "
                            f"'yaw_pitch_roll', got {obj[key]!r}")  # fmt: skip
            items.append((key, obj[key]))
        elif key == "heel":
            v = _number(obj, key, where, "a number of metres >= 0")
            if v < 0:
                raise _fail(f"{where}.heel", f"must be >= 0 metres, got {v!r}")
            items.append((key, _within(v, f"{where}.heel", 0.0, MAX_LENGTH, "m", "length")))
        else:
            v = _positive(obj, key, where, "a positive number of metres")
            items.append((key, _within(v, f"{where}.{key}", MIN_LENGTH, MAX_LENGTH, "m", "length")))
    return tuple(items)


def foot_to_dict(foot: tuple[tuple[str, Any], ...] | str) -> dict[str, Any] | str:
    """A leg's ``foot`` back in the catalog's form."""
    if foot == SPHERE_FOOT:
        return SPHERE_FOOT
    return {k: (v if k in ("ankle", "hip_yaw") else _num(v)) for k, v in foot}


def _check_feet(legs: tuple[Leg, ...], where: str) -> None:
    """Soles on all legs or on none (the walker's feet share one standing height): a leg
    without a ``foot`` key follows the others; an explicit "sphere" or an 'up' leg beside
    a sole is an error."""
    soled = [i for i, leg in enumerate(legs) if leg.foot not in (None, SPHERE_FOOT)]
    if not soled:
        return
    j = soled[0]
    for i, leg in enumerate(legs):
        if leg.foot == SPHERE_FOOT or leg.knee == "up":
            why = "is a sphere" if leg.foot == SPHERE_FOOT else "is on an 'up' leg (no sole)"
            raise _fail(f"{where}.segments[{i}].foot", f"{why}, but segments[{j}] "
                        f"({legs[j].name}) has a sole: a walker's legs all have soles or "
                        "none do; remove that leg's foot or make this one a sole")  # fmt: skip
    if len(legs) > MAX_SOLED_LEGS:
        raise _fail(f"{where}.segments", f"has {len(legs)} legs with soles; a walker with "
                    f"soles may have at most {MAX_SOLED_LEGS} legs")  # fmt: skip


def parse_gait(obj: Any, where: str = "gait") -> Gait:
    """Validate a Gaitkit gait object and return a :class:`Gait` (REP-103 inside)."""
    if not isinstance(obj, Mapping):
        raise _fail(where, f"must be an object with {', '.join(_GAIT_FIELDS)}, got {obj!r}")
    stride = _length(obj, "stride", where)
    duty = _number(obj, "duty", where, "a number strictly between 0 and 1")
    if not 0.0 < duty < 1.0:
        raise _fail(f"{where}.duty", f"must be strictly between 0 and 1, got {duty!r}")
    _within(duty, f"{where}.duty", MIN_DUTY, MAX_DUTY, "of the cycle", "duty factor")
    lift = _number(obj, "lift", where, "a number of metres >= 0")
    if lift < 0:
        raise _fail(f"{where}.lift", f"must be >= 0 metres, got {lift!r}")
    _within(lift, f"{where}.lift", 0.0, MAX_LENGTH, "m", "length")
    clip_speed = _positive(obj, "clip_speed", where, "a positive speed in m/s")
    _within(clip_speed, f"{where}.clip_speed", MIN_SPEED, MAX_SPEED, "m/s", "speed")
    if "segments" not in obj:
        raise _fail(f"{where}.segments", "missing; add a list of leg objects")
    segs = obj.get("segments")
    if not isinstance(segs, list):
        raise _fail(f"{where}.segments", f"must be a list of leg objects, got {segs!r}")
    if not segs:
        raise _fail(f"{where}.segments", "is empty; a walker needs at least one leg")
    if len(segs) > MAX_LEGS:
        raise _fail(
            f"{where}.segments", f"has {len(segs)} legs; a walker may have at most {MAX_LEGS}"
        )
    legs = tuple(_parse_leg(s, f"{where}.segments[{i}]") for i, s in enumerate(segs))
    seen: dict[str, int] = {}
    for i, leg in enumerate(legs):
        if leg.name in seen:
            raise _fail(
                f"{where}.segments[{i}].name",
                f"duplicate leg name {leg.name!r} (also segments[{seen[leg.name]}]); "
                "leg names must be unique",
            )
        seen[leg.name] = i
    _check_feet(legs, where)
    legs = on_foot_plane(legs)
    opt: dict[str, Any] = {}
    for key in ("hip_height", "foot_radius"):
        if key in obj:
            opt[key] = _positive(obj, key, where, "a positive number")
            _within(opt[key], f"{where}.{key}", MIN_LENGTH, MAX_LENGTH, "m", "length")
    if "mass" in obj:
        opt["mass"] = _positive(obj, "mass", where, "a positive number")
        _within(opt["mass"], f"{where}.mass", MIN_MASS, MAX_MASS, "kg", "mass")
    if "bob" in obj:
        opt["bob"] = _number(obj, "bob", where, "a number of metres >= 0")
        if opt["bob"] < 0:
            raise _fail(f"{where}.bob", f"must be >= 0 metres, got {opt['bob']!r}")
        _within(opt["bob"], f"{where}.bob", 0.0, MAX_LENGTH, "m", "length")
    if "body" in obj:
        b = obj["body"]
        if (
            not isinstance(b, (list, tuple))
            or len(b) != 3
            or not all((f := _finite(c)) is not None and f > 0 for c in b)
        ):
            raise _fail(
                f"{where}.body", f"must be [length, width, height] > 0 in metres, got {b!r}"
            )
        for i, c in enumerate(b):
            _within(float(c), f"{where}.body[{i}]", MIN_LENGTH, MAX_LENGTH, "m", "length")
        opt["body"] = tuple(float(c) for c in b)
    if "upper_body" in obj:
        opt["upper_body"] = _parse_upper_body(obj["upper_body"], f"{where}.upper_body")
    extra = {k: v for k, v in obj.items() if k not in _GAIT_FIELDS and k not in GAIT_EXTRA_KEYS}
    return Gait(stride, duty, lift, clip_speed, legs, extra=_freeze(extra), **opt)


def on_foot_plane(legs: tuple[Leg, ...]) -> tuple[Leg, ...]:
    """``legs`` with a height shared by every home taken off (homes and hips alike): the
    catalog frame's origin lies on the foot plane, and a height common to every foot (a
    user who wrote the feet 0.2 m below the body, y = -0.2) only places that frame.
    Gaitkit reads a home's x and z and ignores its y, so such a file walks there as if
    every y were 0; so it does here (it fell through the ground at 0.2 m before stop 60).
    Homes at different heights are kept as given."""
    zs = {leg.home[2] for leg in legs}
    if len(zs) != 1 or (z := zs.pop()) == 0.0:
        return legs
    return tuple(replace(
        leg, home=(leg.home[0], leg.home[1], 0.0),
        hip=None if leg.hip is None else (leg.hip[0], leg.hip[1], leg.hip[2] - z))
        for leg in legs)  # fmt: skip


def _parse_upper_value(obj: Mapping[str, Any], key: str, kind: str, where: str) -> Any:
    """One value of an upper-body part, checked by its kind (UPPER_BODY_FIELDS)."""
    place = f"{where}.{key}"
    if kind == "point":
        return _vector(obj, key, where)
    if kind in ("length", "mass"):
        v = _positive(obj, key, where, "a positive number")
        lo, hi, unit = (MIN_LENGTH, MAX_LENGTH, "m") if kind == "length" else (
            MIN_MASS, MAX_MASS, "kg")  # fmt: skip
        return _within(v, place, lo, hi, unit, kind)
    lo, hi = UPPER_BODY_LIMITS[kind]
    v = _number(obj, key, where, f"a number in [{lo:g}, {hi:g}]")
    unit = {"deg": "deg", "hz": "Hz", "s": "s", "share": "(a share)"}[kind]
    return _within(v, place, lo, hi, unit, {"share": "gain"}.get(kind, "angle" if
                   kind == "deg" else "rate" if kind == "hz" else "time"))  # fmt: skip


def _parse_upper_body(obj: Any, where: str) -> UpperBodySpec:
    """The ``upper_body`` block: parts torso, arms, head, each an object of optional keys."""
    if not isinstance(obj, Mapping):
        raise _fail(where, "must be an object with any of torso, arms, head "
                    f"(each an object, {{}} for every default), got {obj!r}")  # fmt: skip
    parts: dict[str, Any] = {}
    for name, value in obj.items():
        fields = UPPER_BODY_FIELDS.get(name)
        if fields is None:
            raise _fail(f"{where}.{name}", "unknown part; use torso, arms or head")
        place = f"{where}.{name}"
        if not isinstance(value, Mapping):
            raise _fail(place, f"must be an object ({{}} for every default), got {value!r}")
        items = []
        for key in value:
            if key not in fields:
                raise _fail(f"{place}.{key}",
                            f"unknown key; {name} takes {', '.join(fields)}")  # fmt: skip
            items.append((key, _parse_upper_value(value, key, fields[key][0], place)))
        parts[name] = tuple(items)
    arms = dict(parts.get("arms", ()))
    if "shoulder" in arms and arms["shoulder"][1] <= 0:
        raise _fail(f"{where}.arms.shoulder", "is the left shoulder: its Gaitkit x must be > 0")
    return UpperBodySpec(**parts)


def upper_body_to_dict(spec: UpperBodySpec) -> dict[str, Any]:
    """The ``upper_body`` block back in the catalog's form (Gaitkit frame, plain numbers)."""
    out: dict[str, Any] = {}
    for name, fields in UPPER_BODY_FIELDS.items():
        part = spec.part(name)
        if part is None:
            continue
        out[name] = {
            k: (_vec_out(v) if fields[k][0] == "point" else _num(v)) for k, v in part.items()
        }
    return out


def _parse_entry(name: str, obj: Any) -> Entry:
    if not isinstance(obj, Mapping):
        raise _fail(name, f"must be an object with a 'gait' key, got {obj!r}")
    if "gait" not in obj:
        raise _fail(f"{name}.gait", "missing; each catalog walker needs a gait object")
    gait = parse_gait(obj["gait"], f"{name}.gait")
    wt = obj.get("walk_test")
    if wt is not None and not isinstance(wt, Mapping):
        raise _fail(f"{name}.walk_test", f"must be an object, got {wt!r}")
    if wt is not None and "foot_slide_mm" in wt:
        slide = _number(wt, "foot_slide_mm", f"{name}.walk_test", "a number of millimetres")
        _within(slide, f"{name}.walk_test.foot_slide_mm", 0.0, MAX_FOOT_SLIDE_MM, "mm", "slide")
    extra = {k: v for k, v in obj.items() if k not in ("gait", "walk_test")}
    return Entry(name, gait, _freeze(wt) if wt is not None else None, _freeze(extra))


def parse_catalog(obj: Any, name: str = "walker") -> Catalog:
    """Validate a decoded JSON value: a bare gait object or a catalog of walkers."""
    try:
        return _parse_catalog(obj, name)
    except RecursionError:  # a value nested too deeply even to quote in a message
        raise CatalogError("catalog: nested too deeply to be a catalog") from None


def _parse_catalog(obj: Any, name: str) -> Catalog:
    if isinstance(obj, Mapping) and "segments" in obj:
        try:
            check_name(name, "catalog", "walker name")
        except CatalogError as exc:
            raise CatalogError(
                f"{exc}; a bare gait's walker is named after its file, so rename the file"
            ) from None
        return Catalog([Entry(name, parse_gait(obj, name))], bare=True)
    if not isinstance(obj, Mapping):
        raise CatalogError(
            f"catalog: must be a gait object or an object of walkers, got {type(obj).__name__}"
        )
    if not obj:
        raise CatalogError("catalog: is empty; add at least one walker")
    for k in obj:
        check_name(k, "catalog", "walker name")
    return Catalog([_parse_entry(k, v) for k, v in obj.items()])


class _ConstantError(ValueError):
    pass


def _reject_constant(token: str) -> float:
    raise _ConstantError(f"{token} is not a number JSON allows")


# A JSON string, or a NaN / Infinity literal outside strings (the decoder meets them in order).
_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)', re.DOTALL)


def _constant_position(text: str) -> str:
    """' at line L, column C' of the first NaN / Infinity literal, as json reports syntax errors."""
    for m in _CONSTANT.finditer(text):
        if m.group(1):
            pos = m.start(1)
            line, column = text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)
            return f" at line {line}, column {column}"
    return ""


class _DuplicateKey(ValueError):
    pass


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """object_pairs_hook: a dict, or _DuplicateKey when a key repeats (json keeps the last)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _DuplicateKey()
    return obj


def _line_column(text: str, pos: int) -> str:
    return f"line {text.count(chr(10), 0, pos) + 1}, column {pos - text.rfind(chr(10), 0, pos)}"


def _find_duplicate(text: str) -> tuple[tuple, str, int, int] | None:
    """(path, key, first position, repeat position) of the first key given twice, by a
    position-keeping walk over JSON text that json has already found well-formed up to it."""
    from json.decoder import WHITESPACE, scanstring

    scalar = json.JSONDecoder(parse_constant=float)

    def ws(pos: int) -> int:
        return WHITESPACE.match(text, pos).end()

    def value(pos: int, path: tuple):
        pos = ws(pos)
        if text.startswith("{", pos):
            seen: dict[str, int] = {}
            pos = ws(pos + 1)
            if text.startswith("}", pos):
                return pos + 1
            while True:
                start = pos
                key, pos = scanstring(text, pos + 1)
                if key in seen:
                    raise _Found((path, key, seen[key], start))
                seen[key] = start
                pos = value(ws(pos) + 1, (*path, key))  # past the ':'
                pos = ws(pos)
                if text.startswith("}", pos):
                    return pos + 1
                pos = ws(pos + 1)  # past the ','
        if text.startswith("[", pos):
            pos = ws(pos + 1)
            if text.startswith("]", pos):
                return pos + 1
            i = 0
            while True:
                pos = ws(value(pos, (*path, i)))
                if text.startswith("]", pos):
                    return pos + 1
                pos, i = pos + 1, i + 1
        return scalar.raw_decode(text, pos)[1]

    class _Found(Exception):
        pass

    try:
        value(0, ())
    except _Found as found:
        return found.args[0]
    except (ValueError, RecursionError, IndexError):
        pass
    return None


def _duplicate_message(text: str, label: str) -> str:
    found = _find_duplicate(text)
    if found is None:  # not located (e.g. nested too deeply to walk): say what is known
        return f"{label}: a key is given twice in one object; JSON keeps only the last, so keep one"
    path, key, first, again = found
    places = f"{_line_column(text, first)} and {_line_column(text, again)}"
    if not path and key not in _GAIT_FIELDS and key not in GAIT_EXTRA_KEYS:
        return (
            f"{label}: walker {key!r} is given twice at the top level ({places}); a JSON reader "
            "keeps only the last, so rename or remove one"
        )
    place = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    place = place or "catalog"
    return (
        f"{label}: {place}: key {key!r} is given twice ({places}); a JSON reader keeps only "
        "the last, so remove one"
    )


_FILE_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _file_kind(mode: int) -> str:
    return next((what for test, what in _FILE_KINDS if test(mode)), "not a regular file")


def read_regular_file(path: str | os.PathLike, what: str = "file") -> bytes:
    """The bytes of a regular file of at most MAX_CATALOG_BYTES; a CatalogError for a
    folder, pipe, device or larger file, checked before anything is read."""
    label = str(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise CatalogError(f"{label}: no such file; check the path") from None
    except (OSError, ValueError) as exc:
        raise CatalogError(f"{label}: cannot read it ({exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise CatalogError(
            f"{label}: cannot read it: it is {_file_kind(st.st_mode)}, not a regular file; "
            f"give a {what}"
        )
    if st.st_size > MAX_CATALOG_BYTES:
        raise CatalogError(
            f"{label}: is {st.st_size} bytes, over the {MAX_CATALOG_BYTES // 2**20} MiB limit "
            f"for a {what}; is this the right file?"
        )
    try:  # O_NONBLOCK: a pipe swapped in since the stat must not hang the open
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise CatalogError(f"{label}: cannot read it ({exc})") from None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise CatalogError(f"{label}: cannot read it: not a regular file; give a {what}")
        try:
            data = fh.read(MAX_CATALOG_BYTES + 1)
        except OSError as exc:
            raise CatalogError(f"{label}: cannot read it ({exc})") from None
    if len(data) > MAX_CATALOG_BYTES:
        raise CatalogError(
            f"{label}: is over the {MAX_CATALOG_BYTES // 2**20} MiB limit for a {what}"
        )
    return data


def load_catalog(path: str | os.PathLike | None = None) -> Catalog:
    """Load and validate a catalog; the built-in one when ``path`` is None.

    Only a regular file of at most MAX_CATALOG_BYTES is read (a folder, pipe or device is
    refused before reading)."""
    if path is None:
        text = resources.files("gaitsim").joinpath("data/catalog.json").read_text("utf-8")
        label = "built-in catalog"
        stem = "walker"
    else:
        p = Path(path)
        label = str(p)
        stem = p.stem
        data = read_regular_file(p, "catalog JSON file")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CatalogError(f"{label}: cannot read it ({exc})") from None
    return loads_catalog(text, label=label, name=stem)


def catalog_sha256(catalog: Catalog) -> str:
    """A hash of the catalog's content as gaitsim saves it (equal catalogs, equal hashes)."""
    return hashlib.sha256(dumps_catalog(catalog).encode("utf-8")).hexdigest()


def loads_catalog(text: str, *, label: str = "catalog", name: str = "walker") -> Catalog:
    """Parse catalog JSON text; syntax errors carry the line and column, and a key given
    twice in one object (which JSON readers silently drop) is refused with both places."""
    try:
        obj = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_pairs)
    except _DuplicateKey:
        raise CatalogError(_duplicate_message(text, label)) from None
    except json.JSONDecodeError as exc:
        raise CatalogError(
            f"{label}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except _ConstantError as exc:  # NaN / Infinity literals
        raise CatalogError(
            f"{label}: invalid JSON{_constant_position(text)}: {exc}; write a finite number"
        ) from None
    except ValueError as exc:  # e.g. an integer literal over Python's digit limit
        raise CatalogError(f"{label}: {exc}") from None
    except RecursionError:
        raise CatalogError(f"{label}: nested too deeply to be a catalog") from None
    return parse_catalog(obj, name)


# ---------------------------------------------------------------------------- saving


def _num(v: float) -> float | int:
    return int(v) if float(v).is_integer() and abs(v) < 2**53 else v


def _vec_out(v: tuple[float, float, float]) -> list[float | int]:
    return [_num(c) for c in rep103_to_gaitkit(v)]


def leg_to_dict(leg: Leg) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": leg.name,
        "side": leg.side,
        "phase": _num(leg.phase),
        "knee": leg.knee,
        "upper": _num(leg.upper),
        "lower": _num(leg.lower),
        "home": _vec_out(leg.home),
    }
    if leg.hip is not None:
        out["hip"] = _vec_out(leg.hip)
    if leg.foot is not None:
        out["foot"] = foot_to_dict(leg.foot)
    out.update(leg.extra)
    return out


def gait_to_dict(gait: Gait) -> dict[str, Any]:
    out: dict[str, Any] = {
        "stride": _num(gait.stride),
        "duty": _num(gait.duty),
        "lift": _num(gait.lift),
        "clip_speed": _num(gait.clip_speed),
    }
    for key in ("hip_height", "foot_radius", "bob", "mass"):
        v = getattr(gait, key)
        if v is not None:
            out[key] = _num(v)
    if gait.body is not None:
        out["body"] = [_num(c) for c in gait.body]
    if gait.upper_body is not None:
        out["upper_body"] = upper_body_to_dict(gait.upper_body)
    out.update(gait.extra)
    out["segments"] = [leg_to_dict(leg) for leg in gait.legs]
    return out


def entry_to_dict(entry: Entry) -> dict[str, Any]:
    out: dict[str, Any] = {"gait": gait_to_dict(entry.gait)}
    if entry.walk_test is not None:
        out["walk_test"] = dict(entry.walk_test)
    out.update(entry.extra)
    return out


def catalog_to_dict(catalog: Catalog) -> dict[str, Any]:
    if catalog.bare and len(catalog) == 1:
        return gait_to_dict(next(iter(catalog.values())).gait)
    return {name: entry_to_dict(e) for name, e in catalog.items()}


def dumps_catalog(catalog: Catalog) -> str:
    return json.dumps(catalog_to_dict(catalog), indent=2, allow_nan=False) + "\n"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_IN_THE_WAY = "a file is in the way where a folder is needed; remove it or choose another path"
_NO_PERMISSION = "permission denied; write somewhere you may write, or fix the permissions"
_WRITE_HINTS = {
    errno.ENOSPC: "the disk is full; free some space or write somewhere else",
    errno.EDQUOT: "the disk quota is used up; free some space or write somewhere else",
    errno.EFBIG: "the file is too large for this file system or process limit",
    errno.EROFS: "the file system is read-only; write somewhere else",
    errno.EACCES: _NO_PERMISSION,
    errno.EPERM: _NO_PERMISSION,
    errno.ENAMETOOLONG: "a file or folder name in the path is too long; use a shorter name",
    errno.EEXIST: _IN_THE_WAY,
    errno.ENOTDIR: _IN_THE_WAY,
    errno.EISDIR: "it is a folder; name a file instead",
    errno.EIO: "an input/output error; check the disk",
}


def write_error(path: str | os.PathLike, exc: OSError) -> WriteError:
    """A WriteError naming ``path`` (and the part of it at fault) for an OSError met while
    writing it; a WriteError is returned unchanged."""
    if isinstance(exc, WriteError):
        return exc
    reason = (exc.strerror or str(exc)).strip().split("\n")[0][:200] or type(exc).__name__
    if exc.filename is not None and str(exc.filename) != str(path):
        reason = f"{exc.filename}: {reason}"
    hint = _WRITE_HINTS.get(exc.errno, "check the path and the disk")
    err = WriteError(f"{path}: cannot write it ({reason}); {hint}")
    err.errno, err.filename = exc.errno, str(path)
    return err


def _write_target(path: Path) -> Path:
    """The file a write to ``path`` should replace: a symlink's target (written through, so
    the link stays a link), otherwise ``path`` itself."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable; best effort (some file systems refuse it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, suffix: str = ".tmp", *, min_size: int = 0):
    """Yield a temporary path in ``path``'s folder; on success the file is fsynced, checked
    to hold at least ``min_size`` bytes and renamed over ``path`` (through a symlink, to
    its target). On any failure the temporary file is removed, ``path`` is left as it was
    (no half-written file), and an OSError becomes a :class:`WriteError` naming ``path``."""
    path = Path(path)
    try:
        target = _write_target(path)
        folder = target.parent
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:80]}.", suffix=suffix, dir=folder)
        os.close(fd)
    except OSError as exc:
        raise write_error(path, exc) from exc
    try:
        yield Path(tmp)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size < min_size:
            raise WriteError(
                f"{path}: cannot write it (the writer left {size} bytes, expected at least "
                f"{min_size}); check the disk"
            )
        try:  # keep an existing file's permissions; a new file gets the usual mode
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except OSError:
            mode = 0o666 & ~_umask()  # mkstemp makes 0600
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise write_error(path, exc) from exc
        raise
    _fsync_folder(folder)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write data to path via a temporary file in its folder, flushed, fsynced and checked
    for size, then renamed over it: no half-written file survives, and a failure raises a
    :class:`WriteError` naming the path."""
    data = bytes(data)
    with atomic_output(path) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_TRUNC)
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                if written <= 0:
                    raise OSError(errno.EIO, "the disk took no bytes")
                view = view[written:]
            os.fsync(fd)
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size != len(data):
            raise WriteError(
                f"{path}: cannot write it (wrote {size} of {len(data)} bytes); check the disk"
            )


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """UTF-8 text through :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"))


def save_catalog(catalog: Catalog | Entry, path: str | os.PathLike) -> None:
    """Save atomically in Gaitkit format, keeping every unknown key."""
    if isinstance(catalog, Entry):
        catalog = Catalog([catalog])
    atomic_write_text(path, dumps_catalog(catalog))


# ---------------------------------------------------------------------------- derived data


def _walk_sequence(gait: Gait) -> str:
    """A four-beat gait on a fore and a hind leg a side, named by its footfall order:
    ``walk (lateral sequence)`` when the next foot down after a hind foot is the fore foot
    of its own side (most mammals, the fox), ``walk (diagonal sequence)`` when it is the
    other side's (primates), and a gallop when the two hind feet land one after the other
    (and so do the fore feet): ``gallop (rotary)`` when the order runs round the body
    (left hind, right hind, right fore, left fore), ``gallop (transverse)`` when it
    crosses it (left hind, right hind, left fore, right fore). Plain ``walk`` unless each
    side has one fore (the one further forward) and one hind leg. A leg lands when its
    place frac(d / cycle + phase) wraps to 0, so a leg whose phase is larger by x lands x
    of a cycle earlier: the phases are not the landing times (a walk written as if they
    were comes out in the other sequence)."""
    left = [leg for leg in gait.legs if leg.side == "L"]
    right = [leg for leg in gait.legs if leg.side == "R"]
    if len(left) != 2 or len(right) != 2:
        return "walk"
    lh, lf = sorted(left, key=lambda leg: leg.home[0])
    rh, rf = sorted(right, key=lambda leg: leg.home[0])
    # the footfalls from the left hind on: each leg by how much of a cycle later it lands
    order = sorted((lf, rh, rf), key=lambda leg: (lh.phase - leg.phase) % 1.0)
    names = {(lf, rh, rf): "walk (lateral sequence)", (rf, rh, lf): "walk (diagonal sequence)",
             (rh, rf, lf): "gallop (rotary)", (lf, rf, rh): "gallop (rotary)",
             (rh, lf, rf): "gallop (transverse)", (rf, lf, rh): "gallop (transverse)"}  # fmt: skip
    return names[tuple(order)]


def leg_array(gait: Gait, attr: str) -> np.ndarray:
    """Stack a per-leg attribute into an array shaped (legs,) or (legs, 3)."""
    return np.array([getattr(leg, attr) for leg in gait.legs], dtype=float)


def gait_pattern(gait: Gait) -> str:
    """Name the footfall pattern from the phases: biped, walk, trot, pace, bound, tripod,
    tetrapod, wave; every leg at one phase, ``hop`` (one or two legs) or ``pronk`` (more).
    A four-beat gait on a fore and a hind leg a side is named by its footfall order:
    ``walk (lateral sequence)``, ``walk (diagonal sequence)``, ``gallop (rotary)`` or
    ``gallop (transverse)`` (``_walk_sequence``)."""
    n = gait.n_legs
    groups: dict[float, list[Leg]] = {}
    for leg in gait.legs:
        groups.setdefault(round(leg.phase, 6), []).append(leg)
    if len(groups) == 1:  # every foot lands and lifts together (one leg: it must hop)
        return "hop" if n <= 2 else "pronk"
    if n == 2:
        return "biped"
    if n == 4 and len(groups) == 2:
        pairs = list(groups.values())
        if all(len(g) == 2 for g in pairs):
            a, b = pairs[0]
            same_side = a.side == b.side
            same_end = (a.home[0] > 0) == (b.home[0] > 0)
            if not same_side and not same_end:
                return "trot"
            if same_side:
                return "pace"
            return "bound"
    if n == 4 and len(groups) == 4:
        return _walk_sequence(gait)
    if n == 6 and len(groups) == 2 and all(len(g) == 3 for g in groups.values()):
        return "tripod"
    if n == 6 and len(groups) == 3 and all(len(g) == 2 for g in groups.values()):
        return "tetrapod"  # three pairs, four feet down while one pair swings
    if n >= 6 and len(groups) > 2:
        return "wave"
    return f"{len(groups)}-group"
