"""The physics engines and the one interface the controller, metrics, video and env use.

``make_world(engine, terrain, ...)`` builds a world and ``load_robot(world, body)`` puts a
walker's body in it; everything after that goes through the interface below, which both
engines implement with the same units, frames and array shapes:

- ``pybullet`` (default): ``world.World`` and ``robot.Robot``, PyBullet's position motors;
- ``mujoco`` (the optional extra, ``pip install 'gaitsim[mujoco]'``):
  ``mujoco_engine.MujocoWorld`` and ``MujocoRobot``, built from the same URDF with
  MuJoCo's spec API; PyBullet's position motor reproduced by position actuators.

World: ``engine`` (its name), ``terrain``, ``dt`` (s), ``friction``, ``step(n)`` (n physics
steps; held feedforward torques act in each), ``time``, ``steps``, ``set_friction(mu)``,
``ray_heights(xy)``, ``close()`` / ``closed``, use as a context manager.

Robot: ``body`` (the compiled Body), ``entry``, ``gait``, ``geometry``, ``n_legs``,
``mass``, ``effort`` / ``lower`` / ``upper`` (L, 3), ``home_joints``;
``sense()`` -> ``robot.Sensed`` (world frame, quaternions (x, y, z, w), joint torques the
motors' plus the feedforward); ``command_joint_list(q, v, kp, forces)`` (PyBullet's
position-motor law and gains, flat lists in chain order), ``command_positions`` (the same
with (L, 3) arrays), ``set_gains``, ``release_joints``, ``command_torque_list(tau)``
(feedforward held until the next call), ``apply_base_wrench(force, torque)`` (one step),
``place_base(pos, quat, linear, angular)``, ``reset_base``, ``set_base_velocity``,
``set_joint_positions``, ``base_pose``, ``base_velocity``, ``joint_state``,
``foot_positions``, ``foot_contacts``, ``center_of_mass``, ``tilt_inertia``, ``remove``.

Two joint groups besides the legs, each flat (n,) in its Body order and empty (every call a
no-op) on a walker without it: the upper body (``Body.upper_joint_names``):
``set_upper_positions(q)``, ``upper_state()`` -> (positions, velocities),
``command_upper(q, v)``, Sensed's ``upper_positions``; the ankles of a walker on soles
(``Body.ankle_joint_names``): ``home_ankles`` (the soles flat in the home pose),
``flat_ankles(q)``, ``ankle_names``, ``ankle_effort`` / ``ankle_lower`` / ``ankle_upper``,
``set_ankle_positions(q)``, ``ankle_state()`` -> (positions, velocities),
``command_ankles(q, v, kp, forces, bias)`` (PyBullet's position motor, DEFAULT_KP and
DEFAULT_KD, forces ``Body.ankle_effort`` by default; the torque range [bias - forces,
bias + forces], bias 0 by default), Sensed's ``ankle_positions`` and
``foot_cops`` (each foot's ground centre of pressure, world, None off the ground; both
``()`` on sphere feet). A sole's foot link has its origin at the ankle joint: ``feet`` and
``foot_positions`` report the ankles, the point the gait plans.
"""

from __future__ import annotations

import importlib.util

from ..catalog import GaitsimError

ENGINES = ("pybullet", "mujoco")
DEFAULT_ENGINE = "pybullet"
MUJOCO_MISSING = (
    "the mujoco engine needs the mujoco package: pip install 'gaitsim[mujoco]' (or pip "
    "install mujoco), or use --engine pybullet"
)


class EngineError(GaitsimError, ValueError):
    """An unknown engine, or one whose package is not installed; the message says the fix.
    The ``gaitsim`` command reports it with exit code 2."""


def check_engine(engine: str) -> str:
    """``engine`` if it is a known engine whose package is importable, else EngineError."""
    if engine not in ENGINES:
        raise EngineError(
            f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)} (--engine)"
        )
    if engine == "mujoco" and importlib.util.find_spec("mujoco") is None:
        raise EngineError(MUJOCO_MISSING)
    return engine


def mujoco_available() -> bool:
    """Whether the MuJoCo engine can run here (the optional extra is installed)."""
    try:
        check_engine("mujoco")
    except EngineError:
        return False
    return True


def make_world(engine: str = DEFAULT_ENGINE, terrain=None, **kwargs):
    """A world of ``engine`` with ``terrain`` (World's keywords: gui, time_step, gravity,
    solver_iterations, friction)."""
    check_engine(engine)
    if engine == "mujoco":
        from .mujoco_engine import MujocoWorld

        return MujocoWorld(terrain, **kwargs)
    from .world import World

    return World(terrain, **kwargs)


def load_robot(world, body, **kwargs):
    """``body`` (a Body, Entry, Gait or built-in name) loaded into ``world``, by the world's
    engine (Robot's keywords: base_position, base_orientation, fixed_base, ...)."""
    if getattr(world, "engine", DEFAULT_ENGINE) == "mujoco":
        from .mujoco_engine import MujocoRobot

        if world.robot is not None:
            world.robot.remove()
        return MujocoRobot(world, body, **kwargs)
    from .robot import Robot

    return Robot(world, body, **kwargs)
