"""One physics run of a walker: build the world, the robot and the controller, walk, measure.

``simulate(...)`` is what the CLI, the Gymnasium env's tests, the sweeps and the benchmarks
call. Turns: ``turn_radius`` (signed, metres; 0 turns in place) or ``yaw_rate`` (rad/s,
turning on an arc of radius speed / yaw_rate).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..geometry import geometry as _geometry
from ..path import Arc, Straight, TurnInPlace
from ..terrain import Flat, Rough
from ..validate import turn_radius as natural_turn_radius
from ..walker import Walker, resolve_entry
from .controller import ControlConfig, GaitController
from .metrics import fall_reason, summarize
from .robot import Robot
from .world import World


def make_path(entry, speed: float, turn_radius: float | None = None, yaw_rate: float | None = None):
    """The commanded path: straight, an arc, or turning in place."""
    if turn_radius is not None and yaw_rate is not None:
        raise ValueError("give either turn_radius or yaw_rate, not both")
    if yaw_rate is not None:
        if not math.isfinite(yaw_rate):
            raise ValueError(f"yaw_rate must be finite, got {yaw_rate!r}")
        if yaw_rate == 0:
            return Straight()
        return Arc(speed / yaw_rate)
    if turn_radius is None or math.isinf(turn_radius):
        return Straight()
    if not math.isfinite(turn_radius):
        raise ValueError(f"turn_radius must be a number of metres, got {turn_radius!r}")
    if turn_radius == 0:
        return TurnInPlace(natural_turn_radius(entry))
    return Arc(turn_radius)


RUN_MARGIN = 2.0  # metres of ground laid beyond the path's reach


def cover_path(terrain, path, distance: float, reach: float):
    """Rough ground re-laid (same amplitude, wavelength, seed) to cover ``path`` up to
    ``distance`` with ``reach`` + RUN_MARGIN to spare; its flat start patch stays at the
    start. Any other terrain, or rough ground that already covers the path, is returned."""
    if not isinstance(terrain, Rough):
        return terrain
    s = np.linspace(0.0, distance, 200)
    xy, _ = path.pose(s)
    lo, hi = xy.min(axis=0) - reach - RUN_MARGIN, xy.max(axis=0) + reach + RUN_MARGIN
    ox, oy = terrain.origin
    half = (terrain.n - 1) * terrain.cell
    if lo[0] >= ox and lo[1] >= oy and hi[0] <= ox + half and hi[1] <= oy + half:
        return terrain
    size = float(np.max(hi - lo))
    centre = tuple(float(c) for c in (lo + hi) / 2)
    flat = terrain.flat_centre if terrain.flat_centre is not None else terrain.centre
    return dataclasses.replace(terrain, size=size, centre=centre, flat_centre=tuple(flat))


@dataclass
class RunResult:
    """A run's summary metrics and its per-control-step recording."""

    summary: dict
    record: dict = field(repr=False)
    dt: float = 0.0


def simulate(
    walker,
    *,
    terrain=None,
    speed_scale: float = 1.0,
    turn_radius: float | None = None,
    yaw_rate: float | None = None,
    seconds: float = 20.0,
    config: ControlConfig | None = None,
    sim_hz: float = 240.0,
    friction: float = 1.0,
    solver_iterations: int = 50,
    gui: bool = False,
    stop_on_fall: bool = True,
    on_step: Callable | None = None,
    walker_options: dict | None = None,
    seed: int | None = None,
) -> RunResult:
    """Walk ``walker`` (a built-in name, Entry or Gait) for ``seconds`` and measure it.

    ``on_step(controller)`` is called after every control step (progress bars, video).
    With ``stop_on_fall`` the run ends one second after a fall is detected. A ``seed``
    draws the episode's spread from a seeded generator: the start point in the gait
    cycle and the ground friction (x U(0.9, 1.1)); the default (None) starts at distance
    0 with the given friction, deterministically.
    """
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"seconds must be positive, got {seconds!r}")
    entry = resolve_entry(walker)
    terrain = terrain if terrain is not None else Flat()
    start = 0.0
    if seed is not None:
        rng = np.random.default_rng(seed)
        start = float(rng.uniform(0.0, entry.gait.cycle * speed_scale))
        friction = float(friction * rng.uniform(0.9, 1.1))
    config = config if config is not None else ControlConfig()
    speed = entry.gait.clip_speed * speed_scale
    path = make_path(entry, speed, turn_radius, yaw_rate)
    reach = float(np.max(np.abs(resolve_geometry(entry).homes[:, :2]))) + 0.5
    terrain = cover_path(terrain, path, speed * seconds * 1.5 + 1.0, reach)
    kin = Walker(entry, terrain, path, speed_scale, **(walker_options or {}))
    world = World(
        terrain,
        gui=gui,
        time_step=1.0 / sim_hz,
        friction=friction,
        solver_iterations=solver_iterations,
    )
    try:
        robot = Robot(world, entry)
        horizon = start + speed * seconds * 1.05 + kin.cycle  # the run's whole reference
        ctl = GaitController(world, robot, kin, config, start=start, horizon=horizon)
        n = round(seconds / ctl.dt)
        fell_at = None
        for k in range(n):
            ctl.step()
            if on_step is not None:
                on_step(ctl)
            if stop_on_fall:
                if fell_at is None and _fallen(ctl, kin):
                    fell_at = k
                if fell_at is not None and (k - fell_at) * ctl.dt >= 1.0:
                    break
        rec = ctl.arrays()
        geo = kin.geometry
        summary = summarize(
            rec,
            mass=robot.mass,
            standing_height=geo.hip_height + geo.foot_radius,
            commanded_speed=kin.nominal_speed,
            dt=ctl.dt,
        )
        summary.update(
            walker=entry.name,
            terrain=terrain.describe(),
            path=type(path).__name__,
            speed_scale=speed_scale,
            body=config.body,
            distance_source=config.distance_source,
            seconds=seconds,
            seed=seed,
            friction=friction,
            simulated_s=float(rec["t"][-1]),
            leg_scuff_share=float(np.mean(rec["leg_contact"])),
            gait_distance_m=float(rec["s"][-1]),
            # the second seed's speed mismatch: gait distance per metre of measured progress
            gait_per_progress=float(rec["s"][-1] / summary["distance_m"])
            if summary["distance_m"] > 0.01
            else None,
        )
        if config.body == "assist":
            summary["assist_work_j"] = ctl.assist_work
            summary["assist_mean_force_n"] = ctl.assist_force_impulse / rec["t"][-1]
            summary["assist_mean_force_per_weight"] = summary["assist_mean_force_n"] / (
                robot.mass * 9.81
            )
            summary["assist_mean_torque_nm"] = ctl.assist_torque_impulse / rec["t"][-1]
        return RunResult(summary, rec, ctl.dt)
    finally:
        world.close()


def resolve_geometry(entry):
    return _geometry(entry.gait)


def _fallen(ctl: GaitController, walker: Walker) -> bool:
    s = ctl.sensed
    height = s.position[2] - float(walker.terrain.height(s.position[0], s.position[1]))
    stand = walker.geometry.hip_height + walker.geometry.foot_radius
    return bool(fall_reason(s, height, stand))
