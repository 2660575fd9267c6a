"""Why a back-kneed biped falls free: where its swing foot lands against its capture point,
and how far behind its ankle its stance sole's centre of pressure goes.

Run: python experiments/biped_heel_diag.py [--walkers raptor,mechanic]
[--knees own,forward,back] [--heel-shares default,0.5] [--seeds none,1,2] [--seconds 20]

Every combination: the walker (its knees as the catalog has them, or all turned
``forward`` or ``back``; its soles the derived ones, or with the ankle ``share`` of the
default sole's length ahead of the heel: heel = share x length, toe = the rest) walks
free on flat ground from a start (``none``: distance 0; N: ``simulate(seed=N)``). A row:
verdict, fall time, speed ratio, forward speed at 0.25 s (the rolling start is at the
commanded speed) and body pitch at 1 s (negative: nose up), then over the first
TOUCHDOWNS touchdowns the mean of (capture point - ankle) along x at touchdown (COM +
v / omega, omega from the COM's height: negative, the foot landed past the point where
the body stops over it), and the stance soles' mean centre of pressure behind their
ankle over the first EARLY of their stances, next to the sole's heel (the most it can be).
"""

from __future__ import annotations

import argparse
import dataclasses
import math

import numpy as np
from cli_args import subset

WALKERS = ("mechanic", "raptor")
KNEES = ("own", "forward", "back")
TOUCHDOWNS = 4  # the figures are over the first four touchdowns (before any fall)
EARLY = 0.2  # ... and the first fifth of each stance (double support included)


def variant(walker: str, knees: str, heel_share: float | None):
    """The built-in ``walker`` with its knees and its soles' heel share as asked."""
    from gaitsim.feet import SOLE_LENGTH_SHARE
    from gaitsim.walker import resolve_entry

    entry = resolve_entry(walker)
    legs = []
    for leg in entry.gait.legs:
        change = {} if knees == "own" else {"knee": knees}
        if heel_share is not None:
            length = SOLE_LENGTH_SHARE * (leg.upper + leg.lower)
            change["foot"] = (("heel", heel_share * length), ("toe", (1 - heel_share) * length))
        legs.append(dataclasses.replace(leg, **change))
    return dataclasses.replace(entry, gait=dataclasses.replace(entry.gait, legs=tuple(legs)))


def run(walker: str, knees: str, heel_share: float | None, seed: int | None, seconds: float):
    """One free run's figures (see the module docstring)."""
    from gaitsim.feet import soles
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.reference import rot_from_quat
    from gaitsim.sim.run import simulate

    entry = variant(walker, knees, heel_share)
    heel = soles(entry.gait)[0].heel
    trace, margins, cops = [], [], []
    last = [None]

    def on_step(ctl):
        s = ctl.sensed
        r = rot_from_quat(s.quaternion)
        trace.append((ctl.t, math.degrees(math.asin(-r[6])), s.linear_velocity[0]))
        stance = list(ctl.planner.stance)
        for i, st in enumerate(stance):
            if st and last[0] is not None and not last[0][i] and len(margins) < TOUCHDOWNS:
                omega = math.sqrt(9.81 / s.com[2])  # a touchdown
                margins.append(s.com[0] + s.linear_velocity[0] / omega - s.feet[i][0])
            if (st and s.foot_cops[i] is not None and len(margins) <= TOUCHDOWNS
                    and ctl.planner.stance_progress[i] < EARLY):  # fmt: skip
                cops.append(s.feet[i][0] - s.foot_cops[i][0])
        last[0] = stance

    res = simulate(entry, seconds=seconds, config=ControlConfig(body="free"), seed=seed,
                   on_step=on_step).summary  # fmt: skip
    tr = np.array(trace)

    def at(t, col):
        return float(tr[min(np.searchsorted(tr[:, 0], t), len(tr) - 1), col])

    return {
        "verdict": res["verdict"], "fall_s": res["time_to_fall_s"],
        "speed_ratio": res["speed_ratio"], "vx_0_25": at(0.25, 2), "pitch_1": at(1.0, 1),
        "cp_margin": float(np.mean(margins)) if margins else math.nan,
        "cop_behind": float(np.mean(cops)) if cops else math.nan, "heel": heel,
    }  # fmt: skip


def main():
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--walkers", type=subset(WALKERS, "walker"), default=WALKERS)
    ap.add_argument("--knees", type=subset(KNEES, "knee"), default=KNEES)
    ap.add_argument(
        "--heel-shares",
        default="default,0.5",
        help="comma-separated: default (the derived soles) or a share in (0, 1)",
    )
    ap.add_argument("--seeds", default="none", help="comma-separated: none or integers")
    ap.add_argument("--seconds", type=float, default=20.0)
    args = ap.parse_args()
    shares = [None if x == "default" else float(x) for x in args.heel_shares.split(",")]
    if any(x is not None and not 0 < x < 1 for x in shares):
        ap.error("--heel-shares: default or shares strictly between 0 and 1")
    seeds = [None if x == "none" else int(x) for x in args.seeds.split(",")]
    print("| walker | knees | heel share | seed | verdict | fall s | speed ratio | "
          "vx 0.25 s | pitch 1 s deg | CP - ankle at touchdown mm | CoP behind ankle, "
          "early stance / heel mm |")  # fmt: skip
    print("| --- " * 11 + "|")
    for w in args.walkers:
        for k in args.knees:
            for h in shares:
                for sd in seeds:
                    r = run(w, k, h, sd, args.seconds)
                    fall = "-" if r["fall_s"] is None else f"{r['fall_s']:.1f}"
                    print(f"| {w} | {k} | {'default' if h is None else h} | {sd} | "
                          f"{r['verdict']} | {fall} | {r['speed_ratio']:.2f} | "
                          f"{r['vx_0_25']:.2f} | {r['pitch_1']:+.0f} | "
                          f"{1e3 * r['cp_margin']:+.0f} | {1e3 * r['cop_behind']:.0f} / "
                          f"{1e3 * r['heel']:.0f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
