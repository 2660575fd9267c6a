"""PyBullet against MuJoCo: Gymnasium env throughput side by side, in one run.

Run: python benchmarks/bench_engines.py [--quick] [--json]

For each case (fox, horn_beetle, spider_bot; action modes prior and residual) two raw envs
(gaitsim/Walk-v0, the engine keyword the only difference) are stepped in interleaved
blocks, the order alternating from block to block so that a slow spell on the shared
machine hits both; each block is ``block_steps`` env steps with random actions (a new
seeded episode when one ends). Reported per case: env steps per second on each engine
(median over blocks), simulated seconds per wall second, and the ratio MuJoCo / PyBullet
(median of the per-block ratios). The issue's goal is a ratio of at least 5.

Each block also times the wall time spent inside the world's ``step`` (the engine: physics
substeps, and on MuJoCo the servo updates between them), so each case reports the engines'
own cost per env step and ratio, and the rest (controller, observation, reward: the same
Python on both). The split of one MuJoCo env step (physics, controller, env) comes from a
profile of the fox in residual mode: it says what bounds the ratio.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import gymnasium as gym
import numpy as np

import gaitsim.sim  # noqa: F401  (registers the env ids; pybullet's banner to stderr)

WALKERS = ("fox", "horn_beetle", "spider_bot")
MODES = ("prior", "residual")
ENGINES = ("pybullet", "mujoco")
RATIO_GOAL = 5.0
FULL = {"blocks": 8, "block_steps": 300, "warmup": 60, "profile_steps": 600}
QUICK = {"blocks": 2, "block_steps": 60, "warmup": 10, "profile_steps": 60}


def make(engine: str, walker: str, mode: str):
    env = gym.make(
        "gaitsim/Walk-v0", walker=walker, action_mode=mode, engine=engine,
        disable_env_checker=True,
    )  # fmt: skip
    return env.unwrapped


class Stepper:
    """An env stepped with seeded random actions, reset as episodes end; ``physics``
    accumulates the wall time spent inside the world's ``step`` (the engine's share)."""

    def __init__(self, env, seed: int = 0):
        self.env = env
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.physics = 0.0
        env.reset(seed=seed)
        self._timed_world = None

    def _time_world(self) -> None:
        world = self.env.world
        if world is self._timed_world:
            return
        step = world.step  # the bound method; timed through an instance attribute

        def timed(n: int = 1) -> None:
            t0 = time.perf_counter()
            step(n)
            self.physics += time.perf_counter() - t0

        world.step = timed
        self._timed_world = world

    def run(self, n: int) -> float:
        env, shape = self.env, self.env.action_space.shape
        actions = self.rng.uniform(-1, 1, size=(n, *shape)).astype(np.float32)
        self._time_world()
        t0 = time.perf_counter()
        for a in actions:
            _, _, terminated, truncated, _ = env.step(a)
            if terminated or truncated:
                self.seed += 1
                env.reset(seed=self.seed)
                self._time_world()
        return time.perf_counter() - t0


def bench_case(walker: str, mode: str, blocks: int, block_steps: int, warmup: int) -> dict:
    steppers = {e: Stepper(make(e, walker, mode)) for e in ENGINES}
    for s in steppers.values():
        s.run(warmup)
    times: dict[str, list[float]] = {e: [] for e in ENGINES}
    physics: dict[str, list[float]] = {e: [] for e in ENGINES}
    for b in range(blocks):
        order = ENGINES if b % 2 == 0 else ENGINES[::-1]
        for e in order:
            before = steppers[e].physics
            times[e].append(steppers[e].run(block_steps))
            physics[e].append(steppers[e].physics - before)
    dt = steppers["pybullet"].env.dt
    out = {"case": f"{walker} {mode}"}
    for e in ENGINES:
        rate = block_steps / statistics.median(times[e])
        out[f"{e}_steps_per_s"] = rate
        out[f"{e}_sim_s_per_s"] = rate * dt
    out["ratio"] = statistics.median(
        p / m for p, m in zip(times["pybullet"], times["mujoco"], strict=True)
    )
    for e in ENGINES:  # the engine's own share: wall time inside world.step
        out[f"{e}_physics_us_per_step"] = 1e6 * statistics.median(physics[e]) / block_steps
        out[f"{e}_other_us_per_step"] = (
            1e6 * statistics.median(t - p for t, p in zip(times[e], physics[e], strict=True))
            / block_steps
        )
    out["physics_ratio"] = statistics.median(
        p / m for p, m in zip(physics["pybullet"], physics["mujoco"], strict=True)
    )
    for s in steppers.values():
        s.env.close()
    return out


def profile_split(steps: int) -> dict:
    """Where a MuJoCo env step's time goes (fox, residual): shares of the step."""
    stepper = Stepper(make("mujoco", "fox", "residual"))
    stepper.run(30)
    prof = cProfile.Profile()
    prof.enable()
    total = stepper.run(steps)
    prof.disable()
    stats = pstats.Stats(prof).stats
    cum = {}
    for (path, _, func), (_, _, _, ct, _) in stats.items():
        key = (os.path.basename(path), func)
        cum[key] = cum.get(key, 0.0) + ct
    env_step = cum.get(("walk.py", "step"), total)
    physics = sum(v for (_, fn), v in cum.items() if "mj_step" in fn)
    controller = cum.get(("controller.py", "step"), 0.0)
    stepper.env.close()
    return {
        "physics_share": physics / env_step,
        "controller_share": (controller - physics) / env_step,
        "env_share": (env_step - controller) / env_step,
        "profiled_steps": steps,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter blocks (smoke run)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    rows = []
    for walker in WALKERS:
        for mode in MODES:
            rows.append(bench_case(walker, mode, cfg["blocks"], cfg["block_steps"],
                                   cfg["warmup"]))  # fmt: skip
            if not args.json:
                r = rows[-1]
                print(f"{r['case']:22s} pybullet {r['pybullet_steps_per_s']:7.0f}  mujoco "
                      f"{r['mujoco_steps_per_s']:7.0f} steps/s  ratio {r['ratio']:.2f}",
                      file=sys.stderr, flush=True)  # fmt: skip
    split = profile_split(cfg["profile_steps"])
    out = {
        "config": cfg,
        "cases": rows,
        "median_ratio": statistics.median(r["ratio"] for r in rows),
        "min_ratio": min(r["ratio"] for r in rows),
        "goal": RATIO_GOAL,
        "meets_goal": min(r["ratio"] for r in rows) >= RATIO_GOAL,
        "mujoco_step_split": split,
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"\n{'case':22s} {'PyBullet steps/s':>17s} {'MuJoCo steps/s':>15s} "
          f"{'PyBullet sim s/s':>17s} {'MuJoCo sim s/s':>15s} {'ratio':>6s} "
          f"{'physics us PB/MJ':>17s} {'ratio':>6s} {'rest us PB/MJ':>14s}")  # fmt: skip
    for r in rows:
        print(f"{r['case']:22s} {r['pybullet_steps_per_s']:17.0f} {r['mujoco_steps_per_s']:15.0f} "
              f"{r['pybullet_sim_s_per_s']:17.1f} {r['mujoco_sim_s_per_s']:15.1f} "
              f"{r['ratio']:6.2f} {r['pybullet_physics_us_per_step']:8.0f}/"
              f"{r['mujoco_physics_us_per_step']:<8.0f} {r['physics_ratio']:6.2f} "
              f"{r['pybullet_other_us_per_step']:6.0f}/"
              f"{r['mujoco_other_us_per_step']:<6.0f}")  # fmt: skip
    print(f"\nmedian ratio {out['median_ratio']:.2f}, lowest {out['min_ratio']:.2f} "
          f"(goal {RATIO_GOAL:g}: {'met' if out['meets_goal'] else 'not met'})")
    print("one MuJoCo env step (fox, residual, profiled): physics "
          f"{split['physics_share']:.0%}, controller {split['controller_share']:.0%}, "
          f"env (observation, reward, info) {split['env_share']:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
