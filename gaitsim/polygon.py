"""Convex hulls of a few plane points (plain floats): the support polygon of the feet that
are down, for the balancing sway's ZMP plan (``balance``) and the support margin metric
(``sim.metrics``); the nearest point of such a hull (``nearest_in_hull``)."""

from __future__ import annotations

import numpy as np


def cross(o, a, b) -> float:
    """z of (a - o) x (b - o): > 0 when o, a, b turn counter-clockwise."""
    ox, oy = o
    ax, ay = a
    bx, by = b
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


def hull(p: list, tol: float = 0.0) -> list:
    """Andrew's monotone chain over sorted, distinct points: counter-clockwise, no repeat.
    A point that turns by at most ``tol`` (the cross product) is dropped as collinear, so
    points on one line give their two ends."""
    if len(p) <= 2:
        return list(p)
    return _chain(p, tol)[:-1] + _chain(reversed(p), tol)[:-1]  # lower, then upper


def _chain(points, tol: float) -> list:
    """One half of the monotone chain: ``points`` kept while they turn counter-clockwise
    by more than ``tol`` (``cross`` written out: it runs every control step)."""
    out: list = []
    for q in points:
        qx, qy = q
        while len(out) >= 2:
            (ox, oy), (ax, ay) = out[-2], out[-1]
            if (ax - ox) * (qy - oy) - (ay - oy) * (qx - ox) <= tol:
                out.pop()
            else:
                break
        out.append(q)
    return out


def convex_hull(pts, tol: float = 0.0) -> np.ndarray:
    """The convex hull of an (n, 2) array, counter-clockwise, as an array (see ``hull``)."""
    p = sorted({(float(x), float(y)) for x, y in np.asarray(pts, float)})
    return np.array(hull(p, tol))


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
