"""The walk-test validator and the kinematic CLI commands (catalog, validate, clip)."""

import json
import subprocess
import sys
from importlib import resources

import numpy as np
import pytest

from gaitsim import load_catalog
from gaitsim.cli import main
from gaitsim.validate import VARIANTS, validate_entry, walk_test

CAT = load_catalog()


def run(*argv):
    return subprocess.run(
        [sys.executable, "-m", "gaitsim.cli", *argv], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("name", list(CAT))
def test_validator_planted_and_body_frame(name):
    r = validate_entry(CAT[name])
    assert r["pass"]
    assert set(r["foot_slide_mm"]) == {v.name for v in VARIANTS}
    assert max(r["foot_slide_mm"].values()) < 1e-6
    body = validate_entry(CAT[name], mode="body")
    assert body["foot_slide_mm"]["straight"] < 1e-6
    assert body["foot_slide_mm"]["turn_in_place"] > 1.0
    assert not body["pass"]
    assert walk_test(CAT[name]) < 1e-6


def test_builtin_catalog_stores_the_measured_walk_test():
    for e in CAT.values():
        assert e.walk_test["foot_slide_mm"] == pytest.approx(walk_test(e), abs=1e-6)


def test_validate_json_and_exit_codes(capsys):
    assert main(["validate", "--json", "-q"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [o["walker"] for o in out] == list(CAT)
    for o in out:
        assert all(isinstance(v, float) for v in o["foot_slide_mm"].values())
    assert main(["validate", "-q", "--mode", "body"]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_validate_fails_a_walker_whose_feet_cannot_reach(tmp_path, capsys):
    data = {
        "tall": {
            "gait": {
                "stride": 0.1,
                "duty": 0.6,
                "lift": 0.02,
                "clip_speed": 0.2,
                "hip_height": 0.5,
                "segments": [
                    {
                        "name": "l",
                        "side": "L",
                        "phase": 0,
                        "knee": "forward",
                        "upper": 0.1,
                        "lower": 0.1,
                        "home": [0.05, 0, 0],
                    },
                    {
                        "name": "r",
                        "side": "R",
                        "phase": 0.5,
                        "knee": "forward",
                        "upper": 0.1,
                        "lower": 0.1,
                        "home": [-0.05, 0, 0],
                    },
                ],
            }
        }
    }
    path = tmp_path / "tall.json"
    path.write_text(json.dumps(data))
    assert main(["validate", "-q", "--catalog", str(path)]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_validate_write_updates_the_catalog_atomically(tmp_path, capsys):
    src = json.loads(resources.files("gaitsim").joinpath("data/catalog.json").read_text())
    src["fox"]["walk_test"] = {"foot_slide_mm": 99.0, "note": "kept"}
    src["fox"]["gait"]["custom_key"] = [1, 2]
    path = tmp_path / "cat.json"
    path.write_text(json.dumps(src))
    assert main(["validate", "-q", "--catalog", str(path), "--write"]) == 0
    saved = json.loads(path.read_text())
    assert saved["fox"]["walk_test"]["foot_slide_mm"] == pytest.approx(0.0, abs=1e-6)
    assert saved["fox"]["walk_test"]["note"] == "kept"
    assert saved["fox"]["gait"]["custom_key"] == [1, 2]
    assert [p.name for p in tmp_path.iterdir()] == ["cat.json"]  # no temp file left
    # --write without --catalog is a usage error
    assert main(["validate", "-q", "--write"]) == 2
    assert "--catalog" in capsys.readouterr().err


def test_catalog_command_lists_walkers(capsys):
    assert main(["catalog"]) == 0
    out = capsys.readouterr().out
    for name, pattern in [
        ("fox", "walk"),
        ("hound", "trot"),
        ("mechanic", "biped"),
        ("horn_beetle", "tripod"),
        ("spider_bot", "wave"),
    ]:
        line = next(ln for ln in out.splitlines() if ln.startswith(name))
        assert pattern in line
    assert main(["catalog", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    fox = rows[0]
    assert fox["cycle_m"] == pytest.approx(0.15 / 0.7)
    assert fox["speed_m_s"] == 0.375 and fox["legs"] == 4


def test_the_catalog_listing_says_which_body_physics_gives_each_walker(tmp_path, capsys):
    # free for the multi-legged walkers, the assist for two or three legs (and for gaits
    # the line-drift rule picks); "-" for a walker no body can stand on
    seg = {"name": "a", "side": "L", "phase": 0.0, "knee": "forward", "upper": 0.1,
           "lower": 0.1, "home": [0.05, 0, 0.1]}  # fmt: skip
    legs = [seg, {**seg, "name": "b", "side": "R", "phase": 0.5, "home": [-0.05, 0, 0.1]},
            {**seg, "name": "c", "phase": 0.25, "home": [0.05, 0, -0.1]},
            {**seg, "name": "d", "side": "R", "phase": 0.75, "home": [-0.05, 0, -0.1]}]
    walk = {"stride": 0.05, "duty": 0.75, "lift": 0.02, "clip_speed": 0.1, "segments": legs}
    cat = {"walk": {"gait": walk}, "tri": {"gait": {**walk, "segments": legs[:3]}},
           "stilts": {"gait": {**walk, "lift": 0.19}}}  # fmt: skip
    path = tmp_path / "cat.json"
    path.write_text(json.dumps(cat))
    assert main(["catalog", "--catalog", str(path), "--json"]) == 0
    body = {r["walker"]: r["default_body"] for r in json.loads(capsys.readouterr().out)}
    assert body == {"walk": "free", "tri": "assist", "stilts": None}
    assert main(["catalog", "--catalog", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[-1] == "body"
    assert [ln.split()[-1] for ln in lines[2:]] == ["free", "assist", "-"]
    assert main(["catalog", "--json"]) == 0
    built_in = {r["walker"]: r["default_body"] for r in json.loads(capsys.readouterr().out)}
    assert built_in["mechanic"] == "free" and built_in["spider_bot"] == "free"


@pytest.mark.parametrize("fmt", ["csv", "json", "npz"])
def test_clip_formats(tmp_path, fmt):
    out = tmp_path / f"fox.{fmt}"
    assert main(["clip", "fox", "--out", str(out), "-q"]) == 0
    if fmt == "csv":
        lines = [ln for ln in out.read_text().splitlines() if not ln.startswith("#")]
        header = lines[0].split(",")
        assert header[:4] == ["phase", "distance_m", "time_s", "body_z_m"]
        assert "leg_0_hip_roll" in header and "leg_3_knee" in header
        assert len(lines) == 121 and len(lines[1].split(",")) == 4 + 12
        assert "speed / clip_speed" in out.read_text()
    elif fmt == "json":
        data = json.loads(out.read_text())
        assert len(data["frames"]) == 120 and len(data["joint_names"]) == 12
        assert data["duration_s"] == pytest.approx((0.15 / 0.7) / 0.375)
    else:
        z = np.load(out)
        assert z["joints_rad"].shape == (120, 12)
        assert np.all(np.isfinite(z["joints_rad"]))


def test_clip_matches_the_walker_and_loops():
    from gaitsim import Walker
    from gaitsim.validate import bake_clip

    clip = bake_clip(CAT["horn_beetle"], samples=60)
    w = Walker(CAT["horn_beetle"])
    assert np.allclose(clip["joints_rad"][7], w.pose_at(7 / 60 * w.cycle).joints.ravel())
    # the frame after the last is the first again: the clip loops without a seam
    nxt = w.pose_at(w.cycle).joints.ravel()
    assert np.allclose(nxt, clip["joints_rad"][0], atol=1e-9)


def test_cli_errors_are_clear_and_leave_no_file(tmp_path):
    bad = run("clip", "fox", "--out", str(tmp_path / "fox.txt"))
    assert bad.returncode == 2 and ".csv, .json or .npz" in bad.stderr
    assert not any(tmp_path.iterdir())
    unknown = run("clip", "unicorn", "--out", str(tmp_path / "u.csv"))
    assert unknown.returncode == 2 and "fox" in unknown.stderr
    assert not any(tmp_path.iterdir())
    missing = run("validate", "--catalog", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "fox": {\n    "gait": [1,,2]\n  }\n}\n')
    r = run("catalog", "--catalog", str(broken))
    assert r.returncode == 2 and "line 3, column" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("cmd", ["catalog", "validate", "clip", "urdf"])
def test_every_command_has_help(cmd):
    r = run(cmd, "--help")
    assert r.returncode == 0 and "usage:" in r.stdout


def test_validate_notes_a_body_centred_over_feet_all_on_one_side(capsys):
    """The front-footed hexapod of experiments/awkward_walkers.json passes the kinematic
    walk test, and validate says its body is centred over its homes (100 mm ahead of the
    catalog's origin); the built-in walkers get no note, and --quiet keeps it out."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "experiments" / "awkward_walkers.json"
    assert main(["validate", "--catalog", str(path)]) == 0
    err = capsys.readouterr().err
    notes = [line for line in err.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1 and notes[0].startswith("note: forward_hex: ")
    assert "100 mm forward" in notes[0]
    assert main(["validate", "--catalog", str(path), "-q"]) == 0
    assert "note:" not in capsys.readouterr().err
    assert main(["validate"]) == 0
    assert "note:" not in capsys.readouterr().err


def test_a_walker_whose_legs_share_one_home_beside_the_origin_validates(tmp_path, capsys):
    # found by the fuzz test: three legs at one home 1e-299 m ahead of a point 125 mm left
    # of the origin. The body is centred over them, which leaves the homes 1e-315 m from
    # its origin; turning in place with that as its radius overflowed the turn's angle to
    # inf and the walk test stopped in an SVD. The radius now falls back to half the body
    seg = {"name": "leg_0", "side": "L", "phase": 0.0, "knee": "up", "upper": 0.25,
           "lower": 0.25, "home": [0.125, 0.0, 1.1201415918042927e-299]}  # fmt: skip
    gait = {"stride": 0.125, "duty": 0.5, "lift": 0.0, "clip_speed": 1.0,
            "segments": [dict(seg, name=f"leg_{i}") for i in range(3)],
            "foot_radius": 0.015625, "body": [0.5, 0.5, 0.5]}  # fmt: skip
    path = tmp_path / "one_home.json"
    path.write_text(json.dumps({"one_home": {"gait": gait}}))
    assert main(["validate", "-q", "--catalog", str(path)]) == 0
    out = capsys.readouterr().out
    assert "one_home" in out and "ok" in out

    from gaitsim.catalog import load_catalog
    from gaitsim.validate import turn_radius

    assert turn_radius(load_catalog(path)["one_home"]) == 0.25  # half the 0.5 m body
