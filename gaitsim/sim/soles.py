"""Soles in physics: the planned roll of each sole (``gaitsim.feet``) as ankle targets and
ankle joint position commands, every control step.

The foot planner plans each foot's *flat* ankle point (where the ankle is with the sole
flat on its plant); this driver moves it by the sole's planned pitch about the heel or toe
edge (``feet.ankle_offset``) and commands the ankle joints so that the sole lies on the
ground under it, pitched by the plan, given the leg's commanded joints and the body's
measured attitude (so the ankle folds by the ground's angle and by the body's tilt).
"""

from __future__ import annotations

import math

import numpy as np

from ..feet import (
    HIP_YAW_JOINT,
    ankle_joint_angles,
    ankle_offset,
    ground_frame,
    hip_yaws,
    rot_y,
    sole_pitch,
)
from ..terrain import Flat

ANKLE_FLOOR = 0.05  # a stance ankle's force limit is at least this share of its effort
COP_TOE_SHARE = 0.6  # a stance ankle's pitch may put the centre of pressure this share of
# the toe ahead of the ankle (behind it: the whole heel). The whole toe lets the ankle
# vault the body off its toe late in the stance, the heel's length ahead (a symmetric cap)
# leaves no reach to catch a forward topple: with the planned ZMP at the sole's centre the
# free mechanic ran ahead and fell up and down 5 deg from every start


class SoleDriver:
    """The soles of one robot's legs (``walker.soles``), driven along the foot plan."""

    def __init__(self, walker, robot):
        self.walker, self.robot = walker, robot
        self.soles = walker.soles
        self.n_legs = len(self.soles)
        self._heel = [s.heel for s in self.soles]
        self._toe = [s.toe for s in self.soles]
        self._h = [s.height for s in self.soles]
        self._corner = [s.corner for s in self.soles]
        self._width = [s.width for s in self.soles]
        self._yaws = np.array([s.yaws for s in self.soles])  # ankles that turn the sole
        self._turns = np.array([s.turns for s in self.soles])  # ... or hips that do
        self._hip_yaw = any(s.hip_yaw for s in self.soles)
        self._flat = isinstance(walker.terrain, Flat)
        self._strike = sole_pitch(False, 0.0, 1.0)  # the pitch a swing ends on
        self._ankle_lo = robot.body.ankle_lower
        self._ankle_hi = robot.body.ankle_upper
        self.pitch = [0.0] * self.n_legs  # this step's planned pitch per leg
        self.q = np.zeros(len(robot.body.ankle_joint_names))  # the last ankle command

    # ------------------------------------------------------------------ planned pitch
    def pitches(self, planner, ds: float) -> tuple[list[float], list[float]]:
        """Each sole's planned pitch now and ``ds`` of gait distance later."""
        duty, cycle = planner.duty, planner.cycle
        dst = ds / (duty * cycle)
        dsw = ds / ((1.0 - duty) * cycle) if duty < 1.0 else 0.0
        now, ahead = [], []
        for st, s, u in zip(planner.stance, planner.stance_progress, planner.swing_progress,
                            strict=True):  # fmt: skip
            now.append(sole_pitch(st, s, u))
            ahead.append(sole_pitch(st, min(s + dst, 1.0), min(u + dsw, 1.0)))
        self.pitch = now
        return now, ahead

    def rolled(self, pitches, stance, contacts, quats, feet, ahead: float,
               planted: bool = False):  # fmt: skip
        """The planned pitches a stance leg's ankle target follows (``pitches``: now and
        ``ds`` later): a planted sole (planned stance, touching) that is the only foot on
        the ground rolls onto its toe at most ``ahead`` radians past the pitch it
        measurably has over the ground under it (``measured_pitch``), and at most twice
        ``ahead`` a period later. Its leg then lifts the ankle only as the ankle really
        rolls the sole, so the foot stays loaded and pushes off until another foot lands;
        planned as it was, the leg lifted a still-flat sole off the ground and the body
        fell onto the landing foot (docs/bipeds.md, stop 54). A sole rolling onto its heel,
        one not down, or one sharing the ground with another follows its plan; with
        ``planted`` (``ControlConfig.roll_follow_planted``) one sharing the ground rolls so
        too: the trailing sole of a double support keeps its toe down to its lift-off
        instead of its leg lifting the toe off a sole whose roll lags (stop 56)."""
        now, later = list(pitches[0]), list(pitches[1])
        down = sum(1 for c in contacts if c)
        for i, (st, c) in enumerate(zip(stance, contacts, strict=True)):
            if st and c and (down == 1 or planted) and now[i] > 0.0:
                cap = max(self.measured_pitch(quats[i], feet[i]), 0.0) + ahead
                now[i], later[i] = min(now[i], cap), min(later[i], cap + ahead)
        return now, later

    def measured_pitch(self, quat, at) -> float:
        """A sole's pitch (rad, toe down positive, as planned) over the ground under
        ``at`` (x, y, ...): how far its long axis (the foot's x, quaternion ``quat``
        x, y, z, w) dips below the ground's plane. The scalar twin, in plain floats for the
        control step, of ``metrics.sole_on_ground``'s pitch, which the summary's touchdown
        and lift-off pitches use (tests/test_push_off.py holds the two together)."""
        x, y, z, w = quat
        ax = (1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y))
        nx, ny, nz = self._normal(at[0], at[1])
        d = -(ax[0] * nx + ax[1] * ny + ax[2] * nz)
        return math.asin(d if -1.0 < d < 1.0 else math.copysign(1.0, d))

    def _normal(self, x: float, y: float):
        """The ground's normal a sole at (x, y) lies on (``Walker.sole_ground``)."""
        if self._flat:
            return (0.0, 0.0, 1.0)
        n = self.walker.sole_ground(np.array([x, y]))[1]
        return (float(n[0]), float(n[1]), float(n[2]))

    def offset(self, i: int, pitch: float, heading: float, x: float, y: float):
        """Leg ``i``'s ankle offset (world x, y, z) for a sole pitched by ``pitch`` on the
        ground at (x, y), facing ``heading``."""
        dx, dz = ankle_offset(self._heel[i], self._toe[i], self._h[i], pitch,
                              self._corner[i])  # fmt: skip
        nx, ny, nz = self._normal(x, y)
        c, s = math.cos(heading), math.sin(heading)
        dot = c * nx + s * ny
        fx, fy, fz = c - dot * nx, s - dot * ny, -dot * nz  # the heading on the ground
        k = 1.0 / math.sqrt(fx * fx + fy * fy + fz * fz)
        return ((fx * dx * k + nx * dz), (fy * dx * k + ny * dz), (fz * dx * k + nz * dz))

    def facing(self, planner, i: int, body_heading: float) -> float:
        """Where leg ``i``'s sole faces: its foot's planned heading (``FootPlanner.heading``)
        if its ankle or its hip yaws, else the body's (a hanging leg cannot yaw its foot)."""
        return planner.heading(i) if self._turns[i] else body_heading

    def strike_offset(self, i: int, heading: float, x: float, y: float):
        """Where leg ``i``'s ankle is off its flat plant when its heel strikes."""
        return self.offset(i, self._strike, heading, x, y)

    def roll_targets(self, targets, pitches, headings, skip=()) -> None:
        """Move each leg's flat ankle target by its sole's roll (in place), each sole facing
        its ``headings``; ``skip``: legs whose target is a measured ankle point already."""
        for i, (t, p) in enumerate(zip(targets, pitches, strict=True)):
            if i in skip or p == 0.0:
                continue
            ox, oy, oz = self.offset(i, p, headings[i], t[0], t[1])
            targets[i] = (t[0] + ox, t[1] + oy, t[2] + oz)

    # ------------------------------------------------------------------ ankle commands
    def ankles(self, q_legs, rots, shares, targets, headings) -> np.ndarray:
        """The ankle joints (``feet.ankle_joint_names`` order) that set every sole on the
        ground under its target, facing its ``headings`` and pitched by this step's plan,
        for the legs at ``q_legs`` (flat, chain order). ``rots``: the virtual and the
        measured body rotation (row-major 3x3 each); ``shares``: each leg's weight on the
        virtual one. A stance ankle solved against the virtual body holds the leg, and so
        the body, upright over its sole (solved against the measured body it would follow
        the body's tilt and resist none of it); a swing ankle solved against the measured
        body lands its sole flat whatever the body's tilt. A leg with a hip yaw turns at
        the hip from each frame's heading to its sole's (``feet.hip_yaws``), its ankle
        then solved in that turned hip frame."""
        L = self.n_legs
        q = np.asarray(q_legs, dtype=float).reshape(L, 3)
        if self._flat:
            n = np.array([[0.0, 0.0, 1.0]] * L)
        else:
            n = self.walker.sole_ground(np.array([t[:2] for t in targets]))[1]
        pitch = np.asarray(self.pitch, dtype=float)
        world = None
        if self._yaws.any():
            world = ground_frame(n, np.asarray(headings, dtype=float)) @ rot_y(pitch)
        w = self._joint_shares(shares)
        angles = []
        for rot in rots:
            R = np.asarray(rot, dtype=float).reshape(3, 3)
            sole = np.einsum("ji,ljk->lik", R, world) if self._yaws.any() else None
            turn = (hip_yaws(self.soles, headings, math.atan2(R[1, 0], R[0, 0]))
                    if self._hip_yaw else None)  # fmt: skip
            angles.append(ankle_joint_angles(self.soles, q, n @ R, pitch, sole, turn))
        virtual, measured = angles
        self.q = np.clip(w * virtual + (1.0 - w) * measured, self._ankle_lo, self._ankle_hi)
        return self.q

    def gains(self, ankle: float, hip_yaw: float) -> list[float]:
        """Position gains of the feet's joints (``ankle_joint_names`` order): ``hip_yaw``
        for the legs' hip yaws, ``ankle`` for the ankles' own."""
        return [hip_yaw if j == HIP_YAW_JOINT else ankle for s in self.soles for j in s.joints]

    def _joint_shares(self, shares) -> np.ndarray:
        """Each leg's share (``shares``, per leg) repeated for each of its ankle joints."""
        return np.array([w for w, sole in zip(shares, self.soles, strict=True)
                         for _ in sole.joints])  # fmt: skip

    def cop_limits(self, normal, stance, full, share: float = 1.0,
                   toe: float = COP_TOE_SHARE):  # fmt: skip
        """Ankle torque ranges (N m, ``ankle_joint_names`` order) that keep each sole's
        centre of pressure on it, as (limit, bias): the torque may lie in [bias - limit,
        bias + limit]. The foot's ``normal`` force (N) times ``share`` of its lever:
        pitch from the whole heel behind the ankle to ``toe`` (a share; COP_TOE_SHARE by
        default, ``ControlConfig.cop_toe_share``) of the toe ahead of it; roll half the
        width either way; yaw free (the sole's friction holds its
        turn). A limit is at least ANKLE_FLOOR of the ``full`` effort (a foot not yet
        loaded still sets its sole) and at most the full effort. A swing ankle has the
        full effort, but a lifting foot's pitch keeps its stance range while its sole still
        touches the ground: given its whole effort at the planned lift-off, the ankle
        turned its toe onto the ground toward the planned toe-off in one control step,
        which struck the toe down again (the raptor's second touchdown a stance) and
        threw the body up (uphill, off its new stance heel). An ankle servo pushing harder
        than its range would roll the sole onto an edge, and the body over it."""
        limits, bias = [], []
        for i, sole in enumerate(self.soles):
            f = max(float(normal[i]), 0.0) * share
            touching = stance[i] or f > 0.0
            for joint in sole.joints:
                top = full[len(limits)]
                if joint in ("ankle_yaw", HIP_YAW_JOINT) or not touching or (
                        joint != "ankle_pitch" and not stance[i]):  # fmt: skip
                    limits.append(top)
                    bias.append(0.0)
                    continue
                if joint == "ankle_pitch":  # behind: the heel; ahead: part of the toe
                    lo, hi = -f * self._heel[i], f * toe * self._toe[i]
                else:
                    hi = f * 0.5 * self._width[i]
                    lo = -hi
                half, mid = max(0.5 * (hi - lo), ANKLE_FLOOR * top), 0.5 * (hi + lo)
                lo, hi = max(mid - half, -top), min(mid + half, top)
                limits.append(0.5 * (hi - lo))
                bias.append(0.5 * (hi + lo))
        return limits, bias

    def width(self, i: int) -> float:
        """Leg ``i``'s sole width (m)."""
        return self._width[i]
