"""The upper body in physics: arm swing and torso twist against the vertical free moment,
and a gaze-stabilised head, on the built-in walkers (PyBullet, 10 s runs).

Run: python experiments/upper_body.py [--seconds 10] [--seeds 5] [--workers 2]
                                       [--engine pybullet] [--json FILE]

Prints four markdown tables (means over the seeds' start points in the gait cycle, +- one
standard deviation where it matters):

1. the mechanic (body assist) for arm mode x twist x speed scale: the vertical free moment
   RMS (``yaw_moment_rms_nm``), cost of transport, slip, the measured hip and shoulder twist
   and the shoulders' slope on the hips;
2. the head with ``--gaze stabilised`` against ``fixed`` (mechanic, fox, hound): head bob
   (peak to peak per gait cycle) and pitch RMS, their ratios, the body's own bob;
3. the gaze lead on a 1 m arc (seconds the head looks ahead along the path);
4. the upright lean on +-10 deg slopes (mechanic): body pitch, step rate, verdict.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import statistics
from concurrent.futures import ProcessPoolExecutor

from tqdm import tqdm

from gaitsim.catalog import UpperBodySpec
from gaitsim.scenario import Scenario
from gaitsim.walker import resolve_entry

ARMS = ("swing", "held", "anti")
TWISTS = (True, False)
SPEEDS = (0.75, 1.0, 1.25)
HEAD_WALKERS = ("mechanic", "fox", "hound")
FIGURES = (
    "verdict", "speed_ratio", "yaw_moment_rms_nm", "yaw_moment_com_rms_nm",
    "cost_of_transport", "slip_mm_per_stance",
    "hip_twist_deg", "shoulder_twist_deg", "shoulder_hip_ratio", "base_bob_mm", "head_bob_mm",
    "head_pitch_deg_rms", "gaze_lead_s", "max_pitch_deg", "commanded_speed_m_s",
)  # fmt: skip


def arms_only(name: str):
    """The built-in walker with arms on its body and no torso or head."""
    entry = resolve_entry(name)
    gait = dataclasses.replace(entry.gait, upper_body=UpperBodySpec(arms=()))
    return dataclasses.replace(entry, gait=gait)


def run(cell: dict) -> tuple[dict, dict]:
    """One run of a cell (Scenario.make keywords, the table it belongs to, ``part``, and
    for the yaw table the ``upper`` body: the catalog's, or ``arms`` alone)."""
    kw = dict(cell)
    kw.pop("part")
    if kw.pop("upper", "catalog") == "arms":
        kw["walker"] = arms_only(kw["walker"])
    summary = Scenario.make(**kw).simulate().summary
    figures = {k: summary.get(k) for k in FIGURES}
    return cell, figures


def cells(args) -> list[dict]:
    base = {"seconds": args.seconds, "engine": args.engine}
    out = []
    for seed in range(args.seeds):
        for arms in ARMS:
            for twist in TWISTS:
                for speed in SPEEDS:
                    out.append(dict(base, part="yaw", walker="mechanic", arms=arms, twist=twist,
                                    speed_scale=speed, seed=seed))  # fmt: skip
            for speed in SPEEDS:  # arms on the body, no torso to twist
                out.append(dict(base, part="yaw", walker="mechanic", upper="arms", arms=arms,
                                twist=False, speed_scale=speed, seed=seed))  # fmt: skip
        for walker in HEAD_WALKERS:
            for gaze in ("stabilised", "fixed"):
                out.append(dict(base, part="head", walker=walker, gaze=gaze, seed=seed))
                out.append(dict(base, part="gaze", walker=walker, gaze=gaze, seed=seed,
                                turn_radius=1.0))  # fmt: skip
        for lean in (False, True):
            for slope in (-10.0, 10.0):
                out.append(dict(base, part="lean", walker="mechanic", lean=lean, seed=seed,
                                slope_deg=slope))  # fmt: skip
    # the mechanic with the assist, as these tables were measured (since stop 49 a brisk
    # biped's default body on PyBullet is free: ``sim.run.walks_free_biped``); the fox and
    # the hound on their default (free) body
    return [dict(c, body="assist") if c["walker"] == "mechanic" else c for c in out]


def _key(cell: dict, *names: str) -> tuple:
    return tuple(cell.get(n) for n in names)


def _stat(rows: list[dict], k: str) -> tuple[float, float]:
    vals = [r[k] for r in rows if r.get(k) is not None and math.isfinite(r[k])]
    if not vals:
        return math.nan, math.nan
    return statistics.fmean(vals), statistics.pstdev(vals) if len(vals) > 1 else 0.0


def group(results, part: str, *names: str) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = {}
    for cell, fig in results:
        if cell["part"] == part:
            out.setdefault(_key(cell, *names), []).append(fig)
    return out


BODIES = (("catalog", True), ("catalog", False), ("arms", False))  # (upper body, twist)
BODY_LABEL = {("catalog", True): "torso, arms, head; twist on",
              ("catalog", False): "torso, arms, head; twist off",
              ("arms", False): "arms only (no torso)"}  # fmt: skip


def _yaw_groups(results, *extra: str) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = {}
    for cell, fig in results:
        if cell["part"] == "yaw":
            key = (cell.get("upper", "catalog"), cell["twist"], *_key(cell, *extra))
            out.setdefault(key, []).append(fig)
    return out


def yaw_table(results) -> list[str]:
    rows = _yaw_groups(results, "speed_scale", "arms")
    lines = [
        "| mechanic's upper body | speed scale | arms | free moment RMS N m | d/dt of yaw "
        "momentum RMS N m | cost of transport | slip mm / stance | hip twist deg | "
        "shoulder twist deg | shoulders / hips | walked |",
        "| --- " * 11 + "|",
    ]
    for body in BODIES:
        for speed in SPEEDS:
            for arms in ARMS:
                figs = rows[(*body, speed, arms)]
                m, sd = _stat(figs, "yaw_moment_rms_nm")
                h, hsd = _stat(figs, "yaw_moment_com_rms_nm")
                walked = sum(f["verdict"] == "walked" for f in figs)
                lines.append(
                    f"| {BODY_LABEL[body]} | {speed:g} | {arms} | {m:.2f} +- {sd:.2f} | "
                    f"{h:.2f} +- {hsd:.2f} | {_stat(figs, 'cost_of_transport')[0]:.3f} | "
                    f"{_stat(figs, 'slip_mm_per_stance')[0]:.1f} | "
                    f"{_stat(figs, 'hip_twist_deg')[0]:.1f} | "
                    f"{_stat(figs, 'shoulder_twist_deg')[0] or math.nan:.1f} | "
                    f"{_stat(figs, 'shoulder_hip_ratio')[0]:.2f} | {walked}/{len(figs)} |"
                )
    return lines


def ordering(results) -> list[str]:
    """For each body and figure: in how many speed cells swing < held < anti holds by the
    means over the seeds, and in how many single (seed, speed) runs."""
    lines = []
    per_seed = _yaw_groups(results, "speed_scale", "seed", "arms")
    means = _yaw_groups(results, "speed_scale", "arms")
    for body in BODIES:
        for fig in ("yaw_moment_rms_nm", "yaw_moment_com_rms_nm"):
            ok = sum(
                _ordered([_stat(means[(*body, s, a)], fig)[0] for a in ARMS]) for s in SPEEDS
            )
            seeds = sorted({k[3] for k in per_seed if k[:2] == body})
            runs = [[per_seed[(*body, s, seed, a)][0][fig] for a in ARMS]
                    for s in SPEEDS for seed in seeds]  # fmt: skip
            lines.append(
                f"- {BODY_LABEL[body]}, {fig}: swing < held < anti in {ok} of {len(SPEEDS)} "
                f"speeds by the means, {sum(map(_ordered, runs))} of {len(runs)} single runs"
            )
    return lines


def _ordered(v) -> bool:
    return bool(v[0] < v[1] < v[2])


def head_table(results) -> list[str]:
    rows = group(results, "head", "walker", "gaze")
    lines = [
        "| walker | head bob mm (stabilised / fixed) | ratio | head pitch RMS deg "
        "(stabilised / fixed) | ratio | body bob mm |",
        "| --- " * 6 + "|",
    ]
    for walker in HEAD_WALKERS:
        s, f = rows[(walker, "stabilised")], rows[(walker, "fixed")]
        bs, bf = _stat(s, "head_bob_mm")[0], _stat(f, "head_bob_mm")[0]
        ps, pf = _stat(s, "head_pitch_deg_rms")[0], _stat(f, "head_pitch_deg_rms")[0]
        lines.append(
            f"| {walker} | {bs:.2f} / {bf:.2f} | {bs / bf:.2f} | {ps:.3f} / {pf:.3f} | "
            f"{ps / pf:.2f} | {_stat(f, 'base_bob_mm')[0]:.1f} |"
        )
    return lines


def gaze_table(results) -> list[str]:
    rows = group(results, "gaze", "walker", "gaze")
    lines = ["| walker | gaze lead s, stabilised | fixed |", "| --- | --- | --- |"]
    for walker in HEAD_WALKERS:
        s, f = rows[(walker, "stabilised")], rows[(walker, "fixed")]
        lines.append(f"| {walker} | {_stat(s, 'gaze_lead_s')[0]:.2f} | "
                     f"{_stat(f, 'gaze_lead_s')[0]:.2f} |")  # fmt: skip
    return lines


def lean_table(results) -> list[str]:
    lines = ["| lean | slope deg | max body pitch deg | commanded speed m/s | verdicts |",
             "| --- | --- | --- | --- | --- |"]  # fmt: skip
    for cell_lean in (False, True):
        per = {}
        for cell, fig in results:
            if cell["part"] == "lean" and cell["lean"] == cell_lean:
                per.setdefault(cell["slope_deg"], []).append(fig)
        for slope, figs in sorted(per.items()):
            verdicts = ", ".join(sorted({f["verdict"] for f in figs}))
            lines.append(f"| {'upright' if cell_lean else 'off'} | {slope:+g} | "
                         f"{_stat(figs, 'max_pitch_deg')[0]:.1f} | "
                         f"{_stat(figs, 'commanded_speed_m_s')[0]:.3f} | {verdicts} |")  # fmt: skip
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="simulated seconds per run")
    ap.add_argument("--seeds", type=int, default=5, help="start points per cell (seeds 0..N-1)")
    ap.add_argument("--workers", type=int, default=2, help="parallel processes")
    ap.add_argument("--engine", default="pybullet", choices=("pybullet", "mujoco"))
    ap.add_argument("--json", metavar="FILE", help="also write every run's figures as JSON")
    args = ap.parse_args()
    todo = cells(args)
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(tqdm(pool.map(run, todo), total=len(todo), desc="runs"))
    for block in (yaw_table(results), ordering(results), head_table(results),
                  gaze_table(results), lean_table(results)):  # fmt: skip
        print("\n".join(block) + "\n")
    if args.json:
        rows = [{**c, **f} for c, f in results]
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
