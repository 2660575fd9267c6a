"""The Walker: planted feet in the world, body pose, joints, shortfall, modes and options."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gaitsim import (
    Arc,
    Flat,
    Rough,
    Schedule,
    Slope,
    Straight,
    TurnInPlace,
    Walker,
    foot_targets,
    leg_fk,
    load_catalog,
)
from gaitsim.feet import foot_hip_yaws, from_hip
from gaitsim.validate import stance_slide_mm, turn_radius

CAT = load_catalog()
NAMES = list(CAT)


def paths_for(entry):
    return {
        "straight": Straight(),
        "arc": Arc(0.5),
        "turn": TurnInPlace(turn_radius(entry)),
        "schedule": Schedule([(Straight(), 0.2), (Arc(-0.4), 0.3), (TurnInPlace(0.15), 0.1)]),
    }


TERRAINS = {
    "flat": Flat(),
    "slope": Slope.from_degrees(10.0, 30.0),
    "rough": Rough(0.02, wavelength=0.5, seed=11),
}


@pytest.mark.parametrize("terrain", list(TERRAINS))
@pytest.mark.parametrize("name", NAMES)
def test_planted_stance_feet_do_not_move(name, terrain):
    entry = CAT[name]
    for path_name, path in paths_for(entry).items():
        w = Walker(entry, TERRAINS[terrain], path)
        slide, short = stance_slide_mm(w, cycles=3)
        assert slide < 1e-6, (path_name, slide)
        assert short == 0.0, (path_name, short)


@pytest.mark.parametrize("name", NAMES)
def test_body_frame_mode_slides_on_tight_turns(name):
    entry = CAT[name]
    planted = stance_slide_mm(Walker(entry, path=TurnInPlace(turn_radius(entry))))[0]
    body = stance_slide_mm(Walker(entry, path=TurnInPlace(turn_radius(entry)), mode="body"))[0]
    arc = stance_slide_mm(Walker(entry, path=Arc(0.5), mode="body"))[0]
    assert planted < 1e-6
    assert body > 1.0  # the seed's swivel, above the walk test's 1 mm limit
    assert 0.1 < arc < body  # wider turns slide less
    # straight ahead both modes agree exactly
    d = np.linspace(0, 3, 97)
    a = Walker(entry).pose_at(d).feet
    b = Walker(entry, mode="body").pose_at(d).feet
    assert np.allclose(a, b, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_straight_flat_feet_are_the_seed_targets_in_the_world(name):
    entry = CAT[name]
    w = Walker(entry)
    d = np.linspace(-1, 2, 301)
    pose = w.pose_at(d)
    seed = foot_targets(entry.gait, d)
    expected = seed + np.stack([d, np.zeros_like(d), np.zeros_like(d)], -1)[:, None, :]
    expected[..., 2] += w.geometry.foot_radius  # feet are sphere centres resting on z = 0
    assert np.allclose(pose.feet, expected, atol=1e-12)


@pytest.mark.parametrize("terrain", list(TERRAINS))
def test_stance_feet_rest_on_the_ground(terrain):
    t = TERRAINS[terrain]
    w = Walker("fox", t, Arc(1.0))
    pose = w.pose_at(np.linspace(0, 2, 200))
    xy = pose.feet[..., :2]
    rest = (
        t.height(xy[..., 0], xy[..., 1])
        + w.geometry.foot_radius / t.normal(xy[..., 0], xy[..., 1])[..., 2]
    )
    assert np.allclose(pose.feet[..., 2][pose.stance], rest[pose.stance], atol=1e-12)
    assert np.all(pose.feet[..., 2][~pose.stance] >= rest[~pose.stance] - 1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_joints_reproduce_the_feet_and_every_foot_is_reachable(name):
    w = Walker(name)
    pose = w.pose_at(np.linspace(0, 2 * w.cycle, 241))
    assert pose.max_shortfall.max() == 0.0
    feet = leg_fk(w.geometry.chain, pose.joints)
    if w.soles is not None:  # legs with a hip yaw are turned about their mounts
        feet = from_hip(feet, w.geometry.chain.mount, foot_hip_yaws(w.soles, pose.ankle_joints))
    assert np.max(np.abs(feet - pose.feet_body)) < 1e-9
    # world foot links (the ankles for soles, else the feet) = body position + R @ feet_body
    world = pose.body_position[:, None] + np.einsum(
        "sij,slj->sli", pose.body_rotation, pose.feet_body
    )
    assert np.allclose(world, pose.ankles, atol=1e-12)
    if w.soles is None:
        assert np.array_equal(pose.ankles, pose.feet)


def test_body_height_and_bob_on_flat_ground():
    w = Walker("fox")
    g = w.geometry
    pose = w.pose_at(np.linspace(0, w.cycle, 600, endpoint=False))
    z = pose.body_position[:, 2]
    assert z.mean() == pytest.approx(g.foot_radius + g.hip_height, abs=1e-3 * g.hip_height)
    assert 0 < np.ptp(z) <= 4 * g.bob + 1e-12
    assert np.allclose(pose.body_rotation, np.eye(3))  # level ground, straight path


def test_body_attitude_follows_a_slope():
    a = math.radians(10)
    w = Walker("hound", Slope(a))
    pose = w.pose_at(np.linspace(0, 1, 50))
    x_axis = pose.body_rotation[..., 0]
    assert np.allclose(x_axis[:, 2], math.sin(a))  # nose up by the slope angle
    z_axis = pose.body_rotation[..., 2]
    assert np.allclose(z_axis, [-math.sin(a), 0, math.cos(a)])
    # the body rises with the ground
    assert np.polyfit(pose.distance, pose.body_position[:, 2], 1)[0] == pytest.approx(
        math.tan(a), rel=0.02
    )


def test_heading_follows_the_path():
    w = Walker("spider_bot", path=Arc(0.8))
    pose = w.pose_at(np.array([0.0, 0.4, 0.8]))
    assert np.allclose(pose.heading, [0, 0.5, 1.0])
    assert np.allclose(
        pose.body_rotation[:, :2, 0], np.c_[np.cos(pose.heading), np.sin(pose.heading)]
    )


def test_slope_lean_option():
    down = Slope.from_degrees(-14.0)
    plain = Walker("mechanic", down, lean=False).pose_at(1.0)  # tilted with the ground
    lean = Walker("mechanic", down, lean=True).pose_at(1.0)
    nose = lambda p: -math.degrees(math.asin(p.body_rotation[2, 0]))  # noqa: E731
    # the seed: on a 14 degree downhill the body leans a further 7 degrees forward
    assert nose(lean) - nose(plain) == pytest.approx(7.0, abs=0.05)
    up = Slope.from_degrees(10.0)
    back = nose(Walker("mechanic", up, lean=True).pose_at(1.0)) - nose(
        Walker("mechanic", up, lean=False).pose_at(1.0)
    )
    assert back == pytest.approx(-2.5, abs=0.05)


@pytest.mark.parametrize("deg", [-10.0, 5.0, 14.0])
def test_a_biped_holds_its_trunk_level_on_a_slope(deg):
    """A biped's default body attitude on a slope is level (its z axis straight up, its x
    axis along the heading, apart from its roll over the stance leg); off, it tilts with
    the ground; a quadruped's default still tilts with the ground."""
    slope = Slope.from_degrees(deg)
    d = np.linspace(0.0, 2.0, 41)
    biped = Walker("mechanic", slope, roll=0.0)
    assert biped.lean == "level"
    r = biped.pose_at(d).body_rotation
    assert np.allclose(r[:, :, 2], [0.0, 0.0, 1.0], atol=1e-12)
    assert np.allclose(r[:, 2, 0], 0.0, atol=1e-12)  # no pitch: the nose level
    tilted = Walker("mechanic", slope, roll=0.0, lean=False).pose_at(d).body_rotation
    # (the ground's normal is its gradient smoothed over the feet: 9.97 deg of a 10 deg slope)
    assert np.degrees(np.arcsin(tilted[:, 2, 0])) == pytest.approx(np.full(41, deg), abs=0.05)
    fox = Walker("fox", slope)
    assert fox.lean is False
    z = fox.pose_at(1.0).body_rotation[:, 2]
    assert math.degrees(math.acos(z[2])) == pytest.approx(abs(deg), abs=0.05)


def test_a_level_trunk_on_flat_ground_is_the_plain_pose_bit_for_bit():
    """On level ground "level" changes no number: the built-in bipeds' flat-ground runs are
    those they walked with the body tilted with the (level) ground."""
    d = np.linspace(0.0, 3.0, 61)
    a, b = Walker("mechanic").pose_at(d), Walker("mechanic", lean=False).pose_at(d)
    for field in ("body_position", "body_rotation", "joints", "feet"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field


def test_an_unknown_lean_names_the_choices():
    with pytest.raises(ValueError, match="off, ground, upright or level"):
        Walker("mechanic", lean="forward")


def test_biped_rolls_over_its_stance_leg():
    w = Walker("mechanic")
    assert w.roll > 0 and Walker("fox").roll == 0
    gait = w.gait
    left_mid = (0.5 * gait.duty - gait.legs[0].phase) % 1 * w.cycle  # left leg mid-stance
    pose = w.pose_at(left_mid)
    assert pose.stance[0] and not pose.stance[1]
    assert pose.body_rotation[2, 1] < -0.9 * math.sin(w.roll)  # left side (+y) tilted down
    assert Walker("mechanic", roll=0.0).pose_at(left_mid).body_rotation[2, 1] == pytest.approx(0)


@given(d=st.floats(-10, 10))
def test_pose_is_a_pure_function_of_distance(d):
    w = Walker("horn_beetle", Rough(0.01, seed=2), Arc(0.6))
    batch = w.pose_at(np.array([d - 0.1, d, d + 0.3]))
    single = w.pose_at(d)
    assert np.allclose(batch.feet[1], single.feet)
    assert np.allclose(batch.joints[1], single.joints)
    assert np.allclose(batch.body_quaternion[1], single.body_quaternion)


def test_vectorized_shapes():
    pose = Walker("spider_bot").pose_at(np.zeros((3, 4)))
    assert pose.feet.shape == (3, 4, 8, 3)
    assert pose.joints.shape == (3, 4, 8, 3)
    assert pose.body_position.shape == (3, 4, 3)
    assert pose.body_rotation.shape == (3, 4, 3, 3)
    assert pose.body_quaternion.shape == (3, 4, 4)
    assert pose.stance.shape == pose.shortfall.shape == (3, 4, 8)
    assert pose.max_shortfall.shape == (3, 4)


def test_overstriding_reports_shortfall():
    w = Walker("fox", speed_scale=3.0)
    pose = w.pose_at(np.linspace(0, w.cycle, 120))
    assert pose.max_shortfall.max() > 0.005
    assert np.all(np.isfinite(pose.joints))
    assert np.allclose(pose.max_shortfall, pose.shortfall.max(-1))


def test_bad_arguments():
    with pytest.raises(ValueError, match="speed_scale"):
        Walker("fox", speed_scale=0)
    with pytest.raises(ValueError, match="mode"):
        Walker("fox", mode="teleport")
    with pytest.raises(ValueError, match="swing"):
        Walker("fox", swing="square")
    with pytest.raises(KeyError, match="known"):
        Walker("unicorn")


@pytest.mark.parametrize("name", ["mechanic", "fox", "spider_bot"])
def test_attitude_on_rough_ground_is_continuous(name):
    """No step in the body attitude when a foot crosses a heightfield cell edge."""
    w = Walker(name, Rough(0.05, wavelength=0.6, size=4, seed=0))
    jumps = []
    for n in (1000, 100000):
        R = w.pose_at(np.linspace(0, w.cycle, n, endpoint=False)).body_rotation
        jumps.append(np.abs(np.diff(R, axis=0)).max())
    assert jumps[1] < jumps[0] / 50  # shrinks with the sample spacing, as a continuous curve


@pytest.mark.parametrize("name", ["fox", "mechanic", "spider_bot"])
@pytest.mark.parametrize(
    "terrain", [Flat(), Flat(0.37), Slope.from_degrees(-8.0, 70.0), Rough(0.02, seed=3)]
)
@pytest.mark.parametrize("options", [{}, {"lean": True, "sway": 0.5}, {"roll": 0.1}])
def test_body_at_is_pose_at_without_the_feet(name, terrain, options):
    """body_at (the controller's reference table) gives pose_at's body: on level ground it
    skips the feet plan and the ground normals, and must not change a number by it."""
    w = Walker(name, terrain, Arc(0.8), **options)
    d = np.linspace(-0.3, 2.5, 257)
    pose = w.pose_at(d)
    pos, rot, heading = w.body_at(d)
    assert np.allclose(pos, pose.body_position, rtol=0, atol=1e-15)
    assert np.array_equal(rot, pose.body_rotation)
    assert np.array_equal(heading, pose.heading)
