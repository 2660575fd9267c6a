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
    body = "auto"                      # free for multi-legged walkers, assist for bipeds

Running one writes ``cells/<cell>.json`` atomically as each cell finishes, so a rerun
skips finished cells and a worker that dies loses only the cell it was running (which is
retried); ``results.csv`` holds one row per episode. Backends: a local process pool, or
Ray (``pip install "gaitsim[ray]"``).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .catalog import atomic_write_text, load_catalog

PARAMETERS = {
    "speed_scale": "stride scale (x clip speed)",
    "slope_deg": "slope angle in degrees (uphill along the path; negative is downhill)",
    "turn": "'straight', 'in_place', or a turn radius in metres",
    "roughness": "peak height of rough ground in metres (0 is flat)",
    "friction": "foot-ground friction coefficient",
}
METRICS = (
    "distance_m",
    "speed_ratio",
    "slip_mm_per_stance",
    "slip_mm_per_m",
    "max_shortfall_m",
    "min_support_margin_m",
    "fell",
    "time_to_fall_s",
    "cost_of_transport",
    "contact_timing_error",
    "heading_error_deg",
)
MAX_ATTEMPTS = 3


class SweepError(ValueError):
    """A sweep definition is malformed; the message names the field and the fix."""


@dataclass(frozen=True)
class Sweep:
    name: str
    parameter: str
    values: tuple
    walkers: tuple[str, ...]
    seeds: int = 3
    seconds: float = 10.0
    description: str = ""
    base: dict = field(default_factory=dict, hash=False, compare=False)


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
    """A sweep from a TOML file, or the name of a built-in one (speed, slope, turn, rough)."""
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
        data = tomllib.loads(path.read_text("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(f"{path}: invalid TOML: {exc}") from None
    return parse_sweep(data, label=str(path), catalog=catalog)


def parse_sweep(data: dict, *, label: str = "sweep", catalog=None) -> Sweep:
    def need(key, kind, what):
        if key not in data:
            raise SweepError(f"{label}: '{key}' is missing; add {what}")
        if not isinstance(data[key], kind):
            raise SweepError(f"{label}: '{key}' must be {what}, got {data[key]!r}")
        return data[key]

    name = need("name", str, "a name string")
    parameter = need("parameter", str, f"one of {', '.join(PARAMETERS)}")
    if parameter not in PARAMETERS:
        raise SweepError(
            f"{label}: parameter {parameter!r} is not sweepable; use one of {', '.join(PARAMETERS)}"
        )
    values = need("values", list, "a non-empty list of values")
    if not values:
        raise SweepError(f"{label}: 'values' is empty; list at least one value")
    for v in values:
        _check_value(parameter, v, label)
    cat = catalog if catalog is not None else load_catalog()
    walkers = data.get("walkers", "all")
    if walkers == "all":
        walkers = list(cat)
    if not isinstance(walkers, list) or not all(isinstance(w, str) for w in walkers):
        raise SweepError(f"{label}: 'walkers' must be \"all\" or a list of names")
    unknown = [w for w in walkers if w not in cat]
    if unknown:
        raise SweepError(f"{label}: unknown walkers {unknown}; choose from {', '.join(cat)}")
    seeds = data.get("seeds", 3)
    if not isinstance(seeds, int) or isinstance(seeds, bool) or seeds < 1:
        raise SweepError(f"{label}: 'seeds' must be a whole number >= 1, got {seeds!r}")
    seconds = data.get("seconds", 10.0)
    if not isinstance(seconds, (int, float)) or not (math.isfinite(seconds) and seconds > 0):
        raise SweepError(f"{label}: 'seconds' must be a positive number, got {seconds!r}")
    base = data.get("base", {})
    if not isinstance(base, dict):
        raise SweepError(f"{label}: [base] must be a table of simulate() settings")
    return Sweep(
        name,
        parameter,
        tuple(values),
        tuple(walkers),
        seeds,
        float(seconds),
        str(data.get("description", "")),
        dict(base),
    )


def _check_value(parameter: str, v, label: str) -> None:
    if parameter == "turn":
        if v in ("straight", "in_place") or (
            isinstance(v, (int, float)) and not isinstance(v, bool) and v != 0
        ):
            return
        raise SweepError(f"{label}: turn values are 'straight', 'in_place' or a radius, got {v!r}")
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise SweepError(f"{label}: {parameter} values must be finite numbers, got {v!r}")
    if parameter in ("speed_scale", "friction") and v <= 0:
        raise SweepError(f"{label}: {parameter} values must be > 0, got {v!r}")
    if parameter == "roughness" and v < 0:
        raise SweepError(f"{label}: roughness values must be >= 0 metres, got {v!r}")
    if parameter == "slope_deg" and abs(v) >= 80:
        raise SweepError(f"{label}: slope_deg values must be within +/-80, got {v!r}")


def cells(sweep: Sweep, seeds: int | None = None) -> list[Cell]:
    n = sweep.seeds if seeds is None else seeds
    return [Cell(w, v, s) for w in sweep.walkers for v in sweep.values for s in range(n)]


# ---------------------------------------------------------------------------- one cell


def simulate_kwargs(sweep: Sweep, cell: Cell) -> dict:
    """The simulate() arguments of one cell."""
    from .terrain import Rough, Slope

    base = dict(sweep.base)
    kw: dict = {"seconds": sweep.seconds, "seed": cell.seed}
    body = base.pop("body", "auto")
    n_legs = load_catalog()[cell.walker].gait.n_legs if body == "auto" else None
    body = ("assist" if n_legs == 2 else "free") if body == "auto" else body
    source = base.pop("distance_source", "command")
    kw["config_kwargs"] = {"body": body, "distance_source": source}
    kw.update(base)
    p, v = sweep.parameter, cell.value
    if p == "speed_scale":
        kw["speed_scale"] = float(v)
    elif p == "slope_deg":
        kw["terrain"] = Slope.from_degrees(float(v))
    elif p == "turn":
        kw["turn_radius"] = None if v == "straight" else 0.0 if v == "in_place" else float(v)
    elif p == "roughness":
        if v > 0:
            kw["terrain"] = Rough(float(v), seed=cell.seed, flat_radius=0.3)
    elif p == "friction":
        kw["friction"] = float(v)
    return kw


def run_cell(sweep: Sweep, cell: Cell) -> dict:
    """Run one episode and return its results row."""
    from .sim.controller import ControlConfig
    from .sim.run import simulate

    kw = simulate_kwargs(sweep, cell)
    config = ControlConfig(**kw.pop("config_kwargs"))
    summary = simulate(cell.walker, config=config, **kw).summary
    row = {
        "sweep": sweep.name,
        "walker": cell.walker,
        "parameter": sweep.parameter,
        "value": cell.value,
        "seed": cell.seed,
        "body": config.body,
        "seconds": sweep.seconds,
    }
    row.update({m: summary.get(m) for m in METRICS})
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


def finished(out: Path, sweep: Sweep, todo: Iterable[Cell]) -> set[str]:
    return {c.key(sweep) for c in todo if _cell_path(out, sweep, c).exists()}


# ---------------------------------------------------------------------------- runners


def _cell_process(sweep: Sweep, cell: Cell, out: str, attempt: int) -> None:
    try:
        run_and_store(sweep, cell, out, attempt)
    except BaseException as exc:  # the cell itself failed: say why, exit non-zero
        err = Path(out) / "cells" / f"{cell.key(sweep)}.error"
        atomic_write_text(err, f"{type(exc).__name__}: {exc}\n")
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
    running: dict = {}  # sentinel -> (process, cell)
    while queue or running:
        while queue and len(running) < max(1, workers):
            c = queue.pop(0)
            attempts[c.key(sweep)] = attempts.get(c.key(sweep), 0) + 1
            args = (sweep, c, str(out), attempts[c.key(sweep)])
            proc = ctx.Process(target=_cell_process, args=args, daemon=True)
            proc.start()
            running[proc.sentinel] = (proc, c)
        for sentinel in wait_any(list(running)):
            proc, c = running.pop(sentinel)
            proc.join()
            key = c.key(sweep)
            if proc.exitcode == 0 and _cell_path(out, sweep, c).exists():
                if on_done:
                    on_done(key)
                continue
            err = out / "cells" / f"{key}.error"
            if err.exists():  # the cell raised: a bug or bad input, not a lost worker
                failed[key] = err.read_text().strip()
                err.unlink()
            elif attempts[key] < MAX_ATTEMPTS:
                queue.append(c)  # the worker died mid-cell: run it again
            else:
                failed[key] = f"worker died on all {MAX_ATTEMPTS} attempts (exit {proc.exitcode})"
    return failed


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
            rows.append(json.loads(p.read_text()))
    return rows


def write_csv(rows: list[dict], path: Path) -> None:
    cols = ["sweep", "walker", "parameter", "value", "seed", "body", "seconds", *METRICS]
    cols.append("attempt")
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in cols})
    atomic_write_text(path, buf.getvalue())


def run_sweep(
    sweep: Sweep,
    out: str | os.PathLike,
    *,
    workers: int = 2,
    backend: str = "local",
    address: str | None = None,
    seeds: int | None = None,
    progress: bool = True,
) -> tuple[list[dict], dict[str, str]]:
    """Run (or resume) a sweep into ``out``; returns the rows and the cells given up."""
    from tqdm import tqdm

    out = Path(out)
    (out / "cells").mkdir(parents=True, exist_ok=True)
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
    return rows, failed


def summary_table(rows: list[dict], metric: str = "slip_mm_per_stance") -> str:
    """Markdown: walkers x swept values; each cell 'falls/episodes, mean metric'."""
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
            ms = [float(r[metric]) for r in rs if r.get(metric) not in (None, "")]
            mean = f"{sum(ms) / len(ms):.1f}" if ms else "n/a"
            cells_.append(f"{falls}/{len(rs)}, {mean}")
        lines.append(f"| {w} | " + " | ".join(cells_) + " |")
    return "\n".join(lines)
