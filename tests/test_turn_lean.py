"""Leaning into arcs in physics (``Walker.turn_shift``, ``sim.run.TURN_LEAN``): walkers
that drifted out of or fell off an arc walk it with the body's centre moved toward the
turn's centre by h v^2 / (r g)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaitsim.catalog import load_catalog
from gaitsim.sim.controller import ControlConfig
from gaitsim.sim.run import simulate

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


@pytest.mark.slow
@pytest.mark.parametrize(("catalog", "name", "radius"), [
    ("second_catalog.json", "spot", 1.0),  # drifted outward: speed ratio 1.36, no_progress
    ("sixth_catalog.json", "tolt_pony", 4.5),  # 350 kg at 3 m/s: tipped over at 3.7 s
])  # fmt: skip
def test_walkers_that_left_an_arc_upright_walk_it_leaning_in(catalog, name, radius):
    entry = load_catalog(EXPERIMENTS / catalog)[name]
    cfg = ControlConfig(body="auto")
    lean = simulate(entry, seconds=10.0, turn_radius=radius, config=cfg).summary
    assert lean["verdict"] == "walked", lean["verdict_reason"]
    assert lean["touchdowns_per_stance"] <= 1.2 and abs(lean["speed_ratio"] - 1.0) <= 0.05
    upright = simulate(entry, seconds=10.0, turn_radius=radius, config=cfg,
                       walker_options={"turn_lean": 0.0}).summary  # fmt: skip
    assert upright["verdict"] != "walked"
