"""Catalog bounds: walkers at the edges of every physical bound the loader accepts still
validate, build a URDF and walk (whatever `validate` accepts, `urdf` and `walk` accept)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from gaitsim.catalog import (
    MAX_DUTY,
    MAX_LEGS,
    MAX_LENGTH,
    MAX_MASS,
    MAX_SPEED,
    MIN_DUTY,
    MIN_LENGTH,
    MIN_MASS,
    MIN_SPEED,
    loads_catalog,
)
from gaitsim.cli import main


def _gait(n, stride, duty, lift, clip, bone, x, z, knee="forward", **extra):
    """n legs alternating left/right, fore/hind, every bone ``bone`` long."""
    segs = []
    for i in range(n):
        side = "L" if i % 2 == 0 else "R"
        segs.append(
            {
                "name": f"leg_{i}",
                "side": side,
                "phase": i / n,
                "knee": knee,
                "upper": bone,
                "lower": bone,
                "home": [x if side == "L" else -x, 0, z if (i // 2) % 2 == 0 else -z],
            }
        )
    return {
        "stride": stride,
        "duty": duty,
        "lift": lift,
        "clip_speed": clip,
        **extra,
        "segments": segs,
    }


BIG = MAX_LENGTH
SMALL = MIN_LENGTH
EDGES = {
    # every value at its upper bound, with every optional key
    "giant": _gait(
        MAX_LEGS,
        BIG,
        MIN_DUTY,
        BIG,
        MAX_SPEED,
        BIG,
        BIG,
        BIG,
        hip_height=BIG,
        foot_radius=BIG,
        body=[BIG, BIG, BIG],
        mass=MAX_MASS,
        bob=BIG,
    ),
    # upper bounds with gaitsim's defaults for the optional keys, 'up' knees
    "giant_up": _gait(MAX_LEGS, BIG, MIN_DUTY, BIG, MAX_SPEED, BIG, BIG, BIG, knee="up"),
    # every value at its lower bound
    "tiny": _gait(
        1,
        SMALL,
        MAX_DUTY,
        0,
        MIN_SPEED,
        SMALL,
        SMALL,
        0,
        hip_height=SMALL,
        foot_radius=SMALL,
        body=[SMALL] * 3,
        mass=MIN_MASS,
        bob=0,
    ),
    "tiny_biped": _gait(2, SMALL, MAX_DUTY, 0, MIN_SPEED, SMALL, SMALL, 0, knee="back"),
    # mixed: the longest cycle (stride / duty) on the shortest legs, a huge foot
    "long_cycle": _gait(4, BIG, MIN_DUTY, 0, MIN_SPEED, BIG, SMALL, 0, foot_radius=BIG),
    "heavy_thin": _gait(3, SMALL, MIN_DUTY, 0, MAX_SPEED, SMALL, BIG, BIG, mass=MAX_MASS),
    "light_wide": _gait(
        6, 0.1, 0.5, 0.05, 1.0, 0.2, BIG, BIG, mass=MIN_MASS, body=[BIG, SMALL, BIG]
    ),
}


@pytest.fixture(scope="module")
def edge_catalog(tmp_path_factory):
    path = tmp_path_factory.mktemp("edges") / "edges.json"
    path.write_text(json.dumps({name: {"gait": g} for name, g in EDGES.items()}, indent=1))
    cat = loads_catalog(path.read_text())  # the loader accepts every one of them
    assert list(cat) == list(EDGES)
    return path


def test_edge_walkers_validate_and_build_urdfs(edge_catalog, tmp_path, capsys):
    assert main(["validate", "--catalog", str(edge_catalog), "--json", "-q"]) in (0, 1)
    results = json.loads(capsys.readouterr().out)
    assert [r["walker"] for r in results] == list(EDGES)
    out = tmp_path / "urdf"
    assert main(["urdf", "--catalog", str(edge_catalog), "--out", str(out), "-q"]) == 0
    for name in EDGES:
        root = ET.parse(out / f"{name}.urdf").getroot()
        assert root.get("name") == name
    assert (
        main(["clip", "giant", "--catalog", str(edge_catalog), "--out", str(tmp_path / "c.csv")])
        == 0
    )


@pytest.mark.parametrize("name", list(EDGES))
def test_edge_walkers_walk(edge_catalog, name, capsys):
    argv = ["walk", name, "--catalog", str(edge_catalog), "--seconds", "0.3", "--json", "-q"]
    assert main(argv) in (0, 1)  # 1: it fell, a result, not an error
    summary = json.loads(capsys.readouterr().out)
    assert summary["walker"] == name


def test_a_walker_the_body_rules_refuse_is_refused_alike_everywhere(tmp_path, capsys):
    """Within every bound but not buildable (a 10 m lift on 1 mm bones): validate, urdf
    and walk all refuse it with the same message naming the file and the walker."""
    path = tmp_path / "cat.json"
    gait = _gait(3, SMALL, MIN_DUTY, BIG, MAX_SPEED, SMALL, BIG, BIG)
    path.write_text(json.dumps({"stilts": {"gait": gait}}))
    loads_catalog(path.read_text())  # the loader accepts it: every value is in bounds
    errors = []
    for argv in (["validate"], ["urdf", "--out", str(tmp_path / "u")], ["walk", "stilts"]):
        assert main([*argv, "--catalog", str(path), "-q"]) == 2
        errors.append(capsys.readouterr().err.split(": error: ", 1)[1])
    assert errors[0].startswith(f"{path}: stilts.gait.segments[0] (leg_0): "), errors[0]
    assert errors[0] == errors[1] == errors[2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cat.json"]
