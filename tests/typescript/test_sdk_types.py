"""The generated TypeScript of every built-in and golden contract (modules, provider definitions and the `.d.ts`
exports) compiles under `tsc --strict` with `exactOptionalPropertyTypes` against the official MCP, OpenAI and
Anthropic SDK types."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from tests.typescript.conftest import NPM_PROJECT, needs_node_tools, run
from toolproof.generator.project import config_for, load_project
from toolproof.generator.render import render_all
from toolproof.runtime.project import EXPORT_FORMATS, builtin_project

REPO = Path(__file__).parents[2]
CASES = REPO / "tests" / "generator" / "cases"
TSCONFIG = """\
{
  "compilerOptions": {
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true,
    "exactOptionalPropertyTypes": true, "noUncheckedIndexedAccess": true, "noEmit": true, "skipLibCheck": true,
    "types": ["node"]
  },
  "include": [
    "*/generated/typescript/*.ts", "*/generated/typescript/providers/*.ts", "*/generated/exports/typescript/*.d.ts"
  ]
}
"""


def _write(folder: Path, config_root: Path | None) -> None:
    """Gen's TypeScript of one project (its own contracts), every export format on, into ``folder``."""
    config = builtin_project() if config_root is None else config_for(config_root)
    project = load_project(config)
    assert project.ok, [str(p) for p in project.problems]
    layout = dataclasses.replace(project.layout, folder="generated", languages=("typescript",), exports=EXPORT_FORMATS)
    files = render_all(project.contracts, project.enum_sources(), layout, project.builtin, project.exports())
    for path, text in files.items():
        wanted = path.startswith(("generated/typescript/", "generated/exports/typescript/"))
        if wanted and not path.endswith("/tools.ts"):  # tools.ts needs the project's handlers
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_text(text, encoding="utf-8")


@pytest.mark.slow
def test_every_generated_module_and_provider_definition_compiles_against_the_sdk_types_and_a_wrong_one_does_not(
    tmp_path: Path,
) -> None:
    needs_node_tools()
    _write(tmp_path / "builtin", None)
    for case in sorted(p for p in CASES.iterdir() if (p / "toolproof.toml").is_file()):
        _write(tmp_path / case.name, case)
    providers = tmp_path / "builtin" / "generated" / "typescript" / "providers"
    anthropic = (providers / "anthropic.ts").read_text(encoding="utf-8")
    (providers / "wrong.ts").write_text(anthropic.replace('"input_schema"', '"inputSchema"', 1), encoding="utf-8")
    (tmp_path / "tsconfig.json").write_text(TSCONFIG, encoding="utf-8")
    (tmp_path / "node_modules").symlink_to(NPM_PROJECT)

    done = run([str(NPM_PROJECT / ".bin" / "tsc"), "-p", "tsconfig.json"], tmp_path)

    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.glob("*/generated/typescript/providers/*"))
    assert written == sorted(
        [
            *(
                f"{case}/generated/typescript/providers/{fmt}.ts"
                for case in ["builtin", *(p.name for p in CASES.iterdir() if (p / "toolproof.toml").is_file())]
                for fmt in ("anthropic", "openai", "openai-responses")
            ),
            "builtin/generated/typescript/providers/wrong.ts",
        ]
    )
    errors = re.findall(r"^(\S+?)\(\d+,\d+\): error (TS\d+)", done.stdout, re.MULTILINE)
    assert done.returncode == 2, done.stdout + done.stderr
    assert errors == [("builtin/generated/typescript/providers/wrong.ts", "TS2353")], done.stdout
