"""gaitsim.sim.World and Robot: client hygiene, ground == terrain, leaks, standing walkers.

Measured numbers (ground disagreement, memory growth, standing results) are written to
``sim_world_results.json`` under pytest's base temp dir and listed at the end of the run.
"""

from __future__ import annotations

import ast
import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pybullet as p
import pytest

import gaitsim
from gaitsim.geometry import geometry
from gaitsim.ik import leg_ik
from gaitsim.sim.robot import Robot
from gaitsim.sim.world import DisplayError, World, heightfield
from gaitsim.terrain import Flat, Rough, Slope

ROOT = Path(__file__).resolve().parents[1]
SIM_DIR = ROOT / "gaitsim" / "sim"

# ---------------------------------------------------------------------------- results


@pytest.fixture(scope="module")
def results(request, tmp_path_factory):
    """Collects measured numbers; at module end writes them to JSON and the terminal."""
    data: dict[str, dict] = {}
    yield data
    out = tmp_path_factory.getbasetemp() / "sim_world_results.json"
    out.write_text(json.dumps(data, indent=2, sort_keys=True))
    plugins = request.config.pluginmanager
    tr = plugins.get_plugin("terminalreporter")
    capture = plugins.get_plugin("capturemanager")
    if tr is None or capture is None:
        return
    with capture.global_and_fixture_disabled():  # shown whatever the capture mode (-s or not)
        tr.write_line("")
        tr.write_line(f"sim world measurements (also in {out}):")
        for section, rows in sorted(data.items()):
            for key, value in sorted(rows.items()):
                tr.write_line(f"  {section:8s} {key:14s} {json.dumps(value)}")


# ---------------------------------------------------------------------------- hygiene

PYBULLET_MODULES = ("pybullet", "pybullet_data", "pybullet_utils", "pybullet_envs")
# attributes that need no physicsClientId: connecting, and the exception class
EXEMPT_CALLS = {"connect"}
EXEMPT_ATTRS = {"error"}


def _is_pybullet(module: str | None) -> bool:
    return module is not None and module.split(".")[0] in PYBULLET_MODULES


def pybullet_imports(source: str) -> list[int]:
    """Line numbers where ``source`` imports a pybullet module (import, from, import_module)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import) and any(_is_pybullet(a.name) for a in node.names):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and _is_pybullet(node.module):
            lines.append(node.lineno)
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and _is_pybullet(node.args[0].value)
            and (
                (isinstance(node.func, ast.Name) and node.func.id == "__import__")
                or (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
            )
        ):
            lines.append(node.lineno)
    return lines


def client_id_violations(source: str, filename: str = "<snippet>") -> list[str]:
    """Every pybullet call in ``source`` that does not name its physicsClientId.

    A call ``alias.f(...)`` on an ``import pybullet [as alias]`` must pass the keyword
    ``physicsClientId`` (``connect`` excepted); ``from pybullet import f``, ``**kwargs`` and
    bare references such as ``f = p.stepSimulation`` are flagged too, since they would
    escape the check. UPPER_CASE attributes are constants.
    """
    tree = ast.parse(source)
    aliases: set[str] = set()
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "pybullet":
                    aliases.add(a.asname or a.name)
                elif _is_pybullet(a.name) and a.name != "pybullet_data":
                    problems.append(f"{filename}:{node.lineno}: imports {a.name}")
        elif isinstance(node, ast.ImportFrom) and _is_pybullet(node.module):
            if node.module != "pybullet_data":
                problems.append(
                    f"{filename}:{node.lineno}: 'from {node.module} import ...' escapes the "
                    "physicsClientId check; use 'import pybullet as p'"
                )
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
        ):
            continue
        name = f"{node.value.id}.{node.attr}"
        if node.attr.isupper() or node.attr in EXEMPT_ATTRS:
            continue
        if id(node) not in called:
            problems.append(f"{filename}:{node.lineno}: {name} referenced without a call")
            continue
        if node.attr in EXEMPT_CALLS:
            continue
        call = next(c for c in ast.walk(tree) if isinstance(c, ast.Call) and c.func is node)
        keywords = {k.arg for k in call.keywords}
        if "physicsClientId" not in keywords:
            why = "passes **kwargs" if None in keywords else "lacks physicsClientId="
            problems.append(f"{filename}:{node.lineno}: {name}(...) {why}")
    return problems


def _python_files(*folders: str):
    for folder in folders:
        base = ROOT / folder
        if base.is_dir():
            yield from sorted(base.rglob("*.py"))


def test_pybullet_is_imported_only_in_gaitsim_sim():
    offenders = []
    for path in _python_files("gaitsim", "envs", "experiments"):
        if SIM_DIR in path.parents:
            continue
        for line in pybullet_imports(path.read_text(encoding="utf-8")):
            offenders.append(f"{path.relative_to(ROOT)}:{line}")
    assert not offenders, f"pybullet imported outside gaitsim/sim/: {offenders}"


def test_every_pybullet_call_in_sim_names_its_client():
    files = list(_python_files("gaitsim/sim"))
    assert any(p_.name == "world.py" for p_ in files)
    problems = []
    n_calls = 0
    for path in files:
        source = path.read_text(encoding="utf-8")
        problems += client_id_violations(source, str(path.relative_to(ROOT)))
        n_calls += source.count("physicsClientId=")
    assert not problems, "\n".join(problems)
    assert n_calls > 20  # the check really looked at the pybullet calls


def test_client_checker_catches_bare_calls():
    bad = textwrap.dedent(
        """
        import pybullet as p
        def run(cid, kw):
            p.setGravity(0, 0, -9.81, physicsClientId=cid)
            p.stepSimulation()
            p.getContactPoints(**kw)
            step = p.stepSimulation
        """
    )
    problems = client_id_violations(bad)
    assert len(problems) == 3, problems
    assert any("p.stepSimulation(...) lacks physicsClientId" in m for m in problems)
    assert any("**kwargs" in m for m in problems)
    assert any("without a call" in m for m in problems)
    assert client_id_violations("import pybullet\npybullet.stepSimulation()\n")
    assert client_id_violations("from pybullet import stepSimulation\nstepSimulation()\n")
    good = textwrap.dedent(
        """
        import pybullet as pb
        cid = pb.connect(pb.DIRECT)
        pb.createCollisionShape(pb.GEOM_PLANE, physicsClientId=cid)
        pb.stepSimulation(physicsClientId=cid)
        try:
            pb.disconnect(physicsClientId=cid)
        except pb.error:
            pass
        """
    )
    assert client_id_violations(good) == []
    assert pybullet_imports("import os\nimport pybullet_data as pd\n") == [2]
    assert pybullet_imports("import importlib\nimportlib.import_module('pybullet')\n") == [2]


# ---------------------------------------------------------------------------- GUI


def test_gui_without_display_raises_clear_error(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    if sys.platform.startswith(("win", "darwin")):
        pytest.skip("no X display check off Linux")
    with pytest.raises(DisplayError, match="no display") as err:
        World(gui=True)
    assert isinstance(err.value, RuntimeError)
    assert "xvfb-run" in str(err.value) and "gui=False" in str(err.value)
    with World() as w:  # the process and pybullet still work
        w.step(2)
        assert w.time == pytest.approx(2 * w.dt)


def test_gui_without_display_does_not_kill_a_fresh_process():
    code = (
        "from gaitsim.sim.world import World, DisplayError\n"
        "try:\n    World(gui=True)\nexcept DisplayError as e:\n    print('raised', e)\n"
        "print('alive')\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    run = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert "raised World(gui=True): no display" in run.stdout
    assert run.stdout.rstrip().endswith("alive")


# ---------------------------------------------------------------------------- ground


def _walk_area_xy() -> np.ndarray:
    """A 4 m x 4 m grid of 400 points around the origin and a strip along +x to 8 m."""
    g = np.linspace(-2.0, 2.0, 20)
    gx, gy = np.meshgrid(g, g)
    strip_x = np.linspace(0.0, 8.0, 401)
    strip = np.stack([strip_x, np.full_like(strip_x, 0.013)], axis=-1)
    return np.concatenate([np.stack([gx.ravel(), gy.ravel()], axis=-1), strip])


TERRAINS = {
    "flat": Flat(),
    "flat_raised": Flat(0.25),
    "slope_up_10": Slope.from_degrees(10.0),
    "slope_down_10": Slope.from_degrees(-10.0),
    "slope_7_at_60": Slope.from_degrees(7.0, 60.0),
    "slope_offset": Slope(math.radians(12.0), math.radians(-30.0), origin=(1.0, -2.0)),
    "rough": Rough(0.02, 0.5, seed=3),
}


@pytest.mark.parametrize("name", list(TERRAINS))
def test_ground_matches_terrain_height(name, results, record_property):
    terrain = TERRAINS[name]
    xy = _walk_area_xy()
    with World(terrain) as w:
        z = w.ray_heights(xy)
    assert not np.isnan(z).any(), f"{name}: rays missed the ground at {xy[np.isnan(z)]}"
    err = np.abs(z - terrain.height(xy[:, 0], xy[:, 1]))
    worst = float(err.max())
    results.setdefault("ground", {})[name] = {"max_err_mm": round(worst * 1e3, 6)}
    record_property("max_err_mm", worst * 1e3)
    assert worst < 1e-3, (
        f"{name}: physics ground and terrain.height disagree by up to {worst * 1e3:.4f} mm "
        f"at {xy[err.argmax()]}"
    )
    # the comparison is not vacuous: the terrain varies over the area
    if name != "flat" and not name.startswith("flat"):
        assert np.ptp(z) > 0.02


def test_heightfield_layout_on_a_non_square_grid():
    """Rows along y, columns along x, centre and vertical offset: checked at every vertex."""
    rng = np.random.default_rng(0)
    ny, nx, cell, origin = 7, 12, 0.1, (-0.3, 0.45)
    grid = 0.05 * np.arange(nx)[None, :] + 0.2 * np.arange(ny)[:, None] ** 2 / ny
    grid = grid + rng.uniform(-0.01, 0.01, grid.shape) + 0.7  # all above zero
    with World(Flat(-5.0)) as w:
        shape, pos = heightfield(grid, cell, origin, client=w.client)
        p.createMultiBody(0.0, shape, basePosition=pos, physicsClientId=w.client)
        iy, ix = np.mgrid[1 : ny - 1, 1 : nx - 1]
        xy = np.stack([origin[0] + ix * cell, origin[1] + iy * cell], axis=-1)
        z = w.ray_heights(xy)
    err = np.abs(z - grid[iy, ix])
    assert err.max() < 1e-5, f"heightfield vertices off by {err.max():.2e} m"


# ---------------------------------------------------------------------------- lifetime


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise RuntimeError("no VmRSS")


def test_close_is_idempotent_and_context_manager_closes():
    with World() as w:
        cid = w.client
        assert p.isConnected(physicsClientId=cid)
    assert w.closed and not p.isConnected(physicsClientId=cid)
    w.close()
    w.close()
    w2 = World()
    cid2 = w2.client
    del w2  # __del__ disconnects
    assert not p.isConnected(physicsClientId=cid2)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc for RSS")
def test_two_hundred_worlds_leak_no_clients_or_memory(results):
    for _ in range(10):  # warm-up: first-use allocations of pybullet and numpy
        with World() as w:
            w.step(5)
    before = _rss_mb()
    ids = []
    for i in range(200):
        w = World(Slope.from_degrees(5.0) if i % 2 else Flat())
        w.step(5)
        ids.append(w.client)
        w.close()
        assert not p.isConnected(physicsClientId=ids[-1]), f"world {i} still connected"
    growth = _rss_mb() - before
    still = [c for c in set(ids) if p.isConnected(physicsClientId=c)]
    results.setdefault("memory", {})["200_worlds"] = {
        "rss_growth_mb": round(growth, 2),
        "distinct_client_ids": len(set(ids)),
    }
    assert not still, f"clients {still} still connected"
    assert growth < 20.0, f"RSS grew {growth:.1f} MB over 200 worlds"


# ---------------------------------------------------------------------------- standing

STAND_SECONDS = 5.0
SETTLE_SECONDS = 1.0
STAND_TOLERANCE = 5e-3  # m


def stand(entry, cache_dir) -> dict:
    """Hold the mid-stance pose on flat ground for STAND_SECONDS; measure height and falls."""
    geo = geometry(entry.gait)
    q, short = leg_ik(geo.chain, geo.homes)
    assert short.max() == 0.0
    target = geo.foot_radius + geo.hip_height
    with World(Flat()) as w:
        robot = Robot(w, entry, cache_dir=cache_dir)
        robot.set_joint_positions(q)
        robot.command_positions(q)
        base0, _ = robot.base_pose()
        assert base0[2] == pytest.approx(target, abs=1e-9)
        feet0 = robot.foot_positions()
        fk_err = float(np.abs(feet0 - (base0 + geo.homes)).max())
        support = robot.foot_positions()[:, :2]
        com0 = robot.center_of_mass()
        n = round(STAND_SECONDS / w.dt)
        z = np.empty(n)
        fell_at = None
        for k in range(n):
            w.step()
            pos, quat = robot.base_pose()
            z[k] = pos[2]
            tilt = math.degrees(2 * math.asin(min(1.0, math.hypot(quat[0], quat[1]))))
            if fell_at is None and (
                robot.body_ground_contact()
                or abs(pos[2] - target) > 0.5 * geo.hip_height
                or tilt > 30.0
            ):
                fell_at = w.time
        settled = z[round(SETTLE_SECONDS / w.dt) :]
        contacts = robot.foot_contacts()
        pos, _ = robot.base_pose()
        _, _, tau = robot.joint_state()
        # horizontal distance of the start COM from the foot support (line or polygon centre)
        if len(support) == 2:
            d = support[1] - support[0]
            rel = com0[:2] - support[0]
            com_off = float(abs(d[0] * rel[1] - d[1] * rel[0]) / np.linalg.norm(d))
        else:
            com_off = float(np.linalg.norm(com0[:2] - support.mean(axis=0)))
        return {
            "legs": entry.gait.n_legs,
            "target_height_m": round(target, 6),
            "max_height_err_mm": round(float(np.abs(settled - target).max()) * 1e3, 3),
            "final_height_err_mm": round(float(z[-1] - target) * 1e3, 3),
            "feet_in_contact": int(contacts.sum()),
            "all_feet_in_contact": bool(contacts.all()),
            "body_touches_ground": bool(robot.body_ground_contact()),
            "fell": fell_at is not None,
            "time_to_fall_s": None if fell_at is None else round(fell_at, 4),
            "xy_drift_mm": round(float(np.linalg.norm(pos[:2] - base0[:2])) * 1e3, 3),
            "start_com_off_support_mm": round(com_off * 1e3, 2),
            "fk_err_mm": round(fk_err * 1e3, 6),
            "max_torque_share": round(float(np.abs(tau / robot.effort).max()), 3),
        }


@pytest.fixture(scope="module")
def urdf_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("urdf")


def _multi_legged():
    return [n for n, e in gaitsim.load_catalog().items() if e.gait.n_legs > 2]


def _bipeds():
    return [n for n, e in gaitsim.load_catalog().items() if e.gait.n_legs == 2]


def test_catalog_has_the_walkers_this_file_expects():
    assert set(_multi_legged()) >= {"fox", "hound", "horn_beetle", "spider_bot"}
    assert set(_bipeds()) >= {"mechanic", "raptor"}


@pytest.mark.parametrize("name", _multi_legged())
def test_multi_legged_walker_stands_at_kinematic_height(name, urdf_cache, results, record_property):
    r = stand(gaitsim.load_catalog()[name], urdf_cache)
    results.setdefault("stand", {})[name] = r
    for k, v in r.items():
        record_property(k, v)
    assert r["fk_err_mm"] < 1e-3, f"{name}: PyBullet feet differ from the kinematic homes: {r}"
    assert not r["fell"], f"{name} fell: {r}"
    assert r["max_height_err_mm"] < STAND_TOLERANCE * 1e3, f"{name} sags: {r}"
    assert r["all_feet_in_contact"] and not r["body_touches_ground"], f"{name}: {r}"


@pytest.mark.parametrize("name", _bipeds())
def test_biped_standing_outcome_is_measured(name, urdf_cache, results, record_property):
    """Bipeds on two sphere feet stand on a line: held joints alone cannot balance them.

    Asserts only what is measured: the run completed and its numbers are consistent; if
    the biped does stand, it must meet the same bar as the multi-legged walkers.
    """
    r = stand(gaitsim.load_catalog()[name], urdf_cache)
    results.setdefault("stand", {})[name] = r
    for k, v in r.items():
        record_property(k, v)
    assert r["fk_err_mm"] < 1e-3
    if r["fell"]:
        assert 0.0 < r["time_to_fall_s"] <= STAND_SECONDS
        assert r["max_height_err_mm"] > 0.0
    else:
        assert r["max_height_err_mm"] < STAND_TOLERANCE * 1e3, f"{name}: {r}"
        assert r["all_feet_in_contact"], f"{name}: {r}"


def test_robot_api_shapes_and_removal(urdf_cache):
    entry = gaitsim.load_catalog()["fox"]
    geo = geometry(entry.gait)
    with World() as w:
        robot = Robot(w, entry, cache_dir=urdf_cache)
        assert robot.joint_index.shape == (4, 3) and robot.foot_index.shape == (4,)
        assert len(set(robot.joint_index.ravel().tolist())) == 12
        q = robot.home_joints + 0.05
        robot.set_joint_positions(q)
        pos, vel, tau = robot.joint_state()
        assert pos.shape == vel.shape == tau.shape == (4, 3)
        np.testing.assert_allclose(pos, q, atol=1e-12)
        np.testing.assert_allclose(vel, 0.0, atol=1e-12)
        robot.set_joint_positions(robot.home_joints)
        base, quat = robot.base_pose()
        np.testing.assert_allclose(robot.foot_positions(), base + geo.homes, atol=1e-9)
        assert quat.shape == (4,) and robot.base_velocity()[0].shape == (3,)
        assert robot.foot_contacts().shape == (4,)
        assert robot.center_of_mass().shape == (3,)
        assert robot.mass == pytest.approx(geo.total_mass, rel=1e-3)
        with pytest.raises(ValueError, match=r"\(4, 3\)"):
            robot.command_positions(np.zeros((3, 3)))
        n = p.getNumBodies(physicsClientId=w.client)
        robot.remove()
        robot.remove()
        assert p.getNumBodies(physicsClientId=w.client) == n - 1


def test_sense_reads_what_the_single_queries_read(urdf_cache):
    """Robot.sense (the control loop's one-pass reading) against the robot's own queries,
    mid-walk with feet landing and lifting; a body dropped on the ground sets the contact
    flags."""
    from gaitsim.sim.controller import GaitController
    from gaitsim.walker import Walker

    with World() as w:
        robot = Robot(w, "fox", cache_dir=urdf_cache)
        ctl = GaitController(w, robot, Walker("fox"), record=False)
        for _ in range(47):
            ctl.step()
        s = robot.sense()
        base, quat = robot.base_pose()
        lin, ang = robot.base_velocity()
        q, qd, tau = robot.joint_state()
        assert s.position == tuple(base) and s.quaternion == tuple(quat)
        assert s.linear_velocity == tuple(lin) and s.angular_velocity == tuple(ang)
        assert s.joint_positions == tuple(q.ravel()) and s.joint_velocities == tuple(qd.ravel())
        assert s.joint_torques == tuple(tau.ravel())
        np.testing.assert_array_equal(np.array(s.feet), robot.foot_positions())
        np.testing.assert_allclose(s.com, robot.center_of_mass(), rtol=0, atol=1e-12)
        assert s.contacts == robot.foot_contacts().tolist() and any(s.contacts)
        assert s.body_contact is robot.body_ground_contact() is False
        assert s.leg_contact is False
        assert ctl.sensed == s  # the controller kept the same reading after its last step
        flip = p.getQuaternionFromEuler((math.pi, 0.0, 0.0), physicsClientId=w.client)
        robot.reset_base((0.0, 0.0, 0.02), flip)
        w.step(2)  # upside down on the ground: the body and the legs touch it
        s = robot.sense()
        assert s.body_contact and robot.body_ground_contact()


# ---------------------------------------------------------------------------- large rough ground


def test_long_runs_lay_rough_ground_within_the_heightfield_limit():
    """A 2 m/s walk of 10 s needs rough ground 37 m across: on 2 cm cells a heightfield of
    1887 points a side, beyond the 2^21 PyBullet holds (bodies fell through it); laid on
    coarser cells it stays within, and short runs keep their 2 cm cells."""
    from gaitsim.path import Straight
    from gaitsim.sim.run import MAX_HEIGHTFIELD_POINTS, RunError, cover_path, heightfield_cell
    from gaitsim.sim.world import HEIGHTFIELD_PAD

    rough = Rough(0.01, seed=0)
    long_run = cover_path(rough, Straight(), 2.0 * 10.0 * 1.5 + 1.0, 1.2)
    assert long_run.size == pytest.approx(37.4)
    assert long_run.cell > rough.cell
    assert (long_run.n + 2 * HEIGHTFIELD_PAD) ** 2 <= MAX_HEIGHTFIELD_POINTS
    short_run = cover_path(rough, Straight(), 0.3 * 10.0 * 1.5 + 1.0, 0.3)
    assert short_run.cell == rough.cell
    assert heightfield_cell(10.0, 0.02) == 0.02
    wide = Rough(0.01, seed=0, size=31.4)  # covers the path already, on too many cells
    relaid = cover_path(wide, Straight(), 5.0, 0.3)
    assert relaid.size == wide.size and relaid.cell > wide.cell
    with pytest.raises(RunError, match="too coarse for a bump spacing"):
        cover_path(Rough(0.01, wavelength=0.1, seed=0), Straight(), 150.0, 1.0)


def test_the_world_refuses_a_heightfield_pybullet_cannot_hold():
    with pytest.raises(ValueError, match="more than PyBullet holds"):
        World(Rough(0.01, seed=0, size=31.4))


@pytest.mark.slow
def test_a_fast_walker_walks_ten_seconds_of_rough_ground():
    """experiments/second_catalog.json's horse (a trot at 2 m/s) on 1 cm rough ground for
    10 s: before the heightfield limit its ground was 1587 points a side and it fell
    through it at 0.27 s."""
    from gaitsim.catalog import load_catalog
    from gaitsim.sim.run import simulate

    path = Path(__file__).resolve().parents[1] / "experiments" / "second_catalog.json"
    horse = load_catalog(str(path))["horse_trot"]
    s = simulate(horse, seconds=10.0, terrain=Rough(0.01, seed=0)).summary
    assert s["verdict"] == "walked", s["verdict_reason"]
    assert s["distance_m"] > 18.0
