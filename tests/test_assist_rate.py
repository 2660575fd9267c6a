"""The body assist's attitude spring-damper stays within what its explicit application at
the physics rate can hold: its natural frequency times the step at most
ASSIST_STEP_BANDWIDTH (a small tall runner's grew without bound on MuJoCo)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from gaitsim.geometry import GRAVITY
from gaitsim.sim.bodymode import ASSIST_STEP_BANDWIDTH, AssistGains, BodyAssist


def _assist(mass: float, height: float, inertia: float, dt: float) -> BodyAssist:
    world = SimpleNamespace(dt=dt)
    robot = SimpleNamespace(mass=mass)
    return BodyAssist(world, robot, AssistGains(), height, inertia)


def test_a_large_walkers_assist_is_unchanged():
    # the raptor's figures: 12 kg, 0.427 m, 0.0866 kg m^2 at 240 Hz: 0.32 of the bound
    a = _assist(12.0, 0.4268, 0.0866, 1 / 240)
    k = AssistGains().attitude_hold * 12.0 * GRAVITY * 0.4268
    assert a.k_att == pytest.approx(k)
    assert a.d_att == pytest.approx(2 * math.sqrt(k * 0.0866))


def test_a_small_tall_walkers_assist_is_held_to_the_step():
    # generated walker 1051: 7.9 g, 0.088 m, 1.95e-6 kg m^2: omega dt 0.78 uncapped
    dt = 1 / 240
    a = _assist(0.007875, 0.08824, 1.95e-6, dt)
    assert math.sqrt(a.k_att / 1.95e-6) * dt == pytest.approx(ASSIST_STEP_BANDWIDTH)
    assert a.d_att == pytest.approx(2 * math.sqrt(a.k_att * 1.95e-6))  # critically damped


def test_the_small_runner_walks_on_mujoco():
    pytest.importorskip("mujoco")
    from gaitsim.generate import random_entry
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    s = simulate(random_entry(1051), seconds=2.0, engine="mujoco",
                 config=ControlConfig(body="assist")).summary  # fmt: skip
    assert s["finite"] and s["verdict"] == "walked", s["verdict_reason"]
