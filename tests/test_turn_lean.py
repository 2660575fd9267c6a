"""Leaning into arcs in physics (``Walker.turn_shift``, ``sim.run.TURN_LEAN``): walkers
that drifted out of or fell off an arc walk it with the body's centre moved toward the
turn's centre by h v^2 / (r g)."""

from __future__ import annotations

import math
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


def test_the_arc_demand_by_hand():
    """``arc_demand``: v^2 / |r| over g / tipping ratio, the same either way round; 0 for
    feet in one line along the body."""
    from gaitsim.geometry import GRAVITY, geometry
    from gaitsim.sim.run import arc_demand
    from gaitsim.sim.stance import tipping_ratio

    pony = load_catalog(EXPERIMENTS / "sixth_catalog.json")["tolt_pony"]
    ratio = tipping_ratio(geometry(pony.gait))
    want = 3.0**2 / 1.5 / (GRAVITY / ratio)
    assert arc_demand(pony, 3.0, 1.5) == pytest.approx(want, rel=1e-12)
    assert arc_demand(pony, 3.0, -1.5) == pytest.approx(want, rel=1e-12)
    assert arc_demand(pony, 3.0, 1.5 * want) == pytest.approx(1.0)
    assert math.isclose(arc_demand("fox", 0.0, 1.0), 0.0)


def test_an_arc_asking_more_than_the_track_holds_gets_a_note(capsys):
    """The sixth catalog's pony (3 m/s) on a 1.5 m arc: 0.61 g sideways, 2.8 times what
    its track holds; it tips over and the walk names the arc and speed that would hold.
    A walked arc, a straight path or a milder arc gets no such note."""
    from types import SimpleNamespace

    from gaitsim.cli import _arc_demand_note, main

    path = EXPERIMENTS / "sixth_catalog.json"
    code = main(["walk", "tolt_pony", "--catalog", str(path), "--turn-radius", "1.5",
                 "--seconds", "4"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 1 and "0.61 g, 2.8 times what the feet's half track holds" in err
    assert "An arc of 4.23 m or more, or --speed-scale 0.60 or less" in err
    pony = load_catalog(path)["tolt_pony"]
    args = SimpleNamespace(turn_radius=1.5, yaw_rate_deg=None, speed_scale=1.0)
    ran = {"path": "Arc", "walked": False, "commanded_speed_m_s": 3.0}
    assert _arc_demand_note(pony, SimpleNamespace(**ran), args) is not None
    for change in ({"walked": True}, {"path": "Straight"}):
        assert _arc_demand_note(pony, SimpleNamespace(**{**ran, **change}), args) is None
    wide = SimpleNamespace(turn_radius=6.0, yaw_rate_deg=None, speed_scale=1.0)
    assert _arc_demand_note(pony, SimpleNamespace(**ran), wide) is None
    by_rate = SimpleNamespace(turn_radius=None, yaw_rate_deg=math.degrees(3.0 / 1.5),
                              speed_scale=1.0)  # fmt: skip
    assert "1.5 m arc" in _arc_demand_note(pony, SimpleNamespace(**ran), by_rate)

