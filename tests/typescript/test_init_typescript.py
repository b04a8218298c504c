"""`toolproof init --lang typescript`: a project on the official MCP TypeScript SDK, tested with no Python."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.typescript.conftest import NPM_CACHE, run
from toolproof.cli import cli

TOOLPROOF = str(Path(sys.executable).parent / "toolproof")


def _init(folder: Path) -> None:
    done = CliRunner().invoke(cli, ["init", "--lang", "typescript", str(folder)])
    assert done.exit_code == 0, done.output


def test_init_typescript_writes_typed_modules_per_tool_and_their_binding(tmp_path: Path) -> None:
    _init(tmp_path / "tools")

    module = (tmp_path / "tools" / "generated" / "typescript" / "word_count.ts").read_text(encoding="utf-8")
    bound = (tmp_path / "tools" / "generated" / "typescript" / "tools.ts").read_text(encoding="utf-8")

    assert 'export const WordCountName = "word_count";' in module
    assert "export type WordCountHandler = Handler<WordCountInput, WordCountOutput>;" in module
    assert "too_many_words: (params: { words: number; max_words: number; }, hint?: string)" in module
    assert 'import { handle as WordCountHandle } from "../../src/handlers/word_count.js";' in bound
    assert (tmp_path / "tools" / "generated" / "exports" / "vectors" / "word_count.json").is_file()


def _conform(folder: Path) -> subprocess.CompletedProcess[str]:
    command = ["conform", "--mcp", "node {project}/dist/src/server.js", "--project", str(folder)]
    return run([TOOLPROOF, *command], folder, timeout=600)


@pytest.mark.slow
def test_a_typescript_project_builds_strict_passes_its_npm_test_and_conform(
    tmp_path: Path, runtime_tarball: Path
) -> None:
    folder = tmp_path / "tools"
    _init(folder)
    package = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    package["dependencies"]["toolproof-runtime"] = f"file:{runtime_tarball}"
    (folder / "package.json").write_text(json.dumps(package, indent=2), encoding="utf-8")
    installed = run(["npm", "install", "--offline", "--cache", str(NPM_CACHE), "--no-audit", "--no-fund"], folder)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    tested = run(["npm", "test"], folder)
    conformed = _conform(folder)

    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "# pass 4" in tested.stdout
    assert conformed.returncode == 0, conformed.stdout + conformed.stderr
    assert "4 passed, 0 failed" in conformed.stdout

    handler = folder / "src" / "handlers" / "word_count.ts"
    handler.write_text(handler.read_text(encoding="utf-8").replace("words, characters", "words: words + 1, characters"))
    assert run(["npm", "run", "build"], folder).returncode == 0
    broken = _conform(folder)

    assert broken.returncode == 1
    assert "FAIL word_count: counts words and characters" in broken.stdout

    added = CliRunner().invoke(cli, ["new", "greet", "--project", str(folder)])
    assert added.exit_code == 0, added.output
    assert (folder / "src" / "handlers" / "greet.ts").is_file()
    built = run(["npm", "run", "build"], folder)
    assert built.returncode == 0, built.stdout + built.stderr
