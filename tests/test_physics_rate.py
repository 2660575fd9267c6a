"""A walker's own physics rate (``geometry.physics_hz``) and gains that mean the same at any
rate (``sim.common.gain_scale``).

A foot that has just landed rings on its pad with only its own and its shin's mass on it;
the physics step must sample that ring (Nyquist) or the contact flickers. Position gains are
PyBullet's per-step numbers at 240 Hz, scaled for the world's own step, so raising the
rate sharpens the contact without stiffening the legs.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaitsim.body import compile_body
from gaitsim.generate import random_entry, scaled_entry
from gaitsim.geometry import (
    CLOCK_GAIN_SLACK,
    CONTROL_HZ,
    CONTROL_STEPS_PER_FALL_TIME,
    PAD_SAMPLES,
    PHYSICS_HZ,
    SOLE_CLOCK_FALL_TIME,
    SPHERE_CLOCK_FALL_TIME,
    clock_rate_multiple,
    control_hz,
    fall_time,
    foot_pad,
    physics_hz,
    servo_clock,
    unsprung_hz,
)
from gaitsim.sim.common import gain_scale
from gaitsim.sim.engine import load_robot, make_world
from gaitsim.terrain import Flat

BUILT_IN = ("fox", "hound", "horn_beetle", "spider_bot", "mechanic", "raptor")
ENGINES = ["pybullet"] + (["mujoco"] if __import__("importlib").util.find_spec("mujoco") else [])


# ---------------------------------------------------------------------------- the rule
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000))
def test_the_rate_is_the_smallest_multiple_of_240_hz_that_samples_a_bare_foot(seed):
    geo = compile_body(random_entry(seed)).geometry
    hz, ring = physics_hz(geo), unsprung_hz(geo)
    k = hz / PHYSICS_HZ
    assert k == int(k) and k >= 1, hz
    assert hz >= PAD_SAMPLES * ring - 1e-6, (hz, ring)
    assert k == 1 or hz - PHYSICS_HZ < PAD_SAMPLES * ring, (hz, ring)  # the smallest


def test_the_bare_foot_s_ring_by_hand():
    """Generated walker 56 (80 g, a 9 mm shin on a 4 mm foot): its pad's stiffness, its
    foot and lightest shin, and the frequency from them, computed here step by step."""
    geo = compile_body(random_entry(56)).geometry
    k, _ = foot_pad(geo)
    # the pad: an even share of the weight sinks 10 % of the foot radius
    share = geo.total_mass / len(geo.homes)
    assert k == pytest.approx(share * 9.81 / (0.1 * geo.foot_radius))
    m = geo.foot_mass + geo.leg_masses[:, 1].min()
    ring = math.sqrt(k / m) / (2 * math.pi)
    assert unsprung_hz(geo) == pytest.approx(ring)
    assert 150 < ring < 160  # 155 Hz: above 240 Hz's Nyquist limit of 120 Hz
    assert physics_hz(geo) == 480.0


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_built_in_walkers_keep_240_hz(name):
    body = compile_body(name)
    assert body.sim_hz == 240.0
    assert unsprung_hz(body.geometry) < PHYSICS_HZ / PAD_SAMPLES


def test_gain_scale():
    assert gain_scale(1.0 / 240.0) == 1.0  # exactly: runs at 240 Hz are unchanged
    assert gain_scale(1.0 / 480.0) == pytest.approx(0.5)
    assert gain_scale(1.0 / 720.0) == pytest.approx(1.0 / 3.0)


# ---------------------------------------------------------------------------- the engines
def _closed_after(engine: str, sim_hz: float, seconds: float, scale=None) -> float:
    """The share of a 0.2 rad error a fox leg in the air (fixed base) closes in
    ``seconds`` under kp = 0.05 (the stance legs' gain); ``scale`` overrides gain_scale."""
    with make_world(engine, Flat(), time_step=1.0 / sim_hz) as world:
        robot = load_robot(world, "fox", base_position=(0, 0, 2.0), fixed_base=True)
        if scale is not None:
            robot.gain_scale = scale
        target = robot.home_joints + 0.2
        robot.command_positions(target, kp=0.05)
        world.step(round(seconds * sim_hz))
        err = np.abs(target - robot.joint_state()[0]).mean()
    return 1.0 - err / 0.2


@pytest.mark.parametrize("engine", ENGINES)
def test_a_gain_closes_the_same_error_per_second_at_any_rate(engine):
    """kp = 0.05 closes the same share of an error in 50 ms at 240 and at 480 Hz (within
    0.05); unscaled, the 480 Hz leg closes far more (PyBullet's motor closes kp of the
    error per step, twice as many steps)."""
    at240 = _closed_after(engine, 240.0, 0.05)
    at480 = _closed_after(engine, 480.0, 0.05)
    unscaled = _closed_after(engine, 480.0, 0.05, scale=1.0)
    assert 0.3 < at240 < 0.7, at240  # 1 - 0.95 ** 12 = 0.46 for a leg in the air
    assert abs(at480 - at240) < 0.05, (at240, at480)
    assert unscaled - at240 > 0.1, (at240, unscaled)


# ---------------------------------------------------------------------------- the runs
def test_runs_report_their_rate_and_check_it():
    from gaitsim.sim.run import RunError, simulate

    assert simulate("fox", seconds=0.1).summary["sim_hz"] == 240.0
    assert simulate("fox", seconds=0.1, sim_hz=480.0).summary["sim_hz"] == 480.0
    assert simulate(random_entry(56), seconds=0.1).summary["sim_hz"] == 480.0
    for bad in (0.0, -240.0, float("nan"), "240"):
        with pytest.raises(RunError, match="sim_hz"):
            simulate("fox", seconds=0.1, sim_hz=bad)


def test_the_env_takes_the_walker_s_rate():
    import gymnasium as gym

    env = gym.make("gaitsim/Walk-v0", walker=random_entry(56))
    try:
        assert env.unwrapped.arena.sim_hz == 480.0
        env.reset(seed=0)
        env.step(env.action_space.sample())
    finally:
        env.close()
    env = gym.make("gaitsim/Walk-v0", walker="fox", sim_hz=480.0)
    assert env.unwrapped.arena.sim_hz == 480.0
    env.close()
    with pytest.raises(ValueError, match="sim_hz"):
        gym.make("gaitsim/Walk-v0", walker="fox", sim_hz=-1.0)


def test_a_walker_whose_bare_feet_ring_fast_lands_cleanly_at_its_own_rate():
    """Seed 56, 5 s flat, free body, at its own 480 Hz: each stance is one contact. At its
    old hip height (0.0437 m, before the knee floor raised it to 0.0448 m) it flickered at
    240 Hz, 2.3 touchdowns per stance over 10 s; with its knees off the ground it lands
    cleanly at 240 Hz too (1.00), as do the other generated walkers whose rate is 480 Hz
    that were tried (3, 31, 36, 121, 129, 135, 168: 0.92-1.03 at either rate)."""
    from gaitsim.sim.run import simulate

    entry = random_entry(56)
    own = simulate(entry, seconds=5.0).summary
    assert own["sim_hz"] == 480.0 and own["verdict"] == "walked", own["verdict_reason"]
    assert own["touchdowns_per_stance"] <= 1.2, own["touchdowns_per_stance"]
    assert own["contact_timing_error"] <= 0.10


@pytest.mark.slow
def test_a_small_runner_s_soles_are_sampled_three_times_a_ring():
    """Generated runner 450 (6.7 g, 54 mm standing, duty 0.42, on soles that ring at
    201 Hz; 220 Hz on stop 46's narrower soles), 10 s flat under the assist: at 480 Hz
    (2.4 physics steps a period) it runs away (stop 47: speed ratio -31, heading error
    65 deg, verdict no_progress; stop 46: +-60 deg every step, speed ratio 6.9); at its
    own rate, three steps a period (720 Hz), it walks."""
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    entry = random_entry(450)
    body = compile_body(entry)
    ring = unsprung_hz(body.geometry, stiffness=body.sole_stiffness)
    assert 190.0 < ring < 210.0 and body.sim_hz == 720.0
    s = simulate(entry, seconds=10.0, config=ControlConfig(body="assist")).summary
    assert s["sim_hz"] == 720.0 and s["verdict"] == "walked", s["verdict_reason"]
    assert 0.9 < s["speed_ratio"] < 1.1 and s["heading_error_deg"] < 10.0


def test_gaitsim_walk_prints_and_reports_the_rate(capsys):
    import json

    from gaitsim.cli import main

    main(["walk", "fox", "-q", "--seconds", "0.2"])
    assert any(line.split()[:3] == ["physics", "rate", "(Hz)"] and line.split()[-1] == "240"
               for line in capsys.readouterr().out.splitlines())  # fmt: skip
    main(["walk", "fox", "-q", "--json", "--seconds", "0.2"])
    assert json.loads(capsys.readouterr().out)["sim_hz"] == 240.0


# ---------------------------------------------------------------------------- control rate
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([1.0, 0.3, 0.1, 0.03]))
def test_the_control_rate_is_the_smallest_doubling_of_60_hz_that_follows_the_fall(seed, k):
    """Any walker, at any size: 60 Hz times a power of two, at least
    CONTROL_STEPS_PER_FALL_TIME steps per fall time and the servo clock's rate multiple,
    half of it less (or 60 Hz), and a whole number of physics steps."""
    from gaitsim.walker import resolve_entry

    body = compile_body(scaled_entry(random_entry(seed), k))
    geo = body.geometry
    clock = servo_clock(geo, body.soles is not None)
    for c in {1.0, clock}:
        hz = control_hz(geo, c)
        j = math.log2(hz / CONTROL_HZ)
        assert j == int(j) and j >= 0, hz
        assert hz * fall_time(geo) >= CONTROL_STEPS_PER_FALL_TIME - 1e-9
        floor = CONTROL_HZ * clock_rate_multiple(c)
        assert hz >= floor
        assert hz == floor or hz / 2 * fall_time(geo) < CONTROL_STEPS_PER_FALL_TIME
        control, sim = body.rates(c)
        assert control == hz and sim % hz == 0.0 and sim >= PHYSICS_HZ * floor / CONTROL_HZ
    assert (body.control_hz, body.sim_hz) == body.rates(1.0)
    assert control_hz(compile_body(resolve_entry("fox")).geometry) == CONTROL_HZ


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_built_in_walkers_keep_60_hz_control(name):
    assert compile_body(name).control_hz == 60.0


def test_the_control_rate_of_a_fifth_of_a_fox_by_hand():
    """The fox stands 0.164 m tall (fall time sqrt(0.164 / 9.81) = 0.129 s: 7.8 control
    steps at 60 Hz); at a fifth of its size it stands 0.034 m (its foot radius is held at
    gaitsim's smallest, so a little more than a fifth: 0.059 s, 3.5 steps at 60 Hz, 7.1 at
    120), so it gets 120 Hz; its bare feet ring at 104 Hz, so its physics runs at 480 Hz
    (three steps a ring: 312 Hz, rounded up to a multiple of 240)."""
    from gaitsim.walker import resolve_entry

    fox = compile_body("fox").geometry
    assert fall_time(fox) == pytest.approx(math.sqrt(fox.standing_height / 9.81))
    small = compile_body(scaled_entry(resolve_entry("fox"), 0.2))
    h = small.geometry.standing_height
    assert h == pytest.approx(0.034, abs=1e-3)
    assert 60.0 * math.sqrt(h / 9.81) < 4.5 <= 120.0 * math.sqrt(h / 9.81)
    assert small.control_hz == 120.0 and small.sim_hz == 480.0
    assert 100.0 < unsprung_hz(small.geometry) < 110.0


def test_a_fifth_of_a_fox_walks_at_its_own_control_rate_and_falls_at_60_hz():
    """The fox at a fifth of its size (legs 3-4 cm, 0.13 m/s), 5 s flat, free, on 240 Hz
    physics: at its own 120 Hz control it walks (speed ratio 1.00); held to 60 Hz, 3.5
    control steps per fall time, it falls (at 4.65 s). Measured over the built-in walkers
    at 0.05-0.5 of their size: 22 of 30 walk at 60 Hz, 26 at their own rates, none lost.
    (On its own physics rate since stop 38, 480 Hz, it walks at 60 Hz control too: the
    finer physics covers part of what the control rate was raised for.)"""
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate
    from gaitsim.walker import resolve_entry

    small = scaled_entry(resolve_entry("fox"), 0.2)
    own = simulate(small, seconds=5.0, sim_hz=240.0).summary
    assert own["control_hz"] == 120.0 and own["verdict"] == "walked", own["verdict_reason"]
    slow = simulate(small, seconds=5.0, sim_hz=240.0,
                    config=ControlConfig(control_hz=60.0)).summary  # fmt: skip
    assert slow["control_hz"] == 60.0 and slow["fell"], slow["verdict_reason"]


def test_the_env_and_the_cli_take_the_walker_s_control_rate(capsys):
    import json

    import gymnasium as gym

    from gaitsim.cli import main

    env = gym.make("gaitsim/Walk-v0", walker="fox")
    assert env.unwrapped.config.control_hz == 60.0
    env.close()
    env = gym.make("gaitsim/Walk-v0", walker="fox", control_hz=120.0)
    assert env.unwrapped.config.control_hz == 120.0
    env.close()
    assert main(["walk", "fox", "-q", "--json", "--seconds", "0.2"]) in (0, 1)
    assert json.loads(capsys.readouterr().out)["control_hz"] == 60.0
    argv = ["walk", "fox", "-q", "--json", "--seconds", "0.2", "--control-hz", "120"]
    assert main(argv) in (0, 1)
    assert json.loads(capsys.readouterr().out)["control_hz"] == 120.0


# ---------------------------------------------------------------------------- servo clock
def test_the_servo_clock_by_hand():
    """Walkers on sphere feet run the tuned gains SPHERE_CLOCK_FALL_TIME / fall time faster per
    second when that is above 1: the built-in ones keep 1 (the horn beetle's 0.0766 s is
    the reference), the fox at a tenth of its size (standing 0.019 m, on feet held at their
    4 mm floor: fall time 0.0440 s) 0.0765 / 0.0440 = 1.74, its rates doubled (120 / 480
    Hz; 1.74 / 1.25 = 1.39 -> 2), the third catalog's mouse (legs of 26 mm, standing 0.0193
    m) 1.72. Walkers on soles run them SOLE_CLOCK_FALL_TIME / fall time faster per second
    when that is above 1: the built-in bipeds (the raptor's 0.20858 s fall time is the
    reference, the mechanic's is 0.23363 s) 1, the mechanic at a fifth of its size (every
    length x 0.2: fall time x sqrt(0.2)) 0.2085 / 0.10448 = 1.996, with its rates doubled
    on it (1.996 / 1.25 = 1.60 -> 2: 120 and 480 Hz; on the tuned gains 60 and 480, its
    soles ringing at 114 Hz), the raptor at 0.15 2.58 (-> 2.07: x 4, 240 and 960 Hz); the
    mechanic at twice its size stays at 1."""
    from gaitsim.walker import resolve_entry

    mechanic = resolve_entry("mechanic")
    assert SOLE_CLOCK_FALL_TIME == 0.2085
    for name in BUILT_IN:
        body = compile_body(name)
        assert (body.servo_clock, body.control_hz, body.sim_hz) == (1.0, 60.0, 240.0), name
    assert SPHERE_CLOCK_FALL_TIME == 0.0765
    assert fall_time(compile_body("horn_beetle").geometry) > SPHERE_CLOCK_FALL_TIME
    fox = compile_body(scaled_entry(resolve_entry("fox"), 0.1))
    h = fox.geometry.standing_height  # its hips 0.015 m up on 4 mm feet (the feet's floor)
    assert h == pytest.approx(0.019, abs=1e-4)
    assert fox.servo_clock == pytest.approx(0.0765 / math.sqrt(h / 9.81), rel=1e-9)
    assert fox.servo_clock == pytest.approx(1.738, abs=0.001)
    assert fox.rates(fox.servo_clock) == (120.0, 480.0)
    from gaitsim.catalog import load_catalog

    third = Path(__file__).resolve().parents[1] / "experiments" / "third_catalog.json"
    mouse = compile_body(load_catalog(str(third))["mouse"])
    assert mouse.servo_clock == pytest.approx(1.723, abs=0.001)  # standing 0.0193 m
    fifth = compile_body(scaled_entry(mechanic, 0.2))
    assert fifth.servo_clock == pytest.approx(0.2085 / (0.23363 * math.sqrt(0.2)), rel=1e-4)
    assert fifth.rates(fifth.servo_clock) == (120.0, 480.0)
    assert fifth.rates() == (fifth.control_hz, fifth.sim_hz) == (60.0, 480.0)
    small = compile_body(scaled_entry(resolve_entry("raptor"), 0.15))
    assert small.servo_clock == pytest.approx(0.2085 / (0.20858 * math.sqrt(0.15)), rel=1e-4)
    assert small.rates(small.servo_clock) == (240.0, 960.0)
    assert compile_body(scaled_entry(mechanic, 2.0)).servo_clock == 1.0


def test_a_run_takes_the_clock_of_its_body_mode():
    """``sim.run.run_rates``: a free body runs on its own servo clock and the rates for it,
    the assisted and the kinematic body on the tuned gains (1); a clock or rate asked for
    is kept."""
    from gaitsim.sim.run import run_rates
    from gaitsim.walker import resolve_entry

    fifth = compile_body(scaled_entry(resolve_entry("mechanic"), 0.2))
    clock = fifth.servo_clock
    assert run_rates(fifth, "free") == (clock, 120.0, 480.0)
    assert run_rates(fifth, "assist") == run_rates(fifth, "kinematic") == (1.0, 60.0, 480.0)
    assert run_rates(fifth, "assist", 2.0) == (2.0, 120.0, 480.0)
    assert run_rates(fifth, "free", None, 240.0, 960.0) == (clock, 240.0, 960.0)


def test_the_clock_s_rate_multiple_and_gain_scale_by_hand():
    assert [clock_rate_multiple(c) for c in (1.0, 1.25, 1.26, 2.5, 2.51, 5.0, 5.1)] == [
        1, 1, 2, 2, 4, 4, 8]  # fmt: skip
    assert gain_scale(1.0 / 240.0, 1.0) == 1.0
    assert gain_scale(1.0 / 480.0, 2.236) == pytest.approx(1.118)
    assert gain_scale(1.0 / 960.0, 2.58) == pytest.approx(0.645)
    # a physics rate forced below the body's own cuts the clock at CLOCK_GAIN_SLACK
    assert gain_scale(1.0 / 240.0, 2.236) == pytest.approx(CLOCK_GAIN_SLACK)
    # ... but never below the rate's own factor (a rate below 240 Hz, as before)
    assert gain_scale(1.0 / 120.0, 2.0) == pytest.approx(2.0)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([1.0, 0.3, 0.1]))
def test_at_its_own_rates_a_body_s_servos_run_on_its_clock(seed, k):
    """Any walker, at any size, at its own physics rate: the per-step gains are at most
    CLOCK_GAIN_SLACK times the tuned ones, and per second they are exactly its servo clock
    times the tuned ones (PHYSICS_HZ x kp)."""
    body = compile_body(scaled_entry(random_entry(seed), k))
    clock = body.servo_clock
    ref = SOLE_CLOCK_FALL_TIME if body.soles is not None else SPHERE_CLOCK_FALL_TIME
    assert clock == max(1.0, ref / fall_time(body.geometry))
    sim_hz = body.rates(clock)[1]
    factor = gain_scale(1.0 / sim_hz, clock)
    assert factor <= CLOCK_GAIN_SLACK + 1e-9
    assert factor * sim_hz == pytest.approx(PHYSICS_HZ * clock)


@pytest.mark.parametrize("engine", ENGINES)
def test_each_engine_s_robot_takes_the_body_s_clock(engine):
    from gaitsim.walker import resolve_entry

    fifth = compile_body(scaled_entry(resolve_entry("mechanic"), 0.2))
    with make_world(engine, Flat(), time_step=1.0 / 480.0) as world:
        robot = load_robot(world, fifth)  # a robot alone: its body's own clock
        assert robot.servo_clock == fifth.servo_clock
        assert robot.gain_scale == pytest.approx(fifth.servo_clock / 2.0)


@pytest.mark.slow
def test_a_fifth_of_the_mechanic_walks_free_on_its_own_clock_and_falls_on_the_tuned_one():
    """The free mechanic at a fifth of its size (legs 11 cm, 0.3 m/s), 6 s flat: on its
    servo clock (2.0: 120 Hz control, 480 Hz physics) it walks; with the tuned gains per
    second at its old rates (60 and 240 Hz) it falls (at 1.3 s in 10 s runs; 1.0-3.4 s over
    0.15-0.3 of its size and three starts each, and at 60-240 Hz control or 240-960 Hz
    physics alike)."""
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate
    from gaitsim.walker import resolve_entry

    fifth = scaled_entry(resolve_entry("mechanic"), 0.2)
    own = simulate(fifth, seconds=6.0, config=ControlConfig(body="free")).summary
    assert own["servo_clock"] == pytest.approx(1.996, abs=1e-3)
    assert own["verdict"] == "walked", own["verdict_reason"]
    assert 0.95 < own["speed_ratio"] < 1.05
    tuned = simulate(fifth, seconds=6.0, sim_hz=240.0, config=ControlConfig(
        body="free", control_hz=60.0, servo_clock=1.0)).summary  # fmt: skip
    assert tuned["servo_clock"] == 1.0 and tuned["fell"], tuned["verdict_reason"]


def test_the_servo_clock_can_be_set_and_is_checked():
    """``ControlConfig.servo_clock`` overrides the body's (1: the tuned gains; 0.5: half as
    stiff per second) on both engines' robots, and summaries report the one used; a bad
    value is a ValueError naming the field."""
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    assert simulate("fox", seconds=0.1).summary["servo_clock"] == 1.0
    soft = simulate("fox", seconds=0.1, config=ControlConfig(servo_clock=0.5)).summary
    assert soft["servo_clock"] == 0.5
    assert gain_scale(1.0 / 240.0, 0.5) == 0.5 and gain_scale(1.0 / 480.0, 0.5) == 0.25
    for engine in ENGINES:
        with make_world(engine, Flat()) as world:
            assert load_robot(world, "fox", servo_clock=0.5).gain_scale == 0.5
    for bad in (0.0, -1.0, float("nan"), "2"):
        with pytest.raises(ValueError, match="servo_clock"):
            ControlConfig(servo_clock=bad)


def test_gaitsim_walk_and_the_env_run_a_small_free_biped_on_its_clock(tmp_path, capsys):
    """A user's catalog with the mechanic at a fifth of its size: ``gaitsim walk --body
    free`` reports its clock (2.0) and the rates for it (120 / 480 Hz), with the assist the
    tuned gains at 60 / 240 Hz; the env takes the same rates and clock."""
    import json

    import gymnasium as gym

    from gaitsim.catalog import entry_to_dict
    from gaitsim.cli import main
    from gaitsim.walker import resolve_entry

    fifth = scaled_entry(resolve_entry("mechanic"), 0.2)
    path = tmp_path / "small.json"
    path.write_text(json.dumps({fifth.name: entry_to_dict(fifth)}))
    runs = {}
    for body in ("free", "assist"):
        argv = ["walk", fifth.name, "--catalog", str(path), "--body", body, "--seconds",
                "0.2", "--json", "-q"]  # fmt: skip
        assert main(argv) in (0, 1)
        runs[body] = json.loads(capsys.readouterr().out)
    free, assist = runs["free"], runs["assist"]
    assert free["servo_clock"] == pytest.approx(1.996, abs=1e-3)
    assert (free["control_hz"], free["sim_hz"]) == (120.0, 480.0)
    assert (assist["servo_clock"], assist["control_hz"], assist["sim_hz"]) == (1.0, 60.0, 480.0)
    env = gym.make("gaitsim/Walk-v0", walker=fifth, body="free")
    try:
        inner = env.unwrapped
        assert inner.config.control_hz == 120.0 and inner.sim_hz == 480.0
        assert inner.config.servo_clock == pytest.approx(1.996, abs=1e-3)
        env.reset(seed=0)
        assert inner.robot.servo_clock == inner.config.servo_clock
    finally:
        env.close()


def test_a_controller_refuses_a_clock_its_robot_was_not_loaded_with():
    """The robot's gains are set when it is loaded: a ``servo_clock`` in the controller's
    config that differs from the robot's is a ValueError saying how to load it, not a
    setting silently ignored; the robot's own clock, or None, is accepted."""
    from gaitsim.path import Straight
    from gaitsim.sim.controller import ControlConfig, GaitController
    from gaitsim.walker import Walker, resolve_entry

    entry = resolve_entry("fox")
    kin = Walker(entry, Flat(), Straight(), 1.0)
    with make_world("pybullet", Flat()) as world:
        robot = load_robot(world, entry)
        with pytest.raises(ValueError, match=r"load_robot\(world, body, servo_clock=0.5\)"):
            GaitController(world, robot, kin, ControlConfig(servo_clock=0.5))
        for clock in (None, 1.0):
            GaitController(world, robot, kin, ControlConfig(servo_clock=clock), record=False)
