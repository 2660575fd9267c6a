"""How the stance legs share the body's weight: pure float maths, no simulator.

A position-controlled leg pushes wherever its joint targets say, and several of them on
one rigid body fight: whichever foot the others' small errors lift goes light and loses
contact, which is why stances used to break into pieces. Here every stance leg instead
gets a share of the weight as a torque feedforward (``J^T f``), and its position motors
only the authority to correct a share of that load, so they can neither lift a loaded
foot nor slide it:

- ``availability``: a foot takes up its load over the first ``ramp`` of its stance and
  gives it off over the last (no thump at touchdown, no drag at lift-off);
- ``load_shares``: the vertical forces, weighted by availability, that carry the weight
  with the moment about the centre of mass that rights the body (least squares:
  minimise sum F_i^2 / a_i subject to sum F_i = W and sum F_i (p_i - c) = M);
- ``attitude_arms``: that moment per unit weight, from the body's tilt and tilt rate;
- ``stiffness_blend``: where the centre of mass is outside the support polygon (two feet,
  or a trot's diagonal) vertical forces cannot balance it; the legs then hold the body
  stiffly and balance is left to where the swing feet land;
- ``weak_support``, ``line_support``, ``line_growth`` and ``foothold_follow``: where the
  gait stands on point feet that cannot hold the body (fewer than three: a line or a
  point, about which the legs cannot right it; or a whole side's, whose polygon leaves its
  centre outside), how long it stands so and on more before it, how many-fold a drift
  grows meanwhile, and from that the share of a placement correction the stance legs keep
  the body to;
- ``line_drift_growth`` and ``stance_gain``: that growth for a whole walker, and the
  stance legs' position gain it calls for (softer where the gait stands on a line).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..gait import CYCLE_SAMPLES, cycle_length, feet_down, smooth01
from ..geometry import GRAVITY, flight_gait

# math.exp overflows a float past this exponent (e^709.78 is the largest double)
MAX_EXPONENT = 709.0
# The stance legs' position gain (PyBullet's, at PHYSICS_HZ: ``common.gain_scale``), and
# the softer one of gaits whose stand on a line of point feet lets a drift across it at
# least double (``stance_gain``). Measured on the 64 generated four-legged walkers of
# seeds 0-499 that stand on a line (10 s free; flat, 5 deg climb, 1 cm rough ground): at
# 0.05 the slow trots among them rock about their diagonal (seed 231: roll 14 deg peak to
# peak, 70 mm RMS across its path; seed 497: 30 deg, 98 mm) and a stance foot at the high
# end of the diagonal is lifted and lands again (1.3-1.9 touchdowns per stance on six of
# them); at 0.03 the legs give with the body instead of tipping it about the line as one
# rigid piece (231: 8.6 deg, 24 mm, one touchdown a stance; 497: 8.5 deg, 24 mm, 1.17).
# A fresh sample drawn afterwards (the 46 such walkers of seeds 500-799): 130 of 138 runs
# within the gait-fidelity bounds, against 120 at 0.05 (docs/gait_fidelity.md, "Soft stance
# legs on a line").
STANCE_KP = 0.05
LINE_STANCE_KP = 0.03
SOFT_STANCE_GROWTH = 2.0


# A biped on soles without flight phases stepping at most this many pendulum periods a
# cycle gets a free body by default on PyBullet (``walks_free_biped``), every other biped
# the assist. The built-in mechanic (0.595) and raptor (0.667) walk every condition of the
# bipeds issue free from the default start (stop 48). Of the first 72 generated bipeds'
# 100 runs without flight phases (10 s flat, two starts each; ``experiments/biped_free.py
# --generated 72 --tempo R``, stop 49), set to 0.6 periods 81 walk free, to 0.7 61; at
# their own tempo, 7 of the 14 runs at 0.75 periods or less walk and 12 of the 86 above
FREE_BIPED_TEMPO = 0.7
# (bipeds slower than this walk free on ``SLOW_WALK``'s stance: ``controller.GaitController``)


def pendulum_tempo(gait, hip_height: float) -> float:
    """``gait``'s cycle (s) in periods of a pendulum as long as ``hip_height`` (m) is
    high, 2 pi sqrt(hip_height / g): under about 0.7 a biped walks dynamically, vaulting
    over each stance foot; above it slowly, standing on each sole in turn."""
    period = cycle_length(gait) / gait.clip_speed
    return period / (2.0 * math.pi * math.sqrt(hip_height / GRAVITY))


def steps_slowly(gait, hip_height: float) -> bool:
    """Whether ``gait`` is a biped's walk (two legs, no flight phase: ``flight_gait``)
    whose cycle lasts more than FREE_BIPED_TEMPO pendulum periods (``pendulum_tempo``): the
    bipeds the assist carries by default, and the slow walk's stance is for."""
    return (gait.n_legs == 2 and not flight_gait(gait)
            and pendulum_tempo(gait, hip_height) > FREE_BIPED_TEMPO)  # fmt: skip


def availability(stance: list[bool], progress: list[float], ramp: float,
                 floor: float = 1e-3) -> list[float]:  # fmt: skip
    """Each leg's readiness to carry load: 0 in swing; in stance a smoothstep up over the
    first ``ramp`` of the stance and down over the last, never below ``floor``."""
    out = []
    for st, s in zip(stance, progress, strict=True):
        if not st:
            out.append(0.0)
        elif ramp > 0:
            # max(smooth01(min(s, 1 - s) / ramp), floor) as conditionals: min(a, b) is b
            # only when b < a, max(a, b) only when b > a (the same answers, NaN included)
            r = 1.0 - s
            a = smooth01((r if r < s else s) / ramp)
            out.append(floor if floor > a else a)
        else:
            out.append(1.0)
    return out


def solve3(a00, a01, a02, a11, a12, a22, b0, b1, b2) -> tuple[float, float, float]:
    """The symmetric 3x3 system A x = b by Cramer's rule (plain floats)."""
    c00 = a11 * a22 - a12 * a12
    c01 = a02 * a12 - a01 * a22
    c02 = a01 * a12 - a02 * a11
    det = a00 * c00 + a01 * c01 + a02 * c02
    if abs(det) < 1e-300:
        return (b0 / a00 if a00 else 0.0, 0.0, 0.0)
    c11 = a00 * a22 - a02 * a02
    c12 = a01 * a02 - a00 * a12
    c22 = a00 * a11 - a01 * a01
    return (
        (c00 * b0 + c01 * b1 + c02 * b2) / det,
        (c01 * b0 + c11 * b1 + c12 * b2) / det,
        (c02 * b0 + c12 * b1 + c22 * b2) / det,
    )


def _split(avail, arms, moment) -> list[float]:
    """The regularized least-squares split of ``load_shares`` over the available feet."""
    s00 = s01 = s02 = s11 = s12 = s22 = 0.0
    for a, (dx, dy) in zip(avail, arms, strict=True):
        if a:
            s00 += a
            s01 += a * dx
            s02 += a * dy
            s11 += a * dx * dx
            s12 += a * dx * dy
            s22 += a * dy * dy
    if s00 == 0.0:
        return [0.0] * len(avail)
    eps = 1e-12 + 1e-6 * (s11 + s22)
    lam = solve3(s00, s01, s02, s11 + eps, s12, s22 + eps, 1.0, moment[0], moment[1])
    return [
        a * (lam[0] + lam[1] * dx + lam[2] * dy) for a, (dx, dy) in zip(avail, arms, strict=True)
    ]


def load_shares(
    avail: list[float],
    arms: list[tuple[float, float]],
    moment: tuple[float, float] = (0.0, 0.0),
    min_share: float = 0.0,
) -> list[float]:
    """Shares of the weight (summing to 1 when any foot is available) for feet at ``arms``
    (x, y offsets from the centre of mass) with availabilities ``avail``.

    The least-squares split: minimise sum F_i^2 / a_i with sum F_i = 1 and
    sum F_i (dx_i, dy_i) = ``moment`` (moment arms per unit weight), over F_i >= 0: a foot
    the split would have pull is left out and the rest split again (an active set), so the
    balance is exact whenever pushing feet can achieve it. Feet on a line, or one foot,
    make the system singular in some direction; a tiny regularization keeps it solvable
    there (the moment about that line is then simply not produced). A foot's share is at
    least ``min_share`` times its availability, so a stance foot stays pressed on the
    ground even where balance alone would unload it.
    """
    active = list(avail)
    w = _split(active, arms, moment)
    while w:
        low = min(w)  # the first smallest share (as min over the indices by share finds)
        if low >= 0.0 or len(active) - active.count(0.0) <= 1:
            break
        active[w.index(low)] = 0.0  # this foot would pull: leave it out
        w = _split(active, arms, moment)
    w = [m if (m := min_share * a) > x else x for x, a in zip(w, avail, strict=True)]  # max
    total = sum(w)
    if total <= 0.0:
        s = sum(avail)
        return [a / s for a in avail] if s > 0 else [0.0] * len(avail)
    return [x / total for x in w]


def attitude_arms(quaternion, angular_velocity, height: float, gain: float,
                  damping: float) -> tuple[float, float]:  # fmt: skip
    """Moment arms per unit weight (sum F_i dx_i / W, sum F_i dy_i / W) that right a body
    tilted as ``quaternion`` (x, y, z, w) and turning at ``angular_velocity`` (world): the
    vertical forces push harder under the side the body leans to, ``gain`` times its
    height times the tilt, damped over the body's fall time sqrt(height / g)."""
    if gain == 0.0 and damping == 0.0:
        return 0.0, 0.0
    x, y, z, w = quaternion
    zx, zy = 2 * (x * z + w * y), 2 * (y * z - w * x)  # the body's z axis, tipped
    tc = math.sqrt(height / GRAVITY)
    wx, wy = angular_velocity[0], angular_velocity[1]
    return (
        height * (gain * zx + damping * tc * wy),
        height * (gain * zy - damping * tc * wx),
    )


def stiffness_blend(margin: float, band: float) -> float:
    """0 (compliant) when the centre of mass is well inside the support polygon (``margin``
    above ``band / 2``), 1 (stiff) when it is outside or on its edge by more than half the
    band, linear in between; no support at all (-inf) is stiff."""
    if not math.isfinite(margin):
        return 1.0
    u = 0.5 - margin / band if band > 0 else (1.0 if margin <= 0 else 0.0)
    return 0.0 if u < 0.0 else (1.0 if u > 1.0 else u)


LINE_SUPPORT_FEET = 3  # fewer point feet than this stand on a line (or a point)
SUPPORT_SAMPLES = CYCLE_SAMPLES  # samples per gait cycle for ``line_support``
OFF_CENTRE_SHARE = 0.1  # three or more feet whose polygon leaves the body's centre outside
# by more than this share of the standing height hold it no better than a line
# (``weak_support``). A walk's three-foot phases leave it 0.003-0.03 heights outside their
# diagonal (the sway carries it in); a pace's lateral pair or a whole side of legs, 0.3 or
# more. Among generated seeds 0-1099 (plain and mixed legs, 1332 with four or more legs and
# duty >= 0.5) it moves the drift growth of 35 walkers with mixed legs and of no plain or
# built-in walker


def weak_support(gait, samples: int = SUPPORT_SAMPLES) -> np.ndarray:
    """Per sample of a gait cycle (legs at their catalog phases, each down for the first
    ``duty`` of its cycle): whether the feet down cannot hold the body's centre above them,
    so that a drift of a free body off them grows as an inverted pendulum's: fewer than
    three down (a line, a point, none), or three or more whose polygon, at their homes
    seen from the body's origin, leaves the origin outside by more than
    ``OFF_CENTRE_SHARE`` of the standing height (a pace's lateral pair, every leg of one
    side). Read-only; remembered per gait."""
    return _weak_support(gait, int(samples))


@lru_cache(maxsize=256)
def _weak_support(gait, samples: int) -> np.ndarray:
    from ..balance import COLLINEAR_TOL
    from ..geometry import geometry
    from ..polygon import convex_hull, nearest_in_hull

    geo = geometry(gait)
    homes = np.asarray(geo.homes, dtype=float)[:, :2]
    down = feet_down([leg.phase for leg in gait.legs], gait.duty, samples)
    depth = OFF_CENTRE_SHARE * geo.standing_height
    weak = np.empty(len(down), dtype=bool)
    seen: dict[bytes, bool] = {}
    for k, d in enumerate(down):
        key = d.tobytes()
        if key not in seen:
            hull = convex_hull(homes[d], COLLINEAR_TOL) if d.any() else None
            seen[key] = hull is None or len(hull) < LINE_SUPPORT_FEET or float(
                np.hypot(*nearest_in_hull(np.zeros(2), hull))) > depth
        weak[k] = seen[key]
    weak.flags.writeable = False
    return weak


def line_offset(gait) -> float:
    """How far the body's centre lies outside the feet down while they cannot hold it
    (``weak_support``), at most over the gait's cycle, as a share of the standing height:
    0 for lines that pass beneath it (a trot's diagonals), a half track for a pace's
    lateral pairs, half the body's length for a bound's fore and hind pairs. 0 if the feet
    always hold it; measured at the homes from the body's origin, as ``weak_support``.
    Read-only; remembered per gait."""
    return _line_offset(gait)


@lru_cache(maxsize=256)
def _line_offset(gait) -> float:
    from ..balance import COLLINEAR_TOL
    from ..geometry import geometry
    from ..polygon import convex_hull, nearest_in_hull

    geo = geometry(gait)
    homes = np.asarray(geo.homes, dtype=float)[:, :2]
    down = feet_down([leg.phase for leg in gait.legs], gait.duty, SUPPORT_SAMPLES)
    worst = 0.0
    for d in {row.tobytes(): row for row in down[weak_support(gait)]}.values():
        if d.any():  # (no foot down: a flight phase, which ``flight_gait`` answers)
            hull = convex_hull(homes[d], COLLINEAR_TOL)
            worst = max(worst, float(np.hypot(*nearest_in_hull(np.zeros(2), hull))))
    return worst / geo.standing_height


def line_support(phases, duty: float, period: float, samples: int = SUPPORT_SAMPLES,
                 weak=None) -> tuple[float, float]:  # fmt: skip
    """(line, before): the longest stretch (s) of a gait cycle of ``period`` seconds in
    which fewer than three feet are down (legs at cycle ``phases``, each down for the first
    ``duty`` of its cycle: a trot's diagonal pair, a biped's single support), and the
    stretch with three or more down just before it (a trot's four-foot phase). (0, period)
    if three or more are always down; (period, 0) if never. ``weak`` (per sample, e.g.
    ``weak_support``) replaces "fewer than three feet down", and its length ``samples``."""
    if weak is None:
        weak = feet_down(phases, duty, samples).sum(axis=1) < LINE_SUPPORT_FEET
    weak = np.asarray(weak, dtype=bool)
    samples = len(weak)
    if not weak.any() or weak.all():
        return (period, 0.0) if weak.all() else (0.0, period)
    weak = np.roll(weak, -int(np.argmax(weak)))  # start on a line stretch: none wraps
    edges = np.flatnonzero(np.diff(np.concatenate(([0], weak.astype(int), [0]))))
    starts, ends = edges[::2], edges[1::2]
    k = int(np.argmax(ends - starts))
    before = starts[k] - (ends[k - 1] if k > 0 else ends[-1] - samples)
    return float(ends[k] - starts[k]) / samples * period, float(before) / samples * period


def line_stand(phases, duty: float, period: float, samples: int = SUPPORT_SAMPLES,
               weak=None) -> float:  # fmt: skip
    """The longest time (s) of a gait cycle of ``period`` seconds that the same fewer than
    three feet stand alone (legs at cycle ``phases``, each down for the first ``duty`` of
    its cycle): a trot's diagonal pair, a biped's single support; 0 if three or more are
    always down. Unlike ``line_support`` a change of the feet (one landing as another
    lifts, a trot of duty exactly 0.5) ends a stand: the landing foot is placed anew.
    ``weak`` (per sample, e.g. ``weak_support``) replaces "fewer than three feet down",
    and its length ``samples``."""
    samples = samples if weak is None else len(weak)
    down = feet_down(phases, duty, samples)
    weak = down.sum(axis=1) < LINE_SUPPORT_FEET if weak is None else np.asarray(weak, bool)
    if not weak.any():
        return 0.0
    key = down.astype(np.int64) @ (1 << np.arange(down.shape[1], dtype=np.int64))
    key = np.where(weak, key, -1)  # three or more down: no stand
    if (key == key[0]).all():
        return float(period)
    key = np.roll(key, -int(np.argmax(key != key[0])))  # start where a stretch starts
    edges = np.flatnonzero(np.diff(np.concatenate(([-2], key, [-2]))))
    lengths = np.diff(edges)
    values = key[edges[:-1]]
    return float(lengths[values >= 0].max()) / samples * period


def support_shares(gait, samples: int = SUPPORT_SAMPLES) -> dict[str, float]:
    """How a gait's planned support is shared over its cycle (legs down for the first
    ``duty`` of their cycle, at their catalog phases): ``under_three``, the share with fewer
    than three feet down (a line, one foot, or none); ``one_foot``, one foot or none; and
    ``one_side``, feet down but every one of them on one side of the body (the catalog's
    ``side``: a pace's lateral pair). A point-footed free body can stand on none of these
    without swaying its centre of mass onto them."""
    down = feet_down([leg.phase for leg in gait.legs], gait.duty, samples)
    n = down.sum(axis=1)
    left = np.array([leg.side == "L" for leg in gait.legs])
    on_left, on_right = (down & left).any(axis=1), (down & ~left).any(axis=1)
    return {
        "under_three": float(np.mean(n < LINE_SUPPORT_FEET)),
        "one_foot": float(np.mean(n <= 1)),
        "one_side": float(np.mean((n > 0) & (on_left != on_right))),
    }


def line_growth(line: float, height: float) -> float:
    """How many-fold a drift of the centre of mass across a line of point feet grows while
    a body of standing ``height`` stands ``line`` seconds on it: the inverted pendulum's
    e^(omega line), omega = sqrt(g / height) (1 with no such stand; inf past what a float
    holds, as for a cycle of hours)."""
    if not height > 0.0:
        raise ValueError(f"height must be positive, got {height!r}")
    exponent = max(line, 0.0) * math.sqrt(GRAVITY / height)
    return math.exp(exponent) if exponent < MAX_EXPONENT else math.inf


def foothold_follow(line: float, before: float, height: float, pull_time: float) -> float:
    """The share of its stance feet's placement offset that the stance legs keep the body
    to, for a gait that stands ``line`` seconds on a line of point feet after ``before``
    seconds on three or more, at a standing ``height``, whose stance legs pull the body to
    its reference with the time constant ``pull_time`` (s); 0: they pull it back in full.

    On a line of point feet no leg can right a drift across the line: the body's offset
    from it grows like the inverted pendulum's, G = e^(omega line) (omega = sqrt(g /
    ``height``)). Swing feet land under the capture point, a whole drift away from the
    plan; legs that pull the body back to the reference over the multi-foot phase (the
    share R = 1 - e^(-before / pull_time) of the way) leave it that far off its new line.
    In a one-dimensional model the placement error is multiplied by 1 - R (1 - f) G each
    step, f the share of the offset the body keeps: with f = 0 it grows step after step
    where R G > 2. The legs keep f = 1 - 1 / (R G), so that R (1 - f) G = 1: what the
    pull leaves, grown over the next line phase, is the whole error, and the next
    placement cancels it (0 where R G <= 1: the old tracking already keeps enough)."""
    if line <= 0.0 or before <= 0.0 or not pull_time > 0.0:
        return 0.0
    growth = line_growth(line, height)
    pulled = 1.0 - math.exp(-before / pull_time) if math.isfinite(pull_time) else 0.0
    return max(0.0, 1.0 - 1.0 / (growth * pulled)) if pulled > 0.0 else 0.0


# Free walkers on soles: the share of their swing feet's placement offset (capture-point
# placement after the body strays from its reference) that the stance legs keep the body
# to. At 0 (as before stop 45) the stance legs pulled the whole offset back: a biped that
# lags its reference lands its feet behind the plan, under its capture point, and its
# stance legs then push it toward a reference ever further ahead; its ankle, capped to keep
# the centre of pressure on the sole, cannot give that push, so the leg and body tip back
# over the planted sole (the free raptor: 15-30 deg nose up within 2 s, then a fall). At 1
# the reference follows the feet in full and the placement feeds itself: the feet land
# behind, the reference moves back, and the body walks backward (the raptor: speed ratio
# -0.1). Measured free, 10 s flat (``experiments/biped_free.py``), shares 0 / 0.3 / 0.5 /
# 0.7 / 1: the first 24 generated bipeds at a cycle of 0.6 pendulum periods walk 17 / 24 /
# 26 / 32 / 2 of 48 runs (at their own tempo 0 / 0 / 2 / 4 / 0); the free mechanic, six
# starts each on 5 deg slopes, 1 cm rough ground, 0.3 m/s pushes either way and a 1.5 m
# arc, 29 / - / 33 / 30 of 36 (0.7 lost three of six descents). Held out (generated bipeds
# 24-71): 28 against 42 of 96 runs at tempo 0.6, 0 against 4 at their own. A held body
# (the assist, the kinematic base) keeps 0: it does not tip over its soles, and with the
# share a 6.7 g generated runner (seed 450) under the assist went down onto its knees.
SOLE_FOLLOW = 0.5
# Free walkers on soles: how many capture times (1 / omega) of the body's speed error along
# its heading their swing feet land further ahead, on top of the capture point (whose own
# weight on it is one: ``ControlConfig.speed_gain``). The capture point alone is neutral to
# a speed error (a foot on it neither speeds the body up nor slows it), and the stance legs'
# pull to the reference is a spring with little damping through a capped ankle: the free
# raptor's speed surged about its reference's, 0.2-0.35 m/s for 2.5 s (0.5 m behind), then
# 0.7-0.9 m/s, overshooting, until it fell (5.8 s); the free mechanic on MuJoCo surged the
# same way (+-0.6 m by 9 s). Measured on stop 46's soles (0.4 as wide as long; stop 47's
# figures on today's are in docs/bipeds.md): free, 10 s, from start seeds 0-5, gains 0 / 0.15 /
# 0.3 / 0.45: the raptor on flat ground, 5 deg slopes, 1 cm rough ground, the 1.5 m arc
# and 0.2 m/s pushes either way walks 6 / 20 / 24 / 20 of 42 runs; at 0.3 the free
# mechanic 42 of 42 on the same conditions with 0.3 m/s pushes (39 at 0), on MuJoCo 6 of 6
# flat (5, at 1.07-1.12 of its speed: now 0.99-1.01); generated bipeds (72, two starts
# each) 8 of 144 at their own tempo (6) and 76 at 0.6 pendulum periods (68). At -0.3 the
# raptor walks backward; at 1 every start falls within 5.2 s. Uphill it still falls from
# every start (1.4-2.3 s, at 0.56-0.78 of its speed).
SOLE_SPEED_GAIN = 0.3


def line_drift_growth(entry) -> float:
    """How many-fold a drift of the body across its support grows over the gait's longest
    stand on the same point feet that cannot hold it (fewer than three, or three or more
    that leave its centre outside: ``weak_support``; ``line_growth`` at the standing
    height, over ``line_stand`` of one cycle): 1 where the feet down always hold it and
    for walkers on soles (a sole's centre of pressure can move)."""
    from ..walker import resolve_entry

    return _gait_line_growth(resolve_entry(entry).gait)


@lru_cache(maxsize=256)  # every run and env reset asks (default body, gain, summary)
def _gait_line_growth(gait) -> float:
    from ..feet import soles
    from ..gait import cycle_length
    from ..geometry import geometry

    if soles(gait) is not None:
        return 1.0
    period = cycle_length(gait) / gait.clip_speed  # the same at every speed scale
    line = line_stand([leg.phase for leg in gait.legs], gait.duty, period,
                      weak=weak_support(gait))  # fmt: skip
    return line_growth(line, geometry(gait).standing_height)


def stance_gain(growth: float, free: bool = True) -> float:
    """The stance legs' position gain for a gait whose stand on a line of point feet lets a
    drift grow ``growth``-fold (``line_drift_growth``): ``LINE_STANCE_KP`` from
    ``SOFT_STANCE_GROWTH`` on, ``STANCE_KP`` below. On a line no leg can right a free body
    about it; stiff stance legs then only make body and legs tip about the line as one
    piece, and the foot at its high end lifts. A body that something else holds upright
    (``free`` false: the assist, a kinematic base) does not tip, and keeps STANCE_KP."""
    return LINE_STANCE_KP if free and growth >= SOFT_STANCE_GROWTH else STANCE_KP


# How a free body on point feet balances sideways depends on how tall it stands over its
# feet's half track (``tipping_ratio``): a sideways push at the feet, a standing height
# below the centre of mass, rolls it, and the vertical forces can right a roll only with
# the half track as their lever, so the push it can afford shrinks as the ratio grows. Up
# to NARROW_FROM the stance legs hold the body's sideways place as they hold it along the
# path; from NARROW_TO on they leave it to where the ground pushes (the reference
# pendulum's zero-moment point, ``ControlConfig.zmp_share``) and where the feet land, and
# right its tilt three times as hard as gravity tips it; linear in between
# (``narrow_share``). Measured on ``generate.quadruped_walker`` seeds 0-99 (10 s flat,
# free; README "Four-legged walks"): the 63 walks taller than 4 times met every flat bound
# in 20 runs before and in 31 with it, while the narrow regime everywhere (a prototype,
# its stance gain at 0.02) lost 13 of the 366 held-out plain runs (seeds 800-999: trots
# standing 2-3.3 times as tall as their half track). No plain generated walker (seeds
# 0-1099) stands taller than 3.71 times. Held out (seeds 100-199, all grounds): 177 of 300
# runs against 173; the walks taller than 5 gained over both samples (87 of 249 against 56),
# those at 4-5 did not (87 of 132 against 88). Stop 52 moved NARROW_FROM to 5 on the 132
# free walkers of the band 4-5 among four generators' seeds (38 of them fresh): 286 of 396
# runs within every bound against 291, the fresh diagonal-sequence walks 32 of 69 against
# 41 (docs/gait_fidelity.md): it stays at 4.
NARROW_FROM = 4.0
NARROW_TO = 5.0


def tipping_ratio(geo) -> float:
    """Standing height over half the sideways spread of the feet's homes (``inf`` for feet
    in one line along the body)."""
    from ..geometry import half_track

    half = half_track(geo)
    return geo.standing_height / half if half > 0.0 else math.inf


def narrow_share(geo) -> float:
    """0 for a body standing at most NARROW_FROM times as tall as its half track, 1 from
    NARROW_TO on, linear in between (see NARROW_FROM)."""
    u = (tipping_ratio(geo) - NARROW_FROM) / (NARROW_TO - NARROW_FROM)
    return 0.0 if u <= 0.0 else (1.0 if u >= 1.0 else u)


# A hip yaw's position gain (legs on soles with ``hip_yaw``): soft, because a planted
# sole's friction holds only a small twist and a stiffer yaw servo spins the body and the
# sole with it at every touchdown (the free mechanic: README, bipeds). A gait with flight
# phases has no foot down to hold the heading for part of each cycle, and its short
# stances leave a soft yaw servo no time to turn a foot that lands twisted: the swing
# legs' gain then. Measured on the generated two-legged walkers of seeds 0-299 and
# 1000-1099 and the built-in bipeds under the assist (10 s flat from two starts, 136
# runs; the built-ins also up and down 5 deg, rough 1 cm and a 1.5 m arc): 114 walked at
# 0.03 and 119 at 0.3; every run that changed was a runner's (duty < 0.5), none went from
# walked to not (seed 1095: off heading by 43 deg and 2.3 touchdowns per stance, now
# 5.6 deg and 1.00). Runners still missing: seeds 79, 264, 277, 283 (fall or no progress).
# Much of that was the stance hip turning the body from where a sole was planned to face
# rather than where it landed facing (``GaitController._hip_facings``, stop 53): since
# then the 58 two-legged runners of generated seeds 0-1099 (flat, the assist) walk 46 at
# either gain, the stiff one keeping the smaller heading error (mean 3.0 deg against 3.5),
# so runners keep it.
HIP_YAW_KP = 0.03
FLIGHT_HIP_YAW_KP = 0.3


def hip_yaw_gain(gait) -> float:
    """A hip yaw's position gain for ``gait``: ``FLIGHT_HIP_YAW_KP`` with flight phases
    (``flight_gait``), ``HIP_YAW_KP`` otherwise."""
    return FLIGHT_HIP_YAW_KP if flight_gait(gait) else HIP_YAW_KP
