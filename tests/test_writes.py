"""Every write is atomic and checked: a full disk, a read-only or forbidden folder, a name
too long or a file in the way of a folder is exit 2 with the path named, and leaves no
partial file (an existing target stays as it was). Symlinked targets are written through.

The disk-full tests run each writer against a full file system: a small tmpfs filled up
(when this process may mount one: root on Linux) and, always, a simulated one (os.write
failing with ENOSPC for files under the folder). Writers that run outside Python (the
ffmpeg encoder) are tested on the tmpfs only, plus an encoder that fakes success.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

import pytest

import gaitsim
from gaitsim import cli
from gaitsim.catalog import GaitsimError, WriteError, atomic_write_text
from gaitsim.cli import main

CATALOG_TEXT = resources.files("gaitsim").joinpath("data/catalog.json").read_text("utf-8")
FILLER = ".filler"


def _mount_tmpfs(path: Path, *options: str) -> bool:
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or not shutil.which("mount"):
        return False
    opts = ",".join(["size=512k", *options])
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(path)], capture_output=True
    )
    return r.returncode == 0


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


class FullDisk:
    """A folder whose file system fills up on ``fill()``: a real tmpfs, or os.write raising
    ENOSPC for files under the folder (optionally only for files ``only(path)`` picks)."""

    def __init__(self, path: Path, mode: str, monkeypatch):
        self.path, self.mode, self._mp = path, mode, monkeypatch

    def fill(self, *, leave: int = 0, only=None) -> None:
        if self.mode == "tmpfs":
            assert only is None, "a real disk fills for every file"
            fd = os.open(self.path / FILLER, os.O_WRONLY | os.O_CREAT)
            try:
                for chunk in (65536, 4096, 1):
                    try:
                        while True:
                            os.write(fd, b"\0" * chunk)
                    except OSError as exc:
                        assert exc.errno == errno.ENOSPC
                if leave:
                    os.ftruncate(fd, os.fstat(fd).st_size - leave)
            finally:
                os.close(fd)
            return
        assert not leave, "a simulated disk is full or not"
        real = os.write
        root = str(self.path.resolve())

        def write(fd, data):
            try:
                name = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                name = ""
            if name.startswith(root + os.sep) and (only is None or only(Path(name))):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real(fd, data)

        self._mp.setattr(os, "write", write)

    def files(self) -> list[str]:
        """Every file left under the folder (temp files included), the filler excepted."""
        return sorted(
            str(p.relative_to(self.path))
            for p in self.path.rglob("*")
            if p.is_file() and p.name != FILLER
        )


@pytest.fixture(params=["tmpfs", "simulated"])
def full_disk(request, tmp_path, monkeypatch):
    path = tmp_path / "disk"
    path.mkdir()
    if request.param == "tmpfs":
        if not _mount_tmpfs(path):
            pytest.skip(
                "cannot mount a tmpfs here (needs root on Linux); the simulated run covers it"
            )
        request.addfinalizer(lambda: _umount(path))
    elif not Path("/proc/self/fd").is_dir():
        pytest.skip("the simulated full disk needs /proc/self/fd")
    return FullDisk(path, request.param, monkeypatch)


@pytest.fixture
def simulated_disk(tmp_path, monkeypatch):
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("the simulated full disk needs /proc/self/fd")
    path = tmp_path / "disk"
    path.mkdir()
    return FullDisk(path, "simulated", monkeypatch)


@pytest.fixture
def tmpfs_disk(tmp_path, monkeypatch):
    path = tmp_path / "disk"
    path.mkdir()
    if not _mount_tmpfs(path):
        pytest.skip("cannot mount a tmpfs here (needs root on Linux)")
    yield FullDisk(path, "tmpfs", monkeypatch)
    _umount(path)


def full_disk_error(capsys, path: Path) -> str:
    err = capsys.readouterr().err
    assert f"{path}: cannot write it" in err, err
    assert "the disk is full" in err, err
    assert "Traceback" not in err
    return err


# ---------------------------------------------------------------------------- disk full


def test_catalog_save_on_a_full_disk(full_disk, capsys):
    cat = full_disk.path / "cat.json"
    cat.write_text(CATALOG_TEXT.replace('"foot_slide_mm": 0', '"foot_slide_mm": 5', 1))
    before = cat.read_text()
    full_disk.fill()
    assert main(["validate", "-q", "--catalog", str(cat), "--write"]) == 2
    full_disk_error(capsys, cat)
    assert cat.read_text() == before
    assert full_disk.files() == ["cat.json"]


@pytest.mark.parametrize("fmt", ["csv", "json", "npz"])
def test_clip_on_a_full_disk(full_disk, capsys, fmt):
    out = full_disk.path / f"fox.{fmt}"
    out.write_bytes(b"old clip")
    full_disk.fill()
    assert main(["clip", "fox", "--out", str(out), "-q"]) == 2
    full_disk_error(capsys, out)
    assert out.read_bytes() == b"old clip"
    assert full_disk.files() == [f"fox.{fmt}"]


def test_urdf_on_a_full_disk(full_disk, capsys):
    out = full_disk.path / "urdf"
    out.mkdir()
    (out / "fox.urdf").write_text("old urdf")
    full_disk.fill()
    assert main(["urdf", "--out", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert f"{out}{os.sep}" in err and "cannot write it" in err and "disk is full" in err, err
    assert (out / "fox.urdf").read_text() == "old urdf"
    assert full_disk.files() == ["urdf/fox.urdf"]


def test_plots_on_a_full_disk(full_disk):
    from gaitsim.plots import PLOT_METRICS, gait_diagram, sweep_plots

    rows = [
        {"walker": "fox", "value": v, **dict.fromkeys(PLOT_METRICS, 0.5 * v)} for v in (1.0, 2.0)
    ]
    plots = full_disk.path / "plots"
    plots.mkdir()
    (plots / "s_speed_ratio.png").write_bytes(b"old png")
    full_disk.fill()
    with pytest.raises(WriteError, match=f"^{plots / 's_speed_ratio.png'}: cannot write it"):
        sweep_plots(rows, plots, "s", "speed_scale")
    with pytest.raises(WriteError, match="the disk is full"):
        gait_diagram(["a", "b"], [0.0, 0.1, 0.2], [[1, 0]] * 3, [[1, 1]] * 3, plots / "g.png", "t")
    assert (plots / "s_speed_ratio.png").read_bytes() == b"old png"
    assert full_disk.files() == ["plots/s_speed_ratio.png"]


def _small_catalog(folder: Path) -> Path:
    path = folder / "small.json"
    path.write_text(json.dumps({"horn_beetle": json.loads(CATALOG_TEXT)["horn_beetle"]}))
    return path


def test_report_on_a_full_disk(full_disk, capsys, tmp_path):
    rep = full_disk.path / "rep"
    full_disk.fill()
    argv = ["report", "--catalog", str(_small_catalog(tmp_path)), "--out", str(rep), "-q"]
    assert main([*argv, "--seconds", "0.5", "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert f"{rep}{os.sep}" in err and "the disk is full" in err, err  # the first file
    assert full_disk.files() == []


def test_report_files_on_a_full_disk(simulated_disk, capsys, tmp_path):
    rep = simulated_disk.path / "rep"
    simulated_disk.fill(only=lambda p: p.name.startswith((".physics.json", ".report.md")))
    argv = ["report", "--catalog", str(_small_catalog(tmp_path)), "--out", str(rep), "-q"]
    assert main([*argv, "--seconds", "0.5", "--workers", "1"]) == 2
    full_disk_error(capsys, rep / "physics.json")
    left = simulated_disk.files()
    assert "rep/urdf/horn_beetle.urdf" in left and "rep/plots/gait_horn_beetle.png" in left
    assert not [f for f in left if "physics" in f or "report" in f or "/." in f], left


SWEEP = (
    'name = "tiny"\nparameter = "speed_scale"\nvalues = [1.0]\n'
    'walkers = ["horn_beetle"]\nseeds = 1\nseconds = 0.5\n'
)


def test_sweep_on_a_full_disk(full_disk, capsys, tmp_path):
    definition = tmp_path / "tiny.toml"
    definition.write_text(SWEEP)
    out = full_disk.path / "sw"
    full_disk.fill()
    assert main(["sweep", str(definition), "--out", str(out), "-q", "--no-plots"]) == 2
    full_disk_error(capsys, out / "sweep.json")
    assert full_disk.files() == []


def test_sweep_cells_on_a_full_disk(simulated_disk, capsys, tmp_path):
    definition = tmp_path / "tiny.toml"
    definition.write_text(SWEEP)
    out = simulated_disk.path / "sw"
    simulated_disk.fill(only=lambda p: p.parent.name == "cells")  # the workers' files
    assert main(["sweep", str(definition), "--out", str(out), "-q", "--no-plots"]) == 2
    full_disk_error(capsys, out / "cells" / "horn_beetle__speed_scale=1.0__seed0.json")
    assert simulated_disk.files() == ["sw/sweep.json"]


def test_sweep_results_on_a_full_disk(simulated_disk, capsys, tmp_path):
    definition = tmp_path / "tiny.toml"
    definition.write_text(SWEEP)
    out = simulated_disk.path / "sw"
    simulated_disk.fill(only=lambda p: p.name.startswith(".results.csv"))
    assert main(["sweep", str(definition), "--out", str(out), "-q"]) == 2
    full_disk_error(capsys, out / "results.csv")
    cell = "sw/cells/horn_beetle__speed_scale=1.0__seed0.json"
    assert simulated_disk.files() == [cell, "sw/sweep.json"]  # the finished cell is kept
    json.loads((simulated_disk.path / cell).read_text())


@pytest.mark.parametrize("name", ["walk.mp4", "walk.gif"])
@pytest.mark.parametrize("leave", [0, 20_000], ids=["no-space", "some-space"])
def test_video_on_a_full_disk(tmpfs_disk, capsys, name, leave):
    if name.endswith(".mp4"):
        pytest.importorskip("imageio_ffmpeg")
    video = tmpfs_disk.path / name
    tmpfs_disk.fill(leave=leave)  # some space: the encoder starts, then the disk fills
    assert main(["walk", "fox", "--seconds", "1", "--video", str(video), "-q"]) == 2
    err = capsys.readouterr().err
    assert f"--video {video}: could not write the video: {video}" in err, err
    assert "Traceback" not in err
    assert tmpfs_disk.files() == []


def test_a_video_the_encoder_botched_is_refused(tmp_path, monkeypatch):
    from gaitsim.sim.robot import Robot
    from gaitsim.sim.video import VideoError, VideoRecorder
    from gaitsim.sim.world import World

    with World() as world:
        rec = VideoRecorder(world, Robot(world, "fox"), fps=30, size=(64, 48))
        rec.capture()
        rec.capture()
    good = tmp_path / "good.gif"
    rec.save(good)
    data = good.read_bytes()
    target = tmp_path / "walk.gif"
    target.write_bytes(b"old video")
    for botched in (data[: len(data) // 2], b"", b"GIF89a"):
        monkeypatch.setattr(rec, "_save_gif", lambda tmp, _cb, b=botched: Path(tmp).write_bytes(b))
        with pytest.raises((VideoError, WriteError), match=f"^{target}: "):
            rec.save(target)
        assert target.read_bytes() == b"old video"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["good.gif", "walk.gif"]
    if "imageio_ffmpeg" in sys.modules or _has("imageio_ffmpeg"):
        mp4 = tmp_path / "walk.mp4"
        rec.save(mp4)
        whole = mp4.read_bytes()
        mp4.unlink()
        cut = whole[: len(whole) // 2]
        monkeypatch.setattr(rec, "_save_mp4", lambda tmp, _cb: Path(tmp).write_bytes(cut))
        with pytest.raises(VideoError, match=r"unreadable \.mp4"):
            rec.save(mp4)
        assert not mp4.exists()


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


# ---------------------------------------------------------------------------- other write failures


def test_urdf_out_naming_an_existing_file(tmp_path, capsys):
    blocker = tmp_path / "urdf"
    blocker.write_text("not a folder")
    assert main(["urdf", "--out", str(blocker), "-q"]) == 2
    err = capsys.readouterr().err
    assert f"{blocker}{os.sep}fox.urdf: cannot write it ({blocker}: File exists)" in err, err
    assert "a file is in the way where a folder is needed" in err
    assert blocker.read_text() == "not a folder"


def test_a_file_name_too_long(tmp_path, capsys):
    out = tmp_path / ("x" * 300 + ".csv")
    assert main(["clip", "fox", "--out", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert "cannot write it" in err and "name in the path is too long" in err, err
    assert list(tmp_path.iterdir()) == []


def test_a_read_only_file_system(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    if not _mount_tmpfs(ro, "ro"):
        pytest.skip("cannot mount a read-only tmpfs here; the simulated EROFS test covers it")
    try:
        assert main(["clip", "fox", "--out", str(ro / "fox.csv"), "-q"]) == 2
        err = capsys.readouterr().err
        assert f"{ro / 'fox.csv'}: cannot write it" in err and "read-only" in err, err
    finally:
        _umount(ro)


@pytest.mark.parametrize(
    ("code", "hint"),
    [
        (errno.EROFS, "the file system is read-only"),
        (errno.EACCES, "permission denied"),
        (errno.ENOSPC, "the disk is full"),
        (errno.ENAMETOOLONG, "a file or folder name in the path is too long"),
    ],
    ids=["EROFS", "EACCES", "ENOSPC", "ENAMETOOLONG"],
)
def test_os_errors_become_exit_2_naming_the_path(tmp_path, monkeypatch, capsys, code, hint):
    out = tmp_path / "fox.csv"

    def refuse(*_a, **_k):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    assert main(["clip", "fox", "--out", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert f"{out}: cannot write it ({os.strerror(code)}); {hint}" in err, err
    with pytest.raises(WriteError) as info:
        atomic_write_text(out, "x")
    assert info.value.errno == code and isinstance(info.value, OSError)
    assert list(tmp_path.iterdir()) == []


def test_a_short_write_is_caught(tmp_path, monkeypatch):
    path = tmp_path / "a.txt"
    path.write_text("old")
    real = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real(fd, bytes(data)[:1]) and 0)
    with pytest.raises(WriteError, match=f"^{path}: cannot write it"):
        atomic_write_text(path, "new text")
    assert path.read_text() == "old" and list(tmp_path.iterdir()) == [path]


# ---------------------------------------------------------------------------- symlinks, modes


def test_validate_write_through_a_symlink_keeps_the_link(tmp_path):
    real = tmp_path / "real" / "cat.json"
    real.parent.mkdir()
    real.write_text(CATALOG_TEXT.replace('"foot_slide_mm": 0', '"foot_slide_mm": 5', 1))
    link = tmp_path / "cat.json"
    link.symlink_to(real)
    assert main(["validate", "-q", "--catalog", str(link), "--write"]) == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    saved = json.loads(real.read_text())
    assert saved["fox"]["walk_test"]["foot_slide_mm"] == pytest.approx(0, abs=1e-6)
    assert sorted(p.name for p in real.parent.iterdir()) == ["cat.json"]  # no temp file


def test_a_dangling_symlink_is_written_through_to_its_target(tmp_path):
    link = tmp_path / "out.txt"
    link.symlink_to(tmp_path / "sub" / "target.txt")
    atomic_write_text(link, "hello")
    assert link.is_symlink() and (tmp_path / "sub" / "target.txt").read_text() == "hello"


def test_an_existing_files_permissions_are_kept(tmp_path):
    path = tmp_path / "cat.json"
    path.write_text("{}")
    path.chmod(0o600)
    gaitsim.save_catalog(gaitsim.load_catalog(), path)
    assert path.stat().st_mode & 0o777 == 0o600
    new = tmp_path / "new.json"
    gaitsim.save_catalog(gaitsim.load_catalog(), new)
    mask = os.umask(0)
    os.umask(mask)
    assert new.stat().st_mode & 0o777 == 0o666 & ~mask


# ---------------------------------------------------------------------------- cli.main's exit codes


@pytest.mark.parametrize("exc", [ValueError("a bug"), KeyError("a bug"), TypeError("a bug")])
def test_main_does_not_hide_bugs_as_bad_input(monkeypatch, exc):
    def broken(args):
        raise exc

    monkeypatch.setattr(cli, "cmd_catalog", broken)
    with pytest.raises(type(exc)):
        main(["catalog"])


def test_main_maps_gaitsim_errors_to_exit_2(monkeypatch, capsys):
    def bad_input(args):
        raise GaitsimError("somewhere: something to fix")

    monkeypatch.setattr(cli, "cmd_catalog", bad_input)
    assert main(["catalog"]) == 2
    assert capsys.readouterr().err == "gaitsim catalog: error: somewhere: something to fix\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["validate", "--speed-scale", "0"], "--speed-scale must be a number > 0"),
        (["validate", "--speed-scale", "nan"], "--speed-scale must be a number > 0"),
        (["clip", "fox", "--out", "x.csv", "--speed-scale", "-1"], "--speed-scale must be"),
        (["clip", "fox", "--out", "x.csv", "--samples", "10000000"], "--samples must be"),
        (["walk", "fox", "--seconds", "1e-6"], "--seconds must cover at least one control step"),
        (["report", "--seconds", "inf"], "--seconds must be positive"),
    ],
)
def test_flags_library_functions_would_refuse_are_checked_at_the_cli(
    argv, message, capsys, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "-q"]) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_an_unbuildable_walker_is_reported_with_its_file_and_name(tmp_path, capsys):
    data = json.loads(CATALOG_TEXT)
    data["fox"]["gait"]["stride"] = 2.0  # legs of 0.23 m cannot reach it from the hip
    data["fox"]["gait"].pop("hip_height", None)  # so the default hip height is computed
    path = tmp_path / "cat.json"
    path.write_text(json.dumps(data))
    for argv in (["validate"], ["urdf", "--out", str(tmp_path / "u")], ["walk", "fox"]):
        assert main([*argv, "--catalog", str(path), "-q"]) == 2
        err = capsys.readouterr().err
        assert f"{path}: fox.gait.segments[0] (leg_0): " in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cat.json"]
