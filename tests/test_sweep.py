"""Sweeps (definitions, local runner, resume, a killed worker, Ray), plots and the report."""

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gaitsim.sweep import (
    SweepError,
    builtin_sweeps,
    cells,
    load_sweep,
    parse_sweep,
    run_sweep,
    simulate_kwargs,
)

TINY = {
    "name": "tiny",
    "parameter": "speed_scale",
    "values": [0.8, 1.0],
    "walkers": ["horn_beetle"],
    "seeds": 2,
    "seconds": 1.0,
}


def read_rows(out: Path):
    with open(out / "results.csv") as fh:
        return list(csv.DictReader(fh))


def test_builtin_sweeps_cover_the_issue():
    names = builtin_sweeps()
    assert set(names) >= {"speed", "slope", "turn", "rough"}
    speed, slope = load_sweep("speed"), load_sweep("slope")
    assert min(speed.values) == 0.5 and max(speed.values) == 2.0
    assert min(slope.values) == -15 and max(slope.values) == 15
    assert load_sweep("turn").values == ("straight", 2.0, 1.0, 0.5, 0.25, "in_place")
    assert load_sweep("rough").values[0] == 0 and load_sweep("rough").values[-1] == 0.04
    assert len(speed.walkers) == 6  # every built-in walker


@pytest.mark.parametrize(
    "change, message",
    [
        ({"parameter": "colour"}, "not sweepable"),
        ({"values": []}, "'values' is empty"),
        ({"values": [1.0, "x"]}, "finite numbers"),
        ({"walkers": ["unicorn"]}, "unknown walkers"),
        ({"seeds": 0}, "'seeds'"),
        ({"seconds": -1}, "'seconds'"),
        ({"parameter": "turn", "values": [0]}, "turn values"),
    ],
)
def test_bad_definitions_say_what_to_fix(change, message):
    with pytest.raises(SweepError, match=message):
        parse_sweep({**TINY, **change})
    missing = dict(TINY)
    del missing["name"]
    with pytest.raises(SweepError, match="'name' is missing"):
        parse_sweep(missing)


def test_cells_and_their_settings():
    sw = parse_sweep({**TINY, "parameter": "turn", "values": ["straight", 0.5, "in_place"]})
    cs = cells(sw)
    assert len(cs) == 3 * 2
    kw = [simulate_kwargs(sw, c) for c in cs[::2]]
    assert [k.get("turn_radius") for k in kw] == [None, 0.5, 0.0]
    bip = parse_sweep({**TINY, "walkers": ["mechanic"]})
    assert simulate_kwargs(bip, cells(bip)[0])["config_kwargs"]["body"] == "assist"


def test_local_sweep_writes_one_row_per_episode_and_resumes(tmp_path):
    sw = parse_sweep(TINY)
    _, failed = run_sweep(sw, tmp_path, workers=2, progress=False)
    assert not failed
    got = read_rows(tmp_path)
    assert len(got) == 4
    assert {(r["value"], r["seed"]) for r in got} == {
        ("0.8", "0"),
        ("0.8", "1"),
        ("1.0", "0"),
        ("1.0", "1"),
    }
    for r in got:
        assert float(r["distance_m"]) > 0 and r["fell"] == "False"
    stamps = {p: p.stat().st_mtime_ns for p in (tmp_path / "cells").iterdir()}
    t0 = time.perf_counter()
    run_sweep(sw, tmp_path, workers=2, progress=False)  # a rerun skips finished cells
    assert time.perf_counter() - t0 < 2.0
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "cells").iterdir()} == stamps
    assert len(read_rows(tmp_path)) == 4


def _children(pid: int) -> list[int]:
    """Child processes still running (a finished child waiting to be reaped is left out:
    killing it would not interrupt a cell)."""
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        out += [int(x) for x in text]
    return [k for k in out if _running(k)]


def _running(pid: int) -> bool:
    try:  # /proc/<pid>/stat: "pid (comm) state ..."
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_a_killed_worker_loses_only_its_cell(tmp_path):
    definition = tmp_path / "kill.toml"
    definition.write_text(
        'name = "kill"\nparameter = "speed_scale"\nvalues = [0.8, 0.9, 1.0, 1.1]\n'
        'walkers = ["spider_bot"]\nseeds = 2\nseconds = 3.0\n'
    )
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gaitsim.cli",
            "sweep",
            str(definition),
            "--out",
            str(out),
            "--workers",
            "2",
            "-q",
            "--no-plots",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    killed = None
    deadline = time.time() + 60
    while time.time() < deadline and killed is None:
        kids = _children(proc.pid) if proc.poll() is None else []
        done = list((out / "cells").glob("*.json")) if (out / "cells").exists() else []
        if kids and done:  # a cell has finished and others are running: kill one mid-cell
            killed = max(kids)  # the newest: the furthest from the end of its cell
            os.kill(killed, signal.SIGKILL)
        time.sleep(0.05)
    _, stderr = proc.communicate(timeout=180)
    assert killed is not None, "never caught a worker mid-cell"
    assert proc.returncode == 0, stderr
    rows = read_rows(out)
    keys = [(r["value"], r["seed"]) for r in rows]
    assert len(keys) == 8 and len(set(keys)) == 8  # every cell exactly once
    assert any(r["attempt"] == "2" for r in rows)  # the killed cell ran again


def test_ray_backend_runs_a_sweep(tmp_path, monkeypatch):
    pytest.importorskip("ray", reason="ray extra not installed")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.setenv("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    sw = parse_sweep({**TINY, "seeds": 1})
    rows, failed = run_sweep(sw, tmp_path, backend="ray", progress=False)
    assert not failed
    assert sorted(r["value"] for r in rows) == [0.8, 1.0]
    assert len(read_rows(tmp_path)) == 2


def test_sweep_cli_errors_and_plots(tmp_path):
    bad = subprocess.run(
        [sys.executable, "-m", "gaitsim.cli", "sweep", "nonesuch"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "built-in" in bad.stderr and "Traceback" not in bad.stderr
    d = tmp_path / "s.toml"
    d.write_text(
        'name = "p"\nparameter = "slope_deg"\nvalues = [-5.0, 5.0]\n'
        'walkers = ["horn_beetle"]\nseeds = 1\nseconds = 1.0\n'
    )
    ok = subprocess.run(
        [sys.executable, "-m", "gaitsim.cli", "sweep", str(d), "--out", str(tmp_path / "o"), "-q"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    pngs = sorted(p.name for p in (tmp_path / "o" / "plots").glob("*.png"))
    assert "p_speed_ratio.png" in pngs and "p_slip_mm_per_stance.png" in pngs


def test_report_writes_tables_and_gait_diagrams(tmp_path):
    from gaitsim import load_catalog
    from gaitsim.catalog import Catalog, save_catalog

    cat = load_catalog()
    small = tmp_path / "small.json"
    save_catalog(Catalog([cat["horn_beetle"], cat["raptor"]]), small)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "gaitsim.cli",
            "report",
            "--catalog",
            str(small),
            "--out",
            str(tmp_path / "rep"),
            "--seconds",
            "2",
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "## Walk test" in text and "## Walking in PyBullet" in text
    assert "| horn_beetle (free) |" in text and "| raptor (assist) |" in text
    for w in ("horn_beetle", "raptor"):
        assert (tmp_path / "rep" / "plots" / f"gait_{w}.png").stat().st_size > 1000
        assert (tmp_path / "rep" / "urdf" / f"{w}.urdf").exists()
    physics = json.loads((tmp_path / "rep" / "physics.json").read_text())
    assert len(physics) == 2 * 4
