"""Sweeps: walkers x one swept parameter x seeds, each cell one physics episode.

A sweep is data: a TOML file (the built-in ones live in ``gaitsim/data/sweeps``)::

    name = "speed"
    description = "speed scale from 0.5 to 2.0"
    parameter = "speed_scale"          # see PARAMETERS
    values = [0.5, 0.75, 1.0, 1.5, 2.0]
    walkers = "all"                    # or a list of names
    seeds = 3
    seconds = 10.0
    [base]                             # fixed simulate() settings (optional)
    body = "auto"                      # sim.run.default_body: free, or the assist
    swing = "sine"                     # or "clearance" (the swing arc)
    arms = "swing"                     # or "held", "anti" (walkers with arms)
    twist = "on"                       # or "off" (or true / false; walkers with a torso)
    gaze = "stabilised"                # or "fixed" (walkers with a head)
    lean = "off"                       # or "upright" (or false / true): the slope lean

The upper body's modes and the lean can be swept too (``parameter = "arms"``, values
``["swing", "held", "anti"]``...); a walker without the part runs its cells unchanged.

Running one writes ``cells/<cell>.json`` atomically as each cell finishes, so a rerun
skips finished cells and a worker that dies loses only the cell it was running (which is
retried); ``results.csv`` holds one row per episode. Backends: a local process pool, or
Ray (``pip install "gaitsim[ray]"``).

A definition is checked against a schema before any worker starts (unknown keys, ``[base]``
keys that ``simulate()`` does not take, empty or repeated values). The walkers' catalog
entries travel with the sweep to every worker (a custom ``--catalog`` is what runs), and the
output folder's ``sweep.json`` records the definition's and the catalog's hashes, so a
resume with a different definition or catalog is refused instead of mixing results.

A cell runs ``Scenario.from_sweep_cell(sweep, cell)``: the scenario that
``gaitsim walk NAME --catalog FILE --episode-seed SEED`` (with the swept setting's flag)
runs too, so a row can be reproduced from the command line.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import re
import signal
import sys
import threading
import time
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .catalog import (
    Catalog,
    CatalogError,
    Entry,
    GaitsimError,
    WriteError,
    atomic_write_text,
    check_name,
    dumps_catalog,
    load_catalog,
    loads_catalog,
    read_regular_file,
    write_error,
)
from .scenario import LEAN_WORDS, TWIST_WORDS, did_you_mean
from .upper import ARM_MODES, GAZE_MODES

PARAMETERS = {
    "speed_scale": "stride scale (x clip speed)",
    "slope_deg": "slope angle in degrees (uphill along the path; negative is downhill)",
    "turn": "'straight', 'in_place', or a turn radius in metres",
    "roughness": "peak height of rough ground in metres (0 is flat)",
    "friction": "foot-ground friction coefficient",
    "push_velocity": "sideways push in m/s (positive to the walker's left) at [base] push_at "
    "(default 5 s)",
    "arms": "the arms' mode: 'swing', 'held' or 'anti' (walkers with arms)",
    "twist": "the waist twist: 'on' or 'off' (true / false; walkers with a torso)",
    "gaze": "the head's mode: 'stabilised' or 'fixed' (walkers with a head)",
    "lean": "the slope lean: 'off' or 'upright' (false / true)",
}
# the choices of each mode (sweep values and [base] keys); twist and lean also take
# true / false, and a swept one is written with its word (on / off, upright / off)
MODE_CHOICES = {
    "arms": ARM_MODES,
    "twist": tuple(TWIST_WORDS),
    "gaze": GAZE_MODES,
    "lean": tuple(LEAN_WORDS),
}
METRICS = (
    "distance_m",
    "commanded_speed_m_s",
    "speed_ratio",
    "slip_mm_per_stance",
    "slip_mm_per_m",
    "max_shortfall_m",
    "min_support_margin_m",
    "fell",
    "time_to_fall_s",
    "cost_of_transport",
    "contact_timing_error",
    "touchdowns_per_stance",
    "duty_error_max",
    "swing_scuff_share",
    "leg_load_per_weight",
    "heading_error_deg",
    # yaw balance and the upper body (gaitsim.sim.upper_metrics; empty: the walker lacks
    # the part, or the path does not turn for gaze_lead_s)
    "yaw_moment_rms_nm",
    "yaw_moment_com_rms_nm",
    "hip_twist_deg",
    "shoulder_twist_deg",
    "shoulder_hip_ratio",
    "head_bob_mm",
    "head_pitch_deg_rms",
    "base_bob_mm",
    "gaze_lead_s",
    # the soles (gaitsim.sim.metrics.sole_figures; empty: sphere feet)
    "sole_pitch_deg_at_touchdown",
    "sole_pitch_deg_at_liftoff",
    "cop_margin_mm_min",
    "verdict",
)
MAX_ATTEMPTS = 3
MAX_SEEDS = 1000  # seeds per cell
MAX_SECONDS = 3600.0  # simulated seconds per episode
MANIFEST = "sweep.json"  # in the output folder: the definition's and catalog's hashes
WATCHDOG_SECONDS = 1.0  # how often an orphaned local worker checks for its parent

# the top-level keys of a definition and what each holds
DEFINITION_KEYS = {
    "name": "the sweep's name (plots and rows carry it)",
    "description": "one line for the report",
    "parameter": "the swept parameter",
    "values": "the swept values",
    "walkers": '"all" or a list of walker names',
    "seeds": "episodes per walker and value",
    "seconds": "simulated seconds per episode",
    "base": "a table of fixed simulate() settings",
}
# [base] keys that set the controller rather than a simulate() argument, and their choices
CONFIG_KEYS = {
    "body": ("auto", "free", "assist", "kinematic"),
    "distance_source": ("command", "odometry"),
    "swing": ("sine", "clearance"),
    **MODE_CHOICES,
}
# simulate() arguments a [base] table may not set, and why
RESERVED_BASE_KEYS = {
    "walker": "the walkers come from 'walkers'",
    "seconds": "set 'seconds' at the top level",
    "seed": "each cell's seed comes from 'seeds'",
    "config": "set body and distance_source in [base], other controller settings in a "
    "[base.control] table",
    "on_step": "a callback cannot be written in TOML",
    "gui": "sweep workers have no display",
    "terrain": "the terrain comes from the swept parameter (slope_deg or roughness)",
}
# the simulate() arguments each swept parameter sets (so [base] may not set them too)
PARAMETER_SETS = {
    "speed_scale": ("speed_scale",),
    "slope_deg": ("terrain",),
    "turn": ("turn_radius", "yaw_rate"),
    "roughness": ("terrain",),
    "friction": ("friction",),
    "push_velocity": ("push_velocity",),
    **{mode: (mode,) for mode in MODE_CHOICES},  # a mode sets its own Walker keyword
}


class SweepError(GaitsimError, ValueError):
    """A sweep definition, output folder or cell file is unusable; the message names the
    field or path and the fix."""


@dataclass(frozen=True)
class Sweep:
    """A parsed definition. ``catalog_json`` holds the catalog entries of its walkers (as
    gaitsim saves them) and ``catalog_sha256`` their hash: workers run these entries, never
    a catalog they load themselves. Empty means the built-in catalog."""

    name: str
    parameter: str
    values: tuple
    walkers: tuple[str, ...]
    seeds: int = 3
    seconds: float = 10.0
    description: str = ""
    base: dict = field(default_factory=dict, hash=False, compare=False)
    catalog_json: str = field(default="", repr=False, compare=False)
    catalog_sha256: str = field(default="", compare=False)

    def definition_sha256(self) -> str:
        """Hash of what decides a cell's result (not the description or seed count: more
        seeds only add cells)."""
        data = {
            "name": self.name,
            "parameter": self.parameter,
            "values": list(self.values),
            "walkers": list(self.walkers),
            "seconds": self.seconds,
            "base": self.base,
        }
        text = json.dumps(data, sort_keys=True, default=repr)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def entry(self, walker: str) -> Entry:
        """The catalog entry the sweep runs for ``walker`` (the one it carries, never a
        built-in looked up by name; see :func:`sweep_catalog`)."""
        return sweep_catalog(self)[walker]


@dataclass(frozen=True)
class Cell:
    walker: str
    value: Any
    seed: int

    def key(self, sweep: Sweep) -> str:
        v = re.sub(r"[^A-Za-z0-9_.+-]", "_", str(self.value))
        return f"{self.walker}__{sweep.parameter}={v}__seed{self.seed}"


def builtin_sweeps() -> dict[str, Path]:
    folder = resources.files("gaitsim").joinpath("data/sweeps")
    return {Path(f.name).stem: Path(str(f)) for f in folder.iterdir() if f.name.endswith(".toml")}


def load_sweep(spec: str | os.PathLike, *, catalog=None) -> Sweep:
    """A sweep from a TOML file, or the name of a built-in one (speed, slope, turn, rough, push).

    ``catalog`` (a Catalog) supplies the walkers; the built-in catalog when None."""
    path = Path(spec)
    if not path.exists():
        known = builtin_sweeps()
        if str(spec) in known:
            path = known[str(spec)]
        else:
            raise SweepError(
                f"{spec}: no such file and no built-in sweep of that name; "
                f"built-in: {', '.join(sorted(known))}"
            )
    try:
        data = tomllib.loads(read_regular_file(path, "sweep TOML file").decode("utf-8"))
    except CatalogError as exc:  # not a regular file, too large, unreadable
        raise SweepError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise SweepError(f"{path}: cannot read it ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(f"{path}: invalid TOML: {exc}") from None
    return parse_sweep(data, label=str(path), catalog=catalog)


def _same_value(v) -> tuple:
    """Values that run the same cells compare equal (1 and 1.0; not 1 and '1')."""
    return ("str", v) if isinstance(v, str) else ("num", float(v))


def _choice(key: str, v, choices) -> bool:
    """Whether ``v`` is one of ``choices`` (type and all: 1 is not true), or for twist and
    lean a bool."""
    if key in ("twist", "lean") and isinstance(v, bool):
        return True
    return isinstance(v, str) and v in choices


def _mode_word(key: str, v):
    """A twist or lean value as its word (true: on / upright); others as given."""
    if key in ("twist", "lean") and isinstance(v, bool):
        words = TWIST_WORDS if key == "twist" else LEAN_WORDS
        return next(w for w, b in words.items() if b is v)
    return v


def _check_base(base: dict, parameter: str, label: str) -> None:
    """[base] keys: controller keys, a [base.control] table of ControlConfig fields
    (``scenario.check_control``), or simulate() arguments (checked against its signature)."""
    if "control" in base:
        from .scenario import ScenarioError, check_control

        try:
            check_control(base["control"], where="[base.control]")
        except ScenarioError as exc:
            raise SweepError(f"{label}: {exc}") from None
    others = [k for k in base if k not in CONFIG_KEYS and k != "control"]
    for key, choices in CONFIG_KEYS.items():
        if key in base and not _choice(key, base[key], choices):
            also = " (or true / false)" if key in ("twist", "lean") else ""
            raise SweepError(
                f"{label}: [base] {key} must be one of {', '.join(map(repr, choices))}"
                f"{also}, got {base[key]!r}"
            )
        if key in base and key == parameter:
            raise SweepError(
                f"{label}: [base] {key} is set by the swept parameter {parameter!r}; drop it"
            )
    if not others:
        return
    import inspect

    from .sim.run import simulate  # imported only for a [base] that needs it

    params = set(inspect.signature(simulate).parameters)
    allowed = (params - set(RESERVED_BASE_KEYS)) | set(CONFIG_KEYS)
    for key in others:
        if key in RESERVED_BASE_KEYS:
            raise SweepError(f"{label}: [base] {key} cannot be set: {RESERVED_BASE_KEYS[key]}")
        if key not in params:
            raise SweepError(
                f"{label}: [base] {key!r} is not a simulate() setting"
                f"{did_you_mean(key, allowed)} (settings: {', '.join(sorted(allowed))})"
            )
        if key in PARAMETER_SETS[parameter]:
            raise SweepError(
                f"{label}: [base] {key} is set by the swept parameter {parameter!r}; drop it"
            )
        v = base[key]
        if key in ("speed_scale", "friction", "sim_hz") and not _positive_number(v):
            raise SweepError(f"{label}: [base] {key} must be a number > 0, got {v!r}")
        if key == "push_at" and not (_number(v) and 0 <= v):
            raise SweepError(f"{label}: [base] push_at must be a time >= 0 s, got {v!r}")
        if key in ("turn_radius", "yaw_rate") and not _number(v):
            raise SweepError(f"{label}: [base] {key} must be a number, got {v!r}")
        if key == "solver_iterations" and not (
            isinstance(v, int) and not isinstance(v, bool) and v >= 1
        ):
            raise SweepError(f"{label}: [base] solver_iterations must be a whole number >= 1")
        if key == "engine":
            _check_engine_value(v, label)
        if key == "stop_on_fall" and not isinstance(v, bool):
            raise SweepError(f"{label}: [base] stop_on_fall must be true or false, got {v!r}")
        if key == "walker_options":
            _check_walker_options(v, parameter, label, base.get("lean"))


WALKER_LEANS = ("off", "ground", "upright", "level")  # gaitsim.walker.lean_mode's words
# (or a bool)


def _check_walker_options(options, parameter: str, label: str, lean=None) -> None:
    """[base] walker_options: a table; the modes in it valid, none the swept one, and no
    lean there when [base] has the upright ``lean``."""
    if not isinstance(options, dict):
        raise SweepError(f"{label}: [base] walker_options must be a table, got {options!r}")
    for key in ("arms", "twist", "gaze"):
        if key not in options:
            continue
        if key == parameter:
            raise SweepError(
                f"{label}: [base] walker_options {key} is set by the swept parameter "
                f"{parameter!r}; drop it"
            )
        choices = MODE_CHOICES[key]
        if not _choice(key, options[key], choices):
            raise SweepError(
                f"{label}: [base] walker_options {key} must be one of "
                f"{', '.join(map(repr, choices))}, got {options[key]!r}"
            )
    if "lean" not in options:
        return
    if parameter == "lean":
        raise SweepError(
            f"{label}: [base] walker_options lean is set by the swept parameter 'lean'; drop it"
        )
    v = options["lean"]
    if not (isinstance(v, bool) or (isinstance(v, str) and v in WALKER_LEANS)):
        raise SweepError(
            f"{label}: [base] walker_options lean must be one of {', '.join(WALKER_LEANS)} "
            f"(or true / false), got {v!r}"
        )
    if lean in (True, "upright") and v != "upright":
        raise SweepError(
            f"{label}: [base] lean (upright) and walker_options lean ({v!r}) are two "
            "leans; give one"
        )


def _check_engine_value(v, label: str) -> None:
    from .sim.engine import EngineError, check_engine

    try:
        check_engine(v)
    except EngineError as exc:
        raise SweepError(f"{label}: [base] engine: {exc}") from None


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _positive_number(v) -> bool:
    return _number(v) and v > 0


def parse_sweep(data: dict, *, label: str = "sweep", catalog=None) -> Sweep:
    """Check a decoded definition against the schema and return a :class:`Sweep` carrying
    its walkers' catalog entries (from ``catalog``, default the built-in one)."""
    if not isinstance(data, dict):
        raise SweepError(f"{label}: must be a table of {', '.join(DEFINITION_KEYS)}")
    for key in data:
        if key not in DEFINITION_KEYS:
            raise SweepError(
                f"{label}: unknown key {key!r}{did_you_mean(str(key), DEFINITION_KEYS)} "
                f"(keys: {', '.join(DEFINITION_KEYS)})"
            )
    name = _need(data, "name", str, "a name string", label)
    try:  # the name becomes a folder (sweeps/<name>) and plot file names
        check_name(name, f"{label}: 'name'", "sweep name")
    except CatalogError as exc:
        raise SweepError(str(exc)) from None
    parameter = _need(data, "parameter", str, f"one of {', '.join(PARAMETERS)}", label)
    if parameter not in PARAMETERS:
        raise SweepError(
            f"{label}: parameter {parameter!r} is not sweepable; use one of {', '.join(PARAMETERS)}"
        )
    values = _parse_values(data, parameter, label)
    cat = catalog if catalog is not None else load_catalog()
    walkers = _parse_walkers(data, cat, label)
    seeds, seconds, description, base = _parse_settings(data, parameter, label)
    text = dumps_catalog(Catalog([cat[w] for w in walkers]))
    return Sweep(
        name,
        parameter,
        tuple(values),
        tuple(walkers),
        seeds,
        float(seconds),
        description,
        dict(base),
        catalog_json=text,
        catalog_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
    )


def _need(data: dict, key: str, kind, what: str, label: str):
    """A required key of the definition, of type ``kind`` (``what`` says what it holds)."""
    if key not in data:
        raise SweepError(f"{label}: '{key}' is missing; add {what}")
    if not isinstance(data[key], kind):
        raise SweepError(f"{label}: '{key}' must be {what}, got {data[key]!r}")
    return data[key]


def _parse_values(data: dict, parameter: str, label: str) -> list:
    """The swept values: a non-empty list, each valid for ``parameter`` and listed once."""
    values = _need(data, "values", list, "a non-empty list of values", label)
    if not values:
        raise SweepError(f"{label}: 'values' is empty; list at least one value")
    seen: dict[tuple, Any] = {}
    words = []  # a twist or lean value written as its word (true: on / upright)
    for given in values:
        v = _mode_word(parameter, given) if _check_value(parameter, given, label) else given
        words.append(v)
        if _same_value(v) in seen:
            raise SweepError(
                f"{label}: 'values' lists {given!r} twice (also as {seen[_same_value(v)]!r}); "
                "list each value once (use 'seeds' for repeats)"
            )
        seen[_same_value(v)] = given
    return words


def _parse_walkers(data: dict, cat: Catalog, label: str) -> list[str]:
    """The walker names: "all" (every walker of ``cat``) or a list of names in ``cat``,
    each listed once."""
    walkers = data.get("walkers", "all")
    if walkers == "all":
        walkers = list(cat)
    if not isinstance(walkers, list) or not all(isinstance(w, str) for w in walkers):
        raise SweepError(f"{label}: 'walkers' must be \"all\" or a list of names")
    if not walkers:
        raise SweepError(f"{label}: 'walkers' is empty; list at least one walker, or \"all\"")
    twice = sorted({w for w in walkers if walkers.count(w) > 1})
    if twice:
        raise SweepError(f"{label}: 'walkers' lists {', '.join(twice)} twice; list each once")
    unknown = [w for w in walkers if w not in cat]
    if unknown:
        raise SweepError(f"{label}: unknown walkers {unknown}; choose from {', '.join(cat)}")
    return walkers


def _parse_settings(data: dict, parameter: str, label: str) -> tuple[int, Any, str, dict]:
    """The optional keys: seeds, seconds, description and the [base] table (checked)."""
    seeds = data.get("seeds", 3)
    if not isinstance(seeds, int) or isinstance(seeds, bool) or not 1 <= seeds <= MAX_SEEDS:
        raise SweepError(
            f"{label}: 'seeds' must be a whole number from 1 to {MAX_SEEDS}, got {seeds!r}"
        )
    seconds = data.get("seconds", 10.0)
    if not _positive_number(seconds) or seconds > MAX_SECONDS:
        raise SweepError(
            f"{label}: 'seconds' must be a positive number up to {MAX_SECONDS:g}, got {seconds!r}"
        )
    description = data.get("description", "")
    if not isinstance(description, str):
        raise SweepError(f"{label}: 'description' must be a string, got {description!r}")
    base = data.get("base", {})
    if not isinstance(base, dict):
        raise SweepError(f"{label}: [base] must be a table of simulate() settings")
    _check_base(base, parameter, label)
    from .scenario import DEFAULT_PUSH_AT_S, ScenarioError, base_settings

    push_at = base.get("push_at", DEFAULT_PUSH_AT_S if parameter == "push_velocity" else None)
    if push_at is not None and push_at >= seconds:
        raise SweepError(
            f"{label}: the push comes at {push_at:g} s, after the {seconds:g} s episodes end; "
            "raise 'seconds' or set an earlier [base] push_at"
        )

    try:  # every [base] key must be a setting a cell's Scenario holds
        base_settings(base)
    except ScenarioError as exc:
        raise SweepError(f"{label}: {exc}") from None
    return seeds, seconds, description, base


def _check_value(parameter: str, v, label: str) -> bool:
    """Check one swept value (a SweepError naming it); whether it is a mode's value."""
    if parameter in MODE_CHOICES:
        choices = MODE_CHOICES[parameter]
        if not _choice(parameter, v, choices):
            also = " (or true / false)" if parameter in ("twist", "lean") else ""
            raise SweepError(
                f"{label}: {parameter} values must be one of {', '.join(map(repr, choices))}"
                f"{also}, got {v!r}"
            )
        return True
    if parameter == "turn":
        if v in ("straight", "in_place") or (
            isinstance(v, (int, float)) and not isinstance(v, bool) and v != 0
        ):
            return False
        raise SweepError(f"{label}: turn values are 'straight', 'in_place' or a radius, got {v!r}")
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise SweepError(f"{label}: {parameter} values must be finite numbers, got {v!r}")
    if parameter in ("speed_scale", "friction") and v <= 0:
        raise SweepError(f"{label}: {parameter} values must be > 0, got {v!r}")
    if parameter == "roughness" and v < 0:
        raise SweepError(f"{label}: roughness values must be >= 0 metres, got {v!r}")
    if parameter == "slope_deg" and abs(v) >= 80:
        raise SweepError(f"{label}: slope_deg values must be within +/-80, got {v!r}")
    return False


def cells(sweep: Sweep, seeds: int | None = None) -> list[Cell]:
    n = sweep.seeds if seeds is None else seeds
    return [Cell(w, v, s) for w in sweep.walkers for v in sweep.values for s in range(n)]


# ---------------------------------------------------------------------------- one cell

_CATALOGS: dict[str, Catalog] = {}  # per process: a sweep's catalog, parsed once


def sweep_catalog(sweep: Sweep) -> Catalog:
    """The catalog a sweep's cells run: the entries it carries (checked against their hash),
    or the built-in catalog for a Sweep made without them."""
    if not sweep.catalog_json:
        return load_catalog()
    digest = hashlib.sha256(sweep.catalog_json.encode("utf-8")).hexdigest()
    if digest != sweep.catalog_sha256:
        raise SweepError(
            f"sweep {sweep.name}: its catalog entries do not match their hash "
            f"({digest[:12]} != {sweep.catalog_sha256[:12]}); load the sweep again"
        )
    cat = _CATALOGS.get(digest)
    if cat is None:
        cat = loads_catalog(sweep.catalog_json, label=f"sweep {sweep.name} catalog")
        _CATALOGS[digest] = cat
    return cat


def run_cell(sweep: Sweep, cell: Cell) -> dict:
    """Run one episode (``Scenario.from_sweep_cell``) and return its results row."""
    from .scenario import Scenario

    scenario = Scenario.from_sweep_cell(sweep, cell)
    summary = scenario.simulate().figures
    row = {
        "sweep": sweep.name,
        "walker": cell.walker,
        "parameter": sweep.parameter,
        "value": cell.value,
        "seed": cell.seed,
        "body": scenario.body,
        "engine": scenario.engine,
        "seconds": sweep.seconds,
    }
    row.update({m: getattr(summary, m) for m in METRICS})
    return row


def _cell_path(out: Path, sweep: Sweep, cell: Cell) -> Path:
    return out / "cells" / f"{cell.key(sweep)}.json"


def _json_safe(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if hasattr(x, "item"):
        return _json_safe(x.item())
    return x


def run_and_store(sweep: Sweep, cell: Cell, out: str, attempt: int = 1) -> str:
    """Worker entry point: run the cell and write its row atomically; returns the key."""
    row = {k: _json_safe(v) for k, v in run_cell(sweep, cell).items()}
    row["attempt"] = attempt
    atomic_write_text(_cell_path(Path(out), sweep, cell), json.dumps(row) + "\n")
    return cell.key(sweep)


def read_cell(path: Path, sweep: Sweep, cell: Cell) -> dict:
    """A finished cell's row; a SweepError naming the file if it is truncated, corrupt or
    another cell's."""
    fix = "delete it to run that cell again, or rerun with --restart"
    try:
        row = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SweepError(f"{path}: truncated or unreadable cell file ({exc}); {fix}") from None
    if not isinstance(row, dict) or not {"walker", "value", "seed"} <= set(row):
        raise SweepError(f"{path}: not a sweep cell (no walker, value and seed); {fix}")
    if (row["walker"], row["seed"]) != (cell.walker, cell.seed) or row["value"] != cell.value:
        raise SweepError(f"{path}: holds another cell's result; {fix}")
    return row


def finished(out: Path, sweep: Sweep, todo: Iterable[Cell]) -> set[str]:
    """Keys of the cells with a result file (each checked: a damaged one is an error)."""
    done = set()
    for c in todo:
        path = _cell_path(out, sweep, c)
        if path.exists():
            read_cell(path, sweep, c)
            done.add(c.key(sweep))
    return done


# ---------------------------------------------------------------------------- runners


def _die_with_parent(parent: int) -> None:
    """Make this worker process exit when ``parent`` (the sweep) dies, even by SIGKILL:
    Linux's PR_SET_PDEATHSIG, plus a watchdog thread polling the parent pid elsewhere (and
    as a second line on Linux)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(3)

    def watch() -> None:
        while True:
            time.sleep(WATCHDOG_SECONDS)
            if os.getppid() != parent:
                os._exit(3)

    threading.Thread(target=watch, name="gaitsim-parent-watchdog", daemon=True).start()


def _cell_process(
    sweep: Sweep, cell: Cell, out: str, attempt: int, parent: int | None = None, report=None
) -> None:
    """A local worker: run one cell. A failure is sent over ``report`` (a pipe, so no disk
    is needed to say why) as (kind, message): 'write' when a file could not be written
    (the sweep stops), 'cell' when the cell itself raised (recorded, not retried)."""
    if parent is not None:
        _die_with_parent(parent)
    try:
        run_and_store(sweep, cell, out, attempt)
    except BaseException as exc:
        if isinstance(exc, WriteError):
            msg = ("write", str(exc))
        else:
            msg = ("cell", f"{type(exc).__name__}: {exc}"[:2000])
        if report is not None:
            try:
                report.send(msg)
            except OSError:
                pass
        raise SystemExit(2) from None


def run_local(
    sweep: Sweep,
    todo: list[Cell],
    out: Path,
    workers: int,
    on_done: Callable[[str], None] | None = None,
) -> dict[str, str]:
    """Run cells in up to ``workers`` processes, one process per cell.

    A process that dies (killed, crashed) loses only its own cell, which is retried up
    to MAX_ATTEMPTS times; a cell that raises is recorded and not retried. Returns
    {cell key: reason} for the cells given up.
    """
    import multiprocessing as mp
    from multiprocessing.connection import wait as wait_any

    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    done_keys = finished(out, sweep, todo)
    queue = [c for c in todo if c.key(sweep) not in done_keys]
    attempts: dict[str, int] = {}
    failed: dict[str, str] = {}
    running: dict = {}  # sentinel -> (process, cell, the end of its report pipe)
    try:
        while queue or running:
            while queue and len(running) < max(1, workers):
                c = queue.pop(0)
                attempts[c.key(sweep)] = attempts.get(c.key(sweep), 0) + 1
                recv, send = ctx.Pipe(duplex=False)
                args = (sweep, c, str(out), attempts[c.key(sweep)], os.getpid(), send)
                proc = ctx.Process(target=_cell_process, args=args, daemon=True)
                proc.start()
                send.close()  # the worker holds the other end
                running[proc.sentinel] = (proc, c, recv)
            for sentinel in wait_any(list(running)):
                proc, c, recv = running.pop(sentinel)
                proc.join()
                msg = _report(recv)
                key = c.key(sweep)
                if proc.exitcode == 0 and _cell_path(out, sweep, c).exists():
                    if on_done:
                        on_done(key)
                    continue
                if msg is not None and msg[0] == "write":  # a full disk...: stop the sweep
                    raise WriteError(msg[1])
                if msg is not None:  # the cell raised: a bug or bad input, not a lost worker
                    failed[key] = msg[1]
                elif attempts[key] < MAX_ATTEMPTS:
                    queue.append(c)  # the worker died mid-cell: run it again
                else:
                    failed[key] = (
                        f"worker died on all {MAX_ATTEMPTS} attempts (exit {proc.exitcode})"
                    )
    finally:  # on an error (or Ctrl-C) no worker outlives the sweep
        for proc, _, recv in running.values():
            proc.terminate()
            proc.join()
            recv.close()
    return failed


def _report(recv) -> tuple[str, str] | None:
    """A finished worker's (kind, message), or None if it sent nothing (success, or death)."""
    try:
        return recv.recv() if recv.poll() else None
    except (EOFError, OSError):
        return None
    finally:
        recv.close()


def run_ray(
    sweep: Sweep,
    todo: list[Cell],
    out: Path,
    address: str | None = None,
    on_done: Callable[[str], None] | None = None,
) -> dict[str, str]:
    """Run cells as Ray tasks (retried by Ray when a worker dies)."""
    try:
        import ray
    except ImportError:
        raise SweepError(
            'the ray backend needs Ray: pip install "gaitsim[ray]" (or use --backend local)'
        ) from None
    started = False
    if not ray.is_initialized():
        ray.init(
            address=address,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
            ignore_reinit_error=True,
        )
        started = True
    try:
        task = ray.remote(max_retries=MAX_ATTEMPTS - 1, retry_exceptions=False)(run_and_store)
        done_keys = finished(out, sweep, todo)
        refs = {task.remote(sweep, c, str(out)): c for c in todo if c.key(sweep) not in done_keys}
        failed: dict[str, str] = {}
        remaining = list(refs)
        while remaining:
            ready, remaining = ray.wait(remaining, num_returns=1)
            for r in ready:
                try:
                    key = ray.get(r)
                except Exception as exc:
                    cause = getattr(exc, "cause", exc)  # a RayTaskError wraps the task's
                    if isinstance(cause, WriteError):  # a full disk...: stop the sweep
                        raise WriteError(str(cause)) from None
                    failed[refs[r].key(sweep)] = f"{type(exc).__name__}: {exc}"[:500]
                    continue
                if on_done:
                    on_done(key)
        return failed
    finally:
        if started:
            ray.shutdown()


# ---------------------------------------------------------------------------- results


def collect(out: Path, sweep: Sweep, todo: list[Cell]) -> list[dict]:
    rows = []
    for c in todo:
        p = _cell_path(out, sweep, c)
        if p.exists():
            rows.append(read_cell(p, sweep, c))
    return rows


def write_csv(rows: list[dict], path: Path) -> None:
    cols = ["sweep", "walker", "parameter", "value", "seed", "body", "engine", "seconds",
            *METRICS]  # fmt: skip
    cols.append("attempt")
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in cols})
    atomic_write_text(path, buf.getvalue())


def _manifest(sweep: Sweep) -> dict:
    return {
        "sweep": sweep.name,
        "definition_sha256": sweep.definition_sha256(),
        "catalog_sha256": sweep.catalog_sha256
        or hashlib.sha256(dumps_catalog(load_catalog()).encode("utf-8")).hexdigest(),
    }


def clear_results(out: Path) -> None:
    """Remove a sweep's results from ``out`` (cells, results.csv, failed.json, sweep.json);
    other files in the folder are left alone."""
    cells_dir = out / "cells"
    if cells_dir.is_dir():
        for p in cells_dir.iterdir():
            if p.is_file() and (p.suffix in (".json", ".error") or p.name.startswith(".")):
                p.unlink()
    for name in ("results.csv", "failed.json", MANIFEST):
        if (out / name).is_file():
            (out / name).unlink()


def prepare_output(sweep: Sweep, out: Path, *, restart: bool = False) -> None:
    """Make ``out`` ready for ``sweep``: new, or a resume of the same definition and catalog
    (checked against its sweep.json); ``restart`` clears old results first."""
    fix = "use a new --out folder, or --restart to clear its cells and start over"
    if out.exists() and not out.is_dir():
        raise SweepError(f"{out}: is a file, not a folder; {fix}")
    if restart:
        clear_results(out)
    want = _manifest(sweep)
    path = out / MANIFEST
    if path.exists():
        try:
            have = json.loads(path.read_text("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise SweepError(f"{path}: unreadable sweep record ({exc}); {fix}") from None
        if not isinstance(have, dict):
            raise SweepError(f"{path}: not a sweep record; {fix}")
        for key, what in (("definition_sha256", "definition"), ("catalog_sha256", "catalog")):
            if have.get(key) != want[key]:
                raise SweepError(
                    f"{out}: holds results of sweep {have.get('sweep')!r} run with a different "
                    f"{what} ({str(have.get(key))[:12]} there, {want[key][:12]} now); {fix}"
                )
    else:
        old = [p for p in (out / "cells").glob("*.json")] if (out / "cells").is_dir() else []
        if old:
            raise SweepError(
                f"{out}: holds {len(old)} cell results but no {MANIFEST} recording which "
                f"sweep and catalog made them; {fix}"
            )
    (out / "cells").mkdir(parents=True, exist_ok=True)
    for p in (out / "cells").glob(".*"):  # temp files of a killed run
        if p.is_file():
            p.unlink()
    if not path.exists():
        atomic_write_text(path, json.dumps(want, indent=1) + "\n")


def run_sweep(
    sweep: Sweep,
    out: str | os.PathLike,
    *,
    workers: int = 2,
    backend: str = "local",
    address: str | None = None,
    seeds: int | None = None,
    progress: bool = True,
    restart: bool = False,
) -> tuple[list[dict], dict[str, str]]:
    """Run (or resume) a sweep into ``out``; returns the rows and the cells given up.

    A resume must be of the same definition and catalog (see :func:`prepare_output`);
    ``restart`` clears the folder's old results first."""
    from tqdm import tqdm

    out = Path(out)
    if backend not in ("local", "ray"):
        raise SweepError(f"backend must be 'local' or 'ray', got {backend!r}")
    try:
        prepare_output(sweep, out, restart=restart)
    except OSError as exc:
        raise write_error(out, exc) from exc
    todo = cells(sweep, seeds)
    already = len(finished(out, sweep, todo))
    bar = tqdm(
        total=len(todo),
        initial=already,
        desc=f"sweep {sweep.name}",
        disable=not progress,
        leave=False,
    )
    try:
        if backend == "local":
            failed = run_local(sweep, todo, out, workers, on_done=lambda k: bar.update())
        elif backend == "ray":
            failed = run_ray(sweep, todo, out, address, on_done=lambda k: bar.update())
        else:
            raise SweepError(f"backend must be 'local' or 'ray', got {backend!r}")
    finally:
        bar.close()
    rows = collect(out, sweep, todo)
    write_csv(rows, out / "results.csv")
    if failed:
        atomic_write_text(out / "failed.json", json.dumps(failed, indent=1) + "\n")
    elif (out / "failed.json").is_file():  # an earlier run's failures have now run
        (out / "failed.json").unlink()
    return rows, failed


def summary_table(rows: list[dict], metric: str = "slip_mm_per_stance") -> str:
    """Markdown: walkers x swept values; each cell 'walked/episodes (falls), mean metric'
    (``walked`` counts the episodes whose verdict is walked; rows without a verdict count
    the ones that did not fall)."""
    values = list(dict.fromkeys(r["value"] for r in rows))
    walkers = list(dict.fromkeys(r["walker"] for r in rows))
    lines = [
        "| walker | " + " | ".join(str(v) for v in values) + " |",
        "| --- " * (len(values) + 1) + "|",
    ]
    for w in walkers:
        cells_ = []
        for v in values:
            rs = [r for r in rows if r["walker"] == w and r["value"] == v]
            falls = sum(1 for r in rs if r["fell"] in (True, "True"))
            walked = sum(
                1
                for r in rs
                if (r.get("verdict") == "walked")
                or (not r.get("verdict") and r["fell"] not in (True, "True"))
            )
            ms = [float(r[metric]) for r in rs if r.get(metric) not in (None, "")]
            mean = f"{sum(ms) / len(ms):.1f}" if ms else "n/a"
            cells_.append(f"{walked}/{len(rs)} ({falls}), {mean}")
        lines.append(f"| {w} | " + " | ".join(cells_) + " |")
    return "\n".join(lines)
