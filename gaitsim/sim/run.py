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

from ..body import compile_body
from ..catalog import MAX_RUN_SECONDS, GaitsimError
from ..feet import soles
from ..geometry import GRAVITY, flight_gait, geometry
from ..path import Arc, Straight, TurnInPlace
from ..terrain import Flat, Rough, scalar_height
from ..validate import turn_radius as natural_turn_radius
from ..walker import Walker, lean_cadence, resolve_entry
from .controller import AUTO_BODY, ControlConfig, GaitController
from .engine import DEFAULT_ENGINE, check_engine, load_robot, make_world
from .metrics import fall_reason, summarize, verdict
from .stance import (  # (also sim.run API: the summary, the free bipeds' tempo)
    FREE_BIPED_TEMPO,  # noqa: F401  (re-exported: the CLI's notes and the tests read it here)
    OFF_CENTRE_SHARE,
    line_drift_growth,
    line_offset,
    pendulum_tempo,
    steps_slowly,
    tipping_ratio,
    weak_support,
)
from .summary import RunSummary
from .upper_metrics import upper_body_figures
from .world import HEIGHTFIELD_PAD, MAX_HEIGHTFIELD_POINTS

# A point-footed gait whose stand on fewer than three feet lets a drift across the line
# grow more than this many-fold falls free (``line_drift_growth``). Measured on the
# generated walkers with four or more legs and duty >= 0.5 among seeds 0-299 (10 s free,
# flat, 5 deg slopes, 1 cm rough ground): every one that stands on a line, up to
# 14.3-fold, gets the walked verdict; the three
# above, 19.5-fold (seed 185, a trot of duty 0.54), 21.7 (195) and 41 (297, trots of
# duty 0.50 with no four-foot phase), fall on some or all of those grounds.
LINE_GROWTH_LIMIT = 15.0
# Below that limit, a gait near duty 0.5 (under SLOPE_LINE_DUTY) whose line drift grows more
# than SLOPE_LINE_GROWTH-fold climbs less surely, free: of the 225 generated trots with duty
# >= 0.5 among seeds 3000-4999 (10 s, 5 deg), the 35 of that class climb 26 times and
# descend 35, every other trot free by default climbs 164 of 164 (docs/gait_fidelity.md,
# stop 51). ``gaitsim walk`` says so when one falls on a slope; the default body is free.
SLOPE_LINE_GROWTH = 7.0
SLOPE_LINE_DUTY = 0.6
# A gait that stands on feet passing beside the body's centre (``line_offset`` over
# OFF_CENTRE_SHARE: a pace's lateral pairs, a bound's fore and hind pairs) must sway its
# centre of mass from one such line to the next, which a drift across them upsets sooner
# than a trot's. Free, flat, 10 s: the 60 generated paces among irregular seeds 0-1999
# walk 35 of 38 times up to OFFSET_LINE_GROWTH_LIMIT-fold and 5 of 22 above it (1 within
# 1.2 landings a stance); 40 four-legged walkers rephased as bounds of duty 0.52-0.75, 18
# of 26 and 0 of 14 (13 of those 14 on the assist). A gait whose feet are never all down
# between two such stands (a bound of duty 0.5) has no time to carry the body across: the
# sixth catalog's Minitaur pitched 42 deg. Of the 85 generated and catalog walkers the
# rule moves to the assist (docs/gait_fidelity.md, stop 61), flat, up 5 deg and 1 cm
# rough, 140 of 255 runs met the verdict and the landing bound free, 236 with the assist.
OFFSET_LINE_GROWTH_LIMIT = 7.0
MAX_ASSISTED_LEGS = 3  # walkers with this many legs or fewer get the assist (default_body)
# A point-footed body standing more than this many times as tall as half the sideways
# spread of its feet (``stance.tipping_ratio``) gets the assist by default. Measured on the
# four-legged walks of ``generate.quadruped_walker`` seeds 0-99 (10 s free; flat, 5 deg up,
# 1 cm rough; README "Four-legged walks"): of the runs of walkers standing 4-6 times as tall
# 72 of 99 meet every bound free, of those standing 6 or more times 23 of 90 (traced on
# one: the sway that keeps the zero-moment point in its narrow support leaves the centre of
# mass millimetres from its edge); with the assist those 30 meet every bound in 90 of 90
# runs, and the 34 such walks of seeds 100-199 in 102 of 102
NARROW_ASSIST = 6.0


# Free bipeds walk at a brisk tempo and mostly fall at a slow one (docs/bipeds.md,
# "Generated bipeds fall free because they step slowly"): the free mechanic walks at cycles of 0.59
# pendulum periods (``biped_tempo``; 6 of 6 start points), 0.71 (5 of 6) and 0.79 (3 of
# 4), and falls at 0.89 and 1.19 (every start); of the first 24 generated bipeds (10 s
# flat, two starts each) 0 of 48 runs walk at their own 0.66-1.17, 12 at 0.6, 19 at 0.5.
# A trend, not a bound: the note names it, nothing enforces it.
BRISK_BIPED_TEMPO = 0.6


# A free biped whose stance sweeps more than LONG_STRIDE hip heights mostly falls: a foot
# that lands that far ahead brakes the body at each landing (the free ostrich of
# ``experiments/animal_walkers.json``, 1.07 hip heights: 1.18 -> 0.72 m/s over one double
# support), the position-controlled stance legs do not push it back up to speed, and the
# body lags its reference further each step until it falls. Measured on the first 72
# generated bipeds without flight phases at 0.6 pendulum periods, each stride set to R hip
# heights (10 s flat, two starts; ``experiments/biped_free.py --generated 72 --walks-only
# --tempo 0.6 --stride R``; docs/bipeds.md, stop 57): at their own strides (0.3-0.7) 115
# of 144 runs walk free and 142 on the assist, at 0.8 102 and 136, at 1.0 66 and 119. On
# the brisk striding bipeds of ``generate.striding_biped`` seeds 0-119 (flat, up 5 deg,
# 1 cm rough; free) 27 of 39 runs walk at 0.7-0.8 hip heights, 19 of 39 at 0.8-0.9, 12 of
# 27 at 0.9-1.0 and 18 of 63 beyond: past 0.8 most fall. Such bipeds (a person's or a
# bird's walk strides about 1.0) get the assist by default.
LONG_STRIDE = 0.8


def stride_ratio(entry) -> float:
    """A walker's stride (the distance each stance sweeps) in hip heights
    (``geometry.hip_height``): the bipeds' rule reads it (``walks_free_biped``), every
    summary carries it."""
    gait = resolve_entry(entry).gait
    return gait.stride / geometry(gait).hip_height


def biped_tempo(entry) -> float | None:
    """A two-legged walker's gait cycle (s) in periods of a pendulum as long as its hip is
    high, 2 pi sqrt(hip height / g) (``stance.pendulum_tempo``); None for other walkers."""
    gait = resolve_entry(entry).gait
    if gait.n_legs != 2:
        return None
    return pendulum_tempo(gait, geometry(gait).hip_height)


def clip_speed_at_tempo(entry, tempo: float) -> float:
    """The clip speed (m/s) that makes a biped's gait cycle last ``tempo`` pendulum periods
    (``biped_tempo``), its stride kept: the cycle lasts as long as the clip speed is slow."""
    return resolve_entry(entry).gait.clip_speed * biped_tempo(entry) / tempo


def walks_free_biped(entry, engine: str = DEFAULT_ENGINE) -> bool:
    """Whether a two-legged walker gets a free body by default: it stands on soles (its own
    or derived), has no flight phase (``geometry.flight_gait``), steps at most
    FREE_BIPED_TEMPO pendulum periods a cycle (``biped_tempo``), strides at most
    LONG_STRIDE hip heights (``stride_ratio``) and runs on PyBullet (on MuJoCo the free
    mechanic falls climbing 5 deg from 4 of 6 starts, which it walks on PyBullet: the
    assist stays its default there; docs/bipeds.md, stop 50)."""
    gait = resolve_entry(entry).gait
    if gait.n_legs != 2 or flight_gait(gait) or soles(gait) is None or engine != "pybullet":
        return False
    hip = geometry(gait).hip_height
    return not steps_slowly(gait, hip) and gait.stride / hip <= LONG_STRIDE  # stride_ratio


def default_body(entry, engine: str = DEFAULT_ENGINE) -> str:
    """The body mode a walker gets unless one is asked for: ``assist`` for two or three
    legs, for gaits with flight phases (``geometry.flight_gait``: duty < 0.5, or no foot
    on the ground for part of the cycle, as in a hop), for point-footed gaits that stand
    on a line so long that a drift grows more than LINE_GROWTH_LIMIT-fold
    (``line_drift_growth``: slow trots with little or no four-foot phase) and for
    point-footed bodies standing more than NARROW_ASSIST times as tall as their half track
    (``stance.tipping_ratio``), ``free`` for every other walker; and ``free`` for a biped
    that walks on its own feet (``walks_free_biped``: on soles, without flight phases,
    brisk enough, with strides short enough, on PyBullet).

    Three legs, because while any one swings the other two stand on a line, and no line
    between two of three feet passes under the body (a trot's diagonals cross beneath it):
    as a biped on one foot, the body stays up only by swaying onto each line in turn. Of
    the 32 three-legged walkers among irregular seeds 0-199 (``generate.irregular_walker``,
    10 s flat) 17 walked free and 30 with the assist, every one of the 17 among them
    (docs/gait_fidelity.md, stop 40)."""
    gait = resolve_entry(entry).gait
    if walks_free_biped(entry, engine):
        return "free"
    if gait.n_legs <= MAX_ASSISTED_LEGS or flight_gait(gait):
        return "assist"
    growth = line_drift_growth(entry)
    if growth > LINE_GROWTH_LIMIT or offset_lines_topple(gait, growth):
        return "assist"
    narrow = soles(gait) is None and tipping_ratio(geometry(gait)) > NARROW_ASSIST
    return "assist" if narrow else "free"


def offset_lines_topple(gait, growth: float) -> bool:
    """Whether a point-footed gait that stands on feet beside its centre (``line_offset``
    over OFF_CENTRE_SHARE) lets a drift grow more than OFFSET_LINE_GROWTH_LIMIT-fold
    (``growth``: ``line_drift_growth``) or never has its feet all hold it between two such
    stands (``weak_support`` all through the cycle)."""
    if soles(gait) is not None or line_offset(gait) <= OFF_CENTRE_SHARE:
        return False
    return growth > OFFSET_LINE_GROWTH_LIMIT or bool(weak_support(gait).all())


def summary_tipping_ratio(entry) -> float | None:
    """``stance.tipping_ratio`` of the walker's body for its summary (None for feet in one
    line along the body, whose ratio is infinite)."""
    r = tipping_ratio(geometry(resolve_entry(entry).gait))
    return r if math.isfinite(r) else None


BALANCE_SWAY = 1.0  # in physics the body sways to keep its ZMP in the support (balance.py)
BOB_ACCEL = 0.5  # ... and its bob falls at most this share of g (``Walker``'s ``bob_accel``):
# no built-in or generated walker's bob comes near it (at most 0.41 g, seeds 0-1099 of
# every kind and irregular); the fourth catalog's 4 cm bob asked 0.84 g


TURN_LEAN = 1.0  # ... and on an arc it leans into the turn (``Walker.turn_shift``): the
# body's centre moves toward the arc's centre by h v^2 / (r g), so that the ground's push
# stays under it. On arcs that ask 0.3 of the sideways acceleration a body can stand on its
# half track (147 generated and catalog walkers of three or more legs, radius 0.5-14 m,
# 10 s, default body) 124 walk within 1.5 landings a stance against 118 without it, 8
# gained and 1 lost (docs/gait_fidelity.md, stop 61)


def physics_walker_options(options: dict | None = None) -> dict:
    """Walker keywords for a physics run: the balancing sway (``BALANCE_SWAY``), a bob
    that falls at most ``BOB_ACCEL`` g and the lean into arcs (``TURN_LEAN``), unless the
    caller sets ``sway`` (0: the catalog's body path, unbalanced), ``bob_accel`` (None:
    the catalog's bob as is) or ``turn_lean`` (0: upright on arcs); then the caller's."""
    return {"sway": BALANCE_SWAY, "bob_accel": BOB_ACCEL, "turn_lean": TURN_LEAN,
            **(options or {})}  # fmt: skip


def arc_demand(entry, speed: float, radius: float) -> float:
    """The sideways acceleration an arc of ``radius`` (m, either sign) asks of the walker
    at ``speed`` (m/s), v^2 / |r|, as a share of what its feet's half track holds under its
    standing height (g / ``stance.tipping_ratio``): past 1 the centripetal push at the feet
    moves the zero-moment point outside the track, more than a lean into the turn
    (``Walker.turn_shift``, at most 0.8 of the half track) makes up. 0 for feet in one
    line along the body (no track to hold it)."""
    ratio = tipping_ratio(geometry(resolve_entry(entry).gait))
    if not math.isfinite(ratio):
        return 0.0
    return speed * speed * ratio / (abs(radius) * GRAVITY)


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
MAX_ROUGH_SIZE = 200.0  # m: the widest rough ground a run lays (a heightfield's memory)


class RunError(GaitsimError, ValueError):
    """A run that cannot be simulated as asked (too long, too much ground); the message
    says what to change. The ``gaitsim`` command reports it with exit code 2."""


def cover_path(terrain, path, distance: float, reach: float):
    """Rough ground re-laid (same amplitude, wavelength, seed) to cover ``path`` up to
    ``distance`` with ``reach`` + RUN_MARGIN to spare; its flat start patch stays at the
    start. Ground wider than the physics' heightfield holds on its cells is laid on coarser
    ones (``heightfield_cell``), the same size if it already covers the path. Any other
    terrain, or rough ground that already covers the path on cells it can hold, is
    returned."""
    if not isinstance(terrain, Rough):
        return terrain
    s = np.linspace(0.0, distance, 200)
    xy, _ = path.pose(s)
    lo, hi = xy.min(axis=0) - reach - RUN_MARGIN, xy.max(axis=0) + reach + RUN_MARGIN
    ox, oy = terrain.origin
    half = (terrain.n - 1) * terrain.cell
    if lo[0] >= ox and lo[1] >= oy and hi[0] <= ox + half and hi[1] <= oy + half:
        if heightfield_cell(terrain.size, terrain.cell) == terrain.cell:
            return terrain
        size, centre = terrain.size, terrain.centre  # covers, on too many cells
    else:
        size = float(np.max(hi - lo))
        centre = tuple(float(c) for c in (lo + hi) / 2)
    if size > MAX_ROUGH_SIZE:
        raise RunError(
            f"rough ground for this run would be {size:.0f} m across (at most "
            f"{MAX_ROUGH_SIZE:g} m): shorten the run (seconds) or walk it on flat or sloped "
            "ground"
        )
    flat = terrain.flat_centre if terrain.flat_centre is not None else terrain.centre
    cell = heightfield_cell(size, terrain.cell)
    if not terrain.wavelength > 2 * cell:
        raise RunError(
            f"rough ground for this run would be {size:.0f} m across, laid on {cell:.3g} m "
            f"cells (a heightfield of at most {MAX_HEIGHTFIELD_POINTS} points), too coarse for "
            f"a bump spacing of {terrain.wavelength:g} m: shorten the run (seconds) or "
            "space the bumps wider (--roughness-wavelength)"
        )
    return dataclasses.replace(terrain, size=size, centre=centre, flat_centre=tuple(flat),
                               cell=cell)  # fmt: skip


def heightfield_cell(size: float, cell: float) -> float:
    """The grid spacing (m) for rough ground ``size`` m across: ``cell``, or the smallest
    coarser one whose square grid, with the physics' edge padding (HEIGHTFIELD_PAD cells a
    side), has at most MAX_HEIGHTFIELD_POINTS points."""
    side = math.isqrt(MAX_HEIGHTFIELD_POINTS) - 2 * HEIGHTFIELD_PAD - 1  # cells, unpadded
    return max(cell, size / side)


@dataclass
class RunResult:
    """A run's typed summary (``figures``, a RunSummary, the verdict included), its
    per-control-step recording and its control period (s). A summary dict given for
    ``figures`` is read into a RunSummary."""

    figures: RunSummary
    record: dict = field(repr=False)
    dt: float = 0.0

    def __post_init__(self):
        if not isinstance(self.figures, RunSummary):
            self.figures = RunSummary.from_dict(self.figures)

    @property
    def summary(self) -> dict:
        """The summary as a plain dict (``figures.to_dict()``: the keys and values that
        ``gaitsim walk --json`` prints); a fresh copy on every access."""
        return self.figures.to_dict()


MAX_SECONDS = MAX_RUN_SECONDS  # the longest run simulate() accepts
TABLE_AHEAD_S = 60.0  # the reference table is built this far ahead up front, then grows


def simulate(
    walker,
    *,
    terrain=None,
    speed_scale: float = 1.0,
    turn_radius: float | None = None,
    yaw_rate: float | None = None,
    seconds: float = 20.0,
    config: ControlConfig | None = None,
    sim_hz: float | None = None,
    friction: float = 1.0,
    solver_iterations: int = 50,
    gui: bool = False,
    stop_on_fall: bool = True,
    on_step: Callable | None = None,
    walker_options: dict | None = None,
    seed: int | None = None,
    engine: str = DEFAULT_ENGINE,
    push_at: float | None = None,
    push_velocity: float = 0.0,
) -> RunResult:
    """Walk ``walker`` (a built-in name, Entry or Gait) for ``seconds`` and measure it.

    ``on_step(controller)`` is called after every control step (progress bars, video).
    With ``stop_on_fall`` the run ends one second after a fall is detected; a run whose
    physics goes non-finite ends at once (verdict ``non_finite``). A ``seed`` draws the
    episode's spread from a seeded generator: the start point in the gait cycle and the
    ground friction (x U(0.9, 1.1)); the default (None) starts at distance 0 with the given
    friction, deterministically. ``engine``: "pybullet" or "mujoco" (gaitsim.sim.engine).
    ``config`` None is ``ControlConfig()``, a free body; ``ControlConfig(body="auto")``:
    the body ``gaitsim walk`` gives the walker (``default_body`` on ``engine``). ``push_at``
    (s) and ``push_velocity`` (m/s, positive to the walker's left): a sideways push, the
    whole robot's velocity changed at once as by an impulse (``GaitController.push``).
    ``sim_hz``: the physics rate; None: the body's own (``Body.sim_hz``). Memory grows with
    the steps walked, not the ones asked for; runs longer than MAX_SECONDS are refused.
    """
    check_seconds(seconds)
    check_engine(engine)
    push = check_push(push_at, push_velocity, seconds)
    body = compile_body(walker)
    entry = body.entry
    config, sim_hz = _with_rates(body, with_default_body(config, entry, engine), sim_hz)
    start, friction = _spread(entry, speed_scale, friction, seed)
    options = physics_walker_options(walker_options)
    # the upright lean's cadence: a faster step downhill is a faster walk
    terrain = terrain if terrain is not None else Flat()
    speed = entry.gait.clip_speed * speed_scale * lean_cadence(terrain, options.get("lean"))
    path = make_path(entry, speed, turn_radius, yaw_rate)
    reach = float(np.max(np.abs(body.geometry.homes[:, :2]))) + 0.5
    terrain = cover_path(terrain, path, speed * seconds * 1.5 + 1.0, reach)
    kin = Walker(entry, terrain, path, speed_scale, **options)
    world = make_world(
        engine,
        terrain,
        gui=gui,
        time_step=1.0 / sim_hz,
        friction=friction,
        solver_iterations=solver_iterations,
    )
    try:
        robot = load_robot(world, body, servo_clock=config.servo_clock)
        horizon = start + speed * min(seconds, TABLE_AHEAD_S) * 1.05 + kin.cycle
        ctl = GaitController(world, robot, kin, config, start=start, horizon=horizon)
        _walk(ctl, kin, round(seconds / ctl.dt), stop_on_fall, on_step, push)
        rec = ctl.arrays()
        summary = _summary(ctl, kin, rec)
        summary.update(
            walker=entry.name, terrain=terrain.describe(), path=type(path).__name__,
            speed_scale=speed_scale, body=config.body, distance_source=config.distance_source,
            swing=kin.swing, catalog_duty=entry.gait.duty, seconds=seconds, seed=seed,
            line_drift_growth=line_drift_growth(entry), friction=friction, engine=engine,
            tipping_ratio=summary_tipping_ratio(entry), stride_ratio=stride_ratio(entry),
            sim_hz=sim_hz, control_hz=ctl.config.control_hz, servo_clock=robot.servo_clock,
            slow_walk=ctl.slow_walk, control=control_settings(config), push_at_s=push_at,
            push_velocity_m_s=push_velocity if push_at is not None else 0.0,
        )  # fmt: skip
        summary["verdict"], summary["verdict_reason"] = verdict(summary)
        return RunResult(summary, rec, ctl.dt)
    finally:
        world.close()


def _spread(entry, speed_scale: float, friction: float, seed: int | None):
    """The episode's start distance and friction: 0 and as given, or drawn from ``seed``."""
    if seed is None:
        return 0.0, friction
    rng = np.random.default_rng(seed)
    start = float(rng.uniform(0.0, entry.gait.cycle * speed_scale))
    return start, float(friction * rng.uniform(0.9, 1.1))


def check_seconds(seconds: float) -> None:
    """RunError unless ``seconds`` is a run length simulate() takes."""
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS):
        raise RunError(
            f"seconds must be in (0, {MAX_SECONDS:g}] (10 simulated hours), got {seconds!r}"
        )


def with_default_body(config: ControlConfig | None, entry, engine: str = DEFAULT_ENGINE):
    """``config`` with body ``auto`` (``ControlConfig.body``) replaced by the walker's
    default body on ``engine`` (``default_body``); any other config as it is."""
    if config is None or config.body != AUTO_BODY:
        return config
    return dataclasses.replace(config, body=default_body(entry, engine))


def _with_rates(body, config: ControlConfig | None, sim_hz):
    """``config`` (None: the defaults) with its servo clock and control rate resolved for
    ``body`` (``run_rates``), and the physics rate, checked."""
    config = config if config is not None else ControlConfig()
    clock, control_hz, sim_hz = run_rates(body, config.body, config.servo_clock,
                                          config.control_hz, sim_hz)  # fmt: skip
    sim_hz = check_sim_hz(sim_hz)
    return dataclasses.replace(config, control_hz=control_hz, servo_clock=clock), sim_hz


# ControlConfig fields a summary records under their own names (or, the assist's gains,
# not at all), left out of its ``control``
SUMMARY_OWN_CONTROL = ("body", "distance_source", "control_hz", "servo_clock", "assist")


def control_settings(config: ControlConfig) -> dict:
    """The fields of ``config`` set away from their defaults (``ControlConfig()``'s), but
    for SUMMARY_OWN_CONTROL: what a run summary's ``control`` records, so that a run made
    with ``--control`` or a sweep's ``[base.control]`` says so."""
    default = ControlConfig()
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(config)
            if f.name not in SUMMARY_OWN_CONTROL
            and getattr(config, f.name) != getattr(default, f.name)}  # fmt: skip


def run_rates(body, mode: str, servo_clock: float | None = None,
              control_hz: float | None = None, sim_hz: float | None = None):  # fmt: skip
    """A run's servo clock, control rate and physics rate (Hz) for ``body`` (a Body) in body
    mode ``mode``: each as given, or by default the body's own servo clock for a free body
    or one on sphere feet, and 1 (the tuned gains) for soles with the assist or the
    kinematic body, which hold the body up and level themselves (``geometry.servo_clock``),
    and the body's rates on that clock
    (``Body.rates``)."""
    if servo_clock is None:
        servo_clock = body.servo_clock if mode == "free" or body.soles is None else 1.0
    own_control, own_sim = body.rates(servo_clock)
    return (float(servo_clock), own_control if control_hz is None else control_hz,
            own_sim if sim_hz is None else sim_hz)  # fmt: skip


def check_sim_hz(sim_hz) -> float:
    """``sim_hz`` as a float; RunError unless it is a positive rate."""
    if not (isinstance(sim_hz, (int, float)) and math.isfinite(sim_hz) and sim_hz > 0):
        raise RunError(f"sim_hz must be a positive physics rate in Hz (or None: the "
                       f"body's own), got {sim_hz!r}")  # fmt: skip
    return float(sim_hz)


def check_push(push_at: float | None, push_velocity: float, seconds: float):
    """(control time of the push, velocity) or None; RunError for a push that cannot be."""
    if not math.isfinite(push_velocity):
        raise RunError(f"push_velocity must be a number of m/s, got {push_velocity!r}")
    if push_at is None:
        if push_velocity:
            raise RunError("a push_velocity needs push_at, the time of the push (s)")
        return None
    if not (math.isfinite(push_at) and 0 <= push_at < seconds):
        raise RunError(f"push_at must be a time in [0, {seconds:g}) s (the run), got {push_at!r}")
    return push_at, push_velocity


def _walk(ctl: GaitController, kin: Walker, n: int, stop_on_fall: bool, on_step,
          push=None) -> None:  # fmt: skip
    """Step the controller ``n`` times, or until one second after a fall, or at once when
    the physics goes non-finite; ``push``: (time, velocity) of a sideways push, given
    before the first control step that starts at or after that time."""
    fell_at = None
    height = scalar_height(kin.terrain)
    for k in range(n):
        if push is not None and k * ctl.dt >= push[0] - 1e-9:
            ctl.push(push[1])
            push = None
        ctl.step()
        if on_step is not None:
            on_step(ctl)
        if not all(map(math.isfinite, ctl.sensed.position)):
            break  # the physics blew up: nothing after this is worth simulating
        if stop_on_fall:
            if fell_at is None and _fallen(ctl, kin, height):
                fell_at = k
            if fell_at is not None and (k - fell_at) * ctl.dt >= 1.0:
                break


def _summary(ctl: GaitController, kin: Walker, rec: dict) -> dict:
    """The run's metrics (``summarize``) with the figures only the run knows."""
    geo, robot = kin.geometry, ctl.robot
    summary = summarize(
        rec,
        mass=robot.mass,
        standing_height=geo.standing_height,
        commanded_speed=kin.nominal_speed,
        dt=ctl.dt,
        cycle=kin.cycle / kin.nominal_speed / ctl.dt,  # control steps per gait cycle
        foot_radius=geo.foot_radius,
        soles=kin.soles,
        sole_ground=None if kin.soles is None else (lambda xy: kin.sole_ground(xy)[1]),
    )
    t_end = float(rec["t"][-1])
    progress = summary["distance_m"]
    summary.update(
        simulated_s=t_end,
        mass_kg=robot.mass,
        leg_scuff_share=float(np.mean(rec["leg_contact"])),
        # what the thighs and shins carried: the verdict's ``kneeling``
        leg_load_per_weight=float(np.mean(rec["leg_force"])) / (robot.mass * GRAVITY),
        gait_distance_m=float(rec["s"][-1]),
        # the second seed's speed mismatch: gait distance per metre of measured progress
        gait_per_progress=float(rec["s"][-1] / progress) if progress > 0.01 else None,
    )
    if ctl.assist is not None:
        summary["assist_work_j"] = ctl.assist_work
        summary["assist_mean_force_n"] = ctl.assist_force_impulse / t_end
        summary["assist_mean_force_per_weight"] = summary["assist_mean_force_n"] / (
            robot.mass * GRAVITY
        )
        # what it held up on balance (its pushes down netted out): the vertical force's
        # signed mean over the weight
        summary["assist_net_lift_per_weight"] = ctl.assist_lift_impulse / t_end / (
            robot.mass * GRAVITY
        )
        summary["assist_mean_torque_nm"] = ctl.assist_torque_impulse / t_end
    duty, want = summary["duty_by_leg"], kin.gait.duty
    summary["duty_error_max"] = max(abs(d - want) for d in duty)
    summary["duty_error_mean"] = abs(sum(duty) / len(duty) - want)
    summary.update(_upper_figures(ctl, kin, rec, summary))
    has = kin.upper is not None
    summary.update(arms=kin.arms if has else None, twist=kin.twist if has else None,
                   gaze=kin.gaze if has else None, lean=kin.lean)  # fmt: skip
    return summary


def _upper_figures(ctl: GaitController, kin: Walker, rec: dict, summary: dict) -> dict:
    """``upper_metrics``' figures (yaw balance, twist, head) up to a fall."""
    t = rec["t"]
    end = len(t)
    if summary["fell"]:
        end = max(1, int(np.searchsorted(t - t[0], summary["time_to_fall_s"])))
    return upper_body_figures(
        rec, mass=ctl.robot.mass, cycle_steps=kin.cycle / kin.nominal_speed / ctl.dt,
        end=end, kinematic=ctl.config.body == "kinematic",
    )  # fmt: skip


def _fallen(ctl: GaitController, walker: Walker, ground=None) -> bool:
    s = ctl.sensed
    ground = ground or scalar_height(walker.terrain)
    height = s.position[2] - ground(s.position[0], s.position[1])
    return bool(fall_reason(s, height, walker.geometry.standing_height))
