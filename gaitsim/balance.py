"""The body's balancing sway: a periodic centre-of-mass path over the planned support.

A walker whose centre of mass stays above the middle of its body falls toward whichever
edge of the support it is beyond: a trot's diagonal pair carries the body on a line that
passes beside it for most of the stance, a quadruped walk's three feet leave it on the edge
of their triangle. Legged robots answer with a *zero-moment point* (ZMP) plan: choose where
the ground should push (a point inside the planned support) and move the body so that the
linear inverted pendulum, ``c'' = omega^2 (c - p)`` with ``omega = sqrt(g / h)``, has its
ZMP ``p`` there.

Here, per gait cycle (pure numpy, the kinematics layer):

- ``zmp_path``: the ZMP the plan asks for at each phase: the point of the stance feet's
  convex hull nearest the body centre, moved ``inset`` of the way toward the hull's
  centroid, so it stays off the edges (on a two-foot line it stays on the line);
- ``periodic_lip``: the one periodic centre-of-mass path whose pendulum has that ZMP
  (a circulant system, solved exactly by FFT: the pendulum's only periodic solution);
- ``sway_table``: that path as the body's offset from its nominal place, in the body
  frame (x forward, y left), sampled over one gait cycle.

``Walker`` builds the table from its own foot plan over one cycle (seen from the body, so
arcs and turning in place get their own support polygons) and adds it to the body's path.
"""

from __future__ import annotations

import numpy as np

from .geometry import GRAVITY
from .polygon import convex_hull

SWAY_SAMPLES = 240  # table samples per gait cycle
ZMP_INSET = 0.3  # share of the way from the hull's nearest point to its centroid


COLLINEAR_TOL = 1e-15  # a foot that turns the hull by less is on its neighbours' line


def _nearest_on_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    d = b - a
    n2 = float(d @ d)
    t = 0.0 if n2 == 0.0 else min(max(float((p - a) @ d) / n2, 0.0), 1.0)
    return a + t * d


def nearest_in_hull(p, hull: np.ndarray) -> np.ndarray:
    """The point of the convex polygon (or segment, or point) ``hull`` nearest ``p``."""
    p = np.asarray(p, dtype=float)
    if len(hull) == 1:
        return hull[0].copy()
    if len(hull) == 2:
        return _nearest_on_segment(p, hull[0], hull[1])
    edges = np.roll(hull, -1, axis=0) - hull
    rel = p - hull
    if np.all(edges[:, 0] * rel[:, 1] - edges[:, 1] * rel[:, 0] >= 0.0):
        return p.copy()  # inside (counter-clockwise: left of every edge)
    cands = [_nearest_on_segment(p, hull[k], hull[(k + 1) % len(hull)]) for k in range(len(hull))]
    return min(cands, key=lambda q: float((q - p) @ (q - p)))


def _sole_points(xy: np.ndarray, soles) -> np.ndarray:
    """Each foot's support (n, 2) -> its sole's four corners (4 n, 2), soles facing +x
    (``soles``: per foot (heel, toe, half width))."""
    pts = []
    for (x, y), (heel, toe, half) in zip(xy, soles, strict=True):
        pts += [(x - heel, y - half), (x - heel, y + half),
                (x + toe, y - half), (x + toe, y + half)]
    return np.array(pts)


def zmp_path(feet_xy: np.ndarray, stance: np.ndarray, inset: float = ZMP_INSET,
             soles=None) -> np.ndarray:  # fmt: skip
    """The planned ZMP (N, 2) for body-frame feet ``feet_xy`` (N, L, 2) with ``stance``
    flags (N, L): the stance hull's point nearest the body centre (the origin), moved
    ``inset`` of the way to the hull's vertex centroid. No foot down: the origin. With
    ``soles`` (per leg: heel, toe, half width), a foot's support is its sole, not its
    point: the ZMP may sit anywhere on the sole, so the body need not sway as far."""
    out = np.zeros((len(feet_xy), 2))
    origin = np.zeros(2)
    for k, (xy, st) in enumerate(zip(feet_xy, stance, strict=True)):
        if not np.any(st):
            continue
        if soles is None:
            pts = xy[st]
        else:
            pts = _sole_points(xy[st], [q for q, on in zip(soles, st, strict=True) if on])
        hull = convex_hull(pts, COLLINEAR_TOL)
        near = nearest_in_hull(origin, hull)
        out[k] = near + inset * (hull.mean(axis=0) - near)
    return out


def periodic_lip(zmp: np.ndarray, omega: float, period: float) -> np.ndarray:
    """The periodic centre-of-mass path (N, ...) of the linear inverted pendulum
    ``c'' = omega^2 (c - zmp)`` over one ``period`` sampled at N equal steps: the unique
    periodic solution of its central-difference form
    ``c[k+1] - 2 c[k] + c[k-1] = (omega h)^2 (c[k] - zmp[k])``. The system is circulant,
    so the FFT diagonalises it; every eigenvalue is negative, so it is always solvable."""
    z = np.asarray(zmp, dtype=float)
    n = len(z)
    if n == 0:
        return z.copy()
    a = (omega * period / n) ** 2
    lam = 2.0 * np.cos(2.0 * np.pi * np.arange(n) / n) - 2.0 - a
    shape = (n,) + (1,) * (z.ndim - 1)
    return np.real(np.fft.ifft(np.fft.fft(-a * z, axis=0) / lam.reshape(shape), axis=0))


def sway_table(feet_xy: np.ndarray, stance: np.ndarray, period: float,
               height: float, soles=None) -> np.ndarray:
    """The body's balancing offset (N, 2) over one gait cycle sampled at N equal steps:
    the periodic pendulum path (``periodic_lip``, omega = sqrt(g / height)) over the ZMP
    plan (``zmp_path``) of the stance feet at body-frame places ``feet_xy`` (N, L, 2) with
    flags ``stance`` (N, L); a cycle lasts ``period`` seconds."""
    omega = float(np.sqrt(GRAVITY / height))
    return periodic_lip(zmp_path(feet_xy, stance, soles=soles), omega, period)


def table_lookup(table: np.ndarray, clock) -> np.ndarray:
    """The periodic ``table`` (N, 2) at cycle positions ``clock`` (any shape, in cycles),
    linearly interpolated: shape ``clock.shape + (2,)``."""
    n = len(table)
    x = (np.asarray(clock, dtype=float) % 1.0) * n
    i = np.floor(x).astype(int) % n
    f = (x - np.floor(x))[..., None]
    return (1.0 - f) * table[i] + f * table[(i + 1) % n]
