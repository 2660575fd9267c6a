"""Sideways pushes: the velocity change they make, their validation on every entry point
(simulate, the CLI, sweeps, the env), and walkers that survive or fall from them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gaitsim.sim.run import RunError, simulate


def _lateral_jump(result, at: float) -> float:
    """The change of the base's velocity toward its left across the push's control step."""
    rec, k = result.record, round(at / result.dt)
    yaw = np.unwrap(
        [math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)) for x, y, z, w in
         rec["base_quat"][k - 1 : k + 1]]
    )  # fmt: skip
    left = np.array([-math.sin(yaw[0]), math.cos(yaw[0])])
    v = rec["base_vel"][:, :2]
    return float((v[k] - v[k - 1]) @ left)


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_a_push_is_an_impulse_through_the_centre_of_mass(engine):
    """GaitController.push changes the body's velocity by exactly the push toward its left,
    its spin and the joints' velocities unchanged (every link gets the same change)."""
    import gymnasium as gym

    import gaitsim  # noqa: F401

    pytest.importorskip(engine)
    env = gym.make("gaitsim/Walk-v0", walker="fox", engine=engine)
    env.reset(seed=0)
    for _ in range(30):
        env.step(np.zeros(0, np.float32))
    ctl = env.unwrapped.controller
    before = ctl.sensed
    ctl.push(0.3)
    after = ctl.sensed
    x, y, z, w = before.quaternion
    yaw = math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    dv = np.subtract(after.linear_velocity, before.linear_velocity)
    np.testing.assert_allclose(dv, [-0.3 * math.sin(yaw), 0.3 * math.cos(yaw), 0.0], atol=1e-9)
    np.testing.assert_allclose(after.angular_velocity, before.angular_velocity, atol=1e-9)
    np.testing.assert_allclose(after.joint_velocities, before.joint_velocities, atol=1e-9)
    env.close()


@pytest.mark.parametrize("velocity", [0.3, -0.3])
def test_a_push_in_a_run(velocity):
    """In simulate(): after the control step that follows the push the body still moves
    toward the push's side by most of it (the legs' forces in that step take the rest)."""
    base = simulate("horn_beetle", seconds=2.0)
    pushed = simulate("horn_beetle", seconds=2.0, push_at=1.0, push_velocity=velocity)
    jump = _lateral_jump(pushed, 1.0) - _lateral_jump(base, 1.0)
    assert 0.5 <= jump / velocity <= 1.0
    s = pushed.summary
    assert s["push_at_s"] == 1.0 and s["push_velocity_m_s"] == velocity
    assert base.summary["push_at_s"] is None and base.summary["push_velocity_m_s"] == 0.0


def test_the_fox_survives_a_small_push_and_falls_from_a_large_one():
    small = simulate("fox", seconds=5.0, push_at=2.0, push_velocity=0.2).summary
    large = simulate("fox", seconds=5.0, push_at=2.0, push_velocity=3.0).summary
    assert small["verdict"] == "walked"
    assert large["fell"] and large["time_to_fall_s"] > 2.0


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"push_velocity": 0.2}, "needs push_at"),
        ({"push_at": 5.0, "push_velocity": 0.2}, "push_at must be a time"),
        ({"push_at": -1.0, "push_velocity": 0.2}, "push_at must be a time"),
        ({"push_at": 1.0, "push_velocity": math.nan}, "push_velocity must be a number"),
    ],
)
def test_a_push_that_cannot_be_is_refused(kw, message):
    with pytest.raises(RunError, match=message):
        simulate("fox", seconds=2.0, **kw)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--push-velocity", "0.2"], "both --push-at"),
        (["--push-at", "1"], "both --push-at"),
        (["--push-at", "3", "--push-velocity", "0.2"], "within the run"),
        (["--push-at", "1", "--push-velocity", "nan"], "--push-velocity"),
    ],
)
def test_the_cli_checks_a_push(argv, message, capsys):
    from gaitsim.cli import main

    assert main(["walk", "fox", "--seconds", "2", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_the_cli_reports_the_push(capsys):
    from gaitsim.cli import main

    assert main(["walk", "fox", "--seconds", "2", "--push-at", "1", "--push-velocity",
                 "-0.1", "-q"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "-0.10 m/s sideways at 1 s" in out


def test_the_push_sweep(tmp_path):
    from gaitsim.sweep import SweepError, load_sweep, parse_sweep

    push = load_sweep("push")
    assert push.parameter == "push_velocity" and push.base["push_at"] < push.seconds
    assert min(push.values) < 0 < max(push.values)
    late = {"name": "p", "parameter": "push_velocity", "values": [0.2], "walkers": ["fox"],
            "seeds": 1, "seconds": 4.0}  # fmt: skip
    with pytest.raises(SweepError, match="after the 4 s episodes end"):
        parse_sweep(late)  # the default push comes at 5 s
    parse_sweep({**late, "base": {"push_at": 2.0}})


def test_the_env_pushes_each_episode():
    import gymnasium as gym

    import gaitsim  # noqa: F401

    env = gym.make("gaitsim/Walk-v0", walker="horn_beetle", push_at=0.5,
                   push_velocity=(-0.4, 0.4))  # fmt: skip
    _, info = env.reset(seed=3)
    v = info["params"]["push_velocity"]
    assert -0.4 <= v <= 0.4
    ctl = env.unwrapped.controller
    before = None
    for _ in range(60):
        if before is None and ctl.t >= 0.5 - 1e-9:
            before = np.array(ctl.sensed.linear_velocity[:2])
            env.step(np.zeros(0, np.float32))
            after = np.array(env.unwrapped.controller.sensed.linear_velocity[:2])
        else:
            env.step(np.zeros(0, np.float32))
    assert abs(np.linalg.norm(after - before) - abs(v)) < 0.35 * abs(v) + 0.02
    _, info = env.reset(seed=3, options={"push_velocity": 0.25})
    assert info["params"]["push_velocity"] == 0.25
    with pytest.raises(ValueError, match="needs push_at"):
        gym.make("gaitsim/Walk-v0", push_velocity=0.2)
