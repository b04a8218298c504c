"""`toolproof new` refuses, before writing anything, every name gen would refuse; the writing commands' help says so."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolproof.cli import cli
from toolproof.generator.checks import module_clash
from toolproof.generator.naming import module_name, tool_files

MINIMAL = Path(__file__).parent / "cases" / "minimal" / "contracts" / "echo.yaml"


def _project(root: Path, *tools: str, settings: str = "[tool.toolproof]\n") -> Path:
    """A project whose contracts folder holds a file per tool (its module's name is all `new` reads of it)."""
    (root / "contracts").mkdir(parents=True)
    (root / "pyproject.toml").write_text(settings, encoding="utf-8")
    for tool in tools:
        shutil.copy(MINIMAL, root / "contracts" / f"{tool}.yaml")
    return root


def _written(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize("name", ["tests", "docs", "exports", "contracts", "__main__", "__init__", "Tests"])
def test_new_refuses_a_name_the_generated_package_keeps_before_writing(
    runner: CliRunner, tmp_path: Path, name: str
) -> None:
    root = _project(tmp_path / "proj", "echo")
    before = _written(root)

    result = runner.invoke(cli, ["new", name, "--project", str(root)])

    assert result.exit_code == 2
    module = name.lower()
    assert (
        f"Error: tool '{name}' maps to module '{module}', a name the generated package keeps for itself"
        " (__init__, __main__, contracts, defs, docs, exports, tests); pick another name (nothing was written)"
    ) in result.stderr
    assert _written(root) == before


@pytest.mark.parametrize(
    ("existing", "name", "shared"),
    [
        ("echo", "echo_properties", "tests/test_echo_properties.py"),
        ("echo", "echo_fuzz", "tests/test_echo_fuzz.py"),
        ("echo_properties", "echo", "tests/test_echo_properties.py"),
        ("echo_fuzz", "echo", "tests/test_echo_fuzz.py"),
    ],
)
def test_new_refuses_a_tool_whose_generated_files_another_tool_writes_either_way_round(
    runner: CliRunner, tmp_path: Path, existing: str, name: str, shared: str
) -> None:
    root = _project(tmp_path / "proj", existing)
    before = _written(root)

    result = runner.invoke(cli, ["new", name, "--project", str(root)])

    assert result.exit_code == 2
    assert (
        f"Error: tool '{name}' and the tool of contracts/{existing}.yaml would both generate {shared} in the"
        " generated folder; pick another name (nothing was written)"
    ) in result.stderr
    assert _written(root) == before


def test_new_refuses_a_tool_whose_generated_files_an_included_built_in_tool_writes(
    runner: CliRunner, tmp_path: Path
) -> None:
    root = _project(tmp_path / "proj", "echo", settings='[tool.toolproof]\ninclude = ["gateway"]\n')

    result = runner.invoke(cli, ["new", "read_file_properties", "--project", str(root)])

    assert result.exit_code == 2
    assert (
        "Error: tool 'read_file_properties' and the built-in tool 'read_file', which the project includes, would both"
        " generate tests/test_read_file_properties.py in the generated folder; pick another name"
    ) in " ".join(result.stderr.split())
    assert not (root / "contracts" / "read_file_properties.yaml").exists()


def test_new_leaves_a_name_taken_by_its_own_contract_file_to_the_existing_file_refusal(
    runner: CliRunner, tmp_path: Path
) -> None:
    root = _project(tmp_path / "proj", "echo")

    result = runner.invoke(cli, ["new", "Echo", "--project", str(root)])

    assert result.exit_code == 2
    assert "contracts/echo.yaml exist(s) already; nothing was written" in result.stderr


def test_the_clash_rule_lint_and_new_share_names_the_reserved_module_first() -> None:
    others = dict.fromkeys(tool_files("echo").values(), "tool 'echo'")

    assert module_clash("echo_two", others) is None
    assert module_clash("tests", others) == (
        "tool 'tests' maps to module 'tests', a name the generated package keeps for itself"
        " (__init__, __main__, contracts, defs, docs, exports, tests)"
    )
    assert module_clash("echo_fuzz", others) == (
        "tool 'echo_fuzz' and tool 'echo' would both generate tests/test_echo_fuzz.py in the generated folder"
    )


@pytest.mark.parametrize("command", ["gen", "new"])
def test_the_writing_commands_help_says_they_need_a_project(runner: CliRunner, command: str) -> None:
    result = runner.invoke(cli, [command, "--help"])

    text = " ".join(result.output.split())
    assert result.exit_code == 0
    assert "else the built-in tools" not in text
    assert "default: the nearest one above the current folder (or $TOOLPROOF_PROJECT)." in text
    assert "Outside any project the command stops: create one with `toolproof init`." in text


@pytest.mark.parametrize("command", ["lint", "export", "breaking"])
def test_the_reading_commands_still_fall_back_on_the_built_in_tools(runner: CliRunner, command: str) -> None:
    result = runner.invoke(cli, [command, "--help"])

    assert "else the built-in tools" in " ".join(result.output.split())


@pytest.fixture(scope="module")
def initialised(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project as `toolproof init` writes it, copied for each test that adds a tool."""
    folder = tmp_path_factory.mktemp("odd-names") / "tools"
    assert CliRunner().invoke(cli, ["init", str(folder)]).exit_code == 0
    return folder


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("__x", "X"),
        ("a_", "A"),
        ("_1", '"1"'),
        ("x1", "X1"),
        ("_0x1f", '"0x1f"'),  # plain, YAML reads a number
        ("null", '"Null"'),  # plain, YAML reads null
        ("yes", '"Yes"'),  # plain, YAML reads true
        ("a--b__c", "A b c"),
    ],
)
def test_new_with_an_odd_name_leaves_a_project_that_lints_and_a_handler_naming_the_generated_classes(
    runner: CliRunner, initialised: Path, tmp_path: Path, name: str, title: str
) -> None:
    """`new _` once wrote `title:` empty (null), `new _1` the number 1, and the project no longer linted."""
    root = tmp_path / "tools"
    shutil.copytree(initialised, root)

    added = runner.invoke(cli, ["new", name, "--project", str(root)])
    linted = runner.invoke(cli, ["lint", "--project", str(root)])

    module = root / "contracts" / f"{module_name(name)}.yaml"
    assert added.exit_code == 0, added.output
    assert (linted.exit_code, linted.stdout) == (0, "4 contract(s) OK\n"), linted.output  # init's three, and it
    assert f"\ntitle: {title}\n" in module.read_text(encoding="utf-8")
    handler = (root / "handlers" / f"{module.stem}.py").read_text(encoding="utf-8")
    names = sorted(set(re.findall(r"contract\.(\w+)", handler)))
    imported = subprocess.run(
        [sys.executable, "-c", f"import generated.{module.stem} as c; print(*[getattr(c, n) and n for n in {names}])"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.split() == names


@pytest.mark.parametrize("name", ["_", "__", "_-_"])
def test_new_refuses_a_name_that_makes_no_title_naming_the_contract_before_writing(
    runner: CliRunner, initialised: Path, tmp_path: Path, name: str
) -> None:
    root = tmp_path / "tools"
    shutil.copytree(initialised, root)
    before = _written(root)

    result = runner.invoke(cli, ["new", name, "--project", str(root)])

    module = name.replace("-", "_")
    assert result.exit_code == 2
    assert (
        f"Error: {name!r} makes no title for contracts/{module}.yaml: a tool name needs a letter or a digit"
        " besides _ and -; nothing was written"
    ) in " ".join(result.stderr.split())
    assert _written(root) == before
