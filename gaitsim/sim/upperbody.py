"""The upper body in physics: the torso, arms and head of ``gaitsim.upper`` as joint
position commands, every control step.

The waist and the arms follow the kinematic rules at the controller's gait distance (pure
functions of the gait phase). The head is stabilised against the *measured* body: its
neck base's height is low-passed over one gait cycle, the neck pitches so that the head
cancels ``gaze_gain`` of the base's deviation from that mean (and of the body's measured
pitch), the head pitches to stay level, and the neck turns the gaze along the heading the
reference path has ``preview_s`` seconds ahead (the measured chest yaw taken out). With
``gaze="fixed"`` the neck holds its neutral pose.
"""

from __future__ import annotations

import math

import numpy as np

from ..upper import NeckAngles, hip_twist, upper_joints
from .reference import wrap, yaw_of


class UpperBodyDriver:
    """Commands one robot's upper body (``walker.upper``) along the controller's gait."""

    def __init__(self, walker, robot, dt: float, sub_dt: float):
        self.walker, self.robot, self.dt, self.sub_dt = walker, robot, dt, sub_dt
        self.ug = walker.upper
        self.names = self.ug.joint_names
        self._head = self.ug.head
        self._k_neck = self.names.index("neck_yaw") if self._head is not None else None
        self._k_waist = 0 if self.ug.torso is not None else None
        self._tau = walker.cycle / walker.nominal_speed  # s: the neck base's low-pass
        self._mean_z = self._hips_mean = None
        self._held = None
        self._last = None
        self._twisting = self.ug.torso is not None and walker.twist  # twist off: waist at 0
        # a head alone (no torso, no arms): the rules hold it neutral at every distance, so
        # ``rule`` works them out once (about 35 us of numpy on scalars per control step)
        self._fixed_rule = self._fixed_list = None
        if self.ug.torso is None and self.ug.arms is None:
            self._fixed_rule = self.rule(0.0)
            self._fixed_list = self._fixed_rule.tolist()
        # the loops' switches, worked out once (``hold`` runs every physics substep)
        self._stabilised = self._head is not None and walker.gaze == "stabilised"
        self._torso = self.ug.torso is not None
        if self._head is not None:
            k = self._k_neck
            self._neck_angles = NeckAngles(self._head)
            self._gaze_gain = self._head.gaze_gain
            self._mount = tuple(float(c) for c in self._head.mount)
            self._lo = tuple(map(float, robot.body.upper_lower[k : k + 3]))
            self._hi = tuple(map(float, robot.body.upper_upper[k : k + 3]))
        if self.ug.torso is not None:
            self._waist_at = tuple(float(c) for c in self.ug.torso.waist)
            self._wlo = float(robot.body.upper_lower[0])
            self._whi = float(robot.body.upper_upper[0])

    def rule(self, s: float, speed_scale: float = 1.0) -> np.ndarray:
        """The kinematic rules' joints at gait distance ``s``, the head held neutral."""
        if self._fixed_rule is not None:
            return self._fixed_rule.copy()
        w = self.walker
        return upper_joints(self.ug, w.gait, np.asarray(s, dtype=float),
                            speed_scale=w.speed_scale * speed_scale, arms=w.arms,
                            twist=w.twist, gaze="fixed")  # fmt: skip

    def _rule_list(self, s: float) -> list[float]:
        """``rule(s)`` as a fresh list of floats (the control loop's joints: plain floats
        are cheaper than numpy's per-element access on a handful of joints)."""
        if self._fixed_list is not None:
            return list(self._fixed_list)
        return self.rule(s).tolist()

    def reset(self, q0) -> None:
        """Start from joints ``q0`` (the Walker's pose), held."""
        self._mean_z = self._hips_mean = None
        self._held = None  # the pitch loop's last neck and head commands
        self._last = np.ravel(np.asarray(q0, dtype=float)).tolist()
        self.robot.set_upper_positions(self._last)
        self.robot.command_upper(self._last)

    @property
    def closed_loop(self) -> bool:
        """Whether a loop on the measured body runs every physics substep (``hold``): the
        chest's yaw (a twisting torso) or the head's pitch (a stabilised head)."""
        return self._twisting or self._stabilised

    def step(self, s: float, sensed, gaze_heading: float) -> list[float]:
        """Command the joints for gait distance ``s`` and the measured state ``sensed``;
        ``gaze_heading``: the reference path's heading ``preview_s`` ahead. Returns the
        joint targets (a list, which ``hold`` goes on updating every substep)."""
        w = self.walker
        q = self._rule_list(s)
        dt = self.dt
        # the rules' velocity feedforward
        self._v = [(a - b) / dt for a, b in zip(q, self._last, strict=True)]
        self._last = list(q)
        self._q = q
        if self._torso and w.twist:  # the shoulders' twist, in the world
            tw = float(hip_twist(self.ug, w.gait, s, w.speed_scale))
            self._chest = -self.ug.torso.shoulder_ratio * tw
        if self._stabilised:
            waist = sensed.upper_positions[0] if self._torso else 0.0
            q[self._k_neck] = wrap(gaze_heading - yaw_of(sensed.quaternion) - waist)
        if self.closed_loop:
            self.hold(sensed.position, sensed.quaternion, self.sub_dt)
        else:
            self.robot.command_upper(q, self._v)
        return q

    def hold(self, position, quaternion, dt: float) -> None:
        """The loops on the measured body pose now (position, (x, y, z, w)) for the next
        ``dt`` seconds, run every physics substep (a loop closed once per control period
        lags the body by a period):

        - the waist turns the chest to the shoulders' twist about the hips' mean heading
          (their yaw low-passed over a gait cycle), whatever the hips' measured twist about
          it (twist off: the waist holds 0, the chest turns with the hips). About the path's
          heading instead, a body lagging on a turn had its chest pulled toward the path
          and its hips, by the reaction, further away (the mechanic lost a 1 m arc);
        - the head: the neck base's height is low-passed over a gait cycle, the neck
          pitches to cancel ``gaze_gain`` of its deviation, the head stays level.
        """
        q = self._q
        waist = 0.0
        if self._twisting:  # the hips' yaw about their own mean heading over a gait cycle
            yaw = yaw_of(quaternion)
            if self._hips_mean is None:
                self._hips_mean = yaw
            self._hips_mean += min(dt / self._tau, 1.0) * wrap(yaw - self._hips_mean)
            hips = wrap(yaw - self._hips_mean)
            waist = q[0] = min(max(self._chest - hips, self._wlo), self._whi)
        if self._stabilised:  # the body's rotation's bottom row (z of each axis)
            x, y, z, w = quaternion
            self._hold_head(q, 2 * (x * z - w * y), 2 * (y * z + w * x),
                            1 - 2 * (x * x + y * y), position[2], waist, dt)  # fmt: skip
        self.robot.command_upper(q, self._v)

    def _hold_head(self, q, r0: float, r1: float, r2: float, height: float, waist: float,
                   dt: float) -> None:  # fmt: skip
        """The neck's and head's pitch for the body whose origin is ``height`` up and whose
        rotation's bottom row is (``r0``, ``r1``, ``r2``) (the world z of the body's x, y
        and z axes)."""
        k = self._k_neck
        m0, m1, m2 = self._mount
        if self._torso:  # the mount turns with the chest about the waist
            o = self._waist_at
            c, sn = math.cos(waist), math.sin(waist)
            dx, dy = m0 - o[0], m1 - o[1]
            m0, m1 = o[0] + c * dx - sn * dy, o[1] + sn * dx + c * dy
        z = height + r0 * m0 + r1 * m1 + r2 * m2
        mean = self._mean_z
        if mean is None:
            mean = z
        mean += min(dt / self._tau, 1.0) * (z - mean)
        self._mean_z = mean
        # the body's pitch, + nose down: asin of -r0 clipped as max(-1, min(1, -r0))
        # (conditionals: the same answers, NaN included)
        a = -r0
        a = a if a < 1.0 else 1.0
        pitch = math.asin(a if a > -1.0 else -1.0)
        neck_p, head_p = self._neck_angles(-self._gaze_gain * (z - mean), pitch)
        (lo0, lo1, lo2), (hi0, hi1, hi2) = self._lo, self._hi  # the joints' limits
        # clipped as min(max(x, lo), hi) (np.clip's numbers), as conditionals: the same
        # answers, NaN included (max(a, b) is b only when b > a; min(a, b) only when b < a)
        a = q[k]
        a = lo0 if lo0 > a else a
        q[k] = hi0 if hi0 < a else a
        a = lo1 if lo1 > neck_p else neck_p
        q[k + 1] = neck = hi1 if hi1 < a else a
        a = lo2 if lo2 > head_p else head_p
        q[k + 2] = head = hi2 if hi2 < a else a
        held = self._held
        if held is not None:  # the pitch loop's own velocity feedforward
            v = self._v
            v[k + 1] = (neck - held[0]) / dt
            v[k + 2] = (head - held[1]) / dt
        self._held = (neck, head)
