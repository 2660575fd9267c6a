"""The controller's reference table: the Walker's body pose, tabulated and interpolated."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaitsim import Arc, Flat, Rough, Slope, Straight, Walker
from gaitsim.sim.controller import TABLE_CHUNK_CYCLES, TABLE_SAMPLES_PER_CYCLE, ReferenceTable

WALKERS = {
    "flat": Walker("fox"),
    "slope_arc": Walker("hound", Slope.from_degrees(8.0, 40.0), Arc(0.9), lean=True),
    "rough": Walker("spider_bot", Rough(0.02, seed=5), Straight(heading=1.0), sway=0.5),
}


@pytest.mark.parametrize("case", list(WALKERS))
def test_samples_are_the_walkers_body(case):
    w = WALKERS[case]
    table = ReferenceTable(w)
    k = np.arange(0, 3 * TABLE_SAMPLES_PER_CYCLE, 7)
    s = k * table.ds
    pos, rot, heading = w.body_at(s)
    for j, sj in enumerate(s):
        p, r, h, _ = table.lookup(float(sj))
        assert np.allclose(p, pos[j], rtol=0, atol=1e-12)
        assert np.allclose(np.reshape(r, (3, 3)), rot[j], rtol=0, atol=1e-12)
        assert h == pytest.approx(heading[j], abs=1e-12)


@pytest.mark.parametrize("case", list(WALKERS))
@given(f=st.floats(0.0, 1.0), k=st.integers(0, 5 * TABLE_SAMPLES_PER_CYCLE))
@settings(max_examples=60, deadline=None)
def test_between_samples_it_interpolates_linearly(case, f, k):
    w = WALKERS[case]
    table = ReferenceTable(w)
    a = table.lookup(k * table.ds)
    b = table.lookup((k + 1) * table.ds)
    m = table.lookup((k + f) * table.ds)
    flat = [(*r[0], *r[1], r[2]) for r in (a, b, m)]
    for x, y, z in zip(*flat, strict=True):
        assert z == pytest.approx(x + f * (y - x), abs=1e-12)
    # and it stays close to the exact pose: 240 samples a cycle
    pos, rot, _ = w.body_at(np.array([(k + f) * table.ds]))
    assert np.allclose(m[0], pos[0], atol=2e-5)
    assert np.allclose(np.reshape(m[1], (3, 3)), rot[0], atol=2e-4)


def test_the_table_grows_as_the_walk_goes_on():
    w = WALKERS["flat"]
    table = ReferenceTable(w)
    n0 = table.n
    assert n0 == TABLE_CHUNK_CYCLES * TABLE_SAMPLES_PER_CYCLE + 1
    far = 10.5 * TABLE_CHUNK_CYCLES * w.cycle
    p, _, _, moves = table.lookup(far)
    assert table.n > far / table.ds and moves
    assert len(table.pos) == 3 * table.n and len(table.rot) == 9 * table.n
    assert p[0] == pytest.approx(far, abs=1e-9)  # straight along +x
    assert table.lookup(-1.0) == table.lookup(0.0)  # before the start: the start


@given(st.lists(st.floats(0.0, 3.0), min_size=1, max_size=30))
@settings(deadline=None)
def test_the_lookup_cache_never_changes_an_answer(distances):
    """The last two lookups are remembered: any order of repeats gives the fresh answer."""
    w = WALKERS["slope_arc"]
    cached = ReferenceTable(w)
    for s in distances + distances[::-1] + distances:
        assert cached.lookup(s) == ReferenceTable(w)._lookup(s)


def test_a_turn_in_place_does_not_translate():
    from gaitsim import TurnInPlace

    table = ReferenceTable(Walker("fox", Flat(), TurnInPlace(0.2)))
    _, _, h, moves = table.lookup(0.5)
    assert not moves and h == pytest.approx(0.5 / 0.2, abs=1e-9)
    assert math.isfinite(h)
