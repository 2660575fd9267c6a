"""The RL baseline path, tiny: PPO trains a few hundred steps on the gait-prior env and the
evaluation reports every figure the baseline table needs (the full grid is
experiments/rl/run_baselines.py)."""

import csv
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("stable_baselines3", reason="rl extra not installed")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments" / "rl"))

import train


@pytest.mark.parametrize("mode", ["residual", "prior"])
def test_ppo_smoke_run_writes_a_learning_curve(tmp_path, mode):
    s = train.train("fox", "flat", mode, 0, 256, tmp_path, eval_every=128, eval_episodes=1)
    for key in ("return", "distance_m", "speed_ratio", "slip_mm", "falls_per_episode"):
        assert key in s
    rows = list(csv.DictReader(open(tmp_path / f"fox_flat_{mode}_s0.csv")))
    assert rows and int(rows[-1]["steps"]) == (0 if mode == "prior" else 256)
    assert json.loads((tmp_path / f"fox_flat_{mode}_s0.json").read_text())["mode"] == mode
    # the gait prior walks from the first step: a residual policy starts near it
    assert s["distance_m"] > 0.5 * 0.375 * train.EPISODE_STEPS / 60


def test_a_capped_progress_run_is_tagged_and_records_its_weight(tmp_path):
    s = train.train(
        "fox", "flat", "modulate", 0, 128, tmp_path, eval_every=128, eval_episodes=1, overspeed=1.0
    )
    assert s["overspeed_weight"] == 1.0
    assert (tmp_path / "fox_flat_modulate_s0_overspeed1.csv").exists()
    env = train.make_env("fox", "flat", "modulate", 0, overspeed=1.0)
    assert env.unwrapped.task.weights.overspeed == 1.0
    env.close()


def test_training_leaves_no_logger_folder_in_the_temp_directory(tmp_path, monkeypatch):
    # SB3 without a logger of its own makes an empty SB3-<date> folder per learn()
    import tempfile

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    train.train("fox", "flat", "residual", 0, 64, tmp_path / "out", eval_every=64, eval_episodes=1)
    assert [p.name for p in scratch.glob("SB3-*")] == []
