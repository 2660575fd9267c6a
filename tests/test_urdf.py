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

from gaitsim import Arc, Slope, Straight, Walker, leg_fk, load_catalog
from gaitsim import urdf as gurdf
from gaitsim.catalog import Catalog, Entry, gait_to_dict, parse_gait
from gaitsim.feet import ankle_joint_names, soles
from gaitsim.geometry import geometry
from gaitsim.upper import neck_angles, upper_fk, upper_geometry
from gaitsim.urdf import (
    URDFNameError,
    build,
    cached_urdf,
    foot_link_names,
    joint_limits,
    joint_names,
    upper_joint_names,
    upper_limits,
    upper_link_names,
    velocity_limit,
    write_catalog,
)

REPO = Path(__file__).resolve().parents[1]
CATALOG = load_catalog()
NAMES = list(CATALOG)
FK_SAMPLES = 50
FK_TOL = 1e-6  # metres
MUJOCO_EXTENSION = '<mujoco><compiler fusestatic="false" discardvisual="false"/></mujoco>'


def _with_upper(name: str, new_name: str, block) -> Entry:
    obj = gait_to_dict(CATALOG[name].gait)
    obj["upper_body"] = block
    return Entry(new_name, parse_gait(obj))


# walkers with an upper body: the built-in ones and two that take the other branches (arms
# and a head straight on the body, given points, a neck leaning back; a many-legged torso)
UPPER_ENTRIES = {n: e for n, e in CATALOG.items() if e.gait.upper_body is not None}
UPPER_ENTRIES["raptor_arms"] = _with_upper("raptor", "raptor_arms", {
    "arms": {"shoulder": [0.12, 0.55, 0.03], "upper": 0.15},
    "head": {"mount": [0, 0.5, 0.05], "neck_deg": -10},
})  # fmt: skip
UPPER_ENTRIES["spider_torso"] = _with_upper("spider_bot", "spider_torso", {
    "torso": {"height": 0.03, "twist_deg": 10}, "arms": {}, "head": {},
})  # fmt: skip
UPPER_NAMES = list(UPPER_ENTRIES)
UPPER_BUILTIN = [n for n in UPPER_NAMES if n in CATALOG]


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return {name: build(entry) for name, entry in CATALOG.items()}


@pytest.fixture(scope="module")
def upper_texts(texts) -> dict[str, str]:
    return {n: texts[n] if n in texts else build(e) for n, e in UPPER_ENTRIES.items()}


def test_builtin_catalog_has_upper_bodies():
    assert UPPER_BUILTIN == ["fox", "hound", "mechanic"]
    assert upper_joint_names(CATALOG["mechanic"]) == [
        "waist_yaw",
        "arm_left_shoulder", "arm_left_elbow", "arm_right_shoulder", "arm_right_elbow",
        "neck_yaw", "neck_pitch", "head_pitch",
    ]  # fmt: skip
    assert upper_link_names(CATALOG["fox"].gait) == ["neck_base", "neck", "head"]
    assert upper_joint_names(CATALOG["raptor"]) == [] and upper_link_names(
        CATALOG["raptor"].gait) == []  # fmt: skip


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


@pytest.mark.parametrize("name", NAMES + [n for n in UPPER_NAMES if n not in NAMES])
def test_check_urdf_accepts(name, upper_texts, texts, tmp_path):
    exe = shutil.which("check_urdf")
    if exe is None:
        pytest.skip("check_urdf (liburdfdom-tools) is not installed; CI installs it")
    text = texts[name] if name in texts else upper_texts[name]
    res = subprocess.run([exe, str(_write(tmp_path, name, text))], capture_output=True, text=True)
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
    ug = upper_geometry(entry.gait)
    hips = gurdf.HIP_MASS_FRACTION * float(geo.leg_masses[:, 0].sum())
    if soles(entry.gait) is not None and soles(entry.gait)[0].hip_yaw:  # a biped's hip yaw
        hips *= 2  # turning links weigh as much as the hip links
    assert gurdf.hip_links_mass(geo, soles(entry.gait)) == pytest.approx(hips, rel=1e-12)
    if ug is None:
        assert base_mass == pytest.approx(geo.body_mass, rel=0.01)
        assert base_mass == pytest.approx(geo.body_mass - hips, rel=1e-9)
    else:  # the upper body's masses come out of the body box too
        assert base_mass == pytest.approx(ug.body_mass - hips, rel=1e-9)
    legs = [f"{leg.name}_{p}" for leg in entry.gait.legs for p in ("hip", "thigh", "shin", "foot")]
    feet = soles(entry.gait)
    ankles = gurdf.ankle_link_names(entry.gait)
    assert sorted(links) == sorted(["base_link", *legs, *ankles, *upper_link_names(entry.gait)])
    box = links["base_link"].find("collision/geometry/box")
    assert [float(v) for v in box.get("size").split()] == pytest.approx(geo.body, rel=1e-9)
    for i, foot in enumerate(foot_link_names(entry.gait)):
        origin = links[foot].find("collision/origin")
        if feet is None:
            sphere = links[foot].find("collision/geometry/sphere")
            assert float(sphere.get("radius")) == pytest.approx(geo.foot_radius, rel=1e-9)
            assert origin.get("xyz") == "0 0 0", f"{foot}: the sphere centre is the link origin"
        else:  # a box sole whose bottom lies the ankle height below the link origin (the
            # ankle), meeting the ground with a sphere on each bottom corner
            sole = feet[i]
            size = links[foot].find("visual/geometry/box").get("size")
            size = [float(v) for v in size.split()]
            assert size == pytest.approx([sole.length, sole.width, sole.thickness], rel=1e-9)
            x, y, z = (float(v) for v in links[foot].find("visual/origin").get("xyz").split())
            assert (x - size[0] / 2, x + size[0] / 2) == pytest.approx((-sole.heel, sole.toe))
            assert z - size[2] / 2 == pytest.approx(-geo.foot_radius, rel=1e-9) and y == 0
            spheres = []
            for col in links[foot].findall("collision"):
                r = float(col.find("geometry/sphere").get("radius"))
                cx, cy, cz = (float(v) for v in col.find("origin").get("xyz").split())
                spheres.append((cx, cy, cz - r))
            want = sorted((a, b, -geo.foot_radius) for a in (-sole.heel, sole.toe)
                          for b in (-sole.width / 2, sole.width / 2))  # fmt: skip
            assert np.allclose(sorted(spheres), want, atol=1e-12)
        thigh = links[f"{entry.gait.legs[i].name}_thigh"]
        mass = float(thigh.find("inertial/mass").get("value"))
        assert mass == pytest.approx(geo.leg_masses[i, 0], rel=1e-9)
    joints = root.findall("joint")
    revolute = [j for j in joints if j.get("type") == "revolute"]
    ankles = ankle_joint_names(entry.gait)
    got = [j.get("name") for j in revolute]
    assert [n for n in got if n not in ankles] == joint_names(entry.gait) + upper_joint_names(
        entry.gait)
    assert sorted(n for n in got if n in ankles) == sorted(ankles)  # each leg's after its knee
    for j in revolute:
        lim = j.find("limit")
        lo, hi = float(lim.get("lower")), float(lim.get("upper"))
        assert -math.pi <= lo < hi <= math.pi, j.get("name")
        assert float(lim.get("effort")) > 0 and float(lim.get("velocity")) > 0
        dyn = j.find("dynamics")
        assert float(dyn.get("damping")) >= 0 and float(dyn.get("friction")) >= 0
    fixed = [j.get("name") for j in joints if j.get("type") == "fixed"]
    assert fixed == ([] if feet else [f"{leg.name}_foot_fixed" for leg in entry.gait.legs])


@pytest.mark.parametrize("name", NAMES)
def test_mujoco_compiles_unchanged_text(name, texts):
    mujoco = pytest.importorskip("mujoco")
    model = mujoco.MjModel.from_xml_string(texts[name])
    gait = CATALOG[name].gait
    assert model.njnt == 3 * gait.n_legs + len(upper_joint_names(gait)) + len(
        ankle_joint_names(gait))
    lo, hi, _ = upper_limits(gait)
    for k, joint in enumerate(upper_joint_names(gait)):
        assert model.joint(joint).limited and np.allclose(
            model.jnt_range[model.joint(joint).id], (lo[k], hi[k]), rtol=0, atol=1e-9
        ), joint


# generated bipeds whose ankle links had principal moments of 2e-15 to 5e-15 kg m^2,
# below the 1e-14 MuJoCo's compiler accepts ("inertia must have positive eigenvalues")
TINY_ANKLES = [316, 353, 961]


@pytest.mark.parametrize("seed", TINY_ANKLES)
def test_mujoco_compiles_the_smallest_links(seed):
    mujoco = pytest.importorskip("mujoco")
    from gaitsim.generate import random_entry

    text = gurdf.build(random_entry(seed))
    root = ET.fromstring(text)
    moments = [float(el.get(k)) for el in root.iter("inertia") for k in ("ixx", "iyy", "izz")]
    assert min(moments) == gurdf.INERTIA_FLOOR  # the ankle links, floored
    model = mujoco.MjModel.from_xml_string(text)
    assert model.body_inertia[1:].min() >= 0.99 * gurdf.INERTIA_FLOOR


def test_the_inertia_floor_leaves_larger_moments_alone():
    lines = gurdf._inertial(1e-6, (4.5e-15, 2e-13, 1e-9))
    assert 'ixx="1e-13"' in lines[3] and 'iyy="2e-13"' in lines[3] and 'izz="1e-09"' in lines[3]


def _brute_loaded_min(gait) -> int:
    """The fewest legs down over the instants with any leg down (1 if none ever is),
    sampling the cycle finely away from switching instants."""
    x = (np.arange(20000) + 0.5) / 20000
    down = (((x[:, None] + [leg.phase for leg in gait.legs]) % 1.0) < gait.duty).sum(axis=1)
    down = down[down > 0]
    return int(down.min()) if down.size else 1


def test_effort_rule_and_stance_count():
    expected_min_stance = {"mechanic": 1, "raptor": 1, "fox": 2, "hound": 2}
    for name, entry in CATALOG.items():
        gait = entry.gait
        brute = _brute_loaded_min(gait)
        assert gurdf.n_stance_min(gait) == brute, name
        if name in expected_min_stance:
            assert brute == expected_min_stance[name], name
        geo = geometry(gait)
        raw = gurdf.EFFORT_SAFETY * geo.total_mass * gurdf.GRAVITY / brute * geo.chain.reach
        effort = gurdf.effort_limits(gait)
        assert np.all(effort >= raw) and np.all(effort <= raw * 1.01), name


def test_flight_phases_do_not_count_as_legs_carrying_the_weight():
    from gaitsim.generate import random_entry

    # a 12-legged two-group gait with a flight phase: six legs carry it whenever any do
    e = random_entry(5063)
    assert e.gait.n_legs == 12 and e.gait.duty < 0.5
    assert gurdf.n_stance_min(e.gait) == 6
    # ... so its legs are as strong as at duty 0.5, where there is no flight phase
    half = dataclasses.replace(e.gait, duty=0.5)
    assert np.array_equal(gurdf.effort_limits(e.gait), gurdf.effort_limits(half))
    # worked by hand: four legs together (a pronk) carry the weight four at a time; one
    # leg at a time in turn with flight between carries it on one
    legs = e.gait.legs[:4]
    pronk = dataclasses.replace(e.gait, legs=tuple(dataclasses.replace(g, phase=0.0) for g in legs),
                                duty=0.3)  # fmt: skip
    assert gurdf.n_stance_min(pronk) == 4
    in_turn = tuple(dataclasses.replace(g, phase=0.25 * k) for k, g in enumerate(legs))
    turns = dataclasses.replace(pronk, legs=in_turn, duty=0.2)
    assert gurdf.n_stance_min(turns) == 1


def test_stance_count_matches_a_fine_sampling_on_generated_gaits():
    from gaitsim.generate import random_entry

    for seed in range(40):
        for mixed in (False, True):
            gait = random_entry(seed, mixed_legs=mixed).gait
            assert gurdf.n_stance_min(gait) == _brute_loaded_min(gait), (seed, mixed)


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
        sole = None if soles(entry.gait) is None else soles(entry.gait)[i]
        want = 0.0 if sole is None else ((sole.toe - sole.heel) / 2, 0.0,
                                         sole.thickness / 2 - sole.height)  # fmt: skip
        assert np.allclose(centres[f"{leg.name}_foot"], want, atol=1e-12)
        assert geo.chain.upper[i] == leg.upper
    ug = upper_geometry(entry.gait)
    for link, want in ({} if ug is None else _upper_centres(ug)).items():
        assert np.allclose(centres[link], want, atol=1e-9), f"{link}: {centres[link]} != {want}"


def _upper_centres(ug) -> dict[str, tuple[float, float, float]]:
    """Each upper-body link's centre of mass in its own frame."""
    out = {}
    if ug.torso is not None:
        out["chest"] = (0.0, 0.0, ug.torso.height / 2)
    if ug.arms is not None:
        for side in ("left", "right"):
            out[f"arm_{side}_upper"] = (0.0, 0.0, -ug.arms.upper / 2)
            out[f"arm_{side}_fore"] = (0.0, 0.0, -ug.arms.lower / 2)
    if ug.head is not None:
        out.update(neck_base=(0.0, 0.0, 0.0), neck=(0.0, 0.0, ug.head.neck / 2))
        out["head"] = (0.0, 0.0, 0.0)
    return out


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


# ---------------------------------------------------------------------------- upper body


# upper_fk's points and the URDF link whose origin each one is; a hand is the forearm's end
UPPER_FK_LINKS = {
    "chest": "chest",
    "neck": "neck_base",
    "head": "head",
    **{f"arm_{s}_{p}": f"arm_{s}_{p}" for s in ("left", "right") for p in ("upper", "fore")},
}


def _upper_truth(ug, q: np.ndarray) -> list[dict[str, np.ndarray]]:
    return [upper_fk(ug, qk) for qk in q]


def _hand(ug, pos, rot) -> np.ndarray:
    return np.asarray(pos) + np.asarray(rot) @ np.array([0.0, 0.0, -ug.arms.lower])


def _upper_points(ug, frames) -> dict[str, np.ndarray]:
    """upper_fk's points from link frames {link: (position, rotation)}."""
    out = {key: np.asarray(frames[link][0]) for key, link in UPPER_FK_LINKS.items()
           if link in frames}  # fmt: skip
    if ug.arms is not None:
        for side in ("left", "right"):
            out[f"arm_{side}_hand"] = _hand(ug, *frames[f"arm_{side}_fore"])
    return out


def _pybullet_upper(path: Path, entry: Entry, q: np.ndarray) -> list[dict[str, np.ndarray]]:
    pybullet = pytest.importorskip("pybullet")
    from pybullet_utils import bullet_client

    ug = upper_geometry(entry.gait)
    client = bullet_client.BulletClient(connection_mode=pybullet.DIRECT)
    try:
        body = client.loadURDF(str(path), [0, 0, 0], [0, 0, 0, 1], useFixedBase=True,
                               flags=pybullet.URDF_USE_IMPLICIT_CYLINDER)  # fmt: skip
        joint_index, link_index = {}, {}
        for j in range(client.getNumJoints(body)):
            info = client.getJointInfo(body, j)
            joint_index[info[1].decode()] = j
            link_index[info[12].decode()] = j
        names, links = upper_joint_names(entry.gait), upper_link_names(entry.gait)
        out = []
        for qk in q:
            for n, v in zip(names, qk, strict=True):
                client.resetJointState(body, joint_index[n], float(v))
            frames = {}
            for link in links:
                state = client.getLinkState(body, link_index[link], computeForwardKinematics=1)
                rot = np.array(client.getMatrixFromQuaternion(state[5])).reshape(3, 3)
                frames[link] = (np.array(state[4]), rot)
            out.append(_upper_points(ug, frames))
        return out
    finally:
        client.disconnect()


def _yourdfpy_upper(path: Path, entry: Entry, q: np.ndarray) -> list[dict[str, np.ndarray]]:
    yourdfpy = pytest.importorskip("yourdfpy")
    ug = upper_geometry(entry.gait)
    robot = yourdfpy.URDF.load(str(path), build_scene_graph=True, load_meshes=False)
    names, links = upper_joint_names(entry.gait), upper_link_names(entry.gait)
    out = []
    for qk in q:
        robot.update_cfg(dict(zip(names, qk, strict=True)))
        frames = {}
        for link in links:
            t = robot.get_transform(link)
            frames[link] = (t[:3, 3], t[:3, :3])
        out.append(_upper_points(ug, frames))
    return out


def _mujoco_upper(text: str, entry: Entry, q: np.ndarray) -> list[dict[str, np.ndarray]]:
    mujoco = pytest.importorskip("mujoco")
    ug = upper_geometry(entry.gait)
    model = mujoco.MjModel.from_xml_string(text.replace("</robot>", MUJOCO_EXTENSION + "</robot>"))
    data = mujoco.MjData(model)
    names, links = upper_joint_names(entry.gait), upper_link_names(entry.gait)
    adr = [model.joint(n).qposadr[0] for n in names]
    out = []
    for qk in q:
        data.qpos[:] = 0.0
        data.qpos[adr] = qk
        mujoco.mj_kinematics(model, data)
        frames = {}
        for link in links:
            b = model.body(link).id
            frames[link] = (data.xpos[b].copy(), data.xmat[b].reshape(3, 3).copy())
        out.append(_upper_points(ug, frames))
    return out


def _upper_error(truth, got) -> tuple[float, str]:
    worst, where = 0.0, ""
    for t, g in zip(truth, got, strict=True):
        assert sorted(g) == sorted(t)
        for key in t:
            err = float(np.abs(g[key] - t[key]).max())
            if err > worst:
                worst, where = err, key
    return worst, where


@pytest.mark.parametrize("name", UPPER_NAMES)
def test_upper_fk_agrees_with_upper_fk(name, upper_texts, tmp_path):
    entry = UPPER_ENTRIES[name]
    ug = upper_geometry(entry.gait)
    lo, hi, _ = upper_limits(entry.gait)
    rng = np.random.default_rng(31337 + UPPER_NAMES.index(name))
    q = rng.uniform(lo, hi, size=(FK_SAMPLES, len(lo)))
    q[0] = 0.0
    truth = _upper_truth(ug, q)
    assert sorted(truth[0]) == sorted(
        [k for k, link in UPPER_FK_LINKS.items() if link in upper_link_names(entry.gait)]
        + ([f"arm_{s}_hand" for s in ("left", "right")] if ug.arms is not None else [])
    )
    path = _write(tmp_path, name, upper_texts[name])
    for label, got in (
        ("pybullet", _pybullet_upper(path, entry, q)),
        ("yourdfpy", _yourdfpy_upper(path, entry, q)),
        ("mujoco", _mujoco_upper(upper_texts[name], entry, q)),
    ):
        err, where = _upper_error(truth, got)
        assert err < FK_TOL, f"{name}: {label} {where} differs from upper_fk by {err:.3g} m"


def test_upper_fk_check_can_fail(texts, tmp_path):
    """A sign flip in one shoulder axis is caught by the same comparison."""
    entry = CATALOG["mechanic"]
    text = texts["mechanic"]
    start = text.index('<joint name="arm_left_shoulder"')
    end = text.index("</joint>", start)
    assert 'axis xyz="0 -1 0"' in text[start:end]
    broken = text[:start] + text[start:end].replace('axis xyz="0 -1 0"', 'axis xyz="0 1 0"')
    broken += text[end:]
    q = np.full((1, len(upper_joint_names(entry))), 0.3)
    truth = _upper_truth(upper_geometry(entry.gait), q)
    err, where = _upper_error(truth, _yourdfpy_upper(_write(tmp_path, "m", broken), entry, q))
    assert err > 1e-3 and where.startswith("arm_left_")


@pytest.mark.parametrize("name", UPPER_NAMES)
def test_upper_structure(name, upper_texts):
    entry = UPPER_ENTRIES[name]
    gait = entry.gait
    geo, ug = geometry(gait), upper_geometry(gait)
    root = ET.fromstring(upper_texts[name])
    links = {link.get("name"): link for link in root.findall("link")}
    joints = {j.get("name"): j for j in root.findall("joint")}

    def mass(link: str) -> float:
        return float(links[link].find("inertial/mass").get("value"))

    def shape(link: str, tag: str) -> dict[str, float]:
        el = links[link].find(f"collision/geometry/{tag}")
        return {k: float(v) if k != "size" else v for k, v in el.attrib.items()}

    total = sum(float(m.get("value")) for m in root.iter("mass"))
    assert total == pytest.approx(geo.total_mass, rel=1e-9)
    hips = gurdf.hip_links_mass(geo, soles(gait))
    assert mass("base_link") == pytest.approx(ug.body_mass - hips, rel=1e-9)
    if ug.torso is not None:
        t = ug.torso
        assert mass("chest") == pytest.approx(t.mass, rel=1e-9)
        size = [float(v) for v in shape("chest", "box")["size"].split()]
        assert size == pytest.approx(t.box, rel=1e-9)
    if ug.arms is not None:
        a = ug.arms
        for side in ("left", "right"):
            arm = mass(f"arm_{side}_upper") + mass(f"arm_{side}_fore")
            assert arm == pytest.approx(a.mass, rel=1e-9)
            for part, length in (("upper", a.upper), ("fore", a.lower)):
                cyl = shape(f"arm_{side}_{part}", "cylinder")
                assert cyl == pytest.approx({"radius": a.radius, "length": length}, rel=1e-9)
    if ug.head is not None:
        h = ug.head
        assert mass("neck_base") + mass("neck") + mass("head") == pytest.approx(h.mass, rel=1e-9)
        assert shape("head", "sphere")["radius"] == pytest.approx(h.radius, rel=1e-9)
        assert shape("neck", "cylinder") == pytest.approx(
            {"radius": h.neck_radius, "length": h.neck}, rel=1e-9)  # fmt: skip
    want_axis = {"waist_yaw": "0 0 1", "neck_yaw": "0 0 1", "neck_pitch": "0 1 0",
                 "head_pitch": "0 1 0"}  # fmt: skip
    lo, hi, effort = upper_limits(gait)
    vel = velocity_limit(gait)
    for k, n in enumerate(upper_joint_names(gait)):
        j = joints[n]
        assert j.get("type") == "revolute"
        assert j.find("axis").get("xyz") == want_axis.get(n, "0 -1 0"), n
        lim = j.find("limit")
        got = [float(lim.get(key)) for key in ("lower", "upper", "effort", "velocity")]
        assert got == pytest.approx([lo[k], hi[k], effort[k], vel], rel=1e-9, abs=1e-12), n
        assert -math.pi <= lo[k] < 0 < hi[k] <= math.pi and effort[k] > 0, n
    parents = {n: (j.find("parent").get("link"), j.find("child").get("link"))
               for n, j in joints.items()}  # fmt: skip
    top = "chest" if ug.torso is not None else "base_link"
    if ug.torso is not None:
        assert parents["waist_yaw"] == ("base_link", "chest")
    if ug.arms is not None:
        for side in ("left", "right"):
            assert parents[f"arm_{side}_shoulder"] == (top, f"arm_{side}_upper")
            assert parents[f"arm_{side}_elbow"] == (f"arm_{side}_upper", f"arm_{side}_fore")
    if ug.head is not None:
        assert parents["neck_yaw"] == (top, "neck_base")
        assert parents["neck_pitch"] == ("neck_base", "neck")
        assert parents["head_pitch"] == ("neck", "head")


@pytest.mark.parametrize("name", [n for n in UPPER_NAMES if n not in CATALOG])
def test_mujoco_compiles_custom_upper_bodies(name, upper_texts):
    mujoco = pytest.importorskip("mujoco")
    gait = UPPER_ENTRIES[name].gait
    model = mujoco.MjModel.from_xml_string(upper_texts[name])
    assert model.njnt == 3 * gait.n_legs + len(upper_joint_names(gait)) + len(
        ankle_joint_names(gait))


def _xml_limits(text: str) -> dict[str, tuple[float, float]]:
    out = {}
    for j in ET.fromstring(text).findall("joint"):
        lim = j.find("limit")
        if lim is not None:
            out[j.get("name")] = (float(lim.get("lower")), float(lim.get("upper")))
    return out


def _upper_limit_walkers(entry: Entry):
    """The leg limit rule's conditions, plus the other arm, twist and gaze modes."""
    up, down = Slope.from_degrees(gurdf.LIMIT_SLOPE_DEG), Slope.from_degrees(-gurdf.LIMIT_SLOPE_DEG)
    for s in gurdf.LIMIT_SPEED_SCALES:
        yield Walker(entry, speed_scale=s)
        for r in (gurdf.LIMIT_ARC_RADIUS, -gurdf.LIMIT_ARC_RADIUS):
            yield Walker(entry, path=Arc(r), speed_scale=s)
        for slope in (up, down):
            for lean in (False, True):
                yield Walker(entry, slope, speed_scale=s, lean=lean)
        for options in ({"arms": "anti"}, {"arms": "held"}, {"twist": False}, {"gaze": "fixed"}):
            yield Walker(entry, path=Straight(), speed_scale=s, **options)


@pytest.mark.parametrize("name", UPPER_NAMES)
def test_upper_limits_contain_the_rules(name, upper_texts):
    entry = UPPER_ENTRIES[name]
    names = upper_joint_names(entry.gait)
    limits = _xml_limits(upper_texts[name])
    lo = np.array([limits[n][0] for n in names])
    hi = np.array([limits[n][1] for n in names])
    for w in _upper_limit_walkers(entry):
        d = (np.arange(997) + 0.37) / 997 * w.cycle  # not a rule's sample points
        q = w.pose_at(d).upper_joints
        assert q.shape == (len(d), len(names))
        bad = (q < lo) | (q > hi)
        where = [n for n, b in zip(names, bad.any(axis=0), strict=True) if b]
        assert not bad.any(), (
            f"{name} at speed {w.speed_scale} on {w.terrain} along {w.path} (arms {w.arms}, "
            f"twist {w.twist}, gaze {w.gaze}): outside the limits at {where}"
        )


@pytest.mark.parametrize("neck_deg", [-90.0, -60.0, -30.0, 0.0, 30.0, 60.0, 90.0])
def test_upper_limits_contain_any_neutral_neck(neck_deg):
    """Every neck lean the catalog accepts (-90 to 90 deg) is inside the neck's limits."""
    gait = _with_upper("fox", "fox", {"head": {"neck_deg": neck_deg}}).gait
    head = upper_geometry(gait).head
    lo, hi, _ = upper_limits(gait)
    for stabilised in (True, False):
        n, h = (float(v) for v in neck_angles(head, 0.0, 0.0, stabilised))
        q = np.array([0.0, n, h])
        assert np.all((lo <= q) & (q <= hi)), f"neck_deg {neck_deg}: {q} not in [{lo}, {hi}]"


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
