"""A Scenario: everything one physics run needs besides the controller's internals.

The walker (its catalog entry), the ground (a TerrainSpec), the path (a turn radius or a
yaw rate), the body mode (``auto`` resolved), the speed scale, the friction, the swing
profile, the upper body's modes (arms, waist twist, gaze) and the slope lean, the length,
the episode seed and the engine's rates. It is built in one place
from each way of asking for a run:

- ``Scenario.from_cli(args, entry)``: ``gaitsim walk``'s flags;
- ``Scenario.from_sweep_cell(sweep, cell)``: one cell of a sweep (its own catalog entry);
- ``Scenario.from_env_kwargs(walker, params, ...)``: one episode of the Gymnasium env;
- ``Scenario.make(walker, slope_deg=..., roughness=..., turn_radius=..., ...)``: keywords
  (the report's and the experiments' conditions).

``scenario.simulate(**extra)`` runs it (``gaitsim.sim.run.simulate``; ``extra`` adds what
is no part of a scenario: ``gui``, ``on_step``). Equal scenarios run the same numbers.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Any

from .catalog import Entry, GaitsimError
from .gait import SWING_PROFILES
from .terrain import Flat, Rough, Slope
from .upper import ARM_MODES, GAZE_MODES

TERRAIN_KINDS = ("flat", "slope", "rough")
BODY_CHOICES = ("auto", "free", "assist", "kinematic")
DEFAULT_SLOPE_DEG = 10.0  # --terrain slope without --slope-deg
DEFAULT_ROUGHNESS_M = 0.02  # --terrain rough without --roughness
ROUGH_FLAT_RADIUS = 0.3  # m of level ground around the start of rough ground
DEFAULT_SIM_HZ = 240.0  # physics rate; the control rate must divide it
# the upper body's modes and the slope lean (gaitsim.upper, gaitsim.walker) and the words a
# sweep or a flag may give for the two switches
TWIST_WORDS = {"on": True, "off": False}
LEAN_WORDS = {"off": False, "upright": True}
UPPER_DEFAULTS = {"arms": "swing", "twist": True, "gaze": "stabilised", "lean": False}


class ScenarioError(GaitsimError, ValueError):
    """Settings that make no run (a flag for another terrain, a slope past 80 degrees...);
    the message names the setting and the fix."""


def check_upper_modes(arms: str, twist: bool, gaze: str, lean: bool) -> None:
    """The upper body's modes and the lean, or a ScenarioError naming the setting and its
    choices (a walker without the part ignores its mode, but a bad value is still an error)."""
    if arms not in ARM_MODES:
        raise ScenarioError(f"arms must be one of {', '.join(ARM_MODES)}, got {arms!r}")
    if gaze not in GAZE_MODES:
        raise ScenarioError(f"gaze must be one of {', '.join(GAZE_MODES)}, got {gaze!r}")
    if not isinstance(twist, bool):
        raise ScenarioError(f"twist must be True or False, got {twist!r}")
    if not isinstance(lean, bool):
        raise ScenarioError(f"lean must be True (the upright lean) or False, got {lean!r}")


def switch(name: str, value) -> bool:
    """``twist`` or ``lean`` as a bool: true/false, or its words (twist: on/off; lean:
    upright/off); anything else is a ScenarioError naming the setting and the choices."""
    words = TWIST_WORDS if name == "twist" else LEAN_WORDS
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value in words:
        return words[value]
    choices = ", ".join([*words, "true", "false"])
    raise ScenarioError(f"{name} must be one of {choices}, got {value!r}")


def upper_walker_options(arms: str, twist: bool, gaze: str, lean: bool) -> dict:
    """The Walker keywords of the modes that differ from the defaults (``lean`` True is the
    Walker's ``lean="upright"``): a run with the default modes passes none of them."""
    out = {}
    if arms != UPPER_DEFAULTS["arms"]:
        out["arms"] = arms
    if not twist:
        out["twist"] = False
    if gaze != UPPER_DEFAULTS["gaze"]:
        out["gaze"] = gaze
    if lean:
        out["lean"] = "upright"
    return out


def split_upper_options(options: dict) -> tuple[dict, dict]:
    """Walker keywords split into (the other keywords, Scenario fields): arms, twist and
    gaze always move to the fields, ``lean`` only when it is the upright lean (the
    Scenario's ``lean=True``). Every other lean stays a Walker keyword, so it means what
    it means to ``simulate()``: off (False) tilts any body with the ground, a biped's too,
    and None is the walker's default (``walker.default_lean``). Values are checked by the
    Scenario."""
    rest, fields = dict(options), {}
    for key in ("arms", "twist", "gaze"):
        if key in rest:
            value = rest.pop(key)
            fields[key] = switch(key, value) if key == "twist" else value
    if rest.get("lean") == "upright":
        fields["lean"] = bool(rest.pop("lean"))
    return rest, fields


@dataclass(frozen=True)
class TerrainSpec:
    """The ground as parameters: ``kind`` flat, slope (``slope_deg`` rising toward
    ``uphill_heading_deg`` from +x) or rough (``roughness``: the peak bump height in m;
    ``wavelength``, ``seed``, the grid's ``size`` and ``cell`` in m, and level ground
    within ``flat_radius`` of ``flat_centre``, default the grid's centre). ``build()`` makes
    the terrain object; the fields of other kinds keep their defaults, so equal grounds
    compare equal."""

    kind: str = "flat"
    slope_deg: float = 0.0
    uphill_heading_deg: float = 0.0
    roughness: float = 0.0
    wavelength: float = 0.5
    seed: int = 0
    size: float = 16.0
    cell: float = 0.02
    flat_radius: float = ROUGH_FLAT_RADIUS
    flat_centre: tuple[float, float] | None = None

    def __post_init__(self):
        if self.kind not in TERRAIN_KINDS:
            raise ScenarioError(
                f"terrain kind must be one of {', '.join(TERRAIN_KINDS)}, got {self.kind!r}"
            )

    @classmethod
    def slope(cls, slope_deg: float, uphill_heading_deg: float = 0.0) -> TerrainSpec:
        """A slope of ``slope_deg`` rising toward ``uphill_heading_deg`` (deg from +x)."""
        return cls(
            "slope", slope_deg=float(slope_deg), uphill_heading_deg=float(uphill_heading_deg)
        )

    @classmethod
    def rough(cls, roughness: float, **kw) -> TerrainSpec:
        """Rough ground of peak height ``roughness`` (m); ``kw``: the other rough fields."""
        return cls("rough", roughness=float(roughness), **kw)

    @classmethod
    def from_cli(cls, args) -> TerrainSpec:
        """The ground of ``gaitsim walk``'s flags (--terrain and its own flags), checked:
        a terrain's flag given for another terrain is an error, not ignored."""
        only = {
            "--slope-deg": (args.slope_deg, "slope"),
            "--uphill-heading-deg": (args.uphill_heading_deg, "slope"),
            "--roughness": (args.roughness, "rough"),
            "--roughness-wavelength": (args.roughness_wavelength, "rough"),
            "--seed": (args.seed, "rough"),
        }
        for flag, (value, terrain) in only.items():
            if value is not None and args.terrain != terrain:
                raise ScenarioError(
                    f"{flag} applies only to --terrain {terrain}, not --terrain {args.terrain}; "
                    f"add --terrain {terrain} or drop {flag}"
                )
        if args.terrain == "slope":
            return cls._cli_slope(args)
        if args.terrain == "rough":
            return cls._cli_rough(args)
        return cls()

    @classmethod
    def _cli_slope(cls, args) -> TerrainSpec:
        deg = DEFAULT_SLOPE_DEG if args.slope_deg is None else args.slope_deg
        heading = 0.0 if args.uphill_heading_deg is None else args.uphill_heading_deg
        _finite(heading, "--uphill-heading-deg")
        if not (math.isfinite(deg) and abs(deg) < 80):
            raise ScenarioError(f"--slope-deg must be between -80 and 80 degrees, got {deg!r}")
        return cls.slope(deg, heading)

    @classmethod
    def _cli_rough(cls, args) -> TerrainSpec:
        m = DEFAULT_ROUGHNESS_M if args.roughness is None else args.roughness
        if not (math.isfinite(m) and m > 0):
            raise ScenarioError(
                f"--roughness must be > 0 metres (the peak bump height, e.g. 0.02), got {m!r}; "
                "for level ground use --terrain flat"
            )
        kw: dict[str, Any] = {"seed": 0 if args.seed is None else args.seed}
        if args.roughness_wavelength is not None:
            w = _finite(args.roughness_wavelength, "--roughness-wavelength", positive=True)
            if w <= 0.04:
                raise ScenarioError(
                    f"--roughness-wavelength must exceed 0.04 m (two heightfield cells), got {w!r}"
                )
            kw["wavelength"] = w
        return cls.rough(m, **kw)

    def build(self) -> Flat | Slope | Rough:
        """The terrain object (rough ground not yet laid over a path: ``simulate`` does)."""
        if self.kind == "slope":
            return Slope.from_degrees(self.slope_deg, self.uphill_heading_deg)
        if self.kind == "rough":
            return Rough(
                self.roughness,
                wavelength=self.wavelength,
                seed=self.seed,
                size=self.size,
                cell=self.cell,
                flat_radius=self.flat_radius,
                flat_centre=self.flat_centre,
            )
        return Flat()


def _finite(value: float, flag: str, *, positive: bool = False) -> float:
    if not math.isfinite(value) or (positive and value <= 0):
        need = "a number > 0" if positive else "a finite number"
        raise ScenarioError(f"{flag} must be {need}, got {value!r}")
    return value


# ControlConfig fields a Scenario's ``control`` may not set: the scenario's own fields
# set them (or, for the assist's gains, a nested dataclass no flag or TOML value builds)
CONTROL_OWN = {
    "body": "set the scenario's body (--body, [base] body) instead",
    "distance_source": "set the scenario's distance_source (--distance-source) instead",
    "control_hz": "set the scenario's control_hz (--control-hz) instead",
    "assist": "the assist's gains are a nested AssistGains, set from Python only",
}


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """"; did you mean 'x'?" naming the choice nearest ``word``, or "" if none is near."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def check_control(control: dict, where: str = "control") -> None:
    """A scenario's ``control``: further ``gaitsim.sim.controller.ControlConfig`` fields
    by name (``roll_follow_planted``, ``slow_walk``, ``kp`` ...). An unknown name, one of
    CONTROL_OWN, or a value the config refuses is a ScenarioError naming the field (and
    ``where`` it was given)."""
    if not isinstance(control, dict):
        raise ScenarioError(f"{where} is a table of ControlConfig fields, got {control!r}")
    from .sim.controller import ControlConfig  # (imports the engine: only when asked)

    names = sorted(f.name for f in fields(ControlConfig) if f.name not in CONTROL_OWN)
    for key in control:
        if key in CONTROL_OWN:
            raise ScenarioError(f"{where} {key!r}: {CONTROL_OWN[key]}")
        if key not in names:
            raise ScenarioError(
                f"{where} {key!r} is not a ControlConfig field{did_you_mean(str(key), names)} "
                f"(fields: {', '.join(names)})"
            )
    try:
        ControlConfig(**control)
    except (TypeError, ValueError) as exc:
        raise ScenarioError(f"{where}: {exc}") from None


def resolve_body(entry: Entry, body: str, engine: str = "pybullet") -> str:
    """``body`` with ``auto`` resolved for ``entry`` on ``engine``
    (``gaitsim.sim.run.default_body``)."""
    if body not in BODY_CHOICES:
        raise ScenarioError(f"body must be one of {', '.join(BODY_CHOICES)}, got {body!r}")
    if body != "auto":
        return body
    from .sim.run import default_body

    return default_body(entry, engine)


DEFAULT_PUSH_AT_S = 5.0  # a push sweep pushes at this time unless its [base] says push_at


@dataclass(frozen=True)
class Scenario:
    """One run: the walker, its ground and path, how its body and gait are driven, how
    long, the episode seed, the physics engine ("pybullet" or "mujoco") and its rates, and
    an optional sideways push (``push_at`` s, ``push_velocity`` m/s, positive to the left).

    ``turn_radius`` (signed m; 0 turns in place) or ``yaw_rate`` (rad/s) sets the path
    (neither: straight). ``body`` is free, assist or kinematic (``auto`` is resolved by the
    constructors). ``seed`` draws the episode's start point in the gait cycle and its
    friction spread (None: start at 0 with ``friction``). The upper body (walkers with a
    catalog ``upper_body``; a walker without the part ignores its mode): ``arms`` swing
    (against the legs), held or anti (with the legs), ``twist`` (the hips and shoulders
    twist against each other), ``gaze`` stabilised (the head cancels the body's bob and
    looks along the path ahead) or fixed; ``lean``: on a slope the body leans from upright
    as the second seed's does, with its faster step downhill (the Walker's ``lean=
    "upright"``; off: the walker's default attitude, level for a biped, tilted with the
    ground for others). ``walker_options``: further Walker keywords (the swing profile is
    ``swing``, the modes above are their fields: giving them here is an error).
    ``control``: further controller settings, ``ControlConfig`` fields by name (e.g.
    ``{"roll_follow_planted": True}``; ``check_control``)."""

    entry: Entry
    terrain: TerrainSpec = TerrainSpec()
    turn_radius: float | None = None
    yaw_rate: float | None = None
    body: str = "free"
    distance_source: str = "command"
    speed_scale: float = 1.0
    friction: float = 1.0
    swing: str = "sine"
    arms: str = "swing"
    twist: bool = True
    gaze: str = "stabilised"
    lean: bool = False
    seconds: float = 20.0
    seed: int | None = None
    control_hz: float | None = None  # None: the body's own (sim.run.run_rates: Body.rates
    # on the run's servo clock)
    sim_hz: float | None = None  # None: the body's own (likewise)
    solver_iterations: int = 50
    engine: str = "pybullet"
    push_at: float | None = None
    push_velocity: float = 0.0
    stop_on_fall: bool = True
    walker_options: dict = field(default_factory=dict)
    control: dict = field(default_factory=dict)  # further ControlConfig fields by name
    # (``check_control``; --control FIELD=VALUE, a sweep's [base.control])

    def __post_init__(self):
        if self.body not in BODY_CHOICES[1:]:
            raise ScenarioError(
                f"body must be one of {', '.join(BODY_CHOICES[1:])} (auto resolved), "
                f"got {self.body!r}"
            )
        if self.swing not in SWING_PROFILES:
            raise ScenarioError(
                f"swing must be one of {', '.join(SWING_PROFILES)}, got {self.swing!r}"
            )
        check_upper_modes(self.arms, self.twist, self.gaze, self.lean)
        if self.control:
            check_control(self.control)
        given = [k for k in ("arms", "twist", "gaze") if k in self.walker_options]
        if self.lean and "lean" in self.walker_options:
            given.append("lean")
        if given:
            raise ScenarioError(
                f"walker_options {', '.join(given)}: set the Scenario's field(s) of that "
                "name instead (gaitsim.scenario.split_upper_options splits them out)"
            )

    # ------------------------------------------------------------------ constructors
    @classmethod
    def make(
        cls,
        walker,
        *,
        slope_deg: float | None = None,
        roughness: float | None = None,
        rough_seed: int = 0,
        body: str = "auto",
        **settings,
    ) -> Scenario:
        """A scenario from keywords: ``walker`` a built-in name or an Entry; ``slope_deg``
        a slope (uphill along +x), ``roughness`` > 0 rough ground (of ``rough_seed``; 0 is
        flat), neither flat; ``body`` may be ``auto``; ``settings``: the other fields."""
        from .walker import resolve_entry

        entry = resolve_entry(walker)
        if slope_deg is not None and roughness is not None:
            raise ScenarioError("slope_deg and roughness belong to different terrains; give one")
        terrain = TerrainSpec()
        if slope_deg is not None:
            terrain = TerrainSpec.slope(slope_deg)
        elif roughness is not None and roughness > 0:
            terrain = TerrainSpec.rough(roughness, seed=rough_seed)
        engine = settings.get("engine", "pybullet")
        return cls(entry, terrain, body=resolve_body(entry, body, engine), **settings)

    @classmethod
    def from_cli(cls, args, entry: Entry) -> Scenario:
        """``gaitsim walk``'s flags (checked by the CLI first) for ``entry``."""
        yaw = None if args.yaw_rate_deg is None else math.radians(args.yaw_rate_deg)
        return cls(
            entry,
            TerrainSpec.from_cli(args),
            turn_radius=args.turn_radius,
            yaw_rate=yaw,
            body=resolve_body(entry, args.body, getattr(args, "engine", "pybullet")),
            distance_source=args.distance_source,
            speed_scale=args.speed_scale,
            friction=args.friction,
            swing=args.swing,
            arms=getattr(args, "arms", "swing"),
            twist=switch("twist", getattr(args, "twist", "on")),
            gaze=getattr(args, "gaze", "stabilised"),
            lean=bool(getattr(args, "lean", False)),
            control=dict(getattr(args, "control", None) or {}),
            seconds=args.seconds,
            seed=args.episode_seed,
            control_hz=args.control_hz,
            engine=getattr(args, "engine", "pybullet"),
            push_at=getattr(args, "push_at", None),
            push_velocity=getattr(args, "push_velocity", None) or 0.0,
        )

    @classmethod
    def from_sweep_cell(cls, sweep, cell) -> Scenario:
        """One cell of ``sweep`` (a gaitsim.sweep.Sweep): the walker's entry the sweep
        carries (never a built-in looked up by name), its [base] settings, the swept value,
        and the cell's seed as the episode seed (and as rough ground's seed)."""
        entry = sweep.entry(cell.walker)
        kw = base_settings(sweep.base)
        kw.update(seconds=float(sweep.seconds), seed=cell.seed)
        p, v = sweep.parameter, cell.value
        if p == "speed_scale":
            kw["speed_scale"] = float(v)
        elif p == "slope_deg":
            kw["slope_deg"] = float(v)
        elif p == "turn":
            kw["turn_radius"] = None if v == "straight" else 0.0 if v == "in_place" else float(v)
        elif p == "roughness":
            kw.update(roughness=float(v), rough_seed=cell.seed)
        elif p == "friction":
            kw["friction"] = float(v)
        elif p == "push_velocity":
            kw["push_velocity"] = float(v)
            kw.setdefault("push_at", DEFAULT_PUSH_AT_S)
        elif p in ("arms", "gaze"):
            kw[p] = v
        elif p in ("twist", "lean"):
            kw[p] = switch(p, v)
        return cls.make(entry, **kw)

    @classmethod
    def from_env_kwargs(
        cls,
        walker,
        params: dict,
        *,
        terrain: str = "flat",
        roughness_wavelength: float = 0.5,
        terrain_seed: int = 0,
        terrain_cell: float = 0.04,
        seconds: float,
        **settings,
    ) -> Scenario:
        """One episode of the Gymnasium env: its keywords with the episode's drawn
        ``params`` (speed_scale, turn or yaw_rate_deg, slope_deg, uphill_heading_deg,
        roughness, friction) in place of their ranges. The env's rough ground is a 1 m
        grid of ``terrain_cell`` cells flattened around the start, which the arena lays
        over every path the task can command. ``settings``: body, distance_source,
        control_hz, sim_hz, solver_iterations, engine, push_at, push_velocity, swing,
        arms, twist, gaze, lean, walker_options. A path the env was given
        as an object (a Schedule) is the task's: it is not part of the scenario."""
        from .walker import resolve_entry

        ground = TerrainSpec()
        if terrain == "slope":
            ground = TerrainSpec.slope(params["slope_deg"], params["uphill_heading_deg"])
        elif terrain == "rough":
            ground = TerrainSpec.rough(
                params["roughness"],
                wavelength=roughness_wavelength,
                seed=terrain_seed,
                size=1.0,
                cell=terrain_cell,
                flat_centre=(0.0, 0.0),
            )
        yaw = params.get("yaw_rate_deg")
        return cls(
            resolve_entry(walker),
            ground,
            turn_radius=params.get("turn"),
            yaw_rate=None if yaw is None else math.radians(yaw),
            speed_scale=params.get("speed_scale", 1.0),
            friction=params["friction"],
            seconds=seconds,
            **settings,
        )

    # ------------------------------------------------------------------ running it
    def simulate_kwargs(self) -> dict:
        """The keyword arguments of ``gaitsim.sim.run.simulate`` (after the walker)."""
        from .sim.controller import ControlConfig

        config = ControlConfig(
            body=self.body, distance_source=self.distance_source, control_hz=self.control_hz,
            **self.control,
        )
        return {
            "terrain": self.terrain.build(),
            "speed_scale": self.speed_scale,
            "turn_radius": self.turn_radius,
            "yaw_rate": self.yaw_rate,
            "seconds": self.seconds,
            "config": config,
            "sim_hz": self.sim_hz,
            "friction": self.friction,
            "solver_iterations": self.solver_iterations,
            "stop_on_fall": self.stop_on_fall,
            "walker_options": {
                **self.walker_options,
                "swing": self.swing,
                **upper_walker_options(self.arms, self.twist, self.gaze, self.lean),
            },
            "seed": self.seed,
            "engine": self.engine,
            "push_at": self.push_at,
            "push_velocity": self.push_velocity,
        }

    def simulate(self, **extra):
        """Run the scenario: ``gaitsim.sim.run.simulate``'s RunResult. ``extra``: further
        simulate() keywords that are no part of a scenario (``gui``, ``on_step``)."""
        from .sim import run

        return run.simulate(self.entry, **self.simulate_kwargs(), **extra)


# [base] keys of a sweep and the Scenario fields they set (the rest keep their names)
_BASE_FIELDS = {
    "speed_scale": float,
    "turn_radius": float,
    "yaw_rate": float,
    "friction": float,
    "sim_hz": float,
    "solver_iterations": int,
    "engine": str,
    "push_at": float,
    "stop_on_fall": bool,
    "body": str,
    "distance_source": str,
    "arms": str,
    "gaze": str,
    "twist": lambda v: switch("twist", v),
    "lean": lambda v: switch("lean", v),
    "control": dict,  # a [base.control] table (``check_control``)
}


def base_settings(base: dict) -> dict:
    """A sweep's [base] table as ``Scenario.make`` keywords; a key no Scenario field holds
    is a ScenarioError (not silently dropped). The upper body's modes and the lean may be
    [base] keys or walker_options keys; a [base] key wins (as swing always did)."""
    base = dict(base)
    options, modes = split_upper_options(base.pop("walker_options", {}))
    swing = base.pop("swing", None)
    # a [base] swing wins over a walker_options swing, as it always did
    options_swing = options.pop("swing", None)
    kw: dict[str, Any] = {"swing": swing or options_swing or "sine", **modes}
    if options:
        kw["walker_options"] = options
    for key, value in base.items():
        if key not in _BASE_FIELDS:
            raise ScenarioError(f"[base] {key!r} is not a setting a scenario holds")
        kw[key] = _BASE_FIELDS[key](value)
    return kw
