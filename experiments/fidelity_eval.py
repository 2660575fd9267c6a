"""Gait fidelity against the gait-fidelity issue's bounds: the four built-in multi-legged
walkers and the generated walkers with four or more legs and no flight phase among seeds 0-39,
each 10 simulated seconds, free body, in five conditions: flat ground from the default
start and from episode seed 1, a 5 deg climb, a 5 deg descent and 1 cm rough ground.

Run: python experiments/fidelity_eval.py [--engine pybullet|mujoco] [--workers 2]
[--seconds 10] [--json FILE] [--seeds A-B] [--conditions C,C] [--no-built-in]
[--catalog FILE] [--pattern NAME] [--lopsided-knees | --mixed-legs | --every-kind |
--flight-gaits | --irregular | --quadruped-walks | --striding-bipeds]
(``--catalog``: a user's own walkers; those with fewer than four legs or flight phases are
run on their default body and judged by their verdict alone; ``--lopsided-knees``: the
generated walkers drawn with one hind knee forward, one back; ``--mixed-legs``: drawn
with legs that differ from pair to pair; ``--every-kind``: every walker of the seeds,
those outside the bounds on their default body, judged by their verdict;
``--flight-gaits``: the seeds' gaits with flight phases, plain and with mixed legs, on
their default body, judged by their verdict; ``--irregular``: walkers outside the paired
families, ``gaitsim.generate.irregular_walker``: 3-8 legs, odd counts too, hips round an
oval, pace, lateral, diagonal, rotary or random phases; those with three legs judged by
their verdict; ``--quadruped-walks``: four-legged four-beat walks on narrow tracks,
``gaitsim.generate.quadruped_walker``; ``--striding-bipeds``: two-legged walks with long,
brisk strides, ``gaitsim.generate.striding_biped``, on their default body, judged by their
verdict)
(``--seeds 40-99 --conditions flat --no-built-in``: a fresh sample of walkers, flat only;
``--pattern trot``: only the sample's trots, ``catalog.gait_pattern``)

The bounds checked (a run that misses one is listed with the reason):
- flat ground: every leg's measured duty within 0.08 of the catalog's and the mean within
  0.05, at most 1.2 touchdowns per stance, contact timing error at most 0.10, speed ratio
  0.9-1.1; the built-in walkers' slip per stance no worse than before the issue (fox 4.2,
  hound 5.7, horn_beetle 2.0, spider_bot 1.6 mm);
- slopes and rough ground: at most 1.5 touchdowns per stance;
- everywhere: the `walked` verdict.
Prints the misses, the worst touchdowns per stance on and off flat ground, the mean slip,
and one line per built-in walker; about 3 minutes with 2 workers on PyBullet.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import re
import sys
from concurrent.futures import ProcessPoolExecutor

from cli_args import config_setting, subset

BUILT_IN = ("fox", "hound", "horn_beetle", "spider_bot")
SEED_RANGE = range(40)
CONDITIONS = ("flat", "flat_seed1", "up5", "down5", "rough1cm")
DUTY_MAX, DUTY_MEAN, TD_FLAT, TD_OFF, TIMING, SPEED = 0.08, 0.05, 1.2, 1.5, 0.10, (0.9, 1.1)
SLIP_BEFORE_MM = {"fox": 4.2, "hound": 5.7, "horn_beetle": 2.0, "spider_bot": 1.6}


def generated_seeds(seeds=SEED_RANGE, lopsided: bool = False, mixed: bool = False) -> list[int]:
    """The seeds among ``seeds`` (default 0-39) whose walker has four or more legs and
    no flight phase (``in_bounds``); ``lopsided``: only those whose walker drawn with
    ``lopsided_knees`` (one hind knee forward, one back) differs from the plain one;
    ``mixed``: those whose walker drawn with ``mixed_legs`` (legs that differ pair to
    pair) is within the bounds."""
    from gaitsim.generate import random_entry

    if mixed:  # its own bounds: leaving a leg out can leave a gait of fewer legs
        return [s for s in seeds if in_bounds((e := random_entry(s, mixed_legs=True)).gait)
                and e != random_entry(s)]  # fmt: skip
    out = [s for s in seeds if in_bounds(random_entry(s).gait)]
    if lopsided:
        out = [s for s in out if random_entry(s, lopsided_knees=True) != random_entry(s)]
    return out


def flight_names(seeds) -> list[str]:
    """``--flight-gaits``: the seeds' gaits with flight phases (some part of the cycle with
    no foot down, ``geometry.flight_share``), as ``flightN`` (the plain walker) and
    ``flightmN`` (drawn with ``mixed_legs``, where that differs from the plain one)."""
    from gaitsim.generate import random_entry
    from gaitsim.geometry import flight_share

    out = []
    for s in seeds:
        plain = random_entry(s)
        if flight_share(plain.gait) > 0.0:
            out.append(f"flight{s}")
        mixed = random_entry(s, mixed_legs=True)
        if mixed != plain and flight_share(mixed.gait) > 0.0:
            out.append(f"flightm{s}")
    return out


CATALOG_SEP = "::"  # a walker from a user's catalog is named FILE::WALKER


@functools.cache  # a report and each run ask again: load a catalog once
def walker_of(name: str):
    from gaitsim.catalog import load_catalog
    from gaitsim.generate import random_entry
    from gaitsim.walker import resolve_entry

    if CATALOG_SEP in name:
        path, _, walker = name.rpartition(CATALOG_SEP)
        return load_catalog(path)[walker]
    if name.startswith("lopsided"):  # a generated walker with lopsided hind knees
        return random_entry(int(name[8:]), lopsided_knees=True)
    if name.startswith("mixed"):  # a generated walker whose legs differ pair to pair
        return random_entry(int(name[5:]), mixed_legs=True)
    if name.startswith("flight"):  # a generated gait with flight phases (``--flight-gaits``)
        rest = name[6:]
        return random_entry(int(rest.lstrip("m")), mixed_legs=rest.startswith("m"))
    if name.startswith("irregular"):  # outside the paired families (``--irregular``)
        from gaitsim.generate import irregular_entry

        return irregular_entry(int(name[9:]))
    if name.startswith("quadruped"):  # four-beat walks, narrow tracks (``--quadruped-walks``)
        from gaitsim.generate import quadruped_entry

        return quadruped_entry(int(name[9:]))
    if name.startswith("striding"):  # long, brisk two-legged strides (``--striding-bipeds``)
        from gaitsim.generate import striding_entry

        return striding_entry(int(name[8:]))
    if name.startswith("any"):  # a generated walker of any kind (``--every-kind``)
        return random_entry(int(name[3:]))
    return random_entry(int(name[4:])) if name.startswith("seed") else resolve_entry(name)


def in_bounds(gait) -> bool:
    """Whether the gait-fidelity bounds apply to ``gait``: four or more legs, no flight
    phase (``geometry.flight_gait``: duty >= 0.5, and some foot down all through the
    cycle)."""
    from gaitsim.geometry import flight_gait

    return gait.n_legs >= 4 and not flight_gait(gait)


def verdict_only(name: str) -> bool:
    """A walker of a user's catalog that the bounds do not apply to: it runs on its default
    body (``sim.run.default_body``: the assist for two or three legs and flight phases) and
    is judged by its verdict alone; so is a generated walker of ``--every-kind`` or
    ``--irregular`` outside them. (The other generated walkers and the built-in ones are
    always within the bounds.)"""
    mine = CATALOG_SEP in name or name.startswith(("any", "flight", "irregular", "striding"))
    return mine and not in_bounds(walker_of(name).gait)


def catalog_walkers(path: str) -> tuple[list[str], list[str]]:
    """The walkers of the catalog at ``path`` as ``FILE::WALKER`` names, and a note for
    each one the bounds do not apply to (fewer than four legs, or flight phases: those are
    judged by their verdict alone, on their default body)."""
    from gaitsim.catalog import load_catalog
    from gaitsim.sim.run import default_body

    names, notes = [], []
    for key, entry in load_catalog(path).items():
        g = entry.gait
        names.append(f"{path}{CATALOG_SEP}{key}")
        if not in_bounds(g):
            notes.append(f"{key} ({g.n_legs} legs, duty {g.duty:g}, {default_body(entry)} body)")
    return names, notes


def run_cell(cell) -> tuple[str, str, dict]:
    """One walker in one condition: its summary as a dict."""
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate
    from gaitsim.terrain import Rough, Slope

    name, cond, seconds, engine, *rest = cell
    overrides = dict(rest[0]) if rest else {}
    kw = {"seconds": seconds, "engine": engine}
    entry = walker_of(name)
    if verdict_only(name):
        from gaitsim.sim.run import default_body

        overrides.setdefault("body", default_body(entry))
    if overrides:
        kw["config"] = ControlConfig(**overrides)
    if cond == "flat_seed1":
        kw["seed"] = 1
    elif cond in ("up5", "down5"):
        kw["terrain"] = Slope(math.radians(5.0 if cond == "up5" else -5.0))
    elif cond == "rough1cm":
        kw["terrain"] = Rough(amplitude=0.01, seed=0)
    return name, cond, simulate(entry, **kw).summary


def misses(name: str, cond: str, s: dict, duty: float, verdict: bool = False) -> list[str]:
    """The bounds run ``name`` in ``cond`` misses (empty: it meets them all); with
    ``verdict``, only the verdict is checked."""
    if verdict:
        return [] if s["verdict"] == "walked" else [f"verdict {s['verdict']}"]
    out = []
    if s.get("contact_cycles") == 0 and not s["fell"]:  # its contact figures span start-up
        out.append("fewer than two gait cycles in the run: contact figures not measured "
                   "over a whole cycle (raise --seconds)")
    td = s["touchdowns_per_stance"]
    if td is None:  # a run that fell before any planned stance ended has none measured
        td = math.nan
    if cond.startswith("flat"):
        err = [abs(d - duty) for d in s["duty_by_leg"]]
        mean = abs(sum(s["duty_by_leg"]) / len(err) - duty)
        checks = [
            (max(err) <= DUTY_MAX, f"worst-leg duty error {max(err):.3f} > {DUTY_MAX}"),
            (mean <= DUTY_MEAN, f"mean duty error {mean:.3f} > {DUTY_MEAN}"),
            (td <= TD_FLAT, f"touchdowns per stance {td:.2f} > {TD_FLAT}"),
            (s["contact_timing_error"] <= TIMING,
             f"timing error {s['contact_timing_error']:.3f} > {TIMING}"),
            (SPEED[0] <= s["speed_ratio"] <= SPEED[1], f"speed ratio {s['speed_ratio']:.2f}"),
        ]  # fmt: skip
        if name in SLIP_BEFORE_MM:
            slip = s["slip_mm_per_stance"]
            checks.append((slip <= SLIP_BEFORE_MM[name], f"slip {slip:.1f} mm per stance"))
        out += [why for ok, why in checks if not ok]
    elif not td <= TD_OFF:  # (NaN: not measured, a miss)
        out.append(f"touchdowns per stance {td:.2f} > {TD_OFF}")
    if s["verdict"] != "walked":
        out.append(f"verdict {s['verdict']}")
    return out


def report(results: list[tuple[str, str, dict]]) -> int:
    """Print the misses and the summary lines; the number of runs that miss a bound."""
    failed = 0
    names = {r[0] for r in results}
    duty = {name: walker_of(name).gait.duty for name in names}
    loose = {name for name in names if verdict_only(name)}
    met = []  # per run: whether it meets every bound
    for name, cond, s in results:
        why = misses(name, cond, s, duty[name], verdict=name in loose)
        met.append(not why)
        if why:
            failed += 1
            print(f"miss: {name} {cond}: {'; '.join(why)}")
    for name, cond, s in results:
        if name in loose:
            print(f"verdict only: {name} {cond}: {s['verdict']} ({s.get('body')} body; "
                  f"{s.get('verdict_reason', '')})")  # fmt: skip
    bounded = [(c, s) for n, c, s in results if n not in loose]
    # (None: a run that fell before any planned stance ended measured none; its miss is
    # reported above)
    flat = [td for c, s in bounded if c.startswith("flat")
            if (td := s["touchdowns_per_stance"]) is not None]  # fmt: skip
    off = [td for c, s in bounded if not c.startswith("flat")
           if (td := s["touchdowns_per_stance"]) is not None]  # fmt: skip
    slip = [s["slip_mm_per_stance"] for _, s in bounded] or [math.nan]
    for name, cond, s in results:
        if cond == "flat" and name in BUILT_IN:
            err = max(abs(d - duty[name]) for d in s["duty_by_leg"])
            td, own_slip = s["touchdowns_per_stance"], s["slip_mm_per_stance"]
            td = math.nan if td is None else td
            print(f"{name}: touchdowns per stance {td:.2f}, worst-leg duty error {err:.3f}, "
                  f"slip {own_slip:.1f} mm per stance")  # fmt: skip
    for line in breakdown(results, met):
        print(line)
    worst_flat, worst_off = max(flat, default=math.nan), max(off, default=math.nan)
    print(f"{len(results) - failed} of {len(results)} runs meet every bound; worst touchdowns "
          f"per stance {worst_flat:.2f} flat, {worst_off:.2f} on slopes and rough ground; mean "
          f"slip {sum(slip) / len(slip):.2f} mm per stance")  # fmt: skip
    return failed


TIPPING_BANDS = (4.0, 6.0)  # height / half track: below 4 (wide regime), 4-6, 6 and over
BAND_NAMES = ("below 4", "4-6", "6 and over")


def with_pattern(names: list[str], pattern: str) -> list[str]:
    """The walkers among ``names`` whose footfall pattern (``catalog.gait_pattern``) is
    ``pattern`` (case and surrounding spaces aside)."""
    from gaitsim.catalog import gait_pattern

    want = pattern.strip().lower()
    return [n for n in names if gait_pattern(walker_of(n).gait) == want]


def with_fall_time_under(names: list[str], limit: float) -> list[str]:
    """The walkers among ``names`` whose fall time (``geometry.fall_time``) is under
    ``limit`` seconds."""
    from gaitsim.geometry import fall_time, geometry

    return [n for n in names if fall_time(geometry(walker_of(n).gait)) < limit]


def breakdown(results, met: list[bool]) -> list[str]:
    """Runs within every bound (``met``, per run) by footfall pattern
    (``catalog.gait_pattern``: a four-beat walk by its sequence) and by standing height
    over half track (``stance.tipping_ratio``, in ``TIPPING_BANDS``), one line per group
    that has runs."""
    from gaitsim.catalog import gait_pattern
    from gaitsim.geometry import geometry
    from gaitsim.sim.stance import tipping_ratio

    lo, hi = TIPPING_BANDS
    group = {}  # per walker: (pattern, band index)
    for name in {r[0] for r in results}:
        gait = walker_of(name).gait
        ratio = tipping_ratio(geometry(gait))
        group[name] = (gait_pattern(gait), 0 if ratio < lo else (1 if ratio < hi else 2))
    tally: dict[tuple[str, int], list[int]] = {}
    for (name, _, _), ok in zip(results, met, strict=True):
        counts = tally.setdefault(group[name], [0, 0])
        counts[0] += ok
        counts[1] += 1
    return [f"by pattern and height / half track: {pattern}, {BAND_NAMES[band]}: {k} of {n} "
            "runs meet every bound" for (pattern, band), (k, n) in sorted(tally.items())]


def seed_range(text: str) -> range:
    """``A-B`` (inclusive) or a single seed ``A``, as a range."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not m or (m.group(2) is not None and int(m.group(2)) < int(m.group(1))):
        raise argparse.ArgumentTypeError(
            f"expected A-B with 0 <= A <= B (e.g. 40-99), got {text!r}"
        )
    a = int(m.group(1))
    return range(a, int(m.group(2) or a) + 1)


condition_list = subset(CONDITIONS, "condition")  # a comma-separated subset of CONDITIONS


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    ap.add_argument("--engine", choices=("pybullet", "mujoco"), default="pybullet")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--seconds", type=float, default=10.0, help="simulated s per run")
    ap.add_argument("--json", metavar="FILE", help="also write every run's summary here")
    ap.add_argument(
        "--seeds",
        metavar="A-B",
        type=seed_range,
        default=None,
        help="generated-walker seeds, inclusive (default 0-39, none with --catalog; e.g. "
        "40-99 for a fresh sample)",
    )
    ap.add_argument(
        "--conditions",
        metavar="C,C",
        type=condition_list,
        default=CONDITIONS,
        help=f"a comma-separated subset of {','.join(CONDITIONS)} (default all)",
    )
    ap.add_argument(
        "--catalog",
        metavar="FILE",
        help="also run this catalog's walkers (those with fewer than four legs or duty "
        "< 0.5 on their default body, judged by the verdict alone)",
    )
    ap.add_argument(
        "--lopsided-knees",
        action="store_true",
        help="run the seeds' walkers whose hind knees the generator can draw one forward "
        "and one back (gaitsim.generate.random_walker's lopsided_knees), drawn so, as "
        "lopsidedN; the other seeds are left out",
    )
    ap.add_argument(
        "--mixed-legs",
        action="store_true",
        help="run the seeds' walkers drawn with legs that differ from pair to pair "
        "(gaitsim.generate.random_walker's mixed_legs: lengths, bone ratios, knees, "
        "spacing, track, phases), as mixedN",
    )
    ap.add_argument(
        "--every-kind",
        action="store_true",
        help="run every walker of the seeds, as anyN: those with fewer than four legs or "
        "flight phases on their default body (the assist), judged by the verdict alone",
    )
    ap.add_argument(
        "--flight-gaits",
        action="store_true",
        help="run the seeds' gaits with flight phases, plain (flightN) and drawn with "
        "mixed legs (flightmN), on their default body (the assist), judged by the "
        "verdict alone",
    )
    ap.add_argument(
        "--irregular",
        action="store_true",
        help="run the seeds' irregular walkers (gaitsim.generate.irregular_walker: 3-8 "
        "legs, odd counts too, hips round an oval, pace, lateral, diagonal, rotary or "
        "random phases), as irregularN; those with three legs judged by the verdict alone",
    )
    ap.add_argument(
        "--quadruped-walks",
        action="store_true",
        help="run the seeds' four-legged walks (gaitsim.generate.quadruped_walker: "
        "lateral- or diagonal-sequence four-beat walks, feet 0.08-0.3 leg lengths from "
        "the midline, duty 0.55-0.8), as quadrupedN",
    )
    ap.add_argument(
        "--striding-bipeds",
        action="store_true",
        help="run the seeds' striding bipeds (gaitsim.generate.striding_biped: long, "
        "brisk strides as users write a person's or a bird's walk), as stridingN, on "
        "their default body, judged by the verdict alone",
    )
    ap.add_argument(
        "--set",
        metavar="FIELD=VALUE",
        type=config_setting,
        action="append",
        default=[],
        help="override a gaitsim.sim.controller.ControlConfig field for every run "
        "(repeatable; e.g. --set motor_share=0.25): to measure a controller change on "
        "the same walkers",
    )
    ap.add_argument(
        "--pattern",
        metavar="NAME",
        help="run only the sample's walkers of this footfall pattern (gaitsim.catalog."
        "gait_pattern, as `gaitsim catalog` prints it: trot, pace, bound, tripod, wave, "
        "biped, 'walk (lateral sequence)', ...)",
    )
    ap.add_argument(
        "--fall-time-under",
        metavar="S",
        type=float,
        help="run only the sample's walkers whose fall time (gaitsim.geometry.fall_time: "
        "sqrt(standing height / g)) is under S seconds: the small ones (stop 60: 0.0765, "
        "the sphere-footed servo clock's reference)",
    )
    ap.add_argument(
        "--no-built-in",
        action="store_true",
        help="leave out the four built-in walkers (generated ones only)",
    )
    args = ap.parse_args(argv)
    if args.workers < 1 or not (math.isfinite(args.seconds) and args.seconds > 0):
        ap.error("--workers must be at least 1 and --seconds positive")
    samples = (args.lopsided_knees, args.mixed_legs, args.every_kind, args.flight_gaits,
               args.irregular, args.quadruped_walks, args.striding_bipeds)  # fmt: skip
    if sum(samples) > 1:
        ap.error("--lopsided-knees, --mixed-legs, --every-kind, --flight-gaits, "
                 "--irregular, --quadruped-walks and --striding-bipeds are different "
                 "samples: give one")  # fmt: skip
    from tqdm import tqdm

    from gaitsim.catalog import atomic_write_text

    names = [] if args.no_built_in else list(BUILT_IN)
    if args.seeds is None:
        args.seeds = range(0) if args.catalog else SEED_RANGE
    if args.every_kind:
        names += [f"any{s}" for s in args.seeds]
    elif args.flight_gaits:
        names += flight_names(args.seeds)
    elif args.irregular:
        names += [f"irregular{s}" for s in args.seeds]
    elif args.quadruped_walks:
        names += [f"quadruped{s}" for s in args.seeds]
    elif args.striding_bipeds:
        names += [f"striding{s}" for s in args.seeds]
    else:
        prefix = "lopsided" if args.lopsided_knees else "mixed" if args.mixed_legs else "seed"
        names += [f"{prefix}{s}" for s in generated_seeds(args.seeds, args.lopsided_knees,
                                                           args.mixed_legs)]  # fmt: skip
    if args.catalog:
        from gaitsim.catalog import CatalogError

        try:
            mine, skipped = catalog_walkers(args.catalog)
        except (CatalogError, OSError) as exc:
            ap.error(f"--catalog {args.catalog}: {exc}")
        if skipped:
            print("verdict only (the bounds are for four or more legs without flight "
                  f"phases): {', '.join(skipped)}", file=sys.stderr)  # fmt: skip
        names += mine
    if args.pattern is not None:
        names = with_pattern(names, args.pattern)
    if args.fall_time_under is not None:
        names = with_fall_time_under(names, args.fall_time_under)
    if not names:
        want = "four or more legs without flight phases" + (
            f" and the pattern {args.pattern!r}" if args.pattern is not None else "")
        ap.error(f"no walker to run: no seed in {args.seeds.start}-{args.seeds.stop - 1} "
                 f"draws {want}; widen --seeds, drop --no-built-in or --pattern")  # fmt: skip
    todo = [(n, c, args.seconds, args.engine, tuple(args.set))
            for n in names for c in args.conditions]  # fmt: skip
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(tqdm(pool.map(run_cell, todo), total=len(todo), desc="runs",
                            file=sys.stderr))  # fmt: skip
    if args.json:
        out = {f"{n}/{c}": s for n, c, s in results}
        atomic_write_text(args.json, json.dumps(out, indent=1, default=float) + "\n")
    report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
