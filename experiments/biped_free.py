"""The bipeds on their own feet: the built-in bipeds with a free body (no assist) on the
conditions of the bipeds issue, and the largest sideways push each survives.

Run: python experiments/biped_free.py [--workers 2] [--walkers mechanic,raptor]
[--json FILE]
Prints a markdown table (one row per walker and condition: verdict and its reason, speed
ratio, slip per stance, touchdowns per stance, sole pitch at touchdown and lift-off) and,
per walker, the largest push of PUSHES (m/s, to its left and right, at PUSH_AT s of a
PUSH_SECONDS walk) after which it still walked, and the wall time.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor

from cli_args import subset

WALKERS = ("mechanic", "raptor")
CONDITIONS = {  # name: (seconds, simulate() keywords)
    "flat, 20 s": (20.0, {}),
    "flat, 20 s, seed 1": (20.0, {"seed": 1}),
    "flat, 20 s, seed 2": (20.0, {"seed": 2}),
    "slope +5 deg, 10 s": (10.0, {"slope_deg": 5.0}),
    "slope -5 deg, 10 s": (10.0, {"slope_deg": -5.0}),
    "rough 1 cm, 10 s": (10.0, {"roughness": 0.01}),
    "arc r = 1.5 m, 10 s": (10.0, {"turn_radius": 1.5}),
}
PUSHES = (0.1, 0.2, 0.3, 0.4)  # m/s, each to the left (+) and to the right (-)
PUSH_AT, PUSH_SECONDS = 5.0, 10.0


def run_cell(cell):
    """One free-body run: the figures the table shows."""
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate
    from gaitsim.terrain import Rough, Slope

    walker, name, seconds, kw = cell
    kw = dict(kw)
    if "slope_deg" in kw:
        kw["terrain"] = Slope(math.radians(kw.pop("slope_deg")))
    if "roughness" in kw:
        kw["terrain"] = Rough(amplitude=kw.pop("roughness"), seed=0)
    s = simulate(walker, seconds=seconds, config=ControlConfig(body="free"), **kw).summary
    keep = ("verdict", "verdict_reason", "speed_ratio", "slip_mm_per_stance",
            "touchdowns_per_stance", "sole_pitch_deg_at_touchdown",
            "sole_pitch_deg_at_liftoff", "time_to_fall_s")  # fmt: skip
    return walker, name, {k: s.get(k) for k in keep}


def cells(walkers):
    out = [(w, c, sec, kw) for w in walkers for c, (sec, kw) in CONDITIONS.items()]
    for w in walkers:
        for v in PUSHES:
            for sign in (1.0, -1.0):
                kw = {"push_at": PUSH_AT, "push_velocity": sign * v}
                out.append((w, f"push {sign * v:+.1f} m/s at {PUSH_AT:g} s", PUSH_SECONDS, kw))
    return out


def _fmt(x, spec):
    return "n/a" if x is None else format(x, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--walkers", type=subset(WALKERS, "walker"), default=WALKERS,
                    help=f"a comma-separated subset of {','.join(WALKERS)} (default all)")
    ap.add_argument("--json", metavar="FILE", help="also write every figure as JSON")
    args = ap.parse_args()
    walkers = args.walkers
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(run_cell, cells(walkers)))
    wall = time.perf_counter() - t0
    print("| walker | condition (free body) | verdict | speed ratio | slip mm / stance | "
          "touchdowns / stance | sole pitch deg at touchdown / lift-off |")  # fmt: skip
    print("| --- " * 7 + "|")
    for walker, name, r in results:
        v = r["verdict"]
        if v != "walked":
            v = f"**{v}** ({r['verdict_reason']})"
        print(f"| {walker} | {name} | {v} | {_fmt(r['speed_ratio'], '.2f')} | "
              f"{_fmt(r['slip_mm_per_stance'], '.1f')} | "
              f"{_fmt(r['touchdowns_per_stance'], '.2f')} | "
              f"{_fmt(r['sole_pitch_deg_at_touchdown'], '.1f')} / "
              f"{_fmt(r['sole_pitch_deg_at_liftoff'], '+.1f')} |")  # fmt: skip
    print()
    for w in walkers:
        for sign, side in ((1.0, "left"), (-1.0, "right")):
            best = None  # the largest push survived with every smaller one survived too
            for v in PUSHES:
                name = f"push {sign * v:+.1f} m/s at {PUSH_AT:g} s"
                if not any(r["verdict"] == "walked" for ww, n, r in results
                           if ww == w and n == name):  # fmt: skip
                    break
                best = v
            got = "none" if best is None else f"{best:g} m/s"
            print(f"{w}: largest push to its {side} survived (of {PUSHES} m/s): {got}")
    print(f"\nwall time {wall:.0f} s with {args.workers} workers")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump([{"walker": w, "condition": n, **r} for w, n, r in results], fh, indent=1)


if __name__ == "__main__":
    main()
