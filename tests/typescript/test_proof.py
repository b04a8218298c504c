"""Issue 23's proof: a TypeScript project of `init --lang typescript` with a second tool added by `new` and written
in TypeScript passes its own `npm test` and `toolproof conform`, and fails conform, naming the tool, when broken.

One project is made and npm-installed (offline, from the set-up's cache) for the whole module; each test builds it,
and each break edits one file, builds, conforms and puts the file back.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.typescript.conftest import NPM_CACHE, needs_node_tools, run
from toolproof.cli import cli

pytestmark = pytest.mark.slow

TOOLPROOF = str(Path(sys.executable).parent / "toolproof")

GREET = """\
// greet: answer the text it is given; an empty text is refused.
import { GreetErrors, type GreetInput, type GreetOutput } from "../../generated/typescript/greet.js";

export function handle(args: GreetInput): GreetOutput {
  if (args.text === "") throw GreetErrors.refused({ text: args.text });
  return { result: args.text };
}
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The project with `greet` added by `new` and implemented, installed and built."""
    needs_node_tools()
    folder = tmp_path_factory.mktemp("proof") / "tools"
    made = CliRunner().invoke(cli, ["init", "--lang", "typescript", str(folder)])
    assert made.exit_code == 0, made.output
    added = CliRunner().invoke(cli, ["new", "greet", "--project", str(folder)])
    assert added.exit_code == 0, added.output
    (folder / "src" / "handlers" / "greet.ts").write_text(GREET, encoding="utf-8")
    installed = run(["npm", "install", "--offline", "--cache", str(NPM_CACHE), "--no-audit", "--no-fund"], folder)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    yield folder


def _build(folder: Path) -> None:
    built = run(["npm", "run", "build"], folder)
    assert built.returncode == 0, built.stdout + built.stderr


def _conform(folder: Path, *only: str) -> str:
    """Conform's report; asserts its exit code says whether every example passed."""
    tools = [arg for name in only for arg in ("--tool", name)]
    command = [TOOLPROOF, "conform", "--mcp", "node {project}/dist/src/server.js", "--project", str(folder), *tools]
    done = run(command, folder, timeout=600)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    passed = done.returncode == 0
    assert passed == (" 0 failed" in done.stdout), done.stdout
    return done.stdout


def test_the_project_with_a_second_tool_passes_its_npm_test_and_conform(project: Path) -> None:
    tested = run(["npm", "test"], project)  # builds too
    report = _conform(project)

    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "# pass 6" in tested.stdout
    assert "# fail 0" in tested.stdout
    assert "PASS greet: answers a text" in report
    assert "PASS greet: refuses an empty text" in report
    assert "2 tool(s) checked (2 listed by the server), 6 example(s)\n6 passed, 0 failed" in report


_BREAKS = {
    "wrong error code": (
        "src/handlers/greet.ts",
        "throw GreetErrors.refused({ text: args.text });",
        'throw new Error("refused");',
        [
            "FAIL greet: refuses an empty text",
            "expected error 'refused', got 'internal_error'",
        ],
    ),
    "wrong output shape": (
        "src/server.ts",
        "  return toMcp(await tool.call(request.params.arguments ?? {}));",
        "  const answer = toMcp(await tool.call(request.params.arguments ?? {}));\n"
        '  if (tool.name !== "greet" || answer.structuredContent === undefined) return answer;\n'
        '  return { ...answer, structuredContent: { answer: answer.structuredContent["result"] } };',
        [
            "FAIL greet: answers a text",
            "structuredContent breaks the output schema: $.answer: unexpected property (allowed: result)",
        ],
    ),
    "wrong description": (
        "src/server.ts",
        "structuredClone(tool.contract.definition) as Tool",
        '({ ...structuredClone(tool.contract.definition), ...(tool.name === "greet" ? { description: "Deletes'
        ' every file." } : {}) }) as Tool',
        [
            "FAIL greet: the server lists the contract's title, description and annotations",
            "tools/list gives 'greet' a description other than the contract's: from character 1: the server has"
            ' "Deletes every file.", the contract has "Say what greet does and when a model should call it."',
            "FAIL greet: the server lists the pinned definition",  # a changed description changes the digest
        ],
    ),
}


@pytest.mark.parametrize("broken", list(_BREAKS))
def test_conform_fails_naming_the_tool_when_the_project_is_broken(project: Path, broken: str) -> None:
    file, before, after, said = _BREAKS[broken]
    path = project / file
    original = path.read_text(encoding="utf-8")
    assert before in original
    path.write_text(original.replace(before, after), encoding="utf-8")
    try:
        _build(project)
        report = _conform(project, "greet", "word_count")
    finally:  # the next test builds again
        path.write_text(original, encoding="utf-8")

    for line in said:
        assert line in report
    assert f" {sum(line.startswith('FAIL ') for line in said)} failed" in report, "each failure named, and no other"
    assert "FAIL word_count" not in report
