"""What the two engines' worlds and robots share, engine-free (no pybullet, no mujoco).

``WorldBase``: the step count and clock, the lifetime flags and the context manager.
``RobotBase``: the walker's compiled body and the construction sequence (load the URDF,
index it, start limp in the home pose at the standing height, soles flat), the shape
checks and the standing height. Each engine's module fills in the engine calls.
"""

from __future__ import annotations

import math

import numpy as np

from ..body import compile_body
from ..feet import ankle_joint_angles
from ..geometry import CLOCK_GAIN_SLACK, GRAVITY, PHYSICS_HZ
from ..ik import leg_ik
from ..terrain import Flat


class WorldBase:
    """A world's settings, clock and lifetime: gravity, a fixed time step, a ground from
    ``terrain`` (``Flat()`` by default), the solver's iteration cap and the ground's
    friction; ``gui`` asks for a window. Subclasses build the engine's world in ``_start``
    (and set ``_open``), and step and close it."""

    _steps: int = 0
    _open: bool = False

    def __init__(
        self,
        terrain=None,
        *,
        gui: bool = False,
        time_step: float = 1.0 / 240.0,
        gravity: float = GRAVITY,
        solver_iterations: int = 50,
        friction: float = 1.0,
    ):
        if not (math.isfinite(time_step) and time_step > 0):
            raise ValueError(f"time_step must be a positive number of seconds, got {time_step!r}")
        self.terrain = terrain if terrain is not None else Flat()
        self.dt = float(time_step)
        self.gravity = float(gravity)
        self.solver_iterations = int(solver_iterations)
        self.friction = float(friction)
        self._steps = 0
        self._start(bool(gui))

    def _start(self, gui: bool) -> None:  # pragma: no cover - each engine has its own
        raise NotImplementedError

    @property
    def time(self) -> float:
        """Simulated seconds since the world was created."""
        return self._steps * self.dt

    @property
    def steps(self) -> int:
        return self._steps

    @property
    def closed(self) -> bool:
        return not self._open

    def close(self) -> None:  # pragma: no cover - each engine has its own
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def gain_scale(dt: float, clock: float = 1.0) -> float:
    """The factor that turns a motor's position gain, given as PyBullet's per-step number at
    ``geometry.PHYSICS_HZ`` (every gain in gaitsim: ``ControlConfig.kp``, DEFAULT_KP), into
    the per-step number at time step ``dt``: ``PHYSICS_HZ * dt``. PyBullet's motor closes
    ``kp`` of a position error per physics step, so without it a walker run at twice the
    rate would get legs twice as stiff per second (measured on generated walker 121 at 480
    Hz: 1.29 touchdowns per stance unscaled, 0.99 scaled). Exactly 1 at PHYSICS_HZ.

    ``clock``: the body's servo clock (``geometry.servo_clock``), which makes the gains that
    many times stiffer (below 1: softer) per second. At the body's own rates the factor
    stays within ``CLOCK_GAIN_SLACK``; at a physics rate forced lower, a clock above 1 is
    cut there (but never below the rate's own factor)."""
    k = PHYSICS_HZ * float(dt)
    if clock < 1.0:
        k *= clock
    elif clock > 1.0:
        k = min(k * clock, max(k, CLOCK_GAIN_SLACK))
    return 1.0 if abs(k - 1.0) < 1e-9 else k


class RobotBase:
    """A walker's body in a world of either engine.

    The body starts in its mid-stance pose: joints ``joint_positions`` (default
    ``home_joints``, every foot at its home) with the base at ``base_position`` (default:
    the standing height over the terrain at the origin), joints limp until commanded. A
    walker on soles starts with its ankles at ``home_ankles``: the angles that lay each sole
    flat under the level body in the home pose (``Body.ankle_joint_names`` order; empty on
    sphere feet). The ankles are their own joint group, like the upper body's:
    ``set_ankle_positions``, ``ankle_state``, ``command_ankles``, Sensed's
    ``ankle_positions`` and ``foot_cops``.
    ``entry`` may be a compiled Body, or anything ``compile_body`` takes (an Entry, a Gait,
    a built-in name; ``cache_dir`` only matters then). Subclasses implement ``_load``
    (put the URDF in the world, index joints and feet, set ``mass``, ``effort``, ``lower``,
    ``upper``) and the interface of ``gaitsim.sim.engine``. Position gains are PyBullet's
    per-step numbers at PHYSICS_HZ; each engine scales them by ``gain_scale`` (the
    ``gain_scale`` attribute) for the world's own rate and the body's servo clock.
    """

    def __init__(
        self,
        world,
        entry,
        *,
        base_position=None,
        base_orientation=(0.0, 0.0, 0.0, 1.0),
        fixed_base: bool = False,
        joint_positions=None,
        cache_dir=None,
        servo_clock: float | None = None,
    ):
        self.world = world
        self.body = compile_body(entry, cache_dir=cache_dir)
        # how much stiffer per second than the tuned gains the servos run (None: the body's
        # own, ``Body.servo_clock``)
        self.servo_clock = self.body.servo_clock if servo_clock is None else float(servo_clock)
        self.gain_scale = gain_scale(world.dt, self.servo_clock)
        self.entry = self.body.entry
        self.gait = self.entry.gait
        self.geometry = self.body.geometry
        self.n_legs = self.gait.n_legs
        self.urdf_path = self.body.urdf_path
        self.fixed_base = bool(fixed_base)
        # sense() reads the whole robot's angular momentum (link velocities: a cost the
        # control loop alone does not need; the controller turns it off when not recording)
        self.track_momentum = True
        if base_position is None:
            base_position = (0.0, 0.0, self.standing_height(world.terrain, 0.0, 0.0))
        self._load(base_position, base_orientation)
        self.home_joints, _ = leg_ik(self.geometry.chain, self.geometry.homes)
        self.home_ankles = self.flat_ankles(self.home_joints)
        self.release_joints()
        # the legs first: reset_base works out contacts (MuJoCo), and legs still at zero
        # reach through rough ground (generated walker 39 on 1 cm bumps: more contacts
        # than MuJoCo's arena holds)
        self.set_joint_positions(self.home_joints if joint_positions is None else joint_positions)
        self.reset_base(base_position, base_orientation)
        if len(self.home_ankles):
            self.set_ankle_positions(self.home_ankles)

    def _load(self, base_position, base_orientation) -> None:  # pragma: no cover
        raise NotImplementedError

    @property
    def sole_stiffness(self) -> float | None:
        """A flat sole's contact stiffness (N/m) in this engine, None on sphere feet: the
        foot pad's (``Body.pad``); PyBullet's sole corners carry ``Body.sole_pad`` each."""
        return None if self.body.soles is None else self.body.pad[0]

    def flat_ankles(self, q) -> np.ndarray:
        """The ankle angles (Body.ankle_joint_names order) that lay every sole parallel to
        the body's xy plane, facing the body's heading, with the legs at ``q`` (L, 3): flat
        on level ground under a level body. Empty on sphere feet."""
        if self.body.soles is None:
            return np.zeros(0)
        q = self._shaped(q, "flat_ankles")
        up = np.broadcast_to([0.0, 0.0, 1.0], (self.n_legs, 3))
        level = np.broadcast_to(np.eye(3), (self.n_legs, 3, 3))
        return ankle_joint_angles(self.body.soles, q, up, np.zeros(self.n_legs), level)

    def standing_height(self, terrain, x: float = 0.0, y: float = 0.0) -> float:
        """Base z for the mid-stance pose over (x, y): ground + foot radius + hip height."""
        return float(terrain.height(x, y)) + self.geometry.standing_height

    def command_positions(self, q, kp=None, kd=None, max_force=None, velocities=None) -> None:
        """Hold every joint toward ``q`` (L, 3) with the position motors.

        ``kp`` (default DEFAULT_KP) and ``kd`` (DEFAULT_KD) are PyBullet's dimensionless
        motor gains (see ``robot``'s module constants; the MuJoCo engine gives them the same
        meaning); ``max_force`` (N m) defaults to the URDF effort limits times FORCE_SCALE.
        Each may be a scalar or (L, 3). The arrays' form of ``command_joint_list``.
        """
        from .robot import DEFAULT_KD, DEFAULT_KP, FORCE_SCALE

        q = self._shaped(q, "command_positions").ravel()
        kp = self._shaped(DEFAULT_KP if kp is None else kp, "kp").ravel()
        kd = self._shaped(DEFAULT_KD if kd is None else kd, "kd").ravel()
        force = self.effort * FORCE_SCALE if max_force is None else max_force
        force = self._shaped(force, "max_force").ravel()
        v = np.zeros_like(q) if velocities is None else self._shaped(velocities, "v").ravel()
        self.command_joint_list(q.tolist(), v.tolist(), kp.tolist(), force.tolist(), kd.tolist())

    def momentum_series(self, readings) -> np.ndarray:
        """The angular momenta (T,) of a series of ``sense()``'s ``momentum_z`` readings
        (this engine reads the value itself; PyBullet's robot works it out from raw
        frames)."""
        return np.asarray(readings, dtype=float).reshape(len(readings))

    def command_torques(self, tau) -> None:
        """Hold joint torques ``tau`` (L, 3) on top of the motors (see
        ``command_torque_list``); release_joints() first for torques alone."""
        self.command_torque_list(self._shaped(tau, "command_torques").ravel().tolist())

    def tilt_inertia(self) -> float:
        """The whole robot's smaller moment of inertia (roll or pitch) about its centre of
        mass, from the link masses as points plus the body box (kg m^2); sizes the body
        assist's damping."""
        masses, x = self._mass_points()
        d = x - masses @ x / self.mass
        roll = masses @ (d[:, 1] ** 2 + d[:, 2] ** 2)
        pitch = masses @ (d[:, 0] ** 2 + d[:, 2] ** 2)
        bx, by, bz = self.geometry.body
        box = masses[0] * min(by * by + bz * bz, bx * bx + bz * bz) / 12.0
        return float(min(roll, pitch) + box)

    def _mass_points(self) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
        """Every link's mass (the base first) and its centre of mass now, world (n, 3)."""
        raise NotImplementedError

    def _shaped(self, value, name: str) -> np.ndarray:
        a = np.asarray(value, dtype=float)
        try:
            return np.broadcast_to(a, (self.n_legs, 3))
        except ValueError:
            raise ValueError(
                f"Robot.{name}: expected shape ({self.n_legs}, 3) or broadcastable, got {a.shape}"
            ) from None
