"""Body paths over gait distance: position (x, y) and heading are exact functions of s.

``s`` is the gait distance, the quantity that drives the walk cycle. On straight lines and
arcs it is the arc length travelled by the body centre. Turning in place moves the centre
nowhere, so there ``s`` is the arc length at ``radius`` from the turn centre (heading
changes by ``s / radius``); choose ``radius`` near the feet's distance from the centre so a
stride of gait distance is about a stride of foot travel.

Every path has ``pose(s) -> (xy, heading)`` with ``xy`` shaped ``(*s.shape, 2)`` and
``heading`` (radians, from +x toward +y) shaped like ``s``, and ``curvature(s)`` in rad per
metre of gait distance (the yaw-rate command per unit speed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def _place(local_xy, local_heading, start, heading):
    """Compose a path's local pose (starting at the origin heading +x) with a start pose."""
    c, s = math.cos(heading), math.sin(heading)
    x, y = local_xy[..., 0], local_xy[..., 1]
    xy = np.stack([start[0] + c * x - s * y, start[1] + s * x + c * y], axis=-1)
    return xy, local_heading + heading


@dataclass(frozen=True)
class Straight:
    """A straight line from ``start`` along ``heading``."""

    heading: float = 0.0
    start: tuple[float, float] = (0.0, 0.0)

    def local(self, s):
        s = np.asarray(s, dtype=float)
        return np.stack([s, np.zeros_like(s)], axis=-1), np.zeros_like(s)

    def curvature(self, s):
        return np.zeros_like(np.asarray(s, dtype=float))

    def pose(self, s):
        return _place(*self.local(s), self.start, self.heading)

    def pose_one(self, s: float) -> tuple[float, float, float]:
        """``pose`` at one distance as plain floats (x, y, heading): the same arithmetic."""
        c, sn = math.cos(self.heading), math.sin(self.heading)
        s = float(s)
        return (
            self.start[0] + c * s - sn * 0.0,
            self.start[1] + sn * s + c * 0.0,
            0.0 + self.heading,
        )


@dataclass(frozen=True)
class Arc:
    """A circular arc of signed ``radius``: positive turns left (counter-clockwise)."""

    radius: float
    heading: float = 0.0
    start: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self):
        if not math.isfinite(self.radius) or self.radius == 0:
            raise ValueError(f"arc radius must be a non-zero finite number, got {self.radius}")

    def local(self, s):
        s = np.asarray(s, dtype=float)
        a = s / self.radius
        xy = np.stack([self.radius * np.sin(a), self.radius * (1.0 - np.cos(a))], axis=-1)
        return xy, a

    def curvature(self, s):
        return np.full(np.shape(s), 1.0 / self.radius)

    def pose(self, s):
        return _place(*self.local(s), self.start, self.heading)


@dataclass(frozen=True)
class TurnInPlace:
    """Turning on the spot; gait distance ``s`` is measured at ``radius`` (sign = direction)."""

    radius: float
    heading: float = 0.0
    start: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self):
        if not math.isfinite(self.radius) or self.radius == 0:
            raise ValueError(
                f"turn-in-place radius must be a non-zero finite number, got {self.radius}"
            )

    def local(self, s):
        s = np.asarray(s, dtype=float)
        return np.zeros((*s.shape, 2)), s / self.radius

    def curvature(self, s):
        return np.full(np.shape(s), 1.0 / self.radius)

    def pose(self, s):
        return _place(*self.local(s), self.start, self.heading)


@dataclass(frozen=True)
class Schedule:
    """Path pieces walked one after another: ``segments`` is a sequence of (piece, length).

    Each piece is a Straight, Arc or TurnInPlace whose own start and heading are ignored:
    it begins where the previous one ended. The last piece continues past its length.
    """

    segments: tuple
    heading: float = 0.0
    start: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self):
        segs = tuple((piece, float(length)) for piece, length in self.segments)
        if not segs:
            raise ValueError("a schedule needs at least one (piece, length) segment")
        for k, (piece, length) in enumerate(segs):
            if not hasattr(piece, "local"):
                raise ValueError(f"schedule.segments[{k}]: {piece!r} is not a path piece")
            if not (math.isfinite(length) and length > 0):
                raise ValueError(f"schedule.segments[{k}]: length must be > 0, got {length}")
        object.__setattr__(self, "segments", segs)
        # start pose of every segment, by walking the previous ones to their ends
        starts, headings, x, y, h = [], [], *self.start, self.heading
        for piece, length in segs:
            starts.append((x, y))
            headings.append(h)
            end_xy, end_h = _place(*piece.local(np.array(length)), (x, y), h)
            x, y, h = float(end_xy[0]), float(end_xy[1]), float(end_h)
        object.__setattr__(self, "_starts", np.array(starts))
        object.__setattr__(self, "_headings", np.array(headings))
        object.__setattr__(
            self, "_offsets", np.concatenate([[0.0], np.cumsum([n for _, n in segs])])
        )

    @property
    def length(self) -> float:
        return float(self._offsets[-1])

    def _index(self, s):
        s = np.asarray(s, dtype=float)
        k = np.clip(np.searchsorted(self._offsets, s, side="right") - 1, 0, len(self.segments) - 1)
        return s, k

    def pose(self, s):
        s, k = self._index(s)
        xy = np.zeros((*s.shape, 2))
        heading = np.zeros(s.shape)
        for idx, (piece, _) in enumerate(self.segments):
            m = k == idx
            if not np.any(m):
                continue
            lxy, lh = piece.local(s[m] - self._offsets[idx])
            pxy, ph = _place(lxy, lh, self._starts[idx], self._headings[idx])
            xy[m] = pxy
            heading[m] = ph
        return xy, heading

    def curvature(self, s):
        s, k = self._index(s)
        out = np.zeros(s.shape)
        for idx, (piece, _) in enumerate(self.segments):
            m = k == idx
            out[m] = piece.curvature(s[m])
        return out


Path = Straight | Arc | TurnInPlace | Schedule


def pose_one(path, s: float) -> tuple[float, float, float]:
    """A path's pose at one distance as plain floats (x, y, heading): the path's own
    ``pose_one`` where it has one (no numpy call: the control loop asks every liftoff),
    else its vectorized ``pose``."""
    one = getattr(path, "pose_one", None)
    if one is not None:
        return one(s)
    xy, h = path.pose(s)
    return float(xy[0]), float(xy[1]), float(h)
