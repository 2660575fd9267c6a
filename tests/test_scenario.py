"""One scenario, one result: a Scenario made from CLI flags, a sweep cell or env keywords
runs the same numbers, and a RunSummary gives back the summary dict it was read from."""

import csv
import dataclasses
import io
import json
import math
import pickle
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from gaitsim import load_catalog
from gaitsim.cli import build_parser, main
from gaitsim.scenario import Scenario, ScenarioError, TerrainSpec
from gaitsim.sim.summary import ASSIST_KEYS, RunSummary
from gaitsim.sweep import METRICS, cells, parse_sweep
from gaitsim.terrain import Flat, Rough, Slope


def _cli_scenario(catalog: Path, walker: str, *flags: str) -> Scenario:
    args = build_parser().parse_args(["walk", walker, "--catalog", str(catalog), *flags])
    return Scenario.from_cli(args, load_catalog(catalog)[walker])


def _sweep_scenario(catalog: Path, walker: str, parameter, value, seed=0, **definition):
    sweep = parse_sweep(
        {"name": "t", "parameter": parameter, "values": [value], "walkers": [walker],
         "seeds": seed + 1, "seconds": 2.0, **definition},
        catalog=load_catalog(catalog),
    )  # fmt: skip
    return Scenario.from_sweep_cell(sweep, cells(sweep)[seed])


# (sweep parameter, value, seed, extra definition keys) and the same `gaitsim walk` flags
SAME_SETTINGS = [
    (("speed_scale", 0.8, 1, {}), "--speed-scale 0.8 --episode-seed 1"),
    (("slope_deg", -5, 0, {}), "--terrain slope --slope-deg -5 --episode-seed 0"),
    (("roughness", 0.02, 2, {}), "--terrain rough --roughness 0.02 --seed 2 --episode-seed 2"),
    (("roughness", 0, 0, {}), "--episode-seed 0"),
    (("turn", "in_place", 0, {}), "--turn-radius 0 --episode-seed 0"),
    (("turn", 0.5, 0, {}), "--turn-radius 0.5 --episode-seed 0"),
    (("turn", "straight", 0, {}), "--episode-seed 0"),
    (("friction", 0.7, 0, {}), "--friction 0.7 --episode-seed 0"),
    (
        ("speed_scale", 1.0, 0, {"base": {"body": "assist", "swing": "clearance"}}),
        "--body assist --swing clearance --episode-seed 0",
    ),
    (
        ("speed_scale", 1.0, 0, {"base": {"distance_source": "odometry", "friction": 0.9}}),
        "--distance-source odometry --friction 0.9 --episode-seed 0",
    ),
    (
        ("speed_scale", 1.0, 0, {"base": {"yaw_rate": math.radians(20.0)}}),
        "--yaw-rate-deg 20 --episode-seed 0",
    ),
    (
        ("speed_scale", 1.0, 0, {"base": {"control": {"kp": 0.1, "hip_facing": "measured"}}}),
        "--control kp=0.1 --control hip_facing=measured --episode-seed 0",
    ),
]


@pytest.mark.parametrize("sweep, flags", SAME_SETTINGS)
def test_cli_flags_and_a_sweep_cell_make_equal_scenarios(
    custom_catalog_file, tmp_path, sweep, flags
):
    custom = custom_catalog_file
    parameter, value, seed, definition = sweep
    from_sweep = _sweep_scenario(custom, "fox", parameter, value, seed, **definition)
    from_cli = _cli_scenario(custom, "fox", *flags.split(), "--seconds", "2")
    assert from_cli == from_sweep
    assert from_cli.entry.gait.clip_speed == 0.3  # the file's fox, not the built-in one
    assert from_cli.seed == seed
    if "--body" not in flags:
        assert from_cli.body == "free"  # auto, resolved for a four-legged walker
    # the run's settings are the same too (terrain objects compare by their parameters)
    assert from_cli.simulate_kwargs() == from_sweep.simulate_kwargs()


def test_scenarios_differ_when_a_setting_does():
    fox = load_catalog()["fox"]
    base = Scenario(fox)
    assert base == Scenario(fox, TerrainSpec(), body="free")
    for change in ({"seed": 0}, {"speed_scale": 1.1}, {"terrain": TerrainSpec.slope(5)},
                   {"swing": "clearance"}, {"turn_radius": 1.0}):  # fmt: skip
        assert dataclasses.replace(base, **change) != base
    with pytest.raises(ScenarioError, match="auto resolved"):
        Scenario(fox, body="auto")
    assert Scenario.make("raptor").body == "free" and Scenario.make("fox").body == "free"
    # a brisk biped on soles walks free on PyBullet, with the assist on MuJoCo
    assert Scenario.make("raptor", engine="mujoco").body == "assist"


def test_terrain_specs_build_what_each_caller_built_before():
    assert TerrainSpec().build() == Flat()
    assert TerrainSpec.slope(-10).build() == Slope.from_degrees(-10.0)
    assert TerrainSpec.slope(5, 30).build() == Slope.from_degrees(5.0, 30.0)
    # the CLI's, the sweep's and the report's rough ground
    assert TerrainSpec.rough(0.02, seed=1).build() == Rough(0.02, seed=1, flat_radius=0.3)
    # the env's: a 1 m grid of 4 cm cells flattened around the start
    env = TerrainSpec.rough(0.03, wavelength=0.4, seed=2, size=1.0, cell=0.04,
                            flat_centre=(0.0, 0.0))  # fmt: skip
    assert env.build() == Rough(0.03, wavelength=0.4, seed=2, size=1.0, cell=0.04,
                                flat_radius=0.3, flat_centre=(0.0, 0.0))  # fmt: skip
    with pytest.raises(ScenarioError, match="terrain kind"):
        TerrainSpec("ice")


def test_the_env_builds_its_episode_ground_from_a_scenario():
    import gymnasium as gym

    import gaitsim  # noqa: F401  (registers the env ids)

    env = gym.make("gaitsim/Slope-v0", friction=(0.8, 1.2), body="assist")
    try:
        _, info = env.reset(seed=3)
        sc = env.unwrapped.scenario
        assert sc.terrain == TerrainSpec.slope(10.0, 0.0) and sc.body == "assist"
        assert sc.friction == info["params"]["friction"] == env.unwrapped.world.friction
        assert env.unwrapped.arena.terrain == sc.terrain.build()
        assert sc.control == {}
    finally:
        env.close()


def test_the_env_s_scenario_carries_its_controller_settings():
    """``control_options`` reach the episode's Scenario, so a plain run of it
    (``Scenario.simulate``) has the env's controller settings."""
    import gymnasium as gym

    import gaitsim  # noqa: F401  (registers the env ids)

    options = {"roll_follow_planted": True, "kp": 0.06}
    env = gym.make("gaitsim/Walk-v0", walker="raptor", control_options=options)
    try:
        env.reset(seed=0)
        sc = env.unwrapped.scenario
        assert sc.control == options
        config = sc.simulate_kwargs()["config"]
        assert (config.roll_follow_planted, config.kp) == (True, 0.06)
        assert env.unwrapped.config.roll_follow_planted is True
    finally:
        env.close()


# ---------------------------------------------------------------------------- one result

# sweep parameter, its one value, the commanded speed scale, the same `gaitsim walk` flags
SWEEPS = {
    "speed_scale": ("speed_scale", 0.8, 0.8, "--speed-scale 0.8"),
    "roughness": ("roughness", 0.02, 1.0, "--terrain rough --roughness 0.02 --seed 0"),
}


@pytest.mark.parametrize("name", list(SWEEPS))
def test_a_sweep_row_over_a_custom_catalog_equals_gaitsim_walk(
    custom_catalog_file, tmp_path, capsys, name
):
    """The issue's done-when: a sweep over a custom catalog (a walker named like a built-in)
    runs the file's walker, and its row equals `gaitsim walk NAME --catalog FILE` for the
    same settings."""
    custom = custom_catalog_file
    parameter, value, scale, flags = SWEEPS[name]
    d = tmp_path / "d.toml"
    d.write_text(
        f'name = "d"\nparameter = "{parameter}"\nvalues = [{value}]\nwalkers = ["fox"]\n'
        "seeds = 1\nseconds = 2.0\n"
    )
    out = tmp_path / "out"
    argv = ["sweep", str(d), "--catalog", str(custom), "--out", str(out), "-q", "--no-plots"]
    assert main(argv) == 0, capsys.readouterr().err
    with open(out / "results.csv") as fh:
        (row,) = list(csv.DictReader(fh))
    buf = io.StringIO()
    walk = ["walk", "fox", "--catalog", str(custom), "--seconds", "2", "--episode-seed", "0"]
    with redirect_stdout(buf):
        code = main([*walk, *flags.split(), "--json", "-q"])
    walked = json.loads(buf.getvalue())
    assert code == (0 if walked["verdict"] == "walked" else 1)
    assert walked["commanded_speed_m_s"] == pytest.approx(0.3 * scale)  # the file's fox
    assert row["body"] == walked["body"]
    # the CSV writes str(value) and '' for None: the JSON's figures written the same way
    want = {m: "" if walked.get(m) is None else str(walked[m]) for m in METRICS}  # absent: ""
    assert {m: row[m] for m in METRICS} == want


# ---------------------------------------------------------------------------- RunSummary


@pytest.fixture(scope="module")
def two_runs():
    """A free run (no assist figures) and an assisted one, half a second each."""
    free = Scenario.make("horn_beetle", seconds=0.5).simulate()
    assisted = Scenario.make("raptor", seconds=0.5, body="assist").simulate()
    return free, assisted


def test_run_summary_round_trips_the_summary_dict(two_runs):
    for result in two_runs:
        d = result.summary
        s = RunSummary.from_dict(d)
        assert s == result.figures
        back = s.to_dict()
        assert back == d and list(back) == list(d)  # the same keys in the same order
        assert list(d) == [k for k in RunSummary.keys() if k in d]
        assert pickle.loads(pickle.dumps(s)) == s  # report workers send them across
        assert s.walked == (s.verdict == "walked")
    free, assisted = two_runs
    assert not set(ASSIST_KEYS) & set(free.summary) and free.figures.assist_work_j is None
    assert set(ASSIST_KEYS) <= set(assisted.summary)
    assert assisted.figures.assist_mean_force_per_weight > 0


def test_run_summary_keeps_unknown_figures_and_names_missing_ones(two_runs):
    d = two_runs[0].summary
    s = RunSummary.from_dict({**d, "new_figure_mm": 1.5})
    assert s.extra == {"new_figure_mm": 1.5}
    assert s.to_dict() == {**d, "new_figure_mm": 1.5}
    del d["speed_ratio"], d["verdict"]
    with pytest.raises(ValueError, match="missing speed_ratio, verdict"):
        RunSummary.from_dict(d)


def test_a_negative_episode_seed_is_a_usage_error(capsys):
    assert main(["walk", "fox", "--episode-seed", "-1", "-q"]) == 2
    assert "--episode-seed must be a whole number >= 0, got -1" in capsys.readouterr().err


# ---------------------------------------------------------------- body "auto" in the Python API
def _slow_biped():
    """A generated biped that steps too slowly to walk free (``walks_free_biped``)."""
    from gaitsim.generate import random_entry
    from gaitsim.sim.run import biped_tempo

    entry = random_entry(14)
    assert entry.gait.n_legs == 2 and biped_tempo(entry) > 0.9
    return entry


def test_auto_body_resolves_to_the_walkers_default_on_its_engine():
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import default_body, with_default_body

    auto = ControlConfig(body="auto", kp_swing=0.25)
    slow = _slow_biped()
    assert with_default_body(auto, slow) == dataclasses.replace(auto, body="assist")
    assert with_default_body(auto, "fox").body == "free"
    # the built-in bipeds walk free on PyBullet and keep the assist on MuJoCo
    assert with_default_body(auto, "mechanic").body == default_body("mechanic") == "free"
    assert with_default_body(auto, "mechanic", "mujoco").body == "assist"
    # any other body, and no config, pass through as they are
    free = ControlConfig(body="free")
    assert with_default_body(free, slow) is free and with_default_body(None, slow) is None


def test_simulate_with_the_auto_body_runs_the_walkers_default():
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    slow = _slow_biped()
    s = simulate(slow, seconds=0.5, config=ControlConfig(body="auto")).summary
    assert s["body"] == "assist" and s["assist_mean_force_per_weight"] > 0.0
    s = simulate(slow, seconds=0.5).summary  # the default config: a free body, as before
    assert s["body"] == "free" and "assist_mean_force_per_weight" not in s


def test_a_controller_refuses_an_unresolved_auto_body():
    from gaitsim.sim.controller import ControlConfig, GaitController

    with pytest.raises(ValueError, match="with_default_body"):
        GaitController(None, None, None, ControlConfig(body="auto"))
    with pytest.raises(ValueError, match="free, assist, kinematic, auto"):
        ControlConfig(body="held")


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_the_env_takes_the_auto_body(engine):
    import gymnasium as gym

    import gaitsim.sim  # noqa: F401  (registers the env ids)

    if engine == "mujoco":
        pytest.importorskip("mujoco")
    env = gym.make("gaitsim/Walk-v0", walker="mechanic", body="auto", engine=engine)
    try:
        assert env.unwrapped.config.body == ("free" if engine == "pybullet" else "assist")
        env.reset(seed=0)
        env.step(env.action_space.sample() * 0.0)
    finally:
        env.close()
    with pytest.raises(ValueError, match="body must be one of"):
        gym.make("gaitsim/Walk-v0", walker="fox", body="held")
