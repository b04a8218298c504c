"""The sdist holds exactly what builds the wheel: the package tree, its metadata, its licence; no tests, no caches."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Final

import pytest

pytestmark = pytest.mark.slow  # builds a distribution

REPO: Final = Path(__file__).resolve().parents[2]
TOP: Final = {"CHANGELOG.md", "LICENSE", "MANIFEST.in", "PKG-INFO", "README.md", "pyproject.toml", "setup.cfg"}
EGG_INFO: Final = {
    *("PKG-INFO", "SOURCES.txt", "dependency_links.txt", "entry_points.txt", "requires.txt", "top_level.txt"),
}


def _tracked() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, check=True, capture_output=True).stdout
    return [name for name in listed.decode().split("\0") if name and (REPO / name).is_file()]


def test_the_sdist_holds_the_package_tree_its_metadata_and_licence_and_nothing_else(tmp_path: Path) -> None:
    source = tmp_path / "source"
    for name in _tracked():  # what a clean clone holds: no caches, no .venv, no build leftovers
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, source / name)
    command = [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(tmp_path / "dist")]
    subprocess.run([*command, str(source)], cwd=tmp_path, check=True, capture_output=True, timeout=300)
    (sdist,) = (tmp_path / "dist").glob("toolproof-*.tar.gz")

    with tarfile.open(sdist) as archive:
        members = {m.name.split("/", 1)[1] for m in archive.getmembers() if m.isfile()}

    package = {
        name
        for name in _tracked()
        if name.startswith("toolproof/") and not name.startswith("toolproof/builtin/generated/tests/")
    }
    expected = TOP | {f"toolproof.egg-info/{name}" for name in EGG_INFO} | package
    assert members == expected, sorted(members ^ expected)
