"""Ground shapes: height(x, y) and unit normal(x, y), vectorized over any array shapes.

The same objects drive the kinematics and build the physics ground, so they agree by
construction. Angles are radians (``Slope.from_degrees`` for degrees).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


def _normal_from_gradient(gx, gy) -> np.ndarray:
    gx, gy = np.broadcast_arrays(np.asarray(gx, float), np.asarray(gy, float))
    n = np.stack([-gx, -gy, np.ones_like(gx)], axis=-1)
    return n / np.linalg.norm(n, axis=-1, keepdims=True)


@dataclass(frozen=True)
class Flat:
    """A level plane at ``z = level``."""

    level: float = 0.0

    def height(self, x, y) -> np.ndarray:
        x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
        return np.full(x.shape, float(self.level))

    def gradient(self, x, y):
        z = np.zeros(np.broadcast_shapes(np.shape(x), np.shape(y)))
        return z, z

    def normal(self, x, y) -> np.ndarray:
        return _normal_from_gradient(*self.gradient(x, y))

    def describe(self) -> str:
        return "flat"


@dataclass(frozen=True)
class Slope:
    """A plane rising at ``angle`` radians toward ``uphill_heading`` (radians from +x).

    Height is 0 at ``origin``; negative angles slope down toward the heading.
    """

    angle: float
    uphill_heading: float = 0.0
    origin: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self):
        if not math.isfinite(self.angle) or abs(self.angle) >= math.radians(80):
            raise ValueError(
                f"slope angle must be within +/-80 degrees, got {math.degrees(self.angle)}"
            )

    @classmethod
    def from_degrees(cls, angle_deg: float, uphill_heading_deg: float = 0.0) -> Slope:
        return cls(math.radians(angle_deg), math.radians(uphill_heading_deg))

    @property
    def grade(self) -> np.ndarray:
        t = math.tan(self.angle)
        return np.array([t * math.cos(self.uphill_heading), t * math.sin(self.uphill_heading)])

    def height(self, x, y) -> np.ndarray:
        gx, gy = self.grade
        x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
        return gx * (x - self.origin[0]) + gy * (y - self.origin[1])

    def gradient(self, x, y):
        shape = np.broadcast_shapes(np.shape(x), np.shape(y))
        gx, gy = self.grade
        return np.full(shape, gx), np.full(shape, gy)

    def normal(self, x, y) -> np.ndarray:
        return _normal_from_gradient(*self.gradient(x, y))

    def describe(self) -> str:
        return f"slope {math.degrees(self.angle):+.1f} deg"


@dataclass(frozen=True)
class Rough:
    """A seeded random heightfield with bilinear height between grid points.

    ``amplitude``: the peak |height| in metres (the field is scaled so max |h| equals it);
    ``wavelength``: the typical bump spacing in metres (Gaussian-smoothed white noise);
    ``size``: the square side in metres, centred on ``centre``; ``cell``: grid spacing.
    Outside the square the height of the nearest edge point is used. The field is flattened
    to 0 within ``flat_radius`` of ``flat_centre`` (default: the centre), blending over one
    wavelength, so a walker can start on level ground; set it to 0 to disable.
    """

    amplitude: float
    wavelength: float = 0.5
    seed: int = 0
    size: float = 16.0
    cell: float = 0.02
    centre: tuple[float, float] = (0.0, 0.0)
    flat_radius: float = 0.0
    flat_centre: tuple[float, float] | None = None
    grid: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if not (math.isfinite(self.amplitude) and self.amplitude >= 0):
            raise ValueError(f"roughness amplitude must be >= 0 metres, got {self.amplitude}")
        if not (math.isfinite(self.wavelength) and self.wavelength > 2 * self.cell):
            raise ValueError(
                f"roughness wavelength must exceed two grid cells ({2 * self.cell} m), "
                f"got {self.wavelength}"
            )
        if not (self.size > 0 and self.cell > 0):
            raise ValueError("rough terrain size and cell must be positive")
        object.__setattr__(self, "grid", self._make_grid())

    @property
    def n(self) -> int:
        return round(self.size / self.cell) + 1

    @property
    def origin(self) -> tuple[float, float]:
        """World (x, y) of grid[0, 0]; grid[i, j] is at origin + (j, i) * cell."""
        half = (self.n - 1) * self.cell / 2
        return (self.centre[0] - half, self.centre[1] - half)

    def _make_grid(self) -> np.ndarray:
        from scipy.ndimage import gaussian_filter

        rng = np.random.default_rng(self.seed)
        noise = rng.standard_normal((self.n, self.n))
        sigma = self.wavelength / (2 * math.pi * self.cell) * math.sqrt(2)
        field_ = gaussian_filter(noise, sigma=sigma, mode="wrap")
        if self.flat_radius > 0:
            ox, oy = self.origin
            fc = self.centre if self.flat_centre is None else self.flat_centre
            xs = ox + np.arange(self.n) * self.cell - fc[0]
            ys = oy + np.arange(self.n) * self.cell - fc[1]
            r = np.hypot(xs[None, :], ys[:, None])
            w = np.clip((r - self.flat_radius) / self.wavelength, 0.0, 1.0)
            field_ = field_ * (w * w * (3 - 2 * w))
        peak = np.abs(field_).max()
        if peak == 0 or self.amplitude == 0:
            return np.zeros_like(field_)
        return field_ * (self.amplitude / peak)

    def _cell_coords(self, x, y):
        ox, oy = self.origin
        x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
        fx = np.clip((x - ox) / self.cell, 0.0, self.n - 1.0)
        fy = np.clip((y - oy) / self.cell, 0.0, self.n - 1.0)
        j = np.minimum(np.floor(fx).astype(int), self.n - 2)
        i = np.minimum(np.floor(fy).astype(int), self.n - 2)
        inside = ((x - ox) / self.cell >= 0) & ((x - ox) / self.cell <= self.n - 1)
        inside_y = ((y - oy) / self.cell >= 0) & ((y - oy) / self.cell <= self.n - 1)
        return i, j, fx - j, fy - i, inside, inside_y

    def height(self, x, y) -> np.ndarray:
        i, j, tx, ty, _, _ = self._cell_coords(x, y)
        g = self.grid
        h00, h01 = g[i, j], g[i, j + 1]
        h10, h11 = g[i + 1, j], g[i + 1, j + 1]
        return (h00 * (1 - tx) + h01 * tx) * (1 - ty) + (h10 * (1 - tx) + h11 * tx) * ty

    def gradient(self, x, y):
        i, j, tx, ty, inx, iny = self._cell_coords(x, y)
        g = self.grid
        h00, h01 = g[i, j], g[i, j + 1]
        h10, h11 = g[i + 1, j], g[i + 1, j + 1]
        gx = ((h01 - h00) * (1 - ty) + (h11 - h10) * ty) / self.cell
        gy = ((h10 - h00) * (1 - tx) + (h11 - h01) * tx) / self.cell
        return np.where(inx, gx, 0.0), np.where(iny, gy, 0.0)

    def normal(self, x, y) -> np.ndarray:
        return _normal_from_gradient(*self.gradient(x, y))

    def describe(self) -> str:
        return f"rough +/-{self.amplitude * 100:.1f} cm, wavelength {self.wavelength} m"


Terrain = Flat | Slope | Rough


NORMAL_SPAN = 0.05  # metres: half-width of the central difference in ``smooth_normal``


def smooth_normal(terrain, x, y, span: float = NORMAL_SPAN) -> np.ndarray:
    """Unit normal from central differences of the height over +/- ``span`` metres.

    A bilinear heightfield's exact normal jumps at every cell edge; this one is continuous
    wherever the height is, and exact on planes. Used for the body's attitude.
    """
    return _normal_from_gradient(*smooth_gradient(terrain, x, y, span))


def smooth_gradient(terrain, x, y, span: float = NORMAL_SPAN) -> tuple[np.ndarray, np.ndarray]:
    """The height's slopes (dz/dx, dz/dy) by central differences over +/- ``span`` metres:
    the gradient behind ``smooth_normal``."""
    x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
    gx = (terrain.height(x + span, y) - terrain.height(x - span, y)) / (2 * span)
    gy = (terrain.height(x, y + span) - terrain.height(x, y - span)) / (2 * span)
    return gx, gy


def scalar_height(terrain):
    """A fast scalar ground height ``z(x, y) -> float`` for ``terrain`` (control loops call
    it every step; ``terrain.height`` works on arrays)."""
    if isinstance(terrain, Flat):
        level = float(terrain.level)
        return lambda x, y: level
    if isinstance(terrain, Slope):
        gx, gy = (float(v) for v in terrain.grade)
        ox, oy = terrain.origin
        return lambda x, y: gx * (x - ox) + gy * (y - oy)
    return lambda x, y: float(terrain.height(x, y))
