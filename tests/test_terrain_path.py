"""Terrains (height and normal) and paths (exact functions of distance)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gaitsim import Arc, Flat, Rough, Schedule, Slope, Straight, TurnInPlace


def test_flat():
    t = Flat(0.25)
    assert np.all(t.height(np.zeros((3, 2)), 1.0) == 0.25)
    assert np.allclose(t.normal([0.0, 5.0], [1.0, 2.0]), [[0, 0, 1], [0, 0, 1]])


def test_slope_hand_values():
    s = Slope.from_degrees(10.0)
    assert s.height(1.0, 0.0) == pytest.approx(math.tan(math.radians(10)))
    assert s.height(0.0, 3.0) == pytest.approx(0.0)
    a = math.radians(10)
    assert np.allclose(s.normal(0.3, 0.2), [-math.sin(a), 0, math.cos(a)])
    side = Slope.from_degrees(10.0, uphill_heading_deg=90.0)
    assert side.height(0.0, 1.0) == pytest.approx(math.tan(a))
    assert side.height(1.0, 0.0) == pytest.approx(0.0, abs=1e-15)
    down = Slope.from_degrees(-10.0)
    assert down.height(1.0, 0.0) == pytest.approx(-math.tan(a))
    with pytest.raises(ValueError, match="slope angle"):
        Slope.from_degrees(85.0)


def test_rough_is_seeded_and_scaled():
    a, b, c = Rough(0.02, seed=1), Rough(0.02, seed=1), Rough(0.02, seed=2)
    assert np.array_equal(a.grid, b.grid)
    assert not np.array_equal(a.grid, c.grid)
    assert np.max(np.abs(a.grid)) == pytest.approx(0.02)
    assert np.all(Rough(0.0).grid == 0)


def test_rough_bilinear_height():
    r = Rough(0.03, wavelength=0.4, seed=5, size=4.0, cell=0.05)
    ox, oy = r.origin
    i, j = 17, 23
    x, y = ox + j * r.cell, oy + i * r.cell
    assert r.height(x, y) == pytest.approx(r.grid[i, j])
    # midway along a cell edge: the mean of its two ends; cell centre: mean of four corners
    assert r.height(x + r.cell / 2, y) == pytest.approx((r.grid[i, j] + r.grid[i, j + 1]) / 2)
    corners = r.grid[i : i + 2, j : j + 2].mean()
    assert r.height(x + r.cell / 2, y + r.cell / 2) == pytest.approx(corners)
    # outside the square: the nearest edge
    assert r.height(ox - 10, oy) == pytest.approx(r.grid[0, 0])


@given(x=st.floats(-1.5, 1.5), y=st.floats(-1.5, 1.5))
def test_rough_normal_matches_height_slope(x, y):
    r = Rough(0.02, wavelength=0.5, seed=3, size=4.0)
    h = 1e-6
    gx = (r.height(x + h, y) - r.height(x - h, y)) / (2 * h)
    gy = (r.height(x, y + h) - r.height(x, y - h)) / (2 * h)
    n = r.normal(x, y)
    assert n[2] > 0 and np.linalg.norm(n) == pytest.approx(1.0)
    # away from cell edges the bilinear gradient is exact
    fx = ((x - r.origin[0]) / r.cell) % 1
    fy = ((y - r.origin[1]) / r.cell) % 1
    if 0.01 < fx < 0.99 and 0.01 < fy < 0.99:
        assert -n[0] / n[2] == pytest.approx(gx, abs=1e-4)
        assert -n[1] / n[2] == pytest.approx(gy, abs=1e-4)


def test_rough_wavelength_sets_the_bump_spacing():
    fine, coarse = Rough(0.02, wavelength=0.2, seed=1), Rough(0.02, wavelength=1.0, seed=1)
    slope = lambda r: np.mean(np.abs(np.diff(r.grid, axis=1))) / r.cell  # noqa: E731
    assert slope(fine) > 3 * slope(coarse)


def test_rough_flat_start_patch():
    r = Rough(0.02, seed=4, flat_radius=0.5)
    assert np.allclose(r.height(np.linspace(-0.4, 0.4, 9), 0.0), 0.0)
    assert np.max(np.abs(r.grid)) == pytest.approx(0.02)


def speed_along(path, s):
    h = 1e-6
    a, _ = path.pose(s - h)
    b, _ = path.pose(s + h)
    return np.linalg.norm(b - a, axis=-1) / (2 * h)


def test_straight_and_arc():
    st_ = Straight(heading=math.pi / 2, start=(1.0, 2.0))
    xy, hd = st_.pose(np.array([0.0, 2.0]))
    assert np.allclose(xy, [[1, 2], [1, 4]]) and np.allclose(hd, math.pi / 2)
    arc = Arc(0.5)
    s = np.linspace(0, 5, 101)
    xy, hd = arc.pose(s)
    assert np.allclose(np.hypot(xy[:, 0], xy[:, 1] - 0.5), 0.5)  # on the circle about (0, R)
    assert np.allclose(hd, s / 0.5)
    assert np.allclose(speed_along(arc, s[1:]), 1.0, atol=1e-6)  # s is arc length
    right = Arc(-2.0)
    xy, hd = right.pose(1.0)
    assert xy[1] < 0 and hd < 0
    with pytest.raises(ValueError):
        Arc(0.0)


def test_turn_in_place():
    t = TurnInPlace(0.2, start=(3.0, 1.0))
    xy, hd = t.pose(np.linspace(0, 1, 11))
    assert np.allclose(xy, [3.0, 1.0])
    assert np.allclose(hd, np.linspace(0, 1, 11) / 0.2)
    assert TurnInPlace(-0.2).pose(1.0)[1] == pytest.approx(-5.0)


def test_schedule_is_continuous_and_exact():
    sched = Schedule(
        [(Straight(), 1.0), (Arc(0.5), math.pi / 4), (TurnInPlace(0.25), 0.25), (Arc(-1.0), 1.0)]
    )
    assert sched.length == pytest.approx(2.25 + math.pi / 4)
    bounds = np.cumsum([1.0, math.pi / 4, 0.25])
    for b in bounds:
        (x0, h0), (x1, h1) = (sched.pose(b - 1e-9), sched.pose(b + 1e-9))
        assert np.allclose(x0, x1, atol=1e-8) and h0 == pytest.approx(h1, abs=1e-8)
    xy, hd = sched.pose(bounds[1])  # quarter circle of radius 0.5 after 1 m straight
    assert np.allclose(xy, [1.5, 0.5]) and hd == pytest.approx(math.pi / 2)
    xy, hd = sched.pose(bounds[2])  # turned a further 1 rad in place
    assert np.allclose(xy, [1.5, 0.5]) and hd == pytest.approx(math.pi / 2 + 1.0)
    # vectorized evaluation equals point-wise evaluation
    s = np.linspace(-0.5, 4.0, 37)
    xy, hd = sched.pose(s)
    for k in range(len(s)):
        p, h = sched.pose(s[k])
        assert np.allclose(xy[k], p) and hd[k] == pytest.approx(h)
    assert np.allclose(sched.curvature(np.array([0.5, 1.2, 2.0])), [0, 2.0, 4.0])
    with pytest.raises(ValueError):
        Schedule([])


@given(s=st.floats(-50.0, 500.0), heading=st.floats(-7.0, 7.0))
def test_pose_one_is_pose_at_one_distance(s, heading):
    """The control loop's scalar pose: Straight's own float arithmetic equals its numpy pose
    bit for bit; other paths fall back to their vectorized pose."""
    from gaitsim.path import pose_one

    sched = Schedule([(Straight(), 1.0), (Arc(0.5), 1.0)], heading=heading)
    for path in (Straight(heading=heading, start=(1.5, -2.0)), Arc(-0.7, heading), sched):
        xy, h = path.pose(s)
        want = (float(xy[0]), float(xy[1]), float(h))
        got = pose_one(path, s)
        assert got == want
        assert [math.copysign(1.0, v) for v in got] == [math.copysign(1.0, v) for v in want]
