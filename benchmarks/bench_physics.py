"""Physics runs: controller overhead, sim-seconds per wall-second, solver and control-rate costs.

Run: python benchmarks/bench_physics.py [--quick] [--json]
                                        [--only overhead|throughput|solver|control]

Everything is measured in one process and one run, so the ratios hold on a noisy machine:

- overhead: GaitController.step() in full against the bare physics substeps of an identical
  robot in an identical world, driven by position control with the walking robot's joint
  commands (so it makes the very same motion), and of one standing held (fox, 240 Hz sim,
  60 Hz control, free body, flat ground), in interleaved blocks: median ratio total /
  physics, and where the controller's time goes (timing wrappers installed on the instances,
  the library untouched);
- throughput: simulate(walker, seconds=10) for every built-in walker (bipeds with the body
  assist): simulated seconds per wall second, build and summary time apart;
- solver: wall time per simulated second and the walk's slip, speed and falls for 10, 25, 50
  and 100 solver iterations (fox, spider_bot);
- control: the fox at 60, 120 and 240 Hz control.

What runs is deterministic (same walkers, seeds, step counts); only the timings vary.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from contextlib import contextmanager

os.environ.setdefault("OMP_NUM_THREADS", "1")

import gaitsim.sim  # noqa: F401  (imports pybullet with its banner on stderr: --json stays clean)
from gaitsim.sim import run as run_mod
from gaitsim.sim.controller import ControlConfig, GaitController
from gaitsim.sim.robot import Robot
from gaitsim.sim.world import World
from gaitsim.terrain import Flat
from gaitsim.walker import Walker, resolve_entry

WALKERS = ("fox", "hound", "mechanic", "raptor", "horn_beetle", "spider_bot")
ASSISTED = ("mechanic", "raptor")  # bipeds: walked with the body assist
SOLVER_WALKERS = ("fox", "spider_bot")
SOLVER_ITERATIONS = (10, 25, 50, 100)
CONTROL_RATES = (60.0, 120.0, 240.0)
SIM_HZ = 240.0
OVERHEAD_GOAL = 1.25

# (blocks, control steps per block, warm-up control steps, simulated seconds per run,
#  repeats per run)
FULL = {"blocks": 10, "block_steps": 200, "warmup": 60, "seconds": 10.0, "repeats": 5}
QUICK = {"blocks": 4, "block_steps": 60, "warmup": 20, "seconds": 2.0, "repeats": 1}


def config_for(walker: str, **kw) -> ControlConfig:
    return ControlConfig(body="assist" if walker in ASSISTED else "free", **kw)


# ---------------------------------------------------------------------- timing wrappers
class Timers:
    """Exclusive wall time per named piece: a wrapped call nested in another wrapped call is
    charged to itself only, so the pieces add up to the instrumented total."""

    def __init__(self):
        self.total: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._stack: list[float] = []  # time spent in children of each open call

    def wrap(self, name: str, fn):
        clock, stack, total, calls = time.perf_counter, self._stack, self.total, self.calls
        total.setdefault(name, 0.0)
        calls.setdefault(name, 0)

        def timed(*args, **kwargs):
            stack.append(0.0)
            t0 = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                dt = clock() - t0
                child = stack.pop()
                total[name] += dt - child
                calls[name] += 1
                if stack:
                    stack[-1] += dt

        return timed


# The pieces of a control step, timed on the instances (obj attribute -> label). The
# controller-maths pieces are its private helpers; whatever step() does itself (distances,
# Raibert correction, velocity feedforward, gains) is the "step body" remainder.
PIECES = (
    ("world", "step", "physics substeps (world.step)"),
    ("robot", "sense", "state reads (robot.sense)"),
    ("robot", "command_joint_list", "commands (command_joint_list)"),
    ("robot", "command_torque_list", "torque feedforward (command_torque_list)"),
    ("robot", "command_upper", "commands: upper body (command_upper)"),
    ("recorder", "add", "recording (Recorder.add)"),
    ("ctl", "_sense", "recording (the row a step, _sense)"),
    ("table", "lookup", "maths: reference table lookups"),
    ("table", "_extend", "maths: reference table growth (pose_at)"),
    ("ctl", "_plan_feet", "maths: foot plan (_plan_feet)"),
    ("ctl", "_virtual_body", "maths: virtual body"),
    ("ctl", "_solve_one", "maths: leg IK (_solve_one)"),
    ("ctl", "_solve_in_body", "maths: leg IK (_solve_in_body, no hip yaw)"),
    ("ctl", "_stance_load", "maths: load sharing (_stance_load)"),
    ("ctl", "advance_odometry", "maths: odometry"),
    ("upper", "step", "upper body: rules and head yaw (step)"),
    ("upper", "hold", "upper body: loops per substep (hold)"),
    ("robot", "base_pose", "upper body: base pose reads (base_pose)"),
)


def replay(robot, world, events) -> float:
    """Send a walk's recorded commands to a twin robot and step its world as the walk did:
    the leg joints' position commands, the torque feedforward, the upper body's joint
    commands (a closed-loop head or waist is commanded before every substep) and the world
    steps, in the walk's order (the same motion, bit for bit); returns the wall time."""
    calls = {
        "legs": robot.command_joint_list,
        "torque": robot.command_torque_list,
        "upper": robot.command_upper,
        "step": world.step,
    }
    t0 = time.perf_counter()
    for kind, args, kw in events:
        calls[kind](*args, **kw)
    return time.perf_counter() - t0


@contextmanager
def instrumented(ctl: GaitController, timers: Timers):
    """Install timing wrappers as instance attributes (the classes are not touched)."""
    objs = {
        "world": ctl.world,
        "robot": ctl.robot,
        "recorder": ctl.record,
        "table": ctl.table,
        "ctl": ctl,
        "upper": ctl.upper,  # None for a walker without an upper body: not timed
    }
    saved = []
    for obj, attr, label in PIECES:
        o = objs[obj]
        if o is None or not callable(getattr(o, attr, None)):  # absent or renamed: not timed
            continue
        saved.append((o, attr, vars(o).get(attr)))  # an instance attribute already there
        setattr(o, attr, timers.wrap(label, getattr(o, attr)))
    try:
        yield
    finally:
        for o, attr, old in reversed(saved):
            if old is None:
                delattr(o, attr)
            else:
                setattr(o, attr, old)


def wrapper_cost_us(n: int = 20000) -> float:
    """What one timing wrapper adds to a call (us), measured on a no-op."""

    def noop():
        return None

    wrapped = Timers().wrap("noop", noop)
    best = []
    for fn in (noop, wrapped):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best.append(time.perf_counter() - t0)
    return (best[1] - best[0]) / n * 1e6


# ---------------------------------------------------------------------- 1. overhead
def build(
    walker: str = "fox", *, record: bool = True, solver_iterations: int = 50, seconds: float = 60.0
):
    """World + Robot + GaitController as simulate() builds them (flat ground, straight path,
    the reference tabulated for ``seconds`` of walking up front, as simulate() does)."""
    entry = resolve_entry(walker)
    terrain = Flat()
    speed = entry.gait.clip_speed
    path = run_mod.make_path(entry, speed)
    kin = Walker(entry, terrain, path, 1.0, **run_mod.physics_walker_options())  # the sway
    world = World(
        terrain, time_step=1.0 / SIM_HZ, friction=1.0, solver_iterations=solver_iterations
    )
    robot = Robot(world, entry)
    horizon = speed * seconds * 1.05 + kin.cycle
    ctl = GaitController(world, robot, kin, config_for(walker), record=record, horizon=horizon)
    return world, ctl


def base_gap(a: GaitController, b: GaitController) -> float:
    """Largest difference (m, or quaternion units) between two robots' base poses."""
    pa = a.robot.base_pose()
    pb = b.robot.base_pose()
    return float(max(abs(pa[0] - pb[0]).max(), abs(pa[1] - pb[1]).max()))


def bench_overhead(blocks: int, block_steps: int, warmup: int) -> dict:
    """ctl.step() against the bare substeps of twin robots, in interleaved blocks.

    Three robots in three identical worlds (same walker, flat ground, solver, time step),
    each placed and commanded by a GaitController built as simulate() builds it:

    - ``walk``: stepped by ``ctl.step()`` (record=True): the full control step;
    - ``replay``: never stepped by its controller; it gets the walking robot's commands and
      world steps in the walk's order (``replay``: per control step one leg command, the
      torque feedforward, and with a closed-loop head an upper-body command before each
      substep). The physics is deterministic, so it makes exactly the
      walking robot's motion (checked: ``replay_base_gap_m``): bare physics of the same
      work. The headline ratio is walk / replay;
    - ``held``: stands where it was placed, held by position control (the stance gains)
      and stepped ``world.step(substeps)`` per control step. Its physics is not the walk's
      (all feet loaded, none swinging), so walk / held is reported as a second figure.
    """
    world, ctl = build("fox")
    world_r, ctl_r = build("fox", record=False)
    world_h, _ = build("fox", record=False)
    n_sub = ctl.substeps
    events: list = []  # the walk's commands and world steps, in order (a list append each)

    def frozen(a):  # the controller reuses its arrays (the head's targets change in place)
        return a.copy() if hasattr(a, "copy") else a

    def capture(kind, fn):
        def captured(*args, **kw):
            events.append((kind, tuple(map(frozen, args)), {k: frozen(v) for k, v in kw.items()}))
            return fn(*args, **kw)

        return captured

    robot = ctl.robot
    robot.command_joint_list = capture("legs", robot.command_joint_list)
    robot.command_torque_list = capture("torque", robot.command_torque_list)
    robot.command_upper = capture("upper", robot.command_upper)
    world.step = capture("step", world.step)
    timers = Timers()
    try:

        def walk_block(instrument: bool) -> float:
            events.clear()
            step = ctl.step
            if instrument:
                with instrumented(ctl, timers):
                    t0 = time.perf_counter()
                    for _ in range(block_steps):
                        step()
                    return time.perf_counter() - t0
            t0 = time.perf_counter()
            for _ in range(block_steps):
                step()
            return time.perf_counter() - t0

        def replay_block() -> float:
            return replay(ctl_r.robot, world_r, events)

        def held_block() -> float:
            step = world_h.step
            t0 = time.perf_counter()
            for _ in range(block_steps):
                step(n_sub)
            return time.perf_counter() - t0

        # warm-up: the first steps (first table extension, caches); the twins follow
        events.clear()
        for _ in range(warmup):
            ctl.step()
        replay(ctl_r.robot, world_r, events)
        world_h.step(warmup * n_sub)

        t_walk, t_replay, t_held, t_instr, t_instr_replay = [], [], [], [], []
        r_replay, r_held, r_loop = [], [], []
        gap = 0.0
        phys = "physics substeps (world.step)"
        for b in range(blocks):
            # held before or after, alternately, so slow drifts of the machine cancel
            if b % 2:
                t_held.append(held_block())
            t_walk.append(walk_block(False))
            t_replay.append(replay_block())
            if not b % 2:
                t_held.append(held_block())
            before = timers.total.get(phys, 0.0)
            t_instr.append(walk_block(True))
            in_loop = timers.total[phys] - before
            t_instr_replay.append(replay_block())
            gap = max(gap, base_gap(ctl, ctl_r))
            r_replay.append(t_walk[-1] / t_replay[-1])
            r_held.append(t_walk[-1] / t_held[-1])
            r_loop.append(in_loop / t_instr_replay[-1])
        n_instr = blocks * block_steps
        per_step = {k: v / n_instr * 1e6 for k, v in timers.total.items()}
        instr_us = sum(t_instr) / n_instr * 1e6
        per_step["step body (rest of GaitController.step)"] = instr_us - sum(per_step.values())
        fell = bool(ctl._last.body_contact)
        walked = ctl.progress
    finally:
        world.close()
        world_r.close()
        world_h.close()

    def us(ts):
        return statistics.median(ts) / block_steps * 1e6

    walk_us, replay_us = us(t_walk), us(t_replay)
    return {
        "walker": "fox",
        "sim_hz": SIM_HZ,
        "control_hz": ctl.config.control_hz,
        "substeps": n_sub,
        "blocks": blocks,
        "block_steps": block_steps,
        "ratio": statistics.median(r_replay),
        "ratio_min": min(r_replay),
        "ratio_max": max(r_replay),
        "ratio_over_held": statistics.median(r_held),
        "in_loop_over_replay_physics": statistics.median(r_loop),
        "replay_base_gap_m": gap,
        "goal": OVERHEAD_GOAL,
        "step_us": walk_us,
        "replay_physics_us_per_step": replay_us,
        "held_physics_us_per_step": us(t_held),
        "overhead_us_per_step": walk_us - replay_us,
        "budget_us_per_step": (OVERHEAD_GOAL - 1.0) * replay_us,
        "instrumented_step_us": instr_us,
        "wrapper_us_per_call": wrapper_cost_us(),
        "breakdown_us_per_step": per_step,
        "calls_per_step": {k: v / n_instr for k, v in timers.calls.items()},
        "walked_m": walked,
        "body_contact_at_end": fell,
    }


# ---------------------------------------------------------------------- 2-4. simulate()
@contextmanager
def phase_clock():
    """Time simulate()'s phases by wrapping the names it looks up in gaitsim.sim.run."""
    marks: dict = {}
    saved = {k: getattr(run_mod, k) for k in ("make_world", "GaitController", "summarize")}

    physics = Timers()
    marks["physics"] = physics

    def world(*a, **kw):
        marks["world"] = time.perf_counter()
        w = saved["make_world"](*a, **kw)
        w.step = physics.wrap("physics", w.step)  # the substeps' wall time (~0.25 us a call)
        return w

    def controller(*a, **kw):
        c = saved["GaitController"](*a, **kw)
        marks["built"] = time.perf_counter()
        return c

    def summarize(*a, **kw):
        marks["summarize"] = time.perf_counter()
        return saved["summarize"](*a, **kw)

    run_mod.make_world, run_mod.GaitController, run_mod.summarize = world, controller, summarize
    try:
        yield marks
    finally:
        for k, v in saved.items():
            setattr(run_mod, k, v)


def timed_simulate(walker: str, seconds: float, **kw) -> dict:
    """One simulate() call: its summary and the wall time of each phase."""
    last = [0.0]

    def on_step(_ctl):
        last[0] = time.perf_counter()

    with phase_clock() as marks:
        t0 = time.perf_counter()
        res = run_mod.simulate(walker, seconds=seconds, on_step=on_step, **kw)
        t1 = time.perf_counter()
    s = res.summary
    return {
        "setup_s": marks["world"] - t0,  # path, Walker (kinematics)
        "build_s": marks["built"] - marks["world"],  # World + Robot + GaitController
        "walk_s": last[0] - marks["built"],  # the control loop (incl. simulate's fall check)
        "finish_s": t1 - last[0],  # arrays + summarize
        "physics_s": marks["physics"].total["physics"],  # world.step inside the loop
        "total_s": t1 - t0,
        "simulated_s": s["simulated_s"],
        "slip_mm_per_stance": s["slip_mm_per_stance"],
        "speed_ratio": s["speed_ratio"],
        "fell": s["fell"],
    }


METRICS = ("simulated_s", "slip_mm_per_stance", "speed_ratio", "fell")


def grid(cases: list[tuple[dict, str, dict]], seconds: float, repeats: int) -> list[dict]:
    """Run every case ``(row labels, walker, simulate keywords)`` ``repeats`` times, the
    repeats outermost (so a slow spell of the machine hits every case alike), and give
    per case the median timings and the walk's metrics. The metrics are the same in every
    repeat when the physics is deterministic, which ``deterministic`` checks; ``runs`` keeps
    each repeat's timings for ratios within a repeat (see ``relative``)."""
    runs: list[list[dict]] = [[] for _ in cases]
    for _ in range(repeats):
        for i, (_, walker, kw) in enumerate(cases):
            runs[i].append(timed_simulate(walker, seconds, **kw))
    rows = []
    for (labels, _, _), rs in zip(cases, runs, strict=True):
        out = dict(labels)
        for k in ("setup_s", "build_s", "walk_s", "finish_s", "total_s", "physics_s"):
            out[k] = statistics.median(r[k] for r in rs)
        out.update({k: rs[0][k] for k in METRICS})
        out["deterministic"] = all(r[k] == rs[0][k] for r in rs for k in METRICS)
        out["sim_s_per_wall_s"] = out["simulated_s"] / out["walk_s"]
        out["sim_s_per_wall_s_total"] = out["simulated_s"] / out["total_s"]
        out["wall_ms_per_sim_s"] = 1000.0 * out["walk_s"] / out["simulated_s"]
        out["physics_ms_per_sim_s"] = 1000.0 * out["physics_s"] / out["simulated_s"]
        out["other_ms_per_sim_s"] = out["wall_ms_per_sim_s"] - out["physics_ms_per_sim_s"]
        out["physics_share"] = out["physics_s"] / out["walk_s"]
        for k in ("setup", "build", "finish"):
            out[f"{k}_ms"] = 1000.0 * out[f"{k}_s"]
        out["runs"] = [{k: r[k] for k in ("walk_s", "physics_s", "simulated_s")} for r in rs]
        rows.append(out)
    return rows


def relative(rows: list[dict], is_ref, same_group, name: str) -> None:
    """``<name>``: wall time per simulated second over that of the group's reference row,
    the median over repeats of the ratio within each repeat (runs close in time: robust to
    the machine's slow spells); ``physics_<name>``: the same for the physics alone."""
    for row in rows:
        ref = next(r for r in rows if same_group(r, row) and is_ref(r))
        for key, out in (("walk_s", name), ("physics_s", f"physics_{name}")):
            row[out] = statistics.median(
                (a[key] / a["simulated_s"]) / (b[key] / b["simulated_s"])
                for a, b in zip(row["runs"], ref["runs"], strict=True)
            )


def bench_throughput(seconds: float, repeats: int) -> list[dict]:
    cases = [
        ({"walker": w, "body": config_for(w).body}, w, {"config": config_for(w)}) for w in WALKERS
    ]
    return grid(cases, seconds, repeats)


def bench_solver(seconds: float, repeats: int) -> list[dict]:
    cases = [
        (
            {"walker": w, "solver_iterations": n},
            w,
            {"config": config_for(w), "solver_iterations": n},
        )
        for w in SOLVER_WALKERS
        for n in SOLVER_ITERATIONS
    ]
    rows = grid(cases, seconds, repeats)
    relative(  # cost relative to the default 50 iterations of the same walker
        rows,
        lambda r: r["solver_iterations"] == 50,
        lambda a, b: a["walker"] == b["walker"],
        "cost_vs_50",
    )
    return rows


def bench_control(seconds: float, repeats: int) -> list[dict]:
    cases = [
        ({"walker": "fox", "control_hz": hz}, "fox", {"config": config_for("fox", control_hz=hz)})
        for hz in CONTROL_RATES
    ]
    rows = grid(cases, seconds, repeats)
    relative(rows, lambda r: r["control_hz"] == 60.0, lambda a, b: True, "cost_vs_60hz")
    return rows


# ---------------------------------------------------------------------- output
def table(headers, rows) -> str:
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join("  " + ln for ln in lines)


def print_overhead(o: dict) -> None:
    ok = "meets" if o["ratio"] <= o["goal"] else "ABOVE"
    print(
        f"1. controller + metrics overhead: {o['walker']}, {o['sim_hz']:g} Hz sim / "
        f"{o['control_hz']:g} Hz control ({o['substeps']} substeps), free body, flat ground; "
        f"{o['blocks']} interleaved blocks of {o['block_steps']} control steps"
    )
    print(
        f"   ratio ctl.step() / bare physics of the same motion: {o['ratio']:.3f} "
        f"(blocks {o['ratio_min']:.3f} .. {o['ratio_max']:.3f}; goal <= {o['goal']}: {ok})"
    )
    print(
        f"   ratio ctl.step() / physics of a robot standing held: {o['ratio_over_held']:.3f} "
        "(standing contacts cost more than walking ones)"
    )
    print(
        f"   per control step: ctl.step() {o['step_us']:.0f} us, bare physics "
        f"{o['replay_physics_us_per_step']:.0f} us (standing held "
        f"{o['held_physics_us_per_step']:.0f} us); overhead {o['overhead_us_per_step']:.0f} us, "
        "budget for the goal "
        f"{o['budget_us_per_step']:.0f} us"
    )
    print(
        f"   replay twin's base pose gap {o['replay_base_gap_m']:.1e}; in-loop physics / replay "
        f"physics {o['in_loop_over_replay_physics']:.3f}"
    )
    bd = o["breakdown_us_per_step"]
    tot = o["instrumented_step_us"]
    rows = [
        [k, f"{v:.1f}", f"{100 * v / tot:.1f}", f"{o['calls_per_step'][k]:g}"]
        if k in o["calls_per_step"]
        else [k, f"{v:.1f}", f"{100 * v / tot:.1f}", ""]
        for k, v in bd.items()
    ]
    rows.append(["total (instrumented)", f"{tot:.1f}", "100.0", ""])
    print(table(["piece (exclusive time)", "us/step", "%", "calls/step"], rows))
    print(
        f"   (timing wrappers add {o['wrapper_us_per_call']:.2f} us per call; walked "
        f"{o['walked_m']:.1f} m, body on the ground at the end: {o['body_contact_at_end']})"
    )


def _f(x, fmt):
    return "-" if x is None else format(x, fmt)


def print_runs(title: str, rows: list[dict], keys: list[tuple[str, str, str]]) -> None:
    print(title)
    print(
        table(
            [h for h, _, _ in keys],
            [[_f(r[k], fmt) if fmt else str(r[k]) for _, k, fmt in keys] for r in rows],
        )
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run: fewer, shorter runs")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--only", choices=["overhead", "throughput", "solver", "control"])
    args = ap.parse_args(argv)
    k = QUICK if args.quick else FULL
    want = [args.only] if args.only else ["overhead", "throughput", "solver", "control"]
    t_start = time.perf_counter()
    out: dict = {"quick": args.quick, "settings": k, "python": sys.version.split()[0]}
    out["cpus"] = os.cpu_count()
    out["load_before"] = os.getloadavg()[0]
    run_mod.simulate("fox", seconds=0.25)  # warm-up: imports, URDF cache, first allocations
    if "overhead" in want:
        out["overhead"] = bench_overhead(k["blocks"], k["block_steps"], k["warmup"])
    if "throughput" in want:
        out["throughput"] = bench_throughput(k["seconds"], k["repeats"])
    if "solver" in want:
        out["solver"] = bench_solver(k["seconds"], k["repeats"])
    if "control" in want:
        out["control"] = bench_control(k["seconds"], k["repeats"])
    out["bench_wall_s"] = time.perf_counter() - t_start
    out["load_after"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(out))
        return 0
    print(
        f"bench_physics ({'quick' if args.quick else 'full'}; {out['cpus']} CPUs; "
        f"simulate runs of {k['seconds']:g} s, median of {k['repeats']}; "
        f"1-min load average {out['load_before']:.1f} at the start)"
    )
    if "overhead" in out:
        print_overhead(out["overhead"])
    timing = [
        ("sim s", "simulated_s", ".1f"),
        ("sim-s/wall-s", "sim_s_per_wall_s", ".1f"),
        ("incl. build", "sim_s_per_wall_s_total", ".1f"),
        ("wall ms/sim-s", "wall_ms_per_sim_s", ".1f"),
        ("physics ms", "physics_ms_per_sim_s", ".1f"),
        ("other ms", "other_ms_per_sim_s", ".1f"),
    ]
    gait = [
        ("slip mm/stance", "slip_mm_per_stance", ".2f"),
        ("speed ratio", "speed_ratio", ".3f"),
        ("fell", "fell", ""),
        ("same each repeat", "deterministic", ""),
    ]
    if "throughput" in out:
        print_runs(
            "2. throughput: simulate(walker, seconds) (sim-s/wall-s of the control loop; "
            "build = World + Robot + GaitController)",
            out["throughput"],
            [
                ("walker", "walker", ""),
                ("body", "body", ""),
                *timing,
                ("setup ms", "setup_ms", ".1f"),
                ("build ms", "build_ms", ".1f"),
                ("summary ms", "finish_ms", ".1f"),
                *gait,
            ],
        )
    if "solver" in out:
        print_runs(
            "3. solver iterations (flat ground)",
            out["solver"],
            [
                ("walker", "walker", ""),
                ("iterations", "solver_iterations", ""),
                *timing[1:],
                ("cost vs 50", "cost_vs_50", ".2f"),
                ("physics vs 50", "physics_cost_vs_50", ".2f"),
                *gait,
            ],
        )
    if "control" in out:
        print_runs(
            "4. control rate (fox, 240 Hz sim)",
            out["control"],
            [
                ("control Hz", "control_hz", ".0f"),
                *timing[1:],
                ("cost vs 60 Hz", "cost_vs_60hz", ".2f"),
                *gait,
            ],
        )
    print(
        f"(benchmark wall time {out['bench_wall_s']:.1f} s; load average at the end "
        f"{out['load_after']:.1f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
