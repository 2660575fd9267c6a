"""Seeded random walkers in the catalog format: plausible bodies for testing and studies.

``random_walker(seed)`` draws a walker the way a user might write one: 2 to 12 legs in
left/right pairs, any knee kind, bone ratios from 0.2 to 5, legs from 5 cm to 1.5 m, a
duty factor from 0.35 to 0.85, and a stride, lift and speed in proportion to the legs (a
pendulum-like cycle time). The result is a catalog mapping (Gaitkit's frame, as a user
would write it) that ``parse_catalog`` turns into an Entry; ``random_entry`` does both.

``irregular_walker(seed)`` draws from outside those paired families: 3 to 8 legs (odd
counts too) round an oval, each leg its own length, and pace, lateral, diagonal, rotary
or random phases (``irregular_entry`` parses it). ``quadruped_walker(seed)`` draws
four-beat walks on narrow tracks, ``striding_biped(seed)`` two-legged walks with long,
brisk strides, as users write them after animals.

The draws are independent of gaitsim's own defaults (hip height, masses, gains are left to
the geometry rules), so a generated walker exercises them the way a new user's would.
"""

from __future__ import annotations

import math

import numpy as np

from .catalog import Entry, parse_catalog
from .geometry import GRAVITY

LEG_COUNTS = (2, 4, 6, 8, 10, 12)
KNEE_KINDS = ("up", "forward", "back")
LEG_LENGTH_RANGE = (0.05, 1.5)  # m, upper + lower
BONE_RATIO_RANGE = (0.2, 5.0)  # upper / lower
DUTY_RANGE = (0.35, 0.85)


def _log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def _phases(rng: np.random.Generator, pairs: int, duty: float) -> list[tuple[float, float]]:
    """(left, right) phase per pair, front to back: an alternating pattern (trot, tripod:
    neighbours and opposite legs half a cycle apart) or, for slow gaits, a wave running
    from the back to the front."""
    if pairs == 1:
        return [(0.0, 0.5)]
    if duty < 0.6 or rng.random() < 0.5:
        return [((0.5 * i) % 1.0, (0.5 * i + 0.5) % 1.0) for i in range(pairs)]
    step = 1.0 / (2 * pairs)  # every leg lifts at its own time; the right side half a cycle on
    out = []
    for i in range(pairs):
        left = (step * (pairs - 1 - i) * 2) % 1.0
        out.append((round(left, 6), round((left + 0.5) % 1.0, 6)))
    return out


def random_walker(
    seed: int,
    *,
    legs: int | None = None,
    knee: str | None = None,
    duty: float | None = None,
    upper: bool = False,
    lopsided_knees: bool = False,
    mixed_legs: bool = False,
) -> dict:
    """One plausible walker as a catalog object ``{name: {"gait": {...}}}`` (Gaitkit frame:
    x left, y up, z forward). ``legs``, ``knee`` and ``duty`` pin those draws; ``upper``
    adds an upper body (``random_upper_body``, drawn after everything else, so the legs
    are the same walker's).

    A four-legged walker's hind pair turns its knees the other way from the front pair's
    half the time (mixed fore and hind knees, as a horse's), both hind legs alike.
    ``lopsided_knees`` draws that flip for each hind leg on its own, so a hind pair may
    have one knee forward and one back: the walkers gaitsim 0.x drew by mistake for 19 of
    seeds 0-399, kept for stress tests (the random draws are the same either way, so every
    other walker is unchanged). ``mixed_legs``: legs that differ pair to pair (``mix_legs``)."""
    rng = np.random.default_rng(seed)
    n = int(legs) if legs is not None else int(rng.choice(LEG_COUNTS))
    if n < 2 or n % 2:
        raise ValueError(f"legs must be an even number >= 2, got {legs!r}")
    pairs = n // 2
    if knee is None:
        knee = str(rng.choice(KNEE_KINDS if n >= 4 else ("forward", "back")))
    if knee not in KNEE_KINDS:
        raise ValueError(f"knee must be one of {', '.join(KNEE_KINDS)}, got {knee!r}")
    length = _log_uniform(rng, *LEG_LENGTH_RANGE)
    ratio = _log_uniform(rng, *BONE_RATIO_RANGE)
    thigh = length * ratio / (1.0 + ratio)  # not ``upper``: that is the upper-body switch
    shin = length - thigh
    d = float(duty) if duty is not None else float(rng.uniform(*DUTY_RANGE))
    stride = length * float(rng.uniform(0.25, 0.55))
    lift = length * float(rng.uniform(0.08, 0.18))
    if knee == "up":  # sprawled legs: feet well out to the side, hips inset
        across = length * float(rng.uniform(0.55, 0.8))
        stride *= 0.6
    else:
        # a track at least a quarter of the leg wide: narrower bodies on upright legs
        # tip over sideways at the slightest push, as a real one would
        across = length * float(rng.uniform(0.25, 0.45) if n > 2 else rng.uniform(0.1, 0.25))
    spacing = max(stride * float(rng.uniform(1.1, 1.6)), 0.6 * length if knee == "up" else 0.0)
    if n > 2 and knee != "up":
        spacing = max(spacing, length * float(rng.uniform(0.8, 1.4)))
    cycle_time = 2.0 * math.pi * math.sqrt(length / GRAVITY) * float(rng.uniform(0.6, 1.1))
    speed = stride / d / cycle_time
    phases = _phases(rng, pairs, d)
    segments = []
    for i in range(pairs):
        forward = ((pairs - 1) / 2.0 - i) * spacing  # front pair first
        flip = None  # the hind pair's knees turned the other way (a draw per leg, see above)
        for side, sign, phase in (("L", 1.0, phases[i][0]), ("R", -1.0, phases[i][1])):
            k, flip = _leg_knee(rng, knee, n == 4 and i == 1, flip, lopsided_knees)
            segments.append(
                {
                    "name": f"leg{i}_{side.lower()}",
                    "side": side,
                    "phase": float(phase),
                    "knee": k,
                    "upper": round(thigh, 5),
                    "lower": round(shin, 5),
                    "home": [round(sign * across, 5), 0.0, round(forward, 5)],
                }
            )
    gait = {
        "stride": round(stride, 5),
        "duty": round(d, 4),
        "lift": round(lift, 5),
        "clip_speed": round(speed, 5),
        "segments": segments,
    }
    if upper:
        gait["upper_body"] = random_upper_body(rng, n, length)
    if mixed_legs and n > 2:
        gait = mix_legs(gait, seed)
    return {f"generated_{seed}": {"gait": gait}}


IRREGULAR_LEGS = (3, 4, 5, 6, 7, 8)  # ``irregular_walker``'s leg counts, odd ones too
IRREGULAR_DUTY = (0.5, 0.85)  # standing gaits: no flight phases
# (this order keeps each seed's walker as first drawn, when "lateral" and "diagonal" were
# swapped: see _irregular_phases)
IRREGULAR_PATTERNS = ("pace", "diagonal", "lateral", "rotary", "random")


def irregular_walker(seed: int, pattern: str | None = None) -> dict:
    """A walker outside ``random_walker``'s paired, symmetric families, as a user might
    write one: 3 to 8 legs (odd counts too), feet around an oval rather than in left/right
    pairs (sprawled, 'up' legs with every foot well out to the side), each leg's length
    and bone ratio its own (within a factor of 1.5), one knee kind per walker or per leg,
    a duty factor from 0.5 to 0.85 and one of five phase patterns:

    - ``pace``: the legs of each side together, the sides half a cycle apart;
    - ``lateral`` and ``diagonal``: the four-beat sequences of a walk (footfalls left
      hind, left fore, right hind, right fore, or left hind, right fore, right hind, left
      fore), spread over the legs by their place along the body;
    - ``rotary``: a wave running around the body, each leg at its angle round the oval;
    - ``random``: every phase drawn alone.

    ``pattern`` pins that draw (every other draw stays the seed's). Drawn from its own
    generator, so ``random_walker``'s walkers are unchanged. The result is a catalog
    mapping (Gaitkit's frame); the name is ``irregular_<seed>``."""
    if pattern is not None and pattern not in IRREGULAR_PATTERNS:
        raise ValueError(
            f"pattern must be one of {', '.join(IRREGULAR_PATTERNS)}, got {pattern!r}")
    rng = np.random.default_rng([seed, 7])
    n = int(rng.choice(IRREGULAR_LEGS))
    length = _log_uniform(rng, 0.08, 1.2)
    ratio = _log_uniform(rng, 0.4, 2.5)
    duty = float(rng.uniform(*IRREGULAR_DUTY))
    stride = length * float(rng.uniform(0.25, 0.5))
    lift = length * float(rng.uniform(0.08, 0.16))
    half_len = length * float(rng.uniform(0.5, 1.2))  # the oval of the feet
    half_wid = length * float(rng.uniform(0.3, 0.6))
    per_leg_knees = bool(rng.random() < 0.3)
    knee = str(rng.choice(("forward", "back", "up")))
    # sprawled legs stand with their feet well out to the side (as random_walker's)
    side_min = 0.5 if knee == "up" else 0.15
    if knee == "up":
        half_wid = length * float(rng.uniform(0.55, 0.8))
    drawn = str(rng.choice(IRREGULAR_PATTERNS))
    pattern = drawn if pattern is None else pattern
    # legs evenly round the oval from a random start, a little jitter, none on the midline
    base = float(rng.uniform(0.0, 2.0 * math.pi))
    angles = [base + 2.0 * math.pi * (k + float(rng.uniform(-0.2, 0.2))) / n for k in range(n)]
    segments = []
    for k, a in enumerate(angles):
        x, z = half_wid * math.sin(a), half_len * math.cos(a)
        if abs(x) < side_min * half_wid:  # a foot near the midline: move it out
            x = math.copysign(side_min * half_wid, x if x != 0.0 else 1.0)
        leg = length * float(rng.uniform(1.0, 1.5))
        r = ratio * float(rng.uniform(0.8, 1.25))
        thigh = leg * r / (1.0 + r)
        k_kind = str(rng.choice(("forward", "back"))) if per_leg_knees and knee != "up" else knee
        segments.append({
            "name": f"leg{k}",
            "side": "L" if x > 0 else "R",
            "phase": 0.0,
            "knee": k_kind,
            "upper": round(thigh, 5),
            "lower": round(leg - thigh, 5),
            "home": [round(x, 5), 0.0, round(z, 5)],
        })  # fmt: skip
    cycle_time = _cycle_time(rng, length)
    for seg, ph in zip(segments, _irregular_phases(rng, pattern, segments), strict=True):
        seg["phase"] = round(ph % 1.0, 4)  # (random phases are the last draws)
    return {f"irregular_{seed}": {"gait": _gait(stride, duty, lift, cycle_time, segments)}}


def _cycle_time(rng: np.random.Generator, length: float) -> float:
    """A gait cycle (s) of 0.6-1.1 periods of a pendulum as long as the leg."""
    return 2.0 * math.pi * math.sqrt(length / GRAVITY) * float(rng.uniform(0.6, 1.1))


def _gait(stride: float, duty: float, lift: float, cycle_time: float, segments) -> dict:
    """The catalog's gait object, rounded as a user would write it; the clip speed makes
    the cycle last ``cycle_time``."""
    return {
        "stride": round(stride, 5),
        "duty": round(duty, 4),
        "lift": round(lift, 5),
        "clip_speed": round(stride / duty / cycle_time, 5),
        "segments": segments,
    }


def _irregular_phases(rng, pattern: str, segments: list[dict]) -> list[float]:
    """Each leg's phase for ``irregular_walker``'s ``pattern`` (legs' homes in Gaitkit's
    frame: x left, z forward)."""
    xs = [s["home"][0] for s in segments]
    zs = [s["home"][2] for s in segments]
    lo, hi = min(zs), max(zs)
    along = [(z - lo) / (hi - lo) if hi > lo else 0.5 for z in zs]  # 0 hind .. 1 fore
    left = [x > 0 for x in xs]
    if pattern == "pace":
        return [0.0 if lf else 0.5 for lf in left]
    # A leg whose phase is larger by x lands x of a cycle earlier (its place at distance d
    # is frac(d / cycle + phase)); until stop 44 these two were swapped, read as landing times
    if pattern == "diagonal":  # footfalls: left hind, right fore, right hind, left fore
        return [0.25 * a + (0.0 if lf else 0.5) for a, lf in zip(along, left, strict=True)]
    if pattern == "lateral":  # footfalls: left hind, left fore, right hind, right fore
        return [(0.75 * a if lf else 0.5 - 0.25 * a) for a, lf in zip(along, left, strict=True)]
    if pattern == "rotary":
        return [math.atan2(x, z) / (2.0 * math.pi) for x, z in zip(xs, zs, strict=True)]
    return [float(rng.uniform(0.0, 1.0)) for _ in segments]


def irregular_entry(seed: int, pattern: str | None = None) -> Entry:
    """``irregular_walker(seed, pattern)`` parsed into an Entry."""
    (entry,) = parse_catalog(irregular_walker(seed, pattern)).values()
    return entry


MIX_LENGTH = (1.0, 1.6)  # a pair's leg length as a multiple of the drawn (shortest) one
MIX_RATIO = (0.75, 1.35)  # its bone ratio (upper / lower) times the drawn one
MIX_SPACING = (0.75, 1.3)  # each gap between pairs times the drawn spacing
MIX_TRACK = (0.8, 1.25)  # each pair's feet across times the drawn track
MIX_PHASE = 0.04  # phases move by up to this much


def mix_legs(gait: dict, seed: int, tries: int = 20) -> dict:
    """``gait`` (a generated catalog gait) with legs that differ from pair to pair: each
    pair's length (never shorter than drawn, so the stride and lift still fit), bone ratio,
    gap to the pair in front and track drawn anew; on hanging legs, half the time each
    pair's knee kind; every phase moved by up to MIX_PHASE; from six legs on, a quarter of
    the time the last leg left out. Drawn from their own generator (``seed``), and drawn
    again (up to ``tries`` times) until the gait parses and some hip height serves every leg
    (``geometry``); the drawn gait as it was if none does."""
    from .geometry import geometry

    rng = np.random.default_rng([seed, 1])
    for _ in range(tries):
        mixed = _mixed(gait, rng)
        try:
            (entry,) = parse_catalog({"mixed": {"gait": mixed}}).values()
            geometry(entry.gait)
        except ValueError:  # CatalogError is one
            continue
        return mixed
    return gait


def _mixed(gait: dict, rng: np.random.Generator) -> dict:
    """One draw of ``mix_legs``."""
    segs = gait["segments"]
    fronts = sorted({s["home"][2] for s in segs}, reverse=True)  # one per pair, front first
    pairs = len(fronts)
    length = [_log_uniform(rng, *MIX_LENGTH) for _ in range(pairs)]
    ratio = [_log_uniform(rng, *MIX_RATIO) for _ in range(pairs)]
    track = [float(rng.uniform(*MIX_TRACK)) for _ in range(pairs)]
    gap = [float(rng.uniform(*MIX_SPACING)) for _ in range(pairs)]
    knees = None
    if segs[0]["knee"] != "up" and rng.random() < 0.5:
        knees = [str(rng.choice(("forward", "back"))) for _ in range(pairs)]
    z = [fronts[0]]
    for i in range(1, pairs):
        z.append(z[-1] - (fronts[i - 1] - fronts[i]) * gap[i])
    mid = (z[0] + z[-1]) / 2
    out = []
    for s in segs:
        i = fronts.index(s["home"][2])
        leg = s["upper"] + s["lower"]
        r = s["upper"] / s["lower"] * ratio[i]
        thigh = leg * length[i] * r / (1.0 + r)
        phase = round(s["phase"] + float(rng.uniform(-MIX_PHASE, MIX_PHASE)), 4) % 1.0
        out.append({**s, "upper": round(thigh, 5), "lower": round(leg * length[i] - thigh, 5),
                    "home": [round(s["home"][0] * track[i], 5), 0.0, round(z[i] - mid, 5)],
                    "knee": knees[i] if knees else s["knee"], "phase": phase})  # fmt: skip
    if len(out) >= 6 and rng.random() < 0.25:
        out = out[:-1]
    return {**gait, "segments": out}


# the four-beat walks' footfall orders (this order keeps each seed's walker as first drawn,
# when the two names were swapped: see quadruped_walker)
QUADRUPED_PATTERNS = ("diagonal", "lateral")
QUADRUPED_TRACK = (0.08, 0.3)  # each foot's distance from the midline, in leg lengths
QUADRUPED_SPACING = (0.7, 1.6)  # fore to hind feet, in leg lengths
QUADRUPED_DUTY = (0.55, 0.8)
QUADRUPED_LAG = (0.2, 0.3)  # a fore foot's landing lag behind the hind foot before it, in
# cycles (drawn as ``lag`` and landing 0.5 - lag after it: the same range, see below)
QUADRUPED_KNEES = ("forward_back", "forward", "back")  # fore and hind knees


def quadruped_walker(seed: int, pattern: str | None = None) -> dict:
    """A four-legged walk as users write one after an animal: a four-beat walk (each foot
    lands alone, a quarter cycle or so after the one before), feet close to the midline
    (``QUADRUPED_TRACK``: 0.08 to 0.3 leg lengths out to each side; a dog's or a horse's
    are 0.1 to 0.25; ``random_walker`` never draws a track narrower than 0.25), fore and hind
    pairs a leg length or so apart, fore knees forward and hind knees back (or all one way),
    bone ratios from 0.5 to 2, duty 0.55 to 0.8. ``pattern``:

    - ``lateral``: the footfalls run left hind, left fore, right hind, right fore (most
      mammals' walk, and the fox's);
    - ``diagonal``: left hind, right fore, right hind, left fore (primates' walk).

    Each fore foot lands ``QUADRUPED_LAG`` (0.2 to 0.3) of a cycle after the hind foot
    before it. A leg's place at distance d is frac(d / cycle + phase), so a leg whose
    phase is larger by x lands x of a cycle *earlier* (a lateral walk's left fore, landing
    ψ after the left hind, has the phase 1 - ψ). Until stop 44 the two names were swapped
    (the phases read as landing times); the tuple's order keeps each seed's walker, now
    under its right name. At a duty below 0.7-0.8 the feet of one side stand alone twice
    a cycle in either order: for 1 - ψ - duty of a cycle each time in a lateral walk,
    0.5 + ψ - duty in a diagonal one (ψ: that landing lag). ``random_walker``'s four-legged
    walkers all trot (its back-to-front wave over two pairs is a trot), so this family
    fills a gap of its. Drawn from its own generator; the name is ``quadruped_<seed>``."""
    if pattern is not None and pattern not in QUADRUPED_PATTERNS:
        raise ValueError(
            f"pattern must be one of {', '.join(QUADRUPED_PATTERNS)}, got {pattern!r}")
    rng = np.random.default_rng([seed, 11])
    length = _log_uniform(rng, 0.1, 1.5)
    ratio = _log_uniform(rng, 0.5, 2.0)
    thigh = length * ratio / (1.0 + ratio)
    duty = float(rng.uniform(*QUADRUPED_DUTY))
    stride = length * float(rng.uniform(0.25, 0.55))
    lift = length * float(rng.uniform(0.08, 0.15))
    across = length * float(rng.uniform(*QUADRUPED_TRACK))
    half = 0.5 * max(length * float(rng.uniform(*QUADRUPED_SPACING)), 1.1 * stride)
    knees = str(rng.choice(QUADRUPED_KNEES))
    lag = float(rng.uniform(*QUADRUPED_LAG))
    drawn = str(rng.choice(QUADRUPED_PATTERNS))
    pattern = drawn if pattern is None else pattern
    # left hind 0; the next foot down, the lateral walk's left fore or the diagonal walk's
    # right fore, has the phase 0.5 + lag and so lands 0.5 - lag later (the draw kept as
    # it was: 0.5 - lag spans QUADRUPED_LAG too)
    fore_left = 0.5 + lag if pattern == "lateral" else lag
    phases = {("fore", "L"): fore_left, ("fore", "R"): fore_left + 0.5,
              ("hind", "L"): 0.0, ("hind", "R"): 0.5}  # fmt: skip
    segments = []
    for end, z in (("fore", half), ("hind", -half)):
        knee = knees if knees != "forward_back" else ("forward" if end == "fore" else "back")
        for side, sign in (("L", 1.0), ("R", -1.0)):
            segments.append({
                "name": f"{end}_{side.lower()}",
                "side": side,
                "phase": round(phases[end, side] % 1.0, 4),
                "knee": knee,
                "upper": round(thigh, 5),
                "lower": round(length - thigh, 5),
                "home": [round(sign * across, 5), 0.0, round(z, 5)],
            })  # fmt: skip
    gait = _gait(stride, duty, lift, _cycle_time(rng, length), segments)
    return {f"quadruped_{seed}": {"gait": gait}}


def quadruped_entry(seed: int, pattern: str | None = None) -> Entry:
    """``quadruped_walker(seed, pattern)`` parsed into an Entry."""
    (entry,) = parse_catalog(quadruped_walker(seed, pattern)).values()
    return entry


STRIDING_LENGTH = (0.2, 1.5)  # ``striding_biped``'s legs (m, upper + lower)
STRIDING_RATIO = (0.6, 1.5)  # upper / lower bone
STRIDING_STRIDE = (0.55, 0.95)  # the stance's sweep, in leg lengths
STRIDING_TRACK = (0.08, 0.16)  # each foot's distance from the midline, in leg lengths
STRIDING_DUTY = (0.55, 0.7)
STRIDING_TEMPO = (0.5, 0.7)  # the cycle, in periods of a pendulum as long as the leg


def striding_biped(seed: int) -> dict:
    """A two-legged walk as users write one after a person or a bird: long strides (each
    stance sweeps STRIDING_STRIDE, 0.55 to 0.95 leg lengths: a person's walk sweeps about
    0.9, where ``random_walker``'s bipeds draw 0.25 to 0.55), a brisk cycle (0.5 to 0.7
    periods of a pendulum as long as the leg; a person's is about 0.6), knees forward or
    back, bone ratios 0.6 to 1.5, feet 0.08 to 0.16 leg lengths either side of the midline,
    duty 0.55 to 0.7, and half of them an upper body (``random_upper_body``). Its own
    generator; the name is ``striding_<seed>``."""
    rng = np.random.default_rng([seed, 13])
    length = _log_uniform(rng, *STRIDING_LENGTH)
    ratio = _log_uniform(rng, *STRIDING_RATIO)
    thigh = length * ratio / (1.0 + ratio)
    knee = str(rng.choice(("forward", "back")))
    duty = float(rng.uniform(*STRIDING_DUTY))
    stride = length * float(rng.uniform(*STRIDING_STRIDE))
    lift = length * float(rng.uniform(0.05, 0.12))
    across = length * float(rng.uniform(*STRIDING_TRACK))
    cycle = 2.0 * math.pi * math.sqrt(length / GRAVITY) * float(rng.uniform(*STRIDING_TEMPO))
    segments = [{
        "name": name,
        "side": side,
        "phase": phase,
        "knee": knee,
        "upper": round(thigh, 5),
        "lower": round(length - thigh, 5),
        "home": [round(sign * across, 5), 0.0, 0.0],
    } for name, side, sign, phase in (("left", "L", 1.0, 0.0), ("right", "R", -1.0, 0.5))]
    gait = _gait(stride, duty, lift, cycle, segments)
    if rng.random() < 0.5:
        gait["upper_body"] = random_upper_body(rng, 2, length)
    return {f"striding_{seed}": {"gait": gait}}


def striding_entry(seed: int) -> Entry:
    """``striding_biped(seed)`` parsed into an Entry."""
    (entry,) = parse_catalog(striding_biped(seed)).values()
    return entry


def _leg_knee(rng, knee: str, hind_of_four: bool, flip, lopsided: bool):
    """A leg's knee kind and the hind pair's flip so far: a four-legged walker's hind legs
    (``hind_of_four``) each draw whether their knees turn the other way from the walker's
    ``knee``; the pair keeps its first leg's draw unless ``lopsided`` (``random_walker``)."""
    if not hind_of_four or knee == "up":
        return knee, flip
    drawn = bool(rng.random() < 0.5)
    flip = drawn if flip is None or lopsided else flip
    if flip:  # mixed fore and hind knees
        return ("back" if knee == "forward" else "forward"), flip
    return knee, flip


def random_upper_body(rng: np.random.Generator, legs: int, length: float) -> dict:
    """An ``upper_body`` block a user might write: two legs get a torso and arms (each
    sometimes with an explicit key), every walker a head; the rest of each part defaults."""
    out: dict = {"head": {}}
    if rng.random() < 0.5:
        out["head"]["neck_deg"] = round(float(rng.uniform(10.0, 60.0)), 1)
    if legs == 2:
        out["torso"] = {}
        out["arms"] = {}
        if rng.random() < 0.5:
            out["torso"]["twist_deg"] = round(float(rng.uniform(3.0, 10.0)), 1)
        if rng.random() < 0.5:
            out["arms"]["upper"] = round(length * float(rng.uniform(0.2, 0.45)), 5)
    return out


def random_entry(seed: int, **kw) -> Entry:
    """``random_walker(seed, **kw)`` parsed into an Entry."""
    cat = parse_catalog(random_walker(seed, **kw))
    (entry,) = cat.values()
    return entry


FOOT_LENGTH_KEYS = ("heel", "toe", "width", "height")  # a sole's lengths (m)


def scaled_entry(entry: Entry, k: float) -> Entry:
    """``entry`` at ``k`` times its size: every length (bones, homes, hips, stride, lift,
    and the catalog's hip height, foot radius, bob, body and sole lengths) times ``k``, its
    mass (if given) times k^3 and its speed times sqrt(k): the same gait at the same Froude
    number, whose motion is the original's on a clock sqrt(k) as fast. Upper-body parts
    must be given as ``{}`` (their sizes then follow the body); a part with keys of its own
    is a ValueError."""
    import dataclasses

    if not (math.isfinite(k) and k > 0):
        raise ValueError(f"scale must be a positive number, got {k!r}")
    g = entry.gait
    ub = g.upper_body
    if ub is not None and any(getattr(ub, part) for part in ("torso", "arms", "head")):
        raise ValueError(f"{entry.name}: upper-body parts with keys of their own do not "
                         "scale here; give each part as {} or scale its keys by hand")

    def foot(f):
        if not isinstance(f, tuple):
            return f
        return tuple((key, v * k if key in FOOT_LENGTH_KEYS else v) for key, v in f)

    legs = tuple(dataclasses.replace(
        leg, upper=leg.upper * k, lower=leg.lower * k, home=tuple(c * k for c in leg.home),
        hip=None if leg.hip is None else tuple(c * k for c in leg.hip), foot=foot(leg.foot),
    ) for leg in g.legs)  # fmt: skip
    given = {name: getattr(g, name) * k for name in ("hip_height", "foot_radius", "bob")
             if getattr(g, name) is not None}  # fmt: skip
    if g.body is not None:
        given["body"] = tuple(c * k for c in g.body)
    if g.mass is not None:
        given["mass"] = g.mass * k**3
    gait = dataclasses.replace(g, legs=legs, stride=g.stride * k, lift=g.lift * k,
                               clip_speed=g.clip_speed * math.sqrt(k), **given)  # fmt: skip
    return dataclasses.replace(entry, gait=gait)
