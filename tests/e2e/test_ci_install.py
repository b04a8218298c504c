"""The reusable workflow's install step, run as written in an empty venv, offline, on a ``toolproof init`` project.

The project's handler imports a package of its own dependencies (a local wheel,
``wordsplit``, listed in pyproject.toml beside init's ``toolproof==VERSION``
pin). The step must install both, so that the steps after it (``gen --check``,
the generated tests) run as they do on the developer's machine. pip sees only
the wheelhouse, toolproof's wheel and that local wheel (``PIP_FIND_LINKS``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Final

import pytest
import yaml

from tests.e2e import test_wheel
from tests.e2e.test_wheel import REPO, Venv, _run, _user_env
from toolproof import __version__

pytestmark = pytest.mark.slow  # a whole server, venv or Node process a test: `make test` runs them all

wheel = test_wheel.wheel
"""The wheel test's fixtures, registered here by name: toolproof's wheel, and the wheelhouse it installs from."""
wheelhouse = test_wheel.wheelhouse

WORDSPLIT: Final = '''\
"""A dependency of the project's handler, installed only through the project's dependencies."""


def split(text: str) -> list[str]:
    """Words are runs of non-space characters."""
    return text.split()
'''


def _install_script() -> str:
    workflow = yaml.safe_load((REPO / ".github/workflows/toolproof.yml").read_text(encoding="utf-8"))
    (job,) = workflow["jobs"].values()
    (script,) = [step["run"] for step in job["steps"] if "pip install" in step.get("run", "")]
    return str(script)


def _wordsplit_wheel(base: Path, wheels: Path) -> Path:
    source = base / "wordsplit-source"
    (source / "wordsplit").mkdir(parents=True)
    (source / "wordsplit" / "__init__.py").write_text(WORDSPLIT, encoding="utf-8")
    (source / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "wordsplit"\nversion = "1.0"\n',
        encoding="utf-8",
    )
    dist = base / "local-wheels"
    offline = ["--quiet", "--no-deps", "--no-index", "--find-links", str(wheels), "--wheel-dir", str(dist)]
    _run([sys.executable, "-m", "pip", "wheel", *offline, str(source)], base, _user_env())
    return dist


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> tuple[Venv, Path]:
    """An empty venv after the install step ran in a fresh ``init`` project whose handler imports ``wordsplit``."""
    toolproof_wheel: Path = request.getfixturevalue("wheel")
    wheels: Path = request.getfixturevalue("wheelhouse")
    base = tmp_path_factory.mktemp("ci-install")
    project = base / "svc"
    _run([sys.executable, "-m", "toolproof", "init", str(project)], base, _user_env())
    settings = project / "pyproject.toml"
    pin = f'    "toolproof=={__version__}",\n'
    assert pin in settings.read_text(encoding="utf-8")
    settings.write_text(settings.read_text(encoding="utf-8").replace(pin, f'{pin}    "wordsplit",\n'), encoding="utf-8")
    handler = project / "handlers" / "word_count.py"
    text = handler.read_text(encoding="utf-8")
    text = text.replace("from toolproof.runtime", "from wordsplit import split\n\nfrom toolproof.runtime", 1)
    handler.write_text(text.replace("len(text.split())", "len(split(text))", 1), encoding="utf-8")
    venv = Venv(base / "venv")
    _run([sys.executable, "-m", "venv", str(venv.root)], base, _user_env())
    links = f"{wheels} {toolproof_wheel.parent} {_wordsplit_wheel(base, wheels)}"
    _run(["bash", "-euo", "pipefail", "-c", _install_script()], project, venv.env | {"PIP_FIND_LINKS": links})
    return venv, project


def test_the_install_step_installs_the_toolproof_init_pinned(installed: tuple[Venv, Path]) -> None:
    venv, project = installed

    shown = venv.python("-m", "pip", "show", "toolproof", cwd=project)

    assert f"\nVersion: {__version__}\n" in shown.stdout
    assert venv.toolproof("gen", "--check", cwd=project).returncode == 0


def test_the_generated_tests_run_with_the_projects_own_dependencies(installed: tuple[Venv, Path]) -> None:
    venv, project = installed

    tests = venv.python("-m", "pytest", "-q", "-p", "no:cacheprovider", "generated/tests", cwd=project, expect=None)

    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]
