"""The compiled body: one walker resolved once, handed to the robot, the run and the env."""

from __future__ import annotations

import numpy as np
import pytest

from gaitsim import urdf
from gaitsim.body import Body, compile_body
from gaitsim.generate import random_entry
from gaitsim.geometry import foot_pad, geometry
from gaitsim.sim.robot import Robot
from gaitsim.sim.world import World
from gaitsim.walker import resolve_entry


@pytest.mark.parametrize("walker", ["fox", "spider_bot", random_entry(3)])
def test_a_body_holds_what_the_modules_say(walker):
    entry = resolve_entry(walker)
    body = compile_body(walker)
    assert body.entry == entry and body.geometry is geometry(entry.gait)
    assert list(body.joint_names) == urdf.joint_names(entry)
    assert list(body.foot_links) == urdf.foot_link_names(entry)
    lo, hi = urdf.joint_limits(entry)
    assert np.array_equal(body.lower, lo) and np.array_equal(body.upper, hi)
    assert np.array_equal(body.effort, urdf.effort_limits(entry))
    assert body.pad == foot_pad(body.geometry)
    assert body.urdf_path.read_text() == urdf.build(entry)
    assert body.mass == pytest.approx(body.geometry.total_mass)
    assert body.n_legs == entry.gait.n_legs
    assert compile_body(body) is body  # a Body passes through


def test_the_robot_loads_the_body_it_is_given(tmp_path):
    body = compile_body("hound", cache_dir=tmp_path)
    assert body.urdf_path.parent == tmp_path
    with World() as world:
        robot = Robot(world, body)
        assert robot.body is body and robot.urdf_path == body.urdf_path
        assert robot.joint_names == list(body.joint_names)
        assert robot.foot_names == list(body.foot_links)
        assert np.allclose(robot.lower, body.lower) and np.allclose(robot.upper, body.upper)
        assert np.allclose(robot.effort, body.effort[:, None] * np.ones(3))


def test_the_env_compiles_its_walker_once():
    import gymnasium as gym

    env = gym.make("gaitsim/Walk-v0", walker="fox")
    try:
        env.reset(seed=0)
        inner = env.unwrapped
        assert isinstance(inner.body, Body)
        assert inner.robot.body is inner.body
        env.reset(seed=1)
        assert inner.robot.body is inner.body
    finally:
        env.close()
