"""The robot's angular momentum about the vertical through its centre of mass: the
vectorised formula against hand-computed cases and an independent computation, and
PyBullet's raw readings against MuJoCo's own figure for the same walk."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from gaitsim.sim.robot import momentum_about_com


def frame(r, q=(0.0, 0.0, 0.0, 1.0), v=(0.0, 0.0, 0.0), w=(0.0, 0.0, 0.0)):
    return (*r, *q, *v, *w)


def test_two_masses_circling_their_centre():
    """Two 2 kg points 0.5 m either side of the centre of mass moving at 3 m/s opposite
    ways: h = 2 * (2 kg * 0.5 m * 3 m/s) = 6 kg m^2/s (counter-clockwise, +z)."""
    frames = [[frame((0.5, 0.0, 0.0), v=(0.0, 3.0, 0.0)),
               frame((-0.5, 0.0, 0.0), v=(0.0, -3.0, 0.0))]]  # fmt: skip
    h = momentum_about_com([2.0, 2.0], [(0.0, 0.0, 0.0)] * 2, frames)
    assert h == pytest.approx([6.0])


def test_a_spinning_body_tipped_onto_its_side():
    """A body whose principal z inertia is 0.3 and x inertia 0.1, turned 90 deg about y so
    its body x axis points down: spinning at 2 rad/s about world z it spins about its own x
    axis, h = 0.1 * 2 = 0.2; upright it would be 0.3 * 2 = 0.6."""
    inertia = [(0.1, 0.2, 0.3)]
    upright = [[frame((1.0, 2.0, 0.5), w=(0.0, 0.0, 2.0))]]
    q = Rotation.from_euler("y", 90, degrees=True).as_quat()  # (x, y, z, w)
    tipped = [[frame((1.0, 2.0, 0.5), q=q, w=(0.0, 0.0, 2.0))]]
    assert momentum_about_com([1.0], inertia, upright) == pytest.approx([0.6])
    assert momentum_about_com([1.0], inertia, tipped) == pytest.approx([0.2])


unit = st.floats(-1.0, 1.0, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_matches_the_sum_over_bodies(n, seed):
    """Random bodies: the same as R I R^T w and m (r - c) x v summed body by body with
    scipy's rotations, and independent of where the bodies stand (a shift of all of them)."""
    rng = np.random.default_rng(seed)
    m = rng.uniform(0.1, 3.0, n)
    inertia = rng.uniform(0.01, 0.5, (n, 3))
    r = rng.normal(size=(n, 3))
    q = Rotation.random(n, random_state=seed).as_quat()
    v, w = rng.normal(size=(n, 3)), rng.normal(size=(n, 3))
    frames = [[(*r[i], *q[i], *v[i], *w[i]) for i in range(n)]]
    c = (m[:, None] * r).sum(0) / m.sum()
    want = 0.0
    for i in range(n):
        rot = Rotation.from_quat(q[i]).as_matrix()
        spin = rot @ np.diag(inertia[i]) @ rot.T @ w[i]
        want += m[i] * np.cross(r[i] - c, v[i])[2] + spin[2]
    got = momentum_about_com(m, inertia, frames)
    assert got == pytest.approx([want], abs=1e-9)
    shifted = [[(*(r[i] + (5.0, -3.0, 1.0)), *q[i], *v[i], *w[i]) for i in range(n)]]
    assert momentum_about_com(m, inertia, shifted) == pytest.approx(got, abs=1e-9)


def test_pybullet_readings_become_the_walks_momentum():
    """A recorded PyBullet walk's momentum series: finite every step, and its rate the
    size MuJoCo's own ``subtree_angmom`` gives for the same walk (the fox, 3 s: 0.0376 and
    0.0370 N m RMS about the centre of mass; the same definition, not a term missing)."""
    pytest.importorskip("mujoco")
    from gaitsim.sim.run import simulate

    figures = {}
    for engine in ("pybullet", "mujoco"):
        res = simulate("fox", seconds=3, engine=engine)
        h = res.record["momentum_z"]
        assert h.shape == res.record["t"].shape and np.isfinite(h).all()
        figures[engine] = res.summary["yaw_moment_com_rms_nm"]
    assert math.isfinite(figures["pybullet"]) and figures["pybullet"] > 0.0
    assert 0.8 < figures["pybullet"] / figures["mujoco"] < 1.25, figures
