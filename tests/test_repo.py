"""Repository hygiene: the Quick start commands, CI and the layering rules of DESIGN.md."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quick_start_commands():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", section)


def test_quick_start_has_two_commands_and_ci_runs_the_test_one():
    cmds = quick_start_commands()
    assert len(cmds) == 2, cmds
    assert all("\n" not in c for c in cmds)
    assert "pip install" in cmds[0] and "gaitsim" in cmds[0]
    assert "pytest" in cmds[1]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert cmds[1] in ci, f"{cmds[1]!r} must appear as a line of .ci/run"


def test_kinematic_core_imports_no_simulator():
    # gymnasium may be imported by gaitsim/__init__.py to register the env ids (DESIGN.md)
    code = (
        "import sys, gaitsim, gaitsim.walker, gaitsim.validate, gaitsim.urdf, gaitsim.cli;"
        "bad = [m for m in ('pybullet', 'torch', 'stable_baselines3') if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"imported by the core: {out.stdout}"


def test_no_print_in_library_code():
    offenders = []
    for path in list((ROOT / "gaitsim").rglob("*.py")) + list((ROOT / "envs").rglob("*.py")):
        if path.name == "cli.py":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if re.match(r"\s*print\(", line):
                offenders.append(f"{path.relative_to(ROOT)}:{n}")
    assert not offenders, offenders


BENCHMARKS = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py"))


def test_every_benchmark_answers_help():
    assert {"bench_envs.py", "bench_kinematics.py", "bench_physics.py"} <= set(BENCHMARKS)
    for name in BENCHMARKS:
        out = subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / name), "--help"],
            capture_output=True,
            text=True,
        )
        assert out.returncode == 0 and "usage" in out.stdout, (name, out.stderr)


def test_rollout_digest_is_reproducible(tmp_path):
    """The bit-for-bit check used on every speed-up: two runs give the same digests."""
    runs = []
    for k in range(2):
        out = tmp_path / f"d{k}.json"
        cmd = [sys.executable, str(ROOT / "benchmarks" / "rollout_digest.py"), "--steps", "5"]
        subprocess.run([*cmd, "--out", str(out)], capture_output=True, text=True, check=True)
        runs.append(out.read_text())
    assert runs[0] == runs[1] and runs[0].count("digest") == 8
