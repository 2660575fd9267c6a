"""`gaitsim walk`: JSON and table output, exit codes, input checks, headless video."""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from gaitsim.cli import _json_safe, main
from gaitsim.sim.summary import ASSIST_KEYS, RunSummary

REQUIRED = {
    "walker",
    "distance_m",
    "speed_m_s",
    "speed_ratio",
    "slip_mm_per_stance",
    "max_shortfall_m",
    "min_support_margin_m",
    "fell",
    "time_to_fall_s",
}


def headless_env():
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return env


def run(*argv, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "gaitsim.cli", "walk", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=headless_env(),
    )


def strict_json(text: str):
    """json.loads that rejects NaN and Infinity (not JSON, though Python writes them)."""

    def bad(token):
        raise ValueError(f"not valid JSON: {token}")

    return json.loads(text, parse_constant=bad)


def test_json_output_is_pure_valid_json_with_every_key():
    r = run("horn_beetle", "--seconds", "2", "--json")
    assert r.returncode == 0, r.stderr
    assert r.stdout.lstrip().startswith("{")
    assert "pybullet build time" not in r.stdout  # the C banner goes to stderr
    out = strict_json(r.stdout)
    assert REQUIRED <= set(out), REQUIRED - set(out)
    assert out["walker"] == "horn_beetle"
    assert out["distance_m"] > 0
    assert out["fell"] is False and out["time_to_fall_s"] is None
    assert "Traceback" not in r.stderr


def test_table_output_and_turns():
    r = run("fox", "--seconds", "1", "--yaw-rate-deg", "20", "-q")
    assert r.returncode in (0, 1), r.stderr
    assert "distance m" in r.stdout and "slip mm per stance" in r.stdout
    assert "Arc" in r.stdout
    assert r.stderr.count("\n") <= 1  # -q: at most pybullet's own build-time line


@pytest.mark.parametrize(
    "argv, message",
    [
        (["fox", "--slope-deg", "5"], "--slope-deg applies only to --terrain slope"),
        (["fox", "--uphill-heading-deg", "90"], "applies only to --terrain slope"),
        (["fox", "--roughness", "0.02"], "--roughness applies only to --terrain rough"),
        (["fox", "--terrain", "rough", "--roughness", "0"], "--roughness must be > 0"),
        (["fox", "--terrain", "slope", "--slope-deg", "85"], "--slope-deg must be between"),
        (["fox", "--speed-scale", "0"], "--speed-scale must be a number > 0"),
        (["fox", "--speed-scale", "nan"], "--speed-scale must be a number > 0"),
        (["fox", "--seconds", "-1"], "--seconds must be a number > 0"),
        (["fox", "--friction", "0"], "--friction must be a number > 0"),
        (["fox", "--turn-radius", "1", "--yaw-rate-deg", "10"], "give only one of them"),
        (["fox", "--control-hz", "70"], "--control-hz 70"),
        (["nosuch"], "unknown walker(s) nosuch; choose from fox, hound"),
        (["fox", "--video", "walk.avi"], "--video must name a .mp4 or .gif file"),
        (["fox", "--video", "walk"], "--video must name a .mp4 or .gif file"),
        (["fox", "--control", "kp"], "--control: takes FIELD=VALUE"),
        (["fox", "--control", "kp=2"], "kp is PyBullet's position gain, in (0, 1]; got 2"),
        (["fox", "--control", "roll_folow_planted=true"], "did you mean 'roll_follow_planted'"),
        (["fox", "--control", "body=free"], "set the scenario's body (--body"),
        (["fox", "--control", "kp=0.1", "--control", "kp=0.2"], "--control kp given more than"),
    ],
)
def test_bad_input_exits_2_with_a_message(argv, message, tmp_path):
    r = run(*argv, cwd=tmp_path)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert message in r.stderr
    assert "Traceback" not in r.stderr
    assert r.stdout == ""
    assert list(tmp_path.iterdir()) == []  # e.g. no video file, no temp file


def test_bad_input_is_rejected_before_pybullet_is_imported():
    code = (
        "import sys; from gaitsim.cli import main;"
        "rc = main(['walk', 'fox', '--slope-deg', '3', '-q']);"
        "print(rc, 'pybullet' in sys.modules)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.split() == ["2", "False"]


def test_gui_without_a_display_exits_2_with_the_display_message():
    r = run("fox", "--seconds", "1", "--gui", "-q")
    assert r.returncode == 2, r.stderr
    assert "--gui needs a display" in r.stderr and "DISPLAY" in r.stderr
    assert "Traceback" not in r.stderr


def test_help():
    r = subprocess.run(
        [sys.executable, "-m", "gaitsim.cli", "walk", "--help"], capture_output=True, text=True
    )
    assert r.returncode == 0
    for flag in ("--terrain", "--turn-radius", "--yaw-rate-deg", "--body", "--video", "--json"):
        assert flag in r.stdout
    top = subprocess.run([sys.executable, "-m", "gaitsim.cli", "--help"], capture_output=True,
                         text=True)  # fmt: skip
    assert "exit 1 unless it walked" in " ".join(top.stdout.split())  # the verdict's rule


def test_gif_video_is_written_headless_and_atomically(tmp_path):
    r = run("fox", "--seconds", "1", "--video", "out/walk.gif", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "wrote 30 frames" in r.stderr
    path = tmp_path / "out" / "walk.gif"
    with Image.open(path) as im:
        assert im.format == "GIF"
        assert im.size == (480, 360)
        assert im.n_frames >= 5
        im.seek(im.n_frames - 1)
        pixels = np.asarray(im.convert("RGB")).reshape(-1, 3)
        assert len(np.unique(pixels, axis=0)) > 3  # a picture, not a blank frame
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["walk.gif"]  # no temp file


def test_mp4_video(tmp_path):
    pytest.importorskip("imageio_ffmpeg")
    iio = pytest.importorskip("imageio.v2")
    r = run("horn_beetle", "--seconds", "1", "--video", "walk.mp4", "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    reader = iio.get_reader(tmp_path / "walk.mp4")
    fps = reader.get_meta_data()["fps"]
    frames = list(reader.iter_data())  # len(reader) is inf for ffmpeg
    reader.close()
    assert len(frames) == 30 and frames[0].shape == (360, 480, 3)
    assert fps == pytest.approx(30)
    assert [p.name for p in tmp_path.iterdir()] == ["walk.mp4"]


# ---------------------------------------------------------------------------- in-process


def test_mp4_without_the_extra_says_how_to_install_it(monkeypatch):
    from gaitsim.sim.video import VideoError, check_format

    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)  # import raises ImportError
    with pytest.raises(VideoError, match=r'pip install "gaitsim\[video\]".*\.gif'):
        check_format("walk.mp4")
    assert check_format("walk.GIF") == ".gif"


def test_a_failed_save_leaves_no_file(tmp_path, monkeypatch):
    from gaitsim.sim.robot import Robot
    from gaitsim.sim.video import VideoRecorder
    from gaitsim.sim.world import World

    with World() as world:
        rec = VideoRecorder(world, Robot(world, "fox"), fps=30, size=(64, 48))
        rec.capture()
        rec.capture()
    assert rec.frame(0).shape == (48, 64, 3)

    def boom(*a):
        raise OSError("disk full")

    monkeypatch.setattr(rec, "_save_gif", boom)
    with pytest.raises(OSError, match="disk full"):
        rec.save(tmp_path / "walk.gif")
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    rec.save(tmp_path / "walk.gif")
    assert [p.name for p in tmp_path.iterdir()] == ["walk.gif"]


def test_rough_ground_stand_in_changes_no_physics():
    from gaitsim.sim.robot import Robot
    from gaitsim.sim.video import VideoRecorder
    from gaitsim.sim.world import World
    from gaitsim.terrain import Rough

    terrain = Rough(0.04, wavelength=0.3, seed=3, size=4.0, flat_radius=0.3)
    xy = np.random.default_rng(0).uniform(-1.5, 1.5, (50, 2))
    with World(terrain) as world:
        robot = Robot(world, "fox")
        before = world.ray_heights(xy)
        rec = VideoRecorder(world, robot, size=(64, 48))
        rec.capture()
        after = world.ray_heights(xy)
    np.testing.assert_array_equal(before, after)
    np.testing.assert_allclose(after, terrain.height(xy[:, 0], xy[:, 1]), atol=1e-3)


def test_json_safe():
    data = {
        "a": np.float64(1.5),
        "b": float("-inf"),
        "c": [np.float32(np.nan), np.int64(3)],
        "d": np.array([1.0, np.inf]),
        "e": np.bool_(True),
        "f": None,
    }
    out = _json_safe(data)
    assert out == {"a": 1.5, "b": None, "c": [None, 3], "d": [1.0, None], "e": True, "f": None}
    assert type(out["c"][1]) is int and type(out["e"]) is bool
    json.dumps(out, allow_nan=False)


def test_a_fall_exits_1_and_the_table_says_so(monkeypatch, capsys):
    import gaitsim.sim.run as run_mod

    summary = {
        k: 0.0
        for k in (
            "simulated_s",
            "distance_m",
            "speed_m_s",
            "commanded_speed_m_s",
            "speed_ratio",
            "heading_error_deg",
            "slip_mm_per_stance",
            "max_shortfall_m",
            "foot_tracking_error_mm",
            "max_roll_deg",
            "max_pitch_deg",
        )
    }
    summary.update(
        walker="raptor",
        terrain="flat",
        path="Straight",
        body="free",
        distance_source="command",
        stances=3,
        min_support_margin_m=-math.inf,
        cost_of_transport=None,
        fell=True,
        time_to_fall_s=0.5,
        fall_reason="tilt",
        verdict="fell",
        verdict_reason="fell at 0.50 s (tilt)",
    )
    # a RunSummary holds every figure: the ones this test does not set are None
    summary = {k: None for k in RunSummary.keys() if k not in ASSIST_KEYS} | summary
    seen = {}

    def fake_simulate(walker, **kw):
        seen.update(kw)
        return run_mod.RunResult(dict(summary), {}, 1 / 60)

    monkeypatch.setattr(run_mod, "simulate", fake_simulate)
    argv = ["walk", "raptor", "-q", "--terrain", "slope", "--slope-deg", "5"]
    assert main([*argv, "--yaw-rate-deg", "90", "--body", "assist"]) == 1
    out = capsys.readouterr().out
    assert "YES after 0.50 s" in out
    assert "raptor did not walk: fell (fell at 0.50 s (tilt)); exit code 1" in out
    assert seen["yaw_rate"] == pytest.approx(math.pi / 2)
    assert seen["terrain"].describe() == "slope +5.0 deg"
    assert seen["config"].body == "assist"
    assert main(["walk", "raptor", "-q", "--json"]) == 1
    out = strict_json(capsys.readouterr().out)
    assert out["fell"] is True and out["min_support_margin_m"] is None


def test_swing_and_body_flags_reach_simulate(monkeypatch, capsys):
    import gaitsim.sim.run as run_mod
    from gaitsim.sim.metrics import verdict as verdict_of

    seen = {}
    real = run_mod.simulate

    def short_simulate(walker, **kw):
        seen.update(kw)
        kw["seconds"] = 0.5
        return real(walker, **kw)

    monkeypatch.setattr(run_mod, "simulate", short_simulate)
    code = main(["walk", "horn_beetle", "-q", "--json", "--swing", "clearance", "--seconds", "0.5"])
    out = strict_json(capsys.readouterr().out)
    assert seen["walker_options"] == {"swing": "clearance"} and out["swing"] == "clearance"
    assert seen["config"].body == "free"  # auto: a six-legged walker walks free
    assert out["verdict"] == verdict_of(out)[0] and code == (0 if out["verdict"] == "walked" else 1)
    for key in ("duty_by_leg", "touchdowns_per_stance", "contact_timing_error", "verdict_reason"):
        assert key in out
    main(["walk", "raptor", "-q", "--json", "--seconds", "0.5"])
    capsys.readouterr()
    assert seen["config"].body == "free"  # auto: a brisk biped on soles walks free
    main(["walk", "raptor", "-q", "--json", "--seconds", "0.5", "--engine", "mujoco"])
    capsys.readouterr()
    assert seen["config"].body == "assist"  # ... but on MuJoCo gets the assist


def test_control_values_are_read_as_json_or_kept_as_words():
    from gaitsim.cli import _control_pair

    assert _control_pair("roll_follow_planted=true") == ("roll_follow_planted", True)
    assert _control_pair(" slow_walk = False ") == ("slow_walk", False)
    assert _control_pair("preload=null") == ("preload", None)
    assert _control_pair("kp=0.1") == ("kp", 0.1)
    assert _control_pair("hip_facing=measured") == ("hip_facing", "measured")
    assert _control_pair("a=b=c") == ("a", "b=c")


def test_control_settings_reach_simulate(monkeypatch, capsys):
    """``--control FIELD=VALUE`` sets ControlConfig fields of the run (the raptor free with
    every planted sole following its roll, as docs/bipeds.md's stop 56 runs it)."""
    import gaitsim.sim.run as run_mod

    seen = {}
    real = run_mod.simulate

    def short_simulate(walker, **kw):
        seen.update(kw)
        return real(walker, **kw)

    monkeypatch.setattr(run_mod, "simulate", short_simulate)
    main(["walk", "raptor", "-q", "--json", "--seconds", "0.5", "--control",
          "roll_follow_planted=true", "--control", "kp=0.06"])  # fmt: skip
    out = strict_json(capsys.readouterr().out)
    config = seen["config"]
    assert (config.roll_follow_planted, config.kp, config.body) == (True, 0.06, "free")
    assert out["control"] == {"kp": 0.06, "roll_follow_planted": True}  # the run says so


def test_a_summary_records_the_settings_set_away_from_their_defaults():
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import control_settings

    assert control_settings(ControlConfig()) == {}
    # the body, distance source and rates have their own summary keys
    set_ = ControlConfig(body="assist", control_hz=120.0, servo_clock=2.0, kp=0.1,
                         slow_walk=False, distance_source="odometry")  # fmt: skip
    assert control_settings(set_) == {"kp": 0.1, "slow_walk": False}


def test_an_unknown_swing_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["walk", "fox", "--swing", "square"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--swing" in err and "square" in err and "clearance" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seconds", "1e9"], "--seconds is at most 36000"),
        (["--terrain", "rough", "--seconds", "30000"], "rough ground for this run would be"),
    ],
)
def test_runs_too_long_are_refused_before_any_allocation(argv, message, capsys):
    # a 1e9 s run used to try a 3 TiB allocation; rough ground laid for a 10-hour walk
    # would be a heightfield of a trillion cells
    assert main(["walk", "fox", "-q", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_simulate_refuses_a_run_longer_than_its_limit():
    from gaitsim.sim.run import MAX_SECONDS, RunError, simulate

    with pytest.raises(RunError, match="seconds must be in"):
        simulate("fox", seconds=MAX_SECONDS * 2)


def test_a_ten_hour_run_tabulates_only_what_it_walks(monkeypatch):
    # memory must not depend on the requested duration: the reference table is built a
    # minute ahead and grows as the walk goes (a 10-hour run used to tabulate 9.8 GB first)
    import gaitsim.sim.run as run_mod

    seen = {}
    real = run_mod.GaitController

    class Spy(real):
        def __init__(self, *a, horizon=0.0, **kw):
            seen["horizon"] = horizon
            super().__init__(*a, horizon=horizon, **kw)
            seen["table_samples"] = self.table.n

    def stop(ctl):
        raise KeyboardInterrupt  # the user's Ctrl-C after the first step

    monkeypatch.setattr(run_mod, "GaitController", Spy)
    with pytest.raises(KeyboardInterrupt):
        run_mod.simulate("fox", seconds=run_mod.MAX_SECONDS, on_step=stop)
    speed = 0.375  # the fox's clip speed
    assert seen["horizon"] <= speed * run_mod.TABLE_AHEAD_S * 1.05 + 1.0
    assert seen["table_samples"] < 200_000  # ~1.6 MB of floats, not gigabytes


def test_ctrl_c_stops_a_long_walk_cleanly():
    import signal
    import subprocess
    import sys
    import time

    def interruptible():
        # a terminal's Ctrl-C: SIGINT handled. A suite started in the background by a
        # non-interactive shell inherits SIGINT ignored (POSIX), and so would the walk
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    cmd = [sys.executable, "-m", "gaitsim.cli", "walk", "fox", "--seconds", "36000", "-q"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible)  # fmt: skip
    time.sleep(4.0)
    assert proc.poll() is None, proc.stderr.read()
    proc.send_signal(signal.SIGINT)
    try:
        err = proc.communicate(timeout=30)[1]
    finally:
        if proc.poll() is None:  # never leave a ten-hour walk running behind a failure
            proc.kill()
    assert proc.returncode == 130, err  # the shell's code for an interrupt
    assert "Traceback" not in err


def test_a_walker_whose_feet_all_stand_ahead_of_its_centre_is_told_where_its_body_went():
    """The front-footed hexapod of experiments/awkward_walkers.json (homes 40-160 mm ahead
    of the catalog's origin) has its body centred over its homes: the note names the
    100 mm and how to place the body instead; a walker whose origin is inside its homes
    gets no note."""
    from pathlib import Path

    from gaitsim.catalog import load_catalog
    from gaitsim.cli import _origin_note
    from gaitsim.walker import resolve_entry

    path = Path(__file__).resolve().parents[1] / "experiments" / "awkward_walkers.json"
    note = _origin_note(load_catalog(str(path))["forward_hex"])
    assert note is not None and "100 mm forward" in note and "around the origin" in note
    for name in ("fox", "horn_beetle", "mechanic"):
        assert _origin_note(resolve_entry(name)) is None


def test_a_free_biped_that_steps_slowly_and_falls_is_told_why():
    """``biped_tempo`` by hand: the mechanic's cycle, stride / duty / clip speed = 0.3 / 0.6
    / 0.6 = 0.833 s, over 2 pi sqrt(h / g) at its hip height; the note comes only for a free
    biped that fell slower than BRISK_BIPED_TEMPO, and names the clip speed that makes it
    brisk (the same stride) and the assist."""
    import dataclasses
    import math
    from types import SimpleNamespace

    from gaitsim.cli import _biped_tempo_note
    from gaitsim.geometry import GRAVITY, geometry
    from gaitsim.sim.run import BRISK_BIPED_TEMPO, biped_tempo
    from gaitsim.walker import resolve_entry

    mechanic = resolve_entry("mechanic")
    h = geometry(mechanic.gait).hip_height
    want = (0.3 / 0.6 / 0.6) / (2 * math.pi * math.sqrt(h / GRAVITY))
    assert biped_tempo(mechanic) == pytest.approx(want) and 0.55 < want < BRISK_BIPED_TEMPO
    assert biped_tempo(resolve_entry("fox")) is None
    slow = dataclasses.replace(mechanic, gait=dataclasses.replace(mechanic.gait, clip_speed=0.4))
    fell = SimpleNamespace(body="free", fell=True)
    note = _biped_tempo_note(slow, fell)
    assert note is not None and f"{biped_tempo(slow):.2f} periods" in note
    brisk = 0.4 * biped_tempo(slow) / BRISK_BIPED_TEMPO  # m/s: the same stride, 0.6 a cycle
    assert f"clip_speed of {brisk:.3g} m/s" in note and "--body assist (the default" in note
    # at 0.65 periods a biped is free by default on pybullet: the note does not call the
    # assist its default
    between = dataclasses.replace(mechanic, gait=dataclasses.replace(
        mechanic.gait, clip_speed=0.6 * biped_tempo(mechanic) / 0.65))
    assert "--body assist (not the default" in _biped_tempo_note(between, fell)
    # on mujoco the engine is the reason, whatever the tempo
    on_mujoco = _biped_tempo_note(mechanic, fell, "mujoco")
    assert "more often on mujoco" in on_mujoco and "--body assist" in on_mujoco
    assert _biped_tempo_note(mechanic, fell) is None  # brisk already
    assert _biped_tempo_note(slow, SimpleNamespace(body="assist", fell=True)) is None
    assert _biped_tempo_note(slow, SimpleNamespace(body="free", fell=False)) is None
    assert _biped_tempo_note(resolve_entry("fox"), fell) is None


def test_a_biped_on_the_assist_by_default_is_told_why():
    """``_biped_assist_note``: for each reason ``default_body`` gives a biped the assist
    (a flight phase, point feet, MuJoCo, a tempo past FREE_BIPED_TEMPO) the note names it;
    the slow one's brisk clip speed by hand (the tempo scales as 1 / clip speed). Nothing
    for a body asked for, a free body, or a walker that is not a biped."""
    import dataclasses
    from types import SimpleNamespace

    from gaitsim.cli import _biped_assist_note
    from gaitsim.feet import SPHERE_FOOT
    from gaitsim.sim.run import FREE_BIPED_TEMPO, biped_tempo
    from gaitsim.walker import resolve_entry

    raptor = resolve_entry("raptor")

    def gait(**change):
        return dataclasses.replace(raptor, gait=dataclasses.replace(raptor.gait, **change))

    assisted = SimpleNamespace(body="assist")
    slow = gait(clip_speed=raptor.gait.clip_speed / 2)  # twice the cycle: 1.33 periods
    assert biped_tempo(slow) == pytest.approx(2 * biped_tempo(raptor))
    note = _biped_assist_note(slow, assisted, "auto", "pybullet")
    brisk = slow.gait.clip_speed * biped_tempo(slow) / FREE_BIPED_TEMPO
    assert f"{biped_tempo(slow):.2f} periods" in note and f"{brisk:.3g} m/s" in note
    assert "--body free" in note
    assert "flight phases" in _biped_assist_note(gait(duty=0.45), assisted, "auto", "pybullet")
    spheres = gait(legs=tuple(dataclasses.replace(leg, foot=SPHERE_FOOT)
                              for leg in raptor.gait.legs))  # fmt: skip
    assert "point feet" in _biped_assist_note(spheres, assisted, "auto", "pybullet")
    assert "on mujoco" in _biped_assist_note(raptor, assisted, "auto", "mujoco")
    assert _biped_assist_note(slow, assisted, "assist", "pybullet") is None  # asked for
    assert _biped_assist_note(raptor, SimpleNamespace(body="free"), "auto", "pybullet") is None
    assert _biped_assist_note(resolve_entry("fox"), assisted, "auto", "pybullet") is None


def test_a_hop_and_a_pronk_are_told_they_fly():
    """Legs that all move as one leave the ground together at any duty: the raptor with
    both legs at one phase (duty 0.6, up together 0.4 of the cycle) gets the assist by
    default and is told so in those words, as is the fox as a pronk (duty 0.7, 0.3); a
    flight gait that did not walk is told how its body's height is planned. Nothing for
    a walker with no flight phase, and no default-body reason for a body asked for."""
    import dataclasses
    from types import SimpleNamespace

    from gaitsim.cli import _biped_assist_note, _flight_note
    from gaitsim.sim.run import default_body
    from gaitsim.walker import resolve_entry

    def as_one(name, **change):
        e = resolve_entry(name)
        legs = tuple(dataclasses.replace(leg, phase=0.0) for leg in e.gait.legs)
        return dataclasses.replace(e, gait=dataclasses.replace(e.gait, legs=legs, **change))

    hop, pronk = as_one("raptor"), as_one("fox")
    assert default_body(hop) == default_body(pronk) == "assist"
    assisted = SimpleNamespace(body="assist", walked=True)
    carried = SimpleNamespace(body="assist", walked=False)
    note = _biped_assist_note(hop, assisted, "auto", "pybullet")
    assert "off the ground together for 40% of each cycle (a hop" in note
    assert _flight_note(hop, assisted, "auto") is None  # the biped's note says why
    low = _biped_assist_note(as_one("raptor", duty=0.4), assisted, "auto", "pybullet")
    assert "(duty 0.4 < 0.5: every foot up together for 60% of each cycle)" in low
    assert "ballistically" in _flight_note(hop, carried, "auto")
    note = _flight_note(pronk, assisted, "auto")
    assert "gets --body assist by default" in note and "30% of each cycle (a pronk" in note
    assert "ballistically" not in note  # walked: nothing to explain
    brief = as_one("fox", duty=0.9)  # up together 0.1 of the cycle: a level path
    assert "level body path" in _flight_note(brief, carried, "auto")
    assert _flight_note(pronk, assisted, "assist") is None  # asked for, and walked
    fox = resolve_entry("fox")
    assert _flight_note(fox, SimpleNamespace(body="free", walked=False), "auto") is None


def test_a_narrow_body_that_drifts_out_on_an_arc_is_told_what_to_try():
    from types import SimpleNamespace

    from gaitsim.cli import _arc_drift_note

    def run(**change):
        base = dict(body="free", path="Arc", fell=False, speed_ratio=1.36, tipping_ratio=4.9)
        return SimpleNamespace(**{**base, **change})

    note = _arc_drift_note(run())
    assert "1.36 times" in note and "side_track_gain=0.5" in note and "4.9 times" in note
    assert _arc_drift_note(run(speed_ratio=1.1)) is None  # on its plan
    assert _arc_drift_note(run(path="Straight")) is None
    assert _arc_drift_note(run(fell=True)) is None
    assert _arc_drift_note(run(body="assist")) is None
    assert _arc_drift_note(run(tipping_ratio=3.0)) is None  # wide: tracked in full
    assert _arc_drift_note(run(tipping_ratio=None)) is None


def test_the_narrow_body_note_is_for_point_feet_only():
    """A free biped on soles that fell, standing tall over its track, is not told the
    point-footed rule (whose walkers get the assist by default); a point-footed one is."""
    from types import SimpleNamespace

    from gaitsim.cli import _narrow_note
    from gaitsim.walker import resolve_entry

    fell = SimpleNamespace(body="free", fell=True, tipping_ratio=8.0)
    assert _narrow_note(fell, resolve_entry("raptor")) is None
    assert "times as tall as half its track" in _narrow_note(fell, resolve_entry("fox"))


def test_a_free_trot_near_duty_half_that_falls_on_a_slope_gets_the_slope_note():
    """Generated trot 3056 (duty 0.54, its drift on a diagonal growing 13.6-fold: free by
    default, under LINE_GROWTH_LIMIT) walks flat ground and falls climbing 5 deg (3.2 s);
    the note says what such trots measured and what to change. A fall on flat ground, a
    walk, a body held up, a gait with a four-foot phase or a short stand get no such note."""
    import math
    from types import SimpleNamespace

    from gaitsim.cli import _line_balance_note, _slope_line_note
    from gaitsim.generate import random_entry
    from gaitsim.sim.run import (
        LINE_GROWTH_LIMIT,
        SLOPE_LINE_DUTY,
        SLOPE_LINE_GROWTH,
        default_body,
        simulate,
    )
    from gaitsim.terrain import Slope
    from gaitsim.walker import resolve_entry

    trot = random_entry(3056)
    assert default_body(trot) == "free" and trot.gait.duty < SLOPE_LINE_DUTY
    s = simulate(trot, seconds=5.0, terrain=Slope(math.radians(5.0))).figures
    assert s.fell and SLOPE_LINE_GROWTH < s.line_drift_growth < LINE_GROWTH_LIMIT
    note = _slope_line_note(s, trot)
    assert note is not None and "duty 0.5435" in note and "13.6-fold" in note
    assert "--body assist" in note and "26 climbed" in note
    assert _line_balance_note(s) is None  # the long-stand note: past LINE_GROWTH_LIMIT only
    fell = {"body": "free", "fell": True, "line_drift_growth": 13.6}
    assert _slope_line_note(SimpleNamespace(**fell, terrain="flat"), trot) is None
    for change in ({"fell": False}, {"body": "assist"}, {"line_drift_growth": 6.0},
                   {"line_drift_growth": 20.0}):  # past the limit: the long-stand note's
        assert _slope_line_note(SimpleNamespace(**{**fell, "terrain": "slope +5.0 deg",
                                                  **change}), trot) is None  # fmt: skip
    assert _slope_line_note(SimpleNamespace(**fell, terrain="slope -5.0 deg"),
                            resolve_entry("fox")) is None  # duty 0.7


def test_a_gait_standing_beside_the_body_that_does_not_walk_free_gets_the_note(capsys):
    """The sixth catalog's Minitaur bound (duty 0.5: never all four feet down) pitches and
    reaches short free; the walk says why and what to change. A pace whose drift grows
    past OFFSET_LINE_GROWTH_LIMIT gets the note with its growth; a walk, a body held up or
    a trot (its diagonals under the body) gets none."""
    from pathlib import Path
    from types import SimpleNamespace

    from gaitsim.catalog import load_catalog
    from gaitsim.cli import _line_balance_note

    path = Path(__file__).resolve().parents[1] / "experiments" / "sixth_catalog.json"
    code = main(["walk", "minitaur_bound", "--catalog", str(path), "--body", "free",
                 "--seconds", "4"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 1 and "beside the body's centre" in err and "never all down" in err
    sixth = load_catalog(path)
    pace = SimpleNamespace(body="free", walked=False, fell=True, line_drift_growth=8.6)
    note = _line_balance_note(pace, sixth["giraffe_pace"])
    assert note is not None and "grows 8.6-fold (over 7)" in note and "--body assist" in note
    assert _line_balance_note(SimpleNamespace(**{**vars(pace), "walked": True}),
                              sixth["giraffe_pace"]) is None  # fmt: skip
    assert _line_balance_note(SimpleNamespace(**{**vars(pace), "body": "assist"}),
                              sixth["giraffe_pace"]) is None  # fmt: skip
    assert _line_balance_note(pace, sixth["spot_trot"]) is None
    assert _line_balance_note(pace) is None  # without the walker: the trot's limit alone
