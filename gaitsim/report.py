"""The main job: validate the catalog, build the URDFs, walk every walker in physics, and
write a report folder (markdown summary, gait diagrams, plots).

``gaitsim report`` runs a small version in a few minutes on two cores; ``--full`` adds the
full sweeps (speed, slope, turn, roughness) with their plots.
"""

from __future__ import annotations

import json
import math
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import NamedTuple

from .catalog import atomic_write_text, gait_pattern, load_catalog

# each condition: Scenario.make keywords (rough ground of seed ROUGH_SEED)
CONDITIONS = {
    "flat": {},
    "slope +10 deg": {"slope_deg": 10.0},
    "slope -10 deg": {"slope_deg": -10.0},
    "rough +/-2 cm": {"roughness": 0.02},
    "turn r = 1 m": {"turn_radius": 1.0},
}
SECONDS = 20.0  # simulated seconds per cell, as in the README's walking table
ROUGH_SEED = 1  # the rough condition's ground
ENGINE_NAMES = {"pybullet": "PyBullet", "mujoco": "MuJoCo"}


class Report(NamedTuple):
    """What ``build_report`` wrote: the report's path, and the walkers that failed the walk
    test."""

    path: Path
    walk_test_failed: list


def condition_scenario(entry, cond: str, seconds: float, **settings):
    """The Scenario of ``entry`` on condition ``cond`` (a CONDITIONS key) for ``seconds``,
    with the default body (``sim.run.default_body``) unless ``settings`` say."""
    from .scenario import Scenario

    return Scenario.make(
        entry, seconds=seconds, rough_seed=ROUGH_SEED, **CONDITIONS[cond], **settings
    )


def _run_condition(args):
    """Worker: one walker on one condition; its body, RunSummary and the first cycles'
    contacts."""
    walker, cond, seconds, catalog_path, engine = args
    entry = load_catalog(catalog_path)[walker]
    scenario = condition_scenario(entry, cond, seconds, engine=engine)
    r = scenario.simulate()
    rec = r.record
    cycles = 2 * entry.gait.cycle / entry.gait.clip_speed
    n = min(len(rec["t"]), math.ceil(cycles / r.dt) + 1)
    trace = {
        "t": rec["t"][:n].tolist(),
        "planned": rec["planned_stance"][:n].tolist(),
        "measured": rec["contacts"][:n].tolist(),
    }
    return walker, cond, scenario.body, r.figures, trace


def _fmt(v, spec=".2f"):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a"
    return format(v, spec)


def build_report(
    out: str | Path = "report",
    *,
    catalog: str | None = None,
    seconds: float = SECONDS,
    workers: int = 2,
    full: bool = False,
    progress: bool = True,
    engine: str = "pybullet",
) -> Report:
    """Write the report folder; returns the path of its ``report.md`` and the walkers that
    failed the walk test (the CLI exits 1 when there are any). ``engine``: the physics
    engine of the walking section (the sweeps of ``full`` run as their definitions say)."""
    t0 = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cat = load_catalog(catalog)
    lines = ["# gaitsim report", ""]
    walk_test, failed = _walk_test_section(cat, progress)
    lines += walk_test
    from .urdf import write_catalog

    urdfs = write_catalog(cat, out / "urdf")
    lines += ["", "## URDF bodies", "", f"{len(urdfs)} files in `urdf/`.", ""]
    lines += _physics_section(cat, catalog, seconds, workers, progress, out, engine)
    if full:
        lines += _sweeps_section(out, workers, progress)
    wall = time.perf_counter() - t0
    lines += ["", f"Built in {wall:.0f} s with {workers} worker processes."]
    report = out / "report.md"
    atomic_write_text(report, "\n".join(lines) + "\n")
    return Report(report, failed)


def _walk_test_section(cat, progress: bool) -> tuple[list[str], list[str]]:
    """The walk-test table and the walkers that failed it."""
    from tqdm import tqdm

    from .validate import VARIANTS, validate_entry

    results = [validate_entry(e) for e in tqdm(cat.values(), "walk test", disable=not progress)]
    names = [v.name for v in VARIANTS]
    lines = [
        "## Walk test (kinematic)",
        "",
        "Largest stance-foot movement between samples, mm (2 cycles, 120 samples per cycle; "
        "planted mode; limit 1 mm), and the largest reach shortfall over every variant.",
        "",
        "| walker | legs | pattern | " + " | ".join(names) + " | max shortfall mm | result |",
        "| --- " * (len(names) + 5) + "|",
    ]
    failed = []
    for e, r in zip(cat.values(), results, strict=True):
        slides = " | ".join(f"{r['foot_slide_mm'][n]:.4f}" for n in names)
        short = 1000 * max(r["max_shortfall_m"].values())
        ok = "ok" if r["pass"] else "FAIL"
        if not r["pass"]:
            failed.append(e.name)
        lines.append(
            f"| {e.name} | {e.gait.n_legs} | {gait_pattern(e.gait)} | {slides} | "
            f"{short:.2f} | {ok} |"
        )
    return lines, failed


def _physics_section(cat, catalog, seconds, workers, progress, out: Path,
                     engine: str = "pybullet") -> list[str]:  # fmt: skip
    """Every walker on every ground: the verdict table, gait fidelity, gait diagrams;
    writes physics.json and the diagrams."""
    from tqdm import tqdm

    from .plots import gait_diagram

    jobs = [(w, c, seconds, catalog, engine) for w in cat for c in CONDITIONS]
    table: dict = {}
    traces: dict = {}
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_run_condition, j) for j in jobs]
        for f in tqdm(as_completed(futures), "physics", len(futures), disable=not progress):
            walker, cond, body, summary, trace = f.result()
            table[(walker, cond)] = (body, summary)
            if cond == "flat":
                traces[walker] = trace
    lines = [
        f"## Walking in {ENGINE_NAMES[engine]}",
        "",
        f"{seconds:g} simulated seconds per cell at 240 Hz physics and 60 Hz control; cell: "
        "the verdict (`walked` only when the walker did not fall, kept its speed ratio in "
        "[0.8, 1.2], its mean heading error at most 15 deg, its reach shortfall at most 10 mm "
        "and, with the body assist, the assist under 30 % of its weight; otherwise the first "
        "failing reason), speed ratio, mean stance slip (mm), max reach shortfall (mm). "
        "Each walker runs on its default body (the cell says which): bipeds on soles that "
        "step briskly and have no flight phase walk free on PyBullet, other two- and "
        "three-legged walkers and gaits with flight phases (duty < 0.5, or every foot up "
        "together, as in a hop) with the body assist.",
        "",
        "| walker (body) | " + " | ".join(CONDITIONS) + " |",
        "| --- " * (len(CONDITIONS) + 1) + "|",
    ]
    for w in cat:
        cells = [_cell(table[(w, c)][1]) for c in CONDITIONS]
        lines.append(f"| {w} ({table[(w, 'flat')][0]}) | " + " | ".join(cells) + " |")
    lines += _fidelity_table(cat, table)
    lines += ["", "## Gait diagrams (flat ground, first two cycles)", ""]
    for w, tr in traces.items():
        legs = list(cat[w].gait.leg_names)
        png = out / "plots" / f"gait_{w}.png"
        p = gait_diagram(legs, tr["t"], tr["planned"], tr["measured"], png, w)
        lines.append(f"![{w}](plots/{p.name})")
    rows = [
        {"walker": w, "condition": c, "body": b, **s.to_dict()} for (w, c), (b, s) in table.items()
    ]
    atomic_write_text(
        out / "physics.json", json.dumps(rows, indent=1, default=lambda x: None) + "\n"
    )
    return lines


def _cell(s) -> str:
    """One physics cell (a RunSummary): the verdict (and its reason unless walked), speed
    ratio, slip, shortfall."""
    outcome = "walked" if s.walked else f"**{s.verdict}**: {s.verdict_reason}"
    return (
        f"{outcome}, {_fmt(s.speed_ratio)}, {_fmt(s.slip_mm_per_stance, '.1f')}, "
        f"{_fmt(s.max_shortfall_m * 1000, '.0f')}"
    )


def _sweeps_section(out: Path, workers: int, progress: bool) -> list[str]:
    """The built-in sweeps with their summary tables and plots."""
    from .plots import sweep_plots
    from .sweep import builtin_sweeps, load_sweep, run_sweep, summary_table

    lines = ["", "## Sweeps", ""]
    for name in sorted(builtin_sweeps()):
        sw = load_sweep(name)
        rows, failed_cells = run_sweep(
            sw, out / "sweeps" / name, workers=workers, progress=progress
        )
        pngs = sweep_plots(rows, out / "plots", sw.name, sw.parameter)
        lines.append(f"### {name}: {sw.description}")
        lines.append("")
        lines.append(
            f"{len(rows)} episodes in `sweeps/{name}/results.csv`; {len(failed_cells)} cells "
            "failed. Cell: walked / episodes (falls), mean stance slip (mm). In the plots the "
            "line is the mean over seeds and the band the min-max over seeds."
        )
        lines += ["", summary_table(rows), ""]
        lines += [f"![{p.stem}](plots/{p.name})" for p in pngs]
        lines.append("")
    return lines


def _fidelity_table(cat, table) -> list[str]:
    """How faithfully each walker's physics walks its catalog gait on flat ground."""
    lines = [
        "",
        "### Gait fidelity on flat ground",
        "",
        "Measured over whole gait cycles after the first: each leg's contact share beside the "
        "catalog's duty, contact onsets per planned stance (1.00 is one clean touchdown a "
        "stance) and the share of leg-steps whose contact disagrees with the plan.",
        "",
        "| walker | catalog duty | measured duty by leg | touchdowns per stance "
        "| contact timing error |",
        "| --- | --- | --- | --- | --- |",
    ]
    for w, e in cat.items():
        _, s = table[(w, "flat")]
        duty = " ".join(_fmt(d) for d in s.duty_by_leg)
        lines.append(
            f"| {w} | {e.gait.duty:.2f} | {duty} | {_fmt(s.touchdowns_per_stance)} | "
            f"{_fmt(s.contact_timing_error, '.3f')} |"
        )
    return lines
