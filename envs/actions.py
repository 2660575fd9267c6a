"""Action modes: how a policy's action in [-1, 1] drives the GaitController.

``prior``     no action (a zero-sized Box(0,)): the gait alone, for baselines and evaluation.
              Gymnasium's and SB3's check_env accept it (tested); SB3's algorithms cannot
              train on it (there is nothing to learn: PPO fails reshaping a 0-sized tensor).
``residual``  3 L joint offsets, ``action * residual_scale`` radians added to the gait's
              joint targets (``controller.step(joint_offsets=...)``).
``modulate``  gait parameters each step: [0] gait-rate multiplier 1 + a/2 in [0.5, 1.5]
              (``controller.speed_scale``), [1] swing-lift multiplier 1 + a/2 in [0.5, 1.5]
              (``controller.lift_scale``), [2] steering yaw rate a * max_yaw_rate rad/s
              (``controller.yaw_rate``); with ``modulate_residual`` 3 L residual offsets follow.
``joint``     3 L absolute joint targets: [-1, 1] maps linearly onto each joint's URDF
              [lower, upper] (``controller.step(joint_targets=...)``); no gait prior.

Actions outside [-1, 1] are clipped (policies with Gaussian heads overshoot); a wrong shape
or a non-finite value raises ValueError.
"""

from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

ACTION_MODES = ("prior", "residual", "modulate", "joint")
MODULATION_SPAN = 0.5  # rate and lift multipliers span 1 -/+ this
N_MODULATION = 3


class ActionMap:
    """One action mode for a walker with ``n_joints`` joints; ``space`` is its action space."""

    def __init__(
        self,
        mode: str,
        n_joints: int,
        *,
        residual_scale: float = 0.25,
        modulate_residual: bool = False,
        max_yaw_rate: float = math.radians(45.0),
    ):
        if mode not in ACTION_MODES:
            raise ValueError(f"action_mode must be one of {', '.join(ACTION_MODES)}, got {mode!r}")
        if not (math.isfinite(residual_scale) and residual_scale > 0):
            raise ValueError(f"residual_scale must be > 0 radians, got {residual_scale!r}")
        if not (math.isfinite(max_yaw_rate) and max_yaw_rate >= 0):
            raise ValueError(f"max_yaw_rate_deg must be >= 0, got {math.degrees(max_yaw_rate)!r}")
        self.mode = mode
        self.n_joints = n_joints
        self.residual_scale = float(residual_scale)
        self.modulate_residual = bool(modulate_residual)
        self.max_yaw_rate = float(max_yaw_rate)
        if mode == "prior":
            n = 0
        elif mode == "modulate":
            n = N_MODULATION + (n_joints if self.modulate_residual else 0)
        else:
            n = n_joints
        self.size = n
        self.space = spaces.Box(-1.0, 1.0, (n,), np.float32)
        self._lower: list[float] = []
        self._span: list[float] = []

    def bind(self, robot) -> None:
        """Read the joint limits of the robot the ``joint`` mode maps onto."""
        lo = [float(v) for v in np.ravel(robot.lower)]
        hi = [float(v) for v in np.ravel(robot.upper)]
        self._lower = lo
        self._span = [b - a for a, b in zip(lo, hi, strict=True)]

    def clip(self, action) -> list[float]:
        """The action as a list of floats clipped to [-1, 1]; checks its shape and values."""
        if self.size == 0 and (action is None or np.shape(action) == (0,)):
            return []  # prior: nothing to check or clip
        a = np.asarray(action, dtype=np.float64)
        if a.shape != (self.size,):
            raise ValueError(
                f"action for action_mode={self.mode!r} must have shape ({self.size},), "
                f"got {a.shape}"
            )
        if not np.isfinite(a).all():
            raise ValueError(f"action must be finite, got {action!r}")
        # np.clip's answer for finite values, without its Python wrapper (never in place:
        # ``a`` may be the caller's own array)
        b = np.maximum(a, -1.0)
        return np.minimum(b, 1.0, out=b).tolist()

    def step(self, ctl, a: list[float]) -> None:
        """Run one control step of ``ctl`` driven by the clipped action ``a``."""
        mode = self.mode
        if mode == "prior":
            ctl.step()
        elif mode == "residual":
            k = self.residual_scale
            ctl.step(joint_offsets=[k * v for v in a])
        elif mode == "modulate":
            ctl.speed_scale = 1.0 + MODULATION_SPAN * a[0]
            ctl.lift_scale = 1.0 + MODULATION_SPAN * a[1]
            ctl.yaw_rate = self.max_yaw_rate * a[2]
            if self.modulate_residual:
                k = self.residual_scale
                ctl.step(joint_offsets=[k * v for v in a[N_MODULATION:]])
            else:
                ctl.step()
        else:  # joint
            q = [
                lo + 0.5 * (v + 1.0) * s
                for lo, s, v in zip(self._lower, self._span, a, strict=True)
            ]
            ctl.step(joint_targets=q)
