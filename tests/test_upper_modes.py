"""The upper body's modes (arms, twist, gaze) and the slope lean as settings: the walk
command's flags, the Scenario's fields, a sweep's [base] keys and parameters, the env's
keywords and its observation of the upper body. Fast: parsing and short episodes only."""

import csv
import math
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env, data_equivalence

import gaitsim  # noqa: F401  (registers the env ids)
from gaitsim import load_catalog
from gaitsim.cli import build_parser, main
from gaitsim.scenario import Scenario, ScenarioError, base_settings, split_upper_options
from gaitsim.sweep import METRICS, PARAMETERS, SweepError, cells, parse_sweep, write_csv

NEW_FIGURES = ("yaw_moment_rms_nm", "yaw_moment_com_rms_nm", "hip_twist_deg",
               "shoulder_twist_deg", "shoulder_hip_ratio", "head_bob_mm", "head_pitch_deg_rms",
               "base_bob_mm", "gaze_lead_s")  # fmt: skip


def _walk_args(*flags):
    return build_parser().parse_args(["walk", "mechanic", *flags])


# ---------------------------------------------------------------------------- the CLI


def test_walk_flags_default_to_the_walkers_own_motion():
    args = _walk_args()
    assert (args.arms, args.twist, args.gaze, args.lean) == ("swing", "on", "stabilised", False)
    sc = Scenario.from_cli(args, load_catalog()["mechanic"])
    assert (sc.arms, sc.twist, sc.gaze, sc.lean) == ("swing", True, "stabilised", False)
    # the defaults pass nothing new to the Walker: a default run is the run it was
    assert sc.simulate_kwargs()["walker_options"] == {"swing": "sine"}


def test_walk_flags_reach_the_scenario_and_the_walker_options():
    args = _walk_args("--arms", "anti", "--twist", "off", "--gaze", "fixed", "--lean")
    sc = Scenario.from_cli(args, load_catalog()["mechanic"])
    assert (sc.arms, sc.twist, sc.gaze, sc.lean) == ("anti", False, "fixed", True)
    assert sc.simulate_kwargs()["walker_options"] == {
        "swing": "sine", "arms": "anti", "twist": False, "gaze": "fixed", "lean": "upright",
    }  # fmt: skip


@pytest.mark.parametrize(
    "flags", [["--arms", "wave"], ["--twist", "yes"], ["--gaze", "up"], ["--lean", "upright"]]
)
def test_bad_walk_flag_values_are_usage_errors(flags, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["walk", "fox", *flags])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice" in err or "unrecognized arguments" in err


def test_walk_help_explains_each_flag_and_that_walkers_without_the_part_ignore_it(capsys):
    with pytest.raises(SystemExit):
        main(["walk", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for flag in ("--arms {swing,held,anti}", "--twist {on,off}", "--gaze {stabilised,fixed}",
                 "--lean"):  # fmt: skip
        assert flag in text
    assert "ignores its option" in text and "upright" in text
    assert "swing (default)" in text and "on (default)" in text
    assert "stabilised (default)" in text and "default: no lean" in text


# ---------------------------------------------------------------------------- Scenario


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"arms": "wave"}, r"arms must be one of swing, held, anti, got 'wave'"),
        ({"gaze": "up"}, r"gaze must be one of stabilised, fixed, got 'up'"),
        ({"twist": "on"}, r"twist must be True or False"),
        ({"lean": "upright"}, r"lean must be True \(the upright lean\) or False"),
        ({"swing": "arc"}, r"swing must be one of sine, clearance"),
        ({"walker_options": {"arms": "held"}}, r"walker_options arms: set the Scenario's"),
        ({"lean": True, "walker_options": {"lean": "ground"}}, r"walker_options lean"),
    ],
)
def test_scenario_refuses_bad_modes_naming_the_setting(kw, message):
    with pytest.raises(ScenarioError, match=message):
        Scenario.make("fox", **kw)


def test_a_ground_lean_stays_a_walker_option():
    sc = Scenario.make("fox", walker_options={"lean": "ground"})
    assert not sc.lean and sc.simulate_kwargs()["walker_options"]["lean"] == "ground"


@pytest.mark.parametrize("lean", [False, "off", None, "level"])
def test_a_walker_lean_means_the_same_through_a_scenario_as_to_simulate(lean):
    # lean off tilts a biped with the ground in simulate(); a Scenario (and so a sweep or
    # the env) must not turn it into the biped's default level trunk
    sc = Scenario.make("mechanic", slope_deg=5.0, walker_options={"lean": lean})
    assert sc.lean is False and sc.simulate_kwargs()["walker_options"]["lean"] == lean
    rest, fields = split_upper_options({"lean": lean, "sway": 0.5})
    assert rest == {"lean": lean, "sway": 0.5} and fields == {}
    assert split_upper_options({"lean": "upright"}) == ({}, {"lean": True})


def test_base_settings_take_modes_from_base_or_walker_options():
    options = {"gaze": "fixed", "arms": "anti", "sway": 0.5}
    kw = base_settings({"arms": "held", "twist": "off", "lean": True, "walker_options": options})
    # a [base] key wins over the same walker_options key, as swing always did
    assert kw["arms"] == "held" and kw["twist"] is False and kw["lean"] is True
    assert kw["gaze"] == "fixed" and kw["walker_options"] == {"sway": 0.5}
    with pytest.raises(ScenarioError, match="twist must be one of on, off, true, false"):
        base_settings({"twist": "sometimes"})


# ---------------------------------------------------------------------------- sweeps


def _sweep(parameter, values, **extra):
    return parse_sweep({"name": "t", "parameter": parameter, "values": values,
                        "walkers": ["mechanic"], "seeds": 1, "seconds": 2.0, **extra})  # fmt: skip


@pytest.mark.parametrize(
    ("parameter", "values", "stored", "field", "fields"),
    [
        ("arms", ["swing", "held", "anti"], ("swing", "held", "anti"), "arms",
         ["swing", "held", "anti"]),
        ("twist", [True, "off"], ("on", "off"), "twist", [True, False]),
        ("gaze", ["stabilised", "fixed"], ("stabilised", "fixed"), "gaze",
         ["stabilised", "fixed"]),
        ("lean", ["off", True], ("off", "upright"), "lean", [False, True]),
    ],
)  # fmt: skip
def test_modes_are_sweep_parameters(parameter, values, stored, field, fields):
    assert parameter in PARAMETERS
    sweep = _sweep(parameter, values)
    assert sweep.values == stored  # twist and lean written as their words
    got = [getattr(Scenario.from_sweep_cell(sweep, c), field) for c in cells(sweep)]
    assert got == fields
    assert cells(sweep)[-1].key(sweep) == f"mechanic__{parameter}={stored[-1]}__seed0"


@pytest.mark.parametrize(
    ("definition", "message"),
    [
        ({"parameter": "arms", "values": ["wave"]}, r"arms values must be one of 'swing'"),
        ({"parameter": "twist", "values": [1]}, r"twist values must be one of 'on', 'off'"),
        ({"parameter": "gaze", "values": ["fixed", "fixed"]}, "twice"),
        ({"parameter": "twist", "values": [False, "off"]}, "twice"),
        ({"parameter": "lean", "values": ["ground"]}, r"lean values must be one of 'off'"),
        ({"parameter": "speed_scale", "values": [1.0], "base": {"arms": "up"}},
         r"\[base\] arms must be one of 'swing', 'held', 'anti', got 'up'"),
        ({"parameter": "speed_scale", "values": [1.0], "base": {"lean": 1}},
         r"\[base\] lean must be one of 'off', 'upright' \(or true / false\)"),
        ({"parameter": "gaze", "values": ["fixed"], "base": {"gaze": "fixed"}},
         r"\[base\] gaze is set by the swept parameter"),
        ({"parameter": "arms", "values": ["held"], "base": {"walker_options": {"arms": "x"}}},
         r"walker_options arms is set by the swept parameter"),
        ({"parameter": "speed_scale", "values": [1.0],
          "base": {"walker_options": {"gaze": "x"}}}, r"walker_options gaze must be one of"),
        ({"parameter": "speed_scale", "values": [1.0],
          "base": {"walker_options": {"lean": "sideways"}}},
         r"walker_options lean must be one of off, ground, upright, level"),
        ({"parameter": "speed_scale", "values": [1.0],
          "base": {"lean": True, "walker_options": {"lean": "ground"}}}, "two leans"),
        ({"parameter": "speed_scale", "values": [1.0],
          "base": {"lean": True, "walker_options": {"lean": "off"}}}, "two leans"),
    ],
)  # fmt: skip
def test_bad_mode_values_in_a_sweep_are_named(definition, message):
    with pytest.raises(SweepError, match=message):
        _sweep(**definition)


def test_modes_in_base_reach_every_cell():
    sweep = _sweep("speed_scale", [1.0], base={"arms": "held", "twist": False,
                                               "gaze": "fixed", "lean": "upright"})  # fmt: skip
    sc = Scenario.from_sweep_cell(sweep, cells(sweep)[0])
    assert (sc.arms, sc.twist, sc.gaze, sc.lean) == ("held", False, "fixed", True)


def test_a_mode_cell_equals_the_walk_flags():
    sweep = _sweep("arms", ["held"], base={"twist": "off"})
    from_sweep = Scenario.from_sweep_cell(sweep, cells(sweep)[0])
    args = _walk_args("--arms", "held", "--twist", "off", "--seconds", "2", "--episode-seed", "0")
    assert Scenario.from_cli(args, load_catalog()["mechanic"]) == from_sweep


def test_results_csv_has_the_upper_body_columns(tmp_path):
    assert set(NEW_FIGURES) <= set(METRICS)
    row = {"sweep": "t", "walker": "fox", "value": 1.0, "hip_twist_deg": 1.5, "gaze_lead_s": None}
    write_csv([row], tmp_path / "results.csv")
    with open(tmp_path / "results.csv") as fh:
        (got,) = list(csv.DictReader(fh))
    assert set(NEW_FIGURES) <= set(got)
    assert got["hip_twist_deg"] == "1.5" and got["gaze_lead_s"] == "" and got["head_bob_mm"] == ""


# ---------------------------------------------------------------------------- the env

STEPS = 20
# walker: upper-body joints (fox: a head; mechanic: a torso, two arms and a head; none)
UPPER = {"fox": 3, "mechanic": 8, "horn_beetle": 0}


def _env(walker, **kw):
    kw.setdefault("body", "assist" if walker == "mechanic" else "free")
    return gym.make("gaitsim/Walk-v0", walker=walker, max_episode_steps=STEPS, **kw)


@pytest.mark.parametrize("walker", list(UPPER))
def test_the_observation_holds_the_upper_body_only_for_walkers_with_one(walker):
    env = _env(walker)
    u = env.unwrapped
    n_legs, n_upper = u.n_legs, UPPER[walker]
    obs, _ = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape == (12 + 9 * n_legs + 2 * n_upper,)
    lay = u.observation_layout
    assert ("upper_position" in lay) == (n_upper > 0)
    assert lay["command"] == slice(obs.shape[0] - 2, obs.shape[0])  # always the last two
    if n_upper:
        assert lay["upper_position"] == slice(10 + 9 * n_legs, 10 + 9 * n_legs + n_upper)
        assert lay["upper_velocity"].stop == lay["command"].start
    for _ in range(STEPS):
        obs, *_ = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs)
    if n_upper:
        q, v = u.robot.upper_state()
        np.testing.assert_allclose(obs[lay["upper_position"]], q, atol=1e-6)
        np.testing.assert_allclose(obs[lay["upper_velocity"]], v, atol=1e-4)
    env.close()


@pytest.mark.parametrize("walker", list(UPPER))
def test_check_env_passes_with_and_without_an_upper_body(walker):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = _env(walker, action_mode="residual", arms="held", gaze="fixed")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
        sb3_check_env(env.unwrapped, warn=True)
    assert not [str(w.message) for w in caught]
    env.close()


@pytest.mark.parametrize("walker", ["fox", "mechanic"])
def test_equal_seeds_give_equal_rollouts_with_modes(walker):
    def rollout():
        env = _env(walker, action_mode="residual", arms="anti", twist=False, gaze="fixed")
        rng = np.random.default_rng(3)
        out = [env.reset(seed=5)]
        for _ in range(STEPS):
            out.append(env.step(rng.uniform(-1, 1, env.action_space.shape).astype(np.float32)))
        env.close()
        return out

    for x, y in zip(rollout(), rollout(), strict=True):
        assert data_equivalence(x, y, exact=True)


def test_env_modes_reach_the_walker_and_the_scenario():
    env = _env("mechanic", arms="held", twist=False, gaze="fixed", lean=True)
    env.reset(seed=0)
    u = env.unwrapped
    kin = u.controller.walker
    assert (kin.arms, kin.twist, kin.gaze, kin.lean) == ("held", False, "fixed", "upright")
    sc = u.scenario
    assert (sc.arms, sc.twist, sc.gaze, sc.lean) == ("held", False, "fixed", True)
    assert "arms" not in sc.walker_options and sc.walker_options["sway"] == 1.0
    env.close()
    # the same modes given as walker_options (the Walker's own keywords)
    env = _env("mechanic", walker_options={"arms": "held", "lean": "upright"})
    env.reset(seed=0)
    sc = env.unwrapped.scenario
    assert sc.arms == "held" and sc.lean and env.unwrapped.controller.walker.lean == "upright"
    env.close()


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"arms": "wave"}, "arms must be one of swing, held, anti"),
        ({"gaze": "ahead"}, "gaze must be one of stabilised, fixed"),
        ({"twist": "off"}, "twist must be True or False"),
        ({"lean": "upright"}, r"lean must be True \(the upright lean\) or False"),
        ({"arms": "held", "walker_options": {"arms": "anti"}}, "arms given twice"),
        ({"lean": True, "walker_options": {"lean": "ground"}}, "lean=True is the upright lean"),
    ],
)
def test_bad_env_modes_are_named(kw, message):
    with pytest.raises(ValueError, match=message):
        gym.make("gaitsim/Walk-v0", **kw)


def test_the_upright_lean_speeds_the_command_on_a_downhill_slope():
    speeds = {}
    for lean in (False, True):
        env = gym.make("gaitsim/Slope-v0", walker="mechanic", body="assist", slope_deg=-10.0,
                       lean=lean)  # fmt: skip
        env.reset(seed=0)
        u = env.unwrapped
        speeds[lean] = u.command.speed
        assert u.command.speed == pytest.approx(u.controller.walker.nominal_speed)
        env.close()
    # the seed: 5 degrees of forward lean on a 10 degree downhill, 0.06 / 1.6 per degree
    assert speeds[True] / speeds[False] == pytest.approx(1 + 5 * 0.06 / 1.6)


def test_info_reports_the_upper_body_figures_after_two_gait_cycles():
    env = gym.make("gaitsim/Walk-v0", walker="fox")
    _, info = env.reset(seed=0)
    assert "hip_twist_deg" not in info  # nothing measured yet
    for _ in range(75):  # the fox's cycle is 34.3 control steps: two cycles and a bit
        *_, info = env.step(None)
    assert {"hip_twist_deg", "base_bob_mm", "head_bob_mm", "head_pitch_deg_rms"} <= set(info)
    assert "shoulder_twist_deg" not in info  # the fox has no torso
    assert "gaze_lead_s" not in info  # a straight path does not turn
    assert all(math.isfinite(info[k]) for k in NEW_FIGURES if k in info)
    env.close()
    env = gym.make("gaitsim/Walk-v0", walker="fox", run_metrics=False)
    env.reset(seed=0)
    for _ in range(75):
        *_, info = env.step(None)
    assert not set(NEW_FIGURES) & set(info)
    env.close()


def test_a_gaze_sweep_writes_the_head_figures(tmp_path, capsys):
    definition = tmp_path / "gaze.toml"
    definition.write_text(
        'name = "gaze"\nparameter = "gaze"\nvalues = ["stabilised", "fixed"]\n'
        'walkers = ["fox"]\nseeds = 1\nseconds = 1.5\n[base]\narms = "held"\n'
    )
    out = tmp_path / "out"
    argv = ["sweep", str(definition), "--out", str(out), "--no-plots", "-q", "--workers", "2"]
    assert main(argv) == 0, capsys.readouterr().err
    with open(out / "results.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["value"] for r in rows] == ["stabilised", "fixed"]
    for r in rows:
        assert float(r["head_bob_mm"]) >= 0 and float(r["hip_twist_deg"]) >= 0
        assert r["shoulder_twist_deg"] == "" and r["gaze_lead_s"] == ""  # no torso; straight


def test_the_env_keeps_a_walker_lean_off_as_simulate_does():
    # a biped's lean off is the Walker's, tilted with the ground; the env must not level it
    env = _env("mechanic", walker_options={"lean": False})
    assert env.unwrapped.walker_options["lean"] is False
    env.close()
    env = _env("mechanic")
    assert "lean" not in env.unwrapped.walker_options  # the biped's default, level
    env.close()
