"""The built-in walkers at other sizes: each scaled by k in every length and walked at
sqrt(k) of its speed (``gaitsim.generate.scaled_entry``: the same gait at the same Froude
number, so the same motion on a clock sqrt(k) as fast), 10 s on flat ground with its
default body (``--body free``: free, the bipeds without their assist), at its own control
rates and servo clock (``sim.run.run_rates``: a free walker on soles smaller than the
built-in bipeds runs on a clock above 1), held to 60 Hz control, and (where its clock is
above 1) on the tuned gains (servo clock 1, at the rates for it).

Run: python experiments/scaled_walkers.py [--walkers fox,hound] [--scales 0.05,0.1]
[--body default|free] [--starts N] [--workers 2] [--json FILE]

Prints a markdown table: per walker, scale and start point (``--starts N``: episode seeds
None, 1, ..., N - 1), the standing height, the fall time's control steps at 60 Hz, the
walker's own control and physics rates and servo clock, and the verdict (and touchdowns
per stance) at its own rates, at 60 Hz and on the tuned clock; then how many runs walked
in each.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from cli_args import subset

WALKERS = ("fox", "hound", "horn_beetle", "spider_bot", "mechanic", "raptor")
SCALES = (0.05, 0.1, 0.2, 0.3, 0.5)
SECONDS = 10.0


def scales(text: str) -> tuple[float, ...]:
    """An argparse ``type``: comma-separated positive scale factors."""
    try:
        out = tuple(float(s) for s in text.split(",") if s.strip())
    except ValueError:
        out = ()
    if not out or not all(math.isfinite(k) and k > 0 for k in out):
        raise argparse.ArgumentTypeError(f"expected positive numbers like 0.1,0.5; got {text!r}")
    return out


def run_cell(cell) -> dict:
    """One walker at one scale, at its own control rate and at 60 Hz."""
    from gaitsim.body import compile_body
    from gaitsim.generate import scaled_entry
    from gaitsim.geometry import fall_time
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import default_body, run_rates, simulate
    from gaitsim.walker import resolve_entry

    name, k, body_mode, seed = cell
    entry = scaled_entry(resolve_entry(name), k)
    body = compile_body(entry)
    mode = default_body(entry) if body_mode == "default" else body_mode
    clock, control_hz, sim_hz = run_rates(body, mode)  # the run's own
    out = {"walker": name, "scale": k, "body": mode, "seed": seed,
           "standing_height_m": body.geometry.standing_height,
           "steps_per_fall_time_at_60": 60.0 * fall_time(body.geometry),
           "control_hz": control_hz, "sim_hz": sim_hz, "servo_clock": clock,
           "tuned": None}  # fmt: skip
    variants = [("own", {}), ("60", {"control_hz": 60.0})]
    if clock != 1.0:
        variants.append(("tuned", {"servo_clock": 1.0}))
    for label, kw in variants:
        s = simulate(entry, seconds=SECONDS, seed=seed, config=ControlConfig(body=mode, **kw))
        out[label] = {key: s.summary[key] for key in
                      ("verdict", "verdict_reason", "speed_ratio", "touchdowns_per_stance")}
    return out


def table(rows: list[dict]) -> str:
    """The markdown table of ``rows`` (``run_cell``'s dicts)."""
    def cell(r):
        if r is None:
            return "-"
        td = r["touchdowns_per_stance"]
        return f"{r['verdict']} ({'n/a' if td is None else f'{td:.2f}'})"

    lines = ["| walker (body) | scale | start | stands (m) | steps per fall time at 60 Hz | "
             "own control / physics Hz, servo clock | own rates: verdict (touchdowns / "
             "stance) | 60 Hz | servo clock 1 |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]  # fmt: skip
    for r in rows:
        start = "default" if r["seed"] is None else r["seed"]
        lines.append(f"| {r['walker']} ({r['body']}) | {r['scale']:g} | {start} | "
                     f"{r['standing_height_m']:.3f} | {r['steps_per_fall_time_at_60']:.2f} | "
                     f"{r['control_hz']:g} / {r['sim_hz']:g}, {r['servo_clock']:.2f} | "
                     f"{cell(r['own'])} | {cell(r['60'])} | {cell(r['tuned'])} |")  # fmt: skip
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--walkers", type=subset(WALKERS, "walker"), default=WALKERS,
                    help=f"comma-separated subset of {','.join(WALKERS)}")
    ap.add_argument("--scales", type=scales, default=SCALES,
                    help="comma-separated scale factors (default "
                         f"{','.join(f'{k:g}' for k in SCALES)})")
    ap.add_argument("--body", choices=("default", "free", "assist"), default="default",
                    help="default: each walker's own (sim.run.default_body; the built-in "
                    "bipeds free since stop 49, assisted before); free: no assist; assist: "
                    "every walker assisted")  # fmt: skip
    ap.add_argument("--starts", type=int, default=1, metavar="N",
                    help="run each from N start points (episode seeds None, 1, ..., N - 1)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--json", metavar="FILE", help="also write every run's figures here")
    args = ap.parse_args(argv)
    if args.workers < 1:
        ap.error("--workers must be at least 1")
    if args.starts < 1:
        ap.error("--starts must be at least 1")
    from tqdm import tqdm

    t0 = time.time()
    seeds = [None, *range(1, args.starts)]
    cells = [(w, k, args.body, s) for w in args.walkers for k in args.scales for s in seeds]
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(tqdm(pool.map(run_cell, cells), total=len(cells), desc="runs",
                         file=sys.stderr))  # fmt: skip
    print(table(rows))
    own = sum(r["own"]["verdict"] == "walked" for r in rows)
    at60 = sum(r["60"]["verdict"] == "walked" for r in rows)
    clocked = [r for r in rows if r["tuned"] is not None]
    tuned = sum(r["tuned"]["verdict"] == "walked" for r in clocked)
    on_clock = sum(r["own"]["verdict"] == "walked" for r in clocked)
    print(f"\nwalked: {own} of {len(rows)} at their own rates, {at60} at 60 Hz; of the "
          f"{len(clocked)} on a servo clock above 1, {on_clock} on it and {tuned} on the "
          f"tuned one (1); wall time {time.time() - t0:.0f} s with "
          f"{args.workers} workers")
    if args.json:
        from gaitsim.catalog import atomic_write_text

        atomic_write_text(args.json, json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
