"""Gymnasium env throughput: env.step against the physics it contains, per walker, vectorized.

Run: python benchmarks/bench_envs.py [--quick] [--json] [--only ratio|walkers|vector]

Everything is measured in one process and one run, so the ratios hold on a noisy machine:

- ratio: env.step (gaitsim/Walk-v0, fox, prior mode, flat, 60 Hz control over 240 Hz
  physics) against the bare physics substeps of the same motion, in interleaved blocks,
  in a first episode and again after reset(seed=0) (the env keeps the reference-body
  table of a repeated command, so a repeated episode does not tabulate it again).
  Twins built from the same seed walk identically (the physics is deterministic; the gap is
  reported): ``env`` is stepped by env.step; ``env_fast`` too, with run_metrics=False (no
  support margin in info); ``controller`` by GaitController.step() alone (the simulator's
  own loop, no observation, reward or info); ``physics`` replays the env's joint commands
  with world.step(substeps) and nothing else. Ratio = physics time / env time per block,
  median over blocks; the goal is >= 0.8;
- walkers: env steps per second for every built-in walker (prior mode; bipeds with the
  body assist), and for the fox in every registered preset and action mode (random
  actions, episodes reset as they end);
- vector: gymnasium.vector.AsyncVectorEnv with 2 workers against one env in this process
  (and against 1 worker): env steps per second and the speed-up. A step is ~0.5 ms, so
  Gymnasium's pipe round trip per step and worker (and the info dict's pickling and
  merging) weighs heavily: the speed-up stays well under the number of cores.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from functools import partial

os.environ.setdefault("OMP_NUM_THREADS", "1")

import gymnasium as gym
import numpy as np
from bench_physics import replay  # the same twin replay as the physics benchmark

import gaitsim
import gaitsim.sim  # pybullet's banner goes to stderr, so --json output stays clean

WALKERS = ("fox", "hound", "mechanic", "raptor", "horn_beetle", "spider_bot")
ASSISTED = ("mechanic", "raptor")
MODES = ("prior", "residual", "modulate", "joint")
RATIO_GOAL = 0.8

FULL = {"blocks": 10, "block_steps": 200, "warmup": 60, "walker_steps": 1500, "vec_steps": 1500}
QUICK = {"blocks": 4, "block_steps": 60, "warmup": 20, "walker_steps": 300, "vec_steps": 300}


def make(env_id="gaitsim/Walk-v0", **kw):
    # the raw env: the TimeLimit and checker wrappers are the user's choice, not the env's cost
    return gym.make(env_id, disable_env_checker=True, **kw).unwrapped


# ---------------------------------------------------------------------- 1. ratio
EPISODES = ("first", "repeat")


def bench_ratio(blocks: int, block_steps: int, warmup: int) -> dict:
    """The interleaved-blocks ratio, in a first episode (the env tabulates the reference
    body as it goes) and in a repeated one (reset with the same seed: the same command, so
    the table built before serves again, as in training with a fixed command)."""
    twins = [make(run_metrics=rm) for rm in (True, False, True, True)]
    out: dict = {"steps_per_block": block_steps, "blocks": blocks, "goal": RATIO_GOAL}
    for episode in EPISODES:
        for e in twins:
            e.reset(seed=0)
        out[episode] = _episode_ratio(*twins, blocks, block_steps, warmup)
    out["substeps_per_step"] = twins[0].controller.substeps
    out["meets_goal"] = all(out[e]["ratio_env"] >= RATIO_GOAL for e in EPISODES)
    for e in twins:
        e.close()
    return out


def _episode_ratio(env, fast, twin_c, twin_p, blocks: int, block_steps: int, warmup: int):
    ctl_c = twin_c.controller
    robot_p, world_p = twin_p.robot, twin_p.world
    n_sub = env.controller.substeps
    commands: list = []
    torques: list = []
    command = type(env.robot).command_joint_list.__get__(env.robot)
    torque = type(env.robot).command_torque_list.__get__(env.robot)

    def capture(q, v=None, kp=None, forces=None):  # one list append per control step
        commands.append((q, v, kp, forces))
        command(q, v, kp, forces)

    def capture_torque(tau):  # once per control step
        torques.append(tau)
        torque(tau)

    env.robot.command_joint_list = capture
    env.robot.command_torque_list = capture_torque
    none = np.zeros(0, np.float32)

    def env_block(e) -> float:
        step = e.step
        t0 = time.perf_counter()
        for _ in range(block_steps):
            step(none)
        return time.perf_counter() - t0

    def controller_block() -> float:
        step = ctl_c.step
        t0 = time.perf_counter()
        for _ in range(block_steps):
            step()
        return time.perf_counter() - t0

    def physics_block() -> float:
        # the walk's joint commands and torque feedforward on the twin (the same motion)
        return replay(robot_p, world_p, commands, torques, n_sub)

    commands.clear()
    torques.clear()
    for _ in range(warmup):
        env.step(none)
        fast.step(none)
        ctl_c.step()
    physics_block()
    times = {"env": [], "env_fast": [], "controller": [], "physics": []}
    for b in range(blocks):
        commands.clear()
        torques.clear()
        order = [("env", lambda: env_block(env)), ("env_fast", lambda: env_block(fast))]
        order += [("controller", controller_block)]
        for name, fn in order if b % 2 == 0 else order[::-1]:  # cancel slow drifts
            times[name].append(fn())
        times["physics"].append(physics_block())
    del env.robot.command_joint_list  # the class's methods again
    del env.robot.command_torque_list
    gap = max(
        float(np.max(np.abs(np.subtract(e.robot.base_pose()[0], env.robot.base_pose()[0]))))
        for e in (fast, twin_c, twin_p)
    )
    phys = times["physics"]
    out = {"twin_gap_m": gap, "physics_us_per_step": 1e6 * statistics.median(phys) / block_steps}
    for name in ("env", "env_fast", "controller"):
        t = times[name]
        out[f"{name}_us_per_step"] = 1e6 * statistics.median(t) / block_steps
        out[f"ratio_{name}"] = statistics.median(p / x for p, x in zip(phys, t, strict=True))
    out["env_over_controller"] = statistics.median(
        x / c for x, c in zip(times["env"], times["controller"], strict=True)
    )
    return out


# ---------------------------------------------------------------------- 2. walkers
def steps_per_second(env, n: int, seed: int = 0) -> tuple[float, int]:
    env.action_space.seed(seed)
    env.reset(seed=seed)
    episodes = 1
    t0 = time.perf_counter()
    for _ in range(n):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
            episodes += 1
    return n / (time.perf_counter() - t0), episodes


def bench_walkers(n: int) -> list[dict]:
    rows = []
    for w in WALKERS:
        body = "assist" if w in ASSISTED else "free"
        env = gym.make("gaitsim/Walk-v0", walker=w, body=body, disable_env_checker=True)
        rate, episodes = steps_per_second(env, n)
        u = env.unwrapped
        rows.append(
            {
                "case": f"{w} (Walk-v0, prior, {body})",
                "steps_per_s": rate,
                "sim_s_per_s": rate * u.dt,
                "episodes": episodes,
            }
        )
        env.close()
    for env_id in sorted(gaitsim.ENV_PRESETS):
        for mode in MODES:
            env = gym.make(env_id, action_mode=mode, disable_env_checker=True)
            env.reset(seed=0)  # the first ground build is not a step's cost
            rate, episodes = steps_per_second(env, n)
            rows.append(
                {
                    "case": f"fox ({env_id.split('/')[1]}, {mode})",
                    "steps_per_s": rate,
                    "sim_s_per_s": rate * env.unwrapped.dt,
                    "episodes": episodes,
                }
            )
            env.close()
    return rows


# ---------------------------------------------------------------------- 3. vector
def _vector_rate(venv, n: int) -> float:
    venv.action_space.seed(0)
    venv.reset(seed=0)
    for _ in range(20):  # workers warm
        venv.step(venv.action_space.sample())
    t0 = time.perf_counter()
    for _ in range(n):
        venv.step(venv.action_space.sample())
    return venv.num_envs * n / (time.perf_counter() - t0)


def bench_vector(n: int, repeats: int = 3) -> dict:
    """One env in this process, AsyncVectorEnv with 1 and with 2 workers, each measured
    ``repeats`` times in turn (medians): env steps per second."""
    fn = partial(gym.make, "gaitsim/Walk-v0", action_mode="residual")
    single = fn()
    rates: dict[str, list[float]] = {"single": [], "async_1": [], "async_2": []}
    try:
        for _ in range(repeats):
            rates["single"].append(steps_per_second(single, n)[0])
            for k in (1, 2):
                venv = gym.vector.AsyncVectorEnv([fn] * k)
                try:
                    rates[f"async_{k}"].append(_vector_rate(venv, n // k))
                finally:
                    venv.close()
    finally:
        single.close()
    med = {k: statistics.median(v) for k, v in rates.items()}
    return {
        "single_env_steps_per_s": med["single"],
        "async_1_worker_env_steps_per_s": med["async_1"],
        "async_2_workers_env_steps_per_s": med["async_2"],
        "speedup": med["async_2"] / med["single"],
        "speedup_over_1_worker": med["async_2"] / med["async_1"],
        "cores": os.cpu_count(),
    }


# ---------------------------------------------------------------------- output
def table(rows: list[list], header: list[str]) -> str:
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="short runs (a smoke test)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument(
        "--only",
        choices=("ratio", "walkers", "vector"),
        help="run one part (default: all three)",
    )
    args = ap.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    t0 = time.perf_counter()

    def run(part: str) -> bool:
        return args.only in (None, part)

    ratio = bench_ratio(cfg["blocks"], cfg["block_steps"], cfg["warmup"]) if run("ratio") else None
    walkers = bench_walkers(cfg["walker_steps"]) if run("walkers") else None
    vector = bench_vector(cfg["vec_steps"]) if run("vector") else None
    result = {
        "quick": args.quick,
        "ratio": ratio,
        "walkers": walkers,
        "vector": vector,
        "wall_s": time.perf_counter() - t0,
    }
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if ratio is not None:
        print_ratio(ratio)
    if walkers is not None:
        print_walkers(walkers)
    if vector is not None:
        print_vector(vector)
    print(f"({result['wall_s']:.0f} s)")
    return 0


def print_ratio(r: dict) -> None:
    print(
        f"env.step vs the physics it contains (fox, Walk-v0, prior, {r['substeps_per_step']} "
        f"substeps/step, median of {r['blocks']} interleaved blocks of {r['steps_per_block']} "
        "steps, in a first and a repeated episode)"
    )
    rows = []
    for ep in EPISODES:
        e = r[ep]
        rows.append([ep, "physics substeps only", f"{e['physics_us_per_step']:.0f}", "1.00"])
        for name, label in (
            ("controller", "GaitController.step"),
            ("env_fast", "env.step, run_metrics=False"),
            ("env", "env.step"),
        ):
            ratio = f"{e[f'ratio_{name}']:.2f}"
            rows.append([ep, label, f"{e[f'{name}_us_per_step']:.0f}", ratio])
    print(table(rows, ["episode", "what", "us/step", "physics / it"]))
    gaps = max(r[ep]["twin_gap_m"] for ep in EPISODES)
    verdict = "meets" if r["meets_goal"] else "misses"
    first, repeat = (r[ep]["ratio_env"] for ep in EPISODES)
    print(
        f"env.step ratio {first:.2f} (first episode), {repeat:.2f} (repeated): {verdict} the "
        f"goal >= {RATIO_GOAL} (twins' largest gap {gaps:.1e} m)\n"
    )


def print_walkers(walkers: list[dict]) -> None:
    print(
        table(
            [
                [w["case"], f"{w['steps_per_s']:.0f}", f"{w['sim_s_per_s']:.1f}", w["episodes"]]
                for w in walkers
            ],
            ["walker (preset, mode)", "steps/s", "sim s / s", "episodes"],
        )
    )
    print()


def print_vector(v: dict) -> None:
    print(
        f"AsyncVectorEnv, 2 workers: {v['async_2_workers_env_steps_per_s']:.0f} env steps/s "
        f"vs {v['single_env_steps_per_s']:.0f} for one env in this process: speed-up "
        f"{v['speedup']:.2f} on {v['cores']} cores ({v['speedup_over_1_worker']:.2f} over "
        f"1 worker, {v['async_1_worker_env_steps_per_s']:.0f} env steps/s)"
    )


if __name__ == "__main__":
    sys.exit(main())
