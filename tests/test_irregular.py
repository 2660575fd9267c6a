"""Walkers outside the generator's paired families (``generate.irregular_walker``): odd
leg counts, legs round an oval, each its own length, and pace, lateral, diagonal, rotary
or random phases. The generator's own promises, the derived defaults that must serve
them, and (slow) their walk in physics."""

from __future__ import annotations

import numpy as np
import pytest

from gaitsim.generate import (
    IRREGULAR_DUTY,
    IRREGULAR_LEGS,
    IRREGULAR_PATTERNS,
    irregular_entry,
    irregular_walker,
    random_walker,
)
from gaitsim.geometry import FLIGHT_SHARE_MIN, flight_gait, flight_share
from gaitsim.validate import validate_entry


def test_the_irregular_generator_is_seeded_and_spans_its_draws():
    assert irregular_walker(5) == irregular_walker(5)
    assert irregular_walker(5) != irregular_walker(6)
    entries = [irregular_entry(s) for s in range(200)]
    assert {e.gait.n_legs for e in entries} == set(IRREGULAR_LEGS)
    assert {leg.knee for e in entries for leg in e.gait.legs} == {"up", "forward", "back"}
    duty = [e.gait.duty for e in entries]
    assert IRREGULAR_DUTY[0] <= min(duty) < 0.52 and 0.83 < max(duty) <= IRREGULAR_DUTY[1]
    # each leg its own length: some walker's longest leg is over 1.3 times its shortest
    spread = [max(g.reach for g in e.gait.legs) / min(g.reach for g in e.gait.legs)
              for e in entries]  # fmt: skip
    assert max(spread) > 1.3 and min(spread) >= 1.0
    # the paired generator's walkers are not touched by it
    assert random_walker(5) == random_walker(5)


def _sides(entry):
    left = [leg for leg in entry.gait.legs if leg.side == "L"]
    right = [leg for leg in entry.gait.legs if leg.side == "R"]
    return left, right


@pytest.mark.parametrize("seed", range(12))
def test_a_pace_moves_each_side_together_half_a_cycle_apart(seed):
    left, right = _sides(irregular_entry(seed, "pace"))
    assert {leg.phase for leg in left} == {0.0} and {leg.phase for leg in right} == {0.5}


@pytest.mark.parametrize("seed", range(12))
def test_the_four_beat_walks_order_the_legs_by_their_place(seed):
    # phases by place along the body, hind 0 .. fore 1: diagonal, left 0 .. 0.25, right
    # 0.5 .. 0.75; lateral, left 0 .. 0.75, right 0.5 .. 0.25 (a larger phase lands
    # earlier: see the next test)
    for pattern, left_span, right_span in (("diagonal", (0.0, 0.25), (0.5, 0.75)),
                                           ("lateral", (0.0, 0.75), (0.5, 0.25))):  # fmt: skip
        entry = irregular_entry(seed, pattern)
        zs = [leg.home[0] for leg in entry.gait.legs]  # REP-103: x forward
        lo, hi = min(zs), max(zs)
        for leg, z in zip(entry.gait.legs, zs, strict=True):
            a = (z - lo) / (hi - lo)
            start, end = left_span if leg.side == "L" else right_span
            assert leg.phase == pytest.approx((start + a * (end - start)) % 1.0, abs=1e-4)


@pytest.mark.parametrize("seed", [10, 12, 17, 20, 28, 37, 61, 82])  # two legs a side
def test_the_four_beat_walks_land_in_their_named_order(seed, landings):
    """Where the foot plan puts each foot down (``gait.feet_down``), from the left hind
    foot on: lateral, left fore, right hind, right fore; diagonal, right fore, right
    hind, left fore."""
    for pattern, want in (("lateral", ("LH", "LF", "RH", "RF")),
                          ("diagonal", ("LH", "RF", "RH", "LF"))):  # fmt: skip
        gait = irregular_entry(seed, pattern).gait
        assert [leg.side for leg in gait.legs].count("L") == 2 == len(gait.legs) - 2
        lands = landings(gait)
        role = {}
        for side in ("L", "R"):
            ks = sorted((k for k, leg in enumerate(gait.legs) if leg.side == side),
                        key=lambda k: gait.legs[k].home[0])  # hind first (x forward)
            role[side + "H"], role[side + "F"] = ks
        start = lands[role["LH"]]
        got = sorted(role, key=lambda r: (lands[role[r]] - start) % 1.0)
        assert tuple(got) == want, (pattern, got)


def test_a_pinned_pattern_changes_only_the_phases():
    for seed in range(20):
        drawn = irregular_walker(seed)[f"irregular_{seed}"]["gait"]
        for pattern in IRREGULAR_PATTERNS:
            pinned = irregular_walker(seed, pattern)[f"irregular_{seed}"]["gait"]
            strip = [{k: v for k, v in s.items() if k != "phase"} for s in pinned["segments"]]
            assert strip == [{k: v for k, v in s.items() if k != "phase"}
                             for s in drawn["segments"]]  # fmt: skip
            assert {k: v for k, v in pinned.items() if k != "segments"} == {
                k: v for k, v in drawn.items() if k != "segments"}
    with pytest.raises(ValueError, match="pattern must be one of"):
        irregular_walker(0, "gallop")


def test_odd_legged_walkers_are_drawn_and_every_foot_sits_on_its_side():
    odd = [e for e in (irregular_entry(s) for s in range(60)) if e.gait.n_legs % 2]
    assert len(odd) >= 15
    for e in odd:
        for leg in e.gait.legs:  # REP-103: y left
            assert (leg.home[1] > 0) == (leg.side == "L"), (e.name, leg)


@pytest.mark.parametrize("seed", range(40))
def test_every_irregular_walker_passes_the_walk_test(seed):
    # the derived hip height serves legs of different lengths round an oval: no shortfall
    # walking straight or turning in place on level ground
    r = validate_entry(irregular_entry(seed))
    assert r["pass"], r
    level = [v for k, v in r["max_shortfall_m"].items() if k in ("straight", "turn_in_place")]
    assert len(level) == 2 and max(level) == 0.0, r["max_shortfall_m"]


def test_a_free_walker_that_falls_is_told_what_its_support_lacks(tmp_path, capsys):
    # irregular walker 14: three legs whose two left swings overlap, so for 23 % of each
    # cycle one right foot stands alone; free it falls within a second, and the walk says
    # how its support is shared and what to try
    import json

    from gaitsim.cli import main

    cat = tmp_path / "three.json"
    cat.write_text(json.dumps(irregular_walker(14)))
    code = main(["walk", "irregular_14", "--catalog", str(cat), "--body", "free",
                 "--seconds", "2"])  # fmt: skip
    out = capsys.readouterr()
    assert code == 1 and "did not walk: fell" in out.out
    assert "23% on one foot or none" in out.err and "--body assist" in out.err


def test_the_support_note_is_for_free_multi_legged_walkers_that_fell():
    from types import SimpleNamespace

    from gaitsim.cli import _support_note
    from gaitsim.walker import resolve_entry

    three = irregular_entry(14)
    fell = SimpleNamespace(body="free", fell=True)
    assert "on one foot or none" in _support_note(three, fell)
    assert _support_note(three, SimpleNamespace(body="free", fell=False)) is None
    assert _support_note(three, SimpleNamespace(body="assist", fell=True)) is None
    assert _support_note(resolve_entry("mechanic"), fell) is None  # two legs: the biped notes
    # a wave of six legs never stands on fewer than three feet, nor on one side only
    assert _support_note(resolve_entry("spider_bot"), fell) is None


# 10 s flat on their default body: free for every one of seeds 0-11 but 7 (three legs), 1
# (a seven-legged pace whose one-sided stands let a drift grow 15.6-fold) and 11 (another,
# 9.6-fold, past OFFSET_LINE_GROWTH_LIMIT since stop 61; it walks either way). One misses,
# measured when the sample was added (`python experiments/fidelity_eval.py --irregular
# --seeds 0-199 --no-built-in --conditions flat`: free, 177 of 200 walk); it walks with the
# assist, which carries 3 % of its weight.
FREE_MISSES = {
    4: "eight sprawled legs in a rotary wave at duty 0.53: out_of_reach (3.4 touchdowns)",
}
ASSISTED = {1, 7, 11}


def test_three_legged_walkers_get_the_assist_by_default():
    # while a leg swings the other two stand on a line that never passes under the body:
    # as a biped, it stays up free only by swaying onto each line in turn
    # (and of the others, those that stand beside the body long enough, stop 61)
    from gaitsim.sim.run import default_body, offset_lines_topple
    from gaitsim.sim.stance import line_drift_growth

    entries = [irregular_entry(s) for s in range(60)]
    three = [e for e in entries if e.gait.n_legs == 3]
    assert three and all(default_body(e) == "assist" for e in three)
    rest = [e for e in entries if e.gait.n_legs >= 4 and not flight_gait(e.gait)
            and line_drift_growth(e) <= 15.0]  # fmt: skip
    beside = [e for e in rest if offset_lines_topple(e.gait, line_drift_growth(e))]
    assert [e.name for e in beside] == ["irregular_11", "irregular_35", "irregular_37",
                                        "irregular_39"]  # fmt: skip
    assert all(default_body(e) == ("assist" if e in beside else "free") for e in rest)


# Irregular walkers of four or more legs whose random phases bunch so that every foot is
# up together for part of the cycle at duty >= 0.5 (``geometry.flight_gait``), measured 10
# s flat when the rule was added (stop 59): free, 52 walks but lands 1.9 times a stance,
# 182 and 434 fall; on the assist all three walk, 1.0-1.6 times a stance, the assist's
# mean force 0.09-0.16 of the weight (its net lift 0.06-0.07). 491 leaves the ground for
# 0.004 of its cycle, below FLIGHT_SHARE_MIN, and walks free (1.03 times a stance)
BUNCHED_FLIGHT = {52: 0.082, 182: 0.1, 434: 0.144}


def test_bunched_phases_that_fly_get_the_assist_by_default():
    from gaitsim.sim.run import default_body

    for seed, share in BUNCHED_FLIGHT.items():
        gait = irregular_entry(seed).gait
        assert gait.n_legs >= 4 and gait.duty >= 0.5, seed
        assert flight_share(gait) == pytest.approx(share, abs=0.005), seed
        assert flight_gait(gait) and default_body(irregular_entry(seed)) == "assist", seed
    brief = irregular_entry(491)
    assert 0.0 < flight_share(brief.gait) < FLIGHT_SHARE_MIN
    assert not flight_gait(brief.gait) and default_body(brief) == "free"


@pytest.mark.slow
@pytest.mark.parametrize("seed", sorted(BUNCHED_FLIGHT))
def test_bunched_phases_that_fly_walk_on_their_default_body(seed):
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import default_body, simulate

    entry = irregular_entry(seed)
    s = simulate(entry, seconds=10.0, config=ControlConfig(body=default_body(entry))).summary
    assert s["verdict"] == "walked", (seed, s["verdict_reason"])  # the assist under 0.3


@pytest.mark.slow
@pytest.mark.parametrize("seed", [
    pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=FREE_MISSES[s]))
    if s in FREE_MISSES else s for s in range(12)])  # fmt: skip
def test_irregular_walkers_walk_on_their_default_body(seed):
    # the verdict only: the gait-fidelity bounds are the paired families' (3 and 8 land 1.8
    # and 1.5 times a stance; docs/gait_fidelity.md, stop 40)
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import default_body, simulate

    entry = irregular_entry(seed)
    body = default_body(entry)
    assert body == ("assist" if seed in ASSISTED else "free")
    s = simulate(entry, seconds=10.0, config=ControlConfig(body=body)).summary
    assert s["verdict"] == "walked", (seed, s["verdict_reason"])


@pytest.mark.slow
@pytest.mark.parametrize("seed", sorted(FREE_MISSES))
def test_irregular_walkers_that_miss_free_walk_with_the_assist(seed):
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    # from four start points: every one walks, the assist carrying under 0.05 of the weight,
    # landing at most 1.3 times a stance on average (stop 49: 1.23-1.31, mean 1.26; from the
    # default start alone 1.31 on this machine, within 1.3 on the one that set the bound)
    runs = [simulate(irregular_entry(seed), seconds=10.0, seed=start,
                     config=ControlConfig(body="assist")).summary
            for start in (None, 1, 2, 3)]  # fmt: skip
    for s in runs:
        assert s["verdict"] == "walked", (seed, s["verdict_reason"])
        assert s["assist_mean_force_per_weight"] < 0.05, seed
    assert np.mean([s["touchdowns_per_stance"] for s in runs]) <= 1.3, seed


# The same twelve on MuJoCo, default body, 10 s flat (measured when the test was added):
# eleven walk, seed 4 among them, which misses on PyBullet
MUJOCO_MISSES = {
    3: "six sprawled legs in a rotary wave: rocks onto 2-2.5 touchdowns a stance; tipped "
       "over at 7.35 s when measured, walks 10 s from the default start on stop 49's "
       "machine (mujoco 4.0.1) and from 3 of 4 starts (falls at 2.3 s from seed 3): a "
       "marginal case, so not strict (walks on PyBullet, 1.08 touchdowns, since its end "
       "legs' hips moved along the body: 1.80 before)",
}


@pytest.mark.slow
@pytest.mark.parametrize("seed", [
    pytest.param(s, marks=pytest.mark.xfail(strict=False, reason=MUJOCO_MISSES[s]))
    if s in MUJOCO_MISSES else s for s in range(12)])  # fmt: skip
def test_irregular_walkers_walk_on_their_default_body_on_mujoco(seed):
    pytest.importorskip("mujoco")
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import default_body, simulate

    entry = irregular_entry(seed)
    config = ControlConfig(body=default_body(entry))
    s = simulate(entry, seconds=10.0, engine="mujoco", config=config).summary
    assert s["verdict"] == "walked", (seed, s["verdict_reason"])
