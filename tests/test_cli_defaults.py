"""CLI output hygiene: default output folders stay out of the tracked tree, help texts say
what the commands print, and -q is quiet."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gaitsim import load_catalog
from gaitsim.cli import URDF_DEFAULT_OUT, build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def tracked(folder: str) -> list[str]:
    """Tracked files under ``folder`` of this checkout (skips the test outside a git work tree)."""
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    out = subprocess.run(
        [git, "ls-files", "--", folder], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return out.stdout.split()


def test_urdf_writes_outside_the_tracked_urdf_folder_by_default(tmp_path, monkeypatch):
    assert build_parser().parse_args(["urdf"]).out == URDF_DEFAULT_OUT != "urdf"
    assert tracked(URDF_DEFAULT_OUT) == []
    assert tracked("urdf"), "the built-in URDFs are tracked in urdf/"
    monkeypatch.chdir(tmp_path)
    assert main(["urdf", "-q"]) == 0
    assert sorted(p.stem for p in (tmp_path / URDF_DEFAULT_OUT).glob("*.urdf")) == sorted(
        load_catalog()
    )
    assert not (tmp_path / "urdf").exists()


def test_report_default_folder_is_not_tracked():
    out = build_parser().parse_args(["report"]).out
    assert tracked(out) == []


def test_sweep_default_folder_is_not_tracked(tmp_path, monkeypatch):
    assert build_parser().parse_args(["sweep", "speed"]).out is None  # sweeps/<name>
    definition = tmp_path / "tiny.toml"
    definition.write_text(
        'name = "tiny"\nparameter = "speed_scale"\nvalues = [1.0]\nwalkers = ["fox"]\n'
        "seeds = 1\nseconds = 0.2\n"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["sweep", str(definition), "--workers", "1", "--no-plots", "-q"]) == 0
    assert (tmp_path / "sweeps" / "tiny" / "results.csv").is_file()
    assert tracked("sweeps") == []


def test_validate_json_help_names_the_keys_it_prints(capsys):
    sub = build_parser()._subparsers._group_actions[0].choices["validate"]
    help_text = " ".join(next(a.help for a in sub._actions if "--json" in a.option_strings).split())
    assert main(["validate", "--json", "-q"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert isinstance(out, list) and "JSON list" in help_text
    assert "one object per walker" in help_text and len(out) == len(load_catalog())
    keys = re.findall(r"[a-z_]+", help_text.split("keys", 1)[1])
    for obj in out:
        assert set(obj) <= set(keys), set(obj) - set(keys)
    assert set(out[0]) == {"walker", "mode", "pass", "foot_slide_mm", "max_shortfall_m", "limit_mm"}


def test_quiet_walk_prints_no_pybullet_banner(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["GAITSIM_CACHE"] = str(tmp_path / "cache")
    r = subprocess.run(
        [sys.executable, "-m", "gaitsim.cli", "walk", "fox", "--seconds", "0.5", "-q"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert "distance m" in r.stdout
    assert "pybullet build time" not in r.stdout
    assert "pybullet build time" not in r.stderr
