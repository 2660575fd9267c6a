"""A walker's body geometry: hip mounts, standing height, foot radius, body box and mass.

Each quantity comes from an optional catalog key when present, otherwise from a documented
rule below, so the Walker, the URDF and the physics all agree on one body.

Frames: the catalog frame C has its origin on the foot plane below the body centre (a home
with z = 0 rests on the ground); the body frame B (the URDF base link) is C raised by the
hip height, so hip mounts sit at z = 0 in B. One exception (``body_origin``): when C's
origin lies outside the polygon of the homes (every leg on one side of it, say all in
front), no body centred there can stand on those feet, so B is centred over them instead:
its origin is the homes' centroid, and mounts and homes are shifted by it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .catalog import KNEES, MIN_LENGTH, CatalogError, Gait
from .feet import ankle_height
from .gait import CYCLE_SAMPLES, feet_down
from .ik import KNEE_UP, LegChain, two_bone
from .polygon import convex_hull, nearest_in_hull

GRAVITY = 9.81  # m/s^2: the one value the geometry, URDF efforts, physics and metrics use
REACH_FRACTION = 0.85  # a default-height leg reaches this share of its length at stance ends
FULL_REACH_FRACTION = 0.98  # ... and never more than this, if a lifted foot needs the height
INNER_MARGIN = 0.03  # a lifted foot stays this share of the leg beyond the inner reach limit
KNEE_MARGIN = 0.5  # a stance leg's knee stays this share of its bone radius above the
# ground, beyond the radius itself (a knee on the ground carries load that the foot should)
KNEE_SAG = 0.05  # ... with the body sunk by this share of the thigh's length: in physics a
# loaded body sinks below its plan (the joints' servos give, the feet's pads sink, the
# assist's spring yields), and a knee that cleared the ground by its margin alone knelt:
# generated walker 4 (thighs 0.234 m on 0.051 m shins) carried 0.22 of its weight on its
# shins at the height that kept the margin, 0.18 at 3 % higher and 0.02 at 6 % higher
KNEE_SAG_FLIGHT = 0.2  # ... and by this much more per share of the cycle with no foot down:
# a gait with flight phases falls through them. Under the assist the body's 90th-percentile
# sag was 0.013-0.026 of the thigh with flight 4-7 % of the cycle and 0.06-0.09 with
# 24-30 %; five of the latter (generated seeds 40, 336, 449, 820, 845: thighs 3.8-4.7 times
# their shins) still knelt at KNEE_SAG alone and needed 2-4 % more height
FLIGHT_SAMPLES = CYCLE_SAMPLES  # points of the gait cycle at which ``flight_share`` looks
FLIGHT_SHARE_MIN = 0.01  # ``flight_gait``: a gait whose feet are all up for more than this
# share of its cycle flies, whatever its duty. Of the irregular walkers of seeds 0-999 with
# duty >= 0.5, 26 leave the ground for 0.019-0.31 of their cycle (phases drawn at random
# that bunch together), two for 0.004 and 0.007: a few milliseconds, left to walk
UP_HIP_INSET = 0.4  # an 'up' leg's default hip sits at this share of its home's lateral offset
UP_MAX_SWEEP = math.radians(60.0)  # ... and at least so far from its home that its hip yaw
# turns through at most this angle over a stance (``_up_mount_x``). A foot whose stride
# runs past close by its hip (a leg at the front or back end of an oval of feet) swings
# the hip yaw through most of a half turn, fastest where the leg points at the foot: the
# yaw servo falls behind, the lightly loaded foot is dragged and lands again. Irregular
# walker 3's front leg, 0.068 m beside its hip on a 0.2 m stride, swept 111 degrees and
# landed 3.6 times a stance; the built-in spider_bot's and horn_beetle's legs sweep 51 and
# 58 degrees and keep their mounts
UP_BODY_SIDE_MAX = 0.75  # with a catalog ``body``, an 'up' leg's default hip sits at the
# body's side (between UP_HIP_INSET and this share of its home's sideways offset from the
# body's centre line): a tortoise written with a 0.25 m wide body and feet 0.17 m out got
# hips 0.068 m out, its 0.13 m legs stood it 0.03 m high and its 0.12 m deep body lay on
# the ground; at the body's side they stand it 0.084 m high
BOB_FRACTION = 0.015  # default bob amplitude as a share of the hip height
FOOT_RADIUS_FRACTION = 0.12  # default foot radius as a share of the shortest shin
FOOT_RADIUS_FLOOR, FOOT_RADIUS_CAP = 0.004, 0.03  # ... clipped to these (m)
FOOT_SHIN_MAX = 0.5  # ... but the floor never makes a foot more than this share of the
# shortest shin: the second catalog's 7 mm ant (4 mm shins) stood on 4 mm balls, its hips
# 3.5 mm up, and fell or walked backwards on every ground; on 2 mm feet it walks flat, up
# 5 deg and over 1 cm bumps. No generated walker has a shin under 8 mm, where this begins
# (and never below the catalog's least length, MIN_LENGTH)
BODY_DENSITY = 600.0  # kg/m^3 for the default mass of the body box
LEG_MASS_SHARE = 0.1  # share of the whole mass in the legs (bones and feet)
FOOT_MASS_SHARE = 0.1  # share of a leg's mass in its foot
FOOT_PAD_SINK = 0.1  # a foot pad sinks this share of the foot radius under an even share
# of the weight (every foot down)
PHYSICS_HZ = 240.0  # the default physics rate (Hz); a walker's own is a multiple of it
CONTROL_HZ = 60.0  # the default control rate (Hz); a walker's own is a doubling of it
CONTROL_STEPS_PER_FALL_TIME = 4.5  # a walker's own control rate steps at least this often
PAD_SAMPLES = 3.0  # physics steps per period of a bare foot's ring on its pad, at least
SOLE_CLOCK_FALL_TIME = 0.2085  # s: the shortest fall time at which the gains of walkers
# that balance on soles were tuned (the built-in bipeds: the raptor's 0.20858 s, rounded
# down, and the mechanic's 0.23363 s); a smaller one runs its servos on its own, faster
# clock (``servo_clock``)
SPHERE_CLOCK_FALL_TIME = 0.0765  # s: the shortest fall time at which the gains of walkers
# on sphere feet were tuned (the built-in horn beetle's 0.0766 s, rounded down; the other
# built-in walkers' 0.092-0.157 s); a smaller walker runs its servos on its own, faster
# clock (``servo_clock``). A 26 mm-legged mouse (fall time 0.044 s) sagged 15 % of its
# height on the tuned gains and knelt; on its clock (1.72) it sags 10 % and walks
CLOCK_GAIN_SLACK = 1.25  # the servo clock raises the per-step gains up to this multiple of
# the tuned ones; beyond it the control and physics rates double instead
SWING_LIFT_FLOOR = 0.5  # a swing foot in physics lifts at least this share of its radius
FOOT_PAD_DAMPING = 1.0  # the pad's damping ratio for that share of the mass (critical)


@dataclass(frozen=True)
class Geometry:
    """Resolved body geometry of one gait (every field an explicit number)."""

    hip_height: float
    foot_radius: float  # sphere feet: their radius; soles: the ankle's height (gaitsim.feet)
    bob: float
    mounts: np.ndarray  # (L, 3) hip mounts in body frame B
    homes: np.ndarray  # (L, 3) mid-stance foot centres in body frame B
    chain: LegChain
    body: tuple[float, float, float]  # box length, width, height (m)
    leg_radius: np.ndarray  # (L,) radius of the thigh and shin cylinders
    body_mass: float  # mass of the body box alone (kg)
    leg_masses: np.ndarray  # (L, 2) thigh and shin masses (kg)
    foot_mass: float
    origin: tuple[float, float] = (0.0, 0.0)  # B's origin in C (x, y): ``body_origin``

    @property
    def standing_height(self) -> float:
        """Height of the body frame over level ground in the mid-stance pose: the hip height
        plus the foot radius (foot centres rest one radius up)."""
        return self.hip_height + self.foot_radius

    @property
    def total_mass(self) -> float:
        return float(self.body_mass + self.leg_masses.sum() + self.foot_mass * len(self.homes))


def _default_mount_xy(gait: Gait, leg) -> tuple[float, float]:
    """Hip mount (x, y) in C: above the home for hanging legs; for 'up' legs inset toward
    the body (``_up_mount_y``), and moved along the body
    toward its origin where the stride would sweep the hip yaw too far (``_up_mount_x``)."""
    hx, hy, _ = leg.home
    if leg.knee == "up":
        my = _up_mount_y(gait, hy)
        return _up_mount_x(gait, hx, hy - my), my
    return hx, hy


def _up_mount_y(gait: Gait, hy: float) -> float:
    """An 'up' leg's default hip mount sideways (y, C): UP_HIP_INSET of its home's offset;
    with a catalog ``body``, out at the body's side if that lies farther out, but at most
    UP_BODY_SIDE_MAX of the home's offset from the body's centre line."""
    inset = hy * UP_HIP_INSET
    if gait.body is None:
        return inset
    oy = body_origin(gait)[1]
    off = hy - oy
    side = oy + math.copysign(min(0.5 * gait.body[1], UP_BODY_SIDE_MAX * abs(off)), off)
    return side if abs(side) > abs(inset) else inset


def _up_mount_x(gait: Gait, hx: float, side: float) -> float:
    """An 'up' leg's hip mount along the body (x, C): its home's ``hx``, unless the home
    lies nearer its hip than ``stride / 2 / tan(UP_MAX_SWEEP / 2)`` (``side``: the home's
    sideways offset from the hip). Then the mount moves toward the body's origin until the
    home is that far, or the mount is level with the origin, whichever comes first. At
    that distance the foot's stride, along the body, turns the hip-to-foot direction
    through at most UP_MAX_SWEEP wherever the home lies round the hip."""
    reach = 0.5 * gait.stride / math.tan(0.5 * UP_MAX_SWEEP)
    if abs(side) >= reach:
        return hx
    ox = body_origin(gait)[0]
    shift = min(math.sqrt(reach * reach - side * side), abs(hx - ox))
    return hx - math.copysign(shift, hx - ox)


def _mount_xy(gait: Gait, leg) -> tuple[float, float]:
    """Hip mount (x, y) in C: the catalog's, or the default (``_default_mount_xy``)."""
    if leg.hip is not None:
        return leg.hip[0], leg.hip[1]
    return _default_mount_xy(gait, leg)


def _bob(gait: Gait, hip: float) -> float:
    """The body's bob amplitude (m): the catalog's, or BOB_FRACTION of the hip height."""
    return gait.bob if gait.bob is not None else BOB_FRACTION * hip


def _hip_offsets(gait: Gait, i: int) -> tuple[float, float]:
    """Leg ``i``'s horizontal hip-to-home offset: squared distance, and its part along x."""
    leg = gait.legs[i]
    mx, my = _mount_xy(gait, leg)
    return (leg.home[0] - mx) ** 2 + (leg.home[1] - my) ** 2, leg.home[0] - mx


def leg_radii(upper, lower, foot: float | None = None) -> np.ndarray:
    """The thigh and shin cylinders' radius per leg: a tenth of its shorter bone, 3-20 mm,
    and (given the feet's radius ``foot``) at most BONE_FOOT_MAX of it."""
    r = np.clip(0.1 * np.minimum(upper, lower), 0.003, 0.02)
    return r if foot is None else np.minimum(r, BONE_FOOT_MAX * foot)


# A bone is at most this share of the foot's radius thick. The shin's collision stops a
# foot radius short of the foot's centre, so a shin wider than the foot meets the ground
# with its rim when it leans far over: the feet's radius comes from the shortest shin, and
# on a walker whose legs differ a long leg's shin was wider than every foot (generated
# mixed-legs walker 1002: 7.5-7.9 mm shins on 5.3 mm feet; uncapped, 4 s flat, its shins
# carried 0.39 of its weight and its worst leg's duty was off by 0.43; capped, 0.01 and
# 0.01). Legs alike never reach it (a tenth of the shorter bone against
# FOOT_RADIUS_FRACTION of the shin).
BONE_FOOT_MAX = 0.9


def bone_radii(gait: Gait) -> np.ndarray:
    """The thigh and shin cylinders' radius per leg (``leg_radii`` with the feet's)."""
    return leg_radii([leg.upper for leg in gait.legs], [leg.lower for leg in gait.legs],
                     _sphere_radius(gait))  # fmt: skip


def _sphere_radius(gait: Gait) -> float:
    """The radius (m) of a walker's feet (the catalog's, or FOOT_RADIUS_FRACTION of its
    shortest shin, 4-30 mm, but never more than FOOT_SHIN_MAX of that shin), or for soles
    the ankle's height over the sole."""
    ankle = ankle_height(gait)
    if ankle is not None:
        return ankle
    if gait.foot_radius is not None:
        return float(gait.foot_radius)
    min_lower = min(leg.lower for leg in gait.legs)
    floor = max(min(FOOT_RADIUS_FLOOR, FOOT_SHIN_MAX * min_lower), MIN_LENGTH)
    return float(np.clip(FOOT_RADIUS_FRACTION * min_lower, floor, FOOT_RADIUS_CAP))


def _lowest_knee(gait: Gait, i: int, hip: float) -> float:
    """The lowest height (m, over the feet's centres) of leg ``i``'s knee over its stance,
    its foot on the ground from stride / 2 ahead of its home to stride / 2 behind, with
    the hip ``hip`` above the feet and the body bobbed down (two-bone IK in the leg plane,
    as ``ik.leg_ik``). An 'up' knee rises above the hip-to-foot line, which is not above
    the ground: under a hip lower than its thigh is long, the thigh reaches out and down
    and the shin comes back in to the foot (irregular walker 163: a 0.52 m thigh from a
    0.40 m hip laid its shin flat on the ground and carried the walker on it)."""
    leg = gait.legs[i]
    mx, my = _mount_xy(gait, leg)
    top = hip - _bob(gait, hip)
    u, low_, sign = leg.upper, leg.lower, (-1.0 if leg.knee == "back" else 1.0)
    up = leg.knee == "up"
    # each sample's foot from the hip, in the leg plane: (along the hip-to-foot line's
    # first axis, across it); 'up' legs: outward (horizontal) and up, hanging legs: down
    # the rolled plane and forward
    planes = []
    for s in np.linspace(-gait.stride / 2, gait.stride / 2, 9):
        vx, vy, vz = leg.home[0] + s - mx, leg.home[1] - my, leg.home[2] - top
        planes.append((math.hypot(vx, vy), vz) if up else (math.hypot(vy, vz), vx, vz))
    # the hip angles of all samples in one call (clamped into reach as the IK)
    hips, _ = two_bone(u, low_, np.array([math.hypot(p[0], p[1]) for p in planes]))
    lowest = math.inf
    for p, hip_angle in zip(planes, hips.tolist(), strict=True):
        if up:
            out, vz = p
            knee = top + u * math.sin(math.atan2(vz, out) + hip_angle)
        else:
            a, vx, vz = p
            thigh = math.atan2(vx, a) + sign * hip_angle
            knee = top + u * math.cos(thigh) * vz / a if a > 0 else top
        lowest = min(lowest, knee)
    return lowest


@lru_cache(maxsize=256)  # asked by the default body, every Walker and the CLI's notes
def flight_share(gait: Gait) -> float:
    """The share of a gait cycle in which no foot is down (each leg down for the first
    ``duty`` of its cycle from its phase), sampled at FLIGHT_SAMPLES points: 0 for a walk
    or a trot with duty >= 0.5, 1 - duty for legs that all move as one."""
    down = feet_down([leg.phase for leg in gait.legs], gait.duty, FLIGHT_SAMPLES)
    return float(1.0 - down.any(axis=1).mean())


def flight_gait(gait: Gait) -> bool:
    """Whether ``gait`` has flight phases as gaitsim counts them: duty below 0.5 (each
    foot in the air longer than it is down: a run) or no foot down for more than
    FLIGHT_SHARE_MIN of the cycle (``flight_share``: legs that move together, as a hop or
    a pronk, leave the ground together at any duty)."""
    return gait.duty < 0.5 or flight_share(gait) > FLIGHT_SHARE_MIN


@lru_cache(maxsize=256)
def knee_height_floor(gait: Gait) -> float:
    """The lowest hip height (m) at which every stance knee stays clear of the ground: its
    bone's radius plus KNEE_MARGIN of it over the ground, which lies a foot radius below
    the feet's centres (``_lowest_knee``), with the body sunk by KNEE_SAG of the thigh
    (more with flight phases: KNEE_SAG_FLIGHT times ``flight_share``). A thigh nearly as
    long as the hip is high puts its knee on the ground: generated walker 206 (0.156 m
    thighs on 0.031 m shins at a 0.152 m hip) carried half its weight on its shins and
    lifted its feet after half of each stance (measured duty 0.30-0.41 against 0.51)."""
    return max(_knee_floors(gait), default=0.0)


@lru_cache(maxsize=256)
def _knee_floors(gait: Gait) -> tuple[float, ...]:
    """Each leg's own ``knee_height_floor`` (0 for a leg whose knee clears the ground at
    every height)."""
    radii = bone_radii(gait)
    foot = _sphere_radius(gait)
    sag = KNEE_SAG + KNEE_SAG_FLIGHT * flight_share(gait)
    out = []
    for i, leg in enumerate(gait.legs):
        need = (1.0 + KNEE_MARGIN) * float(radii[i]) - foot + sag * leg.upper
        top = leg.upper + max(need, 0.0) + abs(leg.home[2])
        top /= 1.0 - (BOB_FRACTION if gait.bob is None else 0.0)
        top += gait.bob or 0.0  # at this height the knee cannot reach the ground
        grid = np.linspace(0.0, top, 65)[1:]
        fails = [h for h in grid if _lowest_knee(gait, i, float(h)) < need]
        if not fails or fails[-1] == grid[-1]:
            out.append(0.0)  # clear at every height, or (bob set by hand) at none
            continue
        lo = float(fails[-1])  # the highest failing height on the grid, then bisect above it
        hi = float(grid[np.searchsorted(grid, lo) + 1])
        for _ in range(40):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if _lowest_knee(gait, i, mid) >= need else (mid, hi)
        out.append(hi)
    return tuple(out)


def _leg_height_bounds(gait: Gait) -> list[tuple[float, float, float]]:
    """Each leg's own ``(low, high, highest)`` (``hip_height_bounds``)."""
    out = []
    for i, leg in enumerate(gait.legs):
        r2, dx = _hip_offsets(gait, i)
        half = gait.stride / 2
        end2 = r2 - dx * dx + (abs(dx) + half) ** 2  # the farther stance end
        high, highest = (
            math.sqrt(h2) + leg.home[2] if (h2 := (frac * leg.reach) ** 2 - end2) > 0 else -math.inf
            for frac in (REACH_FRACTION, FULL_REACH_FRACTION)
        )  # fmt: skip
        near2 = r2 - dx * dx + max(abs(dx) - half, 0.0) ** 2  # the nearest point of the stride
        inner = abs(leg.upper - leg.lower) + INNER_MARGIN * leg.reach
        rise = math.sqrt(max(inner * inner - near2, 0.0)) + leg.home[2] + gait.lift
        low = rise + gait.bob if gait.bob is not None else rise / (1.0 - BOB_FRACTION)
        out.append((low, high, highest))
    return out


def hip_height_bounds(gait: Gait) -> tuple[float, float, float]:
    """``(low, high, highest)``: hip heights (over the foot plane) between which every foot
    stays inside its leg's reachable annulus over the whole cycle.

    ``high``: each foot at the ends of its stance (stride / 2 off its home along x) reaches
    at most REACH_FRACTION of its leg; ``highest``: the same at full reach, less a margin.
    ``low``: each foot at the top of its swing (home height + lift, over its closest point
    to the hip along the stride) stays INNER_MARGIN of the leg beyond the inner radius
    |upper - lower|, with the body bobbing down by its bob (BOB_FRACTION of the height
    unless the catalog sets it).
    """
    return _aggregate(_leg_height_bounds(gait))


def _aggregate(bounds: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    """The legs' ``(low, high, highest)`` for all of them at one height: the highest low,
    the lowest high and highest."""
    lows, highs, highests = zip(*bounds, strict=True)
    return max(0.0, *lows), min(highs), min(highests)


def _height_rule(low: float, high: float, highest: float, knee: float) -> float | None:
    """The hip height that ``default_hip_height`` picks within these bounds (None: none)."""
    if high >= low and high > 0:
        return max(high, min(knee, highest))
    if highest >= low and highest > 0:
        return max(low, min(high, highest), min(knee, highest))
    return None


def default_hip_height(gait: Gait) -> float:
    """The default hip height: the tallest stance in which every foot reaches at most
    REACH_FRACTION of its leg at its stance ends, raised if need be so that a lifted foot
    stays clear of the inner reach limit (``hip_height_bounds``); a gait that no height
    serves is a catalog error naming the leg and the fix. Where the stance knees would
    touch the ground it rises further, to ``knee_height_floor``, as far as the full reach
    allows (a leg that cannot keep its foot in reach and its knee clear keeps the foot):
    each leg's own full reach, where legs differ, the shorter legs then mounted lower
    (``mount_heights``). Where no one height serves every leg but each leg has one of its
    own (a lifted foot needs a long-thighed leg higher than a short leg reaches), the body
    stands at the tallest of them and the other legs hang at their own."""
    bounds = _leg_height_bounds(gait)
    low, high, highest = _aggregate(bounds)
    height = _height_rule(low, high, highest, knee_height_floor(gait))
    if height is not None:
        # a leg whose knee needs the body higher than the shortest leg's full reach raises
        # it as far as its own reach allows (the shorter legs are mounted lower:
        # ``mount_heights``); on legs alike this is ``height`` itself
        knees = (min(k, b[2]) for k, b in zip(_knee_floors(gait), bounds, strict=True))
        return max(height, *knees)
    own = _own_heights(gait)
    if None not in own:  # no one height serves every leg, but each has its own: the body
        return max(own)  # stands at the tallest, the others hang lower (``mount_heights``)
    worst = _worst_leg(gait, [i for i, h in enumerate(own) if h is None])
    leg = gait.legs[worst]
    low, _, highest = bounds[worst]  # that leg's own
    raise CatalogError(
        f"segments[{worst}] ({leg.name}): no hip height keeps this leg's foot within reach "
        f"over the whole cycle (the stride {gait.stride:g} m needs the hip at most "
        f"{max(highest, 0.0):.4g} m above the feet, the lift {gait.lift:g} m with bones "
        f"{leg.upper:g} and {leg.lower:g} m needs it at least {low:.4g} m); shorten the "
        "stride or the lift, make the bones more equal, or set 'hip_height'"
    )


def mount_heights(gait: Gait, hip: float) -> list[float]:
    """Each leg's hip mount height (over the foot plane) under a body whose default hip
    height is ``hip``: ``hip``, except for a leg that ``default_hip_height``'s rule, applied
    to that leg alone, would mount lower. That happens where legs of different proportions
    disagree: a long-thighed leg raises the body to keep its knee off the ground (or its
    lifted foot clear of its inner reach), and a shorter leg hung at that height stands at
    the edge of its reach; mounted at its own height it keeps its margin. On legs alike
    every leg's own height is ``hip`` (no change). Measured on heterogeneous walkers
    (docs/gait_fidelity.md): on one height generated mixed-legs walker 1062's 10 cm front
    and hind pairs stood at the end of their reach (11.9 mm of shortfall, those feet down
    0.11-0.35 of the cycle against 0.53), and legs whose knees needed the body higher
    than the shortest legs reached rested their knees on the ground."""
    return [hip if own is None else min(hip, own) for own in _own_heights(gait)]


def _hung_heights(gait: Gait, hip: float) -> list[float]:
    """Each leg's hip mount height for a body at hip height ``hip``: its own
    (``mount_heights``) under a default hip height, ``hip`` for all under a catalog's."""
    return mount_heights(gait, hip) if gait.hip_height is None else [hip] * gait.n_legs


def sink_room(gait: Gait, hip: float) -> float:
    """How far (m) a body standing at hip height ``hip`` may sink before some leg's lifted
    foot comes within INNER_MARGIN of its inner reach (that leg's ``low``,
    ``hip_height_bounds``), each leg hung at its own mount height (``mount_heights``);
    negative when the body already stands lower than that."""
    heights = _hung_heights(gait, hip)
    return min(h - b[0] for h, b in zip(heights, _leg_height_bounds(gait), strict=True))


def _own_heights(gait: Gait) -> list[float | None]:
    """Each leg's own default hip height: ``default_hip_height``'s rule on that leg's
    bounds and knee floor alone (None: no height serves it)."""
    bounds, knees = _leg_height_bounds(gait), _knee_floors(gait)
    return [_height_rule(*b, k) for b, k in zip(bounds, knees, strict=True)]


def _worst_leg(gait: Gait, among: list[int]) -> int:
    """The leg (of the indices ``among``) whose reach annulus leaves the least room (for
    error messages)."""
    room = []
    for i in among:
        leg = gait.legs[i]
        r2, dx = _hip_offsets(gait, i)
        end = math.sqrt(r2 - dx * dx + (abs(dx) + gait.stride / 2) ** 2)
        room.append(leg.reach - abs(leg.upper - leg.lower) - end - gait.lift)
    return among[int(np.argmin(room))]


ORIGIN_TOL = 1e-9  # m: C's origin farther than this outside the homes' polygon moves B


@lru_cache(maxsize=256)  # asked for every 'up' leg's default hip (``_up_mount_x``)
def body_origin(gait: Gait) -> tuple[float, float]:
    """Where (x, y in C) the body frame's origin sits: C's own origin, unless that lies
    outside the convex polygon of the legs' homes (a segment for two legs, a point for
    one), where a body centred on it would hang beyond its feet and tip off them (the
    awkward catalog's forward_hex, all six legs ahead of it, crawled at half its speed);
    then the homes' centroid, so the body box, and with it the centre of mass, lies over
    the feet."""
    homes = np.array([leg.home[:2] for leg in gait.legs], dtype=float)
    if float(np.hypot(*nearest_in_hull(np.zeros(2), convex_hull(homes)))) <= ORIGIN_TOL:
        return 0.0, 0.0
    cx, cy = homes.mean(axis=0)
    return float(cx), float(cy)


@lru_cache(maxsize=256)
def geometry(gait: Gait) -> Geometry:
    """Resolve a gait's body geometry (cached: gaits are frozen)."""
    H = gait.hip_height if gait.hip_height is not None else default_hip_height(gait)
    if ankle_height(gait) is not None and gait.foot_radius is not None:
        raise CatalogError("foot_radius: is the radius of sphere feet, but this walker's "
                           "legs end in soles; remove it (a sole's 'height' sets the "
                           "ankle's) or give every leg \"foot\": \"sphere\"")  # fmt: skip
    r = _sphere_radius(gait)
    bob = _bob(gait, H)
    heights = _hung_heights(gait, H)
    mounts_c = []
    for leg, h in zip(gait.legs, heights, strict=True):
        if leg.hip is not None:
            mounts_c.append(leg.hip)
        else:
            mx, my = _default_mount_xy(gait, leg)
            mounts_c.append((mx, my, h))
    ox, oy = body_origin(gait)
    lift = np.array([ox, oy, H])
    mounts = np.array(mounts_c, dtype=float) - lift
    homes = np.array([leg.home for leg in gait.legs], dtype=float) - lift
    kind = np.array([KNEES.index(leg.knee) for leg in gait.legs])
    d = homes - mounts
    yaw0 = np.where(kind == KNEE_UP, np.arctan2(d[:, 1], d[:, 0]), 0.0)
    upper = np.array([leg.upper for leg in gait.legs])
    lower = np.array([leg.lower for leg in gait.legs])
    chain = LegChain(mounts, upper, lower, kind, yaw0)
    leg_radius = bone_radii(gait)

    if gait.body is not None:
        body = gait.body
    else:
        # along the body it spans the hips as they stand over their homes: an 'up' hip
        # moved in (``_up_mount_x``) leaves the body as long as its feet's layout makes it
        # (irregular 128, three legs, shrank to 0.61 of its length and a quarter of its yaw
        # inertia, and turned round on its vertical axis under the assist)
        along = [(leg.hip[0] if leg.hip is not None else leg.home[0]) - ox for leg in gait.legs]
        length = float(np.ptp(along) + 2 * leg_radius.max() + 0.2 * upper.mean())
        width = float(max(np.ptp(mounts[:, 1]), 0.2 * length) + 2 * leg_radius.max())
        height = float(np.clip(0.3 * H, 0.02, 0.6 * width))
        # deep enough to hold every hip: legs hung lower than the body (``mount_heights``)
        # hang from its underside, not below it
        height = max(height, -2.0 * float(mounts[:, 2].min()))
        body = (length, width, height)
    # The legs (bones and feet together) carry LEG_MASS_SHARE of the whole mass, split
    # between the legs and along each leg by bone length, with FOOT_MASS_SHARE of a leg in
    # its foot. A tenth: light enough that swinging legs do not throw a trotting body off
    # its two feet, heavy enough that a shin is not a thousandth of the body, which is hard
    # on the joint solver (measured on generated walkers and the built-in hound).
    if gait.mass is not None:
        total = float(gait.mass)
    else:
        total = BODY_DENSITY * body[0] * body[1] * body[2] / (1.0 - LEG_MASS_SHARE)
    per_leg = LEG_MASS_SHARE * total / gait.n_legs
    foot_mass = FOOT_MASS_SHARE * per_leg
    bones = np.stack([upper, lower], 1)
    leg_masses = (per_leg - foot_mass) * bones / bones.sum(axis=1, keepdims=True)
    body_mass = total - float(leg_masses.sum()) - foot_mass * gait.n_legs
    return Geometry(
        float(H),
        float(r),
        float(bob),
        mounts,
        homes,
        chain,
        tuple(body),
        leg_radius,
        float(body_mass),
        leg_masses,
        foot_mass,
        (ox, oy),
    )


def body_in_ground(gait: Gait) -> str | None:
    """What is wrong with a catalog ``body`` box (centred on the hips' height) that reaches
    into the ground where the walker stands, and how to fix it; None for every other
    walker. Such a body touches the ground from the start, and a physics run ends at once
    with a fall (``body_contact``); ``gaitsim validate`` and ``gaitsim walk`` print this."""
    if gait.body is None:
        return None
    depth, hip = gait.body[2], geometry(gait).hip_height
    under = hip - 0.5 * depth
    if under > 0.0:
        return None
    reach = max(hip_height_bounds(gait)[2], 0.0)
    return (
        f"its body, a box {depth:g} m deep centred on the hips {hip:.4g} m above the feet, "
        f"reaches {-under * 1000:.1f} mm into the ground (the body frame sits at the hip "
        f"height{'' if gait.hip_height is not None else ', here the default'}), so it "
        f"cannot stand; make the body less than {2.0 * hip:.4g} m deep, or set a "
        f"'hip_height' above {0.5 * depth:.4g} m (the legs reach to {reach:.4g} m)"
    )


def knees_on_ground(gait: Gait) -> str | None:
    """What is wrong with a catalog ``hip_height`` below ``knee_height_floor`` (a stance
    knee meets the ground: in physics the walker kneels, its shins carrying weight), and
    how to fix it; None for every other walker. ``gaitsim validate`` and ``gaitsim walk``
    print it."""
    if gait.hip_height is None:
        return None
    floor = knee_height_floor(gait)
    if gait.hip_height >= floor:
        return None
    highest = hip_height_bounds(gait)[2]
    fix = (f"raise 'hip_height' to at least {floor:.4g} m (the legs reach to "
           f"{highest:.4g} m)" if highest >= floor else "lengthen the shins")
    try:
        fix += f", or leave 'hip_height' out for the default ({default_hip_height(gait):.4g} m)"
    except CatalogError:  # no default height serves this gait
        pass
    return (f"its hip_height {gait.hip_height:g} m puts its stance knees on the ground "
            f"(they clear it from {floor:.4g} m), so it will kneel; {fix}")


def physics_lift(gait: Gait, geo: Geometry) -> float:
    """The swing's peak height (m) in physics: the catalog's lift, but at least
    SWING_LIFT_FLOOR of the foot's radius (of the ankle's height on soles). A gait may
    shuffle with a lift of 0, as a clip can; a foot in physics drags on the ground then
    (a hexapod written with lift 0: 1.9 landings a stance, fell; lifted 5 mm, half its
    foot's radius, it walks)."""
    return max(gait.lift, SWING_LIFT_FLOOR * geo.foot_radius)


def foot_pad(geo: Geometry, n_feet: int | None = None) -> tuple[float, float]:
    """Contact stiffness (N/m) and damping (N s/m) of a foot: a damped pad, not a rigid
    ball. A foot carrying an even share of the weight, m g / n, sinks FOOT_PAD_SINK of its
    radius, and the pad is FOOT_PAD_DAMPING times critically damped for that share of the
    mass. Rubber feet do this on real robots; in the physics it is what lets a landing foot
    stay down instead of bouncing off a rigid contact (measured: touchdowns per stance of
    1.2-1.9 with rigid feet, 1.0-1.2 with pads, on the built-in and generated walkers)."""
    n = len(geo.homes) if n_feet is None else n_feet
    m = geo.total_mass / n
    k = m * GRAVITY / (FOOT_PAD_SINK * geo.foot_radius)
    return k, FOOT_PAD_DAMPING * 2.0 * math.sqrt(k * m)


def pad_shortfall(geo: Geometry) -> float:
    """How much shallower a sphere foot's pad is than its legs' proportions ask, as a share
    of its own depth: ``FOOT_RADIUS_FRACTION`` x the shortest shin / the foot radius - 1,
    at least 0. A pad sinks FOOT_PAD_SINK of its radius, and the default radius is that
    share of the shin, so the pad's depth keeps pace with the leg and with the leg's own
    millimetre errors; the radius is capped at 3 cm, and a capped foot on a long shin
    has a pad too shallow for its leg (generated walker 87: a 3 cm foot on a 53 cm shin,
    shortfall 1.13; every built-in walker: 0). ``GaitController`` presses such a foot in
    by the depth it lacks (``ControlConfig.preload``)."""
    want = FOOT_RADIUS_FRACTION * float(np.min(geo.chain.lower))
    return max(want / geo.foot_radius - 1.0, 0.0)


def unsprung_hz(geo: Geometry, n_feet: int | None = None, stiffness: float | None = None) -> float:
    """The frequency (Hz) at which a foot and its shin, with no body weight on them (a
    foot that has just landed, before its load arrives), ring on the foot pad:
    ``sqrt(k / (m_foot + m_shin)) / 2 pi`` with the pad's stiffness ``k`` (``foot_pad``),
    for the leg with the lightest shin. The pad is sized for a share of the body, about a
    hundred times the foot, so this is some ten times the loaded pad's frequency.
    ``stiffness`` (N/m): the pad's instead, where a foot's is not ``foot_pad``'s (soles)."""
    k = foot_pad(geo, n_feet)[0] if stiffness is None else stiffness
    m = geo.foot_mass + float(np.min(geo.leg_masses[:, 1]))
    return math.sqrt(k / m) / (2.0 * math.pi)


def half_track(geo: Geometry) -> float:
    """Half the sideways spread of the feet's homes (m): how far the ground's push may
    move sideways of the body's centre and still be under a foot."""
    return 0.5 * float(np.ptp(geo.homes[:, 1]))


def fall_time(geo: Geometry) -> float:
    """The body's own time scale (s): sqrt(standing height / g), the time constant of a
    pendulum as tall as it stands. A walker scaled by k in every length and walked at
    sqrt(k) its speed (the same Froude number) moves the same way on a clock scaled by
    sqrt(k): so does this."""
    return math.sqrt(geo.standing_height / GRAVITY)


def servo_clock(geo: Geometry, soles: bool = False) -> float:
    """How many times faster (per second) than the tuned gains a walker's joint servos
    close their errors: ``reference / fall_time`` where that is above 1, else 1; the
    reference is SOLE_CLOCK_FALL_TIME for walkers on soles and SPHERE_CLOCK_FALL_TIME for
    walkers on sphere feet, the smallest fall times the gains were tuned at.

    PyBullet's position motor closes a set share of an error per physics step, so a gain
    held per second is a fixed bandwidth whatever the body's size, while a walker k times
    smaller falls sqrt(k) times faster: under its own weight it gives more, for its size,
    on the same gains. A biped balances on its soles by its servos: with the same gains
    per second the free mechanic walked 10 s at half and twice its size but fell within
    1.0-3.4 s at 0.15, 0.2 and 0.3 of it, at any control rate (60-240 Hz) or physics rate
    (240-960 Hz) alike (2 of 12 starts walked at 0.15-0.5 of its size). On its own clock
    (its gains stiffened per second by this factor, its control and physics rates doubled
    as ``clock_rate_multiple`` says) 11 of those 12 walk. On sphere feet the smallest
    walkers sag under their weight until their knees take it: the third catalog's mouse
    (legs of 26 mm, fall time 0.044 s) sank 15 % of its height and its shins carried 0.13
    of its weight; on its clock it walks. Soles run on their clock only with a free body
    (``sim.run.run_rates``: the assist holds the body up and level itself, and on it the
    tuned gains walk the smallest bipeds better; the assisted raptor at 0.05 of its size
    went off heading on its clock, 4.5); sphere feet on every body."""
    ref = SOLE_CLOCK_FALL_TIME if soles else SPHERE_CLOCK_FALL_TIME
    return max(1.0, ref / fall_time(geo))


def clock_rate_multiple(clock: float) -> int:
    """The smallest power of two at least ``clock / CLOCK_GAIN_SLACK``: the multiple of
    the control and physics rates that keeps a servo clock's per-step gains within
    CLOCK_GAIN_SLACK of the tuned ones (PyBullet's position motor overshoots once a
    per-step gain passes 1: the ankles' 0.5 at twice that fell within 0.4 s)."""
    m = 1
    while m * CLOCK_GAIN_SLACK < clock - 1e-9:
        m *= 2
    return m


def control_hz(geo: Geometry, clock: float = 1.0) -> float:
    """A walker's default control rate: CONTROL_HZ, or the smallest doubling of it that
    steps at least CONTROL_STEPS_PER_FALL_TIME times per ``fall_time``, and at least the
    rate multiple of the servo clock it runs on (``clock``: see ``servo_clock`` and
    ``clock_rate_multiple``). The built-in walkers get 4.6-14 control steps per fall
    time at 60 Hz and the generated walkers (seeds 0-799) 3.8 and more, so all keep 60 Hz;
    the fox and the hound at a tenth of their size (2.6 and 3.1) fell within a second at 60
    Hz."""
    rate = CONTROL_HZ * clock_rate_multiple(clock)
    while rate * fall_time(geo) < CONTROL_STEPS_PER_FALL_TIME - 1e-9:
        rate *= 2.0
    return rate


def physics_hz(
    geo: Geometry, n_feet: int | None = None, stiffness: float | None = None, clock: float = 1.0
) -> float:
    """A walker's default physics rate: the smallest multiple of PHYSICS_HZ that

    - samples ``unsprung_hz`` at least PAD_SAMPLES times a period. Below twice (Nyquist)
      a landing foot's contact flickers: generated walker 56 (80 g, a 9 mm shin, a bare
      foot ringing at 155 Hz) made 2.29 touchdowns per stance at 240 Hz and 0.99 at 480
      Hz. Twice is not enough for a small runner's soles: runner 450 (6.7 g, soles ringing
      at 220 Hz) under the assist ran away at 480 Hz (2.2 steps a period; speed ratio 6.9,
      its heading swinging +-60 deg every step) and walks at 720 Hz. Three times took 464
      of the 486 generated walkers it moves (seeds 0-1099, plain and mixed) through flat
      ground against 452 at twice. The built-in walkers ring at 31-69 Hz;
    - is at least the rate multiple of the servo clock it runs on (``clock``,
      ``clock_rate_multiple``);
    - and is a whole number of ``control_hz`` periods.

    Every built-in walker keeps 240 Hz. (Not a rule here: a floor of 14 physics steps per
    ``fall_time`` let the hound at a tenth of its size walk, at 480 Hz, but sent the horn
    beetle at a tenth of its off heading, which walks at 240 Hz.)"""
    ring = unsprung_hz(geo, n_feet, stiffness)
    k = max(clock_rate_multiple(clock), math.ceil(PAD_SAMPLES * ring / PHYSICS_HZ - 1e-9))
    rate = PHYSICS_HZ * k
    control = control_hz(geo, clock)
    return math.ceil(rate / control - 1e-9) * control
