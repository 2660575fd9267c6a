"""The reference body over distance, and the small rotation helpers of the control loop.

``ReferenceTable`` tabulates ``Walker.body_at`` (the body's ideal pose along its path)
so that a control step looks a pose up in a few float operations. Rotations here are
row-major 3x3 matrices as 9-tuples and quaternions as (x, y, z, w): plain floats, because
numpy's per-call cost on a handful of numbers is larger than the physics step they serve.
"""

from __future__ import annotations

import math

import numpy as np

from ..walker import Walker

TABLE_SAMPLES_PER_CYCLE = 240  # reference-body table resolution
TABLE_CHUNK_CYCLES = 4  # the table grows by this many cycles at a time


class ReferenceTable:
    """The Walker's body pose over distance, tabulated and linearly interpolated.

    Building it is vectorized (one ``body_at`` per chunk of cycles, or for the whole
    ``horizon`` up front when the run's length is known); a lookup is a few float
    operations, cheap enough for every control step and substep. Samples are kept in flat
    lists of plain floats (3 per position, 9 per rotation): numpy scalars would make every
    lookup several times slower, and nested tuples cost more to build than the poses.
    """

    def __init__(self, walker: Walker, horizon: float = 0.0):
        self.walker = walker
        self.key = walker.key  # the walkers this table serves
        self.ds = walker.cycle / TABLE_SAMPLES_PER_CYCLE
        self.n = 0  # samples so far, at s = 0, ds, 2 ds, ...
        self.pos: list[float] = []
        self.rot: list[float] = []  # row-major
        self.heading: list[float] = []
        self.moves: list[bool] = []
        # the last three lookups, most recent first (``lookup``)
        self._s0 = self._s1 = self._s2 = None
        self._v0 = self._v1 = self._v2 = None
        self._extend(horizon)

    def _extend(self, s_max: float) -> None:
        n0 = self.n
        n1 = max(n0 + TABLE_CHUNK_CYCLES * TABLE_SAMPLES_PER_CYCLE, int(s_max / self.ds) + 2)
        s = np.arange(n0, n1 + 1) * self.ds  # samples n0 .. n1, all new
        body, rot, heading = self.walker.body_at(s)
        xy0, _ = self.walker.path.pose(s)
        xy1, _ = self.walker.path.pose(s + 1e-3)
        moves = np.hypot(*(xy1 - xy0).T) > 0.5e-3  # does the path translate here?
        self.pos.extend(body.ravel().tolist())
        self.rot.extend(rot.ravel().tolist())
        self.heading.extend(heading.tolist())
        self.moves.extend(moves.tolist())
        self.n = n1 + 1

    def lookup(self, s: float):
        """(position (3 floats), rotation row-major (9 floats), heading, path translates)."""
        # the last three distances are remembered (a lookup is a pure function of s): a
        # control step looks up where the body is, where it will be and where the gaze
        # looks ahead, and the next step starts from the second
        if s == self._s0:
            return self._v0
        if s == self._s1:
            self._s0, self._v0, self._s1, self._v1 = s, self._v1, self._s0, self._v0
            return self._v0
        if s == self._s2:
            self._s0, self._v0, self._s1, self._v1, self._s2, self._v2 = (
                s, self._v2, self._s0, self._v0, self._s1, self._v1,
            )  # fmt: skip
            return self._v0
        v = self._lookup(s)
        self._s2, self._v2, self._s1, self._v1 = self._s1, self._v1, self._s0, self._v0
        self._s0, self._v0 = s, v
        return v

    def heading_at(self, s: float) -> float:
        """``lookup(s)``'s heading alone (the same numbers): a look-up of the path's heading
        ahead (the gaze's) needs no pose, and is not remembered (no later step asks again)."""
        i, w = self._cell(s)
        h0, h1 = self.heading[i], self.heading[i + 1]
        return h0 + w * (h1 - h0)

    def _cell(self, s: float) -> tuple[int, float]:
        """The table sample at or before distance ``s`` (the table grown to hold the one
        after it) and ``s``'s share of the way to the next."""
        f = max(s, 0.0) / self.ds
        i = int(f)
        if i + 1 >= self.n:
            self._extend(s)
        return i, f - i

    def _lookup(self, s: float):
        i, w = self._cell(s)
        ax, ay, az, bx, by, bz = self.pos[3 * i : 3 * i + 6]
        pos = (ax + w * (bx - ax), ay + w * (by - ay), az + w * (bz - az))
        (
            r0, r1, r2, r3, r4, r5, r6, r7, r8,
            s0, s1, s2, s3, s4, s5, s6, s7, s8,
        ) = self.rot[9 * i : 9 * i + 18]  # fmt: skip
        rot = (
            r0 + w * (s0 - r0), r1 + w * (s1 - r1), r2 + w * (s2 - r2),
            r3 + w * (s3 - r3), r4 + w * (s4 - r4), r5 + w * (s5 - r5),
            r6 + w * (s6 - r6), r7 + w * (s7 - r7), r8 + w * (s8 - r8),
        )  # fmt: skip
        h0, h1 = self.heading[i], self.heading[i + 1]
        return pos, rot, h0 + w * (h1 - h0), self.moves[i]


def yawed(r, c: float, s: float) -> tuple:
    """Rz(angle) @ R for a row-major rotation R, given cos and sin of the angle."""
    return (
        c * r[0] - s * r[3], c * r[1] - s * r[4], c * r[2] - s * r[5],
        s * r[0] + c * r[3], s * r[1] + c * r[4], s * r[2] + c * r[5],
        r[6], r[7], r[8],
    )  # fmt: skip


def quat_from_rot(r) -> tuple[float, float, float, float]:
    """Row-major 3x3 rotation (9 floats, re-orthogonalized by the formula) -> (x, y, z, w)."""
    m00, m01, m02, m10, m11, m12, m20, m21, m22 = r
    tr = m00 + m11 + m22
    if tr > 0:
        k = 0.5 / math.sqrt(tr + 1.0)
        q = ((m21 - m12) * k, (m02 - m20) * k, (m10 - m01) * k, 0.25 / k)
    elif m00 > m11 and m00 > m22:
        k = 2.0 * math.sqrt(1.0 + m00 - m11 - m22)
        q = (0.25 * k, (m01 + m10) / k, (m02 + m20) / k, (m21 - m12) / k)
    elif m11 > m22:
        k = 2.0 * math.sqrt(1.0 + m11 - m00 - m22)
        q = ((m01 + m10) / k, 0.25 * k, (m12 + m21) / k, (m02 - m20) / k)
    else:
        k = 2.0 * math.sqrt(1.0 + m22 - m00 - m11)
        q = ((m02 + m20) / k, (m12 + m21) / k, 0.25 * k, (m10 - m01) / k)
    n = math.sqrt(sum(c * c for c in q))
    return tuple(c / n for c in q)


def rot_from_quat(q) -> tuple:
    """(x, y, z, w) unit quaternion -> row-major 3x3 rotation (9 floats)."""
    x, y, z, w = q
    return (
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
    )  # fmt: skip


def spun(rot, omega, h: float) -> tuple:
    """Row-major rotation ``rot`` turned on by the world angular velocity ``omega`` (rad/s)
    for ``h`` seconds: R(omega h) rot, R from the rotation vector (9 floats)."""
    wx, wy, wz = omega[0] * h, omega[1] * h, omega[2] * h
    angle = math.sqrt(wx * wx + wy * wy + wz * wz)
    if angle < 1e-15:
        return tuple(rot)
    s = math.sin(0.5 * angle) / angle
    a = rot_from_quat((wx * s, wy * s, wz * s, math.cos(0.5 * angle)))
    return tuple(a[3 * r] * rot[c] + a[3 * r + 1] * rot[3 + c] + a[3 * r + 2] * rot[6 + c]
                 for r in range(3) for c in range(3))  # fmt: skip


def yaw_of(q) -> float:
    """Yaw (rad) of an (x, y, z, w) quaternion."""
    x, y, z, w = q
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def wrap(a: float) -> float:
    """An angle wrapped into [-pi, pi)."""
    return (a + math.pi) % (2 * math.pi) - math.pi


def carried(vpos, vrot, rot, rot2, dpos, z2):
    """The virtual body carried along by the reference's motion over one step."""
    # rotation increment of the reference, applied in the world: R2 @ R1^T @ R_v
    # (written out: generator sums over nine entries cost more than the physics step)
    a0, a1, a2, a3, a4, a5, a6, a7, a8 = rot2
    b0, b1, b2, b3, b4, b5, b6, b7, b8 = rot
    i0, i1, i2 = (
        a0 * b0 + a1 * b1 + a2 * b2,
        a0 * b3 + a1 * b4 + a2 * b5,
        a0 * b6 + a1 * b7 + a2 * b8,
    )
    i3, i4, i5 = (
        a3 * b0 + a4 * b1 + a5 * b2,
        a3 * b3 + a4 * b4 + a5 * b5,
        a3 * b6 + a4 * b7 + a5 * b8,
    )
    i6, i7, i8 = (
        a6 * b0 + a7 * b1 + a8 * b2,
        a6 * b3 + a7 * b4 + a8 * b5,
        a6 * b6 + a7 * b7 + a8 * b8,
    )
    v0, v1, v2, v3, v4, v5, v6, v7, v8 = vrot
    r = (
        i0 * v0 + i1 * v3 + i2 * v6, i0 * v1 + i1 * v4 + i2 * v7, i0 * v2 + i1 * v5 + i2 * v8,
        i3 * v0 + i4 * v3 + i5 * v6, i3 * v1 + i4 * v4 + i5 * v7, i3 * v2 + i4 * v5 + i5 * v8,
        i6 * v0 + i7 * v3 + i8 * v6, i6 * v1 + i7 * v4 + i8 * v7, i6 * v2 + i7 * v5 + i8 * v8,
    )  # fmt: skip
    return (vpos[0] + dpos[0], vpos[1] + dpos[1], z2), r


def tilt_error(ref, cur) -> tuple[float, float]:
    """World x, y components of the rotation vector taking ``cur`` to ``ref`` (row-major)."""
    # E = ref @ cur^T; small-angle vector from its skew part (exact direction, |angle| < pi)
    e = [sum(ref[3 * i + k] * cur[3 * j + k] for k in range(3)) for i in range(3) for j in range(3)]
    vx, vy, vz = e[7] - e[5], e[2] - e[6], e[3] - e[1]
    s = 0.5 * math.sqrt(vx * vx + vy * vy + vz * vz)
    c = 0.5 * (e[0] + e[4] + e[8] - 1.0)
    ang = math.atan2(s, c)
    k = ang / (2 * s) if s > 1e-12 else 0.5
    return vx * k, vy * k
