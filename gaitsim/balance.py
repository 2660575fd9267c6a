"""The body's balancing sway: a periodic centre-of-mass path over the planned support.

A walker whose centre of mass stays above the middle of its body falls toward whichever
edge of the support it is beyond: a trot's diagonal pair carries the body on a line that
passes beside it for most of the stance, a quadruped walk's three feet leave it on the edge
of their triangle. Legged robots answer with a *zero-moment point* (ZMP) plan: choose where
the ground should push (a point inside the planned support) and move the body so that the
linear inverted pendulum, ``c'' = omega^2 (c - p)`` with ``omega = sqrt(g / h)``, has its
ZMP ``p`` there.

Here, per gait cycle (pure numpy, the kinematics layer):

- ``zmp_path``: the ZMP the plan asks for at each phase: for point feet the point
  nearest the body centre that keeps a margin inside the stance feet's polygon (a share
  of its centroid's own distance to the nearest edge; on a two-foot line the hull
  itself), moved ``inset`` of the way toward the hull's centroid, so it stays off the
  edges (on a two-foot line it stays on the line); for soles the centre of the stance
  soles (their toes cut to SOLE_ZMP_TOE). Without the margin a three-legged phase of a
  heavy, long-legged walk left the ZMP 30 % in from the edge, and the body rolled
  enough to lift stance feet;
- ``periodic_lip``: the one periodic centre-of-mass path whose pendulum has that ZMP
  (a circulant system, solved exactly by FFT: the pendulum's only periodic solution);
- ``sway_table``: that path as the body's offset from its nominal place, in the body
  frame (x forward, y left), sampled over one gait cycle.

``Walker`` builds the table from its own foot plan over one cycle (seen from the body, so
arcs and turning in place get their own support polygons) and adds it to the body's path.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .geometry import GRAVITY
from .polygon import convex_hull, nearest_in_hull

SWAY_SAMPLES = 240  # table samples per gait cycle
ZMP_INSET = 0.3  # share of the way from the nearest admissible point to the hull's centroid
SOLE_ZMP_TOE = 0.8  # soles: the planned ZMP is the centroid of the stance soles' hull with
# each toe (the sole ahead of the ankle) cut to this share of itself. Its centre, not the
# point nearest the body's: a plan that puts the centre of pressure near an edge of the
# sole leaves the stance ankle no reach to catch a push toward that edge (the free
# raptor's trunk rolled +-6-8 deg about its stance ankle, lifting its trailing sole 0.1 s
# early; the cut keeps the plan off the toe, which the ankle's cap does not reach:
# soles.COP_TOE_SHARE)
ZMP_MARGIN = 0.8  # point feet on a polygon: admissible points lie this share of the vertex
# centroid's own distance to the nearest edge inside every edge,
ZMP_MARGIN_G = 0.25  # but no deeper than this many g of unplanned horizontal acceleration
# would move the pendulum's ZMP (that times the standing height)


SLIVER = 1e-6  # a hull whose centroid lies less than this share of its size from an edge
#   has no inside to keep a margin in (0.3 um on a 0.3 m sole): its nearest point is used
COLLINEAR_TOL = 1e-15  # a foot that turns the hull by less is on its neighbours' line


def nearest_with_margin(p, hull: np.ndarray, share: float, cap: float = np.inf) -> np.ndarray:
    """The point nearest ``p`` of the convex polygon ``hull`` (three or more vertices,
    counter-clockwise) shrunk by a depth of ``share`` times its vertex centroid's distance
    to its nearest edge, or ``cap`` (m) if that is less: ``p`` itself when that deep
    inside, else the nearest point of the shrunk polygon (on one of its edges or at one of
    its corners). The centroid is always in the shrunk polygon (``share`` <= 1), so there
    is an answer. A sliver (centroid within ``SLIVER`` of the hull's size of an edge, where
    the shrunk polygon's corners are ill-conditioned) gives the hull's nearest point."""
    p = np.asarray(p, dtype=float)
    edges = np.roll(hull, -1, axis=0) - hull
    normal = np.stack([edges[:, 1], -edges[:, 0]], axis=1)  # outward (counter-clockwise)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    offset = np.einsum("ij,ij->i", normal, hull)  # edge k: normal[k] . x <= offset[k]
    centre = hull.mean(axis=0)
    depth = float(np.min(offset - normal @ centre))
    size = float(np.max(np.abs(hull - centre)))
    if depth <= SLIVER * size:  # a sliver: no inside to keep a margin in
        return nearest_in_hull(p, hull)
    limit = offset - min(share * depth, cap)
    slack = 1e-12 * (1.0 + float(np.max(np.abs(offset))))

    def inside(q) -> bool:
        return bool(np.all(normal @ q <= limit + slack))

    if inside(p):
        return p.copy()
    best, best_d = centre, float((centre - p) @ (centre - p))
    n = len(hull)
    for k in range(n):  # the foot of p on each shrunk edge's line
        q = p - (normal[k] @ p - limit[k]) * normal[k]
        d = float((q - p) @ (q - p))
        if d < best_d and inside(q):
            best, best_d = q, d
    for j in range(n):  # the shrunk polygon's corners
        for k in range(j + 1, n):
            a = np.stack([normal[j], normal[k]])
            if abs(np.linalg.det(a)) < 1e-12:
                continue
            q = np.linalg.solve(a, np.array([limit[j], limit[k]]))
            d = float((q - p) @ (q - p))
            if d < best_d and inside(q):
                best, best_d = q, d
    return np.array(best, dtype=float)


def _sole_points(xy: np.ndarray, soles) -> np.ndarray:
    """Each foot's support (n, 2) -> its sole's four corners (4 n, 2), soles facing +x
    (``soles``: per foot (heel, toe, half width))."""
    pts = []
    for (x, y), (heel, toe, half) in zip(xy, soles, strict=True):
        pts += [(x - heel, y - half), (x - heel, y + half),
                (x + toe, y - half), (x + toe, y + half)]
    return np.array(pts)


def zmp_path(feet_xy: np.ndarray, stance: np.ndarray, inset: float = ZMP_INSET, soles=None,
             margin: float = ZMP_MARGIN, cap: float = np.inf) -> np.ndarray:  # fmt: skip
    """The planned ZMP (N, 2) for body-frame feet ``feet_xy`` (N, L, 2) with ``stance``
    flags (N, L): the admissible point nearest the body centre (the origin), moved
    ``inset`` of the way to the stance hull's vertex centroid. For point feet on a polygon
    (three or more not on one line) the admissible points are those ``margin`` of the
    vertex centroid's own edge distance, but no more than ``cap`` (m), inside every edge
    (``nearest_with_margin``: the origin itself when it is that deep inside); otherwise
    (one or two feet, feet on a line) the whole hull (``nearest_in_hull``). No foot down:
    the origin. With ``soles`` (per leg: heel, toe, half width), a foot's support is its
    sole, not its point, and the ZMP is the centroid of the stance soles' hull with each
    toe cut to SOLE_ZMP_TOE of itself (``inset`` and ``margin`` do not apply): the
    middle of what the stance ankles can hold, so they have reach left either way.
    ``sway_table`` passes a ``cap`` of ``ZMP_MARGIN_G`` standing heights."""
    out = np.zeros((len(feet_xy), 2))
    origin = np.zeros(2)
    for k, (xy, st) in enumerate(zip(feet_xy, stance, strict=True)):
        if not np.any(st):
            continue
        if soles is not None:
            held = [(heel, SOLE_ZMP_TOE * toe, half)
                    for (heel, toe, half), on in zip(soles, st, strict=True) if on]  # fmt: skip
            out[k] = convex_hull(_sole_points(xy[st], held), COLLINEAR_TOL).mean(axis=0)
            continue
        hull = convex_hull(xy[st], COLLINEAR_TOL)
        if len(hull) >= 3:
            near = nearest_with_margin(origin, hull, margin, cap)
        else:
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
    flags ``stance`` (N, L); a cycle lasts ``period`` seconds.

    The answer is remembered (read-only) for the last ``SWAY_CACHE`` distinct plans: every
    env reset and every run builds a new Walker of the same gait, and working the ZMP
    plan out again cost about 30 ms each time (most of a fox env's reset)."""
    xy = np.ascontiguousarray(feet_xy, dtype=float)
    st = np.ascontiguousarray(stance, dtype=bool)
    key = (xy.shape, xy.tobytes(), st.shape, st.tobytes(), float(period), float(height),
           None if soles is None else tuple(tuple(map(float, s)) for s in soles))
    return _sway_table(key)


SWAY_CACHE = 64  # distinct sway plans remembered (walkers x paths)


@lru_cache(maxsize=SWAY_CACHE)
def _sway_table(key) -> np.ndarray:
    xy_shape, xy_bytes, st_shape, st_bytes, period, height, soles = key
    feet_xy = np.frombuffer(xy_bytes, dtype=float).reshape(xy_shape)
    stance = np.frombuffer(st_bytes, dtype=bool).reshape(st_shape)
    omega = float(np.sqrt(GRAVITY / height))
    cap = ZMP_MARGIN_G * height
    table = periodic_lip(zmp_path(feet_xy, stance, soles=soles, cap=cap), omega, period)
    table.flags.writeable = False
    return table


def table_lookup(table: np.ndarray, clock) -> np.ndarray:
    """The periodic ``table`` (N, 2) at cycle positions ``clock`` (any shape, in cycles),
    linearly interpolated: shape ``clock.shape + (2,)``."""
    n = len(table)
    x = (np.asarray(clock, dtype=float) % 1.0) * n
    i = np.floor(x).astype(int) % n
    f = (x - np.floor(x))[..., None]
    return (1.0 - f) * table[i] + f * table[(i + 1) % n]
