"""Bipeds with long, brisk strides, as users write a person's or a bird's walk
(``generate.striding_biped``): the family the paired generator never draws (its bipeds
sweep 0.25-0.55 leg lengths a stance). The generator's promises, the default body's stride
rule (``sim.run.LONG_STRIDE``) by hand, the notes that explain it, and (slow) the measured
reason for the rule: the free ostrich falls, the assisted one walks."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from types import SimpleNamespace

import pytest

from gaitsim.catalog import load_catalog
from gaitsim.generate import (
    STRIDING_DUTY,
    STRIDING_STRIDE,
    STRIDING_TEMPO,
    STRIDING_TRACK,
    random_entry,
    striding_biped,
    striding_entry,
)
from gaitsim.geometry import GRAVITY, geometry
from gaitsim.sim.run import (
    FREE_BIPED_TEMPO,
    LONG_STRIDE,
    biped_tempo,
    default_body,
    stride_ratio,
    walks_free_biped,
)
from gaitsim.validate import validate_entry
from gaitsim.walker import resolve_entry

ANIMALS = Path(__file__).resolve().parents[1] / "experiments" / "animal_walkers.json"


def _with_stride(entry, k: float):
    """``entry`` with ``k`` times its stride, its cycle's length kept (the clip speed too)."""
    g = entry.gait
    gait = dataclasses.replace(g, stride=k * g.stride, clip_speed=k * g.clip_speed)
    return dataclasses.replace(entry, gait=gait)


def test_the_striding_generator_is_seeded_and_spans_its_draws():
    assert striding_biped(5) == striding_biped(5)
    assert striding_biped(5) != striding_biped(6)
    entries = [striding_entry(s) for s in range(200)]
    assert {e.gait.n_legs for e in entries} == {2}
    legs = [e.gait.legs[0] for e in entries]
    sweep = [e.gait.stride / leg.reach for e, leg in zip(entries, legs, strict=True)]
    assert STRIDING_STRIDE[0] <= min(sweep) < 0.57 and 0.93 < max(sweep) <= STRIDING_STRIDE[1]
    duty = [e.gait.duty for e in entries]
    assert STRIDING_DUTY[0] <= min(duty) < 0.56 and 0.69 < max(duty) <= STRIDING_DUTY[1]
    track = [abs(leg.home[1]) / leg.reach for leg in legs]
    assert STRIDING_TRACK[0] <= min(track) < 0.09 and 0.15 < max(track) <= STRIDING_TRACK[1]
    # the cycle in periods of a pendulum as long as the leg: stride / duty / speed
    tempo = [e.gait.stride / e.gait.duty / e.gait.clip_speed
             / (2 * math.pi * math.sqrt(leg.reach / GRAVITY))
             for e, leg in zip(entries, legs, strict=True)]  # fmt: skip
    assert STRIDING_TEMPO[0] - 0.01 <= min(tempo) < 0.52
    assert 0.68 < max(tempo) <= STRIDING_TEMPO[1] + 0.01
    assert {leg.knee for leg in legs} == {"forward", "back"}
    upper = sum(e.gait.upper_body is not None for e in entries)
    assert 70 < upper < 130  # half of them
    for e in entries[:20]:  # the two legs alike, half a cycle apart, either side
        left, right = e.gait.legs
        assert (left.upper, left.lower, left.knee) == (right.upper, right.lower, right.knee)
        assert abs(left.phase - right.phase) == 0.5 and left.home[1] == -right.home[1] > 0


def test_its_strides_are_longer_than_the_paired_generator_s_bipeds():
    """``random_walker``'s bipeds sweep at most 0.55 leg lengths a stance; every striding
    biped at least that, and most of them more than LONG_STRIDE hip heights (``stride_ratio``)."""
    paired = [e for e in (random_entry(s) for s in range(300)) if e.gait.n_legs == 2]
    assert len(paired) > 30
    assert max(e.gait.stride / e.gait.legs[0].reach for e in paired) <= 0.55
    assert max(stride_ratio(e) for e in paired) < LONG_STRIDE
    ratios = [stride_ratio(striding_entry(s)) for s in range(100)]
    assert sum(r > LONG_STRIDE for r in ratios) > 50


@pytest.mark.parametrize("seed", range(12))
def test_every_drawn_biped_passes_the_walk_test(seed):
    report = validate_entry(striding_entry(seed))
    assert report["pass"], report


def test_the_stride_ratio_by_hand():
    """The ostrich: a 0.8 m stride over its hip height; the hip height is the geometry's
    (0.75 m for its 1 m legs and that stride); any walker has one (the fox's: its 0.15 m
    stride over its hip height); every summary carries it."""
    ostrich = load_catalog(str(ANIMALS))["ostrich"]
    hip = geometry(ostrich.gait).hip_height
    assert hip == pytest.approx(0.75, abs=1e-6)
    assert stride_ratio(ostrich) == pytest.approx(0.8 / hip)
    fox = resolve_entry("fox")
    assert stride_ratio(fox) == pytest.approx(fox.gait.stride / geometry(fox.gait).hip_height)


def test_a_biped_that_strides_long_gets_the_assist_by_default():
    """The rule, both ways, on the raptor: as it is (0.64 hip heights) free; its stride
    lengthened past LONG_STRIDE hip heights (the hip height the geometry derives for that
    stride), the assist; the human and ostrich written after animals (1.03 and 1.07) get
    the assist. Everything else the rule keeps (the tempo, MuJoCo) is unchanged."""
    raptor = resolve_entry("raptor")
    assert stride_ratio(raptor) == pytest.approx(0.644, abs=1e-3)
    assert walks_free_biped(raptor) and default_body(raptor) == "free"
    seen = set()
    for k in (1.0, 1.2, 1.3, 1.4, 1.5):
        e = _with_stride(raptor, k)
        assert biped_tempo(e) < FREE_BIPED_TEMPO
        long = stride_ratio(e) > LONG_STRIDE
        seen.add(long)
        assert default_body(e) == ("assist" if long else "free"), (k, stride_ratio(e))
        assert default_body(e, "mujoco") == "assist"
    assert seen == {True, False}
    animals = load_catalog(str(ANIMALS))
    for name, want in (("human", 1.029), ("ostrich", 1.067)):
        assert stride_ratio(animals[name]) == pytest.approx(want, abs=1e-3)
        assert default_body(animals[name]) == "assist"


def test_a_long_striding_biped_is_told_why_it_got_the_assist_and_why_it_fell_free():
    from gaitsim.cli import _biped_assist_note, _biped_tempo_note

    ostrich = load_catalog(str(ANIMALS))["ostrich"]
    note = _biped_assist_note(ostrich, SimpleNamespace(body="assist"), "auto", "pybullet")
    assert "stride sweeps 1.07 times its hip height" in note and "--body free" in note
    fell = _biped_tempo_note(ostrich, SimpleNamespace(body="free", fell=True))
    assert "stride sweeps 1.07 times its hip height" in fell and "--body assist" in fell
    # the raptor's own stride: the tempo's note if it fell (0.67 periods), not the stride's
    raptor = resolve_entry("raptor")
    note = _biped_tempo_note(raptor, SimpleNamespace(body="free", fell=True))
    assert "0.67 periods" in note and "stride sweeps" not in note
    slow = dataclasses.replace(raptor, gait=dataclasses.replace(
        raptor.gait, clip_speed=raptor.gait.clip_speed / 2))
    note = _biped_assist_note(slow, SimpleNamespace(body="assist"), "auto", "pybullet")
    assert "periods of a pendulum" in note and "stride sweeps" not in note


@pytest.mark.slow
def test_the_ostrich_falls_free_and_walks_on_its_default_body():
    """What the rule is for, measured (10 s flat, the default start): free, the ostrich
    falls (at 5.9 s when the rule was made); on its default body (the assist) it walks,
    the assist carrying a small share of its weight."""
    from gaitsim.sim.controller import ControlConfig
    from gaitsim.sim.run import simulate

    ostrich = load_catalog(str(ANIMALS))["ostrich"]
    free = simulate(ostrich, seconds=10.0, config=ControlConfig(body="free")).summary
    assert free["verdict"] == "fell", free["verdict_reason"]
    assert free["stride_ratio"] == pytest.approx(0.8 / 0.75)
    auto = simulate(ostrich, seconds=10.0, config=ControlConfig(body="auto")).summary
    assert auto["body"] == "assist"
    assert auto["verdict"] == "walked", auto["verdict_reason"]
    assert 0.9 <= auto["speed_ratio"] <= 1.1


def test_biped_free_sets_a_stride_in_hip_heights_and_the_generated_bipeds_ground(biped_free):
    """``with_stride`` by hand: the stride becomes R times the hip height the geometry
    derives for it, to within 3 % (two passes: the hip moves again a little with the
    second stride), the cycle's length kept
    (stride / duty / clip speed); ``generated_cells`` puts the ground on both starts
    (rough ground: grounds 0 and 1)."""
    raptor = resolve_entry("raptor")
    cycle = raptor.gait.stride / raptor.gait.duty / raptor.gait.clip_speed
    for r in (0.5, 1.0):
        e = biped_free.with_stride(raptor, r)
        assert stride_ratio(e) == pytest.approx(r, rel=0.03)
        assert e.gait.stride / e.gait.duty / e.gait.clip_speed == pytest.approx(cycle)
    flat = biped_free.generated_cells(2, "derived")
    assert [c[3] for c in flat] == [{}, {"seed": 1}] * 2
    rough = biped_free.generated_cells(2, "derived", ground="rough")
    assert [c[3] for c in rough] == [{"roughness": 0.01}, {"roughness": 0.01, "seed": 1,
                                                           "ground": 1}] * 2  # fmt: skip
    assert [c[1] for c in biped_free.generated_cells(1, "derived", ground="up5")] == [
        "up5, 10 s", "up5, 10 s, seed 1"]


def test_biped_free_sets_controller_fields_for_every_run(monkeypatch, biped_free):
    """``--set FIELD=VALUE``: ``run_cell`` builds its ControlConfig from the cell's
    ``control`` pairs on top of the flags' (the body stays ``--body``'s); the command line
    refuses ``--set body=...`` and an unknown field with exit 2, before any run."""
    import subprocess
    import sys

    seen = {}

    class Stop(Exception):
        pass

    def fake_simulate(entry, seconds, config, **kw):
        seen["config"] = config
        raise Stop

    monkeypatch.setattr("gaitsim.sim.run.simulate", fake_simulate)
    cell = ("raptor", "flat, 20 s", 20.0, {"control": (("sole_track_gain", 1.0),),
                                           "roll_follow_planted": True}, "derived", None)
    with pytest.raises(Stop):
        biped_free.run_cell(cell)
    config = seen["config"]
    assert (config.sole_track_gain, config.roll_follow_planted, config.body) == (1.0, True, "free")
    script = Path(__file__).resolve().parents[1] / "experiments" / "biped_free.py"
    for bad, why in (("body=assist", "--body"), ("foo=1", "FIELD=VALUE")):
        out = subprocess.run([sys.executable, str(script), "--set", bad], capture_output=True,
                             text=True, timeout=120)  # fmt: skip
        assert out.returncode == 2 and why in out.stderr, out.stderr
