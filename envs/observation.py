"""The observation vector of an L-legged walker: layout, bounds and assembly.

Index ranges (L legs, U upper-body joints, 12 + 9 L + 2 U values, float32):

==================  ==================  ===============================================
[0, 3)              gravity_body        unit gravity vector in the body frame
[3, 6)              linear_velocity     body linear velocity in the body frame (m/s)
[6, 9)              angular_velocity    body angular velocity in the body frame (rad/s)
[9, 10)             height              body origin over the ground below it (m)
[10, 10+3L)         joint_position      joint angles, chain order (docs/architecture.md; rad)
[10+3L, 10+6L)      joint_velocity      joint velocities (rad/s)
[10+6L, 10+7L)      phase_sin           sin(2 pi phase) of each leg's gait cycle
[10+7L, 10+8L)      phase_cos           cos(2 pi phase)
[10+8L, 10+9L)      contact             1 where the foot touches the ground, else 0
[10+9L, 10+9L+U)    upper_position      upper-body joint angles, gaitsim.upper order (rad)
[10+9L+U, 10+9L+2U) upper_velocity      upper-body joint velocities (rad/s)
[10+9L+2U, +2)      command             commanded speed (m/s), commanded yaw rate (rad/s)
==================  ==================  ===============================================

The upper-body blocks exist only for walkers with an upper body (U > 0: fox and hound have
a head, 3 joints; mechanic a torso, arms and a head, 8); without one (U = 0) the vector is
the legs' 12 + 9 L values alone. They sit just before the command, so every other block
keeps its index and the command stays the last two values for every walker.

Bounds are finite; the few values that can exceed them (velocities in a violent fall, the
height off the edge of the ground) are clipped to them, so every observation lies in the
space. Assembly is plain float arithmetic: it runs every control step.
"""

from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

LINEAR_VELOCITY_MAX = 10.0  # m/s
ANGULAR_VELOCITY_MAX = 50.0  # rad/s
JOINT_VELOCITY_MAX = 100.0  # rad/s
JOINT_MARGIN = 0.5  # rad beyond the URDF limits (limits are soft in PyBullet)
HEIGHT_RANGE = (-1.0, 4.0)  # standing heights
TAU = 2.0 * math.pi


def layout(n_legs: int, n_upper: int = 0) -> dict[str, slice]:
    """Name -> slice of every block of the observation vector (``n_upper`` upper-body
    joints: the upper_position and upper_velocity blocks, left out when 0)."""
    sizes = [
        ("gravity_body", 3),
        ("linear_velocity", 3),
        ("angular_velocity", 3),
        ("height", 1),
        ("joint_position", 3 * n_legs),
        ("joint_velocity", 3 * n_legs),
        ("phase_sin", n_legs),
        ("phase_cos", n_legs),
        ("contact", n_legs),
    ]
    if n_upper:
        sizes += [("upper_position", n_upper), ("upper_velocity", n_upper)]
    sizes.append(("command", 2))
    out, k = {}, 0
    for name, n in sizes:
        out[name] = slice(k, k + n)
        k += n
    return out


class Observer:
    """Builds observations of one walker; ``space`` is the observation space.
    ``upper_limits``: the upper body's joint (lower, upper) limits, each (U,); None or
    empty for a walker without one."""

    def __init__(self, n_legs, joint_lower, joint_upper, standing_height, speed_max, yaw_max,
                 upper_limits=None):  # fmt: skip
        self.n_legs = n_legs
        ulo, uhi = upper_limits if upper_limits is not None else ((), ())
        self.n_upper = len(ulo)
        self.slices = layout(n_legs, self.n_upper)
        n = self.slices["command"].stop
        low = np.empty(n, np.float64)
        high = np.empty(n, np.float64)

        def put(name, lo, hi):
            low[self.slices[name]] = lo
            high[self.slices[name]] = hi

        put("gravity_body", -1.0, 1.0)
        put("linear_velocity", -LINEAR_VELOCITY_MAX, LINEAR_VELOCITY_MAX)
        put("angular_velocity", -ANGULAR_VELOCITY_MAX, ANGULAR_VELOCITY_MAX)
        put("height", HEIGHT_RANGE[0] * standing_height, HEIGHT_RANGE[1] * standing_height)
        put(
            "joint_position",
            np.ravel(joint_lower) - JOINT_MARGIN,
            np.ravel(joint_upper) + JOINT_MARGIN,
        )
        put("joint_velocity", -JOINT_VELOCITY_MAX, JOINT_VELOCITY_MAX)
        put("phase_sin", -1.0, 1.0)
        put("phase_cos", -1.0, 1.0)
        put("contact", 0.0, 1.0)
        low[self.slices["command"]] = (0.0, -yaw_max)
        high[self.slices["command"]] = (speed_max, yaw_max)
        if self.n_upper:
            put("upper_position", np.ravel(ulo) - JOINT_MARGIN, np.ravel(uhi) + JOINT_MARGIN)
            put("upper_velocity", -JOINT_VELOCITY_MAX, JOINT_VELOCITY_MAX)
        self.low = low.astype(np.float32)
        self.high = high.astype(np.float32)
        self.space = spaces.Box(self.low, self.high, dtype=np.float32)

    def build(self, sensed, height, phases, contacts, speed, yaw_rate,
              upper=None) -> np.ndarray:  # fmt: skip
        """The observation from one Sensed reading and the task's quantities.

        ``phases``: each leg's position in its gait cycle, in [0, 1); ``upper``: the upper
        body's joint (positions, velocities), each (U,) (``Robot.upper_state()``), for a
        walker with one.
        """
        x, y, z, w = sensed.quaternion
        # body-to-world rotation R from the unit quaternion; body-frame vectors are R^T v
        r00, r01, r02 = 1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)
        r10, r11, r12 = 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)
        r20, r21, r22 = 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)
        vx, vy, vz = sensed.linear_velocity
        wx, wy, wz = sensed.angular_velocity
        out = [
            -r20,
            -r21,
            -r22,
            r00 * vx + r10 * vy + r20 * vz,
            r01 * vx + r11 * vy + r21 * vz,
            r02 * vx + r12 * vy + r22 * vz,
            r00 * wx + r10 * wy + r20 * wz,
            r01 * wx + r11 * wy + r21 * wz,
            r02 * wx + r12 * wy + r22 * wz,
            height,
        ]
        out += sensed.joint_positions
        out += sensed.joint_velocities
        angles = [TAU * u for u in phases]
        out += map(math.sin, angles)
        out += map(math.cos, angles)
        out += map(float, contacts)  # True -> 1.0
        if self.n_upper:
            out += map(float, upper[0])
            out += map(float, upper[1])
        out += (speed, yaw_rate)
        obs = np.array(out, dtype=np.float32)
        np.maximum(obs, self.low, out=obs)  # np.clip's answer, without its Python wrapper
        return np.minimum(obs, self.high, out=obs)
