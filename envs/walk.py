"""WalkEnv: a gaitsim walker in PyBullet as a Gymnasium environment.

The env composes three separate parts (docs/architecture.md): the robot (the walker's URDF body
driven by a GaitController), the arena (terrain, friction and the World built from them)
and the task (command, reward, fall rule). Registered ids (see gaitsim/__init__.py) are
keyword presets of this one class.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import gymnasium as gym
import numpy as np

from gaitsim.body import compile_body
from gaitsim.scenario import (
    UPPER_DEFAULTS,
    Scenario,
    check_upper_modes,
    resolve_body,
    split_upper_options,
    upper_walker_options,
)
from gaitsim.sim.controller import (
    ControlConfig,
    GaitController,
    ReferenceTable,
    world_substeps,
)
from gaitsim.sim.engine import DEFAULT_ENGINE, load_robot
from gaitsim.sim.metrics import ContactTally, sole_support_margin, support_margin, tilt_cos
from gaitsim.sim.robot import Robot
from gaitsim.sim.run import check_sim_hz, physics_walker_options, run_rates
from gaitsim.sim.world import DisplayError, display_available
from gaitsim.terrain import Flat, Slope, scalar_height
from gaitsim.walker import Walker, lean_cadence

from . import rewards
from .actions import ActionMap
from .arena import Arena, GroundSpec
from .figures import UpperTally
from .observation import Observer, layout
from .params import check_param, draw, extremes
from .task import WalkTask

DEFAULT_EPISODE_STEPS = 1000  # the registered TimeLimit (gaitsim.ENV_EPISODE_STEPS)
REACH_MARGIN = 0.5  # m beyond the feet's home spread that rough ground must cover (as simulate)
RENDER_SIZE = (480, 360)
DROP_HEIGHT = 1000.0  # m above the ground: out of contact with any terrain
TABLE_CACHE = 2  # reference tables kept across episodes (about 3 MB per 1000 fox steps)
RANDOMIZABLE = (
    "speed_scale",
    "start_phase",
    "turn",
    "yaw_rate_deg",
    "slope_deg",
    "uphill_heading_deg",
    "roughness",
    "friction",
    "push_velocity",
)


def _drop_contacts(world, robot) -> None:
    """Forget the robot's contact points before it is put back at the start.

    Bullet keeps contact points (and their impulses, which warm-start the solver) across a
    teleport when a foot lands where it touched before, so an episode would depend on the
    last one. One physics step with the robot far above the ground drops them; the
    controller's reset then sets the whole state (base, joints, velocities) again.
    """
    robot.reset_base((0.0, 0.0, DROP_HEIGHT))
    world.step(1)


class WalkEnv(gym.Env):
    """Walk a gaitsim walker along a commanded path in PyBullet.

    **Keyword arguments** (a "range" is a (low, high) tuple drawn uniformly each episode
    from the env's generator, ``self.np_random`` after ``reset(seed=...)``):

    - ``walker``: a built-in name ("fox", "hound", ...) or a gaitsim.catalog.Entry.
    - ``speed_scale`` (or range): commanded speed = the gait's clip speed times this.
    - ``start_phase`` (or range, in [0, 1]): where in the gait cycle (and along the path,
      by that share of a cycle) the episode starts; (0, 1) spreads the initial states.
    - ``terrain``: "flat", "slope" or "rough"; None infers it from ``slope_deg`` /
      ``roughness``. ``slope_deg`` (or range, default 10 on a slope) and
      ``uphill_heading_deg`` (or range, default 0: uphill along +x, the walking direction);
      ``roughness`` (or range, m, default 0.02), ``roughness_wavelength`` (m),
      ``terrain_seed`` and ``terrain_cell`` (m) of the rough heightfield, which is laid to
      cover every commanded path for ``cover_steps`` control steps (default 1000, the
      registered TimeLimit: the env cannot see its TimeLimit wrapper, so give both when
      changing it; beyond the cover the ground ends and the walker falls off).
    - ``friction`` (or range): the foot-ground friction coefficient.
    - ``turn``: a signed turn radius in metres (or a range of one sign; 0 turns in place),
      or a gaitsim.path Schedule / Arc / TurnInPlace / Straight; ``yaw_rate_deg`` (or range):
      a yaw rate instead (deg/s).
    - ``body``: "free" (default), "assist" (virtual spring-damper on height, roll and
      pitch), "kinematic", or "auto": the body ``gaitsim walk`` gives the walker on this
      engine (``sim.run.default_body``: the assist for slow bipeds, three legs, flight
      phases and long stands on a line); ``distance_source``: "command" or "odometry";
      ``control_hz`` (default None: the walker's own, 60 or a doubling of it for a walker
      small enough to fall faster or on a faster servo clock) must divide ``sim_hz``
      (default None: the walker's own, 240 or a multiple of it; both ``sim.run.run_rates``);
      ``solver_iterations``;
      ``push_at`` (s into each episode, default None: no push) and ``push_velocity`` (or
      range, m/s, positive to the walker's left): a sideways push, the whole body's
      velocity changed at once (``GaitController.push``);
      ``engine``: "pybullet" (default) or "mujoco" (``pip install 'gaitsim[mujoco]'``: the
      same controller, observation and rewards on MuJoCo; render_mode "human" is PyBullet's);
      ``control_options``: further ControlConfig fields; ``walker_options``: Walker keywords.
    - The upper body (walkers with a catalog ``upper_body``: the built-in mechanic has a
      torso, arms and a head, fox and hound a head; a walker without the part ignores its
      setting): ``arms`` "swing" (default; against the legs), "held" or "anti" (with the
      legs); ``twist`` (default True): the hips and shoulders twist against each other;
      ``gaze`` "stabilised" (default; the head cancels the body's bob and looks along the
      path ahead) or "fixed". ``lean`` (default False): on a slope the body leans from
      upright and steps faster downhill (the Walker's ``lean="upright"``; the command's
      speed includes that faster step). Each may also come in ``walker_options`` (not
      both, with different values); they are fixed per env, not reset options.
    - ``reward_weights``: a rewards.RewardWeights (or a dict of overrides).
    - ``action_mode``: "prior" | "residual" | "modulate" | "joint" (see envs/actions.py),
      with ``residual_scale`` (rad), ``modulate_residual`` and ``max_yaw_rate_deg``.
    - ``run_metrics``: report the support margin and the yaw-balance and upper-body
      figures in ``info`` (about 0.1 ms a step; False for the fastest steps).
    - ``render_mode``: None, "rgb_array" (headless, PyBullet's tiny renderer, a camera
      following the body; ``render_size`` pixels) or "human" (a PyBullet GUI; raises
      DisplayError at construction where no display exists).

    **Observation** (float32, 12 + 9 L + 2 U values for L legs and U upper-body joints;
    the horn beetle has 66, the fox 54: 48 and a head's 6):

    ==================  ===============================================================
    [0, 3)              gravity in the body frame (unit vector)
    [3, 6)              body linear velocity in the body frame (m/s)
    [6, 9)              body angular velocity in the body frame (rad/s)
    [9, 10)             body height over the ground below it (m)
    [10, 10+3L)         joint positions (rad), legs in catalog order, 3 joints each
    [10+3L, 10+6L)      joint velocities (rad/s)
    [10+6L, 10+7L)      sin(2 pi phase) per leg, phase = the leg's place in its gait cycle
    [10+7L, 10+8L)      cos(2 pi phase) per leg
    [10+8L, 10+9L)      foot contact flags (0 or 1)
    [10+9L, +U)         upper-body joint positions (rad; gaitsim.upper order), U > 0 only
    [10+9L+U, +U)       upper-body joint velocities (rad/s), U > 0 only
    [10+9L+2U, +2)      command: speed (m/s), yaw rate (rad/s) of the commanded path
    ==================  ===============================================================

    ``observation_layout`` gives these as slices. **Actions**: Box float32 in [-1, 1];
    ``prior`` is zero-sized (Box(0,)): the gait alone.

    **Reward**: ``progress`` (measured progress / commanded progress of the step) -
    ``overspeed`` (the part of that ratio above 1; weight 0 by default, 1 caps progress at
    the command) - ``slip`` (m slid by stance feet) - ``energy`` (|tau qdot| dt / m g) -
    ``tilt`` (1 - cos tilt) - ``action_rate`` (|a - a_prev|^2) + ``alive``, each times its
    weight and reported as ``info["reward_<term>"]`` (they sum to the reward).

    **Episode end**: ``terminated`` on a fall (body-ground contact, tilt > 60 deg, or the
    body below 0.4 of its standing height; ``info["fall"]`` says which); ``truncated`` by
    the registered TimeLimit (1000 control steps, 16.7 s at 60 Hz).

    **info**: the reward terms; the run so far: ``distance`` (m along the path), ``speed``
    (m/s, mean), ``slip_mm`` (total stance-foot slide), ``shortfall_m`` (largest reach
    shortfall), ``support_margin_m`` (smallest finite support margin, -inf before any;
    left out with ``run_metrics=False``), ``tilt_deg`` (largest), ``duty_by_leg`` (each
    leg's contact share), ``touchdowns_per_stance`` (contact onsets per planned stance, 1.0
    is clean; 0 before the first) and ``contact_timing_error`` (share of leg-steps whose
    contact disagrees with the plan); the yaw-balance and upper-body figures of the run
    (``envs/figures.py``: yaw_moment_rms_nm, hip_twist_deg, base_bob_mm; with a torso
    shoulder_twist_deg, shoulder_hip_ratio; with a head head_bob_mm, head_pitch_deg_rms,
    gaze_lead_s; each only while it has a value: from the second gait cycle's end on,
    updated once a cycle and on a fall; none with ``run_metrics=False``); and now:
    ``contacts`` (L bools),
    ``commanded_speed``, ``commanded_yaw_rate``, ``fall``, ``t`` (s). ``reset`` adds ``params``:
    the episode's drawn parameters. ``reset(options={...})`` overrides drawn parameters
    (``speed_scale``, ``start_phase``, ``turn``, ``yaw_rate_deg``, ``slope_deg``,
    ``uphill_heading_deg``, ``roughness``, ``friction``) with constants for that episode.
    After a reset, ``scenario`` is the episode's gaitsim Scenario (its ground, friction,
    command and controller settings; the arena builds the ground from it).
    """

    # every mode the class supports (gymnasium.make checks render_mode against it); an
    # instance lists only the modes that work where it runs ("human" needs a display)
    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 60}  # noqa: RUF012

    def __init__(
        self,
        walker="fox",
        *,
        speed_scale=1.0,
        start_phase=0.0,
        terrain: str | None = None,
        slope_deg=None,
        uphill_heading_deg=None,
        roughness=None,
        roughness_wavelength: float = 0.5,
        terrain_seed: int = 0,
        terrain_cell: float = 0.04,
        cover_steps: int = DEFAULT_EPISODE_STEPS,
        friction=1.0,
        turn=None,
        yaw_rate_deg=None,
        body: str = "free",
        distance_source: str = "command",
        control_hz: float | None = None,
        sim_hz: float | None = None,
        solver_iterations: int = 50,
        engine: str = DEFAULT_ENGINE,
        push_at: float | None = None,
        push_velocity=0.0,
        control_options: dict | None = None,
        walker_options: dict | None = None,
        arms: str = "swing",
        twist: bool = True,
        gaze: str = "stabilised",
        lean: bool = False,
        reward_weights=None,
        action_mode: str = "prior",
        residual_scale: float = 0.25,
        modulate_residual: bool = False,
        max_yaw_rate_deg: float = 45.0,
        run_metrics: bool = True,
        render_mode: str | None = None,
        render_size=RENDER_SIZE,
    ):
        super().__init__()
        display = self._check_render(render_mode, render_size, engine)
        self._set_walker(walker, walker_options,
                         {"arms": arms, "twist": twist, "gaze": gaze, "lean": lean})  # fmt: skip
        self._set_controller(body, sim_hz, control_hz, distance_source, control_options,
                             engine)  # fmt: skip
        self.task = WalkTask(
            self.entry,
            speed_scale=speed_scale,
            start_phase=start_phase,
            turn=turn,
            yaw_rate_deg=yaw_rate_deg,
            weights=reward_weights,
        )
        spec = GroundSpec.from_kwargs(terrain, slope_deg, uphill_heading_deg, roughness,
                                      roughness_wavelength, terrain_seed, terrain_cell,
                                      friction)  # fmt: skip
        self.arena = Arena(
            spec, sim_hz=self.sim_hz, solver_iterations=solver_iterations,
            gui=render_mode == "human", engine=engine,
        )  # fmt: skip
        self._set_push(push_at, push_velocity)
        self.task.cadence_max = self._cadence_max()
        self._set_spaces(action_mode, residual_scale, modulate_residual, max_yaw_rate_deg)
        self.run_metrics = bool(run_metrics)
        if not (isinstance(cover_steps, int) and cover_steps > 0):
            raise ValueError(f"cover_steps must be a positive number of steps, got {cover_steps!r}")
        self.cover_steps = cover_steps
        # this instance's render modes: "human" only where a display exists
        modes = ["rgb_array"] + (["human"] if display else [])
        self.metadata = {**type(self).metadata, "render_modes": modes,
                         "render_fps": self.config.control_hz}  # fmt: skip

        self._tables: OrderedDict = OrderedDict()  # Walker.key -> ReferenceTable
        self.robot: Robot | None = None
        self.controller: GaitController | None = None
        self.command = None
        self.scenario: Scenario | None = None  # the current episode's (after reset)
        self._video = None
        self._figures: UpperTally | None = None

    def _set_push(self, push_at, push_velocity) -> None:
        """A sideways push ``push_velocity`` m/s (or a range drawn per episode) at
        ``push_at`` seconds into every episode; None: no push."""
        if push_at is not None and not (isinstance(push_at, (int, float))
                                        and math.isfinite(push_at) and push_at >= 0):  # fmt: skip
            raise ValueError(f"push_at must be a time >= 0 s or None, got {push_at!r}")
        self.push_at = None if push_at is None else float(push_at)
        self.push_velocity = check_param("push_velocity", push_velocity)
        if self.push_at is None and self.push_velocity != 0.0:
            raise ValueError("push_velocity needs push_at, the time of the push in seconds")
        self._push = None

    def _check_render(self, render_mode, render_size, engine: str = DEFAULT_ENGINE) -> bool:
        """Check and keep the render mode and size; whether a display is available."""
        if render_mode not in (None, "human", "rgb_array"):
            raise ValueError(
                f"render_mode must be None, 'human' or 'rgb_array', got {render_mode!r}"
            )
        if render_mode == "human" and engine != "pybullet":
            raise ValueError(
                "render_mode='human' is PyBullet's window; with engine='mujoco' use "
                "render_mode='rgb_array' (frames drawn by a PyBullet twin)"
            )
        display = display_available()
        if render_mode == "human" and not display:
            raise DisplayError(
                "WalkEnv(render_mode='human'): no display is available (DISPLAY is not set); "
                "use render_mode='rgb_array' for headless frames, or run under a virtual "
                "display: xvfb-run -a python ..."
            )
        self.render_mode = render_mode
        self.render_size = tuple(int(v) for v in render_size)
        return display

    def _set_controller(self, body, sim_hz, control_hz, distance_source, control_options,
                        engine: str) -> None:  # fmt: skip
        """Check the body mode and rates (None: the walker's own on the body mode's servo
        clock, ``sim.run.run_rates``); the controller settings (``self.config``) and the
        physics rate (``self.sim_hz``)."""
        body = resolve_body(self.entry, body, engine)  # checked; auto: the walker's default
        options = dict(control_options or {})
        self._control = dict(options)  # as given: each episode's Scenario carries them
        clock, control_hz, sim_hz = run_rates(self.body, body, options.pop("servo_clock", None),
                                              control_hz, sim_hz)  # fmt: skip
        check_sim_hz(sim_hz)  # a RunError is a ValueError
        world_substeps(1.0 / sim_hz, control_hz)  # raises if control_hz does not divide sim_hz
        self.config = ControlConfig(
            control_hz=float(control_hz),
            distance_source=distance_source,
            body=body,
            servo_clock=clock,
            **options,
        )
        self.sim_hz = sim_hz

    def _set_walker(self, walker, walker_options, modes: dict) -> None:
        """The walker's entry, gait and body figures; its Walker options and upper-body
        modes (``modes``: the arms, twist, gaze and lean keywords), checked now (not at the
        first reset)."""
        self.body = compile_body(walker)
        self.entry = self.body.entry
        self.gait = self.entry.gait
        geo = self.body.geometry
        self.n_legs = self.gait.n_legs
        self.standing_height = geo.standing_height
        self.mass = geo.total_mass
        self._reach = float(np.max(np.abs(geo.homes[:, :2]))) + REACH_MARGIN
        self._phase0 = [leg.phase for leg in self.gait.legs]
        rest, given = split_upper_options(dict(walker_options or {}))
        for key, value in given.items():  # walker_options may hold them too: not both
            if modes[key] != UPPER_DEFAULTS[key] and modes[key] != value:
                raise ValueError(
                    f"{key} given twice: {key}={modes[key]!r} and walker_options {key}="
                    f"{value!r}; give it once"
                )
            modes[key] = value
        check_upper_modes(**modes)
        if modes["lean"] and "lean" in rest:
            raise ValueError(f"lean=True is the upright lean; drop walker_options lean="
                             f"{rest['lean']!r}")  # fmt: skip
        self.modes = modes
        self.walker_options = physics_walker_options({**rest, **upper_walker_options(**modes)})
        Walker(self.entry, **self.walker_options)

    def _cadence(self, params: dict) -> float:
        """The upright lean's step-rate factor on this episode's ground (1 without it)."""
        if not self.modes["lean"] or self.arena.spec.kind != "slope":
            return 1.0
        slope = Slope.from_degrees(params["slope_deg"], params["uphill_heading_deg"])
        return lean_cadence(slope, "upright")

    def _cadence_max(self) -> float:
        """The largest step-rate factor any episode can draw (the steepest slope taken
        straight downhill): the command's bound."""
        if not self.modes["lean"] or self.arena.spec.kind != "slope":
            return 1.0
        steepest = max(abs(v) for v in extremes(self.arena.spec.slope_deg))
        return lean_cadence(Slope.from_degrees(-steepest), "upright")

    def _set_spaces(self, action_mode, residual_scale, modulate_residual, max_yaw_rate_deg):
        """The action map and the action and observation spaces (after the task: the
        observation bounds hold every command it can draw)."""
        self.actions = ActionMap(
            action_mode,
            3 * self.n_legs,
            residual_scale=residual_scale,
            modulate_residual=modulate_residual,
            max_yaw_rate=math.radians(max_yaw_rate_deg),
        )
        self.action_mode = action_mode
        self.action_space = self.actions.space
        lo, hi = self.body.lower, self.body.upper
        yaw_max = max(1.0, 1.5 * (self.task.yaw_rate_max() + self.actions.max_yaw_rate))
        self.observer = Observer(
            self.n_legs,
            lo,
            hi,
            self.standing_height,
            1.5 * self.task.speed_max(),
            yaw_max,
            upper_limits=(self.body.upper_lower, self.body.upper_upper),
        )
        self.observation_space = self.observer.space

    # ------------------------------------------------------------------ properties
    @property
    def observation_layout(self) -> dict[str, slice]:
        """Name -> slice of each block of the observation vector."""
        return layout(self.n_legs, self.observer.n_upper)

    @property
    def world(self):
        """The current episode's World (None before the first reset and after close)."""
        return self.arena.world

    @property
    def dt(self) -> float:
        """Seconds per env step: one control period."""
        return 1.0 / self.config.control_hz

    # ------------------------------------------------------------------ reset
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        params = self.task.draw(rng)
        params.update(self.arena.spec.draw(rng))
        if self.push_at is not None:  # a constant draws nothing: other episodes unchanged
            params["push_velocity"] = draw(self.push_velocity, rng)
        if options:
            params.update(self._overrides(options, params))
        cmd = self.task.command(params, self._cadence(params))
        if options:
            self._check_command(cmd)
        if self.arena.spec.kind == "rough":
            seconds = self.cover_steps / self.config.control_hz
            reach = self.task.start_max() + self.task.speed_max() * seconds
            self.arena.set_cover(self.task.cover_paths(), reach, self._reach)
        scenario = self._scenario(params)
        world, rebuilt = self.arena.ground(scenario)
        if rebuilt or self.robot is None:
            self.robot = load_robot(world, self.body, servo_clock=self.config.servo_clock)
            self.actions.bind(self.robot)
            self.mass = self.robot.mass
            self._drop_video()
        else:
            _drop_contacts(world, self.robot)
        terrain = self.arena.terrain
        kin = Walker(self.entry, terrain, cmd.path, cmd.speed_scale, **self.walker_options)
        start = params["start_phase"] * kin.cycle
        ctl = GaitController(
            world, self.robot, kin, self.config, record=False, start=start,
            table=self._table(kin), track_momentum=self.run_metrics,
        )  # fmt: skip
        self.controller = ctl
        self._figures = None
        if self.run_metrics:  # the yaw moment needs the robot's angular momentum read
            self._figures = self._upper_tally(kin, ctl)
        self.command = cmd
        self.scenario = scenario
        self._height = scalar_height(terrain)
        self._cycle = kin.cycle
        self._sensed = ctl.sensed
        self._progress = 0.0
        self._prev_action = [0.0] * self.actions.size
        self._slip = 0.0
        self._short = 0.0
        self._margin = math.inf  # smallest finite support margin so far
        self._tilt_max = 0.0  # degrees
        self._tilt_cos = 1.0  # the cosine of the largest tilt so far
        self._fall = ""
        self._tally = ContactTally(self.entry.gait.n_legs)
        self._push = None if self.push_at is None else (self.push_at, params["push_velocity"])
        self.params = dict(params)
        obs, info = self._observe(self._sensed, ctl)
        info["params"] = dict(params)
        return obs, info

    def _upper_tally(self, kin: Walker, ctl: GaitController) -> UpperTally:
        """The episode's yaw-balance and upper-body figures (``envs/figures.py``)."""
        ug = self.body.upper_body
        return UpperTally(
            mass=self.mass, cycle_steps=kin.cycle / kin.nominal_speed / ctl.dt,
            torso=ug is not None and ug.torso is not None,
            head=ug is not None and ug.head is not None,
            kinematic=self.config.body == "kinematic", momentum=ctl.robot.momentum_series,
        )  # fmt: skip

    def _scenario(self, params: dict) -> Scenario:
        """This episode's Scenario: the env's keywords with the drawn ``params`` (its length:
        the ``cover_steps`` its rough ground is laid for)."""
        options = dict(self.walker_options)
        swing = options.pop("swing", "sine")
        options, _ = split_upper_options(options)  # the modes are the Scenario's fields
        return Scenario.from_env_kwargs(
            self.entry,
            params,
            **self.arena.spec.scenario_kwargs(),
            seconds=self.cover_steps / self.config.control_hz,
            body=self.config.body,
            distance_source=self.config.distance_source,
            control_hz=self.config.control_hz,
            sim_hz=self.arena.sim_hz,
            solver_iterations=self.arena.solver_iterations,
            engine=self.arena.engine,
            push_at=self.push_at,
            push_velocity=params.get("push_velocity", 0.0),
            swing=swing,
            **self.modes,
            walker_options=options,
            control=self._control,
        )

    def _table(self, walker: Walker) -> ReferenceTable:
        """The reference table of ``walker``, kept across episodes: an episode that repeats
        the last walker (the same command and ground) reuses the poses tabulated so far
        instead of tabulating them again while it steps."""
        key = walker.key
        table = self._tables.pop(key, None)
        if table is None:
            table = ReferenceTable(walker)
        self._tables[key] = table  # most recent last
        while len(self._tables) > TABLE_CACHE:
            self._tables.popitem(last=False)
        return table

    def _overrides(self, options: dict, params: dict) -> dict:
        unknown = sorted(set(options) - set(RANDOMIZABLE))
        if unknown:
            raise ValueError(
                f"reset options: unknown key(s) {', '.join(unknown)}; "
                f"give any of {', '.join(RANDOMIZABLE)}"
            )
        out = {}
        for k, v in options.items():
            if k not in params:
                raise ValueError(f"reset options: {k} does not apply to this env's terrain or turn")
            if not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"reset options: {k} must be a finite number, got {v!r}")
            out[k] = float(v)
        return out

    def _check_command(self, cmd) -> None:
        """An overridden command must stay inside the observation space's bounds."""
        k = self.observer.slices["command"].start
        speed_max, yaw_max = float(self.observer.high[k]), float(self.observer.high[k + 1])
        if cmd.speed > speed_max:
            raise ValueError(
                f"reset options: speed {cmd.speed:.3f} m/s exceeds the observation bound "
                f"{speed_max:.3f} m/s; widen speed_scale at construction"
            )
        if cmd.curvature is not None and abs(cmd.yaw_rate(0.0)) > yaw_max:
            raise ValueError(
                f"reset options: yaw rate {cmd.yaw_rate(0.0):.3f} rad/s exceeds the observation "
                f"bound {yaw_max:.3f} rad/s; widen turn or yaw_rate_deg at construction"
            )

    # ------------------------------------------------------------------ step
    def step(self, action):
        ctl = self.controller
        if ctl is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        a = self.actions.clip(action)
        if self._push is not None and ctl.t >= self._push[0] - 1e-9:
            ctl.push(self._push[1])  # before this step, as simulate() pushes
            self._push = None
        prev = self._sensed
        self.actions.step(ctl, a)
        sensed = ctl.sensed
        pos = sensed.position
        height = pos[2] - self._height(pos[0], pos[1])
        fall = self.task.fall(sensed, height, self.standing_height)
        dt = ctl.dt
        progress = ctl.progress
        step_m = progress - self._progress
        self._progress = progress
        feet, contacts = sensed.feet, sensed.contacts
        slip = rewards.slip(prev.feet, feet, prev.contacts, contacts)
        ratio = rewards.progress(step_m, self.command.speed, dt)
        values = {
            "progress": ratio,
            "overspeed": rewards.overspeed(ratio),
            "slip": slip,
            "energy": rewards.energy(sensed.joint_torques, sensed.joint_velocities, dt, self.mass),
            "tilt": rewards.tilt(sensed.quaternion),
            "action_rate": rewards.action_rate(a, self._prev_action),
            "alive": rewards.alive(bool(fall)),
        }
        reward, parts = self.task.score(values)
        self._slip += slip
        short = max(ctl.shortfall)
        if short > self._short:
            self._short = short
        if self.run_metrics:
            margin = (support_margin(sensed.com, feet, contacts) if ctl.soles is None
                      else self._sole_margin(sensed, ctl.walker))
            if margin < self._margin and margin != -math.inf:  # as summarize(): some foot down
                self._margin = margin
        self._tally.add(contacts, ctl.stance)
        if self._figures is not None:  # the reference heading as the controller records it
            self._figures.add(ctl.t, ctl.reference_heading, sensed)
            self._figures.update(final=bool(fall))
        self._sensed = sensed
        self._prev_action = a
        self._fall = fall
        obs, info = self._observe(sensed, ctl, height)
        info.update(parts)
        return obs, reward, bool(fall), False, info

    @staticmethod
    def _sole_margin(sensed, walker) -> float:
        """The support margin of a walker on soles, on the ground its soles bear on, each
        laid on the ground under it (``Walker.sole_ground``; level ground's normal, the
        same numbers, needs no look-up), as the run's summary does."""
        feet = np.asarray(sensed.feet, float)
        flat = isinstance(walker.terrain, Flat)
        normals = None if flat else walker.sole_ground(feet[:, :2])[1]
        return sole_support_margin(sensed.com, feet, sensed.foot_quaternions, sensed.contacts,
                                   walker.soles, normals)  # fmt: skip

    def _observe(self, sensed, ctl, height: float | None = None):
        pos = sensed.position
        if height is None:
            height = pos[2] - self._height(pos[0], pos[1])
        s = ctl.s
        x = s / self._cycle
        phases = [(x + p) % 1.0 for p in self._phase0]
        cmd = self.command
        yaw = cmd.yaw_rate(ctl.s_ref)
        # the reading's upper joints: ``upper_state()`` now (no physics step since)
        upper = ((sensed.upper_positions, sensed.upper_velocities) if self.observer.n_upper
                 else None)  # fmt: skip
        obs = self.observer.build(sensed, height, phases, sensed.contacts, cmd.speed, yaw, upper)
        c = tilt_cos(sensed.quaternion)  # the smallest of these is the largest tilt
        if c < self._tilt_cos:
            self._tilt_cos = c
            self._tilt_max = math.degrees(math.acos(max(-1.0, min(1.0, c))))
        t = ctl.t
        info = {
            "distance": ctl.progress,
            "speed": ctl.progress / t if t > 0 else 0.0,
            "slip_mm": 1000.0 * self._slip,
            "shortfall_m": self._short,
            "tilt_deg": self._tilt_max,
            "contacts": np.array(sensed.contacts, dtype=bool),
            "commanded_speed": cmd.speed,
            "commanded_yaw_rate": yaw,
            "fall": self._fall,
            "t": t,
        }
        if self.run_metrics:
            info["support_margin_m"] = self._margin if self._margin < math.inf else -math.inf
        if self._figures is not None:
            info.update(self._figures.values)
        info.update(self._tally.figures())
        return obs, info

    # ------------------------------------------------------------------ render / close
    def render(self):
        if self.render_mode != "rgb_array":
            return None  # "human": the GUI draws itself
        if self.controller is None:
            raise gym.error.ResetNeeded("call reset() before render()")
        if self._video is None:
            from gaitsim.sim.video import VideoRecorder

            fps = self.metadata["render_fps"]
            self._video = VideoRecorder(self.world, self.robot, fps=fps, size=self.render_size)
        self._video.robot = self.robot
        return self._video.render()

    def _drop_video(self) -> None:
        if self._video is not None:
            self._video.close()
        self._video = None

    def close(self):
        """Release the physics client; calling it again does nothing."""
        self.controller = None
        self.robot = None
        self._drop_video()
        self._tables.clear()
        self.arena.close()
        super().close()
