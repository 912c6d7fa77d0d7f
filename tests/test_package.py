"""The distribution installs one import package, bgpsim: the repository's rpki/, viz/ and scenarios/
folders become bgpsim.rpki, bgpsim.viz and bgpsim.scenarios, and no generic top-level name (rpki,
viz, scenarios) reaches site-packages. The wheel is built from this checkout and installed into a
fresh virtual environment, where the imports and `bgpsim --version` are tried from another folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import bgpsim

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    src = out / "src"  # a copy: building writes build/ and *.egg-info beside the sources
    shutil.copytree(ROOT, src, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "build", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis", "bgpsim-*", "*.so"))
    # the packaging is under test, not the core's speed: built unoptimised (setup.py leaves the level to
    # CFLAGS that name one), 6 s of compiling rather than 17
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
                       capture_output=True, text=True, env={**os.environ, "CFLAGS": "-O0 -g0"})
    assert p.returncode == 0, p.stderr
    (whl,) = out.glob("bgpsim-*.whl")
    return whl


def test_the_wheel_holds_one_import_package(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"bgpsim", f"bgpsim-{bgpsim.__version__}.dist-info"}
    assert any(n.startswith("bgpsim/_core.") and n.endswith(".so") for n in names)  # the compiled core, built
    for path in ("bgpsim/rpki/rov.py", "bgpsim/rpki/vrps/__init__.py", "bgpsim/viz/report.html", "bgpsim/viz/report.py", "bgpsim/scenarios/teaching-subprefix.toml",
                 "bgpsim/scenarios/topologies/teaching.toml", "bgpsim/base/errors.py", "bgpsim/commands/run.py"):
        assert path in names, path


def test_installed_in_a_fresh_venv(wheel, tmp_path):
    venv = tmp_path / "venv"
    # the system's packages (numpy, ...) stay visible; bgpsim comes from the venv, which is searched first.
    # --ignore-installed: a bgpsim already installed in the system (CI installs '.[test]') must not
    # satisfy the requirement, or the wheel under test would never be installed
    # without pip of its own (ensurepip takes seconds): this pip installs into it (`--python`, pip >= 22.3)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--ignore-installed", "--no-deps",
                    "--no-index", str(wheel)], check=True, capture_output=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    def python(code: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(py), "-c", code], cwd=elsewhere, capture_output=True, text=True)

    where = python("import bgpsim, bgpsim.rpki.rov, bgpsim.viz.report, bgpsim.scenarios; print(bgpsim.__file__)")
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout
    for name in ("rpki", "viz", "scenarios"):
        p = python(f"import {name}")
        assert p.returncode != 0 and f"No module named '{name}'" in p.stderr, (name, p.stdout, p.stderr)
    version = subprocess.run([str(venv / "bin" / "bgpsim"), "--version"], cwd=elsewhere, capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout == f"bgpsim {bgpsim.__version__}\n", version
