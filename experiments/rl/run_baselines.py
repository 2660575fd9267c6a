"""The RL baseline grid: PPO on the fox and the horn beetle (and, with ``--walkers
mechanic``, the free biped), flat and a 10 degree slope, for the action modes joint,
residual and modulate, with the open-loop prior as the reference, over 3 seeds at a
fixed budget. Writes each run's learning curve (CSV), a learning-curve
plot per walker and terrain (PNG), results.json and results.md.

    python experiments/rl/run_baselines.py --steps 50000 --workers 2 --out experiments/rl/results
    python experiments/rl/run_baselines.py --smoke        # a few hundred steps, for CI
    python experiments/rl/run_baselines.py --walkers mechanic --terrains flat \
        --modes prior residual joint --steps 300000 --seeds 1 --eval-every 20480 \
        --out experiments/rl/results_biped
    python experiments/rl/run_baselines.py --engine mujoco --steps 500000 --seeds 1 \
        --terrains flat --modes prior residual joint --out experiments/rl/results_mujoco
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from train import MODES, train

WALKERS = ("fox", "horn_beetle", "mechanic")  # the choices
GRID_WALKERS = ("fox", "horn_beetle")  # the default grid
TERRAINS = ("flat", "slope")
WALKING = 0.5  # a policy "walks" when it covers half the commanded distance without falling


def _job(args):
    walker, terrain, mode, seed, steps, out, eval_every, eval_episodes, engine = args
    return train(walker, terrain, mode, seed, steps, Path(out), eval_every, eval_episodes,
                 engine=engine)  # fmt: skip


def steps_to_walk(curve_csv: Path, commanded_m: float) -> int | None:
    with open(curve_csv) as fh:
        for row in csv.DictReader(fh):
            if (
                float(row["distance_m"]) >= WALKING * commanded_m
                and float(row["falls_per_episode"]) == 0
            ):
                return int(row["steps"])
    return None


def plot_curves(out: Path, results: list[dict]) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    paths = []
    for walker in WALKERS:
        for terrain in TERRAINS:
            if not any((r["walker"], r["terrain"]) == (walker, terrain) for r in results):
                continue  # not in this grid (--walkers / --terrains)
            fig, ax = plt.subplots(figsize=(6.4, 4.0))
            for mode in MODES:
                runs = [
                    r
                    for r in results
                    if (r["walker"], r["terrain"], r["mode"]) == (walker, terrain, mode)
                ]
                curves = []
                for r in runs:
                    with open(out / f"{walker}_{terrain}_{mode}_s{r['seed']}.csv") as fh:
                        curves.append(
                            [(int(x["steps"]), float(x["distance_m"])) for x in csv.DictReader(fh)]
                        )
                if not curves:
                    continue
                if mode == "prior":
                    d = np.mean([c[-1][1] for c in curves])
                    ax.axhline(d, color="k", ls="--", label="prior (open loop)")
                    continue
                n = min(len(c) for c in curves)
                xs = [step for step, _ in curves[0][:n]]
                ys = np.array([[c[i][1] for i in range(n)] for c in curves])
                line = ax.plot(xs, ys.mean(0), marker="o", label=mode)[0]
                ax.fill_between(xs, ys.min(0), ys.max(0), color=line.get_color(), alpha=0.15)
            ax.set_xlabel("environment steps")
            ax.set_ylabel("evaluation distance (m per 8 s episode)")
            ax.set_title(f"PPO on {walker}, {terrain}")
            ax.grid(alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=8)
            p = out / f"curve_{walker}_{terrain}.png"
            fig.savefig(p, dpi=110, bbox_inches="tight")
            plt.close(fig)
            paths.append(p)
    return paths


def table(results: list[dict], out: Path) -> str:
    import numpy as np
    from train import EPISODE_STEPS

    from gaitsim import load_catalog

    cat = load_catalog()
    lines = [
        "| walker | terrain | mode | return | distance (m) | speed ratio | slip (mm/m) | "
        "falls / episode | steps to walk | wall (s per run) |",
        "| --- " * 10 + "|",
    ]
    for walker in WALKERS:
        commanded = cat[walker].gait.clip_speed * EPISODE_STEPS / 60.0
        for terrain in TERRAINS:
            for mode in MODES:
                rs = [
                    r
                    for r in results
                    if (r["walker"], r["terrain"], r["mode"]) == (walker, terrain, mode)
                ]
                if not rs:
                    continue

                def m(key, rs=rs):
                    return float(np.mean([r[key] for r in rs]))

                slip = np.mean([r["slip_mm"] / max(r["distance_m"], 1e-3) for r in rs])
                walk = [
                    steps_to_walk(out / f"{walker}_{terrain}_{mode}_s{r['seed']}.csv", commanded)
                    for r in rs
                ]
                walk_s = ", ".join("-" if w is None else str(w) for w in walk)
                lines.append(
                    f"| {walker} | {terrain} | {mode} | {m('return'):.0f} | "
                    f"{m('distance_m'):.2f} | {m('speed_ratio'):.2f} | {slip:.0f} | "
                    f"{m('falls_per_episode'):.2f} | {walk_s} | {m('wall_s'):.0f} |"
                )
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=50_000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--eval-every", type=int, default=10_240)
    ap.add_argument("--eval-episodes", type=int, default=2)
    ap.add_argument("--out", default="experiments/rl/results")
    ap.add_argument("--smoke", action="store_true", help="tiny budgets: checks the pipeline")
    ap.add_argument("--engine", choices=["pybullet", "mujoco"], default="pybullet")
    ap.add_argument("--walkers", nargs="+", choices=WALKERS, default=list(GRID_WALKERS))
    ap.add_argument("--terrains", nargs="+", choices=TERRAINS, default=list(TERRAINS))
    ap.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    args = ap.parse_args()
    if args.smoke:
        args.steps, args.seeds, args.eval_every, args.eval_episodes = 256, 1, 128, 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = [
        (w, t, mode, seed, args.steps, str(out), args.eval_every, args.eval_episodes, args.engine)
        for w in args.walkers
        for t in args.terrains
        for mode in args.modes
        for seed in range(args.seeds if mode != "prior" else 1)
    ]
    if args.smoke:
        jobs = [j for j in jobs if j[0] == "fox" and j[1] == "flat"]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(_job, jobs))
    wall = time.perf_counter() - t0
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    plot_curves(out, results)
    md = table(results, out)
    (out / "results.md").write_text(
        md + f"\n\nBudget {args.steps} environment steps per run, {args.seeds} seeds, "
        f"{len(jobs)} runs on {args.engine}; wall time {wall:.0f} s with {args.workers} "
        "workers.\n"
    )
    print(md)
    print(f"\nwall time {wall:.0f} s")


if __name__ == "__main__":
    main()
