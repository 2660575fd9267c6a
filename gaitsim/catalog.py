"""Gaitkit-format catalogs: load, validate and save walkers.

On disk a catalog uses Gaitkit's three.js body frame (x left, y up, z forward). Inside
gaitsim every vector is REP-103 (x forward, y left, z up); the conversion is a pure axis
permutation done here and nowhere else, so a load/save round trip is exact.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
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
}
SEGMENT_EXTRA_KEYS = {
    "hip": "hip mount point in the Gaitkit body frame (x left, y up, z forward), metres",
}

_GAIT_FIELDS = ("stride", "duty", "lift", "clip_speed", "segments")
_SEGMENT_FIELDS = ("name", "side", "phase", "knee", "upper", "lower", "home")


class CatalogError(ValueError):
    """A catalog is malformed; the message names the place and how to fix it."""


def gaitkit_to_rep103(v: Any) -> tuple[float, float, float]:
    """Gaitkit (x left, y up, z forward) -> REP-103 (x forward, y left, z up)."""
    x, y, z = v
    return (z, x, y)


def rep103_to_gaitkit(v: Any) -> tuple[float, float, float]:
    """REP-103 (x forward, y left, z up) -> Gaitkit (x left, y up, z forward)."""
    x, y, z = v
    return (y, z, x)


def _freeze(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping or {}))


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
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), hash=False)

    @property
    def reach(self) -> float:
        return self.upper + self.lower

    @property
    def side_sign(self) -> float:
        """+1 for a left leg (y > 0 in REP-103), -1 for a right leg."""
        return 1.0 if self.side == "L" else -1.0


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
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), hash=False)

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
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), hash=False)


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
        out.append(f)
    return gaitkit_to_rep103(out)


def _parse_leg(obj: Any, where: str) -> Leg:
    if not isinstance(obj, Mapping):
        raise _fail(where, f"must be an object with {', '.join(_SEGMENT_FIELDS)}, got {obj!r}")
    for key, what in (("name", "a leg name"), ("side", "'L' or 'R'"), ("knee", "up|forward|back")):
        if key not in obj:
            raise _fail(f"{where}.{key}", f"missing; add {what}")
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        raise _fail(f"{where}.name", f"must be a non-empty string, got {name!r}")
    side = obj.get("side")
    if side not in SIDES:
        raise _fail(f"{where}.side", f"must be 'L' or 'R', got {side!r}")
    phase = _number(obj, "phase", where, "a number in [0, 1)")
    if not 0.0 <= phase < 1.0:
        raise _fail(f"{where}.phase", f"must be in [0, 1), got {phase!r}")
    knee = obj.get("knee")
    if knee not in KNEES:
        raise _fail(f"{where}.knee", f"must be one of up, forward, back, got {knee!r}")
    upper = _positive(obj, "upper", where, "a positive number of metres")
    lower = _positive(obj, "lower", where, "a positive number of metres")
    home = _vector(obj, "home", where)
    side_sign = 1.0 if side == "L" else -1.0
    if home[1] * side_sign <= 0:
        want = "x > 0 (left)" if side == "L" else "x < 0 (right)"
        raise _fail(
            f"{where}.home",
            f"side is {side!r} but home x is {rep103_to_gaitkit(home)[0]!r}; "
            f"a {side} foot needs Gaitkit {want}, or fix 'side'",
        )
    hip = _vector(obj, "hip", where) if "hip" in obj else None
    if hip is not None and hip[1] * side_sign < 0:
        raise _fail(f"{where}.hip", f"lies on the wrong side of the body for side {side!r}")
    extra = {k: v for k, v in obj.items() if k not in _SEGMENT_FIELDS and k != "hip"}
    return Leg(name, side, phase, knee, upper, lower, home, hip, _freeze(extra))


def parse_gait(obj: Any, where: str = "gait") -> Gait:
    """Validate a Gaitkit gait object and return a :class:`Gait` (REP-103 inside)."""
    if not isinstance(obj, Mapping):
        raise _fail(where, f"must be an object with {', '.join(_GAIT_FIELDS)}, got {obj!r}")
    stride = _positive(obj, "stride", where, "a positive number of metres")
    duty = _number(obj, "duty", where, "a number strictly between 0 and 1")
    if not 0.0 < duty < 1.0:
        raise _fail(f"{where}.duty", f"must be strictly between 0 and 1, got {duty!r}")
    lift = _number(obj, "lift", where, "a number of metres >= 0")
    if lift < 0:
        raise _fail(f"{where}.lift", f"must be >= 0 metres, got {lift!r}")
    clip_speed = _positive(obj, "clip_speed", where, "a positive speed in m/s")
    if "segments" not in obj:
        raise _fail(f"{where}.segments", "missing; add a list of leg objects")
    segs = obj.get("segments")
    if not isinstance(segs, list):
        raise _fail(f"{where}.segments", f"must be a list of leg objects, got {segs!r}")
    if not segs:
        raise _fail(f"{where}.segments", "is empty; a walker needs at least one leg")
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
    opt: dict[str, Any] = {}
    for key in ("hip_height", "foot_radius", "mass"):
        if key in obj:
            opt[key] = _positive(obj, key, where, "a positive number")
    if "bob" in obj:
        opt["bob"] = _number(obj, "bob", where, "a number of metres >= 0")
        if opt["bob"] < 0:
            raise _fail(f"{where}.bob", f"must be >= 0 metres, got {opt['bob']!r}")
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
        opt["body"] = tuple(float(c) for c in b)
    extra = {k: v for k, v in obj.items() if k not in _GAIT_FIELDS and k not in GAIT_EXTRA_KEYS}
    return Gait(stride, duty, lift, clip_speed, legs, extra=_freeze(extra), **opt)


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
        _number(wt, "foot_slide_mm", f"{name}.walk_test", "a number of millimetres")
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
        return Catalog([Entry(name, parse_gait(obj, name))], bare=True)
    if not isinstance(obj, Mapping):
        raise CatalogError(
            f"catalog: must be a gait object or an object of walkers, got {type(obj).__name__}"
        )
    if not obj:
        raise CatalogError("catalog: is empty; add at least one walker")
    return Catalog([_parse_entry(str(k), v) for k, v in obj.items()])


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


def load_catalog(path: str | os.PathLike | None = None) -> Catalog:
    """Load and validate a catalog; the built-in one when ``path`` is None."""
    if path is None:
        text = resources.files("gaitsim").joinpath("data/catalog.json").read_text("utf-8")
        label = "built-in catalog"
        stem = "walker"
    else:
        p = Path(path)
        label = str(p)
        stem = p.stem
        try:
            text = p.read_text("utf-8")
        except FileNotFoundError:
            raise CatalogError(f"{label}: no such file; check the path") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise CatalogError(f"{label}: cannot read it ({exc})") from None
    return loads_catalog(text, label=label, name=stem)


def loads_catalog(text: str, *, label: str = "catalog", name: str = "walker") -> Catalog:
    """Parse catalog JSON text; syntax errors carry the line and column."""
    try:
        obj = json.loads(text, parse_constant=_reject_constant)
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


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, suffix: str = ".tmp"):
    """Yield a temporary path beside ``path``; on success it replaces ``path``, on any
    failure it is removed and ``path`` is left as it was (no half-written file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give files the usual mode
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write data to path via a temporary file and rename: no half-written file survives."""
    with atomic_output(path) as tmp, open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """UTF-8 text through :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"))


def save_catalog(catalog: Catalog | Entry, path: str | os.PathLike) -> None:
    """Save atomically in Gaitkit format, keeping every unknown key."""
    if isinstance(catalog, Entry):
        catalog = Catalog([catalog])
    atomic_write_text(path, dumps_catalog(catalog))


# ---------------------------------------------------------------------------- derived data


def leg_array(gait: Gait, attr: str) -> np.ndarray:
    """Stack a per-leg attribute into an array shaped (legs,) or (legs, 3)."""
    return np.array([getattr(leg, attr) for leg in gait.legs], dtype=float)


def gait_pattern(gait: Gait) -> str:
    """Name the footfall pattern from the phases: biped, walk, trot, pace, bound, tripod, wave."""
    n = gait.n_legs
    groups: dict[float, list[Leg]] = {}
    for leg in gait.legs:
        groups.setdefault(round(leg.phase, 6), []).append(leg)
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
        return "walk"
    if n == 6 and len(groups) == 2 and all(len(g) == 3 for g in groups.values()):
        return "tripod"
    if n >= 6 and len(groups) > 2:
        return "wave"
    return f"{len(groups)}-group"
