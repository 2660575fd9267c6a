"""The support margin of walkers on soles: the area their soles bear on, by hand."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from gaitsim.feet import ankle_offset
from gaitsim.sim.metrics import _support_margins, sole_on_ground, sole_support_points

SOLE = SimpleNamespace(heel=0.05, toe=0.1, width=0.06, height=0.04, corner=0.0)
SOLES = [SOLE, SOLE]
LEVEL = [0.0, 0.0, 0.0, 1.0]


def _rolled(ankle_flat, pitch):
    """The ankle (x, y, z) and foot quaternion of a sole facing +x rolled by ``pitch``
    (positive: onto its toe) from its flat place ``ankle_flat``."""
    dx, dz = ankle_offset(SOLE.heel, SOLE.toe, SOLE.height, pitch, SOLE.corner)
    x, y, z = ankle_flat
    quat = Rotation.from_euler("y", pitch).as_quat()  # +y turns the toe down
    return (x + dx, y, z + dz), quat


def _record(ankles, quats, com):
    return {"com": np.array([com]), "foot_quat": np.array([quats]), "feet": np.array([ankles])}


def test_two_flat_soles_side_by_side_make_an_area():
    """Ankles at y = +-0.1 over soles 0.05 behind, 0.1 ahead and 0.06 wide: the support is
    x in [-0.05, 0.1], y in [-0.13, 0.13], so the origin is 0.05 inside (the heel edge);
    the ankles alone (a line) would put it 0 from the support."""
    ankles = [(0.0, 0.1, SOLE.height), (0.0, -0.1, SOLE.height)]
    rec = _record(ankles, [LEVEL, LEVEL], (0.0, 0.0, 0.3))
    m = _support_margins(rec, rec["feet"], np.ones((1, 2), bool), 1, SOLES)
    assert m[0] == pytest.approx(0.05, abs=1e-12)
    pts, bears = sole_support_points(rec["feet"], rec["foot_quat"], SOLES)
    assert bears.all()
    corners = np.array([[-0.05, 0.07], [-0.05, 0.13], [0.1, 0.07], [0.1, 0.13]])
    assert pts[0, 0] == pytest.approx(corners, abs=1e-12)


def test_a_sole_on_its_toe_bears_on_its_toe_edge_only():
    """The left sole rolled 0.3 rad onto its toe, the right flat: the support's corners are
    (-0.05, -0.13), (0.1, -0.13), (0.1, 0.13) and (-0.05, -0.07), and (0.05, 0) lies 0.038
    inside: from the edge (0.1, 0.13) -> (-0.05, -0.07), whose outward normal is
    (-0.8, 0.6), 0.8 * 0.05 - 0.6 * 0.13 = -0.038 (the toe edge is 0.05 away, the right
    sole's heel edge 0.1). A sole on its heel bears on its heel edge: (0.05, 0) then lies
    outside the support."""
    left, quat = _rolled((0.0, 0.1, SOLE.height), 0.3)
    rec = _record([left, (0.0, -0.1, SOLE.height)], [quat, LEVEL], (0.05, 0.0, 0.3))
    pts, bears = sole_support_points(rec["feet"], rec["foot_quat"], SOLES)
    assert bears[0, 0].tolist() == [False, False, True, True]
    toe_edge = np.array([[0.1, 0.07], [0.1, 0.13]])
    assert pts[0, 0][bears[0, 0]] == pytest.approx(toe_edge, abs=1e-12)
    m = _support_margins(rec, rec["feet"], np.ones((1, 2), bool), 1, SOLES)
    assert m[0] == pytest.approx(0.038, abs=1e-12)
    left, quat = _rolled((0.0, 0.1, SOLE.height), -0.3)
    rec = _record([left, (0.0, -0.1, SOLE.height)], [quat, LEVEL], (0.05, 0.0, 0.3))
    pts, bears = sole_support_points(rec["feet"], rec["foot_quat"], SOLES)
    assert bears[0, 0].tolist() == [True, True, False, False]
    heel_edge = np.array([[-0.05, 0.07], [-0.05, 0.13]])
    assert pts[0, 0][bears[0, 0]] == pytest.approx(heel_edge, abs=1e-12)
    assert _support_margins(rec, rec["feet"], np.ones((1, 2), bool), 1, SOLES)[0] < 0.0


def test_a_lifted_sole_and_no_contact():
    """A sole not in contact bears on nothing; with none in contact the margin is -inf."""
    ankles = [(0.0, 0.1, SOLE.height), (0.0, -0.1, SOLE.height)]
    rec = _record(ankles, [LEVEL, LEVEL], (0.0, 0.1, 0.3))
    one = _support_margins(rec, rec["feet"], np.array([[True, False]]), 1, SOLES)
    assert one[0] == pytest.approx(0.03, abs=1e-12)  # over the left sole: 0.03 to its sides
    none = _support_margins(rec, rec["feet"], np.zeros((1, 2), bool), 1, SOLES)
    assert none[0] == -np.inf


def test_the_free_mechanic_stands_inside_its_soles_in_double_support():
    """The free mechanic, 3 s flat: its summary's margin is the soles' (stop 49), so with
    both soles flat on the ground the centre of mass is inside their area (positive), where
    on the ankles' line it never was."""
    from gaitsim.body import compile_body
    from gaitsim.sim.run import simulate

    r = simulate("mechanic", seconds=3.0)
    rec = {k: np.asarray(v) for k, v in r.record.items()}
    soles = compile_body("mechanic").soles
    contacts = rec["contacts"].astype(bool)
    m = _support_margins(rec, rec["feet"], contacts, len(rec["t"]), soles)
    both = contacts.all(axis=1)
    assert both.any() and np.nanmax(m[both]) > 0.0
    finite = m[np.isfinite(m)]
    assert r.summary["mean_support_margin_m"] == pytest.approx(float(finite.mean()), rel=1e-9)


@pytest.mark.parametrize("ground", [{}, {"slope_deg": 5.0}])
def test_the_env_reports_the_soles_margin(ground):
    """The env's ``support_margin_m`` (the smallest so far) is the soles' margin too, step
    by step, for the free mechanic on flat ground and up 5 deg: checked against
    ``sole_support_margin`` of each reading with the ground's normals under the soles (on
    the slope a sole flat on it is not taken for one on its toe), and against the ankles'
    line, which it is not."""
    import math

    import gaitsim.envs  # noqa: F401  (registers the envs)
    import gymnasium as gym

    from gaitsim.sim.metrics import sole_support_margin, support_margin

    env = gym.make("gaitsim/Walk-v0", walker="mechanic", body="free", **ground)
    env.reset(seed=0)
    ctl = env.unwrapped.controller
    soles = ctl.walker.soles
    flat_soles = 0
    low = line = math.inf
    for _ in range(90):
        _, _, term, trunc, info = env.step(np.zeros(env.action_space.shape))
        s = ctl.sensed
        normals = ctl.walker.sole_ground(np.asarray(s.feet)[:, :2])[1]
        m = sole_support_margin(s.com, s.feet, s.foot_quaternions, s.contacts, soles, normals)
        _, bears = sole_support_points(np.asarray(s.feet)[None],
                                       np.asarray(s.foot_quaternions)[None], soles,
                                       np.asarray(normals)[None])  # fmt: skip
        flat_soles += int(np.sum(bears[0].all(axis=1) & np.asarray(s.contacts, bool)))
        if m != -math.inf:
            low = min(low, m)
            line = min(line, support_margin(s.com, s.feet, s.contacts))
        assert info["support_margin_m"] == pytest.approx(low, abs=1e-12)
        if term or trunc:
            break
    assert low > line
    assert flat_soles > 30  # most stance steps stand on a whole sole, slope or not
    env.close()


@settings(max_examples=200, deadline=None)
@given(
    pitch_deg=st.lists(st.floats(-40.0, 40.0), min_size=2, max_size=2),
    yaw_deg=st.lists(st.floats(-180.0, 180.0), min_size=2, max_size=2),
    roll_deg=st.lists(st.floats(-10.0, 10.0), min_size=2, max_size=2),
    tilt_deg=st.floats(0.0, 20.0),
    contacts=st.lists(st.booleans(), min_size=2, max_size=2),
    com=st.tuples(st.floats(-0.3, 0.3), st.floats(-0.3, 0.3)),
    dims=st.tuples(st.floats(0.0, 0.2), st.floats(0.01, 0.3), st.floats(0.01, 0.2),
                   st.floats(0.005, 0.1), st.floats(0.0, 0.004)),
)
def test_one_readings_margin_is_the_arrays(pitch_deg, yaw_deg, roll_deg, tilt_deg, contacts,
                                           com, dims):
    """``sole_support_margin`` (plain floats, one reading) equals ``support_margin`` over
    ``sole_support_points``' bearing points (arrays) for any two soles: any heading, pitch
    and roll, on ground tilted up to 20 deg, any contacts and sole sizes. Pitches within
    1e-6 deg of the flat bound are left out: there the two paths' last bits may decide
    the edge differently."""
    from gaitsim.sim.metrics import SOLE_FLAT_DEG, sole_support_margin, support_margin

    heel, toe, width, height, corner = dims
    sole = SimpleNamespace(heel=heel, toe=toe, width=width, height=height, corner=corner)
    normal = Rotation.from_euler("x", tilt_deg, degrees=True).apply([0.0, 0.0, 1.0])
    quats = Rotation.from_euler("zyx", np.stack([yaw_deg, pitch_deg, roll_deg], 1),
                                degrees=True).as_quat()  # fmt: skip
    feet = np.array([[0.05, 0.1, height], [-0.05, -0.1, height + 0.01]])
    normals = np.array([normal, normal])
    _, ground_pitch = sole_on_ground(quats, normals)
    assume(np.all(np.abs(np.abs(np.degrees(ground_pitch)) - SOLE_FLAT_DEG) > 1e-6))
    pts, bears = sole_support_points(feet[None], quats[None], [sole, sole], normals[None])
    on = bears[0] & np.asarray(contacts)[:, None]
    want = support_margin(com, pts[0].reshape(-1, 2), on.ravel())
    got = sole_support_margin(com, feet, quats, contacts, [sole, sole], normals)
    assert got == pytest.approx(want, abs=1e-9) or (got == want == -np.inf)
