"""Catalog entry -> URDF text: the walker's body for PyBullet, MuJoCo and any URDF reader.

The kinematic chain is exactly the one of :func:`gaitsim.ik.leg_fk` (tests hold PyBullet's
and yourdfpy's FK to it). ``base_link`` is the body frame B: origin at the centre of the hip
plane, REP-103 axes, its inertial origin at 0 so PyBullet puts the base exactly there. Per
leg, in chain order:

- ``forward`` / ``back`` knee: ``<leg>_hip_roll`` (axis x) at the hip mount, then
  ``<leg>_hip_pitch`` (axis y), ``<leg>_knee`` (axis y) at ``(0, 0, -upper)``; at zero the
  leg hangs along -z.
- ``up`` knee: ``<leg>_hip_yaw`` (axis z) at the mount with ``rpy = 0 0 yaw0`` (the leg's
  neutral azimuth), then ``<leg>_hip_pitch`` (axis y), ``<leg>_knee`` (axis y) at
  ``(upper, 0, 0)``; at zero the leg points straight out along +x of the yawed frame.

Links ``<leg>_hip`` (no geometry; HIP_MASS_FRACTION of the thigh's mass, taken from the
body so the total stays geometry's ``total_mass``), ``<leg>_thigh``, ``<leg>_shin`` and
``<leg>_foot``, a sphere fixed by ``<leg>_foot_fixed`` at the end of the shin, so the foot
link's origin is the foot-sphere centre that the Walker plans. Only URDF-spec geometry:
a box body, cylinder bones, sphere feet; masses and sizes come from
:func:`gaitsim.geometry.geometry`, with solid-body inertias about each part's centre.

Joint limits (one rule for every walker): the joint angles of ``Walker(entry).pose_at``
over one gait cycle (LIMIT_SAMPLES distances) at speed scales LIMIT_SPEED_SCALES, on flat
ground straight, on a LIMIT_SLOPE_DEG slope walked up and down (without a lean, with the lean
from the ground's normal and, for two legs, from upright),
on a seeded rough terrain of amplitude ROUGH_AMPLITUDE_FRACTION * hip height, and along
arcs of LIMIT_ARC_RADIUS turning left and right; per joint the min and max widened by
LIMIT_MARGIN rad, rounded outward to LIMIT_ROUND rad (so the committed files do not depend
on the last bits of floating point) and clipped to [-pi, pi]. A sole's ankle pitch and
roll get the same rule's widened extremes either way where those exceed ANKLE_PITCH_LIMIT
and ANKLE_ROLL_LIMIT, at most ANKLE_LIMIT_CAP (``ankle_tops``).

Effort limit of every joint of leg i: ``EFFORT_SAFETY * m_total * g / n_stance_min * reach_i``
(rounded up to 3 significant digits): the leg can hold its share of the whole weight with
the weight at full reach, where ``n_stance_min >= 1`` is the fewest legs in stance at any
point of the cycle at which any leg is down (a flight phase carries no weight). Velocity
limit, one per walker: VELOCITY_SAFETY times the fastest joint rate of the flat straight
walk and the arcs at the top speed scale (body at the clip speed times that scale), at
least VELOCITY_FLOOR, rounded up to 1 rad/s. Damping and friction are
small shares of the effort (DAMPING_PER_EFFORT, FRICTION_PER_EFFORT).

PyBullet: load with ``URDF_USE_IMPLICIT_CYLINDER`` (true cylinders, not meshes) and
``URDF_USE_INERTIA_FROM_FILE`` (without it PyBullet recomputes every inertia from the
collision shapes). :func:`cached_urdf` writes the file for any catalog's walker.

Walker and leg names become XML attributes and file names, so they must match NAME_PATTERN;
anything else raises :class:`URDFNameError` before a file is written.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

import numpy as np

from .catalog import Catalog, Entry, Gait, GaitsimError, atomic_write_text
from .feet import (
    ANKLE_PITCH_LIMIT,
    ANKLE_ROLL_LIMIT,
    ANKLE_YAW_LIMIT,
    HIP_YAW_JOINT,
    HIP_YAW_LIMIT,
    Sole,
    ankle_joint_names,
    soles,
)
from .geometry import GRAVITY, geometry
from .ik import KNEE_UP
from .path import Arc
from .terrain import Rough, Slope
from .upper import NECK_YAW_MAX, UpperGeometry, step_rate, upper_geometry
from .walker import Walker

NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
BASE_LINK = "base_link"

LIMIT_SAMPLES = 300  # distances per gait cycle for each condition
LIMIT_SPEED_SCALES = (0.5, 1.0, 1.5)
LIMIT_SLOPE_DEG = 15.0
LIMIT_ARC_RADIUS = 0.5  # m
ROUGH_AMPLITUDE_FRACTION = 0.1  # rough terrain peak height as a share of the hip height
ROUGH_SEED = 0
ROUGH_CELL = 0.02  # m: grid spacing of the limit rule's rough ground (Rough's default)...
ROUGH_MAX_CELLS = 500  # ...coarsened for giant walkers so a side never has more cells
LIMIT_MARGIN = 0.35  # rad added on both sides of the sampled range
ANKLE_LIMIT_CAP = 3.0  # rad: a derived ankle pitch or roll limit is at most this
DERIVED_FEET_JOINTS = ("ankle_pitch", "ankle_roll")  # widened past their floor when needed
LIMIT_ROUND = 1e-3  # rad; limits are rounded outward to this step

EFFORT_SAFETY = 3.0
VELOCITY_FLOOR = 20.0  # rad/s
VELOCITY_SAFETY = 2.0
DAMPING_PER_EFFORT = 1e-3  # s: damping [N m s / rad] = this * effort [N m]
FRICTION_PER_EFFORT = 1e-3  # friction [N m] = this * effort [N m]
HIP_MASS_FRACTION = 0.01  # the geometry-less hip link weighs this share of the thigh
INERTIA_FLOOR = 1e-13  # kg m^2: no principal moment of inertia is smaller. MuJoCo's
# compiler rejects a URDF whose link has one below 1e-14 ("inertia must have positive
# eigenvalues"): the ankle links of small generated bipeds had 2e-15 to 5e-15 (seeds 316,
# 353, 961, ...) and could not be simulated on MuJoCo at all. Ten times that bound; only
# links of a few milligrams reach it

MATERIALS = {
    "gaitsim_body": "0.55 0.6 0.68 1",
    "gaitsim_leg": "0.25 0.27 0.3 1",
    "gaitsim_foot": "0.85 0.45 0.2 1",
}


class URDFNameError(GaitsimError, ValueError):
    """A walker or leg name cannot be used in a URDF or as a file name."""


# ---------------------------------------------------------------------------- names


def first_joint(knee: str) -> str:
    """Suffix of a leg's first joint: hip yaw for an 'up' knee, hip roll otherwise."""
    return "hip_yaw" if knee == "up" else "hip_roll"


def joint_names(gait: Gait | Entry) -> list[str]:
    """Revolute joint names in chain order, legs in catalog order (Walker ``joints`` order)."""
    gait = gait.gait if isinstance(gait, Entry) else gait
    return [
        f"{leg.name}_{suffix}"
        for leg in gait.legs
        for suffix in (first_joint(leg.knee), "hip_pitch", "knee")
    ]


def foot_link_names(gait: Gait | Entry) -> list[str]:
    """The foot link of each leg, in catalog order; its origin is the foot-sphere centre."""
    gait = gait.gait if isinstance(gait, Entry) else gait
    return [f"{leg.name}_foot" for leg in gait.legs]


def upper_link_names(gait: Gait) -> list[str]:
    """The upper body's links (none without an ``upper_body`` block)."""
    ug = upper_geometry(gait)
    if ug is None:
        return []
    names = ["chest"] if ug.torso is not None else []
    if ug.arms is not None:
        names += [f"arm_{s}_{part}" for s in ("left", "right") for part in ("upper", "fore")]
    if ug.head is not None:
        names += ["neck_base", "neck", "head"]
    return names


def upper_joint_names(gait: Gait | Entry) -> list[str]:
    """The upper body's revolute joints in ``gaitsim.upper`` order (none without one)."""
    gait = gait.gait if isinstance(gait, Entry) else gait
    ug = upper_geometry(gait)
    return [] if ug is None else list(ug.joint_names)


def _link_names(gait: Gait) -> list[str]:
    ankles = ankle_link_names(gait)
    return [BASE_LINK] + [
        f"{leg.name}_{part}" for leg in gait.legs for part in ("hip", "thigh", "shin", "foot")
    ] + ankles + upper_link_names(gait)


def check_names(entry: Entry) -> None:
    """Raise URDFNameError unless the walker and every leg name is safe XML and file name."""
    where = f"walker {entry.name!r}"

    def check(name: object, what: str) -> None:
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            raise URDFNameError(
                f"{what}: {name!r} cannot name a URDF robot, link or file; use letters, "
                "digits, '_' and '-', starting with a letter or '_'"
            )

    check(entry.name, "walker name")
    for i, leg in enumerate(entry.gait.legs):
        check(leg.name, f"{where}.segments[{i}].name")
    names = _link_names(entry.gait)
    joints = joint_names(entry.gait) + [f"{leg.name}_foot_fixed" for leg in entry.gait.legs]
    joints += upper_joint_names(entry.gait) + ankle_joint_names(entry.gait)
    for kind, seq in (("link", names), ("joint", joints)):
        seen: set[str] = set()
        for n in seq:
            if n in seen:
                raise URDFNameError(
                    f"{where}: leg names give the {kind} name {n!r} twice; rename a leg"
                )
            seen.add(n)


# ---------------------------------------------------------------------------- limits


def n_stance_min(gait: Gait) -> int:
    """The fewest legs that carry the weight: the fewest in stance at any stretch of the
    cycle with any leg down (exact, from phases and duty; at least 1). A flight phase
    carries nothing, so it does not count: counted, it made every flight gait's legs as
    strong as if one leg carried the whole weight (a 12-legged gait of duty 0.49, six legs
    down at a time, got six times its effort, joint damping and friction, and fell)."""
    phase = np.array([leg.phase for leg in gait.legs])
    events = np.sort(np.concatenate([(-phase) % 1.0, (gait.duty - phase) % 1.0, [0.0, 1.0]]))
    mids = 0.5 * (events[:-1] + events[1:])[np.diff(events) > 1e-12]
    t = (mids[:, None] + phase) % 1.0
    down = (t < gait.duty).sum(axis=1)
    down = down[down > 0]
    return int(down.min()) if down.size else 1


def _limit_walkers(entry: Entry):
    """(walker, used for the velocity limit) for every condition of the joint-limit rule."""
    geo = geometry(entry.gait)
    cycle_max = entry.gait.cycle * max(LIMIT_SPEED_SCALES)
    size = max(4.0, 4.0 * (cycle_max + max(geo.body)))
    cell = max(ROUGH_CELL, size / ROUGH_MAX_CELLS)  # ROUGH_CELL for every ordinary walker
    rough = Rough(
        ROUGH_AMPLITUDE_FRACTION * geo.hip_height,
        wavelength=max(0.1, 2.0 * entry.gait.stride, 4.0 * cell),
        seed=ROUGH_SEED,
        size=size,
        cell=cell,
    )
    up, down = Slope.from_degrees(LIMIT_SLOPE_DEG), Slope.from_degrees(-LIMIT_SLOPE_DEG)
    top = max(LIMIT_SPEED_SCALES)
    for s in LIMIT_SPEED_SCALES:
        yield Walker(entry, speed_scale=s), s == top
        yield Walker(entry, path=Arc(LIMIT_ARC_RADIUS), speed_scale=s), s == top
        yield Walker(entry, path=Arc(-LIMIT_ARC_RADIUS), speed_scale=s), s == top
        # the upright and level bodies (the second seed's lean, a biped's default) only for
        # two legs: a long body held level on a steep slope would widen a quadruped's knees
        # past straight
        leans = (False, "ground") + (("upright", "level") if entry.gait.n_legs <= 2 else ())
        for slope in (up, down):
            for lean in leans:
                yield Walker(entry, slope, speed_scale=s, lean=lean), False
        for lean in (False, "level") if entry.gait.n_legs <= 2 else (False,):
            yield Walker(entry, rough, speed_scale=s, lean=lean), False


@lru_cache(maxsize=128)
def _limits(gait: Gait) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """The legs' joint limits (lo, hi; legs x 3), the velocity limit, and the largest
    |angle| each feet joint reaches (``feet.ankle_joint_names`` order) widened by the
    margin and capped at ANKLE_LIMIT_CAP (empty without soles): the module docstring's
    rule."""
    entry = Entry("walker", gait)
    lo = np.full((gait.n_legs, 3), np.inf)
    hi = np.full((gait.n_legs, 3), -np.inf)
    rate = 0.0
    feet = np.zeros(0)
    for w, for_rate in _limit_walkers(entry):
        d = np.arange(LIMIT_SAMPLES) / LIMIT_SAMPLES * w.cycle
        pose = w.pose_at(d)
        q = pose.joints
        lo = np.minimum(lo, q.min(axis=0))
        hi = np.maximum(hi, q.max(axis=0))
        if pose.ankle_joints is not None and pose.ankle_joints.shape[-1]:
            reach = np.abs(pose.ankle_joints).max(axis=0)
            feet = reach if not feet.size else np.maximum(feet, reach)
        if for_rate:
            step = w.cycle / LIMIT_SAMPLES
            dq = np.diff(np.concatenate([q, q[:1]]), axis=0)  # the cycle closes on itself
            rate = max(rate, float(np.abs(dq).max()) / step * w.nominal_speed)
    lo = np.floor((lo - LIMIT_MARGIN) / LIMIT_ROUND) * LIMIT_ROUND
    hi = np.ceil((hi + LIMIT_MARGIN) / LIMIT_ROUND) * LIMIT_ROUND
    lo = np.clip(lo, -math.pi, math.pi)
    hi = np.clip(hi, -math.pi, math.pi)
    lo.setflags(write=False)
    hi.setflags(write=False)
    feet = np.minimum(np.ceil((feet + LIMIT_MARGIN) / LIMIT_ROUND) * LIMIT_ROUND, ANKLE_LIMIT_CAP)
    feet.setflags(write=False)
    velocity = float(math.ceil(max(VELOCITY_FLOOR, VELOCITY_SAFETY * rate)))
    return lo, hi, velocity, feet


def joint_limits(gait: Gait | Entry) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper joint limits, each ``(legs, 3)`` radians (read-only, cached)."""
    gait = gait.gait if isinstance(gait, Entry) else gait
    lo, hi, _, _ = _limits(gait)
    return lo, hi


def velocity_limit(gait: Gait | Entry) -> float:
    """The joint velocity limit of every joint (rad/s); see the module docstring."""
    gait = gait.gait if isinstance(gait, Entry) else gait
    return _limits(gait)[2]


UPPER_NECK_PITCH = (-2.0, 2.0)  # rad: the neck leans back / forward at most this far
UPPER_HEAD_PITCH = (-2.0, 2.0)  # rad: the head pitches down / up at most this far


def upper_limits(gait: Gait | Entry) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lower and upper limits (rad) and effort limits (N m) of the upper-body joints, each
    ``(n,)`` in ``upper_joint_names`` order. The waist and shoulders: the rules' largest
    angle at the top speed scale plus LIMIT_MARGIN; the elbows: 0 to the largest bend plus
    the margin; the neck and head: the fixed ranges above. Effort: EFFORT_SAFETY times the
    weight of everything beyond the joint at the length of what it turns (at least a
    tenth of the legs' mean reach)."""
    gait = gait.gait if isinstance(gait, Entry) else gait
    ug = upper_geometry(gait)
    if ug is None:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    lo, hi, eff = [], [], []
    top = max(LIMIT_SPEED_SCALES)
    floor = 0.1 * float(np.mean(geometry(gait).chain.reach))
    m_arms = 2 * ug.arms.mass if ug.arms is not None else 0.0
    m_head = ug.head.mass if ug.head is not None else 0.0
    if ug.torso is not None:
        t = ug.torso
        amp = (1 + t.shoulder_ratio) * math.radians(t.twist_deg) * step_rate(gait) / t.twist_ref_hz
        lo.append(-amp - LIMIT_MARGIN)
        hi.append(amp + LIMIT_MARGIN)
        eff.append(_effort(t.mass + m_arms + m_head, max(t.box[1], t.height), floor))
    if ug.arms is not None:
        a = ug.arms
        swing = a.swing_gain * math.atan2(gait.stride * top / 2, geometry(gait).hip_height)
        bend = math.radians(a.elbow_deg) * (a.elbow_offset + ug.leg_ratio)
        for _ in range(2):
            lo += [-swing - LIMIT_MARGIN, -LIMIT_MARGIN]
            hi += [swing + LIMIT_MARGIN, bend + LIMIT_MARGIN]
            eff += [_effort(a.mass, a.upper + a.lower, floor), _effort(a.mass / 2, a.lower, floor)]
    if ug.head is not None:
        h = ug.head
        lo += [-NECK_YAW_MAX, UPPER_NECK_PITCH[0], UPPER_HEAD_PITCH[0]]
        hi += [NECK_YAW_MAX, UPPER_NECK_PITCH[1], UPPER_HEAD_PITCH[1]]
        eff += [_effort(h.mass, h.neck + h.radius, floor)] * 2 + [_effort(h.mass, h.radius, floor)]
    lo = np.clip(np.floor(np.array(lo) / LIMIT_ROUND) * LIMIT_ROUND, -math.pi, math.pi)
    hi = np.clip(np.ceil(np.array(hi) / LIMIT_ROUND) * LIMIT_ROUND, -math.pi, math.pi)
    return lo, hi, np.array(eff)


def _effort(mass: float, length: float, floor: float) -> float:
    return _ceil_sig(EFFORT_SAFETY * GRAVITY * mass * max(length, floor))


def _ceil_sig(x: float, digits: int = 3) -> float:
    """Round a positive number up to ``digits`` significant digits."""
    e = math.floor(math.log10(x)) - digits + 1
    return float(f"{math.ceil(round(x / 10.0**e, 9)) * 10.0**e:.{digits}g}")


def effort_limits(gait: Gait | Entry) -> np.ndarray:
    """Per-leg torque limit (N m) of each joint of the leg; see the module docstring."""
    gait = gait.gait if isinstance(gait, Entry) else gait
    geo = geometry(gait)
    share = EFFORT_SAFETY * geo.total_mass * GRAVITY / n_stance_min(gait)
    return np.array([_ceil_sig(share * r) for r in geo.chain.reach])


# ---------------------------------------------------------------------------- XML


def _f(x: float) -> str:
    return format(float(x) + 0.0, ".10g")  # + 0.0 turns -0.0 into 0


def _v(*xs: float) -> str:
    return " ".join(_f(x) for x in xs)


def _inertial(mass: float, diag: tuple[float, float, float], xyz=(0.0, 0.0, 0.0)) -> list[str]:
    ixx, iyy, izz = (max(float(v), INERTIA_FLOOR) for v in diag)
    return [
        "    <inertial>",
        f'      <origin xyz="{_v(*xyz)}" rpy="0 0 0"/>',
        f'      <mass value="{_f(mass)}"/>',
        f'      <inertia ixx="{_f(ixx)}" ixy="0" ixz="0" iyy="{_f(iyy)}" iyz="0" izz="{_f(izz)}"/>',
        "    </inertial>",
    ]


def _shape(tag: str, geom: str, xyz, rpy, material: str | None) -> list[str]:
    lines = [
        f"    <{tag}>",
        f'      <origin xyz="{_v(*xyz)}" rpy="{_v(*rpy)}"/>',
        f"      <geometry>{geom}</geometry>",
    ]
    if material is not None:
        lines.append(f'      <material name="{material}"/>')
    lines.append(f"    </{tag}>")
    return lines


def _link(
    name: str,
    inertial: list[str],
    geom: str | None = None,
    xyz=(0, 0, 0),
    rpy=(0, 0, 0),
    material: str | None = None,
    collision: tuple[str, object] | None = None,
) -> list[str]:
    """A link; ``collision`` = (geometry, xyz) when it differs from the visual shape."""
    lines = [f'  <link name="{name}">', *inertial]
    if geom is not None:
        lines += _shape("visual", geom, xyz, rpy, material)
        cgeom, cxyz = collision if collision is not None else (geom, xyz)
        lines += _shape("collision", cgeom, cxyz, rpy, None)
    lines.append("  </link>")
    return lines


def _joint(
    name: str,
    kind: str,
    parent: str,
    child: str,
    xyz,
    rpy=(0, 0, 0),
    axis=None,
    limit: tuple[float, float, float, float] | None = None,
    effort: float = 0.0,
) -> list[str]:
    lines = [
        f'  <joint name="{name}" type="{kind}">',
        f'    <parent link="{parent}"/>',
        f'    <child link="{child}"/>',
        f'    <origin xyz="{_v(*xyz)}" rpy="{_v(*rpy)}"/>',
    ]
    if axis is not None:
        lines.append(f'    <axis xyz="{_v(*axis)}"/>')
    if limit is not None:
        lower, upper, eff, vel = limit
        lines.append(
            f'    <limit lower="{_f(lower)}" upper="{_f(upper)}" effort="{_f(eff)}" '
            f'velocity="{_f(vel)}"/>'
        )
        lines.append(
            f'    <dynamics damping="{_f(DAMPING_PER_EFFORT * eff)}" '
            f'friction="{_f(FRICTION_PER_EFFORT * eff)}"/>'
        )
    lines.append("  </joint>")
    return lines


def _cylinder_inertia(m: float, r: float, length: float, along_x: bool):
    axial = 0.5 * m * r * r
    across = m * (3.0 * r * r + length * length) / 12.0
    return (axial, across, across) if along_x else (across, across, axial)


def build(entry: Entry) -> str:
    """The URDF text of one walker (deterministic: equal entries give equal text)."""
    check_names(entry)
    gait = entry.gait
    geo = geometry(gait)
    lo, hi = joint_limits(gait)
    vel = velocity_limit(gait)
    effort = effort_limits(gait)
    ug = upper_geometry(gait)
    feet = soles(gait)
    out = _header(entry.name) + _base_link(geo, ug, feet)
    for i, leg in enumerate(gait.legs):
        limits = [(lo[i, k], hi[i, k], effort[i], vel) for k in range(3)]
        out += _leg(geo, i, leg, limits, None if feet is None else feet[i])
    if feet is not None:
        ankle = ankle_effort(gait)
        for i, (leg, tops) in enumerate(zip(gait.legs, ankle_tops(gait), strict=True)):
            out += _sole(geo, i, leg.name, feet[i], tops, ankle, vel)
    if ug is not None:
        ulo, uhi, ueff = upper_limits(gait)
        out += _upper(ug, [(a, b, e, vel) for a, b, e in zip(ulo, uhi, ueff, strict=True)])
    out.append("</robot>")
    return "\n".join(out) + "\n"


def _header(robot: str) -> list[str]:
    """The XML declaration, the do-not-edit note, the robot tag and the materials."""
    out = [
        '<?xml version="1.0"?>',
        # no double hyphen inside an XML comment, so the CLI option is not spelled out here
        "<!-- Generated by gaitsim.urdf.build from the walker's catalog entry: do not edit.",
        "     Regenerate it with the gaitsim urdf command. -->",
        f'<robot name="{robot}">',
    ]
    for name, rgba in MATERIALS.items():
        out.append(f'  <material name="{name}"><color rgba="{rgba}"/></material>')
    return out


def hip_links_mass(geo, feet=None) -> float:
    """What the legs' hip links weigh (HIP_MASS_FRACTION of each thigh), a hip yaw's
    turning link (``feet``: the soles, if any) as much again: the body box gives it up."""
    hips = geo.leg_masses[:, 0]
    turned = [f.hip_yaw for f in feet] if feet is not None else [False] * len(hips)
    return HIP_MASS_FRACTION * float(hips.sum() + hips[np.array(turned, dtype=bool)].sum())


def _base_link(geo, ug: UpperGeometry | None = None, feet=None) -> list[str]:
    """The body box; the hip links' tiny masses (a hip yaw's turning link's too, on
    ``feet`` with ``hip_yaw``) and the upper body's come out of the body, so the total is
    geometry's total."""
    bx, by, bz = geo.body
    body = geo.body_mass if ug is None else ug.body_mass
    mb = body - hip_links_mass(geo, feet)
    box_inertia = (
        mb * (by * by + bz * bz) / 12.0,
        mb * (bx * bx + bz * bz) / 12.0,
        mb * (bx * bx + by * by) / 12.0,
    )
    return _link(
        BASE_LINK,
        _inertial(mb, box_inertia),
        f'<box size="{_v(bx, by, bz)}"/>',
        material="gaitsim_body",
    )


def _leg(geo, i: int, leg, limits: list, sole: Sole | None = None) -> list[str]:
    """Leg ``i``'s links (hip, thigh, shin, and the foot sphere unless it has a ``sole``)
    and joints; ``limits`` holds (lower, upper, effort, velocity) for its three revolute
    joints."""
    n = leg.name
    chain = geo.chain
    up = int(chain.kind[i]) == KNEE_UP
    l1, l2 = float(chain.upper[i]), float(chain.lower[i])
    # bone direction at zero: straight out along +x ('up') or hanging along -z
    bone = np.array([1.0, 0.0, 0.0]) if up else np.array([0.0, 0.0, -1.0])
    out = _leg_links(geo, i, n, up, bone, sole is None)
    names = [f"{n}_{s}" for s in (first_joint(leg.knee), "hip_pitch", "knee")]
    first_rpy = (0.0, 0.0, float(chain.yaw0[i])) if up else (0.0, 0.0, 0.0)
    first_axis = (0, 0, 1) if up else (1, 0, 0)
    parent, at = BASE_LINK, chain.mount[i]
    if sole is not None and sole.hip_yaw:  # the hip yaw turns the whole leg at the mount
        parent = f"{n}_{HIP_TURN_LINK}"
        m_t = HIP_MASS_FRACTION * float(geo.leg_masses[i, 0])
        i_t = 0.4 * m_t * float(geo.leg_radius[i]) ** 2
        out += _link(parent, _inertial(m_t, (i_t, i_t, i_t)))
        out += _joint(f"{n}_{HIP_YAW_JOINT}", "revolute", BASE_LINK, parent, at,
                      axis=(0, 0, 1), limit=(-HIP_YAW_LIMIT, HIP_YAW_LIMIT, *limits[0][2:]))
        at = (0.0, 0.0, 0.0)
    out += _joint(
        names[0], "revolute", parent, f"{n}_hip", at, first_rpy, first_axis, limits[0],
    )  # fmt: skip
    out += _joint(
        names[1], "revolute", f"{n}_hip", f"{n}_thigh", (0, 0, 0), axis=(0, 1, 0),
        limit=limits[1],
    )  # fmt: skip
    out += _joint(
        names[2], "revolute", f"{n}_thigh", f"{n}_shin", bone * l1, axis=(0, 1, 0),
        limit=limits[2],
    )  # fmt: skip
    if sole is None:
        out += _joint(f"{n}_foot_fixed", "fixed", f"{n}_shin", f"{n}_foot", bone * l2)
    return out


def ankle_effort(gait: Gait | Entry) -> float:
    """The ankles' torque limit (N m): EFFORT_SAFETY times the whole weight at the longest
    heel or toe of any sole (one foot holding the body on its edge)."""
    gait = gait.gait if isinstance(gait, Entry) else gait
    arm = max(max(s.heel, s.toe) for s in soles(gait))
    return _ceil_sig(EFFORT_SAFETY * geometry(gait).total_mass * GRAVITY * arm)


def ankle_tops(gait: Gait | Entry) -> list[dict[str, float]]:
    """Each leg's feet joints' limits (rad, either way), by joint kind (``Sole.joints``; an
    empty list without soles): a hip yaw HIP_YAW_LIMIT and an ankle yaw ANKLE_YAW_LIMIT; an
    ankle's pitch and roll ANKLE_PITCH_LIMIT and ANKLE_ROLL_LIMIT, or wider where the
    joint-limit rule's poses (the module docstring; its margin, rounding and
    ANKLE_LIMIT_CAP) need more: a folded leg (a long thigh over a short shin, low hips)
    holds its sole flat only with its shin tipped far over (generated bipeds needed up to
    2.2 rad of ankle pitch; at 1.4 the sole stood on its toe and the walker tipped back)."""
    gait = gait.gait if isinstance(gait, Entry) else gait
    feet = soles(gait)
    if feet is None:
        return []
    need = iter(_limits(gait)[3].tolist())
    floor = {"ankle_yaw": ANKLE_YAW_LIMIT, "ankle_roll": ANKLE_ROLL_LIMIT,
             "ankle_pitch": ANKLE_PITCH_LIMIT, HIP_YAW_JOINT: HIP_YAW_LIMIT}  # fmt: skip
    out = []
    for sole in feet:
        tops = {}
        for j in sole.joints:
            n = next(need)
            tops[j] = max(floor[j], n) if j in DERIVED_FEET_JOINTS else floor[j]
        out.append(tops)
    return out


def ankle_limits(gait: Gait | Entry) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lower and upper limits (rad) and efforts (N m) of the feet's joints, in
    ``feet.ankle_joint_names`` order (empty without soles): ``ankle_tops`` either way,
    ``ankle_effort`` each; a hip yaw its leg's hip effort (``effort_limits``)."""
    gait = gait.gait if isinstance(gait, Entry) else gait
    feet = soles(gait)
    if feet is None:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    hips, ankle = effort_limits(gait), ankle_effort(gait)
    top, effort = [], []
    for i, (sole, tops) in enumerate(zip(feet, ankle_tops(gait), strict=True)):
        for j in sole.joints:
            top.append(tops[j])
            effort.append(hips[i] if j == HIP_YAW_JOINT else ankle)
    top = np.array(top)
    return -top, top, np.array(effort, dtype=float)


ANKLE_AXES = {"ankle_yaw": (0, 0, 1), "ankle_pitch": (0, 1, 0), "ankle_roll": (1, 0, 0)}
ANKLE_LINKS = {"ankle_yaw": "ankle_turn", "ankle_pitch": "ankle"}  # the link after a joint
# that another ankle joint follows (no geometry)
HIP_TURN_LINK = "hip_turn"  # the link a hip yaw turns (``<leg>_hip_turn``, no geometry)


def ankle_link_names(gait: Gait) -> list[str]:
    """The feet's geometry-less links between their joints (none without soles): a hip
    yaw's turning link, then the ankle's."""
    out = []
    for leg, sole in zip(gait.legs, soles(gait) or (), strict=False):
        out += [f"{leg.name}_{HIP_TURN_LINK}"] if sole.hip_yaw else []
        out += [f"{leg.name}_{ANKLE_LINKS[j]}" for j in sole.ankle_joints[:-1]]
    return out


def _sole(geo, i: int, n: str, sole: Sole, top: dict, effort: float, vel: float) -> list[str]:
    """Leg ``n``'s ankle joints at the shin's end (yaw about the shin, pitch about y, roll
    about x: ``sole.joints``, tiny links between them) and its foot: a box sole whose
    bottom lies ``sole.height`` below the ankle, reaching ``heel`` behind it and ``toe``
    ahead; the foot link's origin is the ankle."""
    l2 = float(geo.chain.lower[i])
    out = []
    m = geo.foot_mass
    t = sole.thickness
    box = (sole.length, sole.width, t)
    centre = ((sole.toe - sole.heel) / 2, 0.0, -sole.height + t / 2)
    inertia = (m * (box[1] ** 2 + t * t) / 12, m * (box[0] ** 2 + t * t) / 12,
               m * (box[0] ** 2 + box[1] ** 2) / 12)  # fmt: skip
    parent = f"{n}_shin"
    for k, joint in enumerate(sole.ankle_joints):
        last = k == len(sole.ankle_joints) - 1
        child = f"{n}_foot" if last else f"{n}_{ANKLE_LINKS[joint]}"
        if not last:
            m_a = HIP_MASS_FRACTION * geo.foot_mass
            i_a = 0.4 * m_a * (0.1 * t) ** 2
            out += _link(child, _inertial(m_a, (i_a, i_a, i_a)))
            m -= m_a  # the ankle links' masses come out of the foot's
        out += _joint(f"{n}_{joint}", "revolute", parent, child,
                      (0.0, 0.0, -l2) if k == 0 else (0, 0, 0), axis=ANKLE_AXES[joint],
                      limit=(-top[joint], top[joint], effort, vel))  # fmt: skip
        parent = child
    lines = [f'  <link name="{n}_foot">', *_inertial(m, inertia, centre)]
    lines += _shape("visual", f'<box size="{_v(*box)}"/>', centre, (0, 0, 0), "gaitsim_foot")
    for xyz, r in sole_spheres(sole):
        lines += _shape("collision", f'<sphere radius="{_f(r)}"/>', xyz, (0, 0, 0), None)
    return out + lines + ["  </link>"]


def sole_spheres(sole: Sole) -> list[tuple[tuple[float, float, float], float]]:
    """A sole's collision shapes: a sphere of ``sole.corner`` radius over each corner of
    its box's bottom, its bottom flush with the sole's. Bullet lets thin, long boxes slip
    through a heightfield (between its prisms; bullet3 issue 1022: measured here, a 2
    cm-thick sole sank 2 cm into 1 cm rough ground and lost contact), spheres it does not;
    their four contact points span the sole (heel to toe, side to side), its support."""
    r = sole.corner
    z = -sole.height + r
    return [((x, y, z), r) for x in (-sole.heel, sole.toe)
            for y in (-0.5 * sole.width, 0.5 * sole.width)]  # fmt: skip


def _leg_links(geo, i: int, n: str, up: bool, bone, sphere: bool = True) -> list[str]:
    """Leg ``i``'s links: a massive-enough hip, the thigh and shin cylinders along
    ``bone`` and the foot sphere (``sphere``; a sole's foot is built by ``_sole``)."""
    chain = geo.chain
    l1, l2 = float(chain.upper[i]), float(chain.lower[i])
    r = float(geo.leg_radius[i])
    m1, m2 = (float(m) for m in geo.leg_masses[i])
    r_foot, m_foot = geo.foot_radius, geo.foot_mass
    foot_i = 0.4 * m_foot * r_foot * r_foot
    shin_c = max(l2 - r_foot, 0.5 * l2)  # shin collision length
    m_hip = HIP_MASS_FRACTION * m1
    i_hip = 0.4 * m_hip * r * r
    cyl_rpy = (0.0, math.pi / 2, 0.0) if up else (0.0, 0.0, 0.0)
    out = _link(f"{n}_hip", _inertial(m_hip, (i_hip, i_hip, i_hip)))
    out += _link(
        f"{n}_thigh",
        _inertial(m1, _cylinder_inertia(m1, r, l1, up), bone * l1 / 2),
        f'<cylinder radius="{_f(r)}" length="{_f(l1)}"/>',
        bone * l1 / 2,
        cyl_rpy,
        "gaitsim_leg",
    )
    out += _link(
        f"{n}_shin",
        _inertial(m2, _cylinder_inertia(m2, r, l2, up), bone * l2 / 2),
        f'<cylinder radius="{_f(r)}" length="{_f(l2)}"/>',
        bone * l2 / 2,
        cyl_rpy,
        "gaitsim_leg",
        # the shin's collision stops at the foot sphere, so only the foot meets the ground
        (f'<cylinder radius="{_f(r)}" length="{_f(shin_c)}"/>', bone * shin_c / 2),
    )
    if sphere:
        out += _link(
            f"{n}_foot",
            _inertial(m_foot, (foot_i, foot_i, foot_i)),
            f'<sphere radius="{_f(r_foot)}"/>',
            material="gaitsim_foot",
        )
    return out


def _upper(ug: UpperGeometry, limits: list) -> list[str]:
    """The upper body's links and joints (``gaitsim.upper``'s chain); ``limits`` holds
    (lower, upper, effort, velocity) per joint in ``joint_names`` order."""
    out: list[str] = []
    lim = iter(limits)
    parent, origin = BASE_LINK, np.zeros(3)
    if ug.torso is not None:
        t = ug.torso
        bx, by, h = t.box
        m = t.mass
        box = (m * (by * by + h * h) / 12, m * (bx * bx + h * h) / 12, m * (bx * bx + by * by) / 12)
        out += _link("chest", _inertial(m, box, (0, 0, h / 2)), f'<box size="{_v(bx, by, h)}"/>',
                     (0, 0, h / 2), material="gaitsim_body")  # fmt: skip
        out += _joint("waist_yaw", "revolute", BASE_LINK, "chest", t.waist, axis=(0, 0, 1),
                      limit=next(lim))  # fmt: skip
        parent, origin = "chest", np.array(t.waist)
    if ug.arms is not None:
        for side, sign in (("left", 1.0), ("right", -1.0)):
            out += _arm(ug.arms, side, sign, parent, origin, lim)
    if ug.head is not None:
        out += _neck_and_head(ug.head, parent, origin, lim)
    return out


def _bone(name: str, mass: float, r: float, length: float, direction: float) -> list[str]:
    """A cylinder link of ``length`` from its origin along ``direction`` (+1 up, -1 down)."""
    c = (0.0, 0.0, direction * length / 2)
    return _link(name, _inertial(mass, _cylinder_inertia(mass, r, length, False), c),
                 f'<cylinder radius="{_f(r)}" length="{_f(length)}"/>', c,
                 material="gaitsim_leg")  # fmt: skip


def _arm(a, side: str, sign: float, parent: str, origin, lim) -> list[str]:
    """One arm: shoulder and elbow pitch joints (axis -y: + swings forward), two bones."""
    sx, sy, sz = a.shoulder
    mount = np.array([sx, sign * sy, sz]) - origin
    n = f"arm_{side}"
    out = _bone(f"{n}_upper", 0.55 * a.mass, a.radius, a.upper, -1.0)
    out += _bone(f"{n}_fore", 0.45 * a.mass, a.radius, a.lower, -1.0)
    out += _joint(f"{n}_shoulder", "revolute", parent, f"{n}_upper", mount, axis=(0, -1, 0),
                  limit=next(lim))  # fmt: skip
    out += _joint(f"{n}_elbow", "revolute", f"{n}_upper", f"{n}_fore", (0, 0, -a.upper),
                  axis=(0, -1, 0), limit=next(lim))  # fmt: skip
    return out


def _neck_and_head(h, parent: str, origin, lim) -> list[str]:
    """The neck (yaw, then pitch at its base) and the head sphere (pitch at the top)."""
    m_neck, m_head = 0.3 * h.mass, 0.7 * h.mass
    tiny = HIP_MASS_FRACTION * m_neck
    i_tiny = 0.4 * tiny * h.neck_radius**2
    i_head = 0.4 * m_head * h.radius**2
    out = _link("neck_base", _inertial(tiny, (i_tiny, i_tiny, i_tiny)))
    out += _bone("neck", m_neck - tiny, h.neck_radius, h.neck, 1.0)
    out += _link("head", _inertial(m_head, (i_head, i_head, i_head)),
                 f'<sphere radius="{_f(h.radius)}"/>', material="gaitsim_body")  # fmt: skip
    out += _joint("neck_yaw", "revolute", parent, "neck_base", np.array(h.mount) - origin,
                  axis=(0, 0, 1), limit=next(lim))  # fmt: skip
    out += _joint("neck_pitch", "revolute", "neck_base", "neck", (0, 0, 0), axis=(0, 1, 0),
                  limit=next(lim))  # fmt: skip
    out += _joint("head_pitch", "revolute", "neck", "head", (0, 0, h.neck), axis=(0, 1, 0),
                  limit=next(lim))  # fmt: skip
    return out


# ---------------------------------------------------------------------------- files


def _entries(catalog: Catalog | Mapping[str, Entry] | Iterable[Entry] | Entry) -> list[Entry]:
    if isinstance(catalog, Entry):
        return [catalog]
    if isinstance(catalog, Mapping):
        return list(catalog.values())
    return list(catalog)


def write_catalog(
    catalog: Catalog | Mapping[str, Entry] | Iterable[Entry] | Entry, out_dir: str | os.PathLike
) -> list[Path]:
    """Write ``<walker>.urdf`` for every walker into ``out_dir``; returns the paths.

    Every name is checked and every URDF built before the first file is written, and each
    file is written atomically, so a bad catalog leaves ``out_dir`` untouched.
    """
    entries = _entries(catalog)
    seen: dict[str, str] = {}
    for e in entries:
        check_names(e)
        key = e.name.casefold()  # case-insensitive file systems would merge these files
        if key in seen:
            raise URDFNameError(
                f"walker names {seen[key]!r} and {e.name!r} give the same file name on "
                "case-insensitive file systems; rename one"
            )
        seen[key] = e.name
    texts = [(e.name, build(e)) for e in entries]
    out = Path(out_dir)
    paths = []
    for name, text in texts:
        path = out / f"{name}.urdf"
        atomic_write_text(path, text)
        paths.append(path)
    return paths


def default_cache_dir() -> Path:
    """Where :func:`cached_urdf` writes: ``$GAITSIM_CACHE`` as is, else ~/.cache/gaitsim/urdf."""
    env = os.environ.get("GAITSIM_CACHE")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "gaitsim" / "urdf"


def cached_urdf(entry: Entry, cache_dir: str | os.PathLike | None = None) -> Path:
    """Path of a URDF file for ``entry`` (any catalog), written once per distinct URDF text.

    The file name carries a hash of the text, so a changed walker or generator gets a new
    file and an existing file is reused only if its content is still exactly right.
    """
    text = build(entry)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    folder = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    path = folder / f"{entry.name}-{digest}.urdf"
    try:
        if path.read_text("utf-8") == text:
            return path
    except (OSError, UnicodeDecodeError):
        pass
    atomic_write_text(path, text)
    return path
