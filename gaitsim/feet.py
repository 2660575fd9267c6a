"""Soles and ankles: each leg's foot from the catalog, the sole's roll over a step, and
the ankle angles that set the sole on the ground.

A leg with a sole ends in an ankle (pitch, optionally roll below it) and a box sole. The
foot point that the gait plans, the IK reaches and the physics reports is the ankle
joint: with the sole flat it rests ``height`` above the ground, the role a sphere foot's
centre plays one radius up (``Geometry.foot_radius`` is the ankle height for soles).

Through stance the sole rolls heel to toe (the second seed's walk): it strikes with the toe
up (HEEL_STRIKE_DEG, about the heel's edge), lies flat from ROLL_BOUNDS[0] of stance,
lifts its heel from ROLL_BOUNDS[1] and leaves the ground toe last at TOE_OFF_DEG (about
the toe's edge); through swing it turns back from toe-off to heel-strike. Pitch is about
the foot's lateral axis, positive toe down (REP-103: about +y), so heel strike is negative.
The ankle joint moves as the sole rolls about an edge (``ankle_offset``), so a rolling
foot's planned point is its flat plant plus that offset.

Default soles (a leg without the ``foot`` key on a biped with hanging legs; any leg
without it when another leg has a sole): SOLE_LENGTH_SHARE of the leg (upper + lower)
long, HEEL_SHARE of it behind the ankle, WIDTH_SHARE of it wide, the ankle
ANKLE_HEIGHT_SHARE of the leg above the sole's bottom, ankle joints pitch and roll.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .catalog import SPHERE_FOOT, Gait
from .gait import STANCE_PHASE_BOUNDS, smoothstep

SOLE_LENGTH_SHARE = 1.0 / 3.0  # a default sole is this share of its leg's reach long
HEEL_SHARE = 0.25  # ... this share of its length behind the ankle
WIDTH_SHARE = 0.5  # ... and this share of its length wide (0.4 before stop 47)
ANKLE_HEIGHT_SHARE = 0.08  # the ankle sits this share of the leg above the sole's bottom
THICKNESS_SHARE = 0.5  # the sole box is this share of the ankle height thick
CORNER_SHARE = 1.0  # its corner spheres' radius, as a share of its thickness (at most a
# quarter of its width): a sphere must stay deeper than the sole sinks, or on a heightfield
# its centre passes below the triangles and their contact normals turn over (see corner_pad)
SOLE_CORNERS = 4  # a sole stands on four corner spheres (``urdf.sole_spheres``)
EDGE_SINK = 0.35  # a sole on one edge (two corners) under the heaviest load one foot
# carries sinks at most this share of its corner radius (``corner_pad``)
DEFAULT_ANKLE = "pitch_roll"  # "yaw_pitch_roll" turns the sole about the shin instead of
# turning the leg at the hip (``Sole.hip_yaw``, a two-legged walker's default): free, the
# yaw-ankled mechanic walked 12 s of flat ground from 2 of 6 start points
HEEL_STRIKE_DEG = -14.0  # the sole's pitch at touchdown (toe up)
TOE_OFF_DEG = 16.0  # ... and at lift-off (heel up)
# shares of stance: the heel strike has rolled flat by the first, the heel lifts from the
# second (the seed's contact 12 % and the start of push-off at 45 % of a 60 % stance)
ROLL_BOUNDS = (STANCE_PHASE_BOUNDS[0], STANCE_PHASE_BOUNDS[2])
SEED_STEP_SPLIT = (0.12, 0.18, 0.15, 0.15, 0.40)  # the second seed's step: contact,
# loading, mid-stance, push-off, swing (shares of a whole step; its stance is 60 %)
ANKLE_PITCH_LIMIT = 1.4  # rad: the ankle pitches at most this far either way
ANKLE_ROLL_LIMIT = 0.6  # rad: ... and rolls at most this far
ANKLE_YAW_LIMIT = 1.0  # rad: ... and turns at most this far about the shin
HIP_YAW_JOINT = "hip_yaw"  # the suffix of a leg's hip yaw joint (a sole's ``joints``)
HIP_YAW_LIMIT = 0.8  # rad: a hip yaw turns the leg at most this far either way
# A two-legged walker's legs get a hip yaw by default: without one no joint turns the body
# over a planted sole, so its heading drifts as the soles twist and it cannot follow a
# turn (the free mechanic fell on the 1.5 m arc from 6 of 6 start points, on MuJoCo on
# flat ground from 4 of 4; with it: README, "Bipeds on their own feet")


@dataclass(frozen=True)
class Sole:
    """One leg's sole and ankle (metres, from the ankle joint)."""

    heel: float  # the sole reaches this far behind the ankle
    toe: float  # ... and this far ahead of it
    width: float
    height: float  # the ankle joint over the sole's bottom
    thickness: float  # the sole box's thickness (its top is below the ankle)
    ankle: str  # "pitch", "pitch_roll" or "yaw_pitch_roll"
    hip_yaw: bool = False  # a yaw joint at the top of the leg turns the whole leg

    @property
    def length(self) -> float:
        return self.heel + self.toe

    @property
    def corner(self) -> float:
        """The radius of the spheres on the sole's four bottom corners that meet the
        ground (CORNER_SHARE of its thickness, at most a quarter of its width)."""
        return min(CORNER_SHARE * self.thickness, 0.25 * self.width)

    @property
    def joints(self) -> tuple[str, ...]:
        """The foot's joint suffixes (``<leg>_<suffix>``): the hip yaw first if the leg
        has one (it sits at the top of the leg), then the ankle's in chain order."""
        ankle = {"pitch": ("ankle_pitch",), "pitch_roll": ("ankle_pitch", "ankle_roll"),
                 "yaw_pitch_roll": ("ankle_yaw", "ankle_pitch", "ankle_roll")}[self.ankle]
        return (HIP_YAW_JOINT, *ankle) if self.hip_yaw else ankle

    @property
    def ankle_joints(self) -> tuple[str, ...]:
        """The ankle's own joint suffixes (``joints`` without the hip yaw)."""
        return tuple(j for j in self.joints if j != HIP_YAW_JOINT)

    @property
    def yaws(self) -> bool:
        """Whether the ankle turns about the shin."""
        return self.ankle == "yaw_pitch_roll"

    @property
    def turns(self) -> bool:
        """Whether the sole may face any heading (an ankle yaw or a hip yaw turns it)."""
        return self.yaws or self.hip_yaw


def corner_pad(pad: tuple[float, float], load: float, corner: float) -> tuple[float, float]:
    """Contact stiffness (N/m) and damping (N s/m) of each of a sole's corner spheres.

    ``pad`` is the foot's pad (``geometry.foot_pad``: a sink of FOOT_PAD_SINK of the ankle
    height under an even share of the weight), shared by the SOLE_CORNERS points; ``load``
    (N) is the heaviest load one foot carries (the weight over the fewest feet down);
    ``corner`` the spheres' radius. The share is stiffened where needed so that the sole on
    one edge under ``load`` sinks at most EDGE_SINK of ``corner`` (each of two corners
    carries half of it), the damping raised by the same square root so the damping ratio
    stays. A sphere pressed deeper than its radius has its centre below the ground: on a
    plane nothing changes, but on a heightfield the triangles then push it from below
    (contact normals pointing down); the free mechanic's heel strikes sank its 12 mm
    corners 24-36 mm and it fell within 2 s on rough ground and on a heightfield of zero
    height, where on the plane it walked 20 s."""
    k, d = pad[0] / SOLE_CORNERS, pad[1] / SOLE_CORNERS
    edge = 0.5 * load / (EDGE_SINK * corner)
    if edge > k:
        k, d = edge, d * math.sqrt(edge / k)
    return k, d


def wants_soles(gait: Gait) -> bool:
    """Whether the walker's legs end in soles: any leg gives a sole, or it is a biped with
    hanging legs (knee forward or back) whose feet are not "sphere"."""
    feet = [leg.foot for leg in gait.legs]
    if any(f not in (None, SPHERE_FOOT) for f in feet):
        return True
    if any(f == SPHERE_FOOT for f in feet):
        return False
    return gait.n_legs == 2 and all(leg.knee != "up" for leg in gait.legs)


def _sole(leg, two_legged: bool = False) -> Sole:
    """A leg's sole: the catalog's keys, the rest from the defaults above (a hip yaw by
    default on a two-legged walker's legs, unless their ankle yaws instead)."""
    given = dict(leg.foot) if isinstance(leg.foot, tuple) else {}
    ankle = str(given.get("ankle", DEFAULT_ANKLE))
    hip_yaw = bool(given.get("hip_yaw", two_legged and ankle != "yaw_pitch_roll"))
    reach = leg.upper + leg.lower
    length = SOLE_LENGTH_SHARE * reach
    heel = float(given.get("heel", HEEL_SHARE * length))
    toe = float(given.get("toe", (1.0 - HEEL_SHARE) * length))
    width = float(given.get("width", WIDTH_SHARE * (heel + toe)))
    height = float(given.get("height", ANKLE_HEIGHT_SHARE * reach))
    return Sole(heel, toe, width, height, THICKNESS_SHARE * height, ankle, hip_yaw)


@lru_cache(maxsize=256)
def soles(gait: Gait) -> tuple[Sole, ...] | None:
    """Each leg's Sole, in catalog order, or None for a walker on sphere feet."""
    if not wants_soles(gait):
        return None
    out = [_sole(leg, gait.n_legs == 2) for leg in gait.legs]
    # one standing height for every foot: the tallest ankle (no sole hovers or sinks)
    h = max(x.height for x in out)
    return tuple(Sole(x.heel, x.toe, x.width, h, THICKNESS_SHARE * h, x.ankle, x.hip_yaw)
                 for x in out)  # fmt: skip


def ankle_height(gait: Gait) -> float | None:
    """The ankle's height over the ground with the sole flat (all legs share the tallest
    leg's), or None without soles."""
    s = soles(gait)
    return None if s is None else s[0].height


def ankle_joint_names(gait: Gait) -> list[str]:
    """The feet's revolute joints, legs in catalog order: each leg's hip yaw (if it has
    one) and its ankle's joints (``Sole.joints``; none without soles)."""
    s = soles(gait)
    if s is None:
        return []
    return [f"{leg.name}_{j}" for leg, sole in zip(gait.legs, s, strict=True) for j in sole.joints]


def ankle_vector(soles_, yaw, pitch, roll, hip_yaw=None) -> np.ndarray:
    """Per-leg ankle angles (each (..., L); ``hip_yaw`` too, default 0) as the foot
    joints (..., A), in ``ankle_joint_names`` order (each leg's own joints only)."""
    cols = []
    hy = np.zeros_like(np.asarray(pitch, dtype=float)) if hip_yaw is None else hip_yaw
    for i, sole in enumerate(soles_):
        by = {"ankle_yaw": yaw, "ankle_pitch": pitch, "ankle_roll": roll, HIP_YAW_JOINT: hy}
        cols += [np.asarray(by[j])[..., i] for j in sole.joints]
    return np.stack(cols, axis=-1)


# ---------------------------------------------------------------------------- the roll


def sole_pitch(stance, s, u):
    """The sole's planned pitch (rad; negative toe up) at stance progress ``s`` (stance)
    or swing progress ``u`` (swing): arrays of any one shape, or floats."""
    strike, off = math.radians(HEEL_STRIKE_DEG), math.radians(TOE_OFF_DEG)
    b0, b1 = ROLL_BOUNDS
    s = np.asarray(s, dtype=float)
    u = np.asarray(u, dtype=float)
    landing = strike * (1.0 - np.clip(s / b0, 0.0, 1.0))
    pushing = off * np.clip((s - b1) / (1.0 - b1), 0.0, 1.0)
    in_stance = np.where(s < b0, landing, np.where(s > b1, pushing, 0.0))
    in_swing = off + (strike - off) * smoothstep(np.clip(u, 0.0, 1.0))
    out = np.where(stance, in_stance, in_swing)
    return float(out) if out.ndim == 0 else out


def ankle_offset(heel, toe, height, pitch, corner=0.0):
    """Where the ankle is, relative to its place with the sole flat, when the sole has
    rolled by ``pitch`` onto its heel (pitch < 0) or its toe (pitch > 0): ``(dx, dz)``
    along the foot's forward axis and the ground's normal (arrays or floats).

    The sole stands on spheres of radius ``corner`` centred on its bottom's corners, lifted
    by ``corner`` (0: on its bare edges; ``urdf.sole_spheres``): tilted, it rests on the
    pair at that end, which roll on the ground without sliding, carrying their centres
    ``corner * pitch`` along."""
    if isinstance(pitch, float) and all(isinstance(v, float) for v in (heel, toe, height, corner)):
        scalar = True  # one sole in plain floats (the env's every-step reading)
        c, s = math.cos(pitch), math.sin(pitch)
        px = -heel if pitch < 0.0 else toe
    else:
        scalar = False
        pitch = np.asarray(pitch, dtype=float)
        corner = np.asarray(corner, dtype=float)
        height = np.asarray(height, dtype=float)
        c, s = np.cos(pitch), np.sin(pitch)
        px = np.where(pitch < 0.0, -np.asarray(heel, dtype=float), np.asarray(toe, dtype=float))
    # the resting spheres' centre, from the ankle's flat place: (px, corner - height)
    ax, az = -px, height - corner  # the ankle, seen from it
    dx = px + c * ax + s * az + corner * pitch  # rotated by Ry(pitch), rolled along
    dz = -s * ax + c * az - az
    if scalar or dx.ndim == 0:
        return float(dx), float(dz)
    return dx, dz


def ground_frame(normal, heading):
    """Rotation (..., 3, 3) whose columns are the foot's forward axis (the heading laid on
    the ground), its left axis and the ground's normal."""
    n = np.asarray(normal, dtype=float)
    heading = np.asarray(heading, dtype=float)
    h = np.stack([np.cos(heading), np.sin(heading), np.zeros_like(heading)], axis=-1)
    h = np.broadcast_to(h, n.shape)
    x = h - np.sum(h * n, axis=-1, keepdims=True) * n
    x = x / np.linalg.norm(x, axis=-1, keepdims=True)
    y = np.cross(n, x)
    return np.stack([x, y, n], axis=-1)


def rot_y(a):
    """Rotations (..., 3, 3) about y by ``a`` (..., rad)."""
    c, s = np.cos(a), np.sin(a)
    o, z = np.ones_like(c), np.zeros_like(c)
    return np.stack([np.stack([c, z, s], -1), np.stack([z, o, z], -1),
                     np.stack([-s, z, c], -1)], -2)  # fmt: skip


def rot_x(a):
    """Rotations (..., 3, 3) about x by ``a`` (..., rad)."""
    c, s = np.cos(a), np.sin(a)
    o, z = np.ones_like(c), np.zeros_like(c)
    return np.stack([np.stack([o, z, z], -1), np.stack([z, c, -s], -1),
                     np.stack([z, s, c], -1)], -2)  # fmt: skip


def rot_z(a):
    """Rotations (..., 3, 3) about z by ``a`` (..., rad)."""
    c, s = np.cos(a), np.sin(a)
    o, z = np.ones_like(c), np.zeros_like(c)
    return np.stack([np.stack([c, -s, z], -1), np.stack([s, c, z], -1),
                     np.stack([z, z, o], -1)], -2)  # fmt: skip


def hip_yaws(soles_, facing, heading) -> np.ndarray:
    """Each leg's hip yaw (..., L): the turn from the body's ``heading`` (...,) to where
    its sole faces (``facing``, (..., L)), wrapped and held within HIP_YAW_LIMIT; 0 for
    legs without a hip yaw joint."""
    has = np.array([s.hip_yaw for s in soles_])
    d = np.asarray(facing, dtype=float) - np.asarray(heading, dtype=float)[..., None]
    d = (d + np.pi) % (2.0 * np.pi) - np.pi
    return np.where(has, np.clip(d, -HIP_YAW_LIMIT, HIP_YAW_LIMIT), 0.0)


def into_hip(vectors, mounts, hip_yaw) -> np.ndarray:
    """Body-frame points (..., L, 3) seen from each leg's hip frame turned by its hip yaw
    (..., L) about the vertical through its mount (L, 3): what that leg's IK solves."""
    v = np.asarray(vectors, dtype=float)
    m = np.asarray(mounts, dtype=float)
    c, s = np.cos(hip_yaw), np.sin(hip_yaw)
    dx, dy = v[..., 0] - m[..., 0], v[..., 1] - m[..., 1]
    return np.stack([m[..., 0] + c * dx + s * dy, m[..., 1] - s * dx + c * dy, v[..., 2]],
                    axis=-1)  # fmt: skip


def from_hip(points, mounts, hip_yaw) -> np.ndarray:
    """``into_hip`` undone: points (..., L, 3) in each leg's hip frame turned by its hip yaw
    (..., L) about its mount (L, 3), back in the body frame (a hip-yawed leg's forward
    kinematics: ``from_hip(ik.leg_fk(chain, q), chain.mount, hip_yaw)``)."""
    return into_hip(points, mounts, -np.asarray(hip_yaw, dtype=float))


def foot_hip_yaws(soles_, foot_joints) -> np.ndarray:
    """Each leg's hip yaw (..., L) read from the feet's joint angles (..., A), in
    ``ankle_joint_names`` order; 0 for a leg without one."""
    q = np.asarray(foot_joints, dtype=float)
    cols, k = [], 0
    for sole in soles_:
        cols.append(q[..., k] if sole.hip_yaw else np.zeros(q.shape[:-1]))
        k += len(sole.joints)
    return np.stack(cols, axis=-1)


def shin_rotation(q1, q23):
    """A hanging leg's shin in its body frame: Rx(q1) Ry(q2 + q3) (ik's chain)."""
    return rot_x(q1) @ rot_y(q23)


def sole_in_body(q, normal_body, pitch):
    """The sole rotation (..., L, 3, 3), in the body frame, that a hanging leg at joints
    ``q`` (..., L, 3) can reach with its ankle's pitch and roll: on the ground of unit
    ``normal_body`` (..., L, 3, body frame), pitched by ``pitch`` (..., L).

    The ankle's pitch axis is the hip pitch axis a = Rx(q1) y, so the sole's forward axis
    x' is always square to it. With the sole's forward axis on the ground f and x' = cos p
    f - sin p n, that fixes f: f . a = tan p (n . a), i.e. f turned from the ground's
    forward (a_g x n, a_g the axis laid on the ground) toward a_g by asin(tan p (n . a) /
    |a_g|). On level ground under a level hip this is the body's heading; the turn is
    a fraction of a degree for a rolled hip and a pitched sole."""
    q = np.asarray(q, dtype=float)
    q1 = q[..., 0]
    n = np.asarray(normal_body, dtype=float)
    a = np.stack([np.zeros_like(q1), np.cos(q1), np.sin(q1)], axis=-1)  # Rx(q1) (0, 1, 0)
    an = np.sum(a * n, axis=-1, keepdims=True)
    ag = a - an * n
    lat = ag / np.linalg.norm(ag, axis=-1, keepdims=True)
    f0 = np.cross(lat, n)
    pitch = np.asarray(pitch, dtype=float)
    sd = np.clip(np.tan(pitch)[..., None] * an / np.linalg.norm(ag, axis=-1, keepdims=True),
                 -1.0, 1.0)  # fmt: skip
    f = np.sqrt(1.0 - sd * sd) * f0 + sd * lat
    return np.stack([f, np.cross(n, f), n], axis=-1) @ rot_y(pitch)


def ankle_euler(q, sole_in_body):
    """Ankle yaw, pitch and roll (each (..., L)) of a yaw-pitch-roll ankle that turns the
    shin of a hanging leg with joints ``q`` (..., L, 3) to any sole rotation
    ``sole_in_body`` (..., L, 3, 3), body frame: Rx(q1) Ry(q2 + q3) Rz(yaw) Ry(pitch)
    Rx(roll) = sole (exact; the yaw-pitch-roll angles of Ry(-q2 - q3) Rx(-q1) sole)."""
    q = np.asarray(q, dtype=float)
    M = np.asarray(sole_in_body, dtype=float)
    N = np.swapaxes(shin_rotation(q[..., 0], q[..., 1] + q[..., 2]), -1, -2) @ M
    yaw = np.arctan2(N[..., 1, 0], N[..., 0, 0])
    pitch = np.arctan2(-N[..., 2, 0], np.hypot(N[..., 0, 0], N[..., 1, 0]))
    roll = np.arctan2(N[..., 2, 1], N[..., 2, 2])
    return yaw, pitch, roll


def ankle_joint_angles(soles_, q, normal_body, pitch, sole_body=None,
                       hip_yaw=None) -> np.ndarray:  # fmt: skip
    """The ankle joints (..., A), ``ankle_joint_names`` order, of legs at joints ``q``
    (..., L, 3) laying each sole on the ground of body-frame unit normal ``normal_body``
    (..., L, 3) pitched by ``pitch`` (..., L): for a yawing ankle exactly the body-frame
    sole rotation ``sole_body`` (..., L, 3, 3; needed only when some ankle yaws,
    ``ankle_euler``), for the others the nearest sole they can reach (``sole_in_body``,
    ``ankle_angles``). ``hip_yaw`` (..., L): legs turned at the hip (``hip_yaws``) see
    the ground (and the sole) in their turned hip frame, and the hip yaw joints take it."""
    if hip_yaw is not None:
        turn = rot_z(-np.asarray(hip_yaw, dtype=float))
        normal_body = np.einsum("...ij,...j->...i", turn, normal_body)
        if sole_body is not None:
            sole_body = turn @ sole_body
    p, r = ankle_angles(q, sole_in_body(q, normal_body, pitch))
    y = np.zeros_like(p)
    yaws = np.array([sole.yaws for sole in soles_])
    if yaws.any():
        ye, pe, re = ankle_euler(q, sole_body)
        y, p, r = np.where(yaws, ye, y), np.where(yaws, pe, p), np.where(yaws, re, r)
    return ankle_vector(soles_, y, p, r, hip_yaw)


def ankle_angles(q, sole_in_body):
    """Ankle pitch and roll (each (..., L)) that turn the shin of a hanging leg with
    joints ``q`` (..., L, 3) to the sole rotation ``sole_in_body`` (..., L, 3, 3), given in
    the body frame: Rx(q1) Ry(q2 + q3) Ry(pitch) Rx(roll) = sole. A pitch-only ankle
    takes the pitch alone (its sole then rolls with the hip)."""
    q = np.asarray(q, dtype=float)
    q1, q23 = q[..., 0], q[..., 1] + q[..., 2]
    c1, s1 = np.cos(q1), np.sin(q1)
    M = np.asarray(sole_in_body, dtype=float)
    # N = Rx(-q1) M = Ry(q23 + pitch) Rx(roll)
    n00 = M[..., 0, 0]
    n11 = c1 * M[..., 1, 1] + s1 * M[..., 2, 1]
    n12 = c1 * M[..., 1, 2] + s1 * M[..., 2, 2]
    n20 = -s1 * M[..., 1, 0] + c1 * M[..., 2, 0]
    pitch = np.arctan2(-n20, n00) - q23
    roll = np.arctan2(-n12, n11)
    pitch = (pitch + np.pi) % (2.0 * np.pi) - np.pi
    return pitch, roll
