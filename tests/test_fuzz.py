"""Fuzzing the command line: catalogs drawn over every field (extreme, non-finite and
wrongly typed values, odd names, duplicate keys, too many legs) and odd paths and flags, fed
to `gaitsim validate`, `gaitsim urdf` and `gaitsim catalog` in-process.

Whatever comes in: exit 0 (or 1 from `validate`, a walker failing the walk test), or exit
2 with a message naming the input; never a traceback; never a half-written file. And a
catalog `validate` accepts builds URDFs whenever its names are URDF names.

The default run draws a bounded number of examples; the slow variants (CI runs them in a
separate step) draw many more.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from gaitsim.catalog import (
    MAX_DUTY,
    MAX_LEGS,
    MAX_LENGTH,
    MAX_MASS,
    MAX_NAME_LENGTH,
    MAX_SPEED,
    MIN_DUTY,
    MIN_LENGTH,
    MIN_MASS,
    MIN_SPEED,
    load_catalog,
)
from gaitsim.cli import main

FAST = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
SLOW = settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# ---------------------------------------------------------------------------- values

EDGES = [0, -0.0, -1, 1e-300, 5e-324, 1e300, -1e300, 1.7976931348623157e308, 10**400]
EDGES += [MIN_LENGTH, MIN_LENGTH * 0.999, MAX_LENGTH, MAX_LENGTH * 1.001, MIN_DUTY, MAX_DUTY]
EDGES += [MIN_DUTY * 0.999, MAX_DUTY * 1.001, MIN_SPEED, MAX_SPEED, MIN_MASS, MAX_MASS, 0.999999]
NON_NUMBERS = [None, True, False, "0.1", "", [], {}, [0.1], [0.1, 0.2, 0.3]]

# what a field is replaced with: an edge value, any float (NaN and the infinities too), a
# huge integer, something that is not a number, or an odd name
odd_names = st.one_of(
    st.sampled_from(["fox\n", "\tfox", " fox", "a/b", "..", "x" * 300, "", "fo\x00x", "X"]),
    st.text(max_size=12),
)
hostile = st.one_of(
    st.sampled_from(EDGES),
    st.floats(),
    st.integers(-(10**20), 10**20),
    # a fresh copy each draw: the same list object put in twice can end up inside itself
    # (a later replacement lands in it), and a mutated constant changes later draws
    st.sampled_from(NON_NUMBERS).map(copy.deepcopy),
    odd_names,
)
good_names = st.sampled_from(["fox", "Fuchs-2", "_x", "a b", "renard_über", "x" * MAX_NAME_LENGTH])


def plausible(lo: float, hi: float):
    return st.floats(lo, hi, allow_nan=False)


@st.composite
def legs(draw, i: int):
    side = draw(st.sampled_from(["L", "R"]))
    sign = -1.0 if side == "R" else 1.0
    leg = {
        "name": draw(good_names) if draw(st.integers(0, 3)) == 0 else f"leg_{i}",
        "side": side,
        "phase": draw(plausible(0.0, 0.999)),
        "knee": draw(st.sampled_from(["up", "forward", "back"])),
        "upper": draw(plausible(0.05, 0.3)),
        "lower": draw(plausible(0.05, 0.3)),
        "home": [sign * draw(plausible(0.02, 0.2)), 0.0, draw(plausible(-0.3, 0.3))],
    }
    if draw(st.integers(0, 3)) == 0:
        leg["hip"] = [sign * draw(plausible(0.0, 0.1)), draw(plausible(0.1, 0.3)), leg["home"][2]]
    return leg


@st.composite
def gaits(draw, hostile_legs: bool = False):
    n = draw(st.sampled_from([1, 2, 3, 4] + ([0, MAX_LEGS + 1] if hostile_legs else [])))
    gait = {
        "stride": draw(plausible(0.02, 0.2)),
        "duty": draw(plausible(0.3, 0.8)),
        "lift": draw(plausible(0.0, 0.05)),
        "clip_speed": draw(plausible(0.05, 1.0)),
        "segments": [draw(legs(i)) for i in range(n)],
    }
    for key, value in (
        ("hip_height", plausible(0.05, 0.3)),
        ("foot_radius", plausible(0.005, 0.03)),
        ("bob", plausible(0.0, 0.01)),
        ("mass", plausible(0.5, 20.0)),
        ("body", st.lists(plausible(0.05, 0.5), min_size=3, max_size=3)),
        ("notes", st.text(max_size=5)),
    ):
        if draw(st.integers(0, 3)) == 0:
            gait[key] = draw(value)
    return gait


def _fields(node, path=()):
    """Every (path, value) below a decoded JSON tree (containers and leaves)."""
    out = []
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for k, v in items:
        out.append(((*path, k), v))
        if isinstance(v, (dict, list)) and v:
            out += _fields(v, (*path, k))
    return out


@st.composite
def catalogs(draw):
    """(JSON text, whether a key was duplicated by hand): a plausible catalog, as it is
    (about half the time) or with a few of its fields (any of them) replaced by hostile
    values or deleted, odd walker names, too few or too many legs, or a key given twice."""
    hostile_mode = draw(st.booleans())
    if draw(st.integers(0, 4)) == 0:
        obj = draw(gaits(hostile_mode))  # a bare gait file
    else:
        obj = {}
        for _ in range(draw(st.integers(1, 2))):
            entry = {"gait": draw(gaits(hostile_mode))}
            if draw(st.booleans()):
                entry["walk_test"] = {"foot_slide_mm": draw(plausible(0.0, 1.0))}
            odd = hostile_mode and draw(st.integers(0, 3)) == 0
            obj[draw(odd_names if odd else good_names)] = entry
    if not hostile_mode:
        return json.dumps(obj, indent=1), False
    for _ in range(draw(st.integers(0, 3))):
        fields = _fields(obj)
        if not fields:  # everything deleted already
            break
        path, _ = draw(st.sampled_from(fields))
        parent = obj
        for k in path[:-1]:
            parent = parent[k]
        op = draw(st.sampled_from(["replace", "replace", "replace", "delete"]))
        if op == "delete" and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(hostile)
    text = json.dumps(obj, indent=1)  # NaN and Infinity come out as JSON-invalid literals
    dup = draw(st.sampled_from(["none"] * 4 + ["top", "segment"]))
    if dup == "top" and obj and "segments" not in obj:
        first = next(iter(obj))
        text = "{" + json.dumps(first) + ": {}, " + text[1:]
    elif dup == "segment" and '"upper": ' in text:
        text = text.replace('"upper": ', '"upper": 0.1, "upper": ', 1)
    else:
        dup = "none"
    return text, dup != "none"


# ---------------------------------------------------------------------------- paths


@contextlib.contextmanager
def workspace():
    with tempfile.TemporaryDirectory() as d:
        yield Path(d)


def catalog_path(kind: str, root: Path, text: str) -> Path:
    """Where the catalog is given from: a plain file, or one of the odd places."""
    if kind == "file":
        p = root / "cat.json"
        p.write_text(text, encoding="utf-8")
    elif kind == "symlink":
        (root / "real.json").write_text(text, encoding="utf-8")
        p = root / "link.json"
        p.symlink_to(root / "real.json")
    elif kind == "folder":
        p = root / "folder.json"
        p.mkdir()
    elif kind == "missing":
        p = root / "missing" / "cat.json"
    elif kind == "fifo":
        p = root / "pipe.json"
        os.mkfifo(p)
    elif kind == "device":
        p = Path("/dev/null")
    elif kind == "long-name":
        p = root / ("c" * 300 + ".json")
    else:  # "under-a-file"
        (root / "plain").write_text("x")
        p = root / "plain" / "cat.json"
    return p


ODD_CATALOG_PATHS = ["symlink", "folder", "missing", "fifo", "device", "long-name", "under-a-file"]
ODD_OUT_PATHS = ["existing", "a-file", "long-name", "nested"]


@st.composite
def catalog_paths(draw) -> str:
    """'file' three times in four, else one of the odd places."""
    return draw(st.sampled_from(ODD_CATALOG_PATHS)) if draw(st.integers(0, 3)) == 0 else "file"


@st.composite
def out_paths(draw) -> str:
    return draw(st.sampled_from(ODD_OUT_PATHS)) if draw(st.integers(0, 3)) == 0 else "fresh"


CATALOG_PATHS = catalog_paths()
OUT_PATHS = out_paths()


def out_path(kind: str, root: Path) -> Path:
    if kind == "existing":
        p = root / "urdf"
        p.mkdir()
        (p / "keep.txt").write_text("keep")
    elif kind == "a-file":
        p = root / "urdf"
        p.write_text("not a folder")
    elif kind == "long-name":
        p = root / ("u" * 300)
    elif kind == "nested":
        p = root / "a" / "b" / "urdf"
    else:
        p = root / "urdf"
    return p


def snapshot(root: Path) -> dict[str, bytes | None]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_symlink() or p.is_dir():
            out[str(p.relative_to(root))] = None
        elif p.is_file():
            out[str(p.relative_to(root))] = p.read_bytes()
    return out


def check_outcome(rc: int, allowed: set[int], err: str, command: str, *inputs: Path) -> None:
    event(f"{command}: exit {rc}")
    assert rc in allowed | {2}, (rc, err)
    assert "Traceback" not in err, err
    if rc == 2:
        assert err.startswith(f"gaitsim {command}: error: "), err
        assert any(str(p) in err for p in inputs), (inputs, err)  # names the input at fault


def no_temp_files(root: Path) -> None:
    left = [p for p in root.rglob(".*") if p.is_file()]
    assert not left, left


# ---------------------------------------------------------------------------- properties


def check_catalog_command(data, capsys) -> None:
    text, _ = data.draw(catalogs(), label="catalog")
    kind = data.draw(CATALOG_PATHS, label="catalog path")
    json_flag = data.draw(st.booleans(), label="--json")
    with workspace() as root:
        cat = catalog_path(kind, root, text)
        before = snapshot(root)
        rc = main(["catalog", "--catalog", str(cat), *(["--json"] if json_flag else [])])
        out, err = capsys.readouterr()
        check_outcome(rc, {0}, err, "catalog", cat)
        if rc == 0 and json_flag:
            assert isinstance(json.loads(out), list)
        assert snapshot(root) == before  # listing writes nothing


def check_validate_command(data, capsys) -> None:
    text, dup = data.draw(catalogs(), label="catalog")
    kind = data.draw(CATALOG_PATHS, label="catalog path")
    write = data.draw(st.booleans(), label="--write")
    good = st.sampled_from([[], [], ["--json"], ["--mode", "body"], ["--speed-scale", "0.5"]])
    bad = st.sampled_from([["--speed-scale", v] for v in ("0", "-1", "nan", "inf", "1e300")])
    extra = data.draw(bad if data.draw(st.integers(0, 3)) == 0 else good, label="flags")
    with workspace() as root:
        cat = catalog_path(kind, root, text)
        before = snapshot(root)
        argv = ["validate", "-q", "--catalog", str(cat), *extra, *(["--write"] if write else [])]
        rc = main(argv)
        _, err = capsys.readouterr()
        check_outcome(rc, {0, 1}, err, "validate", cat, Path("--speed-scale"))
        bad_flag = extra[:1] == ["--speed-scale"] and extra[1] != "0.5"
        if dup and kind in ("file", "symlink") and not bad_flag:
            # a NaN or Infinity literal the hostile values wrote is a JSON error too; the
            # parser meets it before it closes the object that holds the key given twice
            literal = re.search(r'(?<!")\b(NaN|-?Infinity)\b(?!")', text) is not None
            either = ("given twice", *(["is not a number JSON allows"] if literal else []))
            assert rc == 2 and any(m in err for m in either), err
        no_temp_files(root)
        if rc == 2 or not write:
            assert snapshot(root) == before  # nothing written, nothing half-written
        else:  # --write: the catalog was replaced whole (through a symlink, its target)
            again = load_catalog(cat)
            assert all(e.walk_test is not None for e in again.values())
            assert cat.is_symlink() == (kind == "symlink")


def check_urdf_command(data, capsys) -> None:
    from gaitsim.urdf import URDFNameError, check_names

    text, _ = data.draw(catalogs(), label="catalog")
    kind = data.draw(CATALOG_PATHS, label="catalog path")
    out_kind = data.draw(OUT_PATHS, label="--out")
    with workspace() as root:
        cat = catalog_path(kind, root, text)
        out = out_path(out_kind, root)
        before = snapshot(root)
        rc = main(["urdf", "-q", "--catalog", str(cat), "--out", str(out)])
        _, err = capsys.readouterr()
        check_outcome(rc, {0}, err, "urdf", cat, out)
        no_temp_files(root)
        after = snapshot(root)
        if rc == 2:
            # nothing but complete URDFs may have appeared (a failed write leaves none)
            for name, content in after.items():
                if name not in before:
                    assert content is None or name.endswith(".urdf"), name
                    if content is not None:
                        ET.fromstring(content)
        else:
            urdfs = [n for n in after if n.endswith(".urdf")]
            assert urdfs and all(ET.fromstring(after[n]) is not None for n in urdfs)

        # whatever validate accepts, urdf accepts (unless a name cannot be a URDF name or the
        # --out path is unusable)
        if kind == "file" and out_kind in ("fresh", "nested", "existing"):
            rc_validate = main(["validate", "-q", "--catalog", str(cat)])
            capsys.readouterr()
            if rc_validate in (0, 1):
                catalog = load_catalog(cat)
                try:
                    for e in catalog.values():
                        check_names(e)
                except URDFNameError:
                    return
                folded = [n.casefold() for n in catalog]
                if len(set(folded)) == len(folded):
                    assert rc == 0, err


@FAST
@given(data=st.data())
def test_fuzz_catalog_command(data, capsys):
    check_catalog_command(data, capsys)


@FAST
@given(data=st.data())
def test_fuzz_validate_command(data, capsys):
    check_validate_command(data, capsys)


@FAST
@given(data=st.data())
def test_fuzz_urdf_command(data, capsys):
    check_urdf_command(data, capsys)


@pytest.mark.slow
@SLOW
@given(data=st.data())
def test_fuzz_catalog_command_long(data, capsys):
    check_catalog_command(data, capsys)


@pytest.mark.slow
@SLOW
@given(data=st.data())
def test_fuzz_validate_command_long(data, capsys):
    check_validate_command(data, capsys)


@pytest.mark.slow
@SLOW
@given(data=st.data())
def test_fuzz_urdf_command_long(data, capsys):
    check_urdf_command(data, capsys)


def test_the_strategies_reach_both_outcomes(capsys):
    """The catalogs drawn are not all refused: a sample loads, and a sample is refused."""
    from hypothesis import find

    def loads(draw_result) -> bool:
        text, _ = draw_result
        with workspace() as root:
            rc = main(["catalog", "--catalog", str(catalog_path("file", root, text))])
        capsys.readouterr()
        return rc == 0

    settings_ = settings(max_examples=200, deadline=None, database=None, phases=[Phase.generate])
    find(catalogs(), loads, settings=settings_)  # NoSuchExample if none loads
    find(catalogs(), lambda r: not loads(r), settings=settings_)
