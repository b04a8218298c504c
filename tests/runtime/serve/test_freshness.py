"""A host refuses generated code older than its contract (``serve.freshness``), driven as a user drives it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.testing.resource_project import make_resource_project, toolproof

_COUNT = ["call", "word_count", "--args", '{"text": "a b"}']
_STARTS = {
    "call": _COUNT,
    "serve-mcp": ["serve", "mcp"],
    "serve-mcp-http": ["serve", "mcp", "--transport", "http", "--port", "0"],
    "serve-http": ["serve", "http", "--port", "0"],
}
_OR = " (--allow-stale serves the generated code as it is)"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_resource_project(tmp_path_factory.mktemp("made") / "notes")


@pytest.fixture
def project(made: Path, tmp_path: Path) -> Path:
    """A fresh copy of the made project, generated and up to date."""
    return Path(shutil.copytree(made, tmp_path / "notes"))


@pytest.mark.parametrize("argv", _STARTS.values(), ids=_STARTS.keys())
def test_an_edited_contract_whose_gen_was_skipped_is_refused_at_every_start(project: Path, argv: list[str]) -> None:
    contract = project / "contracts" / "notes.yaml"
    contract.write_text(contract.read_text(encoding="utf-8").replace("Read one note", "Read a note"), "utf-8")

    run = toolproof(*argv, cwd=project, timeout=60)

    assert run.returncode == 2
    assert run.stderr == (
        f"toolproof: contracts/notes.yaml changed after its code was generated; run `toolproof gen`{_OR}\n"
    )
    assert run.stdout == ""


def test_a_contract_never_generated_is_refused_naming_it(project: Path) -> None:
    shutil.copy(project / "contracts" / "word_count.yaml", project / "contracts" / "tally.yaml")

    run = toolproof(*_COUNT, cwd=project)

    assert run.returncode == 2
    assert run.stderr == f"toolproof: contracts/tally.yaml has no generated code; run `toolproof gen`{_OR}\n"


def test_a_removed_contract_whose_generated_code_remains_is_refused(project: Path) -> None:
    (project / "contracts" / "notes.yaml").unlink()

    run = toolproof(*_COUNT, cwd=project)

    assert run.returncode == 2
    expected = "toolproof: contracts/notes.yaml was removed, but its generated code remains; run `toolproof gen`"
    assert run.stderr == expected + _OR + "\n"


def test_each_stale_contract_has_its_own_line_with_the_project_command(project: Path) -> None:
    settings = project / "pyproject.toml"
    settings.write_text(
        settings.read_text(encoding="utf-8").replace("[tool.toolproof]\n", '[tool.toolproof]\ncommand = "make gen"\n'),
        encoding="utf-8",
    )
    assert toolproof("gen", cwd=project).returncode == 0  # the command is stamped into the generated files
    for name in ("notes", "word_count"):
        (project / "contracts" / f"{name}.yaml").write_text(
            (project / "contracts" / f"{name}.yaml").read_text(encoding="utf-8") + "# edited\n", encoding="utf-8"
        )

    run = toolproof("serve", "mcp", cwd=project)

    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        f"toolproof: contracts/{name}.yaml changed after its code was generated; run `make gen`{_OR}"
        for name in ("notes", "word_count")
    ]


def test_allow_stale_serves_the_old_code_with_a_warning(project: Path) -> None:
    contract = project / "contracts" / "word_count.yaml"
    contract.write_text(contract.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")

    run = toolproof(*_COUNT, "--allow-stale", cwd=project)

    assert run.returncode == 0, run.stderr
    assert '"words": 2' in run.stdout
    assert run.stderr == (
        "warning: serving stale generated code: "
        "contracts/word_count.yaml changed after its code was generated; run `toolproof gen`\n"
    )


def test_a_fresh_project_is_served_without_a_word_on_stderr(project: Path) -> None:
    run = toolproof(*_COUNT, cwd=project)

    assert run.returncode == 0, run.stderr
    assert run.stderr == ""


def test_a_deployment_without_the_contracts_folder_is_served_from_its_generated_code(project: Path) -> None:
    shutil.rmtree(project / "contracts")

    run = toolproof(*_COUNT, cwd=project)

    assert run.returncode == 0, run.stderr
    assert '"words": 2' in run.stdout
