"""Two-bone leg inverse and forward kinematics on the 3-joint leg chain (docs/architecture.md).

Every function is pure numpy over arrays shaped ``(..., legs, 3)``. The same FK is the
truth for the Walker, the URDF generator and the physics tests.

Chains (body frame B: REP-103, origin at the centre of the hip plane):

- ``forward`` / ``back`` knee: hip roll q1 about x at the mount, hip pitch q2 about the
  rolled y, knee q3 about y. At zero the leg hangs straight down (-z).
  foot = mount + Rx(q1) Ry(q2) [(0,0,-l1) + Ry(q3) (0,0,-l2)]
- ``up`` knee: hip yaw q1 about z, measured from the leg's neutral azimuth psi0, hip lift
  q2 about the yawed y, knee q3 about y. At zero the leg points straight out along psi0.
  foot = mount + Rz(psi0 + q1) Ry(q2) [(l1,0,0) + Ry(q3) (l2,0,0)]

With Ry(t)(0,0,-1) = (-sin t, 0, -cos t) and Ry(t)(1,0,0) = (cos t, 0, -sin t), a positive
q2 swings a hanging leg backward and lowers an outstretched one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .catalog import KNEES

KNEE_UP, KNEE_FORWARD, KNEE_BACK = (KNEES.index(k) for k in ("up", "forward", "back"))
REACH_MARGIN = 1e-4  # the seed's clamp: a target this close to the reach limits straightens the leg


def two_bone(l1, l2, d):
    """Law-of-cosines solution of a two-bone limb; vectorized, never NaN for finite input.

    Returns ``(hip, knee)``: ``hip`` is the angle between the first bone and the root-to-tip
    line, ``knee`` the interior angle between the bones (pi when straight). ``d`` is clamped
    to ``[|l1 - l2| + 1e-4, l1 + l2 - 1e-4]`` first, so an unreachable target straightens
    (or folds) the limb toward it. Lengths must be positive.
    """
    l1 = np.asarray(l1, dtype=float)
    l2 = np.asarray(l2, dtype=float)
    lo = np.abs(l1 - l2) + REACH_MARGIN
    hi = np.maximum(l1 + l2 - REACH_MARGIN, lo)
    d = np.clip(np.asarray(d, dtype=float), lo, hi)
    cos_knee = (l1 * l1 + l2 * l2 - d * d) / (2.0 * l1 * l2)
    cos_hip = (l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d)
    knee = np.arccos(np.clip(cos_knee, -1.0, 1.0))
    hip = np.arccos(np.clip(cos_hip, -1.0, 1.0))
    return hip, knee


@dataclass(frozen=True)
class LegChain:
    """Per-leg kinematic constants, stacked as arrays over legs.

    mount: (L, 3) hip mount in body frame B; upper, lower: (L,) bone lengths;
    kind: (L,) knee code (KNEE_UP, KNEE_FORWARD, KNEE_BACK); yaw0: (L,) neutral azimuth
    of an 'up' leg (0 for the others).
    """

    mount: np.ndarray
    upper: np.ndarray
    lower: np.ndarray
    kind: np.ndarray
    yaw0: np.ndarray

    @property
    def n_legs(self) -> int:
        return len(self.upper)

    @property
    def reach(self) -> np.ndarray:
        return self.upper + self.lower


def _rot_x(v, a):
    c, s = np.cos(a), np.sin(a)
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    return np.stack([x, c * y - s * z, s * y + c * z], axis=-1)


def _rot_z(v, a):
    c, s = np.cos(a), np.sin(a)
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    return np.stack([c * x - s * y, s * x + c * y, z], axis=-1)


def leg_fk(chain: LegChain, q) -> np.ndarray:
    """Foot points in body frame B for joint angles ``q`` shaped ``(..., L, 3)``."""
    q = np.asarray(q, dtype=float)
    q1, q2, q3 = q[..., 0], q[..., 1], q[..., 2]
    l1, l2 = chain.upper, chain.lower
    up = chain.kind == KNEE_UP
    # In the leg plane: 'a' along the leg's zero direction, 'b' along -y of rotation,
    # written once for both chains. For a hanging leg the zero direction is -z, for an
    # outstretched one it is the neutral azimuth.
    s2, c2 = np.sin(q2), np.cos(q2)
    s23, c23 = np.sin(q2 + q3), np.cos(q2 + q3)
    # hanging chain: Ry(t)(0,0,-1) = (-sin t, 0, -cos t)
    hang = np.stack([-(l1 * s2 + l2 * s23), np.zeros_like(s2), -(l1 * c2 + l2 * c23)], axis=-1)
    hang = _rot_x(hang, q1)
    # outstretched chain: Ry(t)(1,0,0) = (cos t, 0, -sin t)
    out = np.stack([l1 * c2 + l2 * c23, np.zeros_like(s2), -(l1 * s2 + l2 * s23)], axis=-1)
    out = _rot_z(out, chain.yaw0 + q1)
    return chain.mount + np.where(up[..., None], out, hang)


def leg_ik(chain: LegChain, p) -> tuple[np.ndarray, np.ndarray]:
    """Joint angles ``(..., L, 3)`` placing each foot at ``p`` (body frame B), and shortfall.

    An unreachable target straightens the leg toward it; the shortfall ``(..., L)`` is how
    far the target lies beyond the leg's reach (or inside its minimum reach), 0 if reachable.
    """
    v = np.asarray(p, dtype=float) - chain.mount
    vx, vy, vz = v[..., 0], v[..., 1], v[..., 2]
    l1, l2 = chain.upper, chain.lower
    up = chain.kind == KNEE_UP
    # First joint, and the target in the leg plane as (a, b): a along the zero direction.
    # hanging legs: roll about x so the plane contains x and the foot; a = down, b = forward
    roll = np.arctan2(vy, -vz)
    a_hang = np.hypot(vy, vz)
    b_hang = vx
    # outstretched legs: yaw about z toward the foot; a = outward, b = up
    c0, s0 = np.cos(chain.yaw0), np.sin(chain.yaw0)
    lx = c0 * vx + s0 * vy
    ly = -s0 * vx + c0 * vy
    yaw = np.arctan2(ly, lx)
    a_out = np.hypot(lx, ly)
    b_out = vz
    q1 = np.where(up, yaw, roll)
    a = np.where(up, a_out, a_hang)
    b = np.where(up, b_out, b_hang)
    dist = np.hypot(a, b)
    hip, knee = two_bone(l1, l2, dist)
    phi = np.arctan2(b, a)  # angle of the hip->foot line from the zero direction toward b
    # Knee bends to the +b side ('up' knees rise, 'forward' knees point forward) or the -b
    # side ('back'). For hanging legs q2 = -(thigh angle), for outstretched q2 = -(elevation).
    sign = np.where(chain.kind == KNEE_BACK, -1.0, 1.0)
    thigh = phi + sign * hip
    q2 = -thigh
    q3 = sign * (np.pi - knee)
    q = np.stack([q1, q2, q3], axis=-1)
    shortfall = np.maximum(dist - (l1 + l2), 0.0) + np.maximum(np.abs(l1 - l2) - dist, 0.0)
    return q, shortfall


def shortfall(chain: LegChain, p) -> np.ndarray:
    """How far each target lies outside its leg's reach, ``(..., L)`` metres."""
    v = np.asarray(p, dtype=float) - chain.mount
    dist = np.linalg.norm(v, axis=-1)
    l1, l2 = chain.upper, chain.lower
    return np.maximum(dist - (l1 + l2), 0.0) + np.maximum(np.abs(l1 - l2) - dist, 0.0)


class ScalarLeg:
    """Scalar twin of :func:`leg_ik` for one leg: plain floats, the control loop's solver.

    The same maths as the vectorized version (a test holds them equal), with the leg's
    constants worked out once; numpy's per-call overhead on three numbers would cost more
    than the physics step it serves. ``solve(x, y, z)`` takes a target in the body frame
    and returns ``(q1, q2, q3, shortfall)``; ``fk`` and ``jacobian`` give the foot and its
    Jacobian for joint angles (tests hold them to ``leg_fk``).
    """

    __slots__ = ("c0", "hi", "inner", "kk", "l1", "l1sq", "l2", "l2sq", "lo", "mx", "my", "mz",
                 "reach", "s0", "sign", "two_l1", "up", "yaw0")  # fmt: skip

    def __init__(self, mount, l1: float, l2: float, kind: int, yaw0: float = 0.0):
        l1, l2 = float(l1), float(l2)
        self.l1, self.l2, self.yaw0 = l1, l2, float(yaw0)
        self.mx, self.my, self.mz = (float(v) for v in mount)
        self.up = int(kind) == KNEE_UP
        self.c0, self.s0 = math.cos(yaw0), math.sin(yaw0)
        self.lo = abs(l1 - l2) + REACH_MARGIN
        self.hi = max(l1 + l2 - REACH_MARGIN, self.lo)
        self.l1sq, self.l2sq = l1 * l1, l2 * l2
        self.kk = (l1 * l1 + l2 * l2, 2.0 * l1 * l2)  # law of cosines at the knee
        self.two_l1 = 2.0 * l1
        self.sign = -1.0 if int(kind) == KNEE_BACK else 1.0
        self.reach, self.inner = l1 + l2, abs(l1 - l2)

    def solve(self, x: float, y: float, z: float) -> tuple[float, float, float, float]:
        vx, vy, vz = x - self.mx, y - self.my, z - self.mz
        if self.up:
            c0, s0 = self.c0, self.s0
            lx, ly = c0 * vx + s0 * vy, -s0 * vx + c0 * vy
            q1, a, b = math.atan2(ly, lx), math.hypot(lx, ly), vz
        else:
            q1, a, b = math.atan2(vy, -vz), math.hypot(vy, vz), vx
        dist = math.hypot(a, b)
        # clamps as conditionals (min/max calls cost more than the arithmetic here)
        lo, hi = self.lo, self.hi
        d = lo if lo > dist else dist
        d = hi if hi < d else d
        dd = d * d
        ksum, kprod = self.kk
        ck = (ksum - dd) / kprod
        ck = ck if ck > -1.0 else -1.0  # these keep min/max's answers, NaN included
        ck = ck if ck < 1.0 else 1.0
        ch = (self.l1sq + dd - self.l2sq) / (self.two_l1 * d)
        ch = ch if ch > -1.0 else -1.0
        ch = ch if ch < 1.0 else 1.0
        knee = math.acos(ck)
        hip = math.acos(ch)
        sign = self.sign
        thigh = math.atan2(b, a) + sign * hip
        out = dist - self.reach
        inside = self.inner - dist
        short = (0.0 if 0.0 > out else out) + (0.0 if 0.0 > inside else inside)
        return q1, -thigh, sign * (math.pi - knee), short


    def fk(self, q1: float, q2: float, q3: float) -> tuple[float, float, float]:
        """The foot centre (body frame) for joint angles (q1, q2, q3): the chain of the
        module docstring, in floats."""
        l1, l2 = self.l1, self.l2
        s2, c2 = math.sin(q2), math.cos(q2)
        s23, c23 = math.sin(q2 + q3), math.cos(q2 + q3)
        if self.up:
            a = self.yaw0 + q1
            r = l1 * c2 + l2 * c23
            z = -l1 * s2 - l2 * s23
            return self.mx + r * math.cos(a), self.my + r * math.sin(a), self.mz + z
        x = -l1 * s2 - l2 * s23
        z = -l1 * c2 - l2 * c23
        return self.mx + x, self.my - math.sin(q1) * z, self.mz + math.cos(q1) * z

    def jacobian(self, q1: float, q2: float, q3: float) -> tuple:
        """The foot Jacobian's columns (d foot / d q1, q2, q3; body frame) as 9 floats: the
        joint torques that make the foot push with force f are ``J^T f`` (static load
        feedforward). From the chain in the module docstring: knee forward / back, with
        X = -l1 sin q2 - l2 sin(q2 + q3) and Z = -l1 cos q2 - l2 cos(q2 + q3),
        foot - mount = (X, -sin q1 Z, cos q1 Z); knee up, with R = l1 cos q2 + l2 cos(q2 +
        q3) and Z = -l1 sin q2 - l2 sin(q2 + q3), foot - mount = (R cos a, R sin a, Z) with
        a = yaw0 + q1."""
        l1, l2 = self.l1, self.l2
        s2, c2 = math.sin(q2), math.cos(q2)
        s23, c23 = math.sin(q2 + q3), math.cos(q2 + q3)
        if self.up:
            a = self.yaw0 + q1
            ca, sa = math.cos(a), math.sin(a)
            r = l1 * c2 + l2 * c23
            z = -l1 * s2 - l2 * s23
            return (-r * sa, r * ca, 0.0, z * ca, z * sa, -r,
                    -l2 * s23 * ca, -l2 * s23 * sa, -l2 * c23)  # fmt: skip
        s1, c1 = math.sin(q1), math.cos(q1)
        x = -l1 * s2 - l2 * s23
        z = -l1 * c2 - l2 * c23
        return (0.0, -c1 * z, -s1 * z, z, s1 * x, -c1 * x,
                -l2 * c23, -s1 * l2 * s23, c1 * l2 * s23)  # fmt: skip

def leg_ik_one(mount, l1: float, l2: float, kind: int, yaw0: float, x: float, y: float, z: float):
    """One leg's IK in plain floats, for a one-off target: ``ScalarLeg(...).solve(x, y, z)``.

    Returns ``(q1, q2, q3, shortfall)``; loops should build the ScalarLeg once.
    """
    return ScalarLeg(mount, l1, l2, kind, yaw0).solve(x, y, z)
