"""The walking results table in README: every built-in walker on flat ground, a 10 degree
slope up and down, +/-2 cm rough ground and a 1 m-radius turn, 20 simulated seconds each.

Run: python experiments/walk_results.py [--seconds 20] [--workers 2] [--engine mujoco]
[--walkers mechanic,raptor] [--json FILE]
Prints markdown tables and the wall time it took: per condition the verdict (and its
reason when the walker did not walk), speed ratio, mean stance slip and max reach shortfall;
on flat ground each leg's measured duty beside the catalog's, touchdowns per stance and the
contact timing error; for walkers on soles, their pitch at touchdown and lift-off, the
measured stance phases beside the second seed's split and the centre of pressure's margin.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor

from cli_args import subset

from gaitsim.report import CONDITIONS  # the report's conditions: one scenario each

WALKERS = {  # each walker's default body on PyBullet (``sim.run.default_body``)
    "fox": "free",
    "hound": "free",
    "horn_beetle": "free",
    "spider_bot": "free",
    "mechanic": "free",
    "raptor": "free",
}
ASSISTED = ("mechanic", "raptor")  # ... also run with the assist, on every condition


def run_cell(cell):
    """One walker (with the given body) on one condition: the figures the tables show."""
    from gaitsim.report import condition_scenario

    walker, body, cond, seconds, engine = cell
    s = condition_scenario(walker, cond, seconds, body=body, engine=engine).simulate().figures
    keep = (
        "verdict",
        "verdict_reason",
        "duty_by_leg",
        "touchdowns_per_stance",
        "contact_timing_error",
        "swing_scuff_share",
        "foot_travel_mm_per_stance",
        "fell",
        "time_to_fall_s",
        "speed_ratio",
        "slip_mm_per_stance",
        "slip_mm_per_m",
        "max_shortfall_m",
        "min_support_margin_m",
        "cost_of_transport",
        "assist_mean_force_per_weight",
        "duty_error_max",
        "duty_error_mean",
        "sole_pitch_deg_at_touchdown",
        "sole_pitch_deg_at_liftoff",
        "stance_phase_share",
        "cop_margin_mm_min",
        "cop_margin_mm_mean",
    )
    return walker, body, cond, {k: getattr(s, k) for k in keep}


def cells(seconds, engine="pybullet", walkers=None):
    pick = WALKERS if walkers is None else {w: WALKERS[w] for w in walkers}
    out = [(w, b, c, seconds, engine) for w, b in pick.items() for c in CONDITIONS]
    out += [(w, "assist", c, seconds, engine) for w in ASSISTED if w in pick for c in CONDITIONS]
    return out


def soles(table):
    """The soles' table (walkers on soles, flat ground)."""
    from gaitsim.feet import SEED_STEP_SPLIT
    from gaitsim.gait import STANCE_PHASES

    rows = [(k, row["flat"]) for k, row in table.items()
            if "flat" in row and row["flat"]["stance_phase_share"] is not None]  # fmt: skip
    if not rows:
        return
    seed = " / ".join(f"{100 * v:.0f}" for v in SEED_STEP_SPLIT)
    print(f"\n| walker (body) | sole pitch at touchdown / lift-off (deg) | stance phases % "
          f"({' / '.join(STANCE_PHASES)}; seed {seed}) | CoP margin in the sole, min / mean "
          "(mm) |")  # fmt: skip
    print("| --- " * 4 + "|")
    for (walker, body), r in rows:
        share = " / ".join(f"{100 * v:.0f}" for v in r["stance_phase_share"].values())
        print(f"| {walker} ({body}) | {r['sole_pitch_deg_at_touchdown']:.1f} / "
              f"{r['sole_pitch_deg_at_liftoff']:+.1f} | {share} | "
              f"{r['cop_margin_mm_min']:.1f} / {r['cop_margin_mm_mean']:.1f} |")  # fmt: skip


def fmt(r):
    v = r["verdict"] if r["verdict"] == "walked" else f"**{r['verdict']}** ({r['verdict_reason']})"
    return (
        f"{v}, {r['speed_ratio']:.2f}, {r['slip_mm_per_stance']:.1f} mm, "
        f"{r['max_shortfall_m'] * 1000:.0f} mm"
    )


def fidelity(table):
    """The flat-ground gait-fidelity table."""
    from gaitsim import load_catalog

    cat = load_catalog()
    print("\n| walker (body) | catalog duty | measured duty by leg | touchdowns / stance | "
          "timing error | swing scuff |")  # fmt: skip
    print("| --- " * 6 + "|")
    for (walker, body), row in table.items():
        r = row.get("flat")
        if r is None:
            continue
        duty = " ".join(f"{d:.2f}" for d in r["duty_by_leg"])
        tds = r["touchdowns_per_stance"]
        print(
            f"| {walker} ({body}) | {cat[walker].gait.duty:.2f} | {duty} | "
            f"{tds:.2f} | {r['contact_timing_error']:.3f} | {r['swing_scuff_share']:.3f} |"
            if tds is not None
            else f"| {walker} ({body}) | {cat[walker].gait.duty:.2f} | {duty} | n/a | n/a | n/a |"
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", metavar="FILE", help="also write every figure as JSON")
    ap.add_argument("--engine", choices=["pybullet", "mujoco"], default="pybullet")
    ap.add_argument("--walkers", type=subset(WALKERS, "walker"),
                    help="comma-separated subset of the built-in walkers")
    args = ap.parse_args()
    walkers = args.walkers
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(run_cell, cells(args.seconds, args.engine, walkers)))
    wall = time.perf_counter() - t0
    table = {}
    for walker, body, cond, r in results:
        table.setdefault((walker, body), {})[cond] = r
    cols = list(CONDITIONS)
    print("| walker (body) | " + " | ".join(cols) + " |")
    print("| --- " * (len(cols) + 1) + "|")
    for (walker, body), row in table.items():
        print(
            f"| {walker} ({body}) | "
            + " | ".join(fmt(row[c]) if c in row else "" for c in cols)
            + " |"
        )
    print(
        f"\ncell: verdict, speed ratio, mean stance slip, max reach shortfall; "
        f"{args.seconds:g} simulated s per cell on {args.engine}; wall time {wall:.0f} s with "
        f"{args.workers} workers"
    )
    fidelity(table)
    soles(table)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                [{"walker": w, "body": b, "condition": c, **r} for w, b, c, r in results],
                fh,
                indent=1,
            )


if __name__ == "__main__":
    main()
