"""Digests of seeded env rollouts: check that a speed-up changed no number.

Run: python benchmarks/rollout_digest.py [--steps 600] [--out digest.json] [--engine mujoco]

Eight cases (four walkers, all four presets, all four action modes, odometry, sway and
lean) each run ``--steps`` seeded random-action steps, resetting as episodes end; every
observation, reward and info value goes into a SHA-256 digest. Run it before and after a
change and compare the two files: equal digests mean the rollouts are equal bit for bit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")

import gymnasium as gym
import numpy as np

import gaitsim  # noqa: F401  (registers the ids)

CASES = [
    ("gaitsim/Walk-v0", {"walker": "fox"}, "prior"),
    ("gaitsim/Walk-v0", {"walker": "hound"}, "residual"),
    ("gaitsim/Walk-v0", {"walker": "spider_bot"}, "prior"),
    ("gaitsim/Walk-v0", {"walker": "mechanic", "body": "assist"}, "prior"),
    ("gaitsim/Slope-v0", {"walker": "fox"}, "modulate"),
    ("gaitsim/Rough-v0", {"walker": "horn_beetle"}, "prior"),
    ("gaitsim/Turn-v0", {"walker": "fox"}, "modulate"),
    (
        "gaitsim/Walk-v0",
        {
            "walker": "fox",
            "distance_source": "odometry",
            "walker_options": {"sway": 0.5, "lean": True},
        },
        "joint",
    ),
]


def digest(env_id: str, kw: dict, mode: str, steps: int, engine: str | None = None) -> dict:
    extra = {} if engine is None else {"engine": engine}
    env = gym.make(env_id, action_mode=mode, disable_env_checker=True, **kw, **extra)
    env.action_space.seed(1)
    obs, _ = env.reset(seed=3)
    h = hashlib.sha256(obs.tobytes())
    episodes = 1
    info: dict = {}
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        h.update(obs.tobytes())
        h.update(np.float64(reward).tobytes())
        for key in sorted(info):
            h.update(key.encode())
            h.update(np.asarray(info[key]).tobytes() if key != "fall" else info[key].encode())
        if terminated or truncated:
            obs, _ = env.reset()
            h.update(obs.tobytes())
            episodes += 1
    env.close()
    return {"digest": h.hexdigest()[:16], "episodes": episodes, "distance": info["distance"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=600, help="env steps per case (default 600)")
    ap.add_argument("--out", help="also write the digests to this JSON file")
    ap.add_argument("--engine", choices=("pybullet", "mujoco"),
                    help="the physics engine (default: the envs' own, pybullet)")
    args = ap.parse_args(argv)
    if args.steps < 1:
        ap.error("--steps must be at least 1")
    out = {}
    for env_id, kw, mode in CASES:
        name = f"{env_id} {mode} {json.dumps(kw, sort_keys=True)}"
        out[name] = digest(env_id, kw, mode, args.steps, args.engine)
        print(f"{out[name]['digest']}  {name}", flush=True)
    if args.out:
        from gaitsim.catalog import atomic_write_text

        atomic_write_text(args.out, json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
