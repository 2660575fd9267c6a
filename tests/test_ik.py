"""Two-bone IK and the 3-joint leg chains: hand values, no NaN, FK(IK(p)) == p, knee sides."""

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from gaitsim import leg_fk, leg_ik, load_catalog, two_bone
from gaitsim.geometry import geometry
from gaitsim.ik import (
    KNEE_BACK,
    KNEE_FORWARD,
    KNEE_UP,
    REACH_MARGIN,
    LegChain,
    ScalarLeg,
    shortfall,
)

lengths = st.floats(1e-3, 10.0)
finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12)


def test_two_bone_hand_values():
    hip, knee = two_bone(1.0, 1.0, math.sqrt(2))
    assert knee == pytest.approx(math.pi / 2)
    assert hip == pytest.approx(math.pi / 4)
    hip, knee = two_bone(3.0, 4.0, 5.0)  # right angle at the knee
    assert knee == pytest.approx(math.pi / 2)
    assert hip == pytest.approx(math.atan2(4, 3))
    # out of reach: clamped to l1 + l2 - 1e-4, nearly straight
    hip, knee = two_bone(1.0, 1.0, 5.0)
    assert knee == pytest.approx(math.pi, abs=0.03)
    assert hip == pytest.approx(0.0, abs=0.02)


@given(l1=lengths, l2=lengths, d=finite)
def test_two_bone_never_nan(l1, l2, d):
    hip, knee = two_bone(l1, l2, d)
    assert np.isfinite(hip) and np.isfinite(knee)
    assert 0 <= knee <= math.pi and 0 <= hip <= math.pi


def test_two_bone_vectorized():
    d = np.linspace(-1, 3, 50).reshape(5, 10)
    hip, knee = two_bone(1.0, 1.2, d)
    assert hip.shape == knee.shape == (5, 10)
    assert np.all(np.isfinite(hip)) and np.all(np.isfinite(knee))


def chain_of(kind, l1, l2, mount=(0.0, 0.0, 0.0), yaw0=0.0):
    return LegChain(
        np.array([mount], float),
        np.array([l1]),
        np.array([l2]),
        np.array([kind]),
        np.array([yaw0 if kind == KNEE_UP else 0.0]),
    )


KINDS = [KNEE_UP, KNEE_FORWARD, KNEE_BACK]


@pytest.mark.parametrize("kind", KINDS, ids=["up", "forward", "back"])
@given(
    l1=st.floats(0.02, 1.0),
    l2=st.floats(0.02, 1.0),
    yaw0=st.floats(-math.pi, math.pi),
    q=st.tuples(st.floats(-1.4, 1.4), st.floats(-2.0, 2.0), st.floats(-2.8, 2.8)),
    mount=st.tuples(st.floats(-1, 1), st.floats(-1, 1), st.floats(-1, 1)),
)
def test_fk_of_ik_is_identity_for_reachable_points(kind, l1, l2, yaw0, q, mount):
    chain = chain_of(kind, l1, l2, mount, yaw0)
    p = leg_fk(chain, np.array([q]))
    dist = np.linalg.norm(p[0] - chain.mount[0])
    assume(abs(l1 - l2) + 2 * REACH_MARGIN < dist < l1 + l2 - 2 * REACH_MARGIN)
    qi, short = leg_ik(chain, p)
    assert short[0] == 0.0
    assert np.max(np.abs(leg_fk(chain, qi) - p)) < 1e-9


@pytest.mark.parametrize("kind", KINDS, ids=["up", "forward", "back"])
@given(
    direction=st.tuples(st.floats(-1, 1), st.floats(-1, 1), st.floats(-1, -0.05)),
    extra=st.floats(0.001, 5.0),
)
def test_unreachable_target_straightens_toward_it(kind, direction, extra):
    chain = chain_of(kind, 0.3, 0.25, yaw0=0.4)
    u = np.array(direction) / np.linalg.norm(direction)
    dist = 0.55 + extra
    q, short = leg_ik(chain, u * dist)
    assert short[0] == pytest.approx(dist - 0.55)
    foot = leg_fk(chain, q)[0]
    # the foot lies on the hip->target line, at full reach less the clamp margin
    assert np.allclose(foot, u * (0.55 - REACH_MARGIN), atol=1e-9)


def test_too_close_target_reports_shortfall():
    chain = chain_of(KNEE_FORWARD, 0.3, 0.1)
    q, short = leg_ik(chain, [[0.0, 0.0, -0.05]])
    assert short[0] == pytest.approx(0.2 - 0.05)
    assert np.all(np.isfinite(q))


def knee_points(chain, q):
    return leg_fk(dataclasses.replace(chain, lower=np.zeros_like(chain.lower)), q)


def test_knee_sides_match_their_kind():
    target = np.array([[0.05, 0.02, -0.3]])
    for kind, axis, sign in [(KNEE_FORWARD, 0, 1), (KNEE_BACK, 0, -1), (KNEE_UP, 2, 1)]:
        chain = chain_of(kind, 0.2, 0.2, yaw0=0.0)
        p = target if kind != KNEE_UP else np.array([[0.25, 0.05, -0.15]])
        q, _ = leg_ik(chain, p)
        knee = knee_points(chain, q)[0]
        # the knee's offset from the hip->foot line points the stated way
        u = p[0] / np.linalg.norm(p[0])
        off = knee - np.dot(knee, u) * u
        assert sign * off[axis] > 0.05, (kind, off)


def test_zero_angles_pose():
    # a hanging leg hangs straight down; an 'up' leg points out along its neutral azimuth
    hang = chain_of(KNEE_FORWARD, 0.2, 0.3)
    assert np.allclose(leg_fk(hang, np.zeros((1, 3))), [[0, 0, -0.5]])
    out = chain_of(KNEE_UP, 0.2, 0.3, yaw0=math.pi / 2)
    assert np.allclose(leg_fk(out, np.zeros((1, 3))), [[0, 0.5, 0]])
    # positive hip pitch swings a hanging leg backward and lowers an outstretched one
    assert leg_fk(hang, [[0, 0.3, 0]])[0, 0] < 0
    assert leg_fk(out, [[0, 0.3, 0]])[0, 2] < 0


@pytest.mark.parametrize(
    "name", ["fox", "hound", "mechanic", "raptor", "horn_beetle", "spider_bot"]
)
def test_builtin_legs_round_trip_vectorized(name):
    geo = geometry(load_catalog()[name].gait)
    rng = np.random.default_rng(0)
    noise = rng.normal(size=(1000, *geo.homes.shape)) * 0.05 * geo.chain.reach[:, None]
    p = geo.homes + noise
    q, short = leg_ik(geo.chain, p)
    assert q.shape == (1000, len(geo.homes), 3)
    ok = short == 0
    assert ok.mean() > 0.99
    assert np.max(np.abs(leg_fk(geo.chain, q) - p)[ok]) < 1e-9
    assert np.allclose(shortfall(geo.chain, p), short)


@pytest.mark.parametrize("name", ["fox", "raptor", "spider_bot"])
@given(scale=st.sampled_from([0.0, 1e-9, 0.5, 1.0, 3.0, 1e6]), seed=st.integers(0, 2**16))
def test_scalar_leg_equals_vectorized_everywhere(name, scale, seed):
    """ScalarLeg (the control loop's solver) against leg_ik from the mount itself out to far
    beyond reach: the clamps, the shortfall and no NaN."""
    from gaitsim.ik import ScalarLeg

    ch = geometry(load_catalog()[name].gait).chain
    direction = np.random.default_rng(seed).normal(size=(ch.n_legs, 3))
    p = ch.mount + scale * (ch.upper + ch.lower)[:, None] * direction
    q, short = leg_ik(ch, p)
    for i in range(ch.n_legs):
        leg = ScalarLeg(ch.mount[i], ch.upper[i], ch.lower[i], ch.kind[i], ch.yaw0[i])
        one = leg.solve(*p[i])
        assert all(math.isfinite(v) for v in one)
        assert np.allclose(one[:3], q[i], atol=1e-9)
        assert one[3] == pytest.approx(short[i], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name", ["fox", "raptor", "spider_bot"])
@given(offset=st.tuples(st.floats(-0.3, 0.3), st.floats(-0.3, 0.3), st.floats(-0.3, 0.3)))
def test_scalar_ik_equals_vectorized(name, offset):
    from gaitsim.ik import leg_ik_one

    ch = geometry(load_catalog()[name].gait).chain
    p = geometry(load_catalog()[name].gait).homes + np.array(offset)
    q, short = leg_ik(ch, p)
    for i in range(ch.n_legs):
        one = leg_ik_one(ch.mount[i], ch.upper[i], ch.lower[i], ch.kind[i], ch.yaw0[i], *p[i])
        assert np.allclose(one[:3], q[i], atol=1e-12)
        assert one[3] == pytest.approx(short[i], abs=1e-12)


@pytest.mark.parametrize("kind", [0, 1, 2])
def test_scalar_fk_and_jacobian_match_the_vectorized_fk(kind):
    """ScalarLeg.fk equals leg_fk, and ScalarLeg.jacobian its central differences."""
    rng = np.random.default_rng(kind)
    for _ in range(20):
        mount = rng.normal(size=3) * 0.1
        l1, l2 = rng.uniform(0.02, 0.5, 2)
        yaw0 = float(rng.uniform(-np.pi, np.pi)) if kind == KNEE_UP else 0.0
        leg = ScalarLeg(mount, l1, l2, kind, yaw0)
        chain = LegChain(mount[None], np.array([l1]), np.array([l2]), np.array([kind]),
                         np.array([yaw0]))  # fmt: skip
        q = rng.uniform(-1.5, 1.5, 3)
        assert np.allclose(leg.fk(*q), leg_fk(chain, q[None])[0], atol=1e-12)
        h = 1e-6
        cols = []
        for j in range(3):
            dq = np.zeros(3)
            dq[j] = h
            up, down = leg_fk(chain, (q + dq)[None])[0], leg_fk(chain, (q - dq)[None])[0]
            cols.append((up - down) / (2 * h))
        assert np.allclose(np.ravel(cols), leg.jacobian(*q), atol=1e-7)
