"""The body's height through flight phases: a ballistic plan for gaits that leave the ground.

While every foot is up, nothing holds the body: its centre of mass falls freely,
``z'' = -g``. A plan that keeps the body level through a flight (as the walk's body path
does) asks for a force no foot can give, and in physics the body drops through each flight
and lands on legs that were planned for a body higher up (a hop, whose feet are all up for
40 % of its cycle, sank 0.2 m under the assist and was carried: the assist's mean force
0.76 of its weight).

The plan here is the spring-mass runner's: the ground pushes up through each stance foot
with a half-sine over its stance, the feet together scaled so that over a cycle they carry
the weight exactly (``stance_force``); the body's height follows
``z'' = g (F - 1)`` (F in weights), whose one periodic solution ``ballistic_height`` finds
by FFT (a circulant system, as ``balance.periodic_lip``). It is placed so that the body
is never above its standing height while a foot is down, and at it where a symmetric gait
lands and takes off: there the legs reach the ground as they do standing. Through a flight it rises
above that by up to ``g T^2 / 8`` (T the flight's length), through a stance it sinks below
it as the legs take the landing and push off.

``flight_table`` samples one cycle of it; ``Walker`` adds it to the body's height for gaits
whose feet are all up for BALLISTIC_FLIGHT of the cycle or more, and raises swing feet with
the body while it is above its landing height (``swing_rise``), so that a foot in the air
stays within the leg's reach. Every other gait's body path is unchanged (a gait with some
foot down all through the cycle would get a table of zeros).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .geometry import GRAVITY

FLIGHT_TABLE_CACHE = 64  # distinct flight plans remembered (gaits x speeds)
BALLISTIC_FLIGHT = 0.15  # the flight share of a cycle (``geometry.flight_share``) from which a
# gait's body flies on this plan; a shorter flight keeps the level body path. Measured on
# the 159 flight gaits of generated seeds 0-299 (plain and mixed legs, the assist, 10 s
# flat), the plan for every flight gait (before the knee floor below) against the level
# path: flights under 0.1 of the cycle: 70 walk against 74
# (four walkers of 7-10 mixed legs kneel as the body sinks through the stance), the
# assist's median force 0.048 of the weight against 0.035; 0.1-0.2: 49 and 49, 0.085 and
# 0.086; 0.2-0.3: 33 against 32, 0.125 against 0.152 (stop 59)
# A flight plan may not sink the body below the knee floor either (``Walker._flight_plan``):
# two generated walkers of 8 and 12 legs raised to it (seeds 820, 607, flights 0.26-0.29
# of the cycle) knelt on the plan's dip and walked on the level path
SINK_ROOM_SHARE = 0.5  # the share of a walker's sink room (``geometry.sink_room``: computed
# for a straight stride) that its flight plan may sink into. With all of it, three of the
# 608 flight gaits of generated seeds 0-1099 (plain and mixed legs) came 0.3-1.4 mm within
# their inner reach turning in place, where a swing foot passes nearer its hip; with half,
# none (no shortfall walking straight or turning in place, as without the plan)


def stance_force(stance: np.ndarray, progress: np.ndarray) -> np.ndarray:
    """The planned vertical ground force (N,) over a cycle of N samples, in weights: each
    stance foot (``stance`` (N, L)) pushes a half-sine of its stance ``progress`` (N, L,
    0 .. 1), all together scaled to a mean of 1 over the cycle. All ones with no foot ever
    down (nothing to shape: the caller's gait has no stance)."""
    push = np.where(stance, np.sin(np.pi * np.clip(progress, 0.0, 1.0)), 0.0).sum(axis=-1)
    mean = float(push.mean()) if push.size else 0.0
    return push / mean if mean > 0.0 else np.ones(push.shape)


def ballistic_height(force: np.ndarray, period: float) -> np.ndarray:
    """The periodic height (N,) of a body pushed by ``force`` (N, in weights) over one
    ``period`` seconds sampled at N equal steps, with mean 0: the solution of
    ``z[k+1] - 2 z[k] + z[k-1] = (period / N)^2 g (force[k] - 1)`` (``z'' = g (F - 1)``
    by central differences). Only a force whose mean is 1 has a periodic solution; the
    mean is taken out first, so the answer is that of ``force / mean(force)``."""
    f = np.asarray(force, dtype=float)
    n = len(f)
    if n == 0:
        return f.copy()
    accel = GRAVITY * (f / f.mean() - 1.0) * (period / n) ** 2
    lam = 2.0 * np.cos(2.0 * np.pi * np.arange(n) / n) - 2.0
    spectrum = np.fft.fft(accel)
    spectrum[0] = 0.0  # the mean height is free: 0
    lam[0] = 1.0
    return np.real(np.fft.ifft(spectrum / lam))


def flight_table(stance: np.ndarray, progress: np.ndarray, period: float) -> np.ndarray:
    """The body's height offset (N,) over one cycle of N samples for a gait whose feet are
    down at ``stance`` (N, L) with stance ``progress`` (N, L), a cycle lasting ``period``
    seconds: the ballistic height (``ballistic_height`` of ``stance_force``), at most 0
    wherever a foot is down (0 at the highest such sample: where a symmetric gait lands
    and takes off), so no stance foot reaches further than from the standing height, and
    above it through the flights. All zeros when some foot is down at every sample.

    The answer is remembered (read-only) for the last ``FLIGHT_TABLE_CACHE`` plans."""
    st = np.ascontiguousarray(stance, dtype=bool)
    pr = np.ascontiguousarray(progress, dtype=float)
    return _flight_table((st.shape, st.tobytes(), pr.tobytes(), float(period)))


@lru_cache(maxsize=FLIGHT_TABLE_CACHE)
def _flight_table(key) -> np.ndarray:
    shape, st_bytes, pr_bytes, period = key
    stance = np.frombuffer(st_bytes, dtype=bool).reshape(shape)
    progress = np.frombuffer(pr_bytes, dtype=float).reshape(shape)
    airborne = ~stance.any(axis=-1)
    if not airborne.any():
        table = np.zeros(shape[0])
    else:
        table = ballistic_height(stance_force(stance, progress), period)
        table -= table[~airborne].max()
    table.flags.writeable = False
    return table


def fit_dip(table: np.ndarray, room: float) -> np.ndarray:
    """``table`` scaled so that it sinks at most ``room`` (m) below its landing height (all
    of it when it fits; none when there is no room): the reach left between the body's
    standing height and the lowest at which a lifted foot stays out of its leg's inner
    reach. A scaled plan is ballistic in shape but falls less than freely, and whatever
    holds the body (the assist) carries the rest."""
    dip = -float(np.min(table)) if len(table) else 0.0
    if dip <= max(room, 0.0):  # (a table that never sinks fits any room)
        return table
    return table * (max(room, 0.0) / dip)


def swing_rise(height):
    """How far a swing foot is raised with the body at flight height ``height`` (the
    table's offset, any shape): by the height above the landing height, 0 below it (a
    swing foot beside a stance that sinks stays on its own arc)."""
    return np.maximum(height, 0.0)
