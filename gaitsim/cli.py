"""The ``gaitsim`` command: catalog, validate, clip, urdf and walk (physics).

Exit codes: 0 success, 1 a check failed (e.g. a walker failed the walk test), 2 bad input
(the message says what was wrong and how to fix it).
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__
from .catalog import (
    MAX_RUN_SECONDS,
    Catalog,
    CatalogError,
    Entry,
    GaitsimError,
    atomic_write_bytes,
    atomic_write_text,
    gait_pattern,
    load_catalog,
    write_error,
)
from .flight import BALLISTIC_FLIGHT
from .gait import cycle_length
from .geometry import GRAVITY, flight_gait, flight_share
from .scenario import (
    DEFAULT_ROUGHNESS_M,
    DEFAULT_SIM_HZ,
    DEFAULT_SLOPE_DEG,
    TWIST_WORDS,
    Scenario,
    TerrainSpec,
)
from .upper import ARM_MODES, GAZE_MODES


class UsageError(GaitsimError):
    """Bad command-line input; the message says how to fix it."""


def _progress(iterable, desc: str, total: int | None = None, quiet: bool = False):
    from tqdm import tqdm

    return tqdm(iterable, desc=desc, total=total, disable=quiet, file=sys.stderr, leave=False)


def _catalog_label(args) -> str:
    return str(args.catalog) if args.catalog else "built-in catalog"


def _in_catalog(args, exc: Exception) -> CatalogError:
    """A catalog error whose message starts with the catalog it came from."""
    msg, label = str(exc), _catalog_label(args)
    return CatalogError(msg if msg.startswith(f"{label}: ") else f"{label}: {msg}")


def _catalog(args) -> Catalog:
    try:
        return load_catalog(args.catalog)
    except CatalogError as exc:
        raise _in_catalog(args, exc) from None


def _resolved(args, catalog: Catalog, entries: list[Entry]) -> list[Entry]:
    """The entries, each with its body geometry resolved now, so that a walker the
    kinematics cannot build is reported naming the catalog file and the walker."""
    from .geometry import geometry

    for e in entries:
        try:
            geometry(e.gait)
        except CatalogError as exc:
            where = f"{e.name}." if catalog.bare else f"{e.name}.gait."
            raise _in_catalog(args, f"{where}{exc}") from None
    return entries


MAX_SPEED_SCALE = 10.0  # --speed-scale: stride multiples beyond this leave any gait


def _check_speed_scale(value: float) -> float:
    if not (math.isfinite(value) and 0 < value <= MAX_SPEED_SCALE):
        raise UsageError(
            f"--speed-scale must be a number > 0 and at most {MAX_SPEED_SCALE:g}, got {value!r}"
        )
    return value


def _walkers(catalog: Catalog, names: list[str] | None) -> list[Entry]:
    if not names:
        return list(catalog.values())
    missing = [n for n in names if n not in catalog]
    if missing:
        raise UsageError(
            f"unknown walker(s) {', '.join(missing)}; choose from {', '.join(catalog)}"
        )
    return [catalog[n] for n in names]


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*header), fmt.format(*("-" * w for w in widths))]
    lines += [fmt.format(*map(str, r)) for r in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- commands


def cmd_catalog(args) -> int:
    cat = _catalog(args)
    rows = []
    out = []
    for e in cat.values():
        g = e.gait
        info = {
            "walker": e.name,
            "legs": g.n_legs,
            "pattern": gait_pattern(g),
            "duty": g.duty,
            "stride_m": g.stride,
            "cycle_m": g.cycle,
            "speed_m_s": g.clip_speed,
            "knees": sorted({leg.knee for leg in g.legs}),
            "default_body": _default_body(e),
        }
        out.append(info)
        rows.append(
            [
                e.name,
                g.n_legs,
                info["pattern"],
                f"{g.duty:.2f}",
                f"{g.stride:.3f}",
                f"{g.cycle:.3f}",
                f"{g.clip_speed:.3f}",
                ",".join(info["knees"]),
                info["default_body"] or "-",
            ]
        )
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        header = ["walker", "legs", "pattern", "duty", "stride m", "cycle m", "speed m/s", "knees",
                  "body"]  # fmt: skip
        print(_table(rows, header))
    return 0


def _default_body(entry) -> str | None:
    """The body a physics run gives ``entry`` unless told (``sim.run.default_body``:
    ``free`` or ``assist``); None for a walker no body can stand on (``validate`` says why)."""
    from .sim.run import default_body

    try:
        return default_body(entry)
    except ValueError:
        return None


def cmd_validate(args) -> int:
    from .catalog import dumps_catalog, loads_catalog, save_catalog
    from .validate import SLIDE_LIMIT_MM, VARIANTS, validate_entry

    if args.write and not args.catalog:
        raise UsageError("--write needs --catalog FILE: name the catalog file to update")
    _check_speed_scale(args.speed_scale)
    cat = _catalog(args)
    _resolved(args, cat, list(cat.values()))
    results = [
        validate_entry(e, mode=args.mode, speed_scale=args.speed_scale)
        for e in _progress(cat.values(), "walk test", len(cat), args.quiet)
    ]
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        names = [v.name for v in VARIANTS]
        header = ["walker", *[f"{n} mm" for n in names], "flat shortfall m", "result"]
        rows = [
            [
                r["walker"],
                *[f"{r['foot_slide_mm'][n]:.4f}" for n in names],
                f"{r['max_shortfall_m']['straight']:.4f}",
                "ok" if r["pass"] else "FAIL",
            ]
            for r in results
        ]
        print(_table(rows, header))
        print(
            f"\n{args.mode}-mode stance-foot slide between samples (2 cycles, 120 samples per "
            f"cycle); a walker fails above {SLIDE_LIMIT_MM} mm or when a foot is out of reach "
            "on flat ground"
        )
    if not args.quiet:
        for e in cat.values():
            for note in _body_notes(e):
                print(f"note: {e.name}: {note}", file=sys.stderr)
    if args.write:
        entries = []
        for e, r in zip(cat.values(), results, strict=True):
            wt = dict(e.walk_test or {})
            wt["foot_slide_mm"] = round(r["foot_slide_mm"]["straight"], 6)
            entries.append(Entry(e.name, e.gait, wt, e.extra))
        # a bare gait object has no place for walk_test, so it is saved as a catalog
        updated = Catalog(entries)
        try:  # never write a catalog the loader would refuse
            loads_catalog(dumps_catalog(updated))
        except (CatalogError, ValueError) as exc:
            raise UsageError(
                f"--write: not writing {args.catalog}: the measured walk test cannot be stored "
                f"({exc}); the file is unchanged"
            ) from None
        save_catalog(updated, args.catalog)
        if not args.quiet:
            print(f"wrote walk_test.foot_slide_mm to {args.catalog}", file=sys.stderr)
    return 0 if all(r["pass"] for r in results) else 1


CLIP_MAX_SAMPLES = 100_000  # samples per cycle of `gaitsim clip`


def cmd_clip(args) -> int:
    from .validate import bake_clip, clip_to_csv, clip_to_json

    out = Path(args.out)
    suffix = out.suffix.lower()
    if suffix not in (".csv", ".json", ".npz"):
        raise UsageError(f"--out must end in .csv, .json or .npz, got {out.name!r}")
    if not 2 <= args.samples <= CLIP_MAX_SAMPLES:
        raise UsageError(f"--samples must be between 2 and {CLIP_MAX_SAMPLES}, got {args.samples}")
    _check_speed_scale(args.speed_scale)
    cat = _catalog(args)
    entry = _resolved(args, cat, _walkers(cat, [args.walker]))[0]
    clip = bake_clip(entry, samples=args.samples, speed_scale=args.speed_scale)
    if suffix == ".csv":
        atomic_write_text(out, clip_to_csv(clip))
    elif suffix == ".json":
        atomic_write_text(out, json.dumps(clip_to_json(clip), indent=1) + "\n")
    else:
        buf = io.BytesIO()
        np.savez(
            buf,
            phase=clip["phase"],
            distance_m=clip["distance_m"],
            time_s=clip["time_s"],
            body_z_m=clip["body_z_m"],
            joints_rad=clip["joints_rad"],
            joint_names=np.array(clip["joint_names"]),
            cycle_m=clip["cycle_m"],
            clip_speed=clip["clip_speed"],
        )
        atomic_write_bytes(out, buf.getvalue())
    if not args.quiet:
        print(
            f"wrote {args.samples} samples of {entry.name}'s cycle ({clip['cycle_m']:.4f} m, "
            f"{clip['duration_s']:.3f} s at {clip['clip_speed']} m/s) to {out}; "
            f"play at speed / clip_speed",
            file=sys.stderr,
        )
    return 0


URDF_DEFAULT_OUT = "gaitsim-urdf"  # not the tracked urdf/: that one is written only by name


def cmd_urdf(args) -> int:
    from .urdf import URDFNameError, write_catalog

    cat = _catalog(args)
    _resolved(args, cat, list(cat.values()))
    try:
        paths = write_catalog(cat, args.out)
    except URDFNameError as exc:
        raise _in_catalog(args, exc) from None
    if not args.quiet:
        for p in paths:
            print(p)
    return 0


SIM_HZ = DEFAULT_SIM_HZ  # physics rate of `gaitsim walk`; --control-hz must divide it
WALK_DEFAULT_SLOPE_DEG = DEFAULT_SLOPE_DEG
WALK_DEFAULT_ROUGHNESS_M = DEFAULT_ROUGHNESS_M
VIDEO_FPS = 30.0
PROGRESS_EVERY = 10  # control steps between progress-bar updates


def _finite(value: float, flag: str, *, positive: bool = False) -> float:
    if not math.isfinite(value) or (positive and value <= 0):
        need = "a number > 0" if positive else "a finite number"
        raise UsageError(f"{flag} must be {need}, got {value!r}")
    return value


def _json_safe(x):
    """Plain JSON types: numpy scalars and arrays to Python, inf and nan to None."""
    if isinstance(x, dict):
        return {str(k): _json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    if isinstance(x, np.ndarray):
        return _json_safe(x.tolist())
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _fmt(value, spec: str = ".3f", unit: str = "") -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float) and not math.isfinite(value):
        return "n/a (no foot in contact)" if value < 0 else "n/a"
    return f"{value:{spec}}{unit}"


def _walk_table(s) -> str:
    """The run summary (a RunSummary) as a two-column table."""
    rows = [
        ["walker", s.walker],
        ["terrain", s.terrain],
        ["path", s.path],
        ["body / distance source", f"{s.body} / {s.distance_source}"
         + (" (soles: the slow walk's stance)" if s.slow_walk else "")],
        ["engine", s.engine],
        *([["controller settings", ", ".join(f"{k}={v}" for k, v in s.control.items())]]
          if s.control else []),
        ["physics rate (Hz)", _fmt(s.sim_hz, "g")],
        ["control rate (Hz)", _fmt(s.control_hz, "g")],
        ["servo clock (x tuned gains per s)", _fmt(s.servo_clock, ".2f")],
        ["simulated s", _fmt(s.simulated_s, ".2f")],
        ["distance m", _fmt(s.distance_m)],
        ["speed m/s", _fmt(s.speed_m_s)],
        ["commanded speed m/s", _fmt(s.commanded_speed_m_s)],
        ["speed ratio", _fmt(s.speed_ratio, ".2f")],
        ["heading error deg (mean)", _fmt(s.heading_error_deg, ".2f")],
        ["slip mm per stance", _fmt(s.slip_mm_per_stance, ".2f")],
        ["stances", s.stances],
        ["max reach shortfall m", _fmt(s.max_shortfall_m, ".4f")],
        ["foot tracking error mm", _fmt(s.foot_tracking_error_mm, ".1f")],
        ["min support margin m", _fmt(s.min_support_margin_m)],
        [
            "max roll / pitch deg",
            f"{_fmt(s.max_roll_deg, '.1f')} / {_fmt(s.max_pitch_deg, '.1f')}",
        ],
        ["cost of transport", _fmt(s.cost_of_transport, ".2f")],
        ["thighs and shins carry / weight", _fmt(s.leg_load_per_weight, ".3f")],
    ]
    if s.push_at_s is not None:
        rows.append(["push", f"{s.push_velocity_m_s:+.2f} m/s sideways at {s.push_at_s:g} s"])
    if s.assist_mean_force_per_weight is not None:  # a run with the body assist
        rows.append(["assist force / weight", _fmt(s.assist_mean_force_per_weight, ".3f")])
        rows.append(["assist net lift / weight", _fmt(s.assist_net_lift_per_weight, ".3f")])
    rows += _upper_rows(s) + _sole_rows(s)
    duty = s.duty_by_leg or []
    rows.append(["measured duty by leg", " ".join(_fmt(d, ".2f") for d in duty)])
    rows.append(["catalog duty", _fmt(s.catalog_duty, ".2f")])
    rows.append(["line drift growth (x)", _fmt(s.line_drift_growth, ".1f")])
    rows.append(["height / half track", _fmt(s.tipping_ratio, ".1f")])
    rows.append(["stride / hip height", _fmt(s.stride_ratio, ".2f")])
    rows.append(["touchdowns per stance", _fmt(s.touchdowns_per_stance, ".2f")])
    rows.append(["contact timing error", _fmt(s.contact_timing_error, ".3f")])
    fell = s.fell
    rows.append(["fell", f"YES after {_fmt(s.time_to_fall_s, '.2f')} s" if fell else "no"])
    rows.append(["verdict", f"{s.verdict}: {s.verdict_reason}"])
    return _table(rows, ["metric", "value"])


def _sole_rows(s) -> list[list[str]]:
    """The soles' rows of the walk table (walkers with soles only): their pitch at
    touchdown and lift-off, the measured stance phases beside the second seed's split of a
    step, and the centre of pressure's margin inside the sole."""
    if s.stance_phase_share is None:
        return []
    from .feet import SEED_STEP_SPLIT

    rows = [["sole pitch deg at touchdown / lift-off",
             f"{_fmt(s.sole_pitch_deg_at_touchdown, '.1f')} / "
             f"{_fmt(s.sole_pitch_deg_at_liftoff, '+.1f')}"]]  # fmt: skip
    measured = " / ".join(f"{100 * v:.0f}" for v in s.stance_phase_share.values())
    seed = " / ".join(f"{100 * v:.0f}" for v in SEED_STEP_SPLIT)
    rows.append([f"stance phases % ({' / '.join(s.stance_phase_share)})",
                 f"{measured} (seed: {seed})"])  # fmt: skip
    rows.append(["CoP margin in the sole mm (min / mean)",
                 f"{_fmt(s.cop_margin_mm_min, '.1f')} / {_fmt(s.cop_margin_mm_mean, '.1f')}"])
    return rows


def _upper_rows(s) -> list[list[str]]:
    """The yaw-balance and upper-body rows of the walk table (a part's rows only for
    walkers that have it; a summary from before these figures: none)."""
    rows = []
    if s.yaw_moment_rms_nm is not None:
        rows.append(["yaw moment rms N m", _fmt(s.yaw_moment_rms_nm, ".3f")])
    if s.yaw_moment_com_rms_nm is not None:
        rows.append(["yaw moment about the COM rms N m", _fmt(s.yaw_moment_com_rms_nm, ".3f")])
    if s.hip_twist_deg is not None:
        rows.append(["hip twist deg", _fmt(s.hip_twist_deg, ".2f")])
    if s.shoulder_twist_deg is not None:
        rows.append(["shoulder twist deg / ratio to hips",
                     f"{_fmt(s.shoulder_twist_deg, '.2f')} / "
                     f"{_fmt(s.shoulder_hip_ratio, '.2f')}"])  # fmt: skip
    if s.base_bob_mm is not None:
        bob = _fmt(s.base_bob_mm, ".1f")
        if s.head_bob_mm is not None:
            bob += f" / {_fmt(s.head_bob_mm, '.1f')}"
        rows.append(["body / head bob mm" if s.head_bob_mm is not None else "body bob mm", bob])
    if s.head_pitch_deg_rms is not None:
        rows.append(["head pitch deg rms", _fmt(s.head_pitch_deg_rms, ".2f")])
    if s.gaze_lead_s is not None:
        rows.append(["gaze lead s", _fmt(s.gaze_lead_s, ".2f")])
    if s.arms is not None:
        twist = "on" if s.twist else "off"
        rows.append(["upper body", f"arms {s.arms}, twist {twist}, gaze {s.gaze}"])
    if s.lean:
        rows.append(["lean", str(s.lean)])
    return rows


def cmd_walk(args) -> int:
    # -- flags first: nothing below imports pybullet until the input is known to be good
    video = _walk_flags(args)
    entry = _walk_entry(args)
    scenario, n_steps = _walk_scenario(args, entry, video)
    summary, recorder = _walk_run(args, scenario, n_steps, video)
    if video is not None and recorder is not None:
        _save_video(args, video, recorder)
    if args.json:
        print(json.dumps(_json_safe(summary.to_dict()), indent=2, allow_nan=False))
    else:
        print(_walk_table(summary))
        if not summary.walked:
            print(
                f"\n{entry.name} did not walk: {summary.verdict} ({summary.verdict_reason})"
                "; exit code 1"
            )
    notes = (_arc_demand_note(entry, summary, args)
             or _line_balance_note(summary, entry) or _slope_line_note(summary, entry)
             or _support_note(entry, summary),
             _narrow_note(summary, entry), _sequence_note(entry, summary),
             *(f"note: {note}" for note in _body_notes(entry)),
             _biped_tempo_note(entry, summary, getattr(args, "engine", "pybullet")),
             _biped_assist_note(entry, summary, args.body,
                                getattr(args, "engine", "pybullet")),
             _flight_note(entry, summary, args.body), _arc_drift_note(summary),
             _short_run_note(summary, entry))  # fmt: skip
    for note in notes:
        if note and not args.quiet:
            print(note, file=sys.stderr)
    return 0 if summary.walked else 1


# what free bipeds with long strides measured (the two notes; sim.run.LONG_STRIDE)
LONG_STRIDE_FIGURES = ("of the brisk runs of 120 generated striding bipeds, 27 of 39 walk free at "
                       "0.7-0.8 hip heights, 19 of 39 at 0.8-0.9, 30 of 90 beyond; "
                       "docs/bipeds.md, stop 57")
# why bipeds keep the assist by default on an engine other than PyBullet (the two notes)
FREE_BIPEDS_OFF_PYBULLET = ("the built-in mechanic falls climbing 5 deg from 4 of 6 starts, "
                            "which it walks on pybullet; docs/bipeds.md, stop 50")


def _biped_tempo_note(entry, summary, engine: str = "pybullet") -> str | None:
    """Why a free biped that strides long or steps slowly may have fallen, and what to
    change (None for every other run: not a biped, not free, did not fall, or brisk with
    a stride of at most LONG_STRIDE hip heights). On an engine other than PyBullet the
    engine is named: free bipeds fall more often there."""
    from .sim.run import (
        BRISK_BIPED_TEMPO,
        LONG_STRIDE,
        biped_tempo,
        clip_speed_at_tempo,
        stride_ratio,
        walks_free_biped,
    )

    tempo = biped_tempo(entry)
    if tempo is None or summary.body != "free" or not summary.fell:
        return None
    if engine != "pybullet":
        return (f"note: free bipeds fall more often on {engine} than on pybullet "
                f"({FREE_BIPEDS_OFF_PYBULLET}); --body assist, the default for bipeds on "
                f"{engine}, walks it, and --engine pybullet walks the built-in bipeds free")
    ratio = stride_ratio(entry)
    if ratio > LONG_STRIDE:
        return (f"note: this biped's stride sweeps {ratio:.2f} times its hip height; free "
                f"bipeds here mostly fall at strides longer than {LONG_STRIDE:g} (each "
                "landing brakes the body more than the stance legs push it back up to "
                f"speed; {LONG_STRIDE_FIGURES}); --body assist, the default for such a "
                "biped, walks most of them (124 of those 129 runs beyond 0.8), and a stride "
                f"under {LONG_STRIDE:g} hip heights walks free more often")  # fmt: skip
    if tempo <= BRISK_BIPED_TEMPO:
        return None
    brisk = clip_speed_at_tempo(entry, BRISK_BIPED_TEMPO)
    default = ("the default for such a slow biped" if not walks_free_biped(entry, engine)
               else "not the default at this tempo")  # fmt: skip
    return (
        f"note: this biped's gait cycle lasts {tempo:.2f} periods of a pendulum as long as "
        f"its hip is high; free bipeds here mostly fall at such a slow tempo and mostly walk "
        f"at {BRISK_BIPED_TEMPO:g} or briskly (README, 'Bipeds on their own feet'): "
        f"a clip_speed of {brisk:.3g} m/s, the stride kept, makes it "
        f"{BRISK_BIPED_TEMPO:g} (the built-in bipeds step at 0.60 and 0.67 and walk free; "
        "of 72 generated bipeds at their own 0.66-1.18, 34 of 144 runs walk (those slower "
        "than 0.7 on the slow walk's stance), at 0.6 86 of 144, docs/bipeds.md); "
        f"--body assist ({default}) walks it"
    )


def _biped_assist_note(entry, summary, asked: str, engine: str) -> str | None:
    """Why a biped got the assist by default (``--body auto``), and how to run it on its
    own feet (None for every other run)."""
    from .feet import soles
    from .sim.run import (
        FREE_BIPED_TEMPO,
        LONG_STRIDE,
        biped_tempo,
        clip_speed_at_tempo,
        stride_ratio,
    )

    gait = entry.gait
    if asked != "auto" or summary.body != "assist" or gait.n_legs != 2:
        return None
    if flight_gait(gait):
        why = _flight_why(gait)
    elif soles(gait) is None:
        why = ('it stands on point feet ("foot": "sphere", or knees that bend up); soles '
               "are what a biped balances on")
    elif engine != "pybullet":
        why = (f"on {engine} free bipeds do not yet walk every condition "
               f"({FREE_BIPEDS_OFF_PYBULLET})")
    elif (tempo := biped_tempo(entry)) <= FREE_BIPED_TEMPO:  # brisk: the stride is why
        why = (f"its stride sweeps {stride_ratio(entry):.2f} times its hip height, more than "
               f"{LONG_STRIDE:g}: free bipeds here mostly fall at such strides "
               f"({LONG_STRIDE_FIGURES})")  # fmt: skip
    else:
        brisk = clip_speed_at_tempo(entry, FREE_BIPED_TEMPO)
        why = (f"its gait cycle lasts {tempo:.2f} periods of a pendulum as long as its hip is "
               f"high, more than {FREE_BIPED_TEMPO:g}: free bipeds here mostly fall at such a "
               f"tempo (a clip_speed of {brisk:.3g} m/s, the stride kept, makes it "
               f"{FREE_BIPED_TEMPO:g})")  # fmt: skip
    return (f"note: this biped gets --body assist by default because {why}; --body free "
            "runs it on its own feet")


def _body_notes(entry) -> list[str]:
    """Notes on where the body was put: centred over the homes (``_origin_note``), a
    catalog body that reaches into the ground (``geometry.body_in_ground``), a catalog hip
    height that kneels (``geometry.knees_on_ground``)."""
    from .geometry import body_in_ground, knees_on_ground

    notes = (_origin_note(entry), body_in_ground(entry.gait), knees_on_ground(entry.gait))
    return [n for n in notes if n]


def _origin_note(entry) -> str | None:
    """A note for a walker whose legs all stand to one side of the catalog's origin: the
    body is centred over their homes instead (``geometry.body_origin``), by how much, and
    how to place it yourself (None for every other walker)."""
    from .geometry import geometry

    ox, oy = geometry(entry.gait).origin
    if ox == 0.0 and oy == 0.0:
        return None
    moves = [f"{abs(v) * 1000:.0f} mm {(pos if v > 0 else neg)}"
             for v, pos, neg in ((ox, "forward", "back"), (oy, "left", "right")) if v != 0.0]
    return (
        "every leg's home lies to one side of the catalog's origin, and a body centred there "
        "could not stand on them, so the body is centred over the homes: its origin moves "
        f"{' and '.join(moves)}, and positions and paths follow that point; to place the "
        "body yourself, put the homes (Gaitkit z forward, x left) around the origin"
    )


def _line_balance_note(summary, entry=None) -> str | None:
    """Why a free point-footed walker whose gait stands long on a line fell (past
    LINE_GROWTH_LIMIT), or did not walk, standing beside its centre (``entry`` given;
    ``sim.run.offset_lines_topple``: past OFFSET_LINE_GROWTH_LIMIT or with no phase on
    all its feet between such stands), and what to change (None for every other run)."""
    from .sim.run import LINE_GROWTH_LIMIT, OFFSET_LINE_GROWTH_LIMIT, offset_lines_topple

    growth = summary.line_drift_growth or 0.0
    if summary.body != "free" or summary.walked:
        return None
    if growth > LINE_GROWTH_LIMIT and summary.fell:
        return (
            "note: this gait stands on a line of point feet (or on feet of one side, beside "
            "the body's centre) long enough for a drift of the "
            f"body across it to grow {growth:.1f}-fold (over {LINE_GROWTH_LIMIT:g}: such "
            "gaits, slow trots with little or no four-foot phase, fall free). --body assist "
            "(the default for them) walks it; a duty further above 0.5 or a faster cycle (a "
            "higher clip_speed) shortens the stand"
        )
    if entry is None or not offset_lines_topple(entry.gait, growth):
        return None
    why = (f"a drift across them grows {growth:.1f}-fold (over {OFFSET_LINE_GROWTH_LIMIT:g})"
           if growth > OFFSET_LINE_GROWTH_LIMIT else
           "its feet are never all down between two such stands to carry the body across")
    return (
        "note: this gait stands on feet beside the body's centre (a pace's lateral pairs, a "
        f"bound's fore and hind pairs) and {why}: such gaits mostly fall or tip free. "
        "--body assist (the default for them) walks it; a duty further above 0.5 or a "
        "faster cycle (a higher clip_speed) shortens the stands"
    )


def _slope_line_note(summary, entry) -> str | None:
    """Why a free point-footed gait near duty 0.5 whose drift on a line grows
    SLOPE_LINE_GROWTH- to LINE_GROWTH_LIMIT-fold fell on a slope: what such gaits measured,
    what to change (None for every other run; past the limit ``_line_balance_note``'s)."""
    from .sim.run import LINE_GROWTH_LIMIT, SLOPE_LINE_DUTY, SLOPE_LINE_GROWTH

    growth, duty = summary.line_drift_growth or 0.0, entry.gait.duty
    if summary.body != "free" or not summary.fell or not summary.terrain.startswith("slope"):
        return None
    if not (SLOPE_LINE_GROWTH < growth <= LINE_GROWTH_LIMIT and duty < SLOPE_LINE_DUTY):
        return None
    return (
        f"note: this gait stands on a line of point feet nearly all the time (duty {duty:g}) "
        f"and a drift across it grows {growth:.1f}-fold: on slopes such gaits climb less "
        "surely (of 35 generated trots like it 26 climbed 5 deg free, against 164 of 164 "
        "trots with a four-foot phase or a shorter stand). --body assist walks it; a duty "
        "further above 0.5 or a faster cycle (a higher clip_speed) shortens the stand"
    )


def _flight_why(gait) -> str:
    """Why ``gait`` counts as a flight gait (``geometry.flight_gait``), in words."""
    if gait.duty < 0.5:
        up = flight_share(gait)
        together = f": every foot up together for {up:.0%} of each cycle" if up > 0.0 else ""
        return f"its gait has flight phases (duty {gait.duty:g} < 0.5{together})"
    return (f"its feet are all off the ground together for {flight_share(gait):.0%} of each "
            f"cycle (a {gait_pattern(gait)}: flight phases at duty {gait.duty:g})")


def _flight_note(entry, summary, asked: str) -> str | None:
    """For a walker of three or more legs that flies (``geometry.flight_gait``): why it got
    the assist by default; and for any flight gait that did not walk, how its body's
    height is planned through the flights and what shortens them (None for every other
    run)."""
    gait = entry.gait
    if not flight_gait(gait):
        return None
    parts = []
    if asked == "auto" and summary.body == "assist" and gait.n_legs > 2:
        parts.append(f"this walker gets --body assist by default because {_flight_why(gait)}")
    share = flight_share(gait)
    if not summary.walked and share > 0.0:
        plan = (f"the body's planned height rises and falls ballistically through each "
                f"flight (flights of {BALLISTIC_FLIGHT:.0%} of the cycle or more; less where "
                "the legs cannot take the dip through the stance)" if share >= BALLISTIC_FLIGHT
                else f"flights under {BALLISTIC_FLIGHT:.0%} of the cycle keep a level body "
                "path")  # fmt: skip
        parts.append(
            f"with every foot up for {share:.0%} of the cycle the body has nothing under it; "
            f"{plan}, and the assist carries what the legs do not (its share of the weight "
            "is the verdict's 'carried'). A higher duty or phases spread round the cycle "
            "shorten the flight")
    return "note: " + "; ".join(parts) if parts else None


def _short_run_note(summary, entry) -> str | None:
    """For a run too short to hold two gait cycles (``contact_cycles`` 0): its duty,
    landings and contact timing span the whole run, start-up and part cycles included, and
    how long a run would measure them over a whole cycle (None for every other run)."""
    if summary.contact_cycles != 0 or summary.fell:
        return None
    period = cycle_length(entry.gait) / entry.gait.clip_speed  # s: at any speed scale
    return (
        f"note: this run covered {summary.simulated_s / period:.2f} gait cycles of "
        f"{period:.3g} s; duty, landings and contact timing are measured over whole cycles "
        "after the first, so here they span the whole run, start-up included, and do not "
        f"measure the gait; run at least {2 * period:.3g} s (--seconds)"
    )


def _arc_demand_note(entry, summary, args) -> str | None:
    """For a walker of three or more legs that did not walk an arc whose sideways
    acceleration is more than its track holds (``sim.run.arc_demand`` over 1), how wide
    an arc or how slow a speed would ask no more (None for every other run)."""
    from .sim.run import arc_demand, make_path

    v = summary.commanded_speed_m_s
    if summary.path != "Arc" or summary.walked or entry.gait.n_legs < 3 or not v > 0:
        return None
    yaw = None if args.yaw_rate_deg is None else math.radians(args.yaw_rate_deg)
    radius = make_path(entry, v, args.turn_radius, yaw).radius  # the run's own arc
    demand = arc_demand(entry, v, radius)
    if not demand > 1.0:
        return None
    a = v * v / abs(radius) / GRAVITY
    return (
        f"note: this {abs(radius):g} m arc at {v:.2f} m/s asks a sideways acceleration of "
        f"{a:.2f} g, {demand:.1f} times what the feet's half track holds under this body "
        f"({a / demand:.2f} g), more than leaning into the turn makes up. An arc of "
        f"{abs(radius) * demand:.2f} m or more, or --speed-scale "
        f"{args.speed_scale / math.sqrt(demand):.2f} or less, asks no more than that"
    )


def _arc_drift_note(summary) -> str | None:
    """For a free narrow point-footed walker that ran ahead of its plan on an arc (speed
    ratio above 1.2 without a fall: its body drifted outward round the circle), what to
    try (None for every other run)."""
    from .sim.stance import NARROW_FROM

    ratio = summary.tipping_ratio
    if (summary.body != "free" or summary.path != "Arc" or summary.fell
            or not summary.speed_ratio > 1.2 or ratio is None or ratio < NARROW_FROM):
        return None  # fmt: skip
    return (
        f"note: on this arc the body ran {summary.speed_ratio:.2f} times its planned distance "
        "without falling: it drifted outward round the circle, though it leans into the "
        f"turn. A body standing {ratio:.1f} times as tall as half its track tracks its "
        "path softly sideways, which leaves it to the centripetal load; --control "
        "side_track_gain=0.5 tracks it harder (before the lean it walked 2 of 4 generated "
        "narrow walks that drifted so; the other two fell: docs/gait_fidelity.md, stop 59)"
    )


def _narrow_note(summary, entry=None) -> str | None:
    """Why a free point-footed walker that stands tall over a narrow track fell, and what
    to change (None for every other run: a walker on soles, ``entry``'s, is not one)."""
    from .feet import soles
    from .sim.run import NARROW_ASSIST
    from .sim.stance import NARROW_FROM

    ratio = summary.tipping_ratio
    if summary.body != "free" or not summary.fell or ratio is None or ratio <= NARROW_FROM:
        return None
    if entry is not None and soles(entry.gait) is not None:  # the rule is point feet's
        return None
    return (
        f"note: this body stands {ratio:.1f} times as tall as half its track (the sideways "
        "spread of its feet), so a tilt of "
        f"{math.degrees(math.atan(1.0 / ratio)):.0f} deg puts its centre of mass over its "
        f"feet; over {NARROW_ASSIST:g} such walkers mostly fall free and get --body assist by "
        "default. Wider-set feet (the homes' Gaitkit x) or a shorter hip_height make it "
        "steadier"
    )


def _sequence_note(entry, summary) -> str | None:
    """For a free four-beat walk in the diagonal sequence that did not walk: the order its
    phases give, how the lateral sequence measured, and the edit that gives it (None for
    every other run)."""
    if summary.body != "free" or summary.walked:
        return None
    if gait_pattern(entry.gait) != "walk (diagonal sequence)":
        return None
    return (
        "note: these phases give a diagonal-sequence walk (left hind, right fore, right hind, "
        "left fore): a leg whose phase is larger lands earlier, so phases written as landing "
        "times give this order. On generated narrow four-beat walks (seeds 200-299, free, "
        "flat, up 5 deg and 1 cm rough) 57 of 144 runs of this order met every gait bound, "
        "116 of 156 of the lateral sequence (left hind, left fore, right hind, right fore, "
        "as most mammals walk); swapping the two fore legs' phases gives the lateral order"
    )


def _support_note(entry, summary) -> str | None:
    """Why a free multi-legged walker may have fallen: the share of its cycle that its
    planned support leaves the body nothing to stand over without swaying (every foot down
    on one side, one foot or none, fewer than three), and what to try (None unless a free
    walker with three or more legs fell and some such share is above zero)."""
    from .sim.stance import support_shares

    if summary.body != "free" or not summary.fell or entry.gait.n_legs < 3:
        return None
    shares = support_shares(entry.gait)
    parts = [f"{shares[k]:.0%} {what}" for k, what in (
        ("one_side", "with every foot down on one side of the body"),
        ("one_foot", "on one foot or none"),
        ("under_three", "on fewer than three feet")) if shares[k] > 0.0]  # fmt: skip
    if not parts:
        return None
    listed = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    return (
        f"note: of each gait cycle this gait spends {listed}: a free body of point feet stays up "
        "there only by swaying its centre of mass onto that support, which the free "
        "controller does not always manage; --body assist (a reported light spring-damper) "
        "walks most such gaits, or give more legs a share of those phases (phase offsets "
        "spread round the cycle, a higher duty)"
    )


def _walk_flags(args):
    """Check the walk's flags (the terrain's first); the video path (or None)."""
    TerrainSpec.from_cli(args)  # raises for a terrain flag that does not fit
    _check_speed_scale(args.speed_scale)
    _finite(args.seconds, "--seconds", positive=True)
    if args.seconds > MAX_RUN_SECONDS:
        raise UsageError(
            f"--seconds is at most {MAX_RUN_SECONDS:g} (10 simulated hours), got {args.seconds:g}"
        )
    _finite(args.friction, "--friction", positive=True)
    if args.control_hz is not None:
        _finite(args.control_hz, "--control-hz", positive=True)
    if args.turn_radius is not None and args.yaw_rate_deg is not None:
        raise UsageError(
            "--turn-radius and --yaw-rate-deg both set the turn; give only one of them"
        )
    if args.turn_radius is not None and math.isnan(args.turn_radius):
        raise UsageError("--turn-radius must be a number of metres (0 turns in place)")
    if args.yaw_rate_deg is not None:
        _finite(args.yaw_rate_deg, "--yaw-rate-deg")
    if args.episode_seed is not None and args.episode_seed < 0:
        raise UsageError(f"--episode-seed must be a whole number >= 0, got {args.episode_seed}")
    _check_push_flags(args)
    _check_control_flags(args)
    _check_engine_flag(args)
    if args.gui and args.engine != "pybullet":
        raise UsageError("--gui shows the PyBullet window: drop --gui, or use --engine pybullet")
    video = Path(args.video) if args.video else None
    if video is not None:
        if video.suffix.lower() not in (".mp4", ".gif"):
            raise UsageError(
                f"--video must name a .mp4 or .gif file, got {video.name!r}; e.g. --video walk.gif"
            )
        folder = next(d for d in [video.absolute().parent, *video.absolute().parents] if d.exists())
        if not folder.is_dir() or not os.access(folder, os.W_OK):
            raise UsageError(f"--video {video}: cannot write into {folder}")
    return video


def _check_control_flags(args) -> None:
    """Each ``--control`` field at most once (its value is checked with the scenario)."""
    keys = [k for k, _ in getattr(args, "control", None) or []]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise UsageError(f"--control {', '.join(twice)} given more than once; give each once")


def _check_push_flags(args) -> None:
    if args.push_velocity is None and args.push_at is None:
        return
    if args.push_velocity is None or args.push_at is None:
        raise UsageError("a push needs both --push-at T (seconds) and --push-velocity V (m/s)")
    _finite(args.push_velocity, "--push-velocity")
    _finite(args.push_at, "--push-at")
    if not 0 <= args.push_at < args.seconds:
        raise UsageError(
            f"--push-at must be a time within the run, in [0, {args.seconds:g}) s; "
            f"got {args.push_at:g}"
        )


def _walk_entry(args):
    """The walker to walk, from the catalog, with URDF-safe names."""
    cat = _catalog(args)
    entry = _resolved(args, cat, _walkers(cat, [args.walker]))[0]
    from .urdf import URDFNameError, check_names

    try:  # the physics body is a URDF: its names must be URDF names
        check_names(entry)
    except URDFNameError as exc:
        raise _in_catalog(args, exc) from None
    return entry


def _walk_scenario(args, entry, video):
    """The run's Scenario and its control-step count, checked."""
    from .body import compile_body
    from .scenario import resolve_body
    from .sim.controller import world_substeps
    from .sim.run import run_rates
    from .sim.video import VideoError, check_format

    body = compile_body(entry)
    given = args.control_hz is not None
    mode = resolve_body(entry, args.body, getattr(args, "engine", "pybullet"))  # the walker's
    # own rates on the run's servo clock
    _, args.control_hz, sim_hz = run_rates(body, mode, None, args.control_hz,
                                           getattr(args, "sim_hz", None))  # fmt: skip
    try:
        substeps = world_substeps(1.0 / sim_hz, args.control_hz)
    except ValueError as exc:
        flag = "--control-hz" if given else "the walker's own control rate"
        raise UsageError(f"{flag} {args.control_hz:g}: {exc}") from None
    n_steps = round(args.seconds / (substeps / sim_hz))  # simulate()'s step count
    if n_steps < 1:
        raise UsageError(
            f"--seconds must cover at least one control step ({substeps / sim_hz:g} s), "
            f"got {args.seconds!r}"
        )
    if video is not None:
        try:
            check_format(video)
        except VideoError as exc:
            raise UsageError(f"--video {video.name}: {exc}") from None
    return Scenario.from_cli(args, entry), n_steps


def _walk_run(args, scenario, n_steps, video):
    """Run the walk with a progress bar (and video frames); its RunSummary and recorder."""
    from tqdm import tqdm

    from .sim.video import VideoRecorder, frame_interval
    from .sim.world import DisplayError

    bar = tqdm(
        total=n_steps,
        desc=f"walk {scenario.entry.name}" + (" + video" if video else ""),
        unit="step",
        disable=args.quiet,
        file=sys.stderr,
        leave=False,
    )
    every = frame_interval(args.control_hz, VIDEO_FPS)
    state = {"steps": 0, "shown": 0, "recorder": None}

    def on_step(ctl) -> None:
        k = state["steps"]
        if video is not None:
            if state["recorder"] is None:
                fps = args.control_hz / every  # real-time playback
                state["recorder"] = VideoRecorder(ctl.world, ctl.robot, fps=fps)
            if k % every == 0:
                state["recorder"].capture()
        state["steps"] = k = k + 1
        if k % PROGRESS_EVERY == 0:
            bar.update(k - state["shown"])
            state["shown"] = k

    try:
        result = scenario.simulate(gui=args.gui, on_step=on_step)
    except DisplayError as exc:
        raise UsageError(
            f"--gui needs a display: {exc}. Drop --gui (--video FILE.gif records the run "
            "headless) or run under a virtual display: xvfb-run -a gaitsim walk ..."
        ) from None
    finally:
        bar.close()
    return result.figures, state["recorder"]


def _save_video(args, video, recorder) -> None:
    """Encode the recorded frames (checked, atomic) with a progress bar."""
    from tqdm import tqdm

    with tqdm(
        total=len(recorder),
        desc=f"encode {video.name}",
        unit="frame",
        disable=args.quiet,
        file=sys.stderr,
        leave=False,
    ) as enc:
        try:
            recorder.save(video, on_frame=enc.update)
        except (OSError, RuntimeError) as exc:
            raise UsageError(f"--video {video}: could not write the video: {exc}") from None
    if not args.quiet:
        print(f"wrote {len(recorder)} frames ({recorder.fps:g} fps) to {video}", file=sys.stderr)


# ---------------------------------------------------------------------------- parser


def cmd_sweep(args) -> int:
    from .sweep import MAX_SEEDS, SweepError, load_sweep, run_sweep

    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    if args.seeds is not None and not 1 <= args.seeds <= MAX_SEEDS:
        raise UsageError(f"--seeds must be from 1 to {MAX_SEEDS}, got {args.seeds}")
    if args.address and args.backend != "ray":
        raise UsageError("--address is for --backend ray; add --backend ray or drop it")
    _check_engine_flag(args)
    try:
        sweep = load_sweep(args.definition, catalog=_catalog(args) if args.catalog else None)
        if args.engine is not None:  # the flag wins over the definition's [base]
            sweep = dataclasses.replace(sweep, base={**sweep.base, "engine": args.engine})
        out = Path(args.out or f"sweeps/{sweep.name}")
        rows, failed = run_sweep(
            sweep,
            out,
            workers=args.workers,
            backend=args.backend,
            address=args.address,
            seeds=args.seeds,
            progress=not args.quiet,
            restart=args.restart,
        )
    except SweepError as exc:
        raise UsageError(str(exc)) from None
    if not args.no_plots and rows:
        from .plots import sweep_plots

        sweep_plots(rows, out / "plots", sweep.name, sweep.parameter)
    print(
        f"{len(rows)} episodes in {out / 'results.csv'}"
        + (f"; {len(failed)} cells failed (see {out / 'failed.json'})" if failed else "")
    )
    return 1 if failed else 0


def cmd_report(args) -> int:
    from .report import build_report

    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    if not (math.isfinite(args.seconds) and args.seconds > 0):
        raise UsageError(f"--seconds must be positive, got {args.seconds}")
    _check_engine_flag(args)
    cat = _catalog(args)  # errors name the catalog file before any work starts
    _resolved(args, cat, list(cat.values()))
    try:
        Path(args.out).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise write_error(args.out, exc) from exc
    report = build_report(
        args.out,
        catalog=args.catalog,
        seconds=args.seconds,
        workers=args.workers,
        full=args.full,
        progress=not args.quiet,
        engine=args.engine,
    )
    print(f"report written to {report.path}")
    if report.walk_test_failed:
        print(
            f"walk test failed for {', '.join(report.walk_test_failed)} (see the walk-test "
            "table and `gaitsim validate`); exit code 1"
        )
        return 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``gaitsim`` argument parser: one sub-command per ``cmd_*`` function."""
    parser = argparse.ArgumentParser(
        prog="gaitsim",
        description="Procedural walk cycles (Gaitkit catalogs) as kinematics, URDF and physics.",
    )
    parser.add_argument("--version", action="version", version=f"gaitsim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands = (  # name, help and description, what it runs, its own arguments
        ("catalog", "list the walkers in a catalog", cmd_catalog, _catalog_args),
        ("validate", "run the walk test (and its variants) on every walker", cmd_validate,
         _validate_args),
        ("clip", "bake one flat gait cycle of joint angles for other engines", cmd_clip,
         _clip_args),
        ("urdf", "write one URDF per walker", cmd_urdf, _urdf_args),
        ("walk", "walk one walker in physics (PyBullet or MuJoCo) and print its run summary "
         "and verdict (exit 1 unless it walked)", cmd_walk, _walk_args),
        ("sweep", "run a sweep (walkers x parameter x seeds) on a process pool or Ray",
         cmd_sweep, _sweep_args),
        ("report", "the main job: walk test, URDFs, physics runs, report folder", cmd_report,
         _report_args),
    )  # fmt: skip
    for name, help_, func, add_args in commands:
        add_args(_command(sub, name, help_, func))
    return parser


def _command(sub, name: str, help_: str, func) -> argparse.ArgumentParser:
    """A sub-command running ``func``, with the options every command has (--catalog, -q)."""
    p = sub.add_parser(name, help=help_, description=help_)
    p.set_defaults(func=func)
    p.add_argument("--catalog", metavar="FILE", help="catalog JSON (default: built-in)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or notes")
    return p


def _catalog_args(p) -> None:
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _validate_args(p) -> None:
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list instead of the table, one object per walker with the keys "
        "walker, mode, pass, foot_slide_mm and max_shortfall_m (each per variant) and limit_mm",
    )
    p.add_argument(
        "--write",
        action="store_true",
        help="store walk_test.foot_slide_mm (straight, flat) in --catalog FILE atomically",
    )
    p.add_argument("--speed-scale", type=float, default=1.0, help="stride scale (default 1)")
    p.add_argument(
        "--mode",
        choices=["planted", "body"],
        default="planted",
        help="planted: stance feet fixed in the world (default); body: the seed's body-frame "
        "targets, which slide on tight turns",
    )


def _clip_args(p) -> None:
    p.add_argument("walker", help="walker name in the catalog")
    p.add_argument("--out", required=True, metavar="FILE", help="output .csv, .json or .npz")
    p.add_argument("--samples", type=int, default=120, help="samples per cycle (default 120)")
    p.add_argument("--speed-scale", type=float, default=1.0, help="stride scale (default 1)")


def _urdf_args(p) -> None:
    p.add_argument(
        "--out",
        default=URDF_DEFAULT_OUT,
        metavar="DIR",
        help=f"output folder (default {URDF_DEFAULT_OUT}; the repository's tracked urdf/ "
        "folder is regenerated only on request: --out urdf)",
    )


def _walk_args(p) -> None:
    p.add_argument("walker", help="walker name in the catalog (see `gaitsim catalog`)")
    _scenario_args(p)
    p.add_argument("--gui", action="store_true", help="show the PyBullet window (needs a display)")
    p.add_argument(
        "--video",
        metavar="FILE",
        help='record a headless .gif, or .mp4 (needs pip install "gaitsim[video]")',
    )
    p.add_argument("--json", action="store_true", help="print every summary metric as JSON")


def _control_pair(text: str) -> tuple[str, Any]:
    """One ``--control FIELD=VALUE``: the field's name and its value, read as JSON (true,
    false, null, numbers; True / False / None too), else kept as the word given."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip() or not raw.strip():
        raise argparse.ArgumentTypeError(
            f"takes FIELD=VALUE, a ControlConfig field and its value (e.g. "
            f"roll_follow_planted=true or kp=0.1), got {text!r}"
        )
    raw = raw.strip()
    words = {"true": True, "false": False, "null": None, "none": None}
    if raw.lower() in words:
        return key.strip(), words[raw.lower()]
    try:
        return key.strip(), json.loads(raw)
    except json.JSONDecodeError:
        return key.strip(), raw  # a word: hip_facing=measured


def _scenario_args(p) -> None:
    """The flags a run's Scenario is made from (``Scenario.from_cli`` reads them)."""
    _terrain_args(p)
    p.add_argument(
        "--speed-scale", type=float, default=1.0, metavar="S", help="stride scale (default 1)"
    )
    p.add_argument(
        "--turn-radius",
        type=float,
        metavar="R",
        help="walk an arc of R metres (positive turns left; 0 turns in place)",
    )
    p.add_argument(
        "--yaw-rate-deg",
        type=float,
        metavar="W",
        help="turn at W degrees per second (instead of --turn-radius)",
    )
    p.add_argument(
        "--seconds", type=float, default=20.0, metavar="T", help="simulated seconds (default 20)"
    )
    _body_args(p)
    _upper_args(p)
    p.add_argument(
        "--control-hz",
        type=float,
        default=None,
        metavar="HZ",
        help=f"control rate; must divide the physics rate ({SIM_HZ:g} Hz, or a multiple of "
        "it for a walker whose bare feet ring faster on their pads or, free on soles, whose "
        "servo clock runs faster); default: the walker's own, 60 Hz or, for a walker small "
        "enough to fall faster, a doubling of it",
    )
    p.add_argument(
        "--control",
        type=_control_pair,
        action="append",
        metavar="FIELD=VALUE",
        help="set a controller setting, a gaitsim.sim.controller.ControlConfig field "
        "(repeatable): e.g. --control roll_follow_planted=true, --control slow_walk=false, "
        "--control kp=0.1 (docs/architecture.md, 'Controller settings')",
    )
    p.add_argument(
        "--friction",
        type=float,
        default=1.0,
        metavar="MU",
        help="foot-ground friction coefficient (default 1)",
    )
    p.add_argument(
        "--episode-seed",
        type=int,
        metavar="N",
        help="draw the start point in the gait cycle and the friction (x U(0.9, 1.1)) from "
        "seed N, as a sweep's seed N does (default: start at 0 with --friction)",
    )
    p.add_argument(
        "--push-at",
        type=float,
        metavar="T",
        help="push the body sideways at T seconds (with --push-velocity)",
    )
    p.add_argument(
        "--push-velocity",
        type=float,
        metavar="V",
        help="the push: a sideways velocity change of V m/s, positive to the walker's left "
        "(an impulse of mass x V through the centre of mass)",
    )
    _engine_arg(p)


def _engine_arg(p, default: str | None = "pybullet", what: str = " (default pybullet)") -> None:
    p.add_argument(
        "--engine",
        choices=["pybullet", "mujoco"],
        default=default,
        help="physics engine: pybullet or mujoco (pip install 'gaitsim[mujoco]'); the same "
        "controller and metrics on either" + what,
    )


def _check_engine_flag(args) -> None:
    """--engine names an engine whose package is installed (else a usage error)."""
    from .sim.engine import EngineError, check_engine

    if getattr(args, "engine", None) is None:
        return
    try:
        check_engine(args.engine)
    except EngineError as exc:
        raise UsageError(f"--engine {args.engine}: {exc}") from None


def _terrain_args(p) -> None:
    """--terrain and the flags of each terrain kind."""
    p.add_argument(
        "--terrain",
        choices=["flat", "slope", "rough"],
        default="flat",
        help="ground (default flat)",
    )
    p.add_argument(
        "--slope-deg",
        type=float,
        metavar="D",
        help=f"slope angle, degrees (--terrain slope; default {WALK_DEFAULT_SLOPE_DEG:g})",
    )
    p.add_argument(
        "--uphill-heading-deg",
        type=float,
        metavar="H",
        help="direction the slope rises toward, degrees from +x (default 0: straight uphill)",
    )
    p.add_argument(
        "--roughness",
        type=float,
        metavar="M",
        help=f"peak bump height, metres (--terrain rough; default {WALK_DEFAULT_ROUGHNESS_M:g})",
    )
    p.add_argument(
        "--roughness-wavelength",
        type=float,
        metavar="W",
        help="typical bump spacing, metres (--terrain rough; default 0.5)",
    )
    p.add_argument(
        "--seed", type=int, metavar="N", help="rough terrain seed (--terrain rough; default 0)"
    )


def _body_args(p) -> None:
    """--body, --swing and --distance-source: how the body and the gait are driven."""
    p.add_argument(
        "--body",
        choices=["auto", "free", "assist", "kinematic"],
        default="auto",
        help="auto (default): free for walkers with four or more legs and no flight phase "
        "and, on pybullet, for bipeds on soles without flight phases that step at most "
        "0.7 pendulum periods a cycle (the built-in mechanic and raptor); "
        "assist for other two- or three-legged walkers, gaits with flight phases "
        "(duty < 0.5, or every foot up together for over 1%% of the cycle: hops, pronks) and "
        "point-footed gaits that stand on a line long enough for a drift to grow over "
        "15-fold (slow trots "
        "with little four-foot phase; the walk table's line drift growth) and point-footed "
        "bodies standing over 6 times as tall as half their track (the walk table's height / "
        "half track); free: plain physics; "
        "assist: a reported virtual spring-damper holds height, roll and pitch; kinematic: "
        "the body follows its reference path, only the legs are simulated",
    )
    p.add_argument(
        "--swing",
        choices=["sine", "clearance"],
        default="sine",
        help="swing arc: sine (default, the catalog's arc) or clearance (full lift held "
        "through the middle of the swing, with a minimum height that grows at slow step "
        "rates)",
    )
    p.add_argument(
        "--distance-source",
        choices=["command", "odometry"],
        default="command",
        help="what drives the gait: the commanded speed (default) or the body's measured progress",
    )


def _upper_args(p) -> None:
    """--arms, --twist, --gaze and --lean: the upper body's modes and the slope lean."""
    g = p.add_argument_group(
        "upper body",
        "how a walker's torso, arms and head move, for walkers whose catalog entry has an "
        "upper_body block (built in: mechanic has a torso, arms and a head; fox and hound a "
        "head). A walker without the part ignores its option: --arms needs arms, --twist a "
        "torso, --gaze a head; --lean applies to every walker",
    )
    g.add_argument(
        "--arms",
        choices=ARM_MODES,
        default="swing",
        help="swing (default): each arm swings against its own side's legs; held: the arms "
        "hold still, elbows half bent; anti: each arm swings with its own side's legs",
    )
    g.add_argument(
        "--twist",
        choices=tuple(TWIST_WORDS),
        default="on",
        help="on (default): the hips twist with the stride and the chest (shoulders) "
        "turns the other way at the waist; off: no twist",
    )
    g.add_argument(
        "--gaze",
        choices=GAZE_MODES,
        default="stabilised",
        help="stabilised (default): the neck cancels most of the body's bob, keeps the "
        "head level and turns it along the path ahead; fixed: the neck holds still",
    )
    g.add_argument(
        "--lean",
        action="store_true",
        help="on a slope, lean the body from upright (forward by half a downhill slope, "
        "back by a quarter of an uphill one) and step faster the further it leans "
        "forward (the second seed's lean); default: no lean (a biped holds its trunk "
        "level, other walkers tilt with the ground). On flat ground it changes nothing",
    )


def _sweep_args(p) -> None:
    p.add_argument(
        "definition",
        help="sweep TOML file, or a built-in sweep: speed, slope, turn, rough, push",
    )
    p.add_argument("--out", metavar="DIR", help="results folder (default sweeps/<name>)")
    p.add_argument("--workers", type=int, default=2, help="local worker processes (default 2)")
    p.add_argument("--backend", choices=["local", "ray"], default="local", help="default local")
    p.add_argument("--address", metavar="ADDR", help="Ray cluster address (default: start one)")
    p.add_argument("--seeds", type=int, help="seeds per cell (default: the definition's)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    _engine_arg(p, None, " (default: the definition's [base] engine, else pybullet)")
    p.add_argument(
        "--restart",
        action="store_true",
        help="clear the --out folder's earlier cells and results and start over (needed to "
        "reuse a folder for a changed definition or catalog)",
    )


def _report_args(p) -> None:
    p.add_argument("--out", default="report", metavar="DIR", help="report folder (default report)")
    p.add_argument(
        "--seconds", type=float, default=20.0, help="simulated s per run (default 20, as in README)"
    )
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--full", action="store_true", help="also run the full sweeps (long)")
    _engine_arg(p)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except GaitsimError as exc:
        # only gaitsim's own errors (bad input, an unwritable path): anything else is a bug
        # and keeps its traceback
        print(f"gaitsim {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
