"""Capping progress at the command: PPO `modulate` policies with the `overspeed` reward term.

The baselines (run_baselines.py, default reward) learn to outrun the commanded speed. This
runs the same PPO setup for the fox and the horn beetle on flat ground, `modulate` mode,
with the overspeed weight at 1 (each step's progress capped at the command) and 2 (progress
beyond the command costs as much as it earned), 3 seeds each, and tabulates them beside the
baselines' uncapped runs (weight 0, read from --baselines).

    python experiments/rl/run_overspeed.py --steps 50000 --workers 2
    python experiments/rl/run_overspeed.py --table-only   # re-tabulate existing runs
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from train import train

WALKERS = ("fox", "horn_beetle")
WEIGHTS = (1.0, 2.0)
HERE = Path(__file__).resolve().parent


def _job(args):
    walker, seed, weight, steps, out = args
    return train(walker, "flat", "modulate", seed, steps, Path(out), 10_240, 2, overspeed=weight)


def _runs(folder: Path, walker: str, weight: float) -> list[dict]:
    suffix = f"_overspeed{weight:g}" if weight else ""
    paths = sorted(folder.glob(f"{walker}_flat_modulate_s[0-9]{suffix}.json"))
    return [json.loads(p.read_text()) for p in paths]


def table(out: Path, baselines: Path) -> str:
    import numpy as np

    lines = [
        "| walker | overspeed weight | speed ratio (per seed) | distance (m) | slip (mm/m) | "
        "falls / episode | return |",
        "| --- " * 7 + "|",
    ]
    for walker in WALKERS:
        for weight in (0.0, *WEIGHTS):
            rs = _runs(baselines if weight == 0 else out, walker, weight)
            if not rs:
                continue
            ratios = ", ".join(f"{r['speed_ratio']:.2f}" for r in rs)
            slip = np.mean([r["slip_mm"] / max(r["distance_m"], 1e-3) for r in rs])
            lines.append(
                f"| {walker} | {weight:g} | {np.mean([r['speed_ratio'] for r in rs]):.2f} "
                f"({ratios}) | {np.mean([r['distance_m'] for r in rs]):.2f} | {slip:.0f} | "
                f"{np.mean([r['falls_per_episode'] for r in rs]):.2f} | "
                f"{np.mean([r['return'] for r in rs]):.0f} |"
            )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=50_000, help="training budget per run")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=str(HERE / "results" / "overspeed"))
    ap.add_argument(
        "--baselines", default=str(HERE / "results"), help="run_baselines.py's output folder"
    )
    ap.add_argument("--table-only", action="store_true", help="tabulate runs already made")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    wall = None
    if not args.table_only:
        jobs = [
            (w, seed, weight, args.steps, str(out))
            for weight in WEIGHTS
            for w in WALKERS
            for seed in range(args.seeds)
        ]
        t0 = time.perf_counter()
        with ProcessPoolExecutor(args.workers) as pool:
            list(pool.map(_job, jobs))
        wall = time.perf_counter() - t0
    md = table(out, Path(args.baselines))
    runs = [json.loads(p.read_text()) for p in out.glob("*_overspeed*.json")]
    budgets = sorted({r["budget"] for r in runs})
    note = (
        f"\n\nPPO as in run_baselines.py, modulate mode, flat ground, budget "
        f"{'/'.join(map(str, budgets))} environment steps per run, seeds 0-2; the weight-0 "
        f"rows are the baselines' runs. Returns are not comparable across weights (the "
        f"reward differs). {len(runs)} runs, {sum(r['wall_s'] for r in runs):.0f} s of run "
        f"time in total"
        + (f", {wall:.0f} s wall with {args.workers} workers.\n" if wall else ".\n")
    )
    (out / "results.md").write_text(md + note)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
