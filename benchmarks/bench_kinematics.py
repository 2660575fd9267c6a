"""Foot targets + leg IK throughput: vectorized numpy vs a plain per-leg Python loop.

Run: python benchmarks/bench_kinematics.py [--walker fox] [--poses 2000000]
Reports leg-poses per second on one core for both, and their ratio, measured in one run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from gaitsim import foot_targets, load_catalog
from gaitsim.geometry import geometry
from gaitsim.ik import ScalarLeg, leg_ik

CHUNK = 32768  # distances per vectorized call: keeps the temporaries in cache


def vectorized(gait, geo, distances):
    lift = np.array([0.0, 0.0, geo.hip_height])
    out = None
    for k in range(0, len(distances), CHUNK):
        p = foot_targets(gait, distances[k : k + CHUNK])
        p -= lift
        out, _ = leg_ik(geo.chain, p)
    return out


def loop(gait, geo, distances):
    """The same maths, one leg at a time: the seed's foot target in plain floats and the
    library's scalar IK (``ScalarLeg``, the control loop's, built once per leg)."""
    cycle = gait.stride / gait.duty
    ch = geo.chain
    legs = [
        (
            leg.phase,
            tuple(float(v) for v in leg.home),
            ScalarLeg(ch.mount[i], ch.upper[i], ch.lower[i], ch.kind[i], ch.yaw0[i]).solve,
        )
        for i, leg in enumerate(gait.legs)
    ]
    H = geo.hip_height
    q = None
    for d in distances:
        for phase, home, solve in legs:
            t = (d / cycle + phase) % 1.0
            if t < gait.duty:
                x = home[0] + gait.stride * (0.5 - t / gait.duty)
                z = home[2]
            else:
                u = (t - gait.duty) / (1 - gait.duty)
                s = u * u * (3 - 2 * u)
                x = home[0] + gait.stride * (s - 0.5)
                z = home[2] + gait.lift * math.sin(math.pi * s)
            q = solve(x, home[1], z - H)[:3]
    return q


def measure(fn, *args, repeats=5):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--walker", default="fox")
    ap.add_argument("--poses", type=int, default=2_000_000, help="vectorized leg-poses per run")
    ap.add_argument("--loop-poses", type=int, default=40_000, help="loop leg-poses per run")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    gait = load_catalog()[args.walker].gait
    geo = geometry(gait)
    L = gait.n_legs
    d_vec = np.linspace(0.0, 500.0, args.poses // L)
    d_loop = np.linspace(0.0, 500.0, args.loop_poses // L).tolist()
    # the two agree on the last pose
    last_v = vectorized(gait, geo, np.array(d_loop))[-1, -1]
    last_l = loop(gait, geo, d_loop)
    assert np.allclose(last_v, last_l, atol=1e-9), (last_v, last_l)
    vectorized(gait, geo, d_vec)  # warm-up
    t_vec = measure(vectorized, gait, geo, d_vec)
    t_loop = measure(loop, gait, geo, d_loop, repeats=3)
    vec_rate = len(d_vec) * L / t_vec
    loop_rate = len(d_loop) * L / t_loop
    result = {
        "walker": args.walker,
        "vectorized_leg_poses_per_s": vec_rate,
        "loop_leg_poses_per_s": loop_rate,
        "speedup": vec_rate / loop_rate,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"walker {args.walker}: foot targets + leg IK, one core")
        print(f"  vectorized numpy : {vec_rate / 1e6:8.2f} M leg-poses/s")
        print(f"  per-leg Python   : {loop_rate / 1e6:8.3f} M leg-poses/s")
        print(f"  ratio            : {vec_rate / loop_rate:8.1f} x")


if __name__ == "__main__":
    main()
