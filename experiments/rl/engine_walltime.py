"""Wall time of one PPO run on each engine for the same budget, back to back in one process.

    python experiments/rl/engine_walltime.py --steps 50000 [--walker fox] [--mode residual]

Trains the same walker, terrain, mode and seed on PyBullet and then on MuJoCo (the same
evaluations in between) and prints each run's wall time, its training throughput (env
steps per wall second, PPO updates and evaluations included) and the ratio. Run it on an
otherwise idle machine: the two runs see the same load only if nothing else runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from train import MODES, TERRAINS, train


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=50_000)
    ap.add_argument("--walker", default="fox")
    ap.add_argument("--terrain", choices=list(TERRAINS), default="flat")
    ap.add_argument("--mode", choices=[m for m in MODES if m != "prior"], default="residual")
    ap.add_argument("--eval-every", type=int, default=10_240)
    args = ap.parse_args()
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for engine in ("pybullet", "mujoco"):
            s = train(args.walker, args.terrain, args.mode, 0, args.steps, Path(tmp) / engine,
                      args.eval_every, 2, engine=engine)  # fmt: skip
            out[engine] = {"wall_s": s["wall_s"], "steps_per_s": s["steps"] / s["wall_s"],
                           "distance_m": s["distance_m"]}  # fmt: skip
            print(f"{engine:8s} {s['wall_s']:7.0f} s for {s['steps']} steps "
                  f"({out[engine]['steps_per_s']:.0f} steps/s)", flush=True)  # fmt: skip
    out["ratio"] = out["pybullet"]["wall_s"] / out["mujoco"]["wall_s"]
    print(f"MuJoCo is {out['ratio']:.2f}x faster for the same budget")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
