"""GaitController: the walker's distance-driven foot plan as joint position commands.

Each control step:

1. the gait distance ``s`` advances (``command``: at the commanded speed; ``odometry``: by
   the body's measured progress along the path, see ``advance_odometry``), and with it the
   reference body (the Walker's ideal pose, tabulated in a ``ReferenceTable``; in physics
   the Walker sways its body so that its pendulum's zero-moment point stays inside the
   planned support, see ``gaitsim.balance``);
2. the ``FootPlanner`` (kinematics layer) says which feet are down, where each planted foot
   is held (where it really touched down) and where each swing foot is going (the planned
   foothold, shifted by capture-point feedback: the body's drift from the reference plus
   its velocity error over omega = sqrt(g / h), see ``_placement``). The controller adds
   what only physics knows: a sphere foot rolls as its shin turns, so its held centre moves
   with the roll; a foot that is late to touch down keeps reaching down until it does; one
   that touches down early is held where it touched; one still down after lift-off rises
   before it moves on (``_hold_early``, ``_lift_first``); a late foot that lands is held
   pressed into its pad until its load has ramped in (``_stance_press``);
3. every leg is solved by IK against two bodies: the *virtual* body (the measured x, y and
   yaw pulled to the reference, with the reference's height, roll and pitch: stance legs
   solved against it push the body along its path; a narrow free body on point feet is
   pulled along its path only, not across it, ``stance.narrow_share``; where the gait
   stands long on a line of point feet, a trot's diagonal, the reference is first moved
   by a share of how far
   the stance feet landed from the plan, ``_foothold_offset``, so the legs do not pull the
   body off the line that placement chose for it) and the *measured* body (swing legs
   solved against it, where its velocity carries it during the period, clear the ground
   and land on time whatever the body's pose; while its load ramps in, a stance leg whose
   foot pad is too shallow for it sees the measured body where its motion carries it too,
   ``_landing_body``). A stance leg blends from the measured to the virtual body over the
   load ramp after touchdown and goes back to the measured one at lift-off, where a foot
   still on the ground is held where it stands until it leaves it, so no joint target drags
   a loaded foot;
4. stance legs carry the weight by torque feedforward, each its share from
   ``stance.load_shares`` (balanced about the centre of mass, or for a narrow free body
   on point feet about the reference pendulum's zero-moment point; ramped in after
   touchdown and out before lift-off), and their position motors may push a foot with
   only a share of
   its load, unless the centre of mass is outside the support polygon, where the legs hold
   the body stiffly (``stance.stiffness_blend``);
5. the joint targets go out as position commands with velocity feedforward, the physics
   runs ``sim_hz / control_hz`` substeps (the torque feedforward and any body mode are
   applied every substep) and the step is recorded for the metrics.

Body modes: ``free`` (plain physics), ``assist`` (a reported virtual spring-damper on
height, roll and pitch, see ``bodymode``), ``kinematic`` (the base follows the reference).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from ..feet import HIP_YAW_LIMIT
from ..footplan import FootPlanner, Steering
from ..gait import smooth01
from ..geometry import (
    FOOT_PAD_SINK,
    GRAVITY,
    PHYSICS_HZ,
    fall_time,
    pad_shortfall,
    physics_lift,
)
from ..ik import ScalarLeg
from ..walker import Walker
from . import stance as load
from .bodymode import AssistGains, BodyAssist, place_base
from .metrics import Recorder, support_margin
from .reference import (  # noqa: F401  (re-exported: the control loop's helpers)
    TABLE_CHUNK_CYCLES,
    TABLE_SAMPLES_PER_CYCLE,
    ReferenceTable,
    carried,
    quat_from_rot,
    rot_from_quat,
    spun,
    wrap,
    yaw_of,
    yawed,
)
from .robot import DEFAULT_KP, Robot
from .soles import COP_TOE_SHARE, SoleDriver
from .upperbody import UpperBodyDriver
from .world import World

# what ``_sense`` records every control step, in this order
RECORD_KEYS = ("t", "s", "progress", "s_ref", "ref_pos", "ref_heading", "base_pos", "base_quat",
               "base_vel", "com", "feet", "foot_quat", "contacts", "planned_stance", "targets",
               "shortfall", "torque", "joint_vel", "body_contact", "leg_contact", "momentum_z",
               "foot_forces", "leg_force")  # fmt: skip
DISTANCE_SOURCES = ("command", "odometry")
BODY_MODES = ("free", "assist", "kinematic")
AUTO_BODY = "auto"  # ControlConfig.body: the walker's default body (``sim.run.default_body``),
# resolved by ``simulate()`` and the env before a controller is built
BODY_SETTINGS = (*BODY_MODES, AUTO_BODY)  # what ControlConfig.body takes
HIP_FACINGS = ("measured", "planned")  # what ControlConfig.hip_facing takes (or None)
PLANT_LOCKS = ("measured", "planned")
# a narrow body on point feet (``stance.narrow_share`` 1): its stance forces right its tilt
# this many times as hard as gravity tips it (``stance.attitude_arms``; 1 only cancels the
# tipping). Measured with ``side_track_gain`` 0 and ``zmp_share`` 1 on the 63 walks of
# ``generate.quadruped_walker`` seeds 0-99 that stand more than four times as tall as their
# half track (10 s flat, free; a prototype of this code): within every bound at 1: 24, at
# 3: 33; with the stance gain at 0.02, at 3: 36 and at 5: 34 (this code at 3: 31, the
# prototype's float-level difference on chaotic runs)
NARROW_ATTITUDE = 3.0
LIFT_FIRST_UNTIL = 0.5  # a foot still down after lift-off is held in x, y at most this
# share of its swing (``_lift_first``)
FOLLOW_WEIGHT_FLOOR = 1e-3  # a foot about to lift still weighs this in ``_foothold_offset``
SWING_PREDICTION_FADE = (0.8, 0.2)  # swing legs stop seeing the body where its velocity
# carries it from this share of the swing, over this share (to touchdown; ``_swing_body``)


@dataclass(frozen=True)
class ControlConfig:
    """How the controller runs; every field has a sane default for any catalog walker.

    Distance sources: ``command`` advances the gait at the commanded speed; ``odometry``
    advances it by the body's measured progress along the path (at least ``odometry_floor``
    of the commanded speed, so it starts from rest and never stalls), while the reference
    body the legs push toward runs at the commanded speed, at most ``odometry_lead`` cycles
    ahead of the gait.
    """

    control_hz: float | None = None  # None: the walker's own (``Body.rates``: 60, or a
    # doubling of it for a walker small enough to fall faster than 60 Hz can follow, or
    # whose servo clock runs faster: ``geometry.servo_clock``)
    distance_source: str = "command"
    body: str = "free"  # or AUTO_BODY: the walker's default on the run's engine
    kp: float | None = None  # PyBullet position gain of stance legs; None: the gait's own
    # (``stance.stance_gain``: 0.05, or 0.03 for a free body on a line of point feet)
    kp_swing: float = 0.3  # ... of swing legs (stiff: track the swing arc)
    kp_land: float = 0.15  # ... of a swing leg at touchdown (eased to from 60 % of the
    # swing: soft enough to land gently on the foot pads, stiff enough to land on time)
    kd: float | None = None
    force_scale: float = 1.0  # the URDF effort limits' multiplier
    plant_lock: str = "measured"  # touchdown holds the foot where it is ("planned": as planned)
    capture_gain: float = 1.0  # swing feet land this share of the capture point's error
    speed_gain: float | None = None  # ... and this many capture times (1 / omega) of the
    # body's speed error along the path's heading further ahead (a speed above the
    # reference's lands the feet ahead, which brakes it); None: ``stance.SOLE_SPEED_GAIN``
    # for a free body on soles, else 0 (``_speed_gain``)
    step_width: float = 0.5  # soles: a swing foot lands at least this share of the nominal
    # step width (and at least the soles' width) beside the stance foot, never under it
    preload: float | None = None  # stance feet aim this share of a foot radius (a sole's
    # ankle height) into the ground; None: for soles the share their pad sinks under a
    # stance foot's mean load (the weight over duty x legs feet down, at most all of it:
    # ``geometry.FOOT_PAD_SINK`` x min(1 / duty, legs)), so a loaded sole is held where
    # its pad settles; for spheres that share times their pad's shortfall (at most 1,
    # ``geometry.pad_shortfall``): 0 unless the foot radius's 3 cm cap left the pad too
    # shallow for its leg
    track_gain: float = 1.0  # share of the x, y, yaw error to the reference closed per step
    # (on point feet: along the path's heading, and the yaw; across it ``side_track_gain``)
    side_track_gain: float | None = None  # point feet: the share of the sideways error
    # (across the path's heading) the stance legs close per step; None: ``track_gain`` times
    # 1 - ``stance.narrow_share`` (0 for a body standing 5 or more times as tall as its half
    # track: it leaves its sideways motion to the load split and to where the feet land,
    # ``zmp_share``, ``capture_gain``, since a sideways push at the feet rolls it)
    foothold_follow: float | None = None  # share of the stance feet's placement offset the
    # body is tracked to (x, y: the reference moved with the feet); None: derived from how
    # long the gait stands on a line of point feet and how far the legs pull the body back
    # before it (``stance.foothold_follow``); on soles ``stance.SOLE_FOLLOW`` (free body)
    sole_track_gain: float = 0.5  # ... for walkers on soles (replaces track_gain): a sole's
    # ankle cannot push the body back onto its reference at once without rolling the sole
    # onto its heel, so foot placement closes the rest over the following steps
    ankle_cop: float = 1.0  # soles: a stance ankle's torque is at most its foot's normal force
    # times this multiple of the sole's lever (heel for pitch, half width for roll and yaw),
    # so the centre of pressure stays on the sole and the sole flat; 0: full effort
    load: float = 1.0  # share of the weight the stance legs carry by torque feedforward
    load_ramp: float = 0.15  # a stance foot takes up / gives off its load over this share
    min_load: float = 0.05  # a stance foot's share of the weight is at least this (x ramp)
    attitude_gain: float | None = None  # the stance forces right the body's tilt ...
    attitude_damping: float | None = None  # ... and damp its tilt rate; None: 1 (the
    # righting cancels gravity's tipping), up to NARROW_ATTITUDE on point feet by
    # ``stance.narrow_share``
    zmp_share: float | None = None  # point feet: the load split puts the centre of pressure
    # this share of the way from the centre of mass to the reference pendulum's zero-moment
    # point (its sway's acceleration over omega^2), so the ground's push that sways the body
    # passes through its centre of mass instead of rolling it; None: ``stance.narrow_share``
    servo_clock: float | None = None  # how many times stiffer per second than the tuned
    # gains the joint servos run; None: a free body's own (``Body.servo_clock``: 1, or
    # above 1 for a small walker on soles), 1 with the assist or the kinematic body
    # (``sim.run.run_rates``); 1: the tuned gains
    kp_hip_yaw: float | None = None  # PyBullet position gain of a leg's hip yaw (soles
    # with ``hip_yaw``), stance and swing; None: the gait's own (``stance.hip_yaw_gain``:
    # 0.03, since a planted sole's friction holds only a small twist and a stiffer yaw
    # servo spins the body and the sole with it; 0.3 for a gait with flight phases)
    hip_facing: str | None = None  # the hip frame a planted sole's leg is solved in is
    # turned to "measured", where the sole faces, or "planned", where the plan put it; None:
    # measured under the assist, planned on a free body (both measured: docs/bipeds.md,
    # stop 53). The hip yaw joint's own target stays the planned facing's (``_command_ankles``;
    # commanded to the measured facing too, MuJoCo's runners walked less: stop 54)
    sole_track_lead: float | None = None  # soles: the stance legs' pose also leads the
    # measured body by this many seconds of its speed error along the path (``_lead``),
    # damping the pull; None: 0, or ``SLOW_WALK``'s under ``slow_walk``
    roll_follow: float | None = None  # soles: a planted sole alone on the ground rolls onto
    # its toe at most this far (rad) past its measured pitch (``SoleDriver.rolled``), so it
    # pushes off until the other foot lands; None: as planned. The push-off pair
    # (``PUSH_OFF``: 0.2 s, 0.02 rad) helps slow bipeds a user writes (free, generated,
    # their own tempo: 33 of 144 walks against 19) but the free built-in raptor falls on
    # flat and rough ground with it, so both are left None: off for brisk bipeds (stop 54),
    # on for bipeds slower than 0.7 pendulum periods under ``slow_walk`` (stop 55)
    roll_follow_planted: bool = False  # soles: ``roll_follow`` holds every planted sole,
    # not only one alone on the ground (``SoleDriver.rolled``), at ``roll_follow`` or, left
    # None, ``PUSH_OFF``'s 0.02 rad. Opt-in (docs/bipeds.md, stop 56): the trailing sole of
    # a double support keeps its toe down to its lift-off, so brisk free bipeds land once a
    # stance (generated bipeds at 0.6 pendulum periods, 10 s flat: walked runs at most 1.2
    # touchdowns a stance 46 -> 71 of 144, walks 86 -> 99; the built-in raptor 1.64 -> 1.00),
    # but the built-in bipeds lose slopes, rough ground and pushes (the nine
    # conditions from six starts: mechanic 52 -> 38 of 54, raptor 50 -> 40) and the
    # hand-written human of experiments/animal_walkers.json all 15 of its runs (12 walk)
    cop_toe_share: float | None = None  # soles: a stance ankle's pitch may put the centre of
    # pressure this share of the toe ahead of the ankle (``SoleDriver.cop_limits``); None:
    # ``soles.COP_TOE_SHARE``, or ``SLOW_WALK``'s under ``slow_walk``
    slow_walk: bool | None = None  # soles: the slow walk's stance (``SLOW_WALK``: the whole
    # toe for the stance ankle and the push-off, for ``roll_follow``, ``sole_track_lead`` and
    # ``cop_toe_share`` left None); None: on for a free biped without flight phases whose
    # cycle lasts more than ``stance.FREE_BIPED_TEMPO`` pendulum periods (``_slow_walk``;
    # the bipeds the assist carries by default), off otherwise (docs/bipeds.md, stop 55)
    motor_share: float = 0.5  # stance motors push a foot with at most this share of its load
    motor_floor: float = 0.1  # ... plus this share of the mean weight per leg
    margin_band: float = 0.1  # legs stiffen as the support margin falls through this band
    # (a share of the standing height) around zero
    reach_speed: float = 0.25  # a late foot reaches down at this share of the swing's descent
    early_hold: float = 0.5  # a swing foot that touches the ground after this share of its
    # swing is held where it touched until its stance begins (1: never)
    roll_compensation: bool = True  # a held foot's centre follows its sphere's rolling
    rolling_start: bool = True  # start moving at the commanded speed
    odometry_floor: float = 0.25  # odometry: the gait advances at least this share of speed
    odometry_lead: float = 0.25  # odometry: the reference leads by at most this many cycles
    body_speed_ratio: float = 1.0  # kinematic body: base speed / commanded gait speed (the
    # second seed's speed mismatch, e.g. 0.82)
    assist: AssistGains = field(default_factory=AssistGains)

    def __post_init__(self):
        _choice("distance_source", self.distance_source, DISTANCE_SOURCES)
        _choice("body", self.body, BODY_SETTINGS)
        _choice("plant_lock", self.plant_lock, PLANT_LOCKS)
        if self.hip_facing is not None:
            _choice("hip_facing", self.hip_facing, HIP_FACINGS)
        for name in ("control_hz", "servo_clock"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, (int, float)) and math.isfinite(v)
                                      and v > 0):  # fmt: skip
                raise ValueError(f"{name} must be a positive number or None, got {v!r}")
        for name in ("kp", "kp_swing", "kp_land", "kp_hip_yaw"):
            v = getattr(self, name)
            if v is None and name in ("kp", "kp_hip_yaw"):
                continue
            if not (math.isfinite(v) and 0 < v <= 1):
                raise ValueError(f"{name} is PyBullet's position gain, in (0, 1]; got {v!r}")
        for name in ("force_scale", "body_speed_ratio", "margin_band"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be a positive number, got {v!r}")
        if self.preload is not None and not (math.isfinite(self.preload) and self.preload >= 0):
            raise ValueError(f"preload must be a number >= 0 or None, got {self.preload!r}")
        g = self.speed_gain
        if g is not None and (isinstance(g, bool) or not (isinstance(g, (int, float))
                                                          and math.isfinite(g) and g >= 0)):
            raise ValueError(f"speed_gain must be a number >= 0 or None, got {g!r}")
        f = self.foothold_follow
        if f is not None and not (math.isfinite(f) and 0 <= f <= 1):
            raise ValueError(f"foothold_follow is a share in [0, 1] or None, got {f!r}")
        for name in ("attitude_gain", "attitude_damping"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, (int, float)) and math.isfinite(v)
                                      and v >= 0):  # fmt: skip
                raise ValueError(f"{name} must be a number >= 0 or None, got {v!r}")
        for name in ("capture_gain", "step_width", "ankle_cop", "odometry_floor",
                     "odometry_lead", "motor_floor", "reach_speed",
                     "sole_track_lead"):  # fmt: skip
            v = getattr(self, name)
            if v is None and name == "sole_track_lead":
                continue
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
                raise ValueError(f"{name} must be a number >= 0, got {v!r}")
        t = self.cop_toe_share
        if t is not None and not (isinstance(t, (int, float)) and math.isfinite(t) and 0 < t <= 1):
            raise ValueError(f"cop_toe_share is a share in (0, 1] of the toe or None, got {t!r}")
        if not (self.slow_walk is None or isinstance(self.slow_walk, bool)):
            raise ValueError(f"slow_walk is True, False or None (by tempo), got {self.slow_walk!r}")
        for name in ("track_gain", "side_track_gain", "sole_track_gain", "load", "load_ramp",
                     "min_load", "motor_share", "early_hold", "zmp_share"):  # fmt: skip
            v = getattr(self, name)
            if v is None and name in ("side_track_gain", "zmp_share"):
                continue
            if not (isinstance(v, (int, float)) and math.isfinite(v) and 0 <= v <= 1):
                raise ValueError(f"{name} is a share in [0, 1], got {v!r}")
        if self.roll_follow is not None and not (
                isinstance(self.roll_follow, (int, float)) and math.isfinite(self.roll_follow)
                and self.roll_follow >= 0):  # fmt: skip
            raise ValueError(f"roll_follow must be an angle >= 0 (rad) or None, got "
                             f"{self.roll_follow!r}")
        if not isinstance(self.roll_follow_planted, bool):
            raise ValueError(f"roll_follow_planted is True or False, got "
                             f"{self.roll_follow_planted!r}")
        if self.load_ramp > 0.5:
            raise ValueError(f"load_ramp is at most half a stance (0.5), got {self.load_ramp!r}")


PUSH_OFF = {"sole_track_lead": 0.2, "roll_follow": 0.02}  # ControlConfig(**PUSH_OFF)
# The slow walk's stance (``ControlConfig.slow_walk``): the push-off, and a stance ankle
# that may put the centre of pressure under the whole toe, so a loaded sole can really roll
# onto it instead of its leg lifting the still-flat sole. A biped slower than
# FREE_BIPED_TEMPO stands on each sole in turn: planned as at a brisk tempo, its trailing
# sole's heel-off unloaded it before the body had swayed over the leading foot, and the
# body fell away sideways at the next step (generated biped 49: the ground's push left of
# the body by 3 cm, its sideways speed 0.24 -> 0 m/s in the double support). Free, 10 s
# flat, the generated bipeds without flight phases slower than 0.7 periods: 22 -> 51 of
# 142 runs walk (the first 72 such bipeds, two starts) and 14 -> 23 of 132 (the next 72,
# held out); the push-off alone 32 and 18. At a brisk tempo it does not help: the whole toe
# lets the ankle vault the body (the built-in mechanic 52 -> 40 of 54 start points, the
# raptor 50 -> 37), so brisker bipeds keep the plain stance; just past the threshold the
# mechanic slowed to 0.71 periods walks 2 of 6 starts on the plain stance, 0 on this one,
# while the generated runs at 0.7-0.8 periods gain (48 -> 65 of 104; docs/bipeds.md, stop 55)
SLOW_WALK = {"cop_toe_share": 1.0, **PUSH_OFF}


def _check_clock(cfg: ControlConfig, robot) -> None:
    """A ValueError for a body still ``auto`` (``sim.run.with_default_body`` resolves it),
    or unless ``cfg.servo_clock`` (if given) is the one the robot was loaded with: the
    robot's gains are set when it is loaded, so a clock in the config alone would be
    silently ignored."""
    if cfg.body == AUTO_BODY:
        raise ValueError("body 'auto' is resolved before a controller is built: pass "
                         "sim.run.with_default_body(config, entry, engine), or run simulate()")
    clock = cfg.servo_clock
    if clock is not None and abs(clock - robot.servo_clock) > 1e-12:
        raise ValueError(f"servo_clock {clock:g} differs from the robot's "
                         f"{robot.servo_clock:g}: load the robot with "
                         f"load_robot(world, body, servo_clock={clock:g})")  # fmt: skip


def _choice(name: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, got {value!r}")


class GaitController:
    """Drives ``robot`` in ``world`` along ``walker``'s gait, path and terrain.

    ``horizon`` (m of gait distance): build the reference table this far up front (it
    grows as needed anyway). ``table``: a ReferenceTable built for an equal walker (the
    same ``Walker.key``), shared with earlier runs: episodes that repeat a walker skip
    its construction. ``track_momentum``: read the robot's angular momentum every step
    (the yaw balance figures; default: when recording).
    """

    def __init__(
        self,
        world: World,
        robot: Robot,
        walker: Walker,
        config: ControlConfig | None = None,
        *,
        record: bool = True,
        start: float = 0.0,
        horizon: float = 0.0,
        table: ReferenceTable | None = None,
        track_momentum: bool | None = None,
    ):
        self.world, self.robot, self.walker = world, robot, walker
        cfg = config if config is not None else ControlConfig()
        _check_clock(cfg, robot)
        if cfg.control_hz is None:  # the walker's own rate
            cfg = dataclasses.replace(cfg, control_hz=robot.body.rates(robot.servo_clock)[0])
        self.config = cfg
        self.substeps = world_substeps(world.dt, cfg.control_hz)
        self.dt = self.substeps * world.dt
        self.gait, self.geo = walker.gait, walker.geometry
        self.n_legs = self.gait.n_legs
        self.speed = walker.nominal_speed  # gait distance per second (m/s)
        self._cycle = walker.cycle  # gait distance per cycle (m), read every step
        if table is None:
            table = ReferenceTable(walker, horizon)
        elif table.key != walker.key:
            raise ValueError(
                "GaitController: the reference table was built for another walker (gait, "
                "terrain, path, speed scale or options differ); pass table=None to build one"
            )
        self.table = table
        self._build_legs()
        self.steering = Steering()
        # swings lift at least a share of the foot (``physics_lift``: the planner's ``lift``)
        self.planner = FootPlanner(walker, self.steering, physics_lift(self.gait, self.geo))
        self._stand_h = self.geo.standing_height
        self._kp = cfg.kp if cfg.kp is not None else load.stance_gain(
            load.line_drift_growth(walker.entry), free=cfg.body == "free")
        self._fall_time = fall_time(self.geo)  # 1 / omega, seconds
        self._side_balance(cfg, walker.soles is None)
        self._follow = self._follow_share(walker)
        self._speed_k = self._speed_gain(walker)
        self._sole_stance(walker)
        self._weight = robot.mass * load.GRAVITY
        swing_time = (1.0 - self.gait.duty) * self._cycle / self.speed
        # a late foot reaches on down at reach_speed times the swing's mean descent speed
        # (one lift in half a swing)
        self._land_speed = cfg.reach_speed * 2.0 * self.planner.lift / swing_time
        self._full_forces = (robot.effort.ravel() * cfg.force_scale).tolist()
        self._preload = self._preload_depth(cfg.preload, walker.soles is not None)
        # a late sphere foot that lands is pressed in as deep as its pad sinks under a stance
        # foot's mean load, at least by the preload, until its load has ramped in
        # (``_reach_down``)
        self._land_press = 0.0 if walker.soles is not None else max(
            self._preload, self._mean_sink())
        # a sphere foot that touches down early is held pressed in by the preload (``_hold_early``)
        self._early_press = self._preload if walker.soles is None else 0.0
        # the share of the body's motion over a period that a landing leg sees (``_solve_legs``)
        self._landing_lead = 0.0 if walker.soles is not None else min(pad_shortfall(self.geo), 1.0)
        self._record_on = record
        # only the yaw balance figures read the robot's angular momentum (default: recording)
        robot.track_momentum = record if track_momentum is None else bool(track_momentum)
        robot.set_gains(self._kp, cfg.kd, cfg.force_scale)
        self.upper = UpperBodyDriver(walker, robot, self.dt, world.dt) if walker.upper else None
        self.soles = SoleDriver(walker, robot) if walker.soles is not None else None
        self._sides = [leg.side_sign for leg in self.gait.legs]  # ``_keep_width``
        self._yawing_soles = walker.soles is not None and any(q.turns for q in walker.soles)
        # legs with a hip yaw: each is solved in its hip frame turned toward its sole
        self._hip_turn = ([q.hip_yaw for q in walker.soles] if walker.soles is not None
                          and any(q.hip_yaw for q in walker.soles) else None)  # fmt: skip
        self._mounts = [(float(m[0]), float(m[1])) for m in self.geo.chain.mount]
        self._foot_gains = (None if self._hip_turn is None else
                            self.soles.gains(DEFAULT_KP, self._hip_yaw_kp()))  # fmt: skip
        self.reset(start)

    def _build_legs(self) -> None:
        """Each leg's scalar IK (body-frame target -> joints, shortfall) and Jacobian
        (joints -> its columns)."""
        ch = self.geo.chain
        legs = [
            ScalarLeg(ch.mount[i], ch.upper[i], ch.lower[i], ch.kind[i], float(ch.yaw0[i]))
            for i in range(self.n_legs)
        ]
        self._solvers = [leg.solve for leg in legs]
        self._jacobians = [leg.jacobian for leg in legs]

    def _side_balance(self, cfg: ControlConfig, point: bool) -> None:
        """How the stance legs balance the body sideways on ``point`` feet (soles keep their
        own: ``sole_track_gain``, the attitude gains 1): the attitude gains, the sideways
        track gain and the load split's shift toward the reference pendulum's ZMP
        (-``zmp_share`` / omega^2). Their defaults follow ``stance.narrow_share`` for a free
        body; one that the assist or the kinematic mode holds upright does not tip with its
        legs as one piece, and keeps the wide body's (as ``stance.stance_gain``)."""
        free = point and cfg.body == "free"
        narrow = load.narrow_share(self.geo) if free else 0.0
        own = 1.0 + narrow * (NARROW_ATTITUDE - 1.0)
        self._attitude = (own if cfg.attitude_gain is None else cfg.attitude_gain,
                          own if cfg.attitude_damping is None else cfg.attitude_damping)
        side = cfg.track_gain * (1.0 - narrow) if cfg.side_track_gain is None else (
            cfg.side_track_gain)  # fmt: skip
        self._side_gain = side if point else None
        share = narrow if cfg.zmp_share is None else cfg.zmp_share
        self._zmp_k = -share * self._fall_time**2 if point else 0.0

    def _hip_yaw_kp(self) -> float:
        """``ControlConfig.kp_hip_yaw``, or the gait's own (``stance.hip_yaw_gain``)."""
        kp = self.config.kp_hip_yaw
        return load.hip_yaw_gain(self.gait) if kp is None else float(kp)

    def _follow_share(self, walker: Walker) -> float:
        """``ControlConfig.foothold_follow``, or the gait's own (``stance.foothold_follow``
        over its longest stand on point feet that cannot hold the body, ``stance.weak_support``;
        on soles ``stance.SOLE_FOLLOW`` for a free body, 0 for a held one: the assist or
        the kinematic base)."""
        if self.config.foothold_follow is not None:
            return float(self.config.foothold_follow)
        if walker.soles is not None:
            return load.SOLE_FOLLOW if self._free_on_soles(walker) else 0.0
        gait, cfg = self.gait, self.config
        period = self._cycle / self.speed
        line, before = load.line_support([leg.phase for leg in gait.legs], gait.duty, period,
                                         weak=load.weak_support(gait))  # fmt: skip
        # the stance legs' pull to the reference: their motors close kp (x track_gain) of
        # an error per step at PHYSICS_HZ (``sim.common.gain_scale`` keeps that per second)
        rate = PHYSICS_HZ * self._kp * cfg.track_gain
        return load.foothold_follow(line, before, self._stand_h,
                                    1.0 / rate if rate > 0.0 else math.inf)  # fmt: skip

    def _speed_gain(self, walker: Walker) -> float:
        """``ControlConfig.speed_gain``, or by default ``stance.SOLE_SPEED_GAIN`` for a free
        body on soles and 0 otherwise (a held body's speed is the assist's or the base's)."""
        if self.config.speed_gain is not None:
            return float(self.config.speed_gain)
        return load.SOLE_SPEED_GAIN if self._free_on_soles(walker) else 0.0

    def _sole_stance(self, walker: Walker) -> None:
        """The soles' stance, resolved once: whether the slow walk runs (``_slow_walk``) and
        the roll follow, the lead and the ankle's toe share the step uses, each as the
        config sets it or, left None, the slow walk's (``SLOW_WALK``) or the plain one's."""
        cfg = self.config
        self._slow = self._slow_walk(walker)
        slow = SLOW_WALK if self._slow else {}
        self._roll_follow = cfg.roll_follow if cfg.roll_follow is not None else slow.get(
            "roll_follow", PUSH_OFF["roll_follow"] if cfg.roll_follow_planted else None)
        self._roll_planted = cfg.roll_follow_planted  # (every planted sole, or a lone one)
        self._track_lead = (cfg.sole_track_lead if cfg.sole_track_lead is not None
                            else slow.get("sole_track_lead", 0.0))  # fmt: skip
        self._toe_share = (cfg.cop_toe_share if cfg.cop_toe_share is not None
                           else slow.get("cop_toe_share", COP_TOE_SHARE))  # fmt: skip

    @property
    def slow_walk(self) -> bool:
        """Whether this run's soles stand on the slow walk's stance (``_slow_walk``)."""
        return self._slow

    def _slow_walk(self, walker: Walker) -> bool:
        """``ControlConfig.slow_walk`` (soles only), or by default whether ``walker`` is a
        free biped on soles that steps slowly (``stance.steps_slowly``: no flight phase, its
        cycle more than FREE_BIPED_TEMPO pendulum periods): ``SLOW_WALK`` is its stance's
        default."""
        if walker.soles is None:
            return False
        if self.config.slow_walk is not None:
            return self.config.slow_walk
        return self._free_on_soles(walker) and load.steps_slowly(self.gait, self.geo.hip_height)

    def _free_on_soles(self, walker: Walker) -> bool:
        """Whether ``walker`` stands on soles with a free body: the case the soles' own
        defaults (``stance.SOLE_FOLLOW``, ``stance.SOLE_SPEED_GAIN``) are for."""
        return walker.soles is not None and self.config.body == "free"

    # ------------------------------------------------------------------ set-up
    def _preload_depth(self, preload: float | None, soles: bool) -> float:
        """How far (m) stance feet aim into the ground (``ControlConfig.preload``): a given
        share of the foot radius, or by default the pad's sink under a stance foot's mean
        load (the weight over duty x legs feet down, at most all of it) for soles, and for
        sphere feet that depth times their pad's shortfall (``geometry.pad_shortfall``, at
        most 1): 0 for feet the default rule sizes. A capped foot held at its unloaded rest
        height by a long leg lost contact within a few steps of touchdown, before its load
        had ramped in (generated walker 87: 1.41 touchdowns per stance, 1.00 pressed)."""
        if preload is None:
            depth = 1.0 if soles else min(pad_shortfall(self.geo), 1.0)
            return self._mean_sink() * depth
        return preload * self.geo.foot_radius

    def _mean_sink(self) -> float:
        """How deep (m) a foot pad sinks under a stance foot's mean load (the weight over
        duty x legs feet down, at most all of it): FOOT_PAD_SINK of the foot radius under
        an even share of the weight, times that load over the even share; a flat sole on
        its pad in this engine (``Robot.sole_stiffness``: PyBullet's stiffened corners)."""
        mean_load = min(1.0 / self.gait.duty, self.n_legs)  # x an even share's
        stiffness = self.robot.sole_stiffness
        if stiffness is not None:
            return mean_load * self.geo.total_mass * GRAVITY / self.n_legs / stiffness
        return FOOT_PAD_SINK * mean_load * self.geo.foot_radius

    def reset(self, start: float = 0.0) -> None:
        """Put the robot in the Walker's pose at distance ``start`` and plan every foot.

        A start other than 0 begins the walk at another point of the gait cycle (and of the
        path): the spread that seeded episodes draw from.
        """
        s0 = float(start)
        pose = self.walker.pose_at(s0)
        self.steering.__init__()
        self.planner.reset(s0)
        pos, rot, _, _ = self.table.lookup(s0)
        self.robot.reset_base(pos, quat_from_rot(rot))
        if self.config.rolling_start:  # start at the commanded speed, as if already walking
            ds = 1e-3 * self._cycle
            pos2, _, _, _ = self.table.lookup(s0 + ds)
            v = self.speed / ds
            self.robot.set_base_velocity([(b - a) * v for a, b in zip(pos, pos2, strict=True)])
        self.robot.set_joint_positions(pose.joints)
        self.robot.command_joint_list(pose.joints.ravel().tolist())
        if self.soles is not None:
            self.robot.set_ankle_positions(pose.ankle_joints)
            self.robot.command_ankles(pose.ankle_joints)
        if self.upper is not None:
            self.upper.reset(pose.upper_joints)
        self.speed_scale = 1.0  # gait-rate multiplier (modulation), on top of the Walker's
        self.lift_scale = 1.0  # swing-lift multiplier (modulation)
        self.yaw_rate = 0.0  # rad/s of steering on top of the path (modulation)
        self.s = self.s_ref = s0
        self.progress = self.t = 0.0
        self._odo_step = 0.0
        self._ref_before = None  # the reference body's (x, y) a control period back
        self._zmp_arm = (0.0, 0.0)  # (x, y): the load split's shift toward the ZMP
        n = self.n_legs
        self._td_quat = [None] * n  # each held foot's orientation when it touched down
        self._landed = [True] * n  # a planned stance foot is really down
        self._reach = [0.0] * n  # how far a late foot reaches below its plant (m)
        self._pressed = [False] * n  # a late foot that landed, held pressed in (``_reach_down``)
        self._early = [None] * n  # where a swing foot that touched down early is held
        self._held = list(self.planner.plant)  # where each stance foot was last held
        self._lifting = [False] * n
        self._facing = [0.0] * n  # soles: where each faces (``SoleDriver.facing``)
        self._hip_facing = self._facing  # where each hip yaw turns its leg (``_hip_facings``)
        self.record = Recorder(n) if self._record_on else None
        self._rows = None  # the record's table of RECORD_KEYS rows (``_sense``)
        self._upper_rows = None  # and of the upper body's (``_record_upper``)
        self._last = self.robot.sense()
        self._last_yaw = yaw_of(self._last.quaternion)
        self.assist = None
        if self.config.body == "assist":
            self.assist = BodyAssist(self.robot, self.config.assist, self._stand_h,
                                     self.robot.tilt_inertia())  # fmt: skip

    @property
    def sensed(self):
        """The robot's state as read after the last control step (a Sensed)."""
        return self._last

    @property
    def stance(self) -> list[bool]:
        """Which legs the plan has on the ground now."""
        return self.planner.stance

    @property
    def reference_heading(self) -> float:
        """The reference path's heading now, steering included (what the record holds)."""
        return self._ref(self.s_ref)[2]

    # the assist's figures, 0 without it
    assist_work = property(lambda self: self.assist.work if self.assist else 0.0)
    assist_force_impulse = property(lambda self: self.assist.force_impulse if self.assist else 0.0)
    assist_lift_impulse = property(lambda self: self.assist.lift_impulse if self.assist else 0.0)
    assist_torque_impulse = property(
        lambda self: self.assist.torque_impulse if self.assist else 0.0
    )

    # ------------------------------------------------------------------ the reference
    def _ref(self, s: float):
        """The reference body at distance ``s``, turned by the accumulated steering."""
        pos, rot, heading, moves = self.table.lookup(s)
        st = self.steering
        if st.identity:
            return pos, rot, heading, moves
        x, y = st.xy(pos[0], pos[1])
        return (x, y, pos[2]), yawed(rot, st.c, st.s), heading + st.angle, moves

    def _ref_heading(self, s: float) -> float:
        """``_ref(s)``'s heading alone (the same number, no pose worked out)."""
        heading, st = self.table.heading_at(s), self.steering
        return heading if st.identity else heading + st.angle

    def _apply_steering(self, yaw_rate: float) -> None:
        """Turn the whole plan (reference body and future footholds) by yaw_rate * dt about
        the reference body's current position: steering on top of the planned path."""
        if yaw_rate != 0.0:
            px, py, _ = self._ref(self.s_ref)[0]
            self.steering.turn(yaw_rate * self.dt, px, py)

    def _advance_distances(self) -> float:
        """Advance the gait distance ``s`` and the reference body's ``s_ref``; returns the
        reference's distance over this step."""
        cfg = self.config
        speed = self.speed * self.speed_scale
        v_ref = speed * (cfg.body_speed_ratio if cfg.body == "kinematic" else 1.0)
        if cfg.distance_source == "command":
            self.s += speed * self.dt
        else:  # the gait follows the body's measured progress, never slower than the floor
            self.s += max(self._odo_step, cfg.odometry_floor * speed * self.dt)
        if cfg.body == "kinematic":
            self.s_ref += v_ref * self.dt
        elif cfg.distance_source == "command":
            self.s_ref = self.s
        else:  # the commanded distance, held within odometry_lead cycles of the gait's
            lead = cfg.odometry_lead * self._cycle
            self.s_ref = min(self.s_ref + speed * self.dt, self.s + lead)
        return v_ref * self.dt

    def advance_odometry(self, sensed, ref=None) -> float:
        """Measured progress along the path since the last step (m of gait distance).

        On translating paths: the base displacement along the path tangent; turning in
        place: the yaw change times the path's radius. ``ref``: the reference body at
        ``s_ref`` (``_ref``), when the caller has it already (the control step's own).
        """
        _, _, heading, moves = self._ref(self.s_ref) if ref is None else ref
        if moves:
            dx = sensed.position[0] - self._last.position[0]
            dy = sensed.position[1] - self._last.position[1]
            return dx * math.cos(heading) + dy * math.sin(heading)
        dyaw = wrap(yaw_of(sensed.quaternion) - self._last_yaw)
        return dyaw * getattr(self.walker.path, "radius", 1.0)

    # ------------------------------------------------------------------ the feet
    def _plan_feet(self, sensed, corr, heading: float | None = None):
        """World foot targets now and one step ahead, and which legs changed phase (with
        soles: the ankles, rolled with the soles; ``heading``: the reference's, default
        the reference's now)."""
        if heading is None:
            heading = self._ref(self.s_ref)[2]
        touchdown = sensed.feet if self.config.plant_lock == "measured" else None
        if touchdown is not None and self.soles is not None:
            touchdown = [self._flat_point(i, sensed, heading) for i in range(self.n_legs)]
        ds = self.speed * self.speed_scale * self.dt
        now, ahead, events = self.planner.advance(
            self.s, ds, touchdown, corr, self.lift_scale, self.speed_scale, self._held,
        )  # fmt: skip
        for i, st in enumerate(self.planner.stance):
            if st:
                if events[i] or self._td_quat[i] is None:
                    self._td_quat[i] = sensed.foot_quaternions[i]
                ox, oy = self._rolled(i, sensed.foot_quaternions[i])
                x, y, z = now[i]
                now[i] = ahead[i] = (x + ox, y + oy, z - self._stance_press(i))
                self._held[i] = now[i]
        self._reach_down(now, ahead, events, sensed, heading)
        self._hold_early(now, ahead, sensed)
        self._lift_first(now, ahead, sensed)
        if self.soles is not None:  # the planned ankles: flat points moved by the roll
            p_now, p_ahead = self.soles.pitches(self.planner, ds)
            if self._roll_follow is not None:
                p_now, p_ahead = self.soles.rolled(
                    (p_now, p_ahead), self.planner.stance, sensed.contacts,
                    sensed.foot_quaternions, sensed.feet, self._roll_follow,
                    self._roll_planted)
            held = {i for i, e in enumerate(self._early) if e is not None}
            self._facing = [self.soles.facing(self.planner, i, heading)
                            for i in range(self.n_legs)]  # fmt: skip
            self.soles.roll_targets(now, p_now, self._facing, held)
            self.soles.roll_targets(ahead, p_ahead, self._facing, held)
            if self._hip_turn is not None:
                self._hip_facing = self._hip_facings(sensed)
        return now, ahead, events

    def _hip_facings(self, sensed) -> list[float]:
        """Where each leg's hip frame is turned for its IK (``_into_hip``). With
        ``hip_facing`` "measured" (by default under the assist) a planted sole's (planned
        stance, touching) to where the sole measurably faces, so its leg is solved for the
        twist the sole landed with (solved in the planned frame, an assisted two-legged
        runner's heading swung to alternate sides, further each step, and it fell); every
        other leg's, and every leg's with "planned" (by default on a free body, where the
        measured frame cost the free mechanic three of the walking table's five 20 s
        grounds), to its planned facing, so a swing foot lands facing its plan. The hip yaw
        joints themselves are commanded from the planned facing (``_command_ankles``,
        ``SoleDriver.ankles``), which turns the body back toward its heading over the sole
        (commanded to the measured facing too, measured at stop 54, MuJoCo's two-legged
        runners fell back from 37 to 30 of 58: docs/bipeds.md)."""
        how = self.config.hip_facing
        if how == "planned" or (how is None and self.config.body != "assist"):
            return self._facing
        return [yaw_of(q) if st and c else f for f, st, c, q in zip(
            self._facing, self.planner.stance, sensed.contacts, sensed.foot_quaternions,
            strict=True)]  # fmt: skip

    def _flat_point(self, i: int, sensed, heading: float) -> tuple[float, float, float]:
        """Leg ``i``'s measured ankle as the flat plant it stands for: a sole that has just
        struck the ground has its ankle off the plant by the heel strike's roll."""
        fx, fy, fz = sensed.feet[i]
        facing = self.soles.facing(self.planner, i, heading)
        ox, oy, oz = self.soles.strike_offset(i, facing, fx, fy)
        return (fx - ox, fy - oy, fz - oz)

    def _lift_first(self, targets, ahead, sensed) -> None:
        """A foot that is still on the ground after its lift-off rises on its arc but stays
        where it stood in x and y until it leaves the ground (at most half its swing): on
        the catalog's arc it would start forward as fast as it rises and drag over the
        ground while its pad unloads (measured: the lift-off sample was most of every
        stance's slip, horn_beetle 2.4 -> 1.0 mm). A foot the body has dragged more than
        its radius from that point is let go to its arc: held behind a body that walks on,
        the point leaves the leg's reach and a stretched leg cannot lift its foot (the
        horn beetle at twice its stride dragged a hind foot 40 mm, 125 mm out of reach).
        """
        plan, r = self.planner, self.geo.foot_radius
        for i, (st, u) in enumerate(zip(plan.stance, plan.swing_progress, strict=True)):
            if st:
                self._lifting[i] = True
                continue
            if not sensed.contacts[i] or u >= LIFT_FIRST_UNTIL:
                self._lifting[i] = False
            if self._lifting[i]:
                x, y, _ = plan.lift_from[i]
                fx, fy, _ = sensed.feet[i]
                if (fx - x) ** 2 + (fy - y) ** 2 > r * r:  # dragged off: the body has
                    self._lifting[i] = False  # carried the foot past where it lifted
                    continue
                targets[i] = (x, y, targets[i][2])
                ahead[i] = (x, y, ahead[i][2])

    def _hold_early(self, targets, ahead, sensed) -> None:
        """A swing foot that meets the ground late in its swing (after ``early_hold`` of it)
        stays where it touched, on the ground under it, until its stance begins: carried on
        along the arc it would skid forward and bounce (measured on a small trot, generated
        walker 38: touchdowns per stance 1.76 -> 1.19 flat, 3.1 -> 1.69 up a 5 deg slope).
        A sphere foot whose pad is too shallow for its leg is held pressed in by the preload
        (``_early_press``), as it will be in stance: held at the pad's surface, the heavy
        trot 105's early feet were pulled back up off it as their stance began."""
        plan, u0 = self.planner, self.config.early_hold
        for i, (st, u) in enumerate(zip(plan.stance, plan.swing_progress, strict=True)):
            if st or u < u0:
                self._early[i] = None
                continue
            if self._early[i] is None and sensed.contacts[i]:
                fx, fy, _ = sensed.feet[i]
                self._early[i] = (fx, fy, plan.rest_z(i, fx, fy) - self._early_press)
            if self._early[i] is not None:
                targets[i] = ahead[i] = self._early[i]

    def _rolled(self, i: int, quat) -> tuple[float, float]:
        """How far a held foot's centre has rolled since touchdown: a sphere foot that
        turns by the rotation vector phi without sliding moves its centre by r phi x n
        (n up). Holding the centre at the touchdown point instead would make the leg
        fight its own rolling foot."""
        if not self.config.roll_compensation or self.soles is not None:
            return 0.0, 0.0  # (a sole does not roll like a sphere: its roll is planned)
        ax, ay, az, aw = quat
        bx, by, bz, bw = self._td_quat[i]
        x = -aw * bx + ax * bw - ay * bz + az * by  # q * conj(q0)
        y = -aw * by + ay * bw - az * bx + ax * bz
        z = -aw * bz + az * bw - ax * by + ay * bx
        w = aw * bw + ax * bx + ay * by + az * bz
        if w < 0.0:
            x, y, w = -x, -y, -w
        n = math.sqrt(x * x + y * y + z * z)
        k = 2.0 * math.atan2(n, w) / n if n > 1e-12 else 2.0
        r = self.geo.foot_radius
        return r * k * y, -r * k * x

    def _reach_down(self, targets, ahead, events, sensed, heading: float = 0.0) -> None:
        """A stance foot that has not touched the ground yet keeps reaching down (at most
        one lift below its plant) until it does, and is then held where it landed: a foot
        that arrives a millimetre high would otherwise hover above the ground while its
        position servo closes the gap ever more slowly. A sphere foot that lands so is held
        pressed in as deep as its pad sinks under a stance foot's mean load (at least the
        preload) until its load has ramped in (``_stance_press``): held at its bare rest
        height, the pad's surface, a foot that reached the ground with no load on it yet
        was pulled back up off it (generated walker 76: 1.25 touchdowns per stance held
        so, 1.00 pressed by its preload; 116, with no preload, lost its hind feet 0.02 s
        after such landings: 1.40 flat, 1.00 pressed)."""
        step, limit = self._land_speed * self.dt, self.planner.lift
        plan = self.planner
        for i, st in enumerate(plan.stance):
            if not st:
                self._landed[i], self._reach[i], self._pressed[i] = False, 0.0, False
                continue
            if events[i]:
                self._landed[i], self._reach[i] = bool(sensed.contacts[i]), 0.0
            if not self._landed[i]:
                if sensed.contacts[i]:  # down at last: hold it where it landed
                    self._landed[i] = True
                    if self._reach[i]:
                        fx, fy, _ = (sensed.feet[i] if self.soles is None
                                     else self._flat_point(i, sensed, heading))  # fmt: skip
                        plan.plant[i] = (fx, fy, plan.rest_z(i, fx, fy))
                        self._td_quat[i] = sensed.foot_quaternions[i]
                        targets[i] = ahead[i] = (fx, fy, plan.plant[i][2] - self._land_press)
                        self._reach[i] = 0.0
                        self._pressed[i] = self.soles is None
                else:
                    self._reach[i] = min(self._reach[i] + step, limit)
            r = self._reach[i]
            if r:
                x, y, z = targets[i]
                targets[i] = (x, y, z - r)
                x, y, z = ahead[i]
                ahead[i] = (x, y, z - min(r + step, limit))

    def _stance_press(self, i: int) -> float:
        """How far (m) stance foot ``i`` aims into the ground: the preload, or for a late
        foot that has landed (``_reach_down``) the landing press until the load ramp ends."""
        if self._pressed[i]:
            if self.planner.stance_progress[i] < self.config.load_ramp:
                return self._land_press
            self._pressed[i] = False
        return self._preload

    # ------------------------------------------------------------------ the legs
    def _lead(self, sensed, x: float, y: float, heading: float, dpos) -> tuple[float, float]:
        """(x, y) moved along the reference's ``heading`` by ``sole_track_lead`` seconds of
        the body's speed error there: the reference's (``dpos`` over the control period)
        less the measured one. (The error as measured, within each step too: averaged over
        half a gait period it made the slow generated bipeds fall more, 14 of 144 walks
        against 33; docs/bipeds.md, stop 54.)"""
        c, s = math.cos(heading), math.sin(heading)
        ex, ey = self._velocity_error(sensed, dpos)
        k = -self._track_lead * (c * ex + s * ey)
        return x + k * c, y + k * s

    def _velocity_error(self, sensed, dpos) -> tuple[float, float]:
        """The body's measured velocity (x, y) less the reference's (``dpos`` over the
        control period): what capture-point placement (``_placement``) and the stance legs'
        lead (``_lead``) both correct."""
        lv, dt = sensed.linear_velocity, self.dt
        return lv[0] - dpos[0] / dt, lv[1] - dpos[1] / dt

    def _virtual_body(self, sensed, pos, rot, heading, dpos):
        """The body pose the stance legs are solved against: the measured pose pulled toward
        the reference by ``track_gain`` (on soles ``sole_track_gain``) in x, y and yaw (on
        soles also led by ``sole_track_lead`` of the speed error, ``_lead``; ``dpos``: the
        reference's move over this control period), and the reference's height, roll and
        pitch (which the legs hold, like standing)."""
        cfg = self.config
        a = cfg.track_gain if self.soles is None else cfg.sole_track_gain
        mx, my = sensed.position[0], sensed.position[1]
        myaw = self._last_yaw
        if self._follow > 0.0:  # the reference moved with where the stance feet stand
            ox, oy = self._foothold_offset()
            pos = (pos[0] + self._follow * ox, pos[1] + self._follow * oy, pos[2])
        ex, ey = pos[0] - mx, pos[1] - my
        b = self._side_gain
        if b is None or b == a:  # one gain both ways: the wide body's own arithmetic (the
            # split below gives the same pose, rounded otherwise, and every wide walker's
            # run would move on chaotic walks)
            x, y = mx + a * ex, my + a * ey
        else:  # along the path's heading ``a``, across it ``b`` (point feet)
            c, sn = math.cos(heading), math.sin(heading)
            along, across = a * (c * ex + sn * ey), b * (c * ey - sn * ex)
            x, y = mx + c * along - sn * across, my + sn * along + c * across
        # an ankle that turns (``yaw_pitch_roll``) leaves the body's yaw to the legs, so they
        # hold it to the reference in full, as on point feet (the free yaw-ankled mechanic,
        # 12 s from six start points: mean heading error 3.3-8.3 deg, at sole_track_gain
        # 6.2-20.3 deg)
        if self.soles is not None and self._track_lead > 0.0:
            x, y = self._lead(sensed, x, y, heading, dpos)
        a_yaw = cfg.track_gain if self._yawing_soles else a
        dyaw = a_yaw * wrap(heading - myaw) + wrap(myaw - heading)  # yaw_v - heading
        return (x, y, pos[2]), yawed(rot, math.cos(dyaw), math.sin(dyaw))

    def _foothold_offset(self) -> tuple[float, float]:
        """How far (x, y) the stance feet stand from where the plan put them (a landed
        foot: from its planned landing point, so the capture point's placement and the
        touchdown's own error), weighted by each foot's remaining share of its stance:
        over a trot's four-foot phase the body is handed to the pair that lands, whose line
        carries it next. (0, 0) with no foot down."""
        plan = self.planner
        total = sx = sy = 0.0
        for st, u, (px, py, _), (qx, qy, _) in zip(plan.stance, plan.stance_progress,
                                                   plan.plant, plan.land_at, strict=True):
            if st:  # fmt: skip
                w = 1.0 - u + FOLLOW_WEIGHT_FLOOR
                total += w
                sx += w * (px - qx)
                sy += w * (py - qy)
        return (sx / total, sy / total) if total > 0.0 else (0.0, 0.0)

    def _solve_legs(self, sensed, mrot, ref, ref2, targets, ahead, events):
        """Joint targets for the end of the period, their velocity feedforward and the reach
        shortfall: each leg solved against the virtual and the measured body and blended
        (module docstring, step 3); a leg wholly in one frame is solved in that one only,
        and its shortfall is that of the frame it mostly follows. (Per joint in plain
        floats; the landing body is worked out only when a stance leg follows it.)"""
        (pos, rot, heading, _), (pos2, rot2, _, _) = ref, ref2
        dpos = (pos2[0] - pos[0], pos2[1] - pos[1])
        vpos, vrot = self._virtual_body(sensed, pos, rot, heading, dpos)
        self._vrot = vrot  # (the soles' stance ankles hold the body to it too)
        vpos2, vrot2 = carried(vpos, vrot, rot, rot2, dpos, pos2[2])
        mpos = mx, my, mz = sensed.position  # stance legs: the measured body, carried as
        mpos2 = nx, ny, nz = (mx + dpos[0], my + dpos[1], mz + pos2[2] - pos[2])  # the ref.
        swing = (sx, sy, sz), (tx, ty, tz) = self._swing_body(sensed)  # swing legs: where
        landing = None  # its velocity carries it; landing legs: ``_landing_body``
        st, u_swing = self.planner.stance, self.planner.swing_progress
        one = self._solve_one if self._hip_turn is not None else self._solve_in_body
        dt = self.dt
        start, span = SWING_PREDICTION_FADE
        q2, v, short = [], [], []
        for i, blend in enumerate(self._virtual_shares()):
            t0, t1 = targets[i], ahead[i]
            if blend > 0.0:
                a0, a1, a2, sv = one(i, t0, vpos, vrot)
                b0, b1, b2, _ = one(i, t1, vpos2, vrot2)
            if blend < 1.0:
                if st[i]:
                    if landing is None:
                        landing = self._landing_body(sensed, mrot, (mpos, mpos2), swing)
                    p0, p1, r0, r1 = landing
                else:
                    w = 1.0 - smooth01((u_swing[i] - start) / span)
                    p0 = (mx + w * (sx - mx), my + w * (sy - my), mz + w * (sz - mz))
                    p1 = (nx + w * (tx - nx), ny + w * (ty - ny), nz + w * (tz - nz))
                    r0 = r1 = mrot
                c0, c1, c2, sm = one(i, t0, p0, r0)
                d0, d1, d2, _ = one(i, t1, p1, r1)
                if blend <= 0.0:
                    a0, a1, a2, b0, b1, b2 = c0, c1, c2, d0, d1, d2
                else:
                    a0, a1, a2 = (blend * a0 + (1.0 - blend) * c0, blend * a1 + (1.0 - blend) * c1,
                                  blend * a2 + (1.0 - blend) * c2)  # fmt: skip
                    b0, b1, b2 = (blend * b0 + (1.0 - blend) * d0, blend * b1 + (1.0 - blend) * d1,
                                  blend * b2 + (1.0 - blend) * d2)  # fmt: skip
            short.append(sv if blend >= 0.5 else sm)
            # stance: the pose at the end of the period; swing: the pose now, which the
            # velocity feedforward carries along (aiming a period ahead overshoots)
            q2 += (b0, b1, b2) if st[i] else (a0, a1, a2)
            if not events[i] or not st[i]:  # a touchdown step has no feedforward
                v += ((b0 - a0) / dt, (b1 - a1) / dt, (b2 - a2) / dt)
            else:
                v += (0.0, 0.0, 0.0)
        return q2, v, short

    def _landing_body(self, sensed, mrot, measured, swing):
        """The measured body a stance leg is solved against while its load ramps in
        (``_virtual_shares`` < 1): (position now, a period on, attitude now, a period on).
        As measured (carried as the reference), unless the foot's pad is too shallow for its
        leg (``geometry.pad_shortfall``): then ``_landing_lead`` (the shortfall, at most 1)
        of the body's measured motion, linear and angular, over the half and one and a half
        periods ``_swing_body`` predicts. A landing foot carries no load yet, and its
        compliant stance servo lags a body that moves: a heavy trot (generated walker 105:
        560 kg on 1.14 m shins, a 3 cm foot) falls onto the foot of the side it tips to
        at 0.2 m/s and rebounds off it at 0.25 m/s, which lifted that foot off its 5 mm
        pad (1.50 touchdowns per stance flat; 1.07 with the lead and ``_early_press``)."""
        (mpos, mpos2), (spos, spos2), k = measured, swing, self._landing_lead
        if k <= 0.0:
            return mpos, mpos2, mrot, mrot
        w, h = sensed.angular_velocity, k * self.dt
        p0 = tuple(a + k * (b - a) for a, b in zip(mpos, spos, strict=True))
        p1 = tuple(a + k * (b - a) for a, b in zip(mpos2, spos2, strict=True))
        return p0, p1, spun(mrot, w, 0.5 * h), spun(mrot, w, 1.5 * h)

    def _swing_body(self, sensed) -> tuple[tuple, tuple]:
        """Where the swing legs see the body: its measured position half a control period
        on and one and a half on, at its measured velocity. The command of a period is held
        through it, so a swing leg solved against the body where it was at the period's
        start ends the period off by the body's motion (the fox's bob and sway landed its
        feet early and lifted them late: worst-leg duty error 0.066-0.079 -> 0.050-0.061,
        touchdowns per stance 1.16-1.23 -> 1.12-1.16, over three start points). Stance legs
        keep the measured position: their feet hold the ground and push the body, and the
        body's velocity fed into that push made the hound's trot on MuJoCo fall; so the
        swing's share of it fades out over the last fifth of the swing, and a landing leg's
        command does not jump (without the fade the hound fell on MuJoCo's 5 deg slopes). The
        attitude is taken as measured: on small walkers the angular velocity is mostly
        contact noise (a 0.3 kg trot's touchdowns per stance 1.05 -> 1.31 when every leg
        saw the attitude predicted too)."""
        (x, y, z), (vx, vy, vz) = sensed.position, sensed.linear_velocity
        a, b = 0.5 * self.dt, 1.5 * self.dt
        return (x + a * vx, y + a * vy, z + a * vz), (x + b * vx, y + b * vy, z + b * vz)

    def _solve_one(self, i: int, target, pos, rot):
        """Leg ``i``'s joint angles and reach shortfall for a world ``target`` seen from the
        body pose (``pos``, row-major ``rot``): (q1, q2, q3, shortfall). A leg with a hip
        yaw is solved in its hip frame turned from the body's heading to its sole's."""
        vx, vy, vz = target[0] - pos[0], target[1] - pos[1], target[2] - pos[2]
        r0, r1, r2, r3, r4, r5, r6, r7, r8 = rot
        bx, by = r0 * vx + r3 * vy + r6 * vz, r1 * vx + r4 * vy + r7 * vz
        if self._hip_turn is not None and self._hip_turn[i]:
            bx, by = self._into_hip(i, bx, by, math.atan2(r3, r0))
        return self._solvers[i](bx, by, r2 * vx + r5 * vy + r8 * vz)

    def _solve_in_body(self, i: int, target, pos, rot):
        """``_solve_one`` for a walker with no hip yaw: the same arithmetic without the hip
        frame's check (``_solve_legs`` calls it instead; the leg IK runs about nine times a
        control step)."""
        vx, vy, vz = target[0] - pos[0], target[1] - pos[1], target[2] - pos[2]
        r0, r1, r2, r3, r4, r5, r6, r7, r8 = rot
        return self._solvers[i](r0 * vx + r3 * vy + r6 * vz, r1 * vx + r4 * vy + r7 * vz,
                                r2 * vx + r5 * vy + r8 * vz)  # fmt: skip

    def _into_hip(self, i: int, bx: float, by: float, body_yaw: float) -> tuple[float, float]:
        """Leg ``i``'s body-frame target (x, y) seen from its hip frame, turned by its hip
        yaw (``feet.hip_yaws``: where its sole faces, ``_hip_facings``, less ``body_yaw``)
        about its mount."""
        turn = wrap(self._hip_facing[i] - body_yaw)
        turn = max(-HIP_YAW_LIMIT, min(turn, HIP_YAW_LIMIT))
        mx, my = self._mounts[i]
        c, s = math.cos(turn), math.sin(turn)
        dx, dy = bx - mx, by - my
        return mx + c * dx + s * dy, my - s * dx + c * dy

    def _virtual_shares(self) -> list[float]:
        """Each leg's weight on the virtual body's solution (the rest: the measured one):
        a stance leg's rises from 0 to 1 over the load ramp after touchdown and stays there,
        so the leg pushes the body along until it lifts off; a swing leg is solved against
        the measured body from the first step of its swing (a foot still on the ground is
        then held where it stands, ``_lift_first``, not kicked by the change of frame)."""
        ramp = self.config.load_ramp
        plan = self.planner
        out = []
        for st, s in zip(plan.stance, plan.stance_progress, strict=True):
            if not st:
                out.append(0.0)
            else:
                out.append(smooth01(s / ramp) if ramp > 0 else 1.0)
        return out

    def _gains(self) -> list[float]:
        """Position gains: compliant stance legs; stiff swing legs, softening to ``kp_land``
        over the last 40 % of the swing so a landing foot meets the ground gently."""
        cfg, plan = self.config, self.planner
        kp = []
        for st, u in zip(plan.stance, plan.swing_progress, strict=True):
            k = self._kp if st else _swing_gain(u, cfg.kp_land, cfg.kp_swing)
            kp += (k, k, k)
        return kp

    def _stance_load(self, sensed, R):
        """Joint torques that make each stance foot push down with its share of the weight
        (J^T f on the measured joints and attitude ``R``, row-major) and the motors' force
        limits."""
        cfg, plan = self.config, self.planner
        weight = self._weight * cfg.load
        avail = load.availability(plan.stance, plan.stance_progress, cfg.load_ramp)
        cx, cy, _ = sensed.com
        arms = [(f[0] - cx, f[1] - cy) for f in sensed.feet]
        moment = load.attitude_arms(sensed.quaternion, sensed.angular_velocity, self._stand_h,
                                    *self._attitude)  # fmt: skip
        if self._zmp_k != 0.0:  # the centre of pressure moved toward the reference's ZMP
            (zx, zy), (mx, my) = self._zmp_arm, moment
            moment = (mx + zx, my + zy)
        shares = load.load_shares(avail, arms, moment, cfg.min_load)
        # (on soles the ankles' points: a line in double support, so a biped's stance legs
        # stay stiff; the soles' area, which the summary's margin uses, left the generated
        # bipeds' walks at 19 of 144 and their load split unmoved: docs/bipeds.md, stop 49)
        margin = support_margin(sensed.com, sensed.feet, plan.stance)
        stiff = load.stiffness_blend(margin, cfg.margin_band * self._stand_h)
        q, full = sensed.joint_positions, self._full_forces
        r6, r7, r8 = R[6], R[7], R[8]
        share_k, floor = cfg.motor_share, cfg.motor_floor * weight / self.n_legs
        sqrt, jacobians = math.sqrt, self._jacobians
        tau, forces = [], []
        for i, share in enumerate(shares):
            k = 3 * i
            if share == 0.0:  # swing: no feedforward, the full motor
                tau += (0.0, 0.0, 0.0)
                forces += full[k : k + 3]
                continue
            f = share * weight  # pushing down, in the body frame: R^T (0, 0, -f)
            fx, fy, fz = -f * r6, -f * r7, -f * r8
            j0, j1, j2, j3, j4, j5, j6, j7, j8 = jacobians[i](q[k], q[k + 1], q[k + 2])
            # J^T f, and the motors may push the foot with at most fb newtons in any
            # direction: a share of its load, below friction, so they can neither lift nor
            # slide a loaded foot (the bound on joint k is fb times |column k|), blended
            # toward the full motor by ``stiff``: min(b + stiff (top - b), top) where b <
            # top, written as conditionals (min(x, top) is top only when top < x)
            fb = share_k * f + floor
            tau += (j0 * fx + j1 * fy + j2 * fz, j3 * fx + j4 * fy + j5 * fz,
                    j6 * fx + j7 * fy + j8 * fz)  # fmt: skip
            for top, b in ((full[k], fb * sqrt(j0 * j0 + j1 * j1 + j2 * j2)),
                           (full[k + 1], fb * sqrt(j3 * j3 + j4 * j4 + j5 * j5)),
                           (full[k + 2], fb * sqrt(j6 * j6 + j7 * j7 + j8 * j8))):  # fmt: skip
                if b < top:
                    b += stiff * (top - b)
                    top = top if top < b else b
                forces.append(top)
        return tau, forces

    # ------------------------------------------------------------------ one control step
    def step(self, joint_offsets=None, joint_targets=None) -> None:
        """One control step: plan, IK, commands, physics substeps, record.

        ``joint_offsets`` (3 L radians, chain order) are added to the gait's joint targets
        (residual policies); ``joint_targets`` replace them (policies without the prior).
        ``speed_scale``, ``lift_scale`` and ``yaw_rate`` (attributes) modulate the gait.
        """
        sensed = self._last
        self._apply_steering(self.yaw_rate)
        ds = self._advance_distances()
        ref, ref2 = self._ref(self.s_ref), self._ref(self.s_ref + ds)
        if self._zmp_k != 0.0:
            self._zmp_arm = self._zmp_shift(ref[0], ref2[0])
        corr = self._placement(sensed, ref, ref2)
        if self.soles is not None:
            corr = self._keep_width(corr, ref[2])
        targets, ahead, events = self._plan_feet(sensed, corr, ref[2])
        mrot = rot_from_quat(sensed.quaternion)  # the measured attitude, row-major
        q2, v, short = self._solve_legs(sensed, mrot, ref, ref2, targets, ahead, events)
        kp = self._gains()
        if joint_targets is not None:  # (tolist: Python numbers, cheaper to iterate)
            q2, v, kp = [float(x) for x in np.ravel(joint_targets).tolist()], None, None
        elif joint_offsets is not None:
            offsets = np.ravel(joint_offsets).tolist()
            q2 = [a + float(b) for a, b in zip(q2, offsets, strict=True)]
        self.q_command = q2
        self.targets, self.shortfall = targets, short  # this step's, for callers
        tau, forces = self._stance_load(sensed, mrot)
        self.robot.command_joint_list(q2, v, kp, forces)
        if self.soles is not None:
            self._command_ankles(sensed, q2, mrot, targets)
        if self.upper is not None:
            self._command_upper(sensed)
        self._physics(tau, ds, ref[2], ref2[2])
        self._sense(ref, targets, short)

    def _command_ankles(self, sensed, q2, mrot, targets) -> None:
        """Command the soles' ankles for the legs' commands ``q2``: their position targets
        (``SoleDriver.ankles``) and, with ``ankle_cop``, the torque ranges that keep each
        sole's centre of pressure on it (``SoleDriver.cop_limits``)."""
        lim = bias = None
        if self.config.ankle_cop > 0.0:
            lim, bias = self.soles.cop_limits(sensed.foot_forces, self.planner.stance,
                                              self.robot.ankle_effort, self.config.ankle_cop,
                                              self._toe_share)  # fmt: skip
        q = self.soles.ankles(q2, (self._vrot, mrot), self._virtual_shares(), targets,
                              self._facing)  # fmt: skip
        self.robot.command_ankles(q, forces=lim, kp=self._foot_gains, bias=bias)

    def _zmp_shift(self, pos, pos2) -> tuple[float, float]:
        """The reference pendulum's zero-moment point less its centre of mass, x and y,
        times ``zmp_share``: -c'' / omega^2, c'' the reference body's acceleration by central
        differences over the last, this and the next control period (none at the first).
        The load split puts the centre of pressure there, so the ground's push that carries
        the body along its swaying reference passes through its centre of mass."""
        x0, y0 = self._ref_before if self._ref_before is not None else (
            2.0 * pos[0] - pos2[0], 2.0 * pos[1] - pos2[1])  # fmt: skip
        self._ref_before = (pos[0], pos[1])
        k = self._zmp_k / (self.dt * self.dt)
        return (k * (pos2[0] - 2.0 * pos[0] + x0), k * (pos2[1] - 2.0 * pos[1] + y0))

    def _command_upper(self, sensed) -> None:
        """The upper body's joints for this step (``upperbody``); the gaze looks along the
        reference path's heading ``preview_s`` ahead."""
        head = self.upper.ug.head
        ahead = self.speed * self.speed_scale * (head.preview_s if head is not None else 0.0)
        self.q_upper = self.upper.step(self.s, sensed, self._ref_heading(self.s_ref + ahead))

    def push(self, velocity: float) -> None:
        """A sideways push: the whole robot's velocity changes by ``velocity`` m/s toward
        the body's left (negative: right), as an impulse of mass x velocity through its
        centre of mass would change it (every link gets the same change; joint velocities
        are kept). The controller reads the new state before its next step."""
        yaw = self._last_yaw
        lin, ang = self.robot.base_velocity()
        left = (-math.sin(yaw), math.cos(yaw), 0.0)
        self.robot.set_base_velocity([v + velocity * u for v, u in zip(lin, left, strict=True)],
                                     ang)  # fmt: skip
        self._last = self.robot.sense()

    def _placement(self, sensed, ref, ref2) -> tuple[float, float]:
        """Capture-point foot placement: swing feet land ``capture_gain`` times the offset
        of the body's capture point (position + velocity / omega, omega = sqrt(g / h): where
        it would have to step to stop) from the reference body's, so a body that drifts or
        sways off its plan steps under itself; and a further ``speed_gain`` / omega times
        the speed error along the path's heading (``_speed_gain``), which damps the body's
        surge about its reference."""
        k, kv = self.config.capture_gain, self._speed_k
        if k == 0.0 and kv == 0.0:
            return 0.0, 0.0
        pos, pos2 = ref[0], ref2[0]
        mp, tc = sensed.position, self._fall_time
        ex, ey = self._velocity_error(sensed, (pos2[0] - pos[0], pos2[1] - pos[1]))
        cx, cy = k * (mp[0] - pos[0] + tc * ex), k * (mp[1] - pos[1] + tc * ey)
        if kv != 0.0:  # along the heading only: sideways the capture point is the rule
            c, s = math.cos(ref[2]), math.sin(ref[2])
            along = kv * tc * (c * ex + s * ey)
            cx, cy = cx + along * c, cy + along * s
        return cx, cy

    def _keep_width(self, corr, heading: float) -> tuple[float, float]:
        """The placement ``corr`` moved sideways (across ``heading``) so that no swing foot
        lands nearer a stance foot than ``step_width`` of their nominal lateral spacing (at
        least their soles' mean width): capture-point placement after a sideways drift would
        otherwise cross the legs, landing the swing foot under or past the stance foot, and
        the next step cannot catch the body (the mechanic fell so). Only feet on opposite
        sides (the catalog's ``side``) can cross: a fore and a hind foot on one side stand
        in line (the fox on soles, its swing feet pushed a sole's width out from the
        stance foot on their own side, rolled over within 0.5 s)."""
        plan, share = self.planner, self.config.step_width
        sides = self._sides
        c, s = math.cos(heading), math.sin(heading)
        cx, cy = corr
        for i, down in enumerate(plan.stance):
            if down:  # only swing feet are placed
                continue
            for j, st in enumerate(plan.stance):
                if not st or sides[j] == sides[i]:
                    continue
                nominal = plan.home_xy[i][1] - plan.home_xy[j][1]  # left of j: positive
                side = 1.0 if nominal >= 0.0 else -1.0
                need = max(share * abs(nominal),
                           0.5 * (self.soles.width(i) + self.soles.width(j)))  # fmt: skip
                (ax, ay, _), (bx, by, _) = plan.land_at[i], plan.plant[j]
                lateral = -s * (ax + cx - bx) + c * (ay + cy - by)
                short = need - side * lateral
                if short > 0.0:
                    cx, cy = cx - s * side * short, cy + c * side * short
        return cx, cy

    def _physics(self, tau, ds: float, heading: float, heading2: float) -> None:
        """The substeps, with the torque feedforward held through them; a free body runs
        them in one call to the engine, a body mode acts before every one."""
        body, n = self.config.body, self.substeps
        self.robot.command_torque_list(tau)
        loop = self.upper is not None and self.upper.closed_loop
        if body == "free":
            if not loop:
                self.world.step(n)
            else:  # the loops on the measured body before every substep but the first
                step, hold, dt = self.world.step, self.upper.hold, self.world.dt
                pose = self.robot.base_pose_floats
                step(1)
                for _ in range(n - 1):
                    hold(*pose(), dt)
                    step(1)
            self.t += self.dt
            return
        yaw_rate = wrap(heading2 - heading) / self.dt  # the reference's, over the step
        for k in range(1, n + 1):
            if loop and k > 1:
                self.upper.hold(*self.robot.base_pose_floats(), self.world.dt)
            s = self.s_ref - ds * (1 - k / n)
            pos, rot, _, _ = self._ref(s)
            ahead = self._ref(s + ds / n)[0]
            if body == "assist":  # set before each of the engine's own steps
                climb = (ahead[2] - pos[2]) / self.world.dt
                self.world.step(1, before=partial(self.assist.apply, pos, rot, climb=climb))
            else:
                vel = [(b - a) / self.world.dt for a, b in zip(pos, ahead, strict=True)]
                place_base(self.world, self.robot, pos, rot, vel, yaw_rate)
                self.world.step(1)
        self.t += self.dt

    def _sense(self, ref, targets, short) -> None:
        """Read the robot after the step, advance the odometry and record the step."""
        new = self.robot.sense()
        self._odo_step = 0.0
        step = self.advance_odometry(new, ref)  # (s_ref and the steering are the step's)
        self.progress += step
        self._odo_step = max(step, 0.0)
        self._last = new
        self._last_yaw = yaw_of(new.quaternion)
        if self.record is not None:
            if self._rows is None:  # one row a step, in RECORD_KEYS order
                self._rows = self.record.rows(RECORD_KEYS)
            # the per-foot rows kept as tuples: a tuple of numbers (or of tuples of numbers)
            # is left untracked by the garbage collector, a list is visited by every full
            # collection for as long as the record lives
            self._rows.append((
                self.t, self.s, self.progress, self.s_ref, ref[0], ref[2], new.position,
                new.quaternion, new.linear_velocity, new.com, tuple(new.feet),
                tuple(new.foot_quaternions), tuple(new.contacts), tuple(self.planner.stance),
                tuple(targets), tuple(short), new.joint_torques, new.joint_velocities,
                new.body_contact, new.leg_contact, new.momentum_z, tuple(new.foot_forces),
                new.leg_force,
            ))  # fmt: skip
            if self.upper is not None:
                self._record_upper(new)
            if self.soles is not None:  # each foot's centre of pressure (NaN: not down)
                nan = (math.nan,) * 3
                self.record.add(foot_cops=[c if c is not None else nan for c in new.foot_cops])

    def _record_upper(self, new) -> None:
        """The upper body's record: joints, head centre and attitude, chest attitude (a
        row a step in the record's table of the keys this walker has, ``_upper_rows``)."""
        head, chest = new.head is not None, new.chest_quaternion is not None
        if self._upper_rows is None:
            keys = ("upper_q",) + (("head", "head_quat") if head else ()) + (
                ("chest_quat",) if chest else ())  # fmt: skip
            self._upper_rows = self.record.rows(keys)
        row = (new.upper_positions, new.head, new.head_quaternion) if head else (
            new.upper_positions,)  # fmt: skip
        self._upper_rows.append((*row, new.chest_quaternion) if chest else row)

    # ------------------------------------------------------------------ results
    def arrays(self) -> dict[str, np.ndarray]:
        # the momentum rows are the engine's raw readings
        rec = self.record.arrays({"momentum_z": self.robot.momentum_series})
        T, L = len(rec["t"]), self.n_legs
        rec["torque"] = rec["torque"].reshape(T, L, 3)
        rec["joint_vel"] = rec["joint_vel"].reshape(T, L, 3)
        xy = rec["base_pos"][:, :2]
        rec["ground_z"] = self.walker.terrain.height(xy[:, 0], xy[:, 1])
        yaw = np.array([yaw_of(q) for q in rec["base_quat"]])
        rec["heading_error"] = (yaw - rec["ref_heading"] + np.pi) % (2 * np.pi) - np.pi
        return rec


def _swing_gain(u: float, k_land: float, k_swing: float) -> float:
    """Position gain over a swing: stiff, then easing to the landing gain from u = 0.6 to 1."""
    return k_swing + smooth01((u - 0.6) / 0.4) * (k_land - k_swing)


def world_substeps(sim_dt: float, control_hz: float) -> int:
    """Physics substeps per control step; the control period must be a whole number of them."""
    n = (1.0 / control_hz) / sim_dt
    if abs(n - round(n)) > 1e-6 or round(n) < 1:
        raise ValueError(
            f"control rate {control_hz} Hz must divide the sim rate {1 / sim_dt:g} Hz "
            "into a whole number of substeps (e.g. 240 Hz sim with 60, 80, 120 or 240 Hz control)"
        )
    return round(n)
