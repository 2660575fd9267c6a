"""The balancing sway (gaitsim.balance): the ZMP plan stays inside the support, the
pendulum path is the periodic solution, checked against hand-computed cases."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaitsim.balance import (
    SLIVER,
    SWAY_SAMPLES,
    nearest_with_margin,
    periodic_lip,
    sway_table,
    table_lookup,
    zmp_path,
)
from gaitsim.geometry import GRAVITY
from gaitsim.path import Arc, Straight, TurnInPlace
from gaitsim.polygon import nearest_in_hull
from gaitsim.sim.metrics import support_margin
from gaitsim.walker import Walker

coord = st.floats(-1.0, 1.0, allow_nan=False)
points = st.lists(st.tuples(coord, coord), min_size=1, max_size=8)


def _hull_of(pts):
    from gaitsim.balance import COLLINEAR_TOL
    from gaitsim.polygon import convex_hull

    return convex_hull(np.array(pts), COLLINEAR_TOL)


@given(points, st.tuples(coord, coord))
@settings(max_examples=200, deadline=None)
def test_the_nearest_hull_point_is_in_the_hull_and_no_hull_point_is_nearer(pts, p):
    hull = _hull_of(pts)
    q = nearest_in_hull(p, hull)
    # in the hull: the support margin of q (as a "centre of mass") is not negative
    assert support_margin(q, pts, [True] * len(pts)) >= -1e-9
    # and no point of the hull is nearer: sample the hull by convex combinations
    rng = np.random.default_rng(0)
    w = rng.dirichlet(np.ones(len(hull)), size=400)
    samples = w @ hull
    d = np.hypot(*(np.asarray(p) - q))
    assert np.all(np.hypot(*(samples - np.asarray(p)).T) >= d - 1e-9)


@given(points)
@settings(max_examples=100, deadline=None)
def test_the_planned_zmp_is_inside_the_support(pts):
    xy = np.array(pts)[None]
    z = zmp_path(xy, np.ones((1, len(pts)), bool))[0]
    assert support_margin(z, pts, [True] * len(pts)) >= -1e-9


def test_zmp_hand_cases():
    square = np.array([[[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]]])
    all_down = np.ones((1, 4), bool)
    # the body centre inside the support: the ZMP stays there (the centroid is there too)
    assert zmp_path(square, all_down)[0] == pytest.approx([0.0, 0.0])
    # a diagonal pair (1, 1)-(-1, -1) passes through the centre: the ZMP is the centre
    diag = np.array([[True, False, False, True]])
    assert zmp_path(square, diag)[0] == pytest.approx([0.0, 0.0])
    # two feet on the left, y = 1: nearest point (0, 1), already at the centroid
    left = np.array([[True, False, True, False]])
    assert zmp_path(square, left)[0] == pytest.approx([0.0, 1.0])
    # no foot down: the centre
    assert zmp_path(square, np.zeros((1, 4), bool))[0] == pytest.approx([0.0, 0.0])
    # two feet on a line that misses the centre, (1, 0.5)-(1, 1.5): nearest point (1, 0.5),
    # then 30 % of the way to their centroid (1, 1)
    line = np.array([[[1.0, 0.5], [1.0, 1.5]]])
    assert zmp_path(line, np.ones((1, 2), bool), inset=0.3)[0] == pytest.approx([1.0, 0.65])
    # the triangle (1, 1), (1, -1), (3, 0): its centroid (5/3, 0) lies 2/3 inside the edge
    # x = 1 and 4 / (3 sqrt 5) inside the slanted ones (the nearest); every edge moves in by
    # 0.8 of that, so the ZMP is the foot of the centre on the moved edge x = 1 + 0.8 *
    # 4 / (3 sqrt 5), which the slanted edges x +- 2 y <= 3 - 0.8 * 4 / 3 still admit;
    # then 30 % of the way on to the centroid
    tri = np.array([[[1.0, 1.0], [1.0, -1.0], [3.0, 0.0]]])
    near = 1.0 + 0.8 * 4.0 / (3.0 * math.sqrt(5.0))
    got = zmp_path(tri, np.ones((1, 3), bool), inset=0.3, margin=0.8)[0]
    assert got == pytest.approx([near + 0.3 * (5.0 / 3.0 - near), 0.0])
    assert zmp_path(tri, np.ones((1, 3), bool), inset=0.0, margin=0.8)[0] == pytest.approx(
        [near, 0.0]
    )


def test_the_margin_rule_by_hand_on_a_square():
    """The square [-1, 1]^2: its centre is 1 from every edge, so a margin of 0.8 leaves
    [-0.2, 0.2]^2: a point inside stays, one beside it goes to the edge, one past a corner
    to the corner."""
    sq = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])  # counter-clockwise
    assert nearest_with_margin((0.1, -0.05), sq, 0.8) == pytest.approx([0.1, -0.05])
    assert nearest_with_margin((1.0, 0.1), sq, 0.8) == pytest.approx([0.2, 0.1])
    assert nearest_with_margin((-3.0, 2.0), sq, 0.8) == pytest.approx([-0.2, 0.2])
    assert nearest_with_margin((0.7, 0.0), sq, 0.0) == pytest.approx([0.7, 0.0])
    # a full margin leaves the centre alone
    assert nearest_with_margin((5.0, -4.0), sq, 1.0) == pytest.approx([0.0, 0.0], abs=1e-9)
    # a cap of 0.5 m on the depth leaves [-0.5, 0.5]^2
    assert nearest_with_margin((1.0, 0.1), sq, 0.8, cap=0.5) == pytest.approx([0.5, 0.1])
    assert nearest_with_margin((1.0, 0.1), sq, 0.8, cap=2.0) == pytest.approx([0.2, 0.1])


polygon_pts = st.lists(st.tuples(coord, coord), min_size=3, max_size=8)


@given(polygon_pts, st.tuples(st.floats(-3, 3), st.floats(-3, 3)), st.floats(0.0, 1.0),
       st.one_of(st.just(math.inf), st.floats(0.0, 1.0)))  # fmt: skip
@settings(max_examples=200, deadline=None)
def test_the_margin_point_keeps_its_margin_and_no_such_point_is_nearer(pts, p, share, cap):
    """Checked against the support margin (metrics.support_margin, written apart): the
    result is ``share`` of the centroid's own margin (at most ``cap``) inside every edge,
    and no point of the hull that keeps that margin (sampled) is nearer ``p``."""
    hull = _hull_of(pts)
    flags = [True] * len(hull)
    if len(hull) < 3:
        return
    centre = hull.mean(axis=0)
    if support_margin(centre, hull, flags) <= SLIVER * np.max(np.abs(hull - centre)):
        return  # a sliver: test_a_sliver_gives_its_nearest_point
    need = min(share * support_margin(centre, hull, flags), cap)
    q = nearest_with_margin(p, hull, share, cap)
    assert support_margin(q, hull, flags) >= need - 1e-9
    rng = np.random.default_rng(1)
    samples = rng.dirichlet(np.ones(len(hull)), size=2000) @ hull
    keep = np.array([support_margin(s, hull, flags) >= need for s in samples])
    d = np.hypot(*(np.asarray(p) - q))
    assert np.all(np.hypot(*(samples[keep] - np.asarray(p)).T) >= d - 1e-9)



def test_a_sliver_gives_its_nearest_point():
    """A triangle 1.2e-7 m wide on a 2 m base (the sliver that once broke the property
    above by 2e-9 m: its shrunk corners are ill-conditioned) gives the hull's nearest
    point, at any share; a triangle 1e-3 m wide still keeps its margin."""
    sliver = np.array([[-1.0, 0.0], [1.0, 0.0], [0.3, 1.2e-7]])
    for share in (0.0, 0.5, 1.0):
        q = nearest_with_margin((0.2, 0.5), sliver, share)
        assert q == pytest.approx(nearest_in_hull(np.array([0.2, 0.5]), sliver), abs=1e-12)
    thin = np.array([[-1.0, 0.0], [1.0, 0.0], [0.3, 1e-3]])
    flags = [True] * 3
    q = nearest_with_margin((0.2, 0.5), thin, 0.5)
    need = 0.5 * support_margin(thin.mean(axis=0), thin, flags)
    assert support_margin(q, thin, flags) == pytest.approx(need, rel=1e-6)


@given(st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=64),
       st.floats(0.5, 20.0), st.floats(0.1, 3.0))  # fmt: skip
@settings(max_examples=100, deadline=None)
def test_the_pendulum_path_solves_its_periodic_equation(z, omega, period):
    z = np.array(z)
    c = periodic_lip(z, omega, period)
    h = period / len(z)
    lhs = np.roll(c, -1) - 2 * c + np.roll(c, 1)
    assert lhs == pytest.approx((omega * h) ** 2 * (c - z), abs=1e-9)


def test_a_constant_zmp_gives_a_still_body():
    assert periodic_lip(np.full((50, 2), 0.3), 6.0, 1.0) == pytest.approx(np.full((50, 2), 0.3))


def test_the_pendulum_path_matches_the_trots_hand_solution():
    """A trot's support line passes the body at an offset that runs linearly from -a to +a
    over each stance and back over the next (a triangle wave, slope s = 2a / T). The
    periodic pendulum solution is z - s / (omega cosh(omega T / 2)) sinh(omega (t - t_c))
    on each rising half, so at a corner it reaches a - (s / omega) tanh(omega T / 2)."""
    a, T, h = 0.033, 0.33, 0.24
    omega = math.sqrt(GRAVITY / h)
    n = 4000
    t = (np.arange(n) + 0.5) / n * 2 * T
    z = np.where(t < T, -a + 2 * a * t / T, a - 2 * a * (t - T) / T)
    c = periodic_lip(z, omega, 2 * T)
    s = 2 * a / T
    peak = a - s / omega * math.tanh(omega * T / 2)
    assert c.max() == pytest.approx(peak, rel=2e-3)
    assert c.min() == pytest.approx(-peak, rel=2e-3)
    assert peak < 0.3 * a  # the body sways far less than the line wanders


def test_the_table_is_periodic_and_interpolated():
    table = np.array([[0.0, 0.0], [1.0, 2.0], [2.0, 4.0], [1.0, 2.0]])
    assert table_lookup(table, 0.125) == pytest.approx([0.5, 1.0])
    assert table_lookup(table, 1.125) == pytest.approx([0.5, 1.0])
    assert table_lookup(table, -0.875) == pytest.approx([0.5, 1.0])
    assert table_lookup(table, np.array([[0.0, 0.5]])).shape == (1, 2, 2)


def test_walker_sway_moves_the_body_by_the_table():
    """The swayed body is the plain body plus the table's offset turned to the heading,
    the feet's places do not move, and a sway of 0 is the catalog's body path."""
    plain = Walker("fox", path=Arc(2.0))
    swayed = Walker("fox", path=Arc(2.0), sway=1.0)
    d = np.linspace(0.0, 3 * plain.cycle, 97)
    p0, _, heading = plain.body_at(d)
    p1, _, _ = swayed.body_at(d)
    local = table_lookup(swayed._balance_table(), d / swayed.cycle)
    c, s = np.cos(heading), np.sin(heading)
    world = np.stack([c * local[:, 0] - s * local[:, 1], s * local[:, 0] + c * local[:, 1]], 1)
    assert p1[:, :2] - p0[:, :2] == pytest.approx(world, abs=1e-12)
    assert p1[:, 2] == pytest.approx(p0[:, 2])
    assert swayed.feet_plan(d)[0] == pytest.approx(plain.feet_plan(d)[0])
    assert np.ptp(local[:, 1]) > 1e-3  # the fox does sway


def test_a_trot_turning_in_place_needs_no_sway():
    """Turning in place, a trot's diagonal pair is symmetric about the body centre, so its
    support line always passes under it."""
    table = Walker("hound", path=TurnInPlace(0.2), sway=1.0)._balance_table()
    assert np.abs(table).max() < 1e-9


def test_sway_table_is_built_from_the_walkers_own_feet():
    w = Walker("hound", path=Straight(), sway=1.0)
    table = w._balance_table()
    assert table.shape == (SWAY_SAMPLES, 2)
    # by hand: the stance feet seen from the body over one cycle
    g, geo = w.gait, w.geometry
    tt = np.arange(SWAY_SAMPLES)[:, None] / SWAY_SAMPLES + [leg.phase for leg in g.legs]
    tt -= np.floor(tt)
    down = tt < g.duty
    xy = np.broadcast_to(geo.homes[:, :2], (SWAY_SAMPLES, g.n_legs, 2)).copy()
    xy[..., 0] += np.where(down, 0.5 - tt / g.duty, 0.0) * g.stride
    period = g.stride / (g.duty * g.clip_speed)
    assert table == pytest.approx(sway_table(xy, down, period, geo.standing_height), abs=1e-12)


def test_the_sway_table_is_remembered_read_only_and_equal_to_working_it_out():
    """A new Walker of the same gait (every env reset, every run) gets the remembered
    table: the same numbers as the ZMP plan and pendulum worked out afresh, read-only, and
    a different plan (another stride) gets its own."""
    from gaitsim.balance import GRAVITY as G
    from gaitsim.balance import ZMP_MARGIN_G, _sway_table

    _sway_table.cache_clear()
    plan = Walker("mechanic", sway=1.0)._balance_plan()
    first = Walker("mechanic", sway=1.0)._balance_table()
    again = Walker("mechanic", sway=1.0)._balance_table()
    assert again is first and _sway_table.cache_info().hits == 1
    assert not first.flags.writeable
    local, stance, period, height, soles = plan
    fresh = periodic_lip(zmp_path(local, stance, soles=soles, cap=ZMP_MARGIN_G * height),
                         math.sqrt(G / height), period)  # fmt: skip
    assert np.array_equal(first, fresh)
    w = Walker("mechanic", sway=1.0)
    longer = Walker(dataclasses.replace(w.entry, gait=dataclasses.replace(
        w.gait, stride=1.2 * w.gait.stride)), sway=1.0)._balance_table()  # fmt: skip
    assert longer is not first and not np.array_equal(longer, first)


def test_zmp_on_soles_sits_on_the_sole_by_hand():
    """One left foot at (0.05, 0.1) on a sole reaching 0.02 back, 0.06 ahead, 0.03 to each
    side: with the toe cut to SOLE_ZMP_TOE (0.8: 0.048 ahead), the sole's corners span x
    0.03-0.098 and y 0.07-0.13, so the ZMP is their centre (0.064, 0.1), whatever
    ``inset``. Two feet side by side at (0, +-0.1): the centre of both, ((0.048 - 0.02) / 2,
    0). A point foot puts it at the foot itself."""
    from gaitsim import balance

    assert balance.SOLE_ZMP_TOE == 0.8
    feet = np.array([[[0.05, 0.1]]])
    st = np.array([[True]])
    sole = (0.02, 0.06, 0.03)
    assert zmp_path(feet, st, soles=[sole])[0] == pytest.approx((0.064, 0.1))
    assert zmp_path(feet, st, inset=0.0, soles=[sole])[0] == pytest.approx((0.064, 0.1))
    both = np.array([[[0.0, 0.1], [0.0, -0.1]]])
    got = zmp_path(both, np.ones((1, 2), bool), soles=[sole, sole])[0]
    assert got == pytest.approx((0.014, 0.0), abs=1e-12)
    assert zmp_path(feet, st)[0] == pytest.approx((0.05, 0.1))


def test_a_biped_plans_its_zmp_at_the_stance_sole_s_centre():
    """On one foot the mechanic's planned ZMP is that sole's centre with the toe cut to
    SOLE_ZMP_TOE: (SOLE_ZMP_TOE toe - heel) / 2 ahead of the ankle, level with it, so the
    stance ankle keeps reach both ways; the sway that follows it keeps the centre of mass
    within the feet's span sideways."""
    from gaitsim import Walker, balance

    w = Walker("mechanic", sway=1.0)
    local, stance, _, _, soles = w._balance_plan()
    zmp = zmp_path(local, stance, soles=soles)
    one = stance.sum(axis=1) == 1
    assert one.any()
    heel, toe, _ = soles[0]
    ahead = 0.5 * (balance.SOLE_ZMP_TOE * toe - heel)
    foot = local[one, np.argmax(stance[one], axis=1)]
    np.testing.assert_allclose(zmp[one], foot + np.array([ahead, 0.0]), atol=1e-12)
    sway = w._balance_table()
    assert np.abs(sway[:, 1]).max() < np.abs(local[..., 1]).max()


def test_the_sway_margin_is_capped_by_the_standing_height():
    """The margin's depth is at most ZMP_MARGIN_G standing heights: a low, wide tripod
    (the horn beetle, 58 mm tall on triangles whose centroids sit 43-83 mm inside) at
    twice its stride sways about as far as its height allows, not as far as its support
    is wide; uncapped it swayed three times its old amount and its stretched legs fell
    out of reach in physics."""
    from gaitsim import balance

    w = Walker("horn_beetle", speed_scale=2.0, sway=1.0)
    capped = w._balance_table()
    local, down, period, h, _ = w._balance_plan()
    assert balance.ZMP_MARGIN_G * h < 0.8 * 0.043  # the cap binds for this walker
    omega = math.sqrt(GRAVITY / h)
    free = periodic_lip(zmp_path(local, down), omega, period)
    assert np.ptp(capped, axis=0).max() < 0.75 * np.ptp(free, axis=0).max()
    assert capped == pytest.approx(periodic_lip(
        zmp_path(local, down, cap=balance.ZMP_MARGIN_G * h), omega, period), abs=1e-12)


def _gait_with_homes(homes):
    """A hexapod-like gait of small forward-kneed legs standing at ``homes`` (C: x forward,
    y left; z 0), alternate legs in phase."""
    from gaitsim.catalog import Gait, Leg

    legs = tuple(
        Leg(name=f"l{k}", side="L" if y >= 0 else "R", phase=0.5 * (k % 2), knee="forward",
            upper=0.05, lower=0.06, home=(float(x), float(y), 0.0))
        for k, (x, y) in enumerate(homes)
    )  # fmt: skip
    return Gait(stride=0.05, duty=0.6, lift=0.015, clip_speed=0.1, legs=legs)


def test_the_body_origin_by_hand():
    """Homes on a rectangle around the catalog's origin: the origin stays; the same homes
    moved 0.10 m ahead (every foot in front of it): the body is centred on their centroid,
    0.10 m ahead, and the geometry's mounts and homes are the unmoved ones; two feet side by
    side through the origin (a biped's) stay, two feet both 0.05 m ahead move it 0.05 m;
    a home on the polygon's edge through the origin leaves it."""
    from gaitsim.geometry import body_origin, geometry

    sq = np.array([[0.06, 0.06], [0.06, -0.06], [0.0, 0.06], [0.0, -0.06],
                   [-0.06, 0.06], [-0.06, -0.06]])  # fmt: skip
    centred = _gait_with_homes(sq)
    ahead = _gait_with_homes(sq + np.array([0.10, 0.0]))
    assert body_origin(centred) == (0.0, 0.0)
    assert body_origin(ahead) == pytest.approx((0.10, 0.0), abs=1e-12)
    g0, g1 = geometry(centred), geometry(ahead)
    assert g1.origin == pytest.approx((0.10, 0.0), abs=1e-12) and g0.origin == (0.0, 0.0)
    assert g1.homes == pytest.approx(g0.homes, abs=1e-12)
    assert g1.mounts == pytest.approx(g0.mounts, abs=1e-12)
    biped = np.array([[0.0, 0.06], [0.0, -0.06]])
    assert body_origin(_gait_with_homes(biped)) == (0.0, 0.0)
    both_ahead = _gait_with_homes(biped + np.array([0.05, 0.0]))
    assert body_origin(both_ahead) == pytest.approx((0.05, 0.0))
    assert body_origin(_gait_with_homes(sq + np.array([0.06, 0.0]))) == (0.0, 0.0)  # on its edge




# the lean into an arc: the body's centre moves toward the turn's centre by h v^2 / (r g)


@given(st.floats(0.3, 20.0), st.sampled_from([1.0, -1.0]), st.floats(0.2, 2.0))
@settings(max_examples=40, deadline=None)
def test_the_turn_shift_is_the_centripetal_zmp_offset_by_hand(radius, sign, speed_scale):
    """``Walker.turn_shift`` = standing height x v^2 / (r g) toward the centre (left for a
    positive radius), at most TURN_LEAN_MAX of the half track; the body of every pose on
    the arc is moved that far across its heading and nothing else changes."""
    from gaitsim.walker import TURN_LEAN_MAX

    arc = Arc(sign * radius)
    lean = Walker("hound", path=arc, speed_scale=speed_scale, turn_lean=1.0)
    plain = Walker("hound", path=arc, speed_scale=speed_scale)
    geo = lean.geometry
    v = lean.nominal_speed
    want = geo.standing_height * v * v / (sign * radius * GRAVITY)
    cap = TURN_LEAN_MAX * 0.5 * float(np.ptp(geo.homes[:, 1]))
    assert lean.turn_shift == pytest.approx(max(-cap, min(cap, want)), rel=1e-12)
    assert plain.turn_shift == 0.0 and lean.key != plain.key
    d = np.linspace(0.0, 2.0, 7)
    a, b = lean.body_at(d), plain.body_at(d)
    left = np.stack([-np.sin(b[2]), np.cos(b[2])], axis=-1)
    assert a[0][:, :2] - b[0][:, :2] == pytest.approx(lean.turn_shift * left, abs=1e-12)
    assert a[0][:, 2] == pytest.approx(b[0][:, 2]) and a[2] == pytest.approx(b[2])


def test_no_turn_shift_off_arcs_for_bipeds_or_past_the_half_track():
    """Straight paths and turning on the spot (the body does not travel round a centre)
    get none, bipeds none (their foot placement balances them), and a demand past the
    half track is cut to TURN_LEAN_MAX of it; the share must be 0-1.5."""
    from gaitsim.walker import TURN_LEAN_MAX

    for path in (Straight(), TurnInPlace(0.2)):
        assert Walker("fox", path=path, turn_lean=1.0).turn_shift == 0.0
    assert Walker("mechanic", path=Arc(0.5), turn_lean=1.0).turn_shift == 0.0
    tight = Walker("hound", path=Arc(0.01), turn_lean=1.0)
    half = 0.5 * float(np.ptp(tight.geometry.homes[:, 1]))
    assert tight.turn_shift == pytest.approx(TURN_LEAN_MAX * half)
    for bad in (-0.1, 1.6, math.nan):
        with pytest.raises(ValueError, match="turn_lean must be a share"):
            Walker("fox", turn_lean=bad)
