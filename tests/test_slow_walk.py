"""The slow walk's stance (stop 55): a free biped on soles whose gait cycle lasts more than
``FREE_BIPED_TEMPO`` pendulum periods stands on ``SLOW_WALK`` by default (the whole toe for
the stance ankle, ``ControlConfig.cop_toe_share``, and the push-off); brisker bipeds, bodies
held by the assist and point feet keep the plain stance; every field a user sets wins."""

from __future__ import annotations

import dataclasses
import math

import pytest

from gaitsim.geometry import GRAVITY, geometry
from gaitsim.sim.controller import PUSH_OFF, SLOW_WALK, ControlConfig
from gaitsim.sim.run import clip_speed_at_tempo
from gaitsim.sim.soles import COP_TOE_SHARE
from gaitsim.sim.stance import FREE_BIPED_TEMPO, pendulum_tempo
from gaitsim.walker import resolve_entry

SLOW_SEED = 35  # a generated biped at 1.10 pendulum periods a cycle, duty 0.82


def slowed(name: str, tempo: float):
    """A built-in biped with its clip speed lowered so its cycle lasts ``tempo`` periods
    (the stride kept)."""
    entry = resolve_entry(name)
    speed = clip_speed_at_tempo(entry, tempo)
    return dataclasses.replace(entry, gait=dataclasses.replace(entry.gait, clip_speed=speed))


def test_pendulum_tempo_by_hand():
    """The mechanic: stride 0.3 m, duty 0.6, clip speed 0.6 m/s: a 0.5 m cycle in 0.833 s;
    over 2 pi sqrt(h / g) at its hip height."""
    g = resolve_entry("mechanic").gait
    h = geometry(g).hip_height
    want = (0.3 / 0.6 / 0.6) / (2 * math.pi * math.sqrt(h / GRAVITY))
    assert pendulum_tempo(g, h) == pytest.approx(want, rel=1e-12)
    assert pendulum_tempo(slowed("mechanic", 0.9).gait, h) == pytest.approx(0.9, rel=1e-12)


def test_slow_free_bipeds_stand_on_the_slow_walk_by_default(built_controller):
    """By tempo: the mechanic (0.59 periods) keeps the plain stance, slowed past
    FREE_BIPED_TEMPO it gets SLOW_WALK's three settings; under the assist, on point feet
    or when told, not; ``slow_walk=True`` turns it on for a brisk biped."""
    slow = slowed("mechanic", FREE_BIPED_TEMPO + 0.1)

    def stance(entry, **config):
        c = built_controller(entry, **config)
        return c.slow_walk, c._roll_follow, c._track_lead, c._toe_share

    plain = (False, None, 0.0, COP_TOE_SHARE)
    on = (True, SLOW_WALK["roll_follow"], SLOW_WALK["sole_track_lead"], SLOW_WALK["cop_toe_share"])
    assert stance("mechanic") == plain
    assert stance(slowed("mechanic", FREE_BIPED_TEMPO - 0.01)) == plain
    assert stance(slow) == on
    assert stance(slow, body="assist") == plain
    assert stance(slow, slow_walk=False) == plain
    assert stance("mechanic", slow_walk=True) == on
    assert stance("fox", slow_walk=True) == (False, None, 0.0, COP_TOE_SHARE)  # no soles
    # what a user sets wins over the slow walk's
    assert stance(slow, roll_follow=0.05, sole_track_lead=0.0, cop_toe_share=0.6) == (
        True, 0.05, 0.0, 0.6)  # fmt: skip
    assert SLOW_WALK == {"cop_toe_share": 1.0, **PUSH_OFF}


def test_the_stance_ankle_s_toe_share_sets_its_pitch_range(sole_driver):
    """``SoleDriver.cop_limits(..., toe=t)``: a loaded stance sole's pitch torque runs from
    the whole heel behind the ankle to ``t`` of the toe ahead of it (hand-computed)."""
    drv = sole_driver()
    full = [500.0] * len(drv.robot.body.ankle_joint_names)  # N m: no range is the floor
    for t in (COP_TOE_SHARE, 1.0, 0.25):
        lim, bias = drv.cop_limits([1000.0, 0.0], [True, False], full, toe=t)
        k = drv.soles[0].joints.index("ankle_pitch")
        lo, hi = bias[k] - lim[k], bias[k] + lim[k]
        assert (lo, hi) == pytest.approx((-1000.0 * drv._heel[0], 1000.0 * t * drv._toe[0]))


@pytest.mark.parametrize("bad", [0.0, 1.5, -0.1, math.nan, "whole"])
def test_a_bad_toe_share_names_the_field(bad):
    with pytest.raises(ValueError, match="cop_toe_share"):
        ControlConfig(cop_toe_share=bad)


@pytest.mark.parametrize("bad", ["yes", 1, 0.5])
def test_a_bad_slow_walk_names_the_field(bad):
    with pytest.raises(ValueError, match="slow_walk"):
        ControlConfig(slow_walk=bad)


def test_a_bad_track_lead_names_the_field():
    with pytest.raises(ValueError, match="sole_track_lead"):
        ControlConfig(sole_track_lead=-0.1)
    assert ControlConfig(sole_track_lead=None).sole_track_lead is None


@pytest.mark.slow
def test_a_slow_generated_biped_walks_free_on_the_slow_walk():
    """Generated biped 35 (1.10 pendulum periods a cycle, 0.24 m legs), free, 10 s flat:
    on the slow walk it walks (the verdict's speed, heading and reach bounds, not fallen),
    and the run says it stood on it; on the plain stance it falls within 3 s (measured:
    at 1.2 s from both starts of experiments/biped_free.py's sample)."""
    from gaitsim.generate import random_entry
    from gaitsim.sim.run import biped_tempo, simulate

    entry = random_entry(SLOW_SEED)
    assert entry.gait.n_legs == 2 and biped_tempo(entry) > FREE_BIPED_TEMPO
    s = simulate(entry, seconds=10.0, config=ControlConfig(body="free")).summary
    assert s["slow_walk"] is True
    assert s["verdict"] == "walked", s["verdict_reason"]
    plain = simulate(entry, seconds=10.0, config=ControlConfig(body="free", slow_walk=False))
    assert plain.summary["slow_walk"] is False
    assert plain.summary["fell"] and plain.summary["time_to_fall_s"] < 3.0


def test_the_walk_table_says_when_the_slow_walk_ran():
    """``gaitsim walk``'s table names the slow walk's stance beside the body (a short run of
    the mechanic slowed past FREE_BIPED_TEMPO, and of the mechanic as it is)."""
    from gaitsim.cli import _walk_table
    from gaitsim.sim.run import simulate
    from gaitsim.sim.summary import RunSummary

    for entry, slow in ((slowed("mechanic", 0.9), True), (resolve_entry("mechanic"), False)):
        s = RunSummary.from_dict(simulate(entry, seconds=0.3).summary)
        assert s.slow_walk is slow
        assert ("slow walk" in _walk_table(s)) is slow
