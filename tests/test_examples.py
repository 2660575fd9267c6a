"""The examples/ folder runs: the custom walker validates, the scripts finish and write
their outputs (each with tiny settings, in a temporary folder)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gaitsim import load_catalog
from gaitsim.catalog import dumps_catalog

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
MY_WALKER = EXAMPLES / "my_walker.json"


def run(args, cwd: Path, timeout: float = 120.0):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["GAITSIM_CACHE"] = str(cwd / "urdf-cache")  # keep the URDF cache out of $HOME
    env.setdefault("MPLBACKEND", "Agg")
    return subprocess.run(
        [sys.executable, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
    )


def test_my_walker_is_a_new_walker_that_passes_validate(tmp_path):
    cat = load_catalog(MY_WALKER)
    builtin = load_catalog()
    assert len(cat) >= 1
    for name, entry in cat.items():
        assert name not in builtin
        assert all(entry.gait != b.gait for b in builtin.values())
    assert MY_WALKER.read_text("utf-8") == dumps_catalog(cat)  # the saver's own layout
    r = run(["-m", "gaitsim.cli", "validate", "--catalog", MY_WALKER, "--json", "-q"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert all(w["pass"] for w in json.loads(r.stdout))


def test_walk_and_plot(tmp_path):
    out = tmp_path / "plots"
    r = run([EXAMPLES / "walk_and_plot.py", "--seconds", "1", "--out", out], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    name = next(iter(load_catalog(MY_WALKER)))
    for png in (f"{name}_body_x.png", f"{name}_gait.png"):
        path = out / png
        assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png
    assert "distance" in r.stdout and "fell                 no" in r.stdout


def test_train_rl(tmp_path):
    pytest.importorskip("stable_baselines3", reason="rl extra not installed")
    args = ["--steps", "64", "--episode-steps", "30", "--eval-episodes", "1", "--out", "rl"]
    r = run([EXAMPLES / "train_rl.py", *args], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "mean return" in r.stdout
    assert list((tmp_path / "rl").glob("ppo_*.zip"))


@pytest.mark.parametrize("script", ["walk_and_plot.py", "train_rl.py"])
def test_examples_answer_help(script, tmp_path):
    r = run([EXAMPLES / script, "--help"], tmp_path)
    assert r.returncode == 0 and "usage:" in r.stdout, r.stderr
    assert "--out" in r.stdout
