"""Lint, gen and gen --check report a handler module that serves no contract, as serve refuses it (TP408).

A contract without a handler (TP409) has its tests in test_lint_silent_failures.py.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolproof.cli import cli
from toolproof.generator.project import load_project
from toolproof.runtime.project import load_config
from toolproof.runtime.registry import _extra_handler_modules, stray_handler_modules
from toolproof.runtime.spec import ToolSpec

MINIMAL = Path(__file__).parent / "cases" / "minimal" / "contracts" / "echo.yaml"
HANDLER = "def handle(args, ctx):\n    return {'echo': args['word']}\n"
STRAY = (
    "handlers/stray.py:1:1: error [TP408] handler module handlers.stray serves no contract; remove it or add a"
    " contract (serve refuses it)"
)

MISSING = (
    "contracts/echo.yaml:1:7: error [TP409] contract 'echo' has no handler handlers.echo:handle: no module"
    " handlers.echo (no handlers/echo.py); write it, or name the function that serves the tool in `handler:`"
    " (serve refuses the project)"
)


def _project(root: Path, handlers: dict[str, str], *, package: str = "handlers") -> Path:
    """A project with the minimal echo contract and these files (by path) in its handlers package."""
    (root / "contracts").mkdir(parents=True)
    shutil.copy(MINIMAL, root / "contracts" / "echo.yaml")
    settings = "[tool.toolproof]\n" + (f'handlers = "{package}"\n' if package != "handlers" else "")
    (root / "pyproject.toml").write_text(settings, encoding="utf-8")
    folder = root.joinpath(*package.split("."))
    for path, text in {"__init__.py": "", **handlers}.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text, encoding="utf-8")
    return root


def test_lint_reports_a_handler_module_without_a_contract_where_it_stands(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", {"echo.py": HANDLER, "stray.py": HANDLER})

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert STRAY in result.stderr.splitlines()


@pytest.mark.parametrize("check", [[], ["--check"]])
def test_gen_and_gen_check_refuse_a_project_serve_would_refuse(
    runner: CliRunner, tmp_path: Path, check: list[str]
) -> None:
    root = _project(tmp_path / "proj", {"stray.py": HANDLER})  # echo.py deleted, its contract kept: the reverse case

    result = runner.invoke(cli, ["gen", *check, "--project", str(root)])

    assert result.exit_code == 1
    assert STRAY in result.stderr.splitlines()
    assert MISSING in result.stderr.splitlines()  # the contract whose handler went with echo.py (TP409)
    assert "2 error(s) in contracts; nothing generated" in result.stderr
    assert not (root / "generated").exists()


def test_private_modules_and_claimed_handlers_are_no_orphans(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", {"echo.py": HANDLER, "_shared.py": "", "_helpers/__init__.py": ""})

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 0, result.stderr
    assert "TP408" not in result.stderr


def test_the_handler_of_a_contract_with_an_error_is_not_called_an_orphan(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", {"echo.py": HANDLER})
    contract = root / "contracts" / "echo.yaml"
    contract.write_text(contract.read_text(encoding="utf-8").replace("version: ", "versio: "), encoding="utf-8")

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert "[TP101]" in result.stderr
    assert "TP408" not in result.stderr


def test_lint_finds_orphans_without_running_code_of_the_project(runner: CliRunner, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    root = _project(tmp_path / "proj", {"echo.py": HANDLER, "stray.py": HANDLER})
    (root / "handlers" / "__init__.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).touch()\n", encoding="utf-8"
    )

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert STRAY in result.stderr.splitlines()
    assert not marker.exists()


def test_lint_finds_the_modules_serve_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runtime's rule (``runtime.registry``) applied to the same package names the same modules."""
    package = "tp408_handlers"
    files = {"echo.py": HANDLER, "stray.py": HANDLER, "_private.py": "", "tools/__init__.py": "", "notes.txt": ""}
    root = _project(tmp_path / "proj", files, package=package)
    config = load_config(root / "pyproject.toml")
    loaded = load_project(config)
    monkeypatch.syspath_prepend(str(root))
    specs = [ToolSpec.from_data(contract.data(), config.package) for contract in loaded.contracts]
    try:
        served = _extra_handler_modules(specs, package)
    finally:
        for name in [m for m in sys.modules if m == package or m.startswith(f"{package}.")]:
            del sys.modules[name]

    result = CliRunner().invoke(cli, ["lint", "--project", str(root)])

    found = [line.split("handler module ")[1].split(" ")[0] for line in result.stderr.splitlines() if "TP408" in line]
    assert served == [f"{package}.stray", f"{package}.tools"]
    assert found == served
    assert f"{package}/tools:1:1: error [TP408]" in result.stderr


def test_a_sub_package_holding_a_contracts_handler_is_no_orphan_for_lint_or_serve(tmp_path: Path) -> None:
    handlers = tmp_path / "handlers"
    (handlers / "text").mkdir(parents=True)
    (handlers / "__init__.py").write_text("", encoding="utf-8")
    (handlers / "text" / "__init__.py").write_text("", encoding="utf-8")
    (handlers / "text" / "counting.py").write_text("def count(args, ctx): ...\n", encoding="utf-8")
    (handlers / "stray.py").write_text("", encoding="utf-8")

    found = stray_handler_modules(["handlers.text.counting:count"], "handlers", [str(handlers)])

    assert found == ["handlers.stray"]  # the package holding a named handler is claimed; a real stray is not
