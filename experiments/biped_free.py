"""The bipeds on their own feet: the built-in bipeds with a free body (no assist) on the
conditions of the bipeds issue, and the largest sideways push each survives.

Run: python experiments/biped_free.py [--workers 2] [--walkers mechanic,raptor]
[--catalog FILE] [--json FILE] [--feet derived|set_back|no_hip_yaw] [--generated N]
[--starts N] [--engine pybullet|mujoco] [--push-off] [--walks-only] [--skip N]
[--plain-stance] [--roll-follow-planted] [--stride R] [--body free|assist]
[--ground flat|up5|down5|rough] [--set FIELD=VALUE ...]
``--push-off`` runs every cell with the opt-in push-off (``controller.PUSH_OFF``:
``ControlConfig.roll_follow`` and ``sole_track_lead``; docs/bipeds.md, stop 54).
``--catalog FILE`` runs the two-legged walkers of a catalog of your own instead of the
built-in ones (``--walkers`` then names walkers of that file; default: all its bipeds).
``--feet no_hip_yaw`` runs each biped without the hip yaw joints its legs get by default
(``"hip_yaw": false``). ``--starts N`` runs each walker's conditions from N start points
(the default one, then episode seeds 1..N-1; rough ground: grounds 0..N-1; flat ground
20 s, the rest 10 s, pushes of 0.2 and 0.3 m/s either way at 5 s) and prints how many
walked. ``--feet set_back`` runs each biped as a catalog variant: every sole's ankle yaws too
(``"ankle": "yaw_pitch_roll"``) and every home (with the hip above it) sits (toe - heel) / 2
further back, so the middle of the derived sole, not its ankle, stands under the hip
(``set_back``). ``--generated N`` runs, instead of the conditions below, the first N
generated bipeds (``gaitsim.generate``) 10 s on flat ground from two start points;
``--tempo R`` (with ``--generated``) first sets each one's ``clip_speed`` so that its
gait cycle lasts R periods of a pendulum as long as its hip is high (2 pi sqrt(h / g)),
its stride unchanged: the built-in bipeds step at 0.59 (mechanic) and 0.67 (raptor).
``--walks-only`` keeps only the generated bipeds without flight phases (duty >= 0.5) and
``--skip N`` leaves out the first N of them (``--generated 72 --walks-only --skip 72``: the
held-out sample of docs/bipeds.md, stop 55). ``--plain-stance`` runs slow bipeds on the
plain stance (``ControlConfig(slow_walk=False)``) instead of the slow walk's.
``--roll-follow-planted`` runs every cell with the opt-in
``ControlConfig(roll_follow_planted=True)``: every planted sole, not only a lone one,
rolls onto its toe only as it really rolls (docs/bipeds.md, stop 56).
``--stride R`` gives each biped a stride of R hip heights, its cycle's length kept
(``with_stride``; ``--tempo`` is set after it): the generated bipeds draw strides of 0.3-0.7
hip heights, the bipeds users write after an animal 1.0-1.1 (the ostrich and human of
``experiments/animal_walkers.json``; docs/bipeds.md, stop 57). ``--body assist`` runs every
cell on the assist instead of free, for a comparison on the same runs. ``--ground`` (with
``--generated``) runs the generated bipeds up or down 5 deg or on 1 cm rough ground.
``--set FIELD=VALUE`` (repeatable) sets a ``ControlConfig`` field for every run, to
measure a controller change on the same bipeds (docs/bipeds.md, stop 58).
Prints a markdown table (one row per walker and condition: verdict and its reason, speed
ratio, slip per stance, touchdowns per stance, sole pitch at touchdown and lift-off) and,
per walker, the largest push of PUSHES (m/s, to its left and right, at PUSH_AT s of a
PUSH_SECONDS walk) after which it still walked, and the wall time.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from cli_args import config_setting, subset
from tqdm import tqdm

WALKERS = ("mechanic", "raptor")
CONDITIONS = {  # name: (seconds, simulate() keywords)
    "flat, 20 s": (20.0, {}),
    "flat, 20 s, seed 1": (20.0, {"seed": 1}),
    "flat, 20 s, seed 2": (20.0, {"seed": 2}),
    "slope +5 deg, 10 s": (10.0, {"slope_deg": 5.0}),
    "slope -5 deg, 10 s": (10.0, {"slope_deg": -5.0}),
    "rough 1 cm, 10 s": (10.0, {"roughness": 0.01}),
    "arc r = 1.5 m, 10 s": (10.0, {"turn_radius": 1.5}),
}
PUSHES = (0.1, 0.2, 0.3, 0.4)  # m/s, each to the left (+) and to the right (-)
PUSH_AT, PUSH_SECONDS = 5.0, 10.0


FEET = ("derived", "set_back", "no_hip_yaw")
START_CONDITIONS = {  # ``--starts``: name: (seconds, simulate() keywords)
    "flat, 20 s": (20.0, {}),
    "slope +5 deg": (10.0, {"slope_deg": 5.0}),
    "slope -5 deg": (10.0, {"slope_deg": -5.0}),
    "rough 1 cm": (10.0, {"roughness": 0.01}),
    "arc r = 1.5 m": (10.0, {"turn_radius": 1.5}),
    "push +0.2 m/s": (10.0, {"push_at": PUSH_AT, "push_velocity": 0.2}),
    "push -0.2 m/s": (10.0, {"push_at": PUSH_AT, "push_velocity": -0.2}),
    "push +0.3 m/s": (10.0, {"push_at": PUSH_AT, "push_velocity": 0.3}),
    "push -0.3 m/s": (10.0, {"push_at": PUSH_AT, "push_velocity": -0.3}),
}


def without_hip_yaw(entry):
    """``entry`` with every leg's ``hip_yaw`` off (its soles' other keys kept)."""
    import dataclasses

    legs = []
    for leg in entry.gait.legs:
        foot = dict(leg.foot) if isinstance(leg.foot, tuple) else {}
        foot["hip_yaw"] = False
        legs.append(dataclasses.replace(leg, foot=tuple(foot.items())))
    return dataclasses.replace(entry, gait=dataclasses.replace(entry.gait, legs=tuple(legs)))


def set_back(entry):
    """``entry`` with yawing ankles and every home (and a default hip above it) moved back
    by (toe - heel) / 2 of its leg's sole, so that the sole's middle stands where the
    ankle stood: a catalog a user can write (homes, hips and ``foot`` keys only)."""
    import dataclasses

    from gaitsim.feet import soles

    feet = soles(entry.gait)
    if feet is None:
        raise ValueError(f"{entry.name} has no soles to set back")
    legs = []
    for leg, sole in zip(entry.gait.legs, feet, strict=True):
        dx = 0.5 * (sole.toe - sole.heel)
        foot = dict(leg.foot) if isinstance(leg.foot, tuple) else {}
        foot["ankle"] = "yaw_pitch_roll"
        hip = None if leg.hip is None else (leg.hip[0] - dx, leg.hip[1], leg.hip[2])
        home = (leg.home[0] - dx, leg.home[1], leg.home[2])
        legs.append(dataclasses.replace(leg, home=home, hip=hip, foot=tuple(foot.items())))
    return dataclasses.replace(entry, gait=dataclasses.replace(entry.gait, legs=tuple(legs)))


def at_tempo(entry, tempo: float):
    """``entry`` (a biped) with the ``clip_speed`` that makes its gait cycle last ``tempo``
    pendulum periods (``sim.run.biped_tempo``; the cycle is inversely proportional to the
    clip speed, the stride kept)."""
    import dataclasses

    from gaitsim.sim.run import clip_speed_at_tempo

    speed = clip_speed_at_tempo(entry, tempo)
    return dataclasses.replace(entry, gait=dataclasses.replace(entry.gait, clip_speed=speed))


def with_stride(entry, ratio: float):
    """``entry`` (a biped) with a stride of ``ratio`` times its hip height, its gait cycle's
    length kept (the clip speed scaled with the stride). The default hip height falls as
    the stride grows (every foot stays within reach), so the stride is set twice: from the
    hip height of the catalog's stride, then from the one of that stride (the hip falls a
    little again: the ratio ends within 3 % of ``ratio``, 0.98 for the raptor at 1.0)."""
    import dataclasses

    from gaitsim.geometry import geometry

    gait = entry.gait
    for _ in range(2):
        stride = ratio * geometry(gait).hip_height
        gait = dataclasses.replace(gait, stride=stride,
                                   clip_speed=gait.clip_speed * stride / gait.stride)
    return dataclasses.replace(entry, gait=gait)


def entry_of(walker: str, feet: str, tempo: float | None = None, catalog: str | None = None,
             stride: float | None = None):  # fmt: skip
    """A built-in walker (or ``seedN``, a generated one; or with ``catalog``, a walker of
    that catalog file) with its feet as ``feet`` says, a stride of ``stride`` hip heights
    (None: its own; ``with_stride``), at ``tempo`` pendulum periods a cycle (None: its
    own)."""
    from gaitsim.catalog import load_catalog
    from gaitsim.generate import random_entry
    from gaitsim.walker import resolve_entry

    if catalog is not None:
        entry = load_catalog(catalog)[walker]
    elif walker.startswith("seed"):
        entry = random_entry(int(walker[4:]))
    else:
        entry = resolve_entry(walker)
    if stride is not None:
        entry = with_stride(entry, stride)
    if tempo is not None:
        entry = at_tempo(entry, tempo)
    if feet == "no_hip_yaw":
        return without_hip_yaw(entry)
    return set_back(entry) if feet == "set_back" else entry


def run_cell(cell):
    """One free-body run: the figures the table shows."""
    from gaitsim.sim.controller import PUSH_OFF, ControlConfig
    from gaitsim.sim.run import simulate
    from gaitsim.terrain import Rough, Slope

    walker, name, seconds, kw, feet, tempo, *catalog = cell
    kw = dict(kw)
    extra = PUSH_OFF if kw.pop("push_off", False) else {}
    if kw.pop("plain_stance", False):
        extra = {**extra, "slow_walk": False}
    if kw.pop("roll_follow_planted", False):
        extra = {**extra, "roll_follow_planted": True}
    extra = {**extra, **dict(kw.pop("control", ()))}  # ``--set``: the user's last
    config = ControlConfig(body=kw.pop("body", "free"), **extra)
    stride = kw.pop("stride", None)
    if "slope_deg" in kw:
        kw["terrain"] = Slope(math.radians(kw.pop("slope_deg")))
    if "roughness" in kw:
        kw["terrain"] = Rough(amplitude=kw.pop("roughness"), seed=kw.pop("ground", 0))
    entry = entry_of(walker, feet, tempo, *catalog, stride=stride)
    s = simulate(entry, seconds=seconds, config=config, **kw).summary
    keep = ("verdict", "verdict_reason", "speed_ratio", "slip_mm_per_stance",
            "touchdowns_per_stance", "sole_pitch_deg_at_touchdown",
            "sole_pitch_deg_at_liftoff", "time_to_fall_s")  # fmt: skip
    return walker, name, {k: s.get(k) for k in keep}


def cells(walkers, feet: str = "derived"):
    out = [(w, c, sec, kw, feet, None) for w in walkers for c, (sec, kw) in CONDITIONS.items()]
    for w in walkers:
        for v in PUSHES:
            for sign in (1.0, -1.0):
                kw = {"push_at": PUSH_AT, "push_velocity": sign * v}
                name = f"push {sign * v:+.1f} m/s at {PUSH_AT:g} s"
                out.append((w, name, PUSH_SECONDS, kw, feet, None))
    return out


def start_cells(walkers, feet: str, n: int):
    """Every START_CONDITIONS run from ``n`` start points (rough ground: ``n`` grounds)."""
    out = []
    for w in walkers:
        for c, (sec, kw) in START_CONDITIONS.items():
            for k in range(n):
                extra = {"seed": k} if k else {}
                if "roughness" in kw:
                    extra["ground"] = k
                out.append((w, f"{c}|{k}", sec, {**kw, **extra}, feet, None))
    return out


def print_starts(results, n: int) -> None:
    """``--starts``: per walker and condition, how many of the ``n`` starts walked and
    when the others fell."""
    print(f"| walker | condition (free body) | walked of {n} | the others |")
    print("| --- " * 4 + "|")
    seen = []
    for w, name, _ in results:
        key = (w, name.split("|")[0])
        if key not in seen:
            seen.append(key)
    for w, c in seen:
        rows = [r for ww, name, r in results if ww == w and name.split("|")[0] == c]
        ok = sum(r["verdict"] == "walked" for r in rows)
        others = ", ".join(f"{r['verdict']} at {r['time_to_fall_s']:.1f} s" if r["time_to_fall_s"]
                           else r["verdict"] for r in rows if r["verdict"] != "walked")
        print(f"| {w} | {c} | {ok} | {others or '-'} |")


GROUNDS = {"flat": {}, "up5": {"slope_deg": 5.0}, "down5": {"slope_deg": -5.0},
           "rough": {"roughness": 0.01}}  # ``--ground``: the generated bipeds' ground


def generated_cells(n: int, feet: str, tempo: float | None = None, walks_only: bool = False,
                    skip: int = 0, ground: str = "flat"):  # fmt: skip
    """The first ``n`` generated bipeds (``walks_only``: without flight phases) after the
    first ``skip`` of them, 10 s on ``ground`` (``GROUNDS``) from the default start and
    seed 1 (rough ground: grounds 0 and 1)."""
    from gaitsim.generate import random_entry

    seeds, s = [], 0
    while len(seeds) < n + skip:
        g = random_entry(s).gait
        if g.n_legs == 2 and (g.duty >= 0.5 or not walks_only):
            seeds.append(s)
        s += 1
    seeds = seeds[skip:]
    kw = GROUNDS[ground]
    second = {"seed": 1, "ground": 1} if "roughness" in kw else {"seed": 1}
    starts = ((f"{ground}, 10 s", kw), (f"{ground}, 10 s, seed 1", {**kw, **second}))
    return [(f"seed{k}", c, 10.0, kw, feet, tempo) for k in seeds for c, kw in starts]


def on_engine(todo, engine: str):
    """The cells ``todo`` run on ``engine`` ("pybullet", the default, leaves them as they
    are: ``simulate``'s own)."""
    if engine == "pybullet":
        return todo
    return [(w, n, sec, {**kw, "engine": engine}, *rest) for w, n, sec, kw, *rest in todo]


def catalog_bipeds(path: str, names: str | None) -> tuple[str, ...]:
    """The walkers ``names`` (comma-separated; None: every two-legged one) of the catalog
    file ``path``, checked: a ValueError says what is wrong and how to fix it."""
    from gaitsim.catalog import GaitsimError, load_catalog

    try:
        cat = load_catalog(path)
    except (OSError, GaitsimError, ValueError) as exc:
        raise ValueError(f"--catalog {path}: {exc}") from None
    known = list(cat)
    bipeds = [n for n in known if cat[n].gait.n_legs == 2]
    if names is None:
        if not bipeds:
            raise ValueError(f"--catalog {path} has no two-legged walker (it has "
                             f"{', '.join(known)}); this experiment runs bipeds")  # fmt: skip
        return tuple(bipeds)
    want = tuple(n.strip() for n in names.split(",") if n.strip())
    unknown = [n for n in want if n not in known]
    if unknown or not want:
        raise ValueError(f"--walkers {names!r}: not in {path}: {', '.join(unknown) or '(none)'}"
                         f"; its bipeds are {', '.join(bipeds) or '(none)'}")  # fmt: skip
    legged = [f"{n} ({cat[n].gait.n_legs} legs)" for n in want if cat[n].gait.n_legs != 2]
    if legged:
        raise ValueError(f"--walkers: {', '.join(legged)}: this experiment runs bipeds; "
                         f"{path}'s are {', '.join(bipeds) or '(none)'}")  # fmt: skip
    return want


def _fmt(x, spec):
    return "n/a" if x is None else format(x, spec)


def print_table(results) -> None:
    """The default run's table: one row per walker and condition."""
    print("| walker | condition (free body) | verdict | speed ratio | slip mm / stance | "
          "touchdowns / stance | sole pitch deg at touchdown / lift-off |")  # fmt: skip
    print("| --- " * 7 + "|")
    for walker, name, r in results:
        v = r["verdict"]
        if v != "walked":
            v = f"**{v}** ({r['verdict_reason']})"
        print(f"| {walker} | {name} | {v} | {_fmt(r['speed_ratio'], '.2f')} | "
              f"{_fmt(r['slip_mm_per_stance'], '.1f')} | "
              f"{_fmt(r['touchdowns_per_stance'], '.2f')} | "
              f"{_fmt(r['sole_pitch_deg_at_touchdown'], '.1f')} / "
              f"{_fmt(r['sole_pitch_deg_at_liftoff'], '+.1f')} |")  # fmt: skip


def main():
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--walkers", default=None,
                    help=f"a comma-separated subset of {','.join(WALKERS)} (default all), or "
                    "with --catalog of that file's bipeds")  # fmt: skip
    ap.add_argument("--catalog", metavar="FILE",
                    help="run the bipeds of this catalog file instead of the built-in ones")
    ap.add_argument("--json", metavar="FILE", help="also write every figure as JSON")
    ap.add_argument("--engine", choices=("pybullet", "mujoco"), default="pybullet",
                    help="the physics engine (default pybullet; mujoco needs the extra: pip "
                    "install 'gaitsim[mujoco]')")  # fmt: skip
    ap.add_argument("--feet", choices=FEET, default="derived",
                    help="derived: the catalog's own feet; set_back: yawing ankles, each "
                    "sole's middle under its hip; no_hip_yaw: the legs without their hip "
                    "yaw joints (see the module docstring)")  # fmt: skip
    ap.add_argument("--starts", type=int, default=0, metavar="N",
                    help="run each condition from N start points and count the walks")
    ap.add_argument("--generated", type=int, default=0, metavar="N",
                    help="run the first N generated bipeds on flat ground instead")
    ap.add_argument("--push-off", action="store_true",
                    help="run with the opt-in push-off (gaitsim.sim.controller.PUSH_OFF: a "
                         "lone stance sole rolls onto its toe only as it really rolls, and "
                         "the stance legs lead the body by its speed error)")
    ap.add_argument("--tempo", type=float, default=None, metavar="R",
                    help="with --generated: each biped's cycle set to R pendulum periods")
    ap.add_argument("--stride", type=float, default=None, metavar="R",
                    help="each biped's stride set to R times its hip height, its cycle's "
                         "length kept (with --tempo, the tempo set after)")
    ap.add_argument("--ground", choices=tuple(GROUNDS), default="flat",
                    help="with --generated: the ground (default flat; up5 and down5: 5 deg "
                         "slopes; rough: 1 cm bumps)")
    ap.add_argument("--body", choices=("free", "assist"), default="free",
                    help="the body mode of every run (default free; assist: the virtual "
                         "spring-damper, for a comparison on the same runs)")
    ap.add_argument("--walks-only", action="store_true",
                    help="with --generated: only bipeds without flight phases (duty >= 0.5)")
    ap.add_argument("--skip", type=int, default=0, metavar="N",
                    help="with --generated: leave out the first N bipeds (a held-out sample)")
    ap.add_argument("--plain-stance", action="store_true",
                    help="run slow bipeds on the plain stance, not the slow walk's "
                         "(ControlConfig(slow_walk=False); docs/bipeds.md, stop 55)")
    ap.add_argument("--roll-follow-planted", action="store_true",
                    help="run with ControlConfig(roll_follow_planted=True): every planted "
                         "sole, not only a lone one, rolls onto its toe only as it really "
                         "rolls (docs/bipeds.md, stop 56)")
    ap.add_argument("--set", metavar="FIELD=VALUE", type=config_setting, action="append",
                    default=[],
                    help="override a gaitsim.sim.controller.ControlConfig field for every "
                         "run (repeatable; e.g. --set sole_track_gain=1.0): to measure a "
                         "controller change on the same bipeds; the body is --body's")
    args = ap.parse_args()
    if any(name == "body" for name, _ in args.set):
        ap.error("--set body=...: the body mode is --body's (free or assist)")
    if (args.walks_only or args.skip) and not args.generated:
        ap.error("--walks-only and --skip choose among generated bipeds: give --generated N")
    if args.skip < 0:
        ap.error(f"--skip is a number of bipeds to leave out, at least 0; got {args.skip}")
    if args.workers < 1 or args.generated < 0 or args.starts < 0:
        ap.error("--workers must be at least 1, --generated and --starts at least 0")
    if args.generated and args.starts:
        ap.error("--generated and --starts are two different runs: give one")
    if args.tempo is not None and not (args.generated and math.isfinite(args.tempo)
                                       and args.tempo > 0):  # fmt: skip
        ap.error("--tempo needs --generated N and a positive number of pendulum periods")
    if args.ground != "flat" and not args.generated:
        ap.error("--ground sets the generated bipeds' ground: give --generated N")
    if args.stride is not None and not (math.isfinite(args.stride) and args.stride > 0):
        ap.error(f"--stride is a number of hip heights, above 0; got {args.stride}")
    if args.catalog is not None and args.generated:
        ap.error("--catalog and --generated are two different runs: give one")
    from gaitsim.sim.engine import EngineError, check_engine

    try:
        check_engine(args.engine)
    except EngineError as exc:
        ap.error(str(exc))
    try:
        if args.catalog is not None:
            walkers = catalog_bipeds(args.catalog, args.walkers)
        else:
            walkers = WALKERS if args.walkers is None else subset(WALKERS, "walker")(args.walkers)
    except (ValueError, argparse.ArgumentTypeError) as exc:
        ap.error(str(exc))
    if args.generated:
        todo = generated_cells(args.generated, args.feet, args.tempo, args.walks_only,
                               args.skip, args.ground)  # fmt: skip
    elif args.starts:
        todo = start_cells(walkers, args.feet, args.starts)
    else:
        todo = cells(walkers, args.feet)
    todo = on_engine(todo, args.engine)
    extra = {flag: True for flag in ("push_off", "plain_stance", "roll_follow_planted")
             if getattr(args, flag)}  # fmt: skip
    if args.body != "free":
        extra["body"] = args.body
    if args.stride is not None:
        extra["stride"] = args.stride
    if args.set:
        extra["control"] = tuple(args.set)
    todo = [(w, n, sec, {**kw, **extra}, *rest) for w, n, sec, kw, *rest in todo]
    if args.catalog is not None:
        todo = [(*c, args.catalog) for c in todo]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(tqdm(pool.map(run_cell, todo), total=len(todo), desc="runs",
                            file=sys.stderr))  # fmt: skip
    wall = time.perf_counter() - t0
    if args.starts:
        print_starts(results, args.starts)
        walkers = []  # the push sweep is the default run's
    elif args.generated:
        walkers = []  # no push summary: the generated runs have no pushes
    if not args.starts:
        print_table(results)
    print()
    for w in walkers:
        for sign, side in ((1.0, "left"), (-1.0, "right")):
            best = None  # the largest push survived with every smaller one survived too
            for v in PUSHES:
                name = f"push {sign * v:+.1f} m/s at {PUSH_AT:g} s"
                if not any(r["verdict"] == "walked" for ww, n, r in results
                           if ww == w and n == name):  # fmt: skip
                    break
                best = v
            got = "none" if best is None else f"{best:g} m/s"
            print(f"{w}: largest push to its {side} survived (of {PUSHES} m/s): {got}")
    print(f"\nwall time {wall:.0f} s with {args.workers} workers")
    if args.json:
        from gaitsim.catalog import atomic_write_text

        rows = [{"walker": w, "condition": n, **r} for w, n, r in results]
        atomic_write_text(args.json, json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
