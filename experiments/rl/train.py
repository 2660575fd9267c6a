"""PPO baselines with the gait as a prior (stable-baselines3; `pip install torch==2.13.0`
then `pip install "gaitsim[rl]"`).

One run: a walker, a terrain, an action mode and a seed, trained for a fixed budget of
environment steps, with a learning curve (periodic deterministic evaluations) written as
CSV. The open-loop `prior` mode is evaluated without training, as the reference.

    python experiments/rl/train.py --walker fox --terrain flat --mode residual --seed 0 \\
        --steps 60000 --out experiments/rl/runs
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import gymnasium as gym
import numpy as np

import gaitsim  # noqa: F401  (registers the env ids)

MODES = ("prior", "residual", "modulate", "joint")
TERRAINS = {"flat": {}, "slope": {"slope_deg": 10.0}}
EPISODE_STEPS = 480  # 8 s at 60 Hz control


def make_env(walker: str, terrain: str, mode: str, seed: int | None = None,
             overspeed: float = 0.0, engine: str = "pybullet"):  # fmt: skip
    env = gym.make(
        "gaitsim/Walk-v0",
        walker=walker,
        action_mode=mode,
        engine=engine,
        max_episode_steps=EPISODE_STEPS,
        reward_weights={"overspeed": overspeed},
        **TERRAINS[terrain],
    )
    env.reset(seed=seed)
    return env


def evaluate(env, policy, episodes: int, seed: int) -> dict:
    """Mean figures over deterministic episodes: return, distance, speed ratio, slip, falls."""
    rets, dists, speeds, slips, falls = [], [], [], [], []
    for k in range(episodes):
        obs, info = env.reset(seed=seed + 1000 + k)
        done, ret, steps = False, 0.0, 0
        while not done:
            action = policy(obs)
            obs, r, term, trunc, info = env.step(action)
            ret += float(r)
            steps += 1
            done = term or trunc
        rets.append(ret)
        dists.append(float(info.get("distance", 0.0)))
        commanded = float(info.get("commanded_speed", np.nan)) * steps * env.unwrapped.dt
        speeds.append(dists[-1] / commanded if commanded and math.isfinite(commanded) else np.nan)
        slips.append(float(info.get("slip_mm", np.nan)))
        falls.append(float(term))
    return {
        "return": float(np.mean(rets)),
        "distance_m": float(np.mean(dists)),
        "speed_ratio": float(np.nanmean(speeds)),
        "slip_mm": float(np.nanmean(slips)),
        "falls_per_episode": float(np.mean(falls)),
    }


def train(
    walker,
    terrain,
    mode,
    seed,
    steps,
    out: Path,
    eval_every: int,
    eval_episodes: int,
    overspeed: float = 0.0,
    engine: str = "pybullet",
):
    """One run; ``overspeed``: the reward weight of progress beyond the command (0: the
    baselines' default; 1 caps progress at the commanded speed); ``engine``: the physics
    engine of the training and evaluation envs."""
    out.mkdir(parents=True, exist_ok=True)
    tag = f"{walker}_{terrain}_{mode}_s{seed}" + (f"_overspeed{overspeed:g}" if overspeed else "")
    curve_path = out / f"{tag}.csv"
    eval_env = make_env(walker, terrain, mode, seed + 10_000, overspeed, engine)
    t0 = time.perf_counter()
    rows = []
    if mode == "prior":
        act = np.zeros(eval_env.action_space.shape, dtype=np.float32)
        row = {"steps": 0, **evaluate(eval_env, lambda o: act, eval_episodes, seed)}
        rows.append(row)
    else:
        from stable_baselines3 import PPO
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.logger import Logger

        env = make_env(walker, terrain, mode, seed, overspeed, engine)
        model = PPO(
            "MlpPolicy",
            env,
            seed=seed,
            n_steps=min(1024, max(64, steps)),  # small budgets (CI smoke) get short rollouts
            batch_size=min(128, max(64, steps)),
            learning_rate=3e-4,
            gamma=0.99,
            policy_kwargs={"net_arch": [64, 64], "log_std_init": -1.0},
            device="cpu",
            verbose=0,
        )
        # no outputs: without a logger of its own SB3 makes an empty SB3-<date> folder in
        # the temp directory at every learn()
        model.set_logger(Logger(folder=None, output_formats=[]))

        def policy(o):
            return model.predict(o, deterministic=True)[0]

        class Curve(BaseCallback):
            def _on_step(self) -> bool:
                if self.num_timesteps % eval_every == 0:
                    rows.append(
                        {
                            "steps": self.num_timesteps,
                            **evaluate(eval_env, policy, eval_episodes, seed),
                        }
                    )
                return True

        rows.append({"steps": 0, **evaluate(eval_env, policy, eval_episodes, seed)})
        model.learn(total_timesteps=steps, callback=Curve())
        if rows[-1]["steps"] != model.num_timesteps:
            rows.append(
                {"steps": model.num_timesteps, **evaluate(eval_env, policy, eval_episodes, seed)}
            )
        env.close()
    eval_env.close()
    wall = time.perf_counter() - t0
    with open(curve_path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    summary = {
        "walker": walker,
        "terrain": terrain,
        "mode": mode,
        "seed": seed,
        "budget": steps if mode != "prior" else 0,
        "overspeed_weight": overspeed,
        "engine": engine,
        "wall_s": wall,
        **rows[-1],
    }
    (out / f"{tag}.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--walker", default="fox")
    ap.add_argument("--terrain", choices=list(TERRAINS), default="flat")
    ap.add_argument("--mode", choices=MODES, default="residual")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=60_000, help="training budget (env steps)")
    ap.add_argument("--eval-every", type=int, default=10_240)
    ap.add_argument("--eval-episodes", type=int, default=2)
    ap.add_argument("--out", default="experiments/rl/runs")
    ap.add_argument(
        "--overspeed",
        type=float,
        default=0.0,
        help="reward weight of progress beyond the command (default 0; 1 caps progress)",
    )
    ap.add_argument("--engine", choices=["pybullet", "mujoco"], default="pybullet")
    args = ap.parse_args()
    if not (math.isfinite(args.overspeed) and args.overspeed >= 0):
        ap.error(f"--overspeed must be a number >= 0, got {args.overspeed}")
    s = train(
        args.walker,
        args.terrain,
        args.mode,
        args.seed,
        args.steps,
        Path(args.out),
        args.eval_every,
        args.eval_episodes,
        args.overspeed,
        args.engine,
    )
    print(json.dumps(s, indent=1))


if __name__ == "__main__":
    main()
