"""Distance-driven gait phase, stance/swing and body-frame foot targets (pure numpy).

A pose is a function of the distance travelled, never of time: one gait cycle covers
``stride * speed_scale / duty`` metres, a leg's place in its cycle is
``frac(distance / cycle + phase)``, the first ``duty`` of the cycle is stance (the foot
slides back one stride in the body frame, exactly as fast as the body moves on) and the rest
is swing (the foot eases forward one stride on a smoothstep and lifts on an arc).
"""

from __future__ import annotations

import numpy as np

from .catalog import Gait, leg_array

SWING_PROFILES = ("sine", "clearance")
# Stance sub-phases (the second seed's step split: contact 12 %, loading 18 %, mid-stance
# 15 %, push-off 15 % of a step whose stance share is 60 %), as shares of stance.
STANCE_PHASES = ("contact", "loading", "mid-stance", "push-off", "swing")
STANCE_PHASE_BOUNDS = (0.12 / 0.6, 0.30 / 0.6, 0.45 / 0.6)
CLEARANCE_RISE = 0.15  # the clearance arc reaches its floor in this share of the swing
CLEARANCE_DROP = 0.15  # ... and drops to the ground only in this last share
CLEARANCE_FLOOR = 0.6  # the floor, as a share of the lift, at the gait's own step rate
CYCLE_SAMPLES = 720  # even points of a gait cycle at which ``feet_down`` tables it


def smoothstep(t):
    """3t^2 - 2t^3: eases in and out with zero slope at 0 and 1."""
    t = np.asarray(t, dtype=float)
    return t * t * (3.0 - 2.0 * t)


def smooth01(u: float) -> float:
    """``smoothstep`` for one plain float, clamped to [0, 1] first: the control loop's
    version (numpy's per-call cost on one number is larger than the arithmetic)."""
    u = 0.0 if u < 0.0 else (1.0 if u > 1.0 else u)
    return u * u * (3.0 - 2.0 * u)


def cycle_length(gait: Gait, speed_scale: float = 1.0) -> float:
    """Metres per full gait cycle at this speed scale (the stride scales, the duty does not)."""
    return gait.stride * speed_scale / gait.duty


def cycle_position(gait: Gait, distance, speed_scale: float = 1.0) -> np.ndarray:
    """Each leg's place in its cycle, in [0, 1): shape ``distance.shape + (legs,)``."""
    d = np.asarray(distance, dtype=float)
    x = (d / cycle_length(gait, speed_scale))[..., None] + leg_array(gait, "phase")
    t = x - np.floor(x)
    # floor can leave exactly 1.0 after rounding of tiny negatives; 1.0 is the same place as 0
    return np.where(t >= 1.0, 0.0, t)


def in_stance(gait: Gait, t) -> np.ndarray:
    """True where a cycle position is in stance."""
    return np.asarray(t) < gait.duty


def feet_down(phases, duty: float, samples: int = CYCLE_SAMPLES) -> np.ndarray:
    """Which feet are down (samples, legs) at ``samples`` even points of a gait cycle: leg
    at cycle ``phase`` down for the first ``duty`` of its cycle."""
    u = np.arange(samples) / samples
    return np.stack([((u + phase) % 1.0) < duty for phase in phases], axis=1)


def stance_progress(gait: Gait, t) -> np.ndarray:
    """0 at touchdown to 1 at liftoff (meaningful in stance)."""
    return np.asarray(t) / gait.duty


def swing_progress(gait: Gait, t) -> np.ndarray:
    """0 at liftoff to 1 at touchdown (meaningful in swing)."""
    return (np.asarray(t) - gait.duty) / (1.0 - gait.duty)


def clearance_floor(rate_ratio: float = 1.0) -> float:
    """The clearance arc's minimum height (share of the lift) at a step rate ``rate_ratio``
    times the gait's own: the second seed's rule, a floor that grows as stepping slows,
    ``CLEARANCE_FLOOR * clamp(1 / rate_ratio, 0.5, 2)``, at most the full lift."""
    if not rate_ratio > 0:
        raise ValueError(f"rate_ratio must be positive, got {rate_ratio!r}")
    return min(CLEARANCE_FLOOR * min(max(1.0 / rate_ratio, 0.5), 2.0), 1.0)


def swing_height(u, profile: str = "sine", floor: float | None = None) -> np.ndarray:
    """Swing height as a share of the lift, for swing progress ``u`` in [0, 1].

    ``sine`` is the seed's arc, ``sin(pi * smoothstep(u))``. ``clearance`` is the same arc
    held at least at ``floor`` (default ``clearance_floor()``) from 15 % to 85 % of the
    swing, rising to it and dropping from it on smoothsteps over the first and last 15 %:
    the second seed's arc correction, made continuous so a simulated foot never jumps.
    """
    u = np.asarray(u, dtype=float)
    arc = np.sin(np.pi * smoothstep(u))
    if profile == "sine":
        return arc
    if profile == "clearance":
        f = clearance_floor() if floor is None else float(floor)
        rise = smoothstep(np.clip(u / CLEARANCE_RISE, 0.0, 1.0))
        drop = smoothstep(np.clip((1.0 - u) / CLEARANCE_DROP, 0.0, 1.0))
        return np.maximum(arc, f * rise * drop)
    raise ValueError(f"swing profile must be one of {', '.join(SWING_PROFILES)}, got {profile!r}")


def swing_time_below(clearance: float, lift: float, profile: str = "sine", samples: int = 10001):
    """Share of swing time a foot spends below ``clearance`` metres (lift ``lift`` metres)."""
    u = np.linspace(0.0, 1.0, samples)
    return float(np.mean(swing_height(u, profile) * lift < clearance))


def foot_targets(gait: Gait, distance, speed_scale: float = 1.0, swing: str = "sine"):
    """Body-frame foot targets on flat ground, shape ``distance.shape + (legs, 3)``.

    REP-103, catalog frame (origin on the foot plane). With the default sine swing this is
    the seed's footTarget exactly: stance ``home + stride * (0.5 - s)`` along x, swing
    ``home + stride * (smooth(u) - 0.5)`` along x lifted by ``lift * sin(pi * smooth(u))``.
    (The seed drops the home's height; gaitsim keeps it, identical for the usual home z = 0.)
    """
    t = cycle_position(gait, distance, speed_scale)
    stride = gait.stride * speed_scale
    stance = t < gait.duty
    sig = smoothstep(np.clip(swing_progress(gait, t), 0.0, 1.0))
    slide = np.where(stance, 0.5 - t / gait.duty, sig - 0.5)
    home = leg_array(gait, "home")
    if swing == "sine":
        arc = np.sin(np.pi * sig)
    else:
        arc = swing_height(np.clip(swing_progress(gait, t), 0.0, 1.0), swing)
    out = np.empty((*t.shape, 3))
    out[..., 0] = home[:, 0] + stride * slide
    out[..., 1] = home[:, 1]
    out[..., 2] = home[:, 2] + np.where(stance, 0.0, gait.lift * arc)
    return out


def stance_phase_labels(gait: Gait, distance, speed_scale: float = 1.0) -> np.ndarray:
    """Sub-phase index per leg (into STANCE_PHASES), shape ``distance.shape + (legs,)``."""
    t = cycle_position(gait, distance, speed_scale)
    s = t / gait.duty
    labels = np.searchsorted(np.array(STANCE_PHASE_BOUNDS), s, side="right")
    return np.where(t < gait.duty, labels, len(STANCE_PHASES) - 1)
