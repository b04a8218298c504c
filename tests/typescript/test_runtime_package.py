"""The TypeScript runtime as an npm package of its own: built and packed here, installed from the tarball offline into
an empty project, imported by its name from JavaScript and from TypeScript compiled under strict."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from tests.typescript.conftest import NPM_CACHE, NPM_PROJECT, needs_node_tools, run
from toolproof import __version__
from toolproof.generator import runtime_package
from toolproof.generator.typescript import RUNTIME_PACKAGE, runtime_sources

pytestmark = pytest.mark.slow

NPM = ["npm", "--cache", str(NPM_CACHE), "--offline", "--no-audit", "--no-fund"]

CONSUMER = """\
import { SchemaValidator, Template } from "@toolproof/runtime";

const hello: string = new Template("Hello {name}: {count} item(s)").render({ name: "Ada", count: 2 });
const wrong = new SchemaValidator({ type: "object", required: ["n"] }).violations({});
console.log(JSON.stringify({ hello, wrong: wrong.length }));
"""


@pytest.fixture(scope="module")
def tarball(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``npm pack`` of the package folder ``runtime_package`` writes (its ``prepack`` compiles it with tsc)."""
    needs_node_tools()
    folder = tmp_path_factory.mktemp("package")
    for name, text in runtime_package().items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "node_modules").symlink_to(NPM_PROJECT)  # typescript and @types/node, to build it
    packed = run([*NPM, "pack", "--json"], folder)
    assert packed.returncode == 0, packed.stdout + packed.stderr
    (found,) = json.loads(packed.stdout)
    return folder / str(found["filename"])


def test_the_tarball_holds_the_compiled_runtime_its_declarations_and_sources(tarball: Path) -> None:
    with tarfile.open(tarball) as packed:
        names = set(packed.getnames())
        manifest = json.load(packed.extractfile("package/package.json"))  # type: ignore[arg-type]

    assert manifest["name"] == RUNTIME_PACKAGE and manifest["version"] == __version__
    for source in runtime_sources():
        stem = source.name.removesuffix(".ts")
        assert {f"package/src/{source.name}", f"package/build/{stem}.js", f"package/build/{stem}.d.ts"} <= names


def test_a_project_installs_the_tarball_offline_and_imports_it_from_javascript_and_strict_typescript(
    tarball: Path, tmp_path: Path
) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "package.json").write_text('{"name": "app", "private": true, "type": "module"}\n', encoding="utf-8")
    installed = run([*NPM, "install", str(tarball)], app)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    (app / "main.ts").write_text(CONSUMER, encoding="utf-8")
    config = {
        "compilerOptions": {
            "target": "ES2022",
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "strict": True,
            "exactOptionalPropertyTypes": True,
            "outDir": "build",
            "types": [],
        },
        "files": ["main.ts"],
    }
    (app / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")

    compiled = run([str(NPM_PROJECT / ".bin" / "tsc"), "-p", "tsconfig.json"], app)
    ran = run(["node", "build/main.js"], app)
    imported = run(["node", "-e", 'import("@toolproof/runtime").then(m => console.log(typeof m.Tool))'], app)

    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    assert json.loads(ran.stdout) == {"hello": "Hello Ada: 2 item(s)", "wrong": 1}, ran.stderr
    assert imported.stdout == "function\n", imported.stderr
