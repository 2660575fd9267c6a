"""The body modes other than plain physics: a reported assist and a kinematic base.

``assist``: a virtual spring-damper on the body's height, roll and pitch toward the
reference body, applied every physics substep as an external force and torque. The height
damper acts on the body's vertical velocity less the reference's, so a reference that
bobs or climbs a slope is followed, not braked (measured from zero, the assisted
mechanic's net lift was -0.11 of its weight climbing 10 deg and +0.16 descending; now
+0.02 to +0.03 both ways). The attitude damper damps all tilting, the planned roll's
too: damping only the departure from the reference's tilt rate made generated bipeds
1060 and 1088 (4-5 g) run off up a 5 deg slope and kneel. What it does is reported
(work, mean force and torque) so that a run can say how much it was carried.
``kinematic``: the base follows the reference exactly (pose and velocity set every
substep); only the legs are simulated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..geometry import GRAVITY
from .reference import quat_from_rot, rot_from_quat, tilt_error


@dataclass(frozen=True)
class AssistGains:
    """The assist's spring-dampers: height frequency (Hz), attitude stiffness, damping ratio."""

    # 1 Hz: below the gaits' own bounce (two steps a cycle of 0.4-2.3 s), so it takes the
    # slow sag, not the bounce. At 3 Hz it fought the legs' own height control at every
    # step: on the built-in bipeds its mean |force| was 0.21-0.47 of the weight while its
    # net lift was -0.22 to 0.31 (the assisted mechanic `carried` on 5 and 10 deg slopes
    # and 2 cm rough ground); at 1 Hz 0.09-0.20, and both bipeds walk every such ground
    height_hz: float = 1.0
    attitude_hold: float = 10.0  # roll/pitch stiffness as a multiple of m g h
    damping_ratio: float = 1.0


class BodyAssist:
    """The assist's spring-damper on one robot; ``apply(pos, rot, dt)`` before each of the
    engine's own steps pulls the base toward the reference pose (position, row-major
    rotation)."""

    def __init__(self, robot, gains: AssistGains, standing_height: float,
                 tilt_inertia: float):  # fmt: skip
        self.robot, self.gains = robot, gains
        m = robot.mass
        # roll/pitch: a spring stiff enough to hold the body upright over its feet
        # (``attitude_hold`` times the toppling stiffness m g h), damped against the whole
        # robot's own rotational inertia so the explicit torque stays stable
        self.k_att = gains.attitude_hold * m * GRAVITY * standing_height
        self.d_att = 2 * gains.damping_ratio * math.sqrt(self.k_att * tilt_inertia)
        self.work = 0.0  # J
        self.force_impulse = 0.0  # N s, of |vertical force|
        self.lift_impulse = 0.0  # N s, of the vertical force as signed (up: +)
        self.torque_impulse = 0.0  # N m s

    def apply(self, pos, rot, dt: float, climb: float = 0.0) -> None:
        """Set the wrench toward the reference pose for the next ``dt`` seconds of physics
        (one of the engine's own steps: ``World.step``'s ``before``) and add it to the
        reported figures. ``climb``: the reference's own vertical velocity (m/s) over
        that time, which the height damper leaves alone (a bob, a slope's climb); the
        attitude damper damps all tilting (module docstring)."""
        g, robot = self.gains, self.robot
        m = robot.mass
        wh = 2 * math.pi * g.height_hz
        x, quat = robot.base_pose()
        v, om = robot.base_velocity()
        fz = m * (wh * wh * (pos[2] - x[2]) - 2 * g.damping_ratio * wh * (v[2] - climb))
        # rotation error R_ref R^T as a rotation vector; keep its world x, y (roll, pitch)
        ex, ey = tilt_error(rot, rot_from_quat(quat))
        tx = self.k_att * ex - self.d_att * om[0]
        ty = self.k_att * ey - self.d_att * om[1]
        robot.apply_base_wrench((0.0, 0.0, fz), (tx, ty, 0.0))
        self.work += (abs(fz * v[2]) + abs(tx * om[0]) + abs(ty * om[1])) * dt
        self.force_impulse += abs(fz) * dt
        self.lift_impulse += fz * dt
        self.torque_impulse += math.hypot(tx, ty) * dt


def place_base(world, robot, pos, rot, velocity, yaw_rate: float) -> None:
    """Set the base to a pose and velocity (the kinematic body mode, every substep: a
    fixed constraint would trail a moving pivot by Bullet's slow error correction)."""
    robot.place_base(pos, quat_from_rot(rot), velocity, (0.0, 0.0, yaw_rate))
