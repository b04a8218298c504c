"""The pre-commit hooks and the reusable workflow, run as written on a project made by ``toolproof init``.

Each hook's ``entry`` + ``args`` and each workflow ``run:`` step (placeholders
filled) runs in a temporary project with a git history: all pass on the clean
project; after a breaking contract change without a version bump, the
generated-files check exits 1 and, once the files are refreshed, both breaking
checks (hook and workflow step) exit 1.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from toolproof import __version__

REPO: Final = Path(__file__).resolve().parents[2]
TIMEOUT: Final = 180.0
BASE: Final = "main"
"""The branch the temporary project's first commit is on: what ``against`` is filled with."""


@dataclass(frozen=True, slots=True)
class Step:
    """One command CI runs: its name and its shell text."""

    name: str
    script: str
    env: Mapping[str, str]


def _hooks() -> list[dict[str, Any]]:
    hooks: list[dict[str, Any]] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    return hooks


def _workflow() -> dict[str, Any]:
    workflow: dict[str, Any] = yaml.safe_load((REPO / ".github/workflows/toolproof.yml").read_text(encoding="utf-8"))
    return workflow


def _hook_steps() -> list[Step]:
    steps = []
    for hook in _hooks():
        args = [BASE if arg == "origin/main" else arg for arg in hook.get("args", [])]  # a user's override
        steps.append(Step(hook["id"], shlex.join([*shlex.split(hook["entry"]), *args]), {}))
    return steps


def _fill(text: str, inputs: Mapping[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        expression = match.group(1).strip()
        if expression.startswith("inputs."):
            return inputs[expression.removeprefix("inputs.")]
        if expression == "github.base_ref":
            return ""  # not a pull request
        raise AssertionError(f"no value for ${{{{ {expression} }}}}")

    return re.sub(r"\$\{\{(.*?)\}\}", value, text)


def _workflow_steps(inputs: Mapping[str, str]) -> list[Step]:
    (job,) = _workflow()["jobs"].values()
    return [
        Step(
            step["name"], _fill(step["run"], inputs), {k: _fill(str(v), inputs) for k, v in step.get("env", {}).items()}
        )
        for step in job["steps"]
        if "run" in step and "pip install" not in step["run"]  # no package index here: the dev venv has toolproof
    ]


@pytest.fixture(scope="module")
def shims(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bin folder whose ``toolproof`` and ``python`` are this interpreter's."""
    folder = tmp_path_factory.mktemp("bin")
    for name, command in (("toolproof", f"{shlex.quote(sys.executable)} -m toolproof"), ("python", sys.executable)):
        shim = folder / name
        shim.write_text(f'#!/bin/sh\nexec {command} "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
    return folder


def _git(project: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci", *args],
        cwd=project,
        check=True,
        capture_output=True,
        timeout=TIMEOUT,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, shims: Path) -> Iterator[Path]:
    """A project from ``toolproof init``, committed on ``main``."""
    folder = tmp_path_factory.mktemp("project")
    init = subprocess.run(
        [sys.executable, "-m", "toolproof", "init", str(folder)], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert init.returncode == 0, init.stderr
    _git(folder, "init", "-q", "-b", BASE)
    _git(folder, "add", "-A")
    _git(folder, "commit", "-q", "-m", "init")
    yield folder


def _run(step: Step, project: Path, shims: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "GITHUB_"))}
    env.update(step.env, PATH=f"{shims}{os.pathsep}{env.get('PATH', '')}")
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", step.script],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def test_the_hooks_are_the_three_checks_on_the_whole_project() -> None:
    hooks = {hook["id"]: hook for hook in _hooks()}
    assert sorted(hooks) == ["toolproof-breaking", "toolproof-gen-check", "toolproof-lint"]
    assert hooks["toolproof-breaking"]["args"] == ["--against", "origin/main"]
    assert all(hook["pass_filenames"] is False and hook["language"] == "python" for hook in hooks.values())


def test_the_workflow_is_reusable_with_its_three_inputs_and_full_history() -> None:
    workflow = _workflow()
    keys: dict[Any, Any] = dict(workflow)
    on = keys["on"] if "on" in keys else keys[True]  # YAML 1.1 reads a bare `on` as true
    assert sorted(on["workflow_call"]["inputs"]) == ["against", "project", "python-version"]
    (job,) = workflow["jobs"].values()
    checkout = job["steps"][0]
    assert checkout["uses"].startswith("actions/checkout@") and checkout["with"]["fetch-depth"] == 0
    assert any("pip install 'toolproof[testing]==" in step.get("run", "") for step in job["steps"])


def _install_script() -> str:
    (job,) = _workflow()["jobs"].values()
    (script,) = [step["run"] for step in job["steps"] if "pip install" in step.get("run", "")]
    return str(script)


def test_the_workflow_installs_the_project_and_pins_toolproof_to_its_own_release() -> None:
    """The project's dependencies (its handlers' imports, init's toolproof pin); else this release, never the newest."""
    script = _install_script()
    pins = re.findall(r"toolproof\[testing\]==([^\s']+)", script)

    assert "python -m pip install '.[test]'" in script  # init's projects declare the testing extra as `test`
    assert pins == [__version__]
    assert not re.search(r"pip install[^\n]*\btoolproof(?!(\[testing\])?==)\b", script), script


def _every_step(project: Path) -> list[Step]:
    inputs = {"python-version": "3.12", "project": str(project), "against": BASE}
    return [*_hook_steps(), *_workflow_steps(inputs)]


def test_every_hook_and_workflow_step_passes_on_a_clean_project(project: Path, shims: Path) -> None:
    steps = _every_step(project)
    assert len(steps) == 7
    for step in steps:
        run = _run(step, project, shims)
        assert run.returncode == 0, f"{step.name}: {run.stdout[-2000:]}{run.stderr[-2000:]}"


def test_a_breaking_change_without_a_version_bump_fails_the_breaking_checks(project: Path, shims: Path) -> None:
    contract = project / "contracts" / "word_count.yaml"
    contract.write_text(
        contract.read_text(encoding="utf-8").replace("      minimum: 1\n", "      minimum: 2\n", 1), encoding="utf-8"
    )
    steps = {step.name: step for step in _every_step(project)}
    gen_check = _run(steps["toolproof-gen-check"], project, shims)
    assert gen_check.returncode == 1, gen_check.stderr
    regenerated = subprocess.run(
        [sys.executable, "-m", "toolproof", "gen"], cwd=project, capture_output=True, timeout=TIMEOUT
    )
    assert regenerated.returncode == 0
    breaking = [step for name, step in steps.items() if "breaking" in name.lower()]
    assert len(breaking) == 2
    for step in breaking:
        run = _run(step, project, shims)
        assert run.returncode == 1, f"{step.name}: {run.stdout[-2000:]}{run.stderr[-2000:]}"
        assert "VERSION_NOT_BUMPED" in run.stdout


def _breaking_step(against: str) -> Step:
    (step,) = [
        step
        for step in _workflow_steps({"python-version": "3.12", "project": ".", "against": against})
        if "breaking" in step.name.lower()
    ]
    return step


def _pull_request_checkout(project: Path, into: Path) -> Path:
    """A clone of ``project`` on a branch, as actions/checkout leaves a pull request: origin/main, no local main."""
    _git(into.parent, "clone", "-q", str(project), str(into))
    _git(into, "checkout", "-q", "-b", "feature")
    _git(into, "branch", "-q", "-D", BASE)
    return into


def test_against_main_in_a_pull_request_checkout_without_a_local_main_still_catches_the_breaking_change(
    project: Path, shims: Path, tmp_path: Path
) -> None:
    checkout = _pull_request_checkout(project, tmp_path / "checkout")
    contract = checkout / "contracts" / "word_count.yaml"
    text = contract.read_text(encoding="utf-8")
    contract.write_text(text.replace("      minimum: 1\n", "      minimum: 2\n", 1), encoding="utf-8")
    _git(checkout, "commit", "-qam", "tighten")

    run = _run(_breaking_step(BASE), checkout, shims)

    assert run.returncode == 1, f"{run.stdout[-2000:]}{run.stderr[-2000:]}"
    assert "VERSION_NOT_BUMPED" in run.stdout


def test_an_against_ref_the_checkout_lacks_fails_the_step_naming_it_instead_of_passing_an_empty_ref(
    project: Path, shims: Path, tmp_path: Path
) -> None:
    checkout = _pull_request_checkout(project, tmp_path / "checkout")

    run = _run(_breaking_step("no-such-branch"), checkout, shims)

    assert run.returncode == 2, f"{run.stdout[-2000:]}{run.stderr[-2000:]}"
    assert run.stdout.splitlines() == [
        "::error title=toolproof breaking::no merge base of HEAD with 'no-such-branch' (nor 'origin/no-such-branch');"
        " set against to a ref this checkout has (e.g. origin/main)"
    ]
