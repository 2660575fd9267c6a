"""The cross-engine table in README: every built-in walker on PyBullet and on MuJoCo, on
the report's five conditions (flat, a 10 degree slope up and down, +/-2 cm rough ground,
a 1 m-radius turn), the same controller and metrics on both.

Run: python experiments/engine_compare.py [--seconds 10] [--workers 2] [--json FILE]
Prints a markdown table: per walker and engine the flat-ground speed ratio, mean duty
error, touchdowns per stance, stance slip and cost of transport, and the verdicts on the
other conditions (a fall shows as **fell**), then the wall time of each engine's cells.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor

from walk_results import WALKERS, run_cell

from gaitsim.report import CONDITIONS

ENGINES = ("pybullet", "mujoco")
# the bipeds with the assist on both engines: their default body on MuJoCo, where the free
# raptor falls (on PyBullet they walk free by default: walk_results.py has both)
BODIES = {**WALKERS, "mechanic": "assist", "raptor": "assist"}


def timed_cell(cell):
    t0 = time.perf_counter()
    out = run_cell(cell)
    return (*out, cell[-1], time.perf_counter() - t0)


def verdict(r) -> str:
    return r["verdict"] if r["verdict"] == "walked" else f"**{r['verdict']}**"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", metavar="FILE", help="also write every figure as JSON")
    args = ap.parse_args()
    cells = [
        (w, b, c, args.seconds, e) for w, b in BODIES.items() for c in CONDITIONS for e in ENGINES
    ]
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(timed_cell, cells))
    table, wall = {}, dict.fromkeys(ENGINES, 0.0)
    for walker, body, cond, r, engine, seconds in results:
        table.setdefault((walker, body, engine), {})[cond] = r
        wall[engine] += seconds
    others = [c for c in CONDITIONS if c != "flat"]
    print("| walker (body) | engine | speed ratio | duty error (mean) | touchdowns / stance | "
          "slip mm / stance | cost of transport | " + " | ".join(others) + " |")  # fmt: skip
    print("| --- " * (7 + len(others)) + "|")
    for (walker, body, engine), row in table.items():
        f = row["flat"]
        td = f["touchdowns_per_stance"]
        cot = f["cost_of_transport"]
        print(
            f"| {walker} ({body}) | {engine} | {f['speed_ratio']:.2f} "
            f"({verdict(f)}) | {f['duty_error_mean']:.3f} | "
            f"{'n/a' if td is None else f'{td:.2f}'} | {f['slip_mm_per_stance']:.1f} | "
            f"{'n/a' if cot is None else f'{cot:.2f}'} | "
            + " | ".join(f"{verdict(row[c])} {row[c]['speed_ratio']:.2f}" for c in others)
            + " |"
        )
    print(
        f"\n{args.seconds:g} simulated s per cell; summed cell wall time: "
        + ", ".join(f"{e} {wall[e]:.0f} s" for e in ENGINES)
        + f" ({wall['pybullet'] / wall['mujoco']:.1f}x)"
    )
    if args.json:
        with open(args.json, "w") as fh:
            rows = [
                {"walker": w, "body": b, "condition": c, "engine": e, "wall_s": s, **r}
                for w, b, c, r, e, s in results
            ]
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
