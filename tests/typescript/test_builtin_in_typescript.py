"""Issue 23's proof for the built-in contracts: `read_file_in_skill` and `get_skill` written in TypeScript from the
published contracts and the MCP export alone (builtin/server.ts, on toolproof's TypeScript runtime and the official
SDK) pass `toolproof conform` against the built-in contracts, with the `_meta` error extension and without it.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.typescript.conftest import NPM_PROJECT, needs_node_tools, run
from toolproof.generator.typescript import runtime_sources

pytestmark = pytest.mark.slow

TOOLPROOF = str(Path(sys.executable).parent / "toolproof")
HERE = Path(__file__).parent / "builtin"
TOOLS = ("read_file_in_skill", "get_skill")
EXPORTS = Path(__file__).parents[2] / "toolproof" / "builtin" / "generated" / "exports"
"""The built-in tools' exports, as `toolproof export --format contract` / `--format mcp` print them."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server built under strict, beside the published contracts and the MCP definitions it reads."""
    needs_node_tools()
    folder = tmp_path_factory.mktemp("builtin-ts")
    (folder / "runtime").mkdir()
    for source in runtime_sources():
        (folder / "runtime" / source.name).write_text(source.text, encoding="utf-8")
    (folder / "src").mkdir()
    shutil.copy(HERE / "server.ts", folder / "src")
    shutil.copy(HERE / "tsconfig.json", folder)
    (folder / "package.json").write_text('{"type": "module"}\n', encoding="utf-8")
    (folder / "node_modules").symlink_to(NPM_PROJECT)
    published = folder / "published"
    published.mkdir()
    for tool in TOOLS:
        shutil.copy(EXPORTS / "contract" / f"{tool}.json", published)
    shutil.copy(EXPORTS / "mcp" / "all.json", published / "mcp.json")
    built = run([str(NPM_PROJECT / ".bin" / "tsc"), "-p", "tsconfig.json"], folder)
    assert built.returncode == 0, built.stdout + built.stderr
    return folder


def _examples(tool: str) -> int:
    return len(json.loads((EXPORTS / "contract" / f"{tool}.json").read_text(encoding="utf-8"))["examples"])


@pytest.mark.parametrize("meta", ["", " --no-meta"], ids=["with _meta", "without _meta"])
def test_the_typescript_skill_tools_pass_conform_against_the_builtin_contracts(server: Path, meta: str) -> None:
    tools = [arg for tool in TOOLS for arg in ("--tool", tool)]
    command = f"node {server}/build/src/server.js --skills {{skills}}{meta}"

    done = run([TOOLPROOF, "conform", "--mcp", command, *tools], server, timeout=900)

    total = sum(_examples(tool) for tool in TOOLS)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert f"\n{total} passed, 0 failed\n" in done.stdout
    assert "toolproof built-in tools: 2 tool(s) checked (2 listed by the server)" in done.stdout
