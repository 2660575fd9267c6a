"""Sweeps (definitions, local runner, resume, a killed worker, Ray), plots and the report."""

import csv
import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gaitsim.scenario import Scenario
from gaitsim.sim.metrics import VERDICTS
from gaitsim.sweep import (
    SweepError,
    builtin_sweeps,
    cells,
    load_sweep,
    parse_sweep,
    run_sweep,
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
    kw = [Scenario.from_sweep_cell(sw, c).simulate_kwargs() for c in cs[::2]]
    assert [k.get("turn_radius") for k in kw] == [None, 0.5, 0.0]
    bip = parse_sweep({**TINY, "walkers": ["mechanic"]})
    assert Scenario.from_sweep_cell(bip, cells(bip)[0]).simulate_kwargs()["config"].body == "free"
    bip = parse_sweep({**TINY, "walkers": ["mechanic"], "base": {"engine": "mujoco"}})
    assert Scenario.from_sweep_cell(bip, cells(bip)[0]).simulate_kwargs()["config"].body == "assist"


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
    assert "| horn_beetle (free) |" in text and "| raptor (free) |" in text
    for w in ("horn_beetle", "raptor"):
        assert (tmp_path / "rep" / "plots" / f"gait_{w}.png").stat().st_size > 1000
        assert (tmp_path / "rep" / "urdf" / f"{w}.urdf").exists()
    physics = json.loads((tmp_path / "rep" / "physics.json").read_text())
    from gaitsim.report import CONDITIONS

    assert len(physics) == 2 * len(CONDITIONS)
    # every cell carries the verdict and its reason, and the report prints them
    assert all(c["verdict"] in VERDICTS and c["verdict_reason"] for c in physics)
    assert "### Gait fidelity on flat ground" in text


# ---------------------------------------------------------------------------- schema


@pytest.mark.parametrize(
    "change, message",
    [
        ({"walker": ["fox"]}, "unknown key 'walker'; did you mean 'walkers'?"),
        ({"seed": 2}, "unknown key 'seed'; did you mean 'seeds'?"),
        ({"colour": "red"}, "unknown key 'colour' (keys: name, description"),
        ({"base": {"frction": 0.5}}, "[base] 'frction' is not a simulate() setting; did you "),
        ({"base": {"terrain": "rough"}}, "[base] terrain cannot be set"),
        ({"base": {"gui": True}}, "[base] gui cannot be set"),
        ({"base": {"speed_scale": 2.0}}, "is set by the swept parameter 'speed_scale'"),
        ({"base": {"body": "floaty"}}, "[base] body must be one of 'auto', 'free'"),
        ({"base": {"friction": -1}}, "[base] friction must be a number > 0"),
        ({"base": {"stop_on_fall": "yes"}}, "stop_on_fall must be true or false"),
        ({"walkers": []}, "'walkers' is empty"),
        ({"walkers": ["horn_beetle", "horn_beetle"]}, "lists horn_beetle twice"),
        ({"values": [0.8, 1.0, 0.8]}, "'values' lists 0.8 twice"),
        ({"values": [1, 1.0]}, "'values' lists 1.0 twice (also as 1)"),
        ({"parameter": "turn", "values": ["straight", "straight"]}, "lists 'straight' twice"),
        ({"seeds": 10**6}, "'seeds' must be a whole number from 1 to"),
        ({"seconds": 1e9}, "'seconds' must be a positive number up to"),
        ({"name": "../escape"}, "contains '/'"),
        ({"description": 3}, "'description' must be a string"),
        ({"base": {"control": {"kp": 2}}}, "[base.control]: kp is PyBullet's position gain"),
        ({"base": {"control": {"roll_folow_planted": True}}},
         "[base.control] 'roll_folow_planted' is not a ControlConfig field; did you mean "
         "'roll_follow_planted'?"),
        ({"base": {"control": {"body": "free"}}}, "[base.control] 'body': set the scenario's"),
        ({"base": {"control": 1}}, "[base.control] is a table of ControlConfig fields"),
    ],
)
def test_definitions_are_checked_against_the_schema(change, message):
    with pytest.raises(SweepError) as info:
        parse_sweep({**TINY, **change}, label="d.toml")
    assert str(info.value).startswith("d.toml: "), str(info.value)
    assert message in str(info.value), str(info.value)


def test_base_keys_simulate_takes_are_accepted_and_used():
    import inspect

    from gaitsim.sim.run import simulate

    base = {"friction": 0.8, "solver_iterations": 20, "body": "free", "stop_on_fall": False}
    assert set(base) - {"body"} <= set(inspect.signature(simulate).parameters)
    sw = parse_sweep({**TINY, "base": base})
    kw = Scenario.from_sweep_cell(sw, cells(sw)[0]).simulate_kwargs()
    assert kw["friction"] == 0.8 and kw["solver_iterations"] == 20
    assert kw["config"].body == "free" and kw["stop_on_fall"] is False


def test_a_base_control_table_sets_the_controller():
    """[base.control]: ControlConfig fields by name reach every cell's controller."""
    sw = parse_sweep({**TINY, "base": {"control": {"roll_follow_planted": True, "kp": 0.1}}})
    config = Scenario.from_sweep_cell(sw, cells(sw)[0]).simulate_kwargs()["config"]
    assert config.roll_follow_planted is True and config.kp == 0.1
    assert config.body == "free"  # the rest as without the table


def test_a_bad_definition_fails_before_any_worker_starts(tmp_path, capsys):
    from gaitsim.cli import main

    d = tmp_path / "bad.toml"
    d.write_text('name = "b"\nparameter = "friction"\nvalues = [0.5]\n[base]\nfriction = 1.0\n')
    out = tmp_path / "out"
    assert main(["sweep", str(d), "--out", str(out), "-q"]) == 2
    assert "set by the swept parameter 'friction'" in capsys.readouterr().err
    assert not out.exists()


# ---------------------------------------------------------------------------- the catalog it runs

ONE = {**TINY, "values": [1.0], "seeds": 1, "seconds": 0.5}


def _check_custom_rows(rows):
    by = {r["walker"]: r for r in rows}
    assert set(by) == {"fox", "newt"}
    assert float(by["fox"]["commanded_speed_m_s"]) == pytest.approx(0.3)  # built-in: 0.375
    assert float(by["newt"]["commanded_speed_m_s"]) == pytest.approx(0.12)
    assert all(float(r["distance_m"]) > 0 for r in rows)


def test_a_custom_catalog_runs_its_own_walkers(custom_catalog_file, tmp_path, capsys):
    from gaitsim.cli import main

    custom = custom_catalog_file
    d = tmp_path / "c.toml"
    d.write_text(
        'name = "c"\nparameter = "speed_scale"\nvalues = [1.0]\nwalkers = ["fox", "newt"]\n'
        "seeds = 1\nseconds = 0.5\n"
    )
    out = tmp_path / "out"
    argv = ["sweep", str(d), "--catalog", str(custom), "--out", str(out), "-q", "--no-plots"]
    assert main(argv) == 0, capsys.readouterr().err
    _check_custom_rows(read_rows(out))
    # the sweep carries the entries themselves: a changed file cannot change a running sweep
    sw = load_sweep(d, catalog=gaitsim_load(custom))
    assert '"clip_speed": 0.3' in sw.catalog_json and "newt" in sw.catalog_json


def gaitsim_load(path):
    from gaitsim import load_catalog

    return load_catalog(path)


def test_ray_backend_runs_a_custom_catalog(custom_catalog_file, tmp_path, monkeypatch):
    pytest.importorskip("ray", reason="ray extra not installed")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.setenv("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    sw = parse_sweep(
        {**ONE, "walkers": ["fox", "newt"]}, catalog=gaitsim_load(custom_catalog_file)
    )
    rows, failed = run_sweep(sw, tmp_path / "out", backend="ray", progress=False)
    assert not failed
    _check_custom_rows(rows)


def test_a_worker_refuses_entries_that_do_not_match_their_hash():
    from gaitsim.sweep import sweep_catalog

    sw = parse_sweep(ONE)
    assert sweep_catalog(sw)["horn_beetle"].gait.stride == 0.06  # parsed once, cached
    changed = sw.catalog_json.replace('"stride": 0.06', '"stride": 0.07')
    assert changed != sw.catalog_json
    with pytest.raises(SweepError, match="do not match their hash"):
        sweep_catalog(dataclasses.replace(sw, catalog_json=changed))


# ---------------------------------------------------------------------------- the output folder


def test_resuming_with_another_definition_or_catalog_is_refused(custom_catalog_file, tmp_path):
    out = tmp_path / "out"
    sw = parse_sweep(ONE)
    run_sweep(sw, out, progress=False)
    manifest = json.loads((out / "sweep.json").read_text())
    assert manifest["definition_sha256"] == sw.definition_sha256()
    assert manifest["catalog_sha256"] == sw.catalog_sha256
    run_sweep(sw, out, progress=False)  # the same sweep resumes
    run_sweep(parse_sweep({**ONE, "seeds": 2, "description": "x"}), out, progress=False)
    assert len(read_rows(out)) == 2  # more seeds only add cells

    other = parse_sweep({**ONE, "seconds": 0.6})
    with pytest.raises(SweepError, match=r"different definition .*--restart"):
        run_sweep(other, out, progress=False)
    custom = gaitsim_load(custom_catalog_file)
    changed = parse_sweep({**ONE, "walkers": ["newt"]}, catalog=custom)
    assert changed.definition_sha256() != sw.definition_sha256()
    beetle = dataclasses.replace(custom["newt"], name="horn_beetle")
    from gaitsim.catalog import Catalog

    lift = beetle.gait.lift * 1.5
    higher = dataclasses.replace(beetle, gait=dataclasses.replace(beetle.gait, lift=lift))
    other_cat = parse_sweep(ONE, catalog=Catalog([higher]))
    assert other_cat.definition_sha256() == sw.definition_sha256()
    with pytest.raises(SweepError, match=r"different catalog .*new --out folder, or --restart"):
        run_sweep(other_cat, out, progress=False)

    rows, _ = run_sweep(other, out, progress=False, restart=True)  # --restart clears
    assert len(rows) == 1 and rows[0]["seconds"] == 0.6
    assert len(list((out / "cells").iterdir())) == 1
    assert json.loads((out / "sweep.json").read_text())["definition_sha256"] == (
        other.definition_sha256()
    )


def test_cells_without_a_record_are_not_resumed(tmp_path):
    out = tmp_path / "out"
    (out / "cells").mkdir(parents=True)
    (out / "cells" / "old.json").write_text("{}")
    with pytest.raises(SweepError, match=r"no sweep\.json recording which sweep"):
        run_sweep(parse_sweep(ONE), out, progress=False)


def test_restart_via_the_cli(tmp_path, capsys):
    from gaitsim.cli import main

    d = tmp_path / "s.toml"
    d.write_text(SMALL_TOML)
    out = tmp_path / "out"
    assert main(["sweep", str(d), "--out", str(out), "-q", "--no-plots"]) == 0
    d.write_text(SMALL_TOML.replace("seconds = 0.5", "seconds = 0.4"))
    assert main(["sweep", str(d), "--out", str(out), "-q", "--no-plots"]) == 2
    err = capsys.readouterr().err
    assert f"{out}: holds results of sweep 's' run with a different definition" in err
    assert "--restart" in err
    argv = ["sweep", str(d), "--out", str(out), "-q", "--no-plots", "--restart"]
    assert main(argv) == 0
    assert [r["seconds"] for r in read_rows(out)] == ["0.4"]


SMALL_TOML = (
    'name = "s"\nparameter = "speed_scale"\nvalues = [1.0]\nwalkers = ["horn_beetle"]\n'
    "seeds = 1\nseconds = 0.5\n"
)


def test_a_truncated_cell_file_is_reported_with_its_path(tmp_path, capsys):
    from gaitsim.cli import main

    d = tmp_path / "s.toml"
    d.write_text(SMALL_TOML)
    out = tmp_path / "out"
    assert main(["sweep", str(d), "--out", str(out), "-q", "--no-plots"]) == 0
    cell = next((out / "cells").glob("*.json"))
    text = cell.read_text()
    cell.write_text(text[: len(text) // 2])
    assert main(["sweep", str(d), "--out", str(out), "-q", "--no-plots"]) == 2
    err = capsys.readouterr().err
    assert f"{cell}: truncated or unreadable cell file" in err, err
    assert "delete it to run that cell again, or rerun with --restart" in err
    cell.write_text(json.dumps({"walker": "fox", "value": 1.0, "seed": 0}))
    assert main(["sweep", str(d), "--out", str(out), "-q", "--no-plots"]) == 2
    assert f"{cell}: holds another cell's result" in capsys.readouterr().err
    cell.unlink()  # as the message says: the cell runs again
    assert main(["sweep", str(d), "--out", str(out), "-q", "--no-plots"]) == 0


# ---------------------------------------------------------------------------- orphaned workers


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_orphaned_workers_exit_when_the_sweep_dies(tmp_path):
    definition = tmp_path / "long.toml"
    definition.write_text(
        'name = "long"\nparameter = "speed_scale"\nvalues = [0.9, 1.0]\n'
        'walkers = ["spider_bot"]\nseeds = 1\nseconds = 60.0\n'
    )
    argv = [sys.executable, "-m", "gaitsim.cli", "sweep", str(definition)]
    argv += ["--out", str(tmp_path / "out"), "--workers", "2", "-q", "--no-plots"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kids: list[int] = []
    deadline = time.time() + 60
    while time.time() < deadline and len(kids) < 2:
        kids = _children(proc.pid) if proc.poll() is None else []
        time.sleep(0.1)
    assert len(kids) == 2, "the workers never started"
    time.sleep(0.5)  # let them get into their cells
    os.kill(proc.pid, signal.SIGKILL)  # no chance to clean up: the workers are orphaned
    proc.wait()
    deadline = time.time() + 10
    while time.time() < deadline and any(_running(k) for k in kids):
        time.sleep(0.1)
    alive = [k for k in kids if _running(k)]
    for k in alive:  # do not leave them running if the test fails
        os.kill(k, signal.SIGKILL)
    assert not alive, f"workers {alive} outlived their sweep"


def test_summary_table_counts_walked_episodes_and_falls():
    from gaitsim.sweep import summary_table

    base = {"walker": "fox", "value": 1.0}
    rows = [
        {**base, "fell": False, "verdict": "walked", "slip_mm_per_stance": 2.0},
        {**base, "fell": False, "verdict": "no_progress", "slip_mm_per_stance": 4.0},
        {**base, "fell": "True", "verdict": "fell", "slip_mm_per_stance": ""},
    ]
    table = summary_table(rows)
    assert "| fox | 1/3 (1), 3.0 |" in table


def test_report_exits_1_when_a_walker_fails_the_walk_test(tmp_path):
    from gaitsim.catalog import Catalog, load_catalog, save_catalog

    fox = load_catalog()["fox"]
    # hips raised past the legs' reach: every foot falls short, so the walk test fails
    tall = dataclasses.replace(fox, name="tall_fox",
                               gait=dataclasses.replace(fox.gait, hip_height=0.4))  # fmt: skip
    small = tmp_path / "tall.json"
    save_catalog(Catalog([tall]), small)
    argv = ["report", "--catalog", str(small), "--out", str(tmp_path / "rep"), "--seconds", "0.5"]
    r = subprocess.run(
        [sys.executable, "-m", "gaitsim.cli", *argv, "-q"], capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert r.returncode == 1, r.stderr
    assert "walk test failed for tall_fox" in r.stdout
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "| tall_fox |" in text and "FAIL" in text
