"""Repository hygiene: the Quick start commands, CI, the layering rules of
docs/architecture.md, and a repository that stands on its own (no paths leaving it)."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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
    # gymnasium may be imported by gaitsim/__init__.py to register the env ids
    # (docs/architecture.md, "Import rules")
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


@pytest.mark.slow
@pytest.mark.parametrize("name", ["bench_physics.py", "bench_engines.py"])
def test_benchmarks_quick_runs_finish(name):
    """The benchmarks that reach into simulate()'s and the engines' internals still run
    against the current code (a smoke run: bench_physics wrapped a renamed function and
    broke without any test noticing). bench_envs uses only the env's public API."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / name), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, (name, out.stderr[-2000:])


def test_rollout_digest_is_reproducible(tmp_path):
    """The bit-for-bit check used on every speed-up: two runs give the same digests."""
    runs = []
    for k in range(2):
        out = tmp_path / f"d{k}.json"
        cmd = [sys.executable, str(ROOT / "benchmarks" / "rollout_digest.py"), "--steps", "5"]
        subprocess.run([*cmd, "--out", str(out)], capture_output=True, text=True, check=True)
        runs.append(out.read_text())
    assert runs[0] == runs[1] and runs[0].count("digest") == 8


# ---------------------------------------------------------------------------- self-contained

# Built by concatenation so that this file does not match its own patterns.
OUTSIDE_REFERENCES = tuple(
    "/".join(parts) for parts in (("..", "shared"), ("shared", "DESIGN.md"), ("shared", "seeds"))
)


def repo_text_files() -> list[Path]:
    """Tracked files plus new ones not ignored (what a commit would add), text only."""
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    out = subprocess.run(
        [git, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    files = []
    for name in sorted(set(out.stdout.decode("utf-8").split("\0")) - {""}):
        path = ROOT / name
        if not path.is_file():  # deleted in the work tree
            continue
        data = path.read_bytes()
        if b"\0" in data:
            continue
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        files.append(path)
    return files


def test_no_file_refers_outside_the_repository():
    files = repo_text_files()
    assert any(p.name == "README.md" for p in files)
    offenders = []
    for path in files:
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            for ref in OUTSIDE_REFERENCES:
                if ref in line:
                    offenders.append(f"{path.relative_to(ROOT)}:{n}: {ref}")
    assert not offenders, "\n".join(offenders)


def test_markdown_links_stay_inside_the_repository():
    bad = []
    for path in repo_text_files():
        if path.suffix != ".md":
            continue
        for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text("utf-8")):
            if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a URL or an anchor in the same page
            resolved = (path.parent / target.split("#", 1)[0]).resolve()
            if ROOT.resolve() not in resolved.parents or not resolved.exists():
                bad.append(f"{path.relative_to(ROOT)}: {target}")
    assert not bad, bad


def test_readme_links_the_documentation():
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("## Documentation", 1)[1].split("\n## ", 1)[0]
    for doc in ("docs/architecture.md", "docs/catalog.md", "docs/custom_walker.md"):
        assert (ROOT / doc).is_file(), doc
        assert f"({doc})" in section, f"README's Documentation section should link {doc}"


def test_catalog_reference_names_every_field():
    from gaitsim import catalog

    text = (ROOT / "docs" / "catalog.md").read_text("utf-8")
    fields = [
        *catalog._GAIT_FIELDS,
        *catalog._SEGMENT_FIELDS,
        *catalog.GAIT_EXTRA_KEYS,
        *catalog.SEGMENT_EXTRA_KEYS,
        "walk_test",
        "foot_slide_mm",
    ]
    missing = [f for f in fields if f"`{f}`" not in text]
    assert not missing, f"docs/catalog.md does not describe {missing}"


MAX_FUNCTION_LINES = 80


def test_no_library_function_over_80_lines():
    """Functions in the package and the envs do one job each; long ones get split."""
    import ast

    long = []
    for path in sorted([*(ROOT / "gaitsim").rglob("*.py"), *(ROOT / "envs").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({n})")
    assert not long, long


README_REFERENCE = re.compile(r"README(?:'s|,)? [\"']([A-Z][^\"'\n]*)[\"']")


def test_readme_sections_named_in_code_and_docs_exist():
    # code, tests and docs point readers at README sections by name ("README, 'X'");
    # a renamed or moved section must not leave them pointing at nothing
    headings = [line.lstrip("#").strip() for line in
                (ROOT / "README.md").read_text("utf-8").splitlines() if line.startswith("#")]
    missing = []
    for folder in ("gaitsim", "tests", "experiments", "benchmarks", "envs", "examples", "docs"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in (".py", ".md") or path.name == "test_repo.py":
                continue
            for name in README_REFERENCE.findall(path.read_text("utf-8")):
                if not any(h.startswith(name) for h in headings):
                    missing.append(f"{path.relative_to(ROOT)}: README {name!r}")
    assert not missing, missing
