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

from ..feet import ankle_angles, ankle_offset, ground_frame, sole_in_body, sole_pitch
from ..terrain import Flat


class SoleDriver:
    """The soles of one robot's legs (``walker.soles``), driven along the foot plan."""

    def __init__(self, walker, robot):
        self.walker, self.robot = walker, robot
        self.soles = walker.soles
        self.n_legs = len(self.soles)
        self._heel = [s.heel for s in self.soles]
        self._toe = [s.toe for s in self.soles]
        self._h = [s.height for s in self.soles]
        self._width = [s.width for s in self.soles]
        self._roll = [s.ankle == "pitch_roll" for s in self.soles]
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

    def _normal(self, x: float, y: float):
        if self._flat:
            return (0.0, 0.0, 1.0)
        n = self.walker.terrain.normal(x, y)
        return (float(n[0]), float(n[1]), float(n[2]))

    def offset(self, i: int, pitch: float, heading: float, x: float, y: float):
        """Leg ``i``'s ankle offset (world x, y, z) for a sole pitched by ``pitch`` on the
        ground at (x, y), facing ``heading``."""
        dx, dz = ankle_offset(self._heel[i], self._toe[i], self._h[i], pitch)
        nx, ny, nz = self._normal(x, y)
        c, s = math.cos(heading), math.sin(heading)
        dot = c * nx + s * ny
        fx, fy, fz = c - dot * nx, s - dot * ny, -dot * nz  # the heading on the ground
        k = 1.0 / math.sqrt(fx * fx + fy * fy + fz * fz)
        return ((fx * dx * k + nx * dz), (fy * dx * k + ny * dz), (fz * dx * k + nz * dz))

    def strike_offset(self, i: int, heading: float, x: float, y: float):
        """Where leg ``i``'s ankle is off its flat plant when its heel strikes."""
        return self.offset(i, self._strike, heading, x, y)

    def roll_targets(self, targets, pitches, heading: float, skip=()) -> None:
        """Move each leg's flat ankle target by its sole's roll (in place); ``skip``: legs
        whose target is a measured ankle point already."""
        for i, (t, p) in enumerate(zip(targets, pitches, strict=True)):
            if i in skip or p == 0.0:
                continue
            ox, oy, oz = self.offset(i, p, heading, t[0], t[1])
            targets[i] = (t[0] + ox, t[1] + oy, t[2] + oz)

    # ------------------------------------------------------------------ ankle commands
    def ankles(self, q_legs, rots, shares, targets) -> np.ndarray:
        """The ankle joints (``feet.ankle_joint_names`` order) that set every sole on the
        ground under its target, pitched by this step's plan, for the legs at ``q_legs``
        (flat, chain order). ``rots``: the virtual and the measured body rotation
        (row-major 3x3 each); ``shares``: each leg's weight on the virtual one. A stance
        ankle solved against the virtual body holds the leg, and so the body, upright over
        its sole (solved against the measured body it would follow the body's tilt and
        resist none of it); a swing ankle solved against the measured body lands its sole
        flat whatever the body's tilt."""
        L = self.n_legs
        q = np.asarray(q_legs, dtype=float).reshape(L, 3)
        if self._flat:
            n = np.array([[0.0, 0.0, 1.0]] * L)
        else:
            xy = np.array([t[:2] for t in targets])
            n = self.walker.terrain.normal(xy[:, 0], xy[:, 1])
        pitch = np.asarray(self.pitch, dtype=float)
        w = np.asarray(shares, dtype=float)
        angles = []
        for rot in rots:
            R = np.asarray(rot, dtype=float).reshape(3, 3)
            sole = sole_in_body(q, n @ R, pitch)  # n @ R: the normals in the body frame
            angles.append(ankle_angles(q, sole))
        (pv, rv), (pm, rm) = angles
        pitch, roll = w * pv + (1.0 - w) * pm, w * rv + (1.0 - w) * rm
        out = []
        for i in range(L):
            out.append(pitch[i])
            if self._roll[i]:
                out.append(roll[i])
        self.q = np.clip(np.array(out), self._ankle_lo, self._ankle_hi)
        return self.q

    def sole_frame(self, heading: float, x: float, y: float) -> np.ndarray:
        """The ground frame under (x, y) facing ``heading`` (for the measured pitch)."""
        return ground_frame(np.array(self._normal(x, y)), np.array(heading))
