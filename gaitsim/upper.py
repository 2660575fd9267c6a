"""The upper body: a chest that twists against the hips, arms that counter-swing the legs
and a head on a neck that cancels the body's bob and looks ahead along the path.

A walker has an upper body only when its catalog gait has an ``upper_body`` block; every
key of it is optional and ``upper_geometry(gait)`` fills the rest from the legs. Frames are
the body frame B of ``gaitsim.geometry`` (REP-103, origin at the centre of the hip plane).

The parts (each optional):

- **torso**: a chest box on a ``waist_yaw`` joint on top of the body. The hips (the body
  itself) twist by ``twist(d) = -A (sigma_L - sigma_R) / 2`` where ``sigma`` is a side's
  legs' fore-aft place (+1 at touchdown, -1 at lift-off) and ``A = twist_deg x (step rate /
  twist_ref_hz)`` (the second seed: +-6 deg at 1.6 Hz, growing with the rate); the
  shoulders turn the other way by ``shoulder_ratio`` times that, so the waist joint turns
  by ``-(1 + shoulder_ratio) x twist``.
- **arms**: per side a shoulder (pitch; + swings the arm forward) and an elbow (pitch; +
  bends the forearm forward). Mode ``swing``: the shoulder swings against the same-side
  legs by ``swing_gain`` times the stride angle (``atan(stride / 2 / hip height)``),
  ``held``: still, ``anti``: with the same-side legs. The elbow bends by ``elbow_deg x
  (elbow_offset + leg ratio)`` at the front of the arm's swing, nothing at the back
  (leg ratio: the legs' lower / (upper + lower), the seed's 0.4 + LEG_RATIO).
- **head**: ``neck_yaw`` and ``neck_pitch`` at the neck's base, ``head_pitch`` at its
  top, where the head sphere sits. Gaze ``stabilised``: the neck pitches so that the head
  cancels ``gaze_gain`` of the body's vertical bob, the head pitches to stay level, and the
  neck turns the gaze along the heading the path will have ``preview_s`` seconds ahead;
  ``fixed``: the neck holds its neutral pose.

Joint order (``upper_joint_names``): waist_yaw, then arm_left_shoulder, arm_left_elbow,
arm_right_shoulder, arm_right_elbow, then neck_yaw, neck_pitch, head_pitch, for the parts
present. Masses come out of the body box, so the walker's total mass is unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .catalog import CatalogError, Gait
from .gait import cycle_position, smoothstep
from .geometry import geometry

ARM_MODES = ("swing", "held", "anti")
TWIST_MODES = ("on", "off")
GAZE_MODES = ("stabilised", "fixed")

# Defaults (the second seed's rules; masses and lengths from human proportions, Winter's
# anthropometric tables: an arm is ~5 % of the body's mass, the head and neck ~8 %).
TWIST_DEG, TWIST_REF_HZ, SHOULDER_RATIO = 6.0, 1.6, 1.2
SWING_GAIN, ELBOW_DEG, ELBOW_OFFSET = 0.6, 70.0, 0.4
GAZE_GAIN, PREVIEW_S = 0.82, 0.4
ARM_MASS_SHARE = 0.05  # of the walker's total mass, each arm
# the head and neck, of the total mass: a person's ~8 %; on more legs 2 %, because the
# controller places the body by its frame, not its centre of mass, and a head at the front
# unloads the hind feet (measured, 10 s flat: the fox's worst leg duty error 0.061, 0.070,
# 0.088, 0.093 and its touchdowns per stance 1.17, 1.16, 1.17, 1.28 at 1, 2, 4, 8 %; the
# hound's touchdowns 1.11, 1.13, 1.06, 1.37)
HEAD_MASS_SHARE_TWO_LEGS, HEAD_MASS_SHARE_MORE = 0.08, 0.02
CHEST_MASS_SHARE = 0.4  # of the body box's mass
ARM_LENGTH_SHARE = 0.35  # upper arm and forearm, each, as a share of the mean leg reach
CHEST_HEIGHT_SHARE = 0.6  # chest height as a share of the mean leg reach (two legs)
NECK_SHARE_TWO_LEGS, NECK_SHARE_MORE = 0.2, 0.4  # neck length, share of the mean leg reach
HEAD_SHARE_TWO_LEGS, HEAD_SHARE_MORE = 0.5, 0.35  # head radius, share of the neck
NECK_DEG_TWO_LEGS, NECK_DEG_MORE = 30.0, 45.0  # neutral neck lean forward of vertical
TWIST_SAMPLES = 720  # per cycle, for the twist's normalising peak
NECK_YAW_MAX = math.pi / 2  # rad: the gaze turns at most this far from the chest
MIN_BODY_SHARE = 0.2  # the body box keeps at least this share of its own default mass
UPPER_LIMB_RADIUS_SHARE = 0.12  # arm and neck cylinder radius, as a share of the bone


@dataclass(frozen=True)
class Torso:
    height: float
    mass: float
    twist_deg: float
    twist_ref_hz: float
    shoulder_ratio: float
    box: tuple[float, float, float]  # the chest box (length, width, height)
    waist: tuple[float, float, float]  # the waist joint in B (top centre of the body box)


@dataclass(frozen=True)
class Arms:
    upper: float
    lower: float
    mass: float
    shoulder: tuple[float, float, float]  # the left shoulder in B (at zero waist twist)
    swing_gain: float
    elbow_deg: float
    elbow_offset: float
    radius: float


@dataclass(frozen=True)
class Head:
    neck: float
    neck_deg: float
    radius: float
    mass: float
    mount: tuple[float, float, float]  # the neck's base in B (at zero waist twist)
    gaze_gain: float
    preview_s: float
    neck_radius: float


@dataclass(frozen=True)
class UpperGeometry:
    """A walker's resolved upper body (every field a number; absent parts are None)."""

    torso: Torso | None
    arms: Arms | None
    head: Head | None
    body_mass: float  # what the body box weighs once the upper body is taken out
    stride_angle: float  # rad: atan(stride / 2 / hip height)
    leg_ratio: float  # the legs' mean lower / (upper + lower)

    @property
    def joint_names(self) -> tuple[str, ...]:
        names: list[str] = []
        if self.torso is not None:
            names.append("waist_yaw")
        if self.arms is not None:
            for side in ("left", "right"):
                names += [f"arm_{side}_shoulder", f"arm_{side}_elbow"]
        if self.head is not None:
            names += ["neck_yaw", "neck_pitch", "head_pitch"]
        return tuple(names)

    @property
    def n_joints(self) -> int:
        return len(self.joint_names)

    def index(self, name: str) -> int:
        return self.joint_names.index(name)


def _given(gait: Gait, part: str) -> dict | None:
    spec = gait.upper_body
    return None if spec is None else spec.part(part)


@lru_cache(maxsize=256)
def upper_geometry(gait: Gait) -> UpperGeometry | None:
    """The resolved upper body of ``gait`` (None without an ``upper_body`` block)."""
    if gait.upper_body is None:
        return None
    geo = geometry(gait)
    reach = float(np.mean(geo.chain.upper + geo.chain.lower))
    total = geo.total_mass
    bx, by, bz = geo.body
    two = gait.n_legs <= 2
    torso = _torso(_given(gait, "torso"), geo, reach, two)
    parent_top = bz / 2 + (torso.height if torso is not None else 0.0)
    parent_width = torso.box[1] if torso is not None else by
    lift = np.array([0.0, 0.0, geo.hip_height])  # catalog points (frame C) -> frame B
    arms = _arms(_given(gait, "arms"), reach, total, parent_top, parent_width, lift)
    head = _head(_given(gait, "head"), reach, total, parent_top, bx, two, torso is not None,
                 lift)  # fmt: skip
    taken = sum(p.mass * k for p, k in ((torso, 1), (arms, 2), (head, 1)) if p is not None)
    body_mass = geo.body_mass - taken
    if body_mass < MIN_BODY_SHARE * geo.body_mass:
        raise CatalogError(
            f"upper_body: the torso, arms and head weigh {taken:.4g} kg, leaving the body "
            f"{body_mass:.4g} kg of its {geo.body_mass:.4g} kg; lighten them or raise the "
            "gait's 'mass'"
        )
    lower = geo.chain.lower
    return UpperGeometry(
        torso, arms, head, float(body_mass),
        stride_angle=math.atan2(gait.stride / 2, geo.hip_height),
        leg_ratio=float(np.mean(lower / (geo.chain.upper + lower))),
    )  # fmt: skip


def _torso(given, geo, reach: float, two: bool) -> Torso | None:
    if given is None:
        return None
    bx, by, bz = geo.body
    h = given.get("height", CHEST_HEIGHT_SHARE * reach if two else bz)
    mass = given.get("mass", CHEST_MASS_SHARE * geo.body_mass)
    return Torso(
        float(h), float(mass),
        float(given.get("twist_deg", TWIST_DEG)),
        float(given.get("twist_ref_hz", TWIST_REF_HZ)),
        float(given.get("shoulder_ratio", SHOULDER_RATIO)),
        box=(float(bx), float(by), float(h)),
        waist=(0.0, 0.0, float(bz / 2)),
    )  # fmt: skip


def _arms(given, reach: float, total: float, top: float, width: float, lift) -> Arms | None:
    if given is None:
        return None
    upper = float(given.get("upper", ARM_LENGTH_SHARE * reach))
    lower = float(given.get("lower", ARM_LENGTH_SHARE * reach))
    radius = UPPER_LIMB_RADIUS_SHARE * min(upper, lower)
    # a shoulder at the top corner of its parent, just outside it (Gaitkit point -> B)
    if "shoulder" in given:
        shoulder = np.asarray(given["shoulder"]) - lift
    else:
        shoulder = (0.0, width / 2 + radius, top - radius)
    return Arms(
        upper, lower, float(given.get("mass", ARM_MASS_SHARE * total)),
        tuple(float(c) for c in shoulder),
        float(given.get("swing_gain", SWING_GAIN)),
        float(given.get("elbow_deg", ELBOW_DEG)),
        float(given.get("elbow_offset", ELBOW_OFFSET)),
        radius,
    )  # fmt: skip


def _head(given, reach, total, top, bx, two: bool, on_chest: bool, lift) -> Head | None:
    if given is None:
        return None
    neck = float(given.get("neck", (NECK_SHARE_TWO_LEGS if two else NECK_SHARE_MORE) * reach))
    radius = float(given.get("radius", (HEAD_SHARE_TWO_LEGS if two else HEAD_SHARE_MORE) * neck))
    # two legs: on top of the chest (or body); more: at the front top of the body
    if "mount" in given:
        mount = np.asarray(given["mount"]) - lift
    else:
        mount = (0.0 if two or on_chest else bx / 2, 0.0, top)
    return Head(
        neck, float(given.get("neck_deg", NECK_DEG_TWO_LEGS if two else NECK_DEG_MORE)),
        radius,
        float(given.get("mass", (HEAD_MASS_SHARE_TWO_LEGS if two else HEAD_MASS_SHARE_MORE)
                        * total)),
        tuple(float(c) for c in mount),
        float(given.get("gaze_gain", GAZE_GAIN)),
        float(given.get("preview_s", PREVIEW_S)),
        UPPER_LIMB_RADIUS_SHARE * neck,
    )  # fmt: skip


# ---------------------------------------------------------------------------- the rules


def side_signals(gait: Gait, distance, speed_scale: float = 1.0, end: str = "front"):
    """Each side's ``end`` ("front" or "hind") leg's fore-aft place, ``(..., 2)`` for (left,
    right): +1 with the foot at touchdown (forward), -1 at lift-off; a side without legs
    mirrors the other. The arms swing against the front legs (a biped's only pair), the
    hips twist with the hind ones."""
    t = cycle_position(gait, distance, speed_scale)
    stance = t < gait.duty
    u = np.clip((t - gait.duty) / (1.0 - gait.duty), 0.0, 1.0)
    sigma = np.where(stance, 1.0 - 2.0 * t / gait.duty, 2.0 * smoothstep(u) - 1.0)
    out = np.empty((*sigma.shape[:-1], 2))
    for k, i in enumerate(_end_legs(gait, end)):
        out[..., k] = sigma[..., i] if i is not None else np.nan
    out[..., 0] = np.where(np.isnan(out[..., 0]), -out[..., 1], out[..., 0])
    out[..., 1] = np.where(np.isnan(out[..., 1]), -out[..., 0], out[..., 1])
    return out


def _end_legs(gait: Gait, end: str) -> tuple[int | None, int | None]:
    """The (left, right) leg furthest to the ``end`` (front: largest home x), or None."""
    pick = max if end == "front" else min
    out = []
    for side in ("L", "R"):
        legs = [i for i, leg in enumerate(gait.legs) if leg.side == side]
        out.append(pick(legs, key=lambda i: gait.legs[i].home[0]) if legs else None)
    return out[0], out[1]


@lru_cache(maxsize=256)
def _twist_peak(gait: Gait) -> float:
    """The peak over a cycle of the hind legs' half difference (sigma_L - sigma_R) / 2, so
    the twist reaches its amplitude whatever the duty (0: the sides move together)."""
    sig = side_signals(gait, np.linspace(0.0, gait.cycle, TWIST_SAMPLES, endpoint=False),
                       end="hind")  # fmt: skip
    return float(np.abs(0.5 * (sig[:, 0] - sig[:, 1])).max())


def step_rate(gait: Gait, speed_scale: float = 1.0) -> float:
    """Gait cycles per second at the walker's nominal speed (the seed's STEP_HZ)."""
    return gait.clip_speed * speed_scale / (gait.stride * speed_scale / gait.duty)


def hip_twist(ug: UpperGeometry, gait: Gait, distance, speed_scale=1.0, twist=True):
    """The hips' (body's) yaw about the path heading, rad, shape ``distance.shape``."""
    d = np.asarray(distance, dtype=float)
    if ug is None or ug.torso is None or not twist:
        return np.zeros(d.shape)
    peak = _twist_peak(gait)
    if peak < 1e-9:  # the hind legs move together (a bound): nothing to twist with
        return np.zeros(d.shape)
    amp = math.radians(ug.torso.twist_deg) * step_rate(gait, speed_scale) / ug.torso.twist_ref_hz
    sig = side_signals(gait, d, speed_scale, end="hind")
    return -amp * 0.5 * (sig[..., 0] - sig[..., 1]) / peak


def arm_angles(ug: UpperGeometry, gait: Gait, distance, speed_scale=1.0, mode="swing"):
    """Shoulder and elbow angles, ``(..., 2, 2)``: [side (left, right), (shoulder, elbow)]."""
    if mode not in ARM_MODES:
        raise ValueError(f"arms must be one of {', '.join(ARM_MODES)}, got {mode!r}")
    arms = ug.arms
    d = np.asarray(distance, dtype=float)
    amp = arms.swing_gain * math.atan2(gait.stride * speed_scale / 2, geometry(gait).hip_height)
    sig = side_signals(gait, d, speed_scale)
    forward = {"swing": -sig, "held": np.zeros_like(sig), "anti": sig}[mode]  # in [-1, 1]
    bend = math.radians(arms.elbow_deg) * (arms.elbow_offset + ug.leg_ratio)
    out = np.empty((*d.shape, 2, 2))
    out[..., 0] = amp * forward
    out[..., 1] = bend * 0.5 * (1.0 + forward)
    return out


def neck_angles(head: Head, rise, body_pitch, stabilised: bool = True):
    """(neck_pitch, head_pitch) that put the head ``rise`` metres above its neutral height
    (relative to the neck's base) and keep it level, with the body pitched by
    ``body_pitch`` (rad, + nose down); ``stabilised=False``: the neutral pose."""
    phi0 = math.radians(head.neck_deg)
    rise, body_pitch = np.asarray(rise, dtype=float), np.asarray(body_pitch, dtype=float)
    if not stabilised:
        return np.full(rise.shape, phi0), np.full(rise.shape, -phi0)
    # the neck's world lean stays on its neutral's side of vertical, up to 1.4 rad (or the
    # neutral itself when that leans further)
    c = np.clip(math.cos(phi0) + rise / head.neck, min(math.cos(1.4), math.cos(phi0)), 1.0)
    phi = math.copysign(1.0, phi0) * np.arccos(c)
    return phi - body_pitch, -phi


def neck_angles_at(head: Head, rise: float, body_pitch: float) -> tuple[float, float]:
    """``neck_angles`` (stabilised) for one pose, in scalar arithmetic: the same numbers bit
    for bit (numpy's arccos of a float, min/max for the clip), without numpy's per-call cost
    in the loop that holds the head every physics substep (which keeps a ``NeckAngles``)."""
    return NeckAngles(head)(rise, body_pitch)


class NeckAngles:
    """``neck_angles_at`` for one ``head``, its constants worked out once: called with
    (rise, body_pitch), it returns (neck_pitch, head_pitch)."""

    __slots__ = ("cos0", "lowest", "neck", "sign")

    def __init__(self, head: Head):
        phi0 = math.radians(head.neck_deg)
        self.cos0, self.neck = math.cos(phi0), head.neck
        self.lowest = min(math.cos(1.4), math.cos(phi0))  # the clip's lower end
        self.sign = math.copysign(1.0, phi0)

    def __call__(self, rise: float, body_pitch: float) -> tuple[float, float]:
        # min(max(c, lowest), 1) as conditionals: the same answers, NaN included (max(a, b)
        # is b only when b > a; min(a, b) only when b < a)
        c = self.cos0 + rise / self.neck
        lowest = self.lowest
        c = lowest if lowest > c else c
        phi = self.sign * float(np.arccos(1.0 if 1.0 < c else c))
        return phi - body_pitch, -phi


def upper_joints(ug, gait, distance, *, speed_scale=1.0, arms="swing", twist=True,
                 gaze="stabilised", bob=None, body_pitch=None, gaze_yaw=None):  # fmt: skip
    """The upper-body joint angles ``(..., n_joints)`` (``UpperGeometry.joint_names``
    order) at ``distance``: the kinematic rules with the planned body. ``bob``: the body's
    vertical bob (m), ``body_pitch`` (rad), ``gaze_yaw``: the gaze's heading relative to the
    hips (rad), each shaped like ``distance`` (default 0)."""
    d = np.asarray(distance, dtype=float)
    zero = np.zeros(d.shape)
    cols = []
    tw = hip_twist(ug, gait, d, speed_scale, twist)
    if ug.torso is not None:
        cols.append(-(1.0 + ug.torso.shoulder_ratio) * tw)
    if ug.arms is not None:
        a = arm_angles(ug, gait, d, speed_scale, arms)
        cols += [a[..., 0, 0], a[..., 0, 1], a[..., 1, 0], a[..., 1, 1]]
    if ug.head is not None:
        stab = gaze == "stabilised"
        rise = -ug.head.gaze_gain * (zero if bob is None else bob)
        pitch = zero if body_pitch is None else body_pitch
        neck_p, head_p = neck_angles(ug.head, rise, pitch, stab)
        yaw = (zero if gaze_yaw is None else gaze_yaw) if stab else zero
        if ug.torso is not None:  # the neck sits on the chest, which turns by the waist
            yaw = yaw - (cols[0] if stab else 0.0)
        yaw = np.clip(yaw, -NECK_YAW_MAX, NECK_YAW_MAX)
        cols += [yaw, neck_p, head_p]
    return np.stack(cols, axis=-1) if cols else np.zeros((*d.shape, 0))


# ---------------------------------------------------------------------------- FK


def _rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _ry(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def upper_fk(ug: UpperGeometry, q) -> dict[str, np.ndarray]:
    """Body-frame positions of the upper body's link origins and ends for joint angles
    ``q`` (n_joints,): chest (waist), arm_<side>_upper (shoulder), arm_<side>_fore
    (elbow), arm_<side>_hand (the forearm's end), neck (base), head (the neck's top, the
    head sphere's centre). The truth that the URDF's FK is held to."""
    q = [float(v) for v in np.ravel(q)]
    out: dict[str, np.ndarray] = {}
    R, origin = np.eye(3), np.zeros(3)
    k = 0
    if ug.torso is not None:
        origin = np.array(ug.torso.waist)
        R = _rz(q[0])
        out["chest"] = origin.copy()
        k = 1
    if ug.arms is not None:
        a = ug.arms
        for side, sign in (("left", 1.0), ("right", -1.0)):
            sx, sy, sz = a.shoulder
            p = origin + R @ (np.array([sx, sign * sy, sz]) - origin)
            out[f"arm_{side}_upper"] = p
            R1 = R @ _ry(-q[k])  # + swings forward: about -y
            e = p + R1 @ np.array([0.0, 0.0, -a.upper])
            out[f"arm_{side}_fore"] = e
            R2 = R1 @ _ry(-q[k + 1])
            out[f"arm_{side}_hand"] = e + R2 @ np.array([0.0, 0.0, -a.lower])
            k += 2
    if ug.head is not None:
        h = ug.head
        p = origin + R @ (np.array(h.mount) - origin)
        out["neck"] = p
        R1 = R @ _rz(q[k]) @ _ry(q[k + 1])
        out["head"] = p + R1 @ np.array([0.0, 0.0, h.neck])
    return out
