"""Run metrics from recorded control steps: slip, reach, tracking, stability, energy.

Pure numpy on arrays recorded by the controller, so every figure can be recomputed and
tested without a simulator. Arrays are shaped (T, ...) over control steps; L is the number
of legs.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

FALL_TILT_DEG = 60.0  # a fall: roll or pitch beyond this ...
FALL_HEIGHT_FRACTION = 0.4  # ... or the body below this share of its standing height,
# ... or any part other than a foot touching the ground.
GRAVITY = 9.81


_COS_FALL = math.cos(math.radians(FALL_TILT_DEG))


def fall_reason(sensed, height: float, standing_height: float) -> str:
    """Why the walker has fallen ('' if it has not), from one Sensed reading: the body
    touches the ground, tilts beyond FALL_TILT_DEG, or sinks below FALL_HEIGHT_FRACTION of
    its standing height (``height`` is the body's height over the ground). The one fall
    rule of runs, envs and ``summarize``."""
    if sensed.body_contact:
        return "body_contact"
    x, y = sensed.quaternion[0], sensed.quaternion[1]
    if 1.0 - 2.0 * (x * x + y * y) < _COS_FALL:  # the body z axis's world z component
        return "tilt"
    if height < FALL_HEIGHT_FRACTION * standing_height:
        return "height"
    return ""


def support_margin(com_xy, feet_xy, contacts) -> float:
    """Signed distance (m) from the CoM projection to the support polygon of feet in contact.

    Positive inside the convex hull of the contact points, negative outside; with fewer
    than three contacts the polygon is a segment or a point and the margin is minus the
    distance to it (no contact at all: -inf). Only x and y of ``com_xy`` and of each foot
    are read. Plain floats: it runs every control step in the Gymnasium env, on at most a
    few feet.
    """
    cx, cy = float(com_xy[0]), float(com_xy[1])
    pts = sorted(
        {(float(p[0]), float(p[1])) for p, on in zip(feet_xy, contacts, strict=True) if on}
    )
    if not pts:
        return -math.inf
    if len(pts) == 1:
        return -math.hypot(cx - pts[0][0], cy - pts[0][1])
    hull = _hull(pts)
    if len(hull) < 3:  # collinear
        return -_distance_to_polyline((cx, cy), hull)
    d, inside = _polygon_distance(cx, cy, hull)
    return d if inside else -d


def _hull(p: list) -> list:
    """Andrew's monotone chain over sorted, distinct points; counter-clockwise, no repeat."""
    if len(p) <= 2:
        return list(p)
    lower: list = []
    for q in p:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], q) <= 0:
            lower.pop()
        lower.append(q)
    upper: list = []
    for q in reversed(p):
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], q) <= 0:
            upper.pop()
        upper.append(q)
    return lower[:-1] + upper[:-1]


def _cross(o, a, b) -> float:
    """z of (a - o) x (b - o): > 0 when o, a, b turn counter-clockwise."""
    ox, oy = o
    ax, ay = a
    bx, by = b
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


def _convex_hull(pts) -> np.ndarray:
    """The convex hull of an (n, 2) array, counter-clockwise, as an array."""
    p = sorted({(float(x), float(y)) for x, y in np.asarray(pts, float)})
    return np.array(_hull(p))


def _segment_distance(cx, cy, ax, ay, bx, by) -> float:
    abx, aby = bx - ax, by - ay
    n2 = abx * abx + aby * aby
    if n2 <= 1e-300:
        t = 0.0
    else:  # the projection clamped to the segment (min/max's answers, NaN included)
        t = ((cx - ax) * abx + (cy - ay) * aby) / n2
        t = t if t > 0.0 else 0.0
        t = t if t < 1.0 else 1.0
    return math.hypot(ax + t * abx - cx, ay + t * aby - cy)


def _distance_to_polyline(c, pts) -> float:
    cx, cy = c
    if len(pts) == 1:
        return math.hypot(cx - pts[0][0], cy - pts[0][1])
    best = math.inf
    for (ax, ay), (bx, by) in itertools.pairwise(pts):
        d = _segment_distance(cx, cy, ax, ay, bx, by)
        if d < best:
            best = d
    return best


def _polygon_distance(cx, cy, hull) -> tuple[float, bool]:
    """Distance from (cx, cy) to a counter-clockwise convex polygon's boundary, and whether
    the point lies inside (or on) it: one pass over the edges."""
    best = math.inf
    inside = True
    ax, ay = hull[-1]
    for bx, by in hull:  # edges (last, first), (first, second), ...
        if (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) < 0:  # _cross(a, b, c), unpacked
            inside = False
        d = _segment_distance(cx, cy, ax, ay, bx, by)
        if d < best:
            best = d
        ax, ay = bx, by
    return best, inside


def stance_slips(feet, contacts, *, net: bool = False) -> list[np.ndarray]:
    """Per leg, the world distance each foot moved during each contact episode (m).

    A contact episode is a run of consecutive samples in contact; its slip is the sum of the
    foot's movements between consecutive in-contact samples (the slip path), or with
    ``net=True`` the straight-line displacement from its first to its last sample.
    """
    feet = np.asarray(feet, float)
    contacts = np.asarray(contacts, bool)
    step = np.linalg.norm(np.diff(feet, axis=0), axis=-1)  # (T-1, L)
    both = contacts[1:] & contacts[:-1]
    out = []
    for leg in range(feet.shape[1]):
        c = contacts[:, leg].astype(np.int8)
        starts = np.flatnonzero(np.diff(np.r_[0, c]) == 1)
        ends = np.flatnonzero(np.diff(np.r_[c, 0]) == -1)  # inclusive end index
        moved = np.where(both[:, leg], step[:, leg], 0.0)
        csum = np.r_[0.0, np.cumsum(moved)]
        if net:
            pairs = zip(starts, ends, strict=True)
            out.append(np.array([np.linalg.norm(feet[e, leg] - feet[s, leg]) for s, e in pairs]))
        else:
            out.append(np.array([csum[e] - csum[s] for s, e in zip(starts, ends, strict=True)]))
    return out


def tilt_deg(quaternions) -> np.ndarray:
    """Angle between the body's z axis and world up (degrees), for (x, y, z, w) quaternions."""
    q = np.asarray(quaternions, float)
    x, y = q[..., 0], q[..., 1]
    zz = 1.0 - 2.0 * (x * x + y * y)  # R[2, 2]
    return np.degrees(np.arccos(np.clip(zz, -1.0, 1.0)))


def roll_pitch_deg(quaternions) -> tuple[np.ndarray, np.ndarray]:
    q = np.asarray(quaternions, float)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    roll = np.arctan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    pitch = np.arcsin(np.clip(2 * (w * y - z * x), -1.0, 1.0))
    return np.degrees(roll), np.degrees(pitch)


@dataclass
class Recorder:
    """Per-control-step arrays appended by the controller (lists until ``arrays()``)."""

    n_legs: int
    data: dict = field(default_factory=dict)

    def add(self, **row) -> None:
        for k, v in row.items():
            self.data.setdefault(k, []).append(v)

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: np.asarray(v) for k, v in self.data.items()}

    def __len__(self) -> int:
        return len(next(iter(self.data.values()), []))


def summarize(
    rec: dict[str, np.ndarray],
    *,
    mass: float,
    standing_height: float,
    commanded_speed: float,
    dt: float,
) -> dict:
    """Summary metrics of a run from recorded arrays (see ``Recorder`` keys in the controller).

    Required keys: t (T,), progress (T,) distance along the path, base_pos (T,3),
    base_quat (T,4), com (T,3), feet (T,L,3), contacts (T,L), planned_stance (T,L),
    targets (T,L,3), shortfall (T,L), torque (T,L,3), joint_vel (T,L,3), ground_z (T,),
    body_contact (T,), heading_error (T,).
    """
    t = rec["t"]
    T = len(t)
    feet, contacts = rec["feet"], rec["contacts"].astype(bool)
    tilt = tilt_deg(rec["base_quat"])
    roll, pitch = roll_pitch_deg(rec["base_quat"])
    height = rec["base_pos"][:, 2] - rec["ground_z"]
    fell_mask = (
        (tilt > FALL_TILT_DEG)
        | rec["body_contact"].astype(bool)
        | (height < FALL_HEIGHT_FRACTION * standing_height)
    )
    fell = bool(fell_mask.any())
    fall_idx = int(np.argmax(fell_mask)) if fell else T
    ok = slice(0, max(fall_idx, 1))  # metrics of the walk up to a fall
    distance = float(rec["progress"][ok][-1] - rec["progress"][0])
    duration = float(t[ok][-1] - t[0]) if T > 1 else 0.0
    slips = stance_slips(feet[ok], contacts[ok], net=True)
    all_slips = np.concatenate(slips) if slips else np.zeros(0)
    paths = stance_slips(feet[ok], contacts[ok])
    all_paths = np.concatenate(paths) if paths else np.zeros(0)
    margins = np.array(
        [
            support_margin(rec["com"][k, :2], feet[k, :, :2], contacts[k])
            for k in range(0, fall_idx if fell else T)
        ]
    )
    finite = margins[np.isfinite(margins)]
    power = np.abs(rec["torque"] * rec["joint_vel"]).sum(axis=(1, 2))
    energy = float(power[ok].sum() * dt)
    speed = distance / duration if duration > 0 else 0.0
    track = np.linalg.norm(rec["targets"] - feet, axis=-1)
    return {
        "duration_s": duration,
        "distance_m": distance,
        "speed_m_s": speed,
        "commanded_speed_m_s": commanded_speed,
        "speed_ratio": speed / commanded_speed if commanded_speed > 0 else float("nan"),
        "heading_error_deg": float(np.degrees(np.abs(rec["heading_error"][ok]).mean())),
        "slip_mm_per_stance": float(all_slips.mean() * 1000) if all_slips.size else 0.0,
        "slip_mm_per_stance_by_leg": [float(s.mean() * 1000) if s.size else 0.0 for s in slips],
        "slip_path_mm_per_stance": float(all_paths.mean() * 1000) if all_paths.size else 0.0,
        "slip_mm_per_m": float(all_slips.sum() * 1000 / distance) if distance > 0.01 else None,
        "stances": int(all_slips.size),
        "max_shortfall_m": float(rec["shortfall"][ok].max()),
        "shortfall_m_by_leg": [float(x) for x in rec["shortfall"][ok].max(axis=0)],
        "foot_tracking_error_mm": float(track[ok].mean() * 1000),
        "max_foot_tracking_error_mm": float(track[ok].max() * 1000),
        "min_support_margin_m": float(finite.min()) if finite.size else float("-inf"),
        "mean_support_margin_m": float(finite.mean()) if finite.size else float("-inf"),
        "max_roll_deg": float(np.abs(roll[ok]).max()),
        "max_pitch_deg": float(np.abs(pitch[ok]).max()),
        "contact_timing_error": float(np.mean(contacts[ok] != rec["planned_stance"][ok])),
        "cost_of_transport": energy / (mass * GRAVITY * distance) if distance > 0.01 else None,
        "fell": fell,
        "time_to_fall_s": float(t[fall_idx] - t[0]) if fell else None,
    }
