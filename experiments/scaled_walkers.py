"""The built-in walkers at other sizes: each scaled by k in every length and walked at
sqrt(k) of its speed (``gaitsim.generate.scaled_entry``: the same gait at the same Froude
number, so the same motion on a clock sqrt(k) as fast), 10 s on flat ground with its
default body, at its own control rate (``Body.control_hz``) and held to 60 Hz.

Run: python experiments/scaled_walkers.py [--walkers fox,hound] [--scales 0.05,0.1]
[--workers 2] [--json FILE]

Prints a markdown table: per walker and scale, the standing height, the fall time's
control steps at 60 Hz, the walker's own control and physics rates, and the verdict (and
touchdowns per stance) at its own rate and at 60 Hz; then how many runs walked at each.
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
    from gaitsim.sim.run import default_body, simulate
    from gaitsim.walker import resolve_entry

    name, k = cell
    entry = scaled_entry(resolve_entry(name), k)
    body = compile_body(entry)
    mode = default_body(entry)
    out = {"walker": name, "scale": k, "body": mode,
           "standing_height_m": body.geometry.standing_height,
           "steps_per_fall_time_at_60": 60.0 * fall_time(body.geometry),
           "control_hz": body.control_hz, "sim_hz": body.sim_hz}  # fmt: skip
    for label, hz in (("own", None), ("60", 60.0)):
        s = simulate(entry, seconds=SECONDS, config=ControlConfig(body=mode, control_hz=hz))
        out[label] = {key: s.summary[key] for key in
                      ("verdict", "verdict_reason", "speed_ratio", "touchdowns_per_stance")}
    return out


def table(rows: list[dict]) -> str:
    """The markdown table of ``rows`` (``run_cell``'s dicts)."""
    def cell(r):
        td = r["touchdowns_per_stance"]
        return f"{r['verdict']} ({'n/a' if td is None else f'{td:.2f}'})"

    lines = ["| walker (body) | scale | stands (m) | steps per fall time at 60 Hz | own control "
             "/ physics Hz | own rate: verdict (touchdowns / stance) | 60 Hz |",
             "| --- | --- | --- | --- | --- | --- | --- |"]  # fmt: skip
    for r in rows:
        lines.append(f"| {r['walker']} ({r['body']}) | {r['scale']:g} | "
                     f"{r['standing_height_m']:.3f} | {r['steps_per_fall_time_at_60']:.2f} | "
                     f"{r['control_hz']:g} / {r['sim_hz']:g} | {cell(r['own'])} | "
                     f"{cell(r['60'])} |")  # fmt: skip
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--walkers", type=subset(WALKERS, "walker"), default=WALKERS,
                    help=f"comma-separated subset of {','.join(WALKERS)}")
    ap.add_argument("--scales", type=scales, default=SCALES,
                    help="comma-separated scale factors (default "
                         f"{','.join(f'{k:g}' for k in SCALES)})")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--json", metavar="FILE", help="also write every run's figures here")
    args = ap.parse_args(argv)
    if args.workers < 1:
        ap.error("--workers must be at least 1")
    from tqdm import tqdm

    t0 = time.time()
    cells = [(w, k) for w in args.walkers for k in args.scales]
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(tqdm(pool.map(run_cell, cells), total=len(cells), desc="runs",
                         file=sys.stderr))  # fmt: skip
    print(table(rows))
    own = sum(r["own"]["verdict"] == "walked" for r in rows)
    at60 = sum(r["60"]["verdict"] == "walked" for r in rows)
    print(f"\nwalked: {own} of {len(rows)} at their own control rates, {at60} at 60 Hz; "
          f"wall time {time.time() - t0:.0f} s with {args.workers} workers")
    if args.json:
        from gaitsim.catalog import atomic_write_text

        atomic_write_text(args.json, json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
