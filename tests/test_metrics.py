"""Run metrics: support margin, hull, stance slip, attitude, and the run summary.

Geometry is checked against hand-computed cases and against scipy (ConvexHull, Delaunay,
Rotation) as independent references; ``summarize`` against a synthetic run whose every
figure is worked out by hand below.
"""

import math

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial import ConvexHull, Delaunay, QhullError
from scipy.spatial.transform import Rotation

from gaitsim.polygon import convex_hull as _convex_hull
from gaitsim.sim.metrics import (
    FALL_HEIGHT_FRACTION,
    FALL_TILT_DEG,
    GRAVITY,
    VERDICTS,
    ContactTally,
    Recorder,
    contact_fidelity,
    roll_pitch_deg,
    sole_figures,
    stance_contact_bounds,
    stance_onsets,
    stance_slips,
    summarize,
    support_margin,
    tilt_deg,
    verdict,
)

SQUARE = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
ALL4 = np.ones(4, bool)


# ---------------------------------------------------------------------------------------
# independent references


def seg_dist(c, a, b) -> float:
    """Distance from point c to segment ab (plain Python, no shared code with metrics)."""
    ax, ay, bx, by, cx, cy = *map(float, a), *map(float, b), *map(float, c)
    dx, dy = bx - ax, by - ay
    n2 = dx * dx + dy * dy
    t = 0.0 if n2 == 0 else max(0.0, min(1.0, ((cx - ax) * dx + (cy - ay) * dy) / n2))
    return math.hypot(ax + t * dx - cx, ay + t * dy - cy)


def scipy_hull(pts):
    """scipy's hull of a non-degenerate 2-D point set, or None if degenerate."""
    try:
        return ConvexHull(pts)
    except (QhullError, ValueError):
        return None


def boundary_dist(c, hull) -> float:
    """Brute force: minimum distance from c to every edge of a scipy hull."""
    return min(seg_dist(c, hull.points[i], hull.points[j]) for i, j in hull.simplices)


def ref_margin(com, feet, contacts) -> float:
    """Reference signed margin from scipy (hull, Delaunay) and brute-force edge distances."""
    pts = np.unique(np.asarray(feet, float)[np.asarray(contacts, bool)], axis=0)
    c = np.asarray(com, float)
    if len(pts) == 0:
        return -math.inf
    hull = scipy_hull(pts) if len(pts) >= 3 else None
    if hull is None:  # point or collinear: minus the distance to the farthest-apart pair
        if len(pts) == 1:
            return -math.hypot(*(c - pts[0]))
        i, j = np.unravel_index(
            np.argmax(np.linalg.norm(pts[:, None] - pts[None], axis=-1)), (len(pts),) * 2
        )
        return -seg_dist(c, pts[i], pts[j])
    d = boundary_dist(c, hull)
    inside = Delaunay(pts[hull.vertices]).find_simplex(c) >= 0  # (interior points out:
    # one a hair from the com left Delaunay a sliver that missed it)
    return d if inside else -d


# ---------------------------------------------------------------------------------------
# support_margin: hand cases


def test_margin_square_centre_is_half():
    assert support_margin([0.5, 0.5], SQUARE, ALL4) == pytest.approx(0.5)


def test_margin_square_outside_is_minus_distance():
    assert support_margin([2.0, 0.5], SQUARE, ALL4) == pytest.approx(-1.0)
    # outside past a corner: distance to the corner (1, 1)
    assert support_margin([2.0, 2.0], SQUARE, ALL4) == pytest.approx(-math.sqrt(2))


@pytest.mark.parametrize("com", [(1.0, 0.5), (0.5, 0.0), (0.0, 0.3), (0.25, 1.0), (1.0, 1.0)])
def test_margin_on_edge_or_vertex_is_zero(com):
    assert support_margin(com, SQUARE, ALL4) == pytest.approx(0.0, abs=1e-15)


def test_margin_square_off_centre_inside():
    # nearest edge of (0.2, 0.7) is x = 0
    assert support_margin([0.2, 0.7], SQUARE, ALL4) == pytest.approx(0.2)


def test_margin_reads_only_x_and_y():
    # the env passes the centre of mass and the feet as (x, y, z) tuples
    feet3 = [(float(x), float(y), float(k)) for k, (x, y) in enumerate(SQUARE)]
    assert support_margin((0.5, 0.5, 9.0), feet3, ALL4) == support_margin([0.5, 0.5], SQUARE, ALL4)


def test_margin_square_order_of_feet_does_not_matter():
    feet = SQUARE[[2, 0, 3, 1]]
    assert support_margin([0.5, 0.5], feet, ALL4) == pytest.approx(0.5)


def test_margin_triangle_hand_case():
    # right triangle (0,0) (4,0) (0,3); hypotenuse 3x + 4y = 12 at distance |3x+4y-12|/5
    tri = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 3.0]])
    on = np.ones(3, bool)
    # (1, 1): distances 1 (x=0), 1 (y=0), |3+4-12|/5 = 1 -> the incentre, inradius 1
    assert support_margin([1.0, 1.0], tri, on) == pytest.approx(1.0)
    # (1, 0.5): min(1, 0.5, 5.5/5) = 0.5
    assert support_margin([1.0, 0.5], tri, on) == pytest.approx(0.5)
    # (4, 3) is outside beyond the hypotenuse: |12+12-12|/5 = 2.4, foot of perpendicular
    # (4, 3) - 2.4 * (3, 4)/5 = (2.56, 1.08) lies on the hypotenuse segment
    assert support_margin([4.0, 3.0], tri, on) == pytest.approx(-2.4)
    # (-1, -1) is nearest the vertex (0, 0)
    assert support_margin([-1.0, -1.0], tri, on) == pytest.approx(-math.sqrt(2))


def test_margin_two_contacts_is_minus_distance_to_segment():
    feet = np.array([[0.0, 0.0], [2.0, 0.0], [9.0, 9.0]])
    two = np.array([True, True, False])
    assert support_margin([1.0, 0.5], feet, two) == pytest.approx(-0.5)
    assert support_margin([3.0, 0.0], feet, two) == pytest.approx(-1.0)  # past the end
    assert support_margin([-3.0, 4.0], feet, two) == pytest.approx(-5.0)  # from (0, 0)
    assert support_margin([1.0, 0.0], feet, two) == pytest.approx(0.0, abs=1e-15)  # on it


def test_margin_one_contact_is_minus_distance_to_point():
    feet = np.array([[1.0, 1.0], [5.0, 5.0]])
    assert support_margin([4.0, 5.0], feet, [True, False]) == pytest.approx(-5.0)
    assert support_margin([1.0, 1.0], feet, [True, False]) == pytest.approx(0.0, abs=1e-15)


def test_margin_no_contact_is_minus_inf():
    assert support_margin([0.5, 0.5], SQUARE, np.zeros(4, bool)) == -math.inf
    assert support_margin([0.5, 0.5], np.zeros((0, 2)), np.zeros(0, bool)) == -math.inf


def test_margin_duplicate_feet():
    # four feet in two coincident pairs: a segment
    feet = np.array([[0.0, 0.0], [0.0, 0.0], [2.0, 0.0], [2.0, 0.0]])
    assert support_margin([1.0, 1.0], feet, ALL4) == pytest.approx(-1.0)
    # all feet at one point
    same = np.zeros((4, 2))
    assert support_margin([3.0, 4.0], same, ALL4) == pytest.approx(-5.0)
    # the square with every corner twice
    doubled = np.vstack([SQUARE, SQUARE])
    assert support_margin([0.5, 0.5], doubled, np.ones(8, bool)) == pytest.approx(0.5)
    assert support_margin([0.5, -1.0], doubled, np.ones(8, bool)) == pytest.approx(-1.0)


def test_margin_collinear_feet():
    line = np.array([[0.0, 0.0], [1.0, 1.0], [3.0, 3.0], [2.0, 2.0]])
    # distance of (0, 2) to the line y = x is sqrt(2); the perpendicular foot (1, 1) is on it
    assert support_margin([0.0, 2.0], line, ALL4) == pytest.approx(-math.sqrt(2))
    assert support_margin([4.0, 3.0], line, ALL4) == pytest.approx(-1.0)  # from (3, 3)
    assert support_margin([1.5, 1.5], line, ALL4) == pytest.approx(0.0, abs=1e-15)
    # a square with extra feet in the middle of its edges: same as the square
    edges = np.vstack([SQUARE, [[0.5, 0.0], [1.0, 0.5], [0.5, 1.0], [0.0, 0.5]]])
    assert support_margin([0.5, 0.5], edges, np.ones(8, bool)) == pytest.approx(0.5)
    assert support_margin([0.5, 0.9], edges, np.ones(8, bool)) == pytest.approx(0.1)


def test_margin_ignores_feet_not_in_contact():
    feet = np.vstack([SQUARE, [[10.0, 10.0], [-10.0, 0.5]]])
    mask = np.array([True, True, True, True, False, False])
    assert support_margin([0.5, 0.5], feet, mask) == pytest.approx(0.5)
    assert support_margin([2.0, 0.5], feet, mask) == pytest.approx(-1.0)
    # lift the corner (1, 1): triangle (0,0) (1,0) (0,1); (0.6, 0.6) is now outside
    mask3 = np.array([True, True, False, True, False, False])
    expected = -abs(0.6 + 0.6 - 1) / math.sqrt(2)
    assert support_margin([0.6, 0.6], feet, mask3) == pytest.approx(expected)
    # a float / int mask means the same as a bool one
    assert support_margin([0.6, 0.6], feet, mask3.astype(float)) == pytest.approx(expected)


def test_margin_near_duplicate_foot_does_not_collapse_the_polygon():
    # regression: the hull used an absolute 1e-15 tolerance on cross products, so a foot
    # 1e-15 m from another made the genuine vertex (0, 1) pop: the triangle became the
    # segment (-1, 0)-(0, 0) and the margin of (-0.2, 0.3) came out -0.3 instead of +0.2
    for eps in (1e-15, 1e-16, 1e-116):
        feet = np.array([[0.0, 0.0], [0.0, 1.0], [eps, 0.0], [-1.0, 0.0]])
        assert support_margin([-0.2, 0.3], feet, ALL4) == pytest.approx(0.2)


@pytest.mark.parametrize("k", [1e-3, 1e-6, 1e-8, 1e3])
def test_margin_of_a_tiny_or_huge_square(k):
    # the same absolute tolerance turned a 1e-8 m square into a segment (margin -0.0)
    assert support_margin([0.5 * k, 0.5 * k], k * SQUARE, ALL4) == pytest.approx(0.5 * k)
    assert support_margin([2.0 * k, 0.5 * k], k * SQUARE, ALL4) == pytest.approx(-1.0 * k)


def test_margin_accepts_plain_lists():
    # plain lists, as a controller might pass them
    assert support_margin((0.5, 0.5), SQUARE.tolist(), [1, 1, 1, 1]) == pytest.approx(0.5)


# ---------------------------------------------------------------------------------------
# support_margin: properties against scipy

coord = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)
point = st.tuples(coord, coord)
com_st = st.tuples(st.floats(-2.0, 2.0), st.floats(-2.0, 2.0))
point_sets = st.lists(point, min_size=3, max_size=9)


def well_posed(pts):
    """A scipy hull of reasonable area (thin slivers make both sides' signs fragile)."""
    hull = scipy_hull(np.asarray(pts, float))
    assume(hull is not None and hull.volume > 1e-3)
    return hull


@given(pts=point_sets, com=com_st)
@example(pts=[(0.0, -1e-05), (1.0, 0.0), (1e-13, 0.0), (-0.75, 1.0)], com=(0.0, 0.0))
def test_margin_sign_is_strict_inside_of_hull(pts, com):
    pts = np.asarray(pts, float)
    hull = well_posed(pts)
    d = boundary_dist(com, hull)
    assume(d > 1e-9)  # away from the boundary, where "strictly inside" is unambiguous
    # Delaunay over the hull's vertices only: an interior point 1e-13 from the com (the
    # example above, found by a CI run) left Delaunay over every point a sliver that
    # missed it, and the two scipy opinions disagreed
    inside = bool(Delaunay(pts[hull.vertices]).find_simplex(np.asarray(com)) >= 0)
    # the hull's half-plane equations are a second opinion on inside-ness
    inside_eq = bool(np.all(hull.equations[:, :2] @ np.asarray(com) + hull.equations[:, 2] < 0))
    assert inside == inside_eq
    m = support_margin(com, pts, np.ones(len(pts), bool))
    assert (m > 0) == inside


@given(pts=point_sets, com=com_st)
def test_margin_magnitude_is_distance_to_hull_boundary(pts, com):
    pts = np.asarray(pts, float)
    hull = well_posed(pts)
    m = support_margin(com, pts, np.ones(len(pts), bool))
    assert abs(m) == pytest.approx(boundary_dist(com, hull), abs=1e-12)


@given(pts=st.lists(point, min_size=0, max_size=8), com=com_st, data=st.data())
def test_margin_equals_reference_including_degenerate_sets(pts, com, data):
    feet = np.asarray(pts, float).reshape(-1, 2)
    mask = np.asarray(data.draw(st.lists(st.booleans(), min_size=len(pts), max_size=len(pts))))
    m = support_margin(com, feet, mask.astype(bool))
    r = ref_margin(com, feet, mask.astype(bool))
    if r == -math.inf:
        assert m == -math.inf
        return
    sel = np.unique(feet[mask.astype(bool)], axis=0)
    hull = scipy_hull(sel) if len(sel) >= 3 else None
    # sliver polygons: scipy and the monotone chain may disagree on what is degenerate
    assume(hull is None or hull.volume > 1e-3)
    assert m == pytest.approx(r, abs=1e-9)
    # the mask is equivalent to dropping the feet not in contact
    assert support_margin(com, feet[mask.astype(bool)], np.ones(int(mask.sum()), bool)) == m


@given(
    pts=point_sets,
    com=com_st,
    shift=st.tuples(st.floats(-50, 50), st.floats(-50, 50)),
)
def test_margin_translation_invariant(pts, com, shift):
    pts = np.asarray(pts, float)
    well_posed(pts)
    on = np.ones(len(pts), bool)
    s = np.asarray(shift)
    m0 = support_margin(com, pts, on)
    m1 = support_margin(np.asarray(com) + s, pts + s, on)
    assert m1 == pytest.approx(m0, abs=1e-9)


@given(pts=point_sets, com=com_st, k=st.floats(1e-6, 1e3))
def test_margin_scales_with_scene(pts, com, k):
    pts = np.asarray(pts, float)
    well_posed(pts)
    on = np.ones(len(pts), bool)
    m0 = support_margin(com, pts, on)
    mk = support_margin(k * np.asarray(com), k * pts, on)
    assert mk == pytest.approx(k * m0, rel=1e-9, abs=1e-12 * k)


# ---------------------------------------------------------------------------------------
# _convex_hull


def signed_area(poly) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


@pytest.mark.parametrize("seed", range(20))
def test_convex_hull_matches_scipy_random(seed):
    rng = np.random.default_rng(seed)
    pts = rng.normal(size=(int(rng.integers(3, 40)), 2))
    ours = _convex_hull(pts)
    ref = ConvexHull(pts)
    assert {tuple(p) for p in ours} == {tuple(p) for p in pts[ref.vertices]}
    assert len(ours) == len(ref.vertices)  # no repeated end point, no duplicates
    assert signed_area(ours) == pytest.approx(ref.volume)  # counter-clockwise, same area


@given(pts=point_sets)
def test_convex_hull_matches_scipy_property(pts):
    pts = np.asarray(pts, float)
    ref = well_posed(pts)
    ours = _convex_hull(pts)
    assert signed_area(ours) == pytest.approx(ref.volume, rel=1e-9)
    # the same polygon up to near-duplicate / near-collinear points, which either side may
    # keep: every scipy vertex is (within 1e-12 of) one of ours, every one of ours is an
    # input point on scipy's boundary
    for v in pts[ref.vertices]:
        assert np.min(np.linalg.norm(ours - v, axis=1)) < 1e-12
    input_set = {tuple(p) for p in pts}
    for p in ours:
        assert tuple(p) in input_set
        assert boundary_dist(p, ref) < 1e-12


def test_convex_hull_drops_interior_duplicate_and_collinear_points():
    pts = np.vstack([SQUARE, SQUARE, [[0.5, 0.5], [0.5, 0.0], [0.2, 0.3]]])
    hull = _convex_hull(pts)
    assert {tuple(p) for p in hull} == {tuple(p) for p in SQUARE}
    assert len(hull) == 4
    assert signed_area(hull) == pytest.approx(1.0)


def test_convex_hull_degenerate_sets():
    assert len(_convex_hull(np.array([[1.0, 2.0], [1.0, 2.0]]))) == 1
    seg = _convex_hull(np.array([[0.0, 0.0], [1.0, 1.0], [3.0, 3.0], [2.0, 2.0]]))
    assert {tuple(p) for p in seg} == {(0.0, 0.0), (3.0, 3.0)}


# ---------------------------------------------------------------------------------------
# stance_slips


def feet_1d(xs):
    """(T, 1, 3) foot track moving along x."""
    xs = np.asarray(xs, float)
    return np.stack([xs, np.zeros_like(xs), np.zeros_like(xs)], axis=-1)[:, None, :]


def test_slip_zero_for_a_still_foot():
    feet = feet_1d([0.3] * 6)
    (s,) = stance_slips(feet, np.ones((6, 1), bool))
    assert s.tolist() == [0.0]


def test_slip_one_mm_per_sample_over_five_samples_is_four_mm():
    xs = 0.001 * np.arange(7)
    contacts = np.array([0, 1, 1, 1, 1, 1, 0], bool)[:, None]
    (s,) = stance_slips(feet_1d(xs), contacts)
    assert len(s) == 1
    assert s[0] == pytest.approx(0.004)


def test_slip_counts_3d_distance_in_world_frame():
    feet = np.array([[[0, 0, 0]], [[0.003, 0.004, 0]], [[0.003, 0.004, 0.012]]], float)
    (s,) = stance_slips(feet, np.ones((3, 1), bool))
    assert s[0] == pytest.approx(0.005 + 0.012)


def test_slip_two_episodes_give_two_entries():
    #            0     1    2    3    4    5    6    7    8
    xs = [0.0, 0.001, 0.002, 0.5, 0.9, 1.0, 1.0, 1.003, 1.003]
    contacts = np.array([1, 1, 1, 0, 0, 1, 1, 1, 1], bool)[:, None]
    (s,) = stance_slips(feet_1d(xs), contacts)
    assert s == pytest.approx([0.002, 0.003])


def test_slip_ignores_swing_and_the_liftoff_and_touchdown_moves():
    # in contact 0-2 (still), swing 3-6 (big moves, incl. 2->3 and 6->7), contact 7-9 (still)
    xs = [0.0, 0.0, 0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.0, 1.0]
    contacts = np.array([1, 1, 1, 0, 0, 0, 0, 1, 1, 1], bool)[:, None]
    (s,) = stance_slips(feet_1d(xs), contacts)
    assert s.tolist() == [0.0, 0.0]


def test_slip_contact_at_first_and_last_sample():
    xs = [0.0, 0.001, 0.5, 0.6, 0.6, 0.602]
    contacts = np.array([1, 1, 0, 0, 1, 1], bool)[:, None]
    (s,) = stance_slips(feet_1d(xs), contacts)
    assert s == pytest.approx([0.001, 0.002])


def test_slip_single_sample_episodes_and_no_contact():
    xs = [0.0, 0.1, 0.2, 0.3, 0.4]
    contacts = np.array([[1, 0], [0, 0], [1, 0], [0, 0], [1, 0]], bool)
    feet = np.concatenate([feet_1d(xs), feet_1d(xs)], axis=1)
    s0, s1 = stance_slips(feet, contacts)
    assert s0.tolist() == [0.0, 0.0, 0.0]
    assert s1.size == 0


def test_slip_legs_are_independent():
    t = 8
    feet = np.zeros((t, 3, 3))
    feet[:, 1, 0] = 0.001 * np.arange(t)  # leg 1 slides 1 mm per sample
    feet[:, 2, 1] = 0.002 * np.arange(t)  # leg 2 slides 2 mm per sample, swing only
    contacts = np.zeros((t, 3), bool)
    contacts[:, 0] = True
    contacts[2:6, 1] = True
    s0, s1, s2 = stance_slips(feet, contacts)
    assert s0.tolist() == [0.0]
    assert s1 == pytest.approx([0.003])
    assert s2.size == 0


@given(
    c=arrays(bool, (30, 2)),
    steps=arrays(float, (29, 2), elements=st.floats(0, 0.01)),
)
def test_slip_total_equals_brute_force(c, steps):
    # feet move along y by the drawn steps; brute force over samples in plain Python
    ys = np.vstack([np.zeros((1, 2)), np.cumsum(steps, axis=0)])
    feet = np.zeros((30, 2, 3))
    feet[..., 1] = ys
    out = stance_slips(feet, c)
    for leg in range(2):
        episodes, cur = [], None
        for k in range(30):
            if c[k, leg]:
                if cur is None:
                    cur = 0.0
                else:
                    cur += abs(ys[k, leg] - ys[k - 1, leg])
            elif cur is not None:
                episodes.append(cur)
                cur = None
        if cur is not None:
            episodes.append(cur)
        assert out[leg] == pytest.approx(episodes, abs=1e-15)


# ---------------------------------------------------------------------------------------
# tilt_deg and roll_pitch_deg


def quat(seq, angles_deg):
    return Rotation.from_euler(seq, angles_deg, degrees=True).as_quat()  # x, y, z, w


def test_attitude_identity_is_zero():
    q = np.array([0.0, 0.0, 0.0, 1.0])
    assert tilt_deg(q) == pytest.approx(0.0)
    r, p = roll_pitch_deg(q)
    assert (r, p) == (pytest.approx(0.0), pytest.approx(0.0))


def test_attitude_quarter_turns():
    s = math.sqrt(0.5)
    about_x = np.array([s, 0, 0, s])
    assert tilt_deg(about_x) == pytest.approx(90.0)
    assert roll_pitch_deg(about_x)[0] == pytest.approx(90.0)
    assert roll_pitch_deg(about_x)[1] == pytest.approx(0.0, abs=1e-12)
    about_y = np.array([0, s, 0, s])
    assert tilt_deg(about_y) == pytest.approx(90.0)
    assert roll_pitch_deg(about_y)[1] == pytest.approx(90.0)
    about_z = np.array([0, 0, s, s])  # yaw does not tilt the body
    assert tilt_deg(about_z) == pytest.approx(0.0, abs=1e-12)
    assert roll_pitch_deg(about_z) == (pytest.approx(0.0, abs=1e-12),) * 2
    upside_down = np.array([1.0, 0, 0, 0])
    assert tilt_deg(upside_down) == pytest.approx(180.0)


def test_attitude_signs_follow_right_hand_rule():
    # +20 deg about x lifts the left side (y) ... roll +20; +20 about y noses down: pitch +20
    assert roll_pitch_deg(quat("x", 20))[0] == pytest.approx(20.0)
    assert roll_pitch_deg(quat("x", -20))[0] == pytest.approx(-20.0)
    assert roll_pitch_deg(quat("y", 20))[1] == pytest.approx(20.0)
    assert roll_pitch_deg(quat("y", -20))[1] == pytest.approx(-20.0)


unit_quats = arrays(float, 4, elements=st.floats(-1, 1)).filter(lambda q: np.linalg.norm(q) > 0.1)


@given(q=unit_quats)
def test_tilt_matches_scipy(q):
    q = q / np.linalg.norm(q)
    zaxis = Rotation.from_quat(q).as_matrix()[:, 2]
    expected = math.degrees(math.acos(np.clip(zaxis[2], -1, 1)))
    # arccos near +-1 turns 1e-16 rounding into ~2e-6 deg: a tolerance of 1e-5 deg
    assert tilt_deg(q) == pytest.approx(expected, abs=1e-5)
    assert tilt_deg(-q) == pytest.approx(expected, abs=1e-5)  # q and -q: same rotation


@pytest.mark.filterwarnings("ignore:Gimbal lock detected")  # such draws are assumed away
@given(q=unit_quats)
def test_roll_pitch_match_scipy_zyx(q):
    q = q / np.linalg.norm(q)
    _yaw, pitch, roll = Rotation.from_quat(q).as_euler("ZYX", degrees=True)
    assume(abs(pitch) < 89.0)  # roll is undefined at gimbal lock
    r, p = roll_pitch_deg(q)
    assert p == pytest.approx(pitch, abs=1e-6)
    # roll is an angle: compare on the circle
    assert abs((r - roll + 180.0) % 360.0 - 180.0) < 1e-6
    # tilt from roll and pitch: cos(tilt) = cos(roll) cos(pitch)
    c = math.cos(math.radians(r)) * math.cos(math.radians(p))
    assert tilt_deg(q) == pytest.approx(math.degrees(math.acos(np.clip(c, -1, 1))), abs=1e-5)


def test_attitude_vectorized_over_leading_axes():
    qs = np.stack([quat("ZYX", [10 * k, 5 * k, -3 * k]) for k in range(6)]).reshape(2, 3, 4)
    tilt = tilt_deg(qs)
    r, p = roll_pitch_deg(qs)
    assert tilt.shape == r.shape == p.shape == (2, 3)
    assert r.ravel() == pytest.approx([-3.0 * k for k in range(6)])
    assert p.ravel() == pytest.approx([5.0 * k for k in range(6)])


# ---------------------------------------------------------------------------------------
# Recorder


def test_recorder_collects_rows_into_arrays():
    rec = Recorder(n_legs=2)
    assert len(rec) == 0
    for k in range(3):
        rec.add(t=0.1 * k, contacts=[True, k % 2 == 0])
    arr = rec.arrays()
    assert len(rec) == 3
    assert arr["t"].shape == (3,)
    assert arr["contacts"].shape == (3, 2)
    assert arr["contacts"].dtype == bool
    assert Recorder(n_legs=2).data == {}  # no shared mutable default


def test_recorder_rows_table_matches_per_key_adds():
    """A ``rows`` table (one tuple a step) records what ``add`` would, keys in the order
    they were made, and reaches ``data`` whenever it is read."""
    by_row, by_key = Recorder(n_legs=2), Recorder(n_legs=2)
    table = by_row.rows(("t", "feet"))
    for k in range(4):
        feet = ((0.1 * k, 0.0, 0.0), (0.0, 0.2 * k, 0.0))
        table.append((0.5 * k, feet))
        by_row.add(extra=k)
        by_key.add(t=0.5 * k, feet=feet, extra=k)
        assert len(by_row) == k + 1
    assert list(by_row.data) == ["t", "feet", "extra"]
    a, b = by_row.arrays(), by_key.arrays()
    assert list(a) == list(b)
    for key in b:
        assert a[key].shape == b[key].shape and (a[key] == b[key]).all()
    table.append((9.0, ((0.0,) * 3,) * 2))  # rows appended after a read are flushed too
    by_row.flush()
    assert by_row.data["t"][-1] == 9.0 and len(by_row.data["t"]) == 5


# ---------------------------------------------------------------------------------------
# summarize on a synthetic run
#
# 4 legs (FL, FR, RL, RR), T = 100 steps, dt = 0.01 s, t starts at 2.0 s. The body moves
# at 0.3 m/s along x (3 mm per step). Planned stance: legs 0 and 3 in [0, 29] and
# [50, 79]; legs 1 and 2 in [20, 49] and [70, 99] (inclusive). Feet are planted at a fixed
# world point per stance and swing between plants. Contacts equal the plan except 5
# samples: leg 0 touches down 2 samples late (50, 51) and leg 1 lifts off 3 samples early
# (47, 48, 49). Leg 2 slips 2 mm (0.5 mm per sample from sample 80 to 84) in its second
# stance. Everything else is constant: torque -2 N m and joint velocity 0.5 rad/s on all
# 12 joints (|tau * w| = 1 W each, 12 W total), heading error 0.1 rad, roll 5 deg,
# pitch -3 deg, yaw 10 deg, height 0.45 m over ground at z = 0.1 (standing height 0.5).

T, DT, T0, V = 100, 0.01, 2.0, 0.3
MASS, STAND, CMD = 5.0, 0.5, 0.4
HIPS = np.array([[0.15, 0.1], [0.15, -0.1], [-0.15, 0.1], [-0.15, -0.1]])
PLAN = {0: [(0, 29), (50, 79)], 3: [(0, 29), (50, 79)], 1: [(20, 49), (70, 99)]}
PLAN[2] = PLAN[1]


def body_x(k):
    return V * DT * k


def synthetic_run():
    k = np.arange(T)
    t = T0 + DT * k
    progress = body_x(k)
    base = np.stack([progress, np.zeros(T), np.full(T, 0.1 + 0.45)], axis=-1)
    planned = np.zeros((T, 4), bool)
    feet = np.zeros((T, 4, 3))
    for leg, eps in PLAN.items():
        plants = [HIPS[leg, 0] + body_x((s + e) / 2) for s, e in eps]
        for (s, e), x in zip(eps, plants, strict=True):
            planned[s : e + 1, leg] = True
            feet[s : e + 1, leg, 0] = x
        # swing between the two plants (linear in x, lifted in z), and before / after
        (_, a), (b, _) = eps
        u = (np.arange(a + 1, b) - a) / (b - a)
        feet[a + 1 : b, leg, 0] = plants[0] + u * (plants[1] - plants[0])
        feet[a + 1 : b, leg, 2] = 0.03 * np.sin(np.pi * u)
        s0, e1 = eps[0][0], eps[1][1]
        feet[:s0, leg, 0] = plants[0] - 0.004 * (s0 - np.arange(s0))
        feet[:s0, leg, 2] = 0.02
        feet[e1 + 1 :, leg, 0] = plants[1] + 0.004 * (np.arange(e1 + 1, T) - e1)
        feet[e1 + 1 :, leg, 2] = 0.02
        feet[:, leg, 1] = HIPS[leg, 1]
    feet[:, :, 2] += 0.1  # ground at z = 0.1
    # the 2 mm slip of leg 2 in its second stance
    feet[81:, 2, 0] += 0.0005 * np.minimum(np.arange(81, T) - 80, 4)
    contacts = planned.copy()
    contacts[50:52, 0] = False
    contacts[47:50, 1] = False
    targets = feet + np.array([0.0, 0.003, 0.0])  # 3 mm tracking error ...
    targets[60, 1] = feet[60, 1] + [0.0, 0.0, 0.010]  # ... except 10 mm once
    shortfall = np.zeros((T, 4))
    shortfall[10, 3] = 0.004
    shortfall[60, 1] = 0.012
    q = quat("ZYX", [10.0, -3.0, 5.0])
    return {
        "t": t,
        "progress": progress,
        "base_pos": base,
        "base_quat": np.tile(q, (T, 1)),
        "com": base + np.array([0.01, 0.0, -0.05]),
        "feet": feet,
        "contacts": contacts,
        "planned_stance": planned,
        "targets": targets,
        "shortfall": shortfall,
        "torque": np.full((T, 4, 3), -2.0),
        "joint_vel": np.full((T, 4, 3), 0.5),
        "ground_z": np.full(T, 0.1),
        "body_contact": np.zeros(T, bool),
        "heading_error": np.full(T, 0.1),
    }


def run(rec, commanded_speed=CMD):
    return summarize(rec, mass=MASS, standing_height=STAND, commanded_speed=commanded_speed, dt=DT)


def ref_margins(rec, n):
    return np.array(
        [ref_margin(rec["com"][k, :2], rec["feet"][k, :, :2], rec["contacts"][k]) for k in range(n)]
    )


def test_synthetic_run_is_what_the_comments_say():
    rec = synthetic_run()
    assert int((rec["contacts"] != rec["planned_stance"]).sum()) == 5
    slips = stance_slips(rec["feet"], rec["contacts"])
    assert [len(s) for s in slips] == [2, 2, 2, 2]
    assert np.concatenate(slips) == pytest.approx([0, 0, 0, 0, 0, 0.002, 0, 0], abs=1e-15)
    assert tilt_deg(rec["base_quat"][0]) < FALL_TILT_DEG


def test_summary_keys():
    s = run(synthetic_run())
    for key in (
        "fell",
        "time_to_fall_s",
        "speed_ratio",
        "slip_mm_per_stance",
        "max_shortfall_m",
        "min_support_margin_m",
        "distance_m",
        "speed_m_s",
        "slip_mm_per_m",
        "stances",
        "foot_tracking_error_mm",
        "contact_timing_error",
        "cost_of_transport",
        "max_roll_deg",
        "max_pitch_deg",
        "heading_error_deg",
    ):
        assert key in s, key


def test_summary_of_a_clean_run_hand_computed():
    rec = synthetic_run()
    s = run(rec)
    distance = 0.3 * 0.99  # progress[99] - progress[0]
    assert s["fell"] is False
    assert s["time_to_fall_s"] is None
    assert s["duration_s"] == pytest.approx(0.99)
    assert s["distance_m"] == pytest.approx(distance)
    assert s["speed_m_s"] == pytest.approx(0.3)
    assert s["commanded_speed_m_s"] == CMD
    assert s["speed_ratio"] == pytest.approx(0.75)
    assert s["stances"] == 8
    assert s["slip_mm_per_stance"] == pytest.approx(2.0 / 8)
    assert s["slip_mm_per_stance_by_leg"] == pytest.approx([0.0, 0.0, 1.0, 0.0])
    assert s["slip_mm_per_m"] == pytest.approx(2.0 / distance)
    assert s["max_shortfall_m"] == pytest.approx(0.012)
    assert s["shortfall_m_by_leg"] == pytest.approx([0.0, 0.012, 0.0, 0.004])
    assert s["foot_tracking_error_mm"] == pytest.approx((399 * 3.0 + 10.0) / 400)
    assert s["max_foot_tracking_error_mm"] == pytest.approx(10.0)
    assert s["contact_timing_error"] == pytest.approx(5 / 400)
    energy = 12 * 1.0 * T * DT  # 12 joints x 1 W x 100 steps x 0.01 s = 12 J
    assert s["cost_of_transport"] == pytest.approx(energy / (MASS * GRAVITY * distance))
    assert s["heading_error_deg"] == pytest.approx(math.degrees(0.1))
    assert s["max_roll_deg"] == pytest.approx(5.0)
    assert s["max_pitch_deg"] == pytest.approx(3.0)
    m = ref_margins(rec, T)
    assert s["min_support_margin_m"] == pytest.approx(m.min(), abs=1e-12)
    assert s["mean_support_margin_m"] == pytest.approx(m.mean(), abs=1e-12)


def test_summary_speed_ratio_and_zero_command():
    rec = synthetic_run()
    assert run(rec, commanded_speed=0.3)["speed_ratio"] == pytest.approx(1.0)
    assert math.isnan(run(rec, commanded_speed=0.0)["speed_ratio"])


def test_summary_margins_skip_samples_without_contact():
    rec = synthetic_run()
    rec["contacts"][55] = False
    rec["planned_stance"][55] = False  # keep the rest of the summary comparable
    s = run(rec)
    m = ref_margins(rec, T)
    assert m[55] == -math.inf
    finite = m[np.isfinite(m)]
    assert len(finite) == T - 1
    assert s["min_support_margin_m"] == pytest.approx(finite.min(), abs=1e-12)
    assert s["mean_support_margin_m"] == pytest.approx(finite.mean(), abs=1e-12)


def check_cut_at(s, rec, k):
    """A run that falls at step k: figures of steps 0 .. k-1 only."""
    assert s["fell"] is True
    assert s["time_to_fall_s"] == rec["t"][k] - rec["t"][0]
    distance = 0.003 * (k - 1)
    assert s["distance_m"] == pytest.approx(distance)
    assert s["duration_s"] == pytest.approx(DT * (k - 1))
    assert s["speed_m_s"] == pytest.approx(0.3)
    assert s["speed_ratio"] == pytest.approx(0.75)
    # the slip (step 80-84), the 10 mm tracking error and 12 mm shortfall (step 60) are later
    assert s["slip_mm_per_stance"] == 0.0
    assert s["slip_mm_per_m"] == 0.0
    assert s["max_foot_tracking_error_mm"] == pytest.approx(3.0)
    assert s["foot_tracking_error_mm"] == pytest.approx(3.0)
    assert s["max_shortfall_m"] == pytest.approx(0.004 if k > 10 else 0.0)
    assert s["max_roll_deg"] == pytest.approx(5.0)
    assert s["max_pitch_deg"] == pytest.approx(3.0)
    energy = 12 * 1.0 * k * DT
    assert s["cost_of_transport"] == pytest.approx(energy / (MASS * GRAVITY * distance))
    mismatch = (rec["contacts"][:k] != rec["planned_stance"][:k]).sum()
    assert s["contact_timing_error"] == pytest.approx(mismatch / (4 * k))
    m = ref_margins(rec, k)
    assert s["min_support_margin_m"] == pytest.approx(m[np.isfinite(m)].min(), abs=1e-12)
    assert s["mean_support_margin_m"] == pytest.approx(m[np.isfinite(m)].mean(), abs=1e-12)


@pytest.mark.parametrize("axis", ["x", "y"])
def test_summary_fall_by_tilt_at_step_40(axis):
    rec = synthetic_run()
    rec["base_quat"][40:] = quat(axis, 70.0)
    s = run(rec)
    check_cut_at(s, rec, 40)
    # in [0, 39]: legs 0, 3 stance [0, 29]; legs 1, 2 stance [20, 39] (cut short)
    assert s["stances"] == 4


def test_summary_tilt_just_below_the_limit_is_no_fall():
    rec = synthetic_run()
    rec["base_quat"][40:] = quat("x", FALL_TILT_DEG - 0.5)
    s = run(rec)
    assert s["fell"] is False
    assert s["max_roll_deg"] == pytest.approx(FALL_TILT_DEG - 0.5)


def test_summary_fall_by_body_contact_at_step_30():
    rec = synthetic_run()
    rec["body_contact"][30] = True  # a single touch is enough
    s = run(rec)
    check_cut_at(s, rec, 30)
    assert s["stances"] == 4


def test_summary_fall_by_height_at_step_20():
    rec = synthetic_run()
    # height over ground (z = 0.1) drops to 0.199 < 0.4 * 0.5
    rec["base_pos"][20:, 2] = 0.1 + FALL_HEIGHT_FRACTION * STAND - 0.001
    s = run(rec)
    check_cut_at(s, rec, 20)
    assert s["stances"] == 2  # only legs 0 and 3 touched down in [0, 19]
    assert s["slip_mm_per_stance_by_leg"] == [0.0, 0.0, 0.0, 0.0]


def test_summary_height_is_measured_over_the_ground():
    rec = synthetic_run()
    # body and ground rise together (a climb): no fall
    rise = np.linspace(0.0, 2.0, T)
    rec["base_pos"][:, 2] += rise
    rec["ground_z"] = rec["ground_z"] + rise
    assert run(rec)["fell"] is False
    # exactly at the limit is not below it
    rec = synthetic_run()
    rec["ground_z"] = np.zeros(T)
    rec["base_pos"][:, 2] = FALL_HEIGHT_FRACTION * STAND
    assert run(rec)["fell"] is False


def test_summary_first_of_several_fall_causes_wins():
    rec = synthetic_run()
    rec["base_quat"][40:] = quat("x", 80.0)
    rec["body_contact"][30:] = True
    rec["base_pos"][60:, 2] = 0.1
    s = run(rec)
    assert s["time_to_fall_s"] == rec["t"][30] - rec["t"][0]


def test_summary_fall_at_the_first_step():
    rec = synthetic_run()
    rec["body_contact"][0] = True
    s = run(rec)
    assert s["fell"] is True
    assert s["time_to_fall_s"] == 0.0
    assert s["distance_m"] == 0.0
    assert s["speed_m_s"] == 0.0
    assert s["slip_mm_per_m"] is None
    assert s["cost_of_transport"] is None


# --------------------------------------------------------------------------- the verdict
def _walked_summary(**kw):
    s = {
        "finite": True,
        "fell": False,
        "time_to_fall_s": None,
        "fall_reason": "",
        "speed_ratio": 1.0,
        "heading_error_deg": 2.0,
        "max_shortfall_m": 0.0,
    }
    s.update(kw)
    return s


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({}, "walked"),
        ({"speed_ratio": 0.8}, "walked"),  # the bounds are inclusive
        ({"speed_ratio": 1.2}, "walked"),
        ({"heading_error_deg": 15.0}, "walked"),
        ({"max_shortfall_m": 0.010}, "walked"),
        ({"assist_mean_force_per_weight": 0.3}, "walked"),
        ({"finite": False, "speed_ratio": float("nan")}, "non_finite"),
        ({"fell": True, "time_to_fall_s": 3.2, "fall_reason": "tilt"}, "fell"),
        ({"speed_ratio": 0.79}, "no_progress"),
        ({"speed_ratio": 1.21}, "no_progress"),
        ({"speed_ratio": -0.3}, "no_progress"),  # walking backwards
        ({"speed_ratio": float("nan")}, "no_progress"),
        ({"heading_error_deg": 15.1}, "off_heading"),
        ({"heading_error_deg": float("nan")}, "off_heading"),
        ({"max_shortfall_m": 0.0101}, "out_of_reach"),
        ({"assist_mean_force_per_weight": 0.31}, "carried"),
        ({"leg_load_per_weight": 0.1}, "walked"),
        ({"leg_load_per_weight": 0.11}, "kneeling"),
        ({"leg_load_per_weight": float("nan")}, "kneeling"),
        ({"assist_mean_force_per_weight": 0.31, "leg_load_per_weight": 0.5}, "carried"),
        # the first failing reason wins, in the documented order
        (
            {"fell": True, "time_to_fall_s": 1.0, "fall_reason": "height", "speed_ratio": 0.1},
            "fell",
        ),
        ({"speed_ratio": 0.5, "heading_error_deg": 60.0, "max_shortfall_m": 13.6}, "no_progress"),
        ({"heading_error_deg": 60.0, "max_shortfall_m": 1.0}, "off_heading"),
        ({"max_shortfall_m": 1.0, "assist_mean_force_per_weight": 0.9}, "out_of_reach"),
    ],
)
def test_verdict_goes_through_every_reason(change, expected):
    verdict_, reason = verdict(_walked_summary(**change))
    assert verdict_ == expected
    assert verdict_ in VERDICTS and reason


def test_no_walked_verdict_outside_the_rule():
    # a long-legged back-kneed biped that walked backwards under the assist (issue report):
    # speed ratio -0.3, heading error 60 deg, shortfall 13.6 m
    s = _walked_summary(speed_ratio=-0.3, heading_error_deg=60.0, max_shortfall_m=13.6,
                        assist_mean_force_per_weight=0.2)  # fmt: skip
    assert verdict(s)[0] != "walked"


def test_contact_fidelity_by_hand():
    # one leg, planned stance 6 of every 10 samples; measured: on time in the first cycle,
    # bouncing (two onsets) in the second, a sample late in the third
    plan = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 0] * 3, bool)[:, None]
    cycles = ([1, 1, 1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 0, 1, 1, 1, 0, 0, 0, 0],
              [0, 1, 1, 1, 1, 1, 0, 0, 0, 0])  # fmt: skip
    meas = np.array([x for c in cycles for x in c], bool)[:, None]
    f = contact_fidelity(meas, plan)  # every sample
    assert f["duty_by_leg"] == [pytest.approx(16 / 30)]
    # planned stances beginning after sample 0: at 10 (onsets 10 and 13) and 20 (onset 21)
    assert f["touchdowns_per_stance"] == pytest.approx(3 / 2)
    assert f["contact_timing_error"] == pytest.approx(2 / 30)
    # after the first cycle (10 samples): whole cycles only, so the shares are unbiased;
    # the stance that begins on the window's first sample keeps its two onsets
    f = contact_fidelity(meas, plan, cycle=10)
    assert f["duty_by_leg"] == [pytest.approx(10 / 20)]
    assert f["touchdowns_per_stance_by_leg"] == [pytest.approx(3 / 2)]
    # the window: floor((30 - 10) / 10) = 2 whole cycles after the first; with 19 samples
    # none (floor(9 / 10) = 0) and the figures span all 19, start-up included
    assert f["contact_cycles"] == 2 and contact_fidelity(meas, plan)["contact_cycles"] == 0
    short = contact_fidelity(meas[:19], plan[:19], cycle=10)
    assert short["contact_cycles"] == 0
    assert short["duty_by_leg"] == [pytest.approx(11 / 19)]


def test_a_run_shorter_than_two_cycles_says_so(capsys):
    """The fox's cycle lasts 0.571 s (0.15 / 0.7 / 0.375): a 0.6 s run holds no whole
    cycle after the first, so
    its summary's ``contact_cycles`` is 0 and ``gaitsim walk`` says its contact figures
    span the run, start-up included, and how long a run would measure them; a 3 s run
    spans whole cycles and gets no such note."""
    from gaitsim.cli import main
    from gaitsim.sim.run import simulate

    assert simulate("fox", seconds=0.6).summary["contact_cycles"] == 0
    assert simulate("fox", seconds=3.0).summary["contact_cycles"] >= 4
    assert main(["walk", "fox", "--seconds", "0.6"]) in (0, 1)
    out = capsys.readouterr()
    assert "do not measure the gait; run at least 1.14 s (--seconds)" in out.out + out.err
    assert main(["walk", "fox", "--seconds", "3"]) == 0
    out = capsys.readouterr()
    assert "gait cycles of" not in out.out + out.err


def test_stance_onsets_by_hand():
    plan = [0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0]
    # a scuff early in the second swing (7) goes to the stance it precedes (9-12), with
    # that stance's own landing (10, a sample late)
    meas = [0, 0, 1, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0]
    assert stance_onsets(meas, plan) == (3, 2)
    assert stance_onsets(meas, plan, start=3) == (2, 1)  # only the stance at 9 begins in
    assert stance_onsets(meas, plan, start=3, stop=9) == (0, 0)
    # an early landing before the window's start still counts for its stance
    early = [0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0]
    assert stance_onsets(early, plan, start=9) == (1, 1)
    # a foot that never lifts lands no more: no onset for the stance after its swing
    drag = [1] * 15
    assert stance_onsets(drag, plan) == (0, 2)


@given(
    stance=st.integers(3, 40),
    swing=st.integers(3, 40),
    shift=st.integers(-2, 2),
    offset=st.integers(0, 80),
    cycles=st.integers(2, 6),
)
def test_clean_contact_counts_one_touchdown_per_stance(stance, swing, shift, offset, cycles):
    # contact that is the plan moved by a couple of samples (landing and lift-off early or
    # late) is one touchdown per stance, wherever the whole-cycle window's edges fall
    assume(abs(shift) < min(stance, swing))
    period = stance + swing
    t = np.arange(offset, offset + period * (cycles + 1) + period // 2)
    plan = ((t % period) < stance)[:, None]
    meas = (((t - shift) % period) < stance)[:, None]
    f = contact_fidelity(meas, plan, cycle=period)
    assert f["touchdowns_per_stance"] == 1.0
    assert f["touchdowns_per_stance_by_leg"] == [1.0]


def test_the_running_tally_agrees_with_the_batch_figures():
    # the env's ContactTally and summarize()'s contact_fidelity are one definition: over the
    # same samples (every one, cycle=0) they give the same figures
    rng = np.random.default_rng(5)
    plan = rng.random((300, 4)) < 0.6
    meas = plan ^ (rng.random((300, 4)) < 0.1)
    tally = ContactTally(4)
    for c, p in zip(meas, plan, strict=True):
        tally.add(c.tolist(), p.tolist())
        running, batch = tally.figures(), contact_fidelity(meas[: tally.steps],
                                                           plan[: tally.steps])  # fmt: skip
        if batch["touchdowns_per_stance"] is not None:  # the same at every step
            assert running["touchdowns_per_stance"] == pytest.approx(
                batch["touchdowns_per_stance"])
    assert running["duty_by_leg"] == pytest.approx(batch["duty_by_leg"])
    assert running["touchdowns_per_stance"] == pytest.approx(batch["touchdowns_per_stance"])
    assert running["contact_timing_error"] == pytest.approx(batch["contact_timing_error"])


# ---------------------------------------------------------------------------------------
# a stance's first touchdown and final lift-off (the soles' pitch figures)


def _runs(n, *runs):
    """A (n,) bool array True on each inclusive (a, b) of ``runs``."""
    x = np.zeros(n, bool)
    for a, b in runs:
        x[a : b + 1] = True
    return x


def test_an_early_landing_and_a_trailing_toes_touch_belong_to_their_stances():
    """Planned stances 2-5 and 10-13. Contact 2-4 (the sole leaves early), a toe's touch
    at 6 (just after the planned lift-off: the first stance's end), a landing at 9 (one
    sample early: the second stance's start) that lasts to 13."""
    planned = _runs(16, (2, 5), (10, 13))
    contact = _runs(16, (2, 4), (6, 6), (9, 13))
    first, last = stance_contact_bounds(contact, planned)
    assert first.tolist() == [2, 9]
    assert last.tolist() == [6, 13]


def test_an_episode_as_far_from_two_stances_goes_to_the_earlier():
    planned = _runs(20, (2, 5), (12, 15))
    contact = _runs(20, (2, 5), (8, 9), (12, 15))  # 8-9: three samples from each
    first, last = stance_contact_bounds(contact, planned)
    assert first.tolist() == [2, 12]
    assert last.tolist() == [9, 15]


def test_the_records_edges_are_not_touchdowns_or_lift_offs():
    planned = _runs(10, (0, 3), (7, 9))
    contact = _runs(10, (0, 3), (6, 9))
    first, last = stance_contact_bounds(contact, planned)
    assert first.tolist() == [-1, 6]  # standing at the start: no touchdown
    assert last.tolist() == [3, -1]  # still down at the end: no lift-off


def test_without_a_planned_stance_each_episode_is_its_own_stance():
    contact = _runs(12, (1, 2), (5, 8))
    first, last = stance_contact_bounds(contact, np.zeros(12, bool))
    assert first.tolist() == [1, 5] and last.tolist() == [2, 8]
    none = stance_contact_bounds(np.zeros(12, bool), _runs(12, (1, 4)))
    assert none[0].size == 0 and none[1].size == 0


@given(st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), min_size=1, max_size=8))
def test_contact_as_planned_gives_the_planned_stances_bounds(gaps_and_lengths):
    """Contact exactly as planned: one stance per planned run, bounded by it."""
    runs, t = [], 0
    for gap, length in gaps_and_lengths:
        runs.append((t + gap, t + gap + length - 1))
        t += gap + length
    n = t + 1
    planned = _runs(n, *runs)
    first, last = stance_contact_bounds(planned, planned)
    assert first.tolist() == [a for a, _ in runs]
    assert last.tolist() == [b for _, b in runs]


def test_the_soles_pitch_figures_take_each_stances_first_touchdown_and_last_lift_off():
    """One sole, level ground: it lands at -10 deg (toe up) and stays flat, leaves the
    ground early flat, touches again at +15 deg just after its planned lift-off: the
    stance's touchdown is -10 deg and its lift-off +15, not the means over the three
    contact edges (-10 and +15 at touchdown, 0 and +15 at lift-off)."""
    n = 14
    planned = _runs(n, (3, 8))[:, None]
    contact = _runs(n, (3, 6), (9, 9))[:, None]
    pitch = np.zeros(n)
    pitch[3] = -10.0
    pitch[9] = 15.0
    quat = Rotation.from_euler("y", pitch[:, None], degrees=True).as_quat()[:, None, :]
    rec = {"contacts": contact, "planned_stance": planned, "foot_quat": quat,
           "feet": np.zeros((n, 1, 3))}  # fmt: skip

    class _Sole:
        heel, toe, width = 0.05, 0.15, 0.08

    got = sole_figures(rec, slice(0, n), [_Sole()])
    assert got["sole_pitch_deg_at_touchdown"] == pytest.approx(-10.0)
    assert got["sole_pitch_deg_at_liftoff"] == pytest.approx(15.0)
