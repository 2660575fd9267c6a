"""Train a small PPO policy on top of a walker's gait and evaluate it.

    pip install torch==2.13.0 && pip install "gaitsim[rl]"
    python examples/train_rl.py --steps 2048

The env is gaitsim/Walk-v0 in the ``residual`` action mode: the gait drives the legs and
the policy adds joint offsets (0.25 rad times its action) on top, so even an untrained
policy walks. The walker comes from examples/my_walker.json (--catalog FILE for another
catalog); a name that is not in that catalog is looked up among the built-in walkers
(--walker fox). After training, a few deterministic episodes give the mean return.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # small networks: threads only add overhead

import gymnasium as gym
import numpy as np

import gaitsim  # registers the gaitsim/... env ids

HERE = Path(__file__).resolve().parent


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--catalog",
        default=str(HERE / "my_walker.json"),
        metavar="FILE",
        help="catalog JSON (default: examples/my_walker.json)",
    )
    ap.add_argument(
        "--walker",
        help="walker name: in --catalog, else a built-in one (default: the catalog's first)",
    )
    ap.add_argument("--steps", type=int, default=2048, help="PPO training steps (default 2048)")
    ap.add_argument(
        "--episode-steps",
        type=int,
        default=480,
        help="control steps per episode, 60 per simulated second (default 480)",
    )
    ap.add_argument("--eval-episodes", type=int, default=3, help="evaluation episodes (default 3)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--out", metavar="DIR", help="save the trained policy as DIR/ppo_<walker>.zip")
    args = ap.parse_args(argv)
    for flag in ("steps", "episode_steps", "eval_episodes"):
        if getattr(args, flag) < 1:
            ap.error(f"--{flag.replace('_', '-')} must be at least 1")
    return args


def pick_walker(catalog_path: str, name: str | None) -> gaitsim.Entry:
    catalog = gaitsim.load_catalog(catalog_path)
    if name is None:
        return next(iter(catalog.values()))
    if name in catalog:
        return catalog[name]
    builtin = gaitsim.load_catalog()
    if name in builtin:
        return builtin[name]
    raise KeyError(
        f"no walker named {name!r}; {catalog_path} has {', '.join(catalog)}, "
        f"the built-in catalog has {', '.join(builtin)}"
    )


def make_env(entry: gaitsim.Entry, episode_steps: int):
    return gym.make(
        "gaitsim/Walk-v0",
        walker=entry,
        action_mode="residual",
        start_phase=(0.0, 1.0),  # each episode starts at a random point of the gait cycle
        max_episode_steps=episode_steps,
    )


def evaluate(env, model, episodes: int, seed: int) -> list[float]:
    """Returns of episodes with the deterministic policy (seeded resets: repeatable runs)."""
    returns = []
    for k in range(episodes):
        obs, _ = env.reset(seed=seed + k)
        done, total = False, 0.0
        while not done:
            action, _ = model.predict(obs, deterministic=True)
            obs, reward, terminated, truncated, _ = env.step(action)
            total += float(reward)
            done = terminated or truncated
        returns.append(total)
    return returns


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        from stable_baselines3 import PPO
    except ImportError:
        hint = 'pip install torch==2.13.0 && pip install "gaitsim[rl]"'
        print(f"train_rl: needs stable-baselines3: {hint}", file=sys.stderr)
        return 2
    try:
        entry = pick_walker(args.catalog, args.walker)
    except (gaitsim.CatalogError, KeyError) as exc:
        print(f"train_rl: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2

    env = make_env(entry, args.episode_steps)
    rollout = min(1024, max(64, args.steps))  # PPO collects this many steps per update
    model = PPO(
        "MlpPolicy",
        env,
        seed=args.seed,
        n_steps=rollout,
        batch_size=min(64, rollout),
        policy_kwargs={"net_arch": [64, 64], "log_std_init": -1.0},
        device="cpu",
        verbose=0,
    )
    model.learn(total_timesteps=args.steps)
    print(f"trained PPO on {entry.name} for {model.num_timesteps} steps (residual actions)")

    eval_env = make_env(entry, args.episode_steps)
    returns = evaluate(eval_env, model, args.eval_episodes, seed=args.seed + 1000)
    eval_env.close()
    env.close()
    print(f"evaluation: {len(returns)} episodes of up to {args.episode_steps} steps")
    print(f"mean return {np.mean(returns):.2f} (min {min(returns):.2f}, max {max(returns):.2f})")

    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"ppo_{entry.name}.zip"
        model.save(path)
        print(f"policy saved to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
