"""`toolproof conform --mcp CMD` gives the server it starts the example's test folder, for the project's resources."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tests.testing.resource_project import make_resource_project, toolproof


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_resource_project(tmp_path_factory.mktemp("conform") / "notes")


def _served(run_stdout: str) -> list[str]:
    return [line for line in run_stdout.splitlines() if line.startswith(("PASS", "FAIL"))]


def test_the_readme_conform_command_passes_on_a_project_whose_tool_needs_a_resource(project: Path) -> None:
    run = toolproof("conform", "--mcp", f"{shlex.join([sys.executable, '-m', 'toolproof'])} serve mcp", cwd=project)

    assert run.returncode == 0, run.stdout + run.stderr
    assert "PASS notes: reads a note" in _served(run.stdout)
    assert run.stdout.splitlines()[-1] == "10 passed, 0 failed"  # notes, and init's word_count, glossary, count_request


def test_the_folder_placeholder_names_the_example_test_folder_to_any_server(project: Path) -> None:
    # A server that reads no $TOOLPROOF_TEST_FOLDER: the command line hands it the notes' path.
    server = shlex.join(["env", "-u", "TOOLPROOF_TEST_FOLDER", "NOTES_DB={folder}/notes.json"])
    command = f"{server} {shlex.join([sys.executable, '-m', 'toolproof'])} serve mcp"

    run = toolproof("conform", "--mcp", command, "--tool", "notes", cwd=project)

    assert run.returncode == 0, run.stdout + run.stderr
    assert sorted(_served(run.stdout)) == ["PASS notes: reads a note", "PASS notes: refuses an unknown key"]


def test_a_server_given_no_test_folder_fails_naming_the_unlisted_tool(project: Path) -> None:
    # What conform saw before it passed the folder: the tool is left out, and said so.
    command = f"env -u TOOLPROOF_TEST_FOLDER {shlex.join([sys.executable, '-m', 'toolproof'])} serve mcp"

    run = toolproof("conform", "--mcp", command, "--tool", "notes", cwd=project)

    assert run.returncode == 1
    assert "does not list tool 'notes'" in run.stdout
