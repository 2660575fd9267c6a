"""The ballistic height plan of gaits with flight phases (``gaitsim.flight``) and the Walker's
use of it: free fall through every flight, the force's shape through the stances, the body at
its standing height where it lands, swing feet raised with it, and every gait without flight
phases unchanged."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaitsim.balance import SWAY_SAMPLES
from gaitsim.catalog import parse_catalog
from gaitsim.flight import (
    BALLISTIC_FLIGHT,
    SINK_ROOM_SHARE,
    ballistic_height,
    fit_dip,
    flight_table,
    stance_force,
    swing_rise,
)
from gaitsim.gait import cycle_length, cycle_position
from gaitsim.generate import random_entry, random_walker
from gaitsim.geometry import GRAVITY, flight_gait, flight_share, knee_height_floor, sink_room
from gaitsim.walker import Walker

N = SWAY_SAMPLES


def _hop(duty: float, legs: int = 2, seed: int = 3):
    """Generated walker ``seed`` with every leg at phase 0 and ``duty``: a hop or a pronk."""
    (walker,) = random_walker(seed, legs=legs).values()
    walker["gait"]["duty"] = duty
    for seg in walker["gait"]["segments"]:
        seg["phase"] = 0.0
    (entry,) = parse_catalog({"hop": walker}).values()
    return entry


def _plan(gait, n: int = N):
    t = cycle_position(gait, np.arange(n) / n * cycle_length(gait))  # one cycle
    stance = t < gait.duty
    return stance, np.where(stance, t / gait.duty, 0.0)


def test_a_constant_force_holds_the_body_level():
    assert np.allclose(ballistic_height(np.ones(N), 0.7), 0.0)
    assert np.allclose(ballistic_height(np.full(N, 2.5), 0.7), 0.0)  # the mean is 1 weight


@settings(max_examples=40, deadline=None)
@given(period=st.floats(0.1, 3.0), seed=st.integers(0, 10_000))
def test_the_height_obeys_the_force_by_central_differences(period, seed):
    force = np.random.default_rng(seed).uniform(0.0, 3.0, N)
    z = ballistic_height(force, period)
    h = period / N
    second = np.roll(z, -1) - 2.0 * z + np.roll(z, 1)
    assert np.allclose(second, GRAVITY * (force / force.mean() - 1.0) * h * h, atol=1e-12)
    assert abs(z.mean()) < 1e-12


@pytest.mark.parametrize("duty", [0.3, 0.6, 0.85])
def test_a_hop_falls_freely_and_rises_by_g_t_squared_over_eight(duty):
    """Both legs at one phase: down for ``duty`` of the cycle, then a flight of
    (1 - duty) T in which the body falls freely. By hand: its apex lies g T_f^2 / 8 above
    the landing height (0), where it lands and takes off."""
    gait = _hop(duty).gait
    stance, progress = _plan(gait)
    period = 0.8
    z = flight_table(stance, progress, period)
    air = ~stance.any(axis=-1)
    h = period / N
    second = np.roll(z, -1) - 2.0 * z + np.roll(z, 1)
    inner = air & np.roll(air, 1) & np.roll(air, -1)
    assert np.allclose(second[inner], -GRAVITY * h * h, atol=1e-12)  # free fall
    flight = (1.0 - duty) * period
    assert z[stance.any(axis=-1)].max() == pytest.approx(0.0, abs=1e-12)  # at or below
    assert z[air].min() == pytest.approx(0.0, abs=GRAVITY * flight * h)  # lands there
    assert z.max() == pytest.approx(GRAVITY * flight**2 / 8.0, rel=0.03)


def test_the_force_is_a_half_sine_per_stance_foot_with_mean_one():
    gait = _hop(0.5, legs=4).gait
    stance, progress = _plan(gait)
    f = stance_force(stance, progress)
    assert f.mean() == pytest.approx(1.0)
    k = np.argmax(f)  # mid-stance: the four feet's half-sines at their peak
    assert progress[k, 0] == pytest.approx(0.5, abs=1.0 / N)
    assert f[~stance.any(axis=-1)] == pytest.approx(0.0)  # nothing pushes in flight


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2000))
def test_gaits_without_flight_phases_keep_their_body_path(seed):
    """Every generated gait with some foot always down and duty >= 0.5: a zero flight
    height and rise; and so its poses are unchanged (its body height is the standing
    height plus the bob alone)."""
    entry = random_entry(seed)
    w = Walker(entry)
    d = np.linspace(0.0, 3.0 * w.cycle, 50)
    if flight_gait(entry.gait):
        return
    assert not w.flies
    assert not w.flight_height(d).any() and not w.flight_rise(d).any()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2000))
def test_flying_walkers_land_at_their_standing_height(seed):
    """A generated gait with flight phases (runners, drawn with duty < 0.5): the body sinks
    below its landing height through a stance at most SINK_ROOM_SHARE of the way to where
    a lifted foot would come within its leg's inner reach (``sink_room``), and never below
    the knee floor (``fit_dip``);
    swing feet rise with the body, stance feet stay planted; and the reach holds as well
    as on the level path (no new shortfall)."""
    entry = random_entry(seed, duty=0.4)
    gait = entry.gait
    assert flight_gait(gait) and flight_share(gait) > 0.0
    w = Walker(entry)
    d = np.linspace(0.0, w.cycle, 97, endpoint=False) + 2.0 * w.cycle
    rise, height = w.flight_rise(d), w.flight_height(d)
    hip = w.geometry.hip_height
    room = min(SINK_ROOM_SHARE * sink_room(gait, hip), hip - knee_height_floor(gait))
    assert rise.min() >= 0.0 and height.min() <= 0.0
    assert -height.min() <= max(room, 0.0) + 1e-12
    plain = Walker(entry)
    plain.flies = False  # the same walker on its level body path
    p, q = w.pose_at(d), plain.pose_at(d)
    assert np.allclose(p.body_position[:, 2] - q.body_position[:, 2], w.flight_height(d))
    dz = p.feet[..., 2] - q.feet[..., 2]
    assert np.allclose(dz, np.where(p.stance, 0.0, rise[:, None]))
    assert p.max_shortfall.max() <= q.max_shortfall.max() + 1e-9


def test_a_hop_gets_the_ballistic_table_and_a_walk_or_a_short_flight_does_not():
    hop = Walker(_hop(0.6))
    assert hop.flies and hop.flight_height(np.linspace(0, hop.cycle, 20)).max() > 0.0
    assert not Walker("fox").flies
    brief = random_entry(5, legs=2, duty=0.45)  # a runner up 0.1 of its cycle
    assert flight_gait(brief.gait)
    assert flight_share(brief.gait) == pytest.approx(0.1, abs=2.0 / N)
    assert flight_share(brief.gait) < BALLISTIC_FLIGHT and not Walker(brief).flies


def test_fit_dip_scales_a_plan_that_sinks_too_far():
    table = np.array([0.0, -0.04, -0.08, -0.02, 0.05])
    assert fit_dip(table, 0.1) is table  # fits: unchanged
    assert np.allclose(fit_dip(table, 0.02), table / 4.0)  # sinks 0.02 at most
    assert not fit_dip(table, -0.01).any()  # no room: level
    rising = np.array([0.0, 0.01, 0.0])
    assert fit_dip(rising, -0.01) is rising  # never sinks: fits whatever the room


def test_swing_rise_is_the_height_above_landing():
    assert swing_rise(np.array([-0.1, 0.0, 0.2])).tolist() == [0.0, 0.0, 0.2]


SECOND = Path(__file__).resolve().parents[1] / "experiments" / "second_catalog.json"


@pytest.mark.slow
@pytest.mark.parametrize(("name", "on_plan", "level"), [("hopper", 0.25, 0.5),
                                                         ("pronk", 0.2, 0.25)])  # fmt: skip
def test_a_hop_and_a_pronk_are_carried_less_on_the_ballistic_plan(name, on_plan, level,
                                                                  monkeypatch):  # fmt: skip
    """experiments/second_catalog.json's hopper (both feet at one phase, duty 0.6: up 40 %
    of the cycle) and pronk (four, duty 0.7: 30 %), 10 s flat on their default body, the
    assist. Measured when the plan was added: the hopper's assist carries 0.19 of its
    weight on the plan, 0.76 on the level path (`carried`); the pronk's 0.13 and 0.30."""
    from gaitsim.catalog import load_catalog
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    entry = load_catalog(str(SECOND))[name]
    config = ControlConfig(body="assist")
    s = simulate(entry, seconds=10.0, config=config).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert s["assist_mean_force_per_weight"] < on_plan
    assert s["touchdowns_per_stance"] <= 1.2
    monkeypatch.setattr("gaitsim.walker.flight_share", lambda gait: 0.0)  # the level path
    flat = simulate(entry, seconds=10.0, config=config).summary
    assert flat["assist_mean_force_per_weight"] > level
