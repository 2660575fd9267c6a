"""The walk test (Gaitkit's validator) and its extended variants, plus baked clips.

The walk test walks a walker straight ahead on flat ground for two full cycles, samples
120 poses per cycle, and reports the largest world-frame movement of any foot that is in
stance at two consecutive samples, in millimetres; above 1 mm the walker fails. gaitsim
runs the same measure on a 0.5 m-radius arc, a turn in place, a 10 degree slope and rough
ground, in the planted mode (expected ~0 mm everywhere) and in the seed's body-frame mode
(where tight turns make planted feet slide).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .catalog import MIN_LENGTH, Entry
from .geometry import geometry
from .path import Arc, Straight, TurnInPlace
from .terrain import Flat, Rough, Slope
from .walker import Walker

SLIDE_LIMIT_MM = 1.0
CYCLES = 2
SAMPLES_PER_CYCLE = 120


def turn_radius(entry: Entry) -> float:
    """Gait-distance radius for turning in place: the mean horizontal distance of the homes
    from the body's origin (``geometry.body_origin``), or half the body's length where
    that is under the catalog's smallest length (``catalog.MIN_LENGTH``, 1 mm: one leg, or
    every leg at one home, centred under the body; a radius of 1e-315 m, left by centring
    the body over homes 1e-299 m off its origin, overflowed the turn's angle to inf)."""
    geo = geometry(entry.gait)
    r = float(np.mean(np.hypot(geo.homes[:, 0], geo.homes[:, 1])))
    return r if r >= MIN_LENGTH else 0.5 * geo.body[0]


@dataclass(frozen=True)
class Variant:
    """One walk-test condition: a terrain and a path for a given walker."""

    name: str
    terrain: Callable[[Entry], object]
    path: Callable[[Entry], object]


VARIANTS: tuple[Variant, ...] = (
    Variant("straight", lambda e: Flat(), lambda e: Straight()),
    Variant("arc_0.5m", lambda e: Flat(), lambda e: Arc(0.5)),
    Variant("turn_in_place", lambda e: Flat(), lambda e: TurnInPlace(turn_radius(e))),
    Variant("slope_10deg", lambda e: Slope.from_degrees(10.0), lambda e: Straight()),
    Variant("rough_2cm", lambda e: Rough(0.02, wavelength=0.5, seed=7), lambda e: Straight()),
)


def stance_slide_mm(walker: Walker, cycles: int = CYCLES, samples: int = SAMPLES_PER_CYCLE):
    """Largest stance-foot world movement between consecutive samples (mm), and max shortfall."""
    d = np.arange(cycles * samples + 1) * (walker.cycle / samples)
    pose = walker.pose_at(d)
    both = pose.stance[1:] & pose.stance[:-1]
    moved = np.linalg.norm(np.diff(pose.feet, axis=0), axis=-1)
    slide = float(np.max(np.where(both, moved, 0.0))) * 1000.0
    return slide, float(pose.max_shortfall.max())


def walk_test(entry: Entry, *, mode: str = "planted", speed_scale: float = 1.0) -> float:
    """The seed's walk test: straight, flat, two cycles, 120 samples per cycle (mm)."""
    return stance_slide_mm(Walker(entry, speed_scale=speed_scale, mode=mode))[0]


def validate_entry(entry: Entry, *, mode: str = "planted", speed_scale: float = 1.0) -> dict:
    """Every variant's stance-foot slide (mm) and reach shortfall (m) for one walker.

    A walker passes when no variant slides more than 1 mm and every foot is reachable on
    straight flat ground (shortfall 0).
    """
    slides, shorts = {}, {}
    for v in VARIANTS:
        w = Walker(entry, v.terrain(entry), v.path(entry), speed_scale, mode=mode)
        slides[v.name], shorts[v.name] = stance_slide_mm(w)
    return {
        "walker": entry.name,
        "mode": mode,
        "pass": all(s <= SLIDE_LIMIT_MM for s in slides.values()) and shorts["straight"] == 0,
        "foot_slide_mm": slides,
        "max_shortfall_m": shorts,
        "limit_mm": SLIDE_LIMIT_MM,
    }


# ---------------------------------------------------------------------------- clips


def bake_clip(entry: Entry, samples: int = SAMPLES_PER_CYCLE, speed_scale: float = 1.0) -> dict:
    """One flat, straight gait cycle of joint angles for engines without terrain-following feet.

    Play it back at a rate of ``speed / clip_speed`` (clip seconds per real second) when the
    body moves at ``speed`` m/s: at ``clip_speed`` one cycle lasts ``cycle / clip_speed`` s.
    """
    from .urdf import joint_names

    if samples < 2:
        raise ValueError(f"a clip needs at least 2 samples, got {samples}")
    w = Walker(entry, speed_scale=speed_scale)
    phase = np.arange(samples) / samples
    pose = w.pose_at(phase * w.cycle)
    L = entry.gait.n_legs
    return {
        "walker": entry.name,
        "joint_names": joint_names(entry.gait),
        "phase": phase,
        "distance_m": phase * w.cycle,
        "time_s": phase * w.cycle / w.nominal_speed,
        "joints_rad": pose.joints.reshape(samples, L * 3),
        "body_z_m": pose.body_position[:, 2],
        "cycle_m": w.cycle,
        "clip_speed": w.nominal_speed,
        "duration_s": w.cycle / w.nominal_speed,
        "playback": "clip time advances at speed / clip_speed per real second",
    }


def _clip_meta(clip: dict) -> dict:
    return {
        k: clip[k]
        for k in ("walker", "cycle_m", "clip_speed", "duration_s", "playback", "joint_names")
    }


def clip_to_csv(clip: dict) -> str:
    meta = _clip_meta(clip)
    lines = [f"# {k}: {v}" for k, v in meta.items() if k != "joint_names"]
    header = ["phase", "distance_m", "time_s", "body_z_m", *clip["joint_names"]]
    lines.append(",".join(header))
    cols = np.column_stack(
        [clip["phase"], clip["distance_m"], clip["time_s"], clip["body_z_m"], clip["joints_rad"]]
    )
    lines.extend(",".join(format(x, ".9g") for x in row) for row in cols)
    return "\n".join(lines) + "\n"


def clip_to_json(clip: dict) -> dict:
    out = _clip_meta(clip)
    out["frames"] = [
        {
            "phase": float(p),
            "distance_m": float(d),
            "time_s": float(t),
            "body_z_m": float(z),
            "joints_rad": [float(x) for x in row],
        }
        for p, d, t, z, row in zip(
            clip["phase"],
            clip["distance_m"],
            clip["time_s"],
            clip["body_z_m"],
            clip["joints_rad"],
            strict=True,
        )
    ]
    return out
