"""The URDF generator: valid files for every reader, one kinematic truth, safe names."""

from __future__ import annotations

import dataclasses
import math
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from gaitsim import Slope, Walker, leg_fk, load_catalog
from gaitsim import urdf as gurdf
from gaitsim.catalog import Catalog, Entry
from gaitsim.geometry import geometry
from gaitsim.urdf import (
    URDFNameError,
    build,
    cached_urdf,
    foot_link_names,
    joint_limits,
    joint_names,
    write_catalog,
)

REPO = Path(__file__).resolve().parents[1]
CATALOG = load_catalog()
NAMES = list(CATALOG)
FK_SAMPLES = 50
FK_TOL = 1e-6  # metres
MUJOCO_EXTENSION = '<mujoco><compiler fusestatic="false" discardvisual="false"/></mujoco>'


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return {name: build(entry) for name, entry in CATALOG.items()}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.urdf"
    path.write_text(text, encoding="utf-8")
    return path


def _renamed_leg(entry: Entry, new_name: str) -> Entry:
    legs = (dataclasses.replace(entry.gait.legs[0], name=new_name), *entry.gait.legs[1:])
    return Entry(entry.name, dataclasses.replace(entry.gait, legs=legs))


def test_builtin_catalog_covers_every_knee_kind():
    kinds = {leg.knee for e in CATALOG.values() for leg in e.gait.legs}
    assert kinds == {"up", "forward", "back"}


# ---------------------------------------------------------------------------- validity


@pytest.mark.parametrize("name", NAMES)
def test_check_urdf_accepts(name, texts, tmp_path):
    exe = shutil.which("check_urdf")
    if exe is None:
        pytest.skip("check_urdf (liburdfdom-tools) is not installed; CI installs it")
    res = subprocess.run(
        [exe, str(_write(tmp_path, name, texts[name]))], capture_output=True, text=True
    )
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert not [line for line in out.splitlines() if "error" in line.lower()], out
    assert f"robot name is: {name}" in out


def _inertia_ok(el: ET.Element) -> bool:
    i = {k: float(el.get(k)) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
    m = np.array(
        [
            [i["ixx"], i["ixy"], i["ixz"]],
            [i["ixy"], i["iyy"], i["iyz"]],
            [i["ixz"], i["iyz"], i["izz"]],
        ]
    )
    ev = np.linalg.eigvalsh(m)
    a, b, c = ev
    return bool(ev.min() > 0 and a + b >= c * (1 - 1e-9))


@pytest.mark.parametrize("name", NAMES)
def test_structure(name, texts):
    root = ET.fromstring(texts[name])  # strict XML: e.g. no "--" inside comments
    entry = CATALOG[name]
    geo = geometry(entry.gait)
    assert root.tag == "robot" and root.get("name") == name
    links = {link.get("name"): link for link in root.findall("link")}
    for lname, link in links.items():
        inertial = link.find("inertial")
        assert inertial is not None, f"{lname} has no <inertial>"
        assert float(inertial.find("mass").get("value")) > 0, lname
        assert _inertia_ok(inertial.find("inertia")), f"{lname}: invalid inertia"
        for shape in link.iter("geometry"):
            assert [c.tag for c in shape] in (["box"], ["cylinder"], ["sphere"]), lname
    base = links["base_link"].find("inertial/origin")
    assert base.get("xyz") == "0 0 0" and base.get("rpy") == "0 0 0"
    masses = [float(m.get("value")) for m in root.iter("mass")]
    assert sum(masses) == pytest.approx(geo.total_mass, rel=1e-9)
    base_mass = float(links["base_link"].find("inertial/mass").get("value"))
    assert base_mass == pytest.approx(geo.body_mass, rel=0.01)
    box = links["base_link"].find("collision/geometry/box")
    assert [float(v) for v in box.get("size").split()] == pytest.approx(geo.body, rel=1e-9)
    for i, foot in enumerate(foot_link_names(entry.gait)):
        sphere = links[foot].find("collision/geometry/sphere")
        assert float(sphere.get("radius")) == pytest.approx(geo.foot_radius, rel=1e-9)
        origin = links[foot].find("collision/origin")
        assert origin.get("xyz") == "0 0 0", f"{foot}: the sphere centre is the link origin"
        thigh = links[f"{entry.gait.legs[i].name}_thigh"]
        mass = float(thigh.find("inertial/mass").get("value"))
        assert mass == pytest.approx(geo.leg_masses[i, 0], rel=1e-9)
    joints = root.findall("joint")
    revolute = [j for j in joints if j.get("type") == "revolute"]
    assert [j.get("name") for j in revolute] == joint_names(entry.gait)
    for j in revolute:
        lim = j.find("limit")
        lo, hi = float(lim.get("lower")), float(lim.get("upper"))
        assert -math.pi <= lo < hi <= math.pi, j.get("name")
        assert float(lim.get("effort")) > 0 and float(lim.get("velocity")) > 0
        dyn = j.find("dynamics")
        assert float(dyn.get("damping")) >= 0 and float(dyn.get("friction")) >= 0
    fixed = [j.get("name") for j in joints if j.get("type") == "fixed"]
    assert fixed == [f"{leg.name}_foot_fixed" for leg in entry.gait.legs]


@pytest.mark.parametrize("name", NAMES)
def test_mujoco_compiles_unchanged_text(name, texts):
    mujoco = pytest.importorskip("mujoco")
    model = mujoco.MjModel.from_xml_string(texts[name])
    assert model.njnt == 3 * CATALOG[name].gait.n_legs


def test_effort_rule_and_stance_count():
    expected_min_stance = {"mechanic": 1, "raptor": 1, "fox": 2, "hound": 2}
    for name, entry in CATALOG.items():
        gait = entry.gait
        # brute force: sample the cycle finely away from switching instants
        x = (np.arange(20000) + 0.5) / 20000
        t = (x[:, None] + [leg.phase for leg in gait.legs]) % 1.0
        brute = max(1, int((t < gait.duty).sum(axis=1).min()))
        assert gurdf.n_stance_min(gait) == brute, name
        if name in expected_min_stance:
            assert brute == expected_min_stance[name], name
        geo = geometry(gait)
        raw = gurdf.EFFORT_SAFETY * geo.total_mass * gurdf.GRAVITY / brute * geo.chain.reach
        effort = gurdf.effort_limits(gait)
        assert np.all(effort >= raw) and np.all(effort <= raw * 1.01), name


# ---------------------------------------------------------------------------- one FK truth


def _pybullet_feet(path: Path, entry: Entry, q: np.ndarray) -> np.ndarray:
    pybullet = pytest.importorskip("pybullet")
    from pybullet_utils import bullet_client

    client = bullet_client.BulletClient(connection_mode=pybullet.DIRECT)
    try:
        body = client.loadURDF(
            str(path),
            [0, 0, 0],
            [0, 0, 0, 1],
            useFixedBase=True,
            flags=pybullet.URDF_USE_IMPLICIT_CYLINDER,
        )
        pos, orn = client.getBasePositionAndOrientation(body)
        assert np.allclose(pos, 0) and np.allclose(orn, [0, 0, 0, 1])
        joint_index, link_index = {}, {}
        for j in range(client.getNumJoints(body)):
            info = client.getJointInfo(body, j)
            joint_index[info[1].decode()] = j
            link_index[info[12].decode()] = j
        names, feet = joint_names(entry.gait), foot_link_names(entry.gait)
        out = np.empty(q.shape)
        for k in range(len(q)):
            for n, v in zip(names, q[k].ravel(), strict=True):
                client.resetJointState(body, joint_index[n], float(v))
            for i, f in enumerate(feet):
                state = client.getLinkState(body, link_index[f], computeForwardKinematics=1)
                out[k, i] = state[4]
        return out
    finally:
        client.disconnect()


def _yourdfpy_feet(path: Path, entry: Entry, q: np.ndarray) -> np.ndarray:
    yourdfpy = pytest.importorskip("yourdfpy")
    robot = yourdfpy.URDF.load(str(path), build_scene_graph=True, load_meshes=False)
    names, feet = joint_names(entry.gait), foot_link_names(entry.gait)
    out = np.empty(q.shape)
    for k in range(len(q)):
        robot.update_cfg(dict(zip(names, q[k].ravel(), strict=True)))
        for i, f in enumerate(feet):
            out[k, i] = robot.get_transform(f)[:3, 3]
    return out


def _mujoco_feet(text: str, entry: Entry, q: np.ndarray) -> np.ndarray:
    mujoco = pytest.importorskip("mujoco")
    # keep the fixed foot links as bodies (MuJoCo fuses them by default); test-side only
    model = mujoco.MjModel.from_xml_string(text.replace("</robot>", MUJOCO_EXTENSION + "</robot>"))
    data = mujoco.MjData(model)
    adr = [model.joint(n).qposadr[0] for n in joint_names(entry.gait)]
    ids = [model.body(f).id for f in foot_link_names(entry.gait)]
    out = np.empty(q.shape)
    for k in range(len(q)):
        data.qpos[adr] = q[k].ravel()
        mujoco.mj_kinematics(model, data)
        out[k] = data.xpos[ids]
    return out


@pytest.mark.parametrize("name", NAMES)
def test_pybullet_masses_and_inertial_frames(name, texts, tmp_path):
    pybullet = pytest.importorskip("pybullet")
    from pybullet_utils import bullet_client

    entry = CATALOG[name]
    geo = geometry(entry.gait)
    flags = pybullet.URDF_USE_IMPLICIT_CYLINDER | pybullet.URDF_USE_INERTIA_FROM_FILE
    client = bullet_client.BulletClient(connection_mode=pybullet.DIRECT)
    try:
        body = client.loadURDF(str(_write(tmp_path, name, texts[name])), flags=flags)
        total = client.getDynamicsInfo(body, -1)[0]
        assert client.getDynamicsInfo(body, -1)[3] == pytest.approx((0, 0, 0), abs=1e-12)
        centres = {}
        for j in range(client.getNumJoints(body)):
            info = client.getJointInfo(body, j)
            dyn = client.getDynamicsInfo(body, j)
            total += dyn[0]
            centres[info[12].decode()] = np.array(dyn[3])
    finally:
        client.disconnect()
    assert total == pytest.approx(geo.total_mass, rel=1e-8)
    for i, leg in enumerate(entry.gait.legs):
        up = leg.knee == "up"
        for part, length in (("thigh", leg.upper), ("shin", leg.lower)):
            want = np.array([length / 2, 0, 0]) if up else np.array([0, 0, -length / 2])
            got = centres[f"{leg.name}_{part}"]
            assert np.allclose(got, want, atol=1e-9), f"{leg.name}_{part}: {got} != {want}"
        assert np.allclose(centres[f"{leg.name}_foot"], 0, atol=1e-12)
        assert geo.chain.upper[i] == leg.upper


@pytest.mark.parametrize("name", NAMES)
def test_fk_agrees_with_leg_fk(name, texts, tmp_path):
    entry = CATALOG[name]
    lo, hi = joint_limits(entry.gait)
    rng = np.random.default_rng(20240 + NAMES.index(name))
    q = rng.uniform(lo, hi, size=(FK_SAMPLES, *lo.shape))
    truth = leg_fk(geometry(entry.gait).chain, q)
    path = _write(tmp_path, name, texts[name])
    for label, got in (
        ("pybullet", _pybullet_feet(path, entry, q)),
        ("yourdfpy", _yourdfpy_feet(path, entry, q)),
        ("mujoco", _mujoco_feet(texts[name], entry, q)),
    ):
        err = float(np.abs(got - truth).max())
        assert err < FK_TOL, f"{name}: {label} foot centres differ from leg_fk by {err:.3g} m"


def test_fk_check_can_fail(texts, tmp_path):
    """A sign flip in one knee axis is caught by the same comparison."""
    entry = CATALOG["fox"]
    leg = entry.gait.legs[0].name
    text = texts["fox"]
    needle = f'<child link="{leg}_shin"/>'
    start = text.index(needle)
    end = text.index("</joint>", start)
    broken = text[:start] + text[start:end].replace('axis xyz="0 1 0"', 'axis xyz="0 -1 0"')
    broken += text[end:]
    q = np.full((1, entry.gait.n_legs, 3), 0.5)
    truth = leg_fk(geometry(entry.gait).chain, q)
    got = _yourdfpy_feet(_write(tmp_path, "fox", broken), entry, q)
    assert np.abs(got - truth).max() > 1e-3


# ---------------------------------------------------------------------------- limits


@pytest.mark.parametrize("name", NAMES)
def test_limits_contain_the_gait(name):
    entry = CATALOG[name]
    lo, hi = joint_limits(entry.gait)
    labels = np.array(joint_names(entry.gait)).reshape(lo.shape)
    for terrain in (None, Slope.from_degrees(10.0), Slope.from_degrees(-10.0)):
        w = Walker(entry, terrain)
        d = (np.arange(997) + 0.37) / 997 * w.cycle  # not the generator's sample points
        q = w.pose_at(d).joints
        bad = (q < lo) | (q > hi)
        where = sorted({str(s) for s in labels[bad.any(axis=0)]})
        assert not bad.any(), f"{name} on {terrain}: outside the limits at {where}"


# ---------------------------------------------------------------------------- names


BAD_WALKER_NAMES = ["../x", "a<b", "", "x y", "1abc", 'a"b']


@pytest.mark.parametrize("bad", BAD_WALKER_NAMES)
def test_bad_walker_name_rejected_before_writing(bad, tmp_path):
    entry = dataclasses.replace(CATALOG["fox"], name=bad)
    out = tmp_path / "out"
    cache = tmp_path / "cache"
    with pytest.raises(URDFNameError, match="walker name"):
        write_catalog(Catalog([CATALOG["hound"], entry]), out)
    with pytest.raises(URDFNameError):
        build(entry)
    with pytest.raises(URDFNameError):
        cached_urdf(entry, cache)
    assert not out.exists() or not any(out.iterdir())
    assert not cache.exists() or not any(cache.iterdir())
    assert list(tmp_path.rglob("*")) in ([], [out], [cache], [out, cache], [cache, out])
    assert not (tmp_path.parent / "x.urdf").exists()


@pytest.mark.parametrize("bad", ["left leg", "../x", "a<b", ""])
def test_bad_leg_name_rejected_before_writing(bad, tmp_path):
    entry = _renamed_leg(CATALOG["fox"], bad)
    with pytest.raises(URDFNameError, match=r"segments\[0\]\.name"):
        write_catalog(Catalog([CATALOG["hound"], entry]), tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_names_that_collide_are_rejected(tmp_path):
    entry = CATALOG["fox"]
    legs = entry.gait.legs
    a = dataclasses.replace(legs[0], name="a_hip")
    b = dataclasses.replace(legs[1], name="a")  # prefixes of each other's names: allowed
    build(Entry("fox", dataclasses.replace(entry.gait, legs=(a, b, *legs[2:]))))
    twin_legs = Entry("fox", dataclasses.replace(entry.gait, legs=(a, a, *legs[2:])))
    with pytest.raises(URDFNameError, match="twice"):
        write_catalog(Catalog([twin_legs]), tmp_path)
    twins = Catalog([CATALOG["fox"], dataclasses.replace(CATALOG["hound"], name="FOX")])
    with pytest.raises(URDFNameError, match="case-insensitive"):
        write_catalog(twins, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_good_unusual_names_are_kept_verbatim():
    entry = _renamed_leg(dataclasses.replace(CATALOG["fox"], name="_my-fox_2"), "Front-L_1")
    root = ET.fromstring(build(entry))
    assert root.get("name") == "_my-fox_2"
    assert "Front-L_1_hip_roll" in [j.get("name") for j in root.findall("joint")]


# ---------------------------------------------------------------------------- files


def test_write_catalog_writes_every_walker(tmp_path, texts):
    paths = write_catalog(CATALOG, tmp_path / "out")
    assert [p.name for p in paths] == [f"{n}.urdf" for n in NAMES]
    for name, path in zip(NAMES, paths, strict=True):
        assert path.read_text("utf-8") == texts[name]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(p.name for p in paths)


def test_write_catalog_is_atomic(tmp_path, monkeypatch):
    """A write that fails midway leaves the old file whole and no temporary file behind."""
    import gaitsim.catalog

    old = tmp_path / "fox.urdf"
    old.write_text("old content", encoding="utf-8")

    def boom(fd):
        raise OSError("disk full")

    monkeypatch.setattr(gaitsim.catalog.os, "fsync", boom)
    with pytest.raises(OSError, match="disk full"):
        write_catalog(Catalog([CATALOG["fox"]]), tmp_path)
    assert old.read_text("utf-8") == "old content"
    assert [p.name for p in tmp_path.iterdir()] == ["fox.urdf"]


def test_committed_urdf_folder_matches_generator(texts):
    folder = REPO / "urdf"
    fix = "regenerate with `gaitsim urdf --out urdf` and commit the urdf/ folder"
    for name, text in texts.items():
        path = folder / f"{name}.urdf"
        assert path.is_file(), f"{path} is missing; {fix}"
        assert path.read_text("utf-8") == text, f"{path} drifted from gaitsim.urdf.build; {fix}"
    stale = sorted({p.stem for p in folder.glob("*.urdf")} - set(texts))
    assert not stale, f"urdf/ holds walkers not in the built-in catalog: {stale}; delete them"


def test_cached_urdf(tmp_path, monkeypatch, texts):
    entry = CATALOG["spider_bot"]
    path = cached_urdf(entry, tmp_path)
    assert path.parent == tmp_path and path.read_text("utf-8") == texts["spider_bot"]
    assert path.name.startswith("spider_bot-")
    mtime = path.stat().st_mtime_ns
    assert cached_urdf(entry, tmp_path) == path and path.stat().st_mtime_ns == mtime
    path.write_text("corrupted", encoding="utf-8")
    assert cached_urdf(entry, tmp_path) == path
    assert path.read_text("utf-8") == texts["spider_bot"]
    # a different walker (any catalog, not only the built-in one) gets its own file
    other = Entry("spider_bot", dataclasses.replace(entry.gait, lift=entry.gait.lift * 1.5))
    other_path = cached_urdf(other, tmp_path)
    assert other_path != path and other_path.read_text("utf-8") == build(other)
    # the default folder comes from $GAITSIM_CACHE
    monkeypatch.setenv("GAITSIM_CACHE", str(tmp_path / "env"))
    assert cached_urdf(entry).parent == tmp_path / "env"


def test_joint_and_foot_names_follow_catalog_order():
    gait = CATALOG["horn_beetle"].gait
    names = joint_names(gait)
    assert len(names) == 3 * gait.n_legs
    assert names[:3] == ["front_l_hip_yaw", "front_l_hip_pitch", "front_l_knee"]
    assert joint_names(CATALOG["fox"])[:3] == ["leg_0_hip_roll", "leg_0_hip_pitch", "leg_0_knee"]
    assert foot_link_names(gait) == [f"{leg.name}_foot" for leg in gait.legs]
