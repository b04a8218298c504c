"""``[tool.toolproof.publish]``: the server.json and MCPB manifest gen writes, held to their published schemas."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Final

import jsonschema
import pytest
from click.testing import CliRunner

from toolproof.cli import cli
from toolproof.generator.project import load_project
from toolproof.runtime.digests import LOCK_FILE

MINIMAL: Final = Path(__file__).parent / "cases" / "minimal" / "contracts" / "echo.yaml"
VENDORED: Final = Path(__file__).parent / "vendored"
PROJECT: Final = """\
[project]
name = "acme-echo"
version = "1.2.0"
description = "Echoes words back, for the tests."
authors = [{name = "Acme Tools", email = "tools@acme.example"}]
urls = {Repository = "https://github.com/acme/echo"}
"""
FULL: Final = """\
[tool.toolproof.publish]
formats = ["server.json", "mcpb"]
name = "io.github.acme/echo"
title = "Acme Echo"
remote = "https://tools.acme.example/mcp"
package-arguments = ["serve"]
"""


def _project(root: Path, settings: str, project: str = PROJECT) -> Path:
    (root / "contracts").mkdir(parents=True)
    shutil.copy(MINIMAL, root / "contracts" / "echo.yaml")
    (root / "pyproject.toml").write_text(f"{project}\n[tool.toolproof]\n\n{settings}", encoding="utf-8")
    return root


def _validator(name: str) -> jsonschema.Draft7Validator:
    schema = json.loads((VENDORED / name).read_text(encoding="utf-8"))
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)


def _rendered(root: Path) -> dict[str, Any]:
    project = load_project(root)
    assert project.ok, [str(p) for p in project.problems]
    files = project.render()
    return {
        name: json.loads(files[f"generated/{name}"])
        for name in ("server.json", "mcpb/manifest.json", LOCK_FILE)
        if f"generated/{name}" in files
    }


def test_server_json_is_valid_against_the_registrys_schema_and_pins_every_tool(tmp_path: Path) -> None:
    files = _rendered(_project(tmp_path, FULL))

    server = files["server.json"]
    assert sorted(e.message for e in _validator("server.schema.json").iter_errors(server)) == []
    assert server["name"] == "io.github.acme/echo"
    assert (server["version"], server["description"]) == ("1.2.0", "Echoes words back, for the tests.")
    assert server["repository"] == {"url": "https://github.com/acme/echo", "source": "github"}
    assert server["packages"][0]["identifier"] == "acme-echo"
    assert server["packages"][0]["packageArguments"] == [{"type": "positional", "value": "serve"}]
    assert server["remotes"] == [{"type": "streamable-http", "url": "https://tools.acme.example/mcp"}]
    pinned = {name: pin["digest"] for name, pin in files[LOCK_FILE]["tools"].items()}
    assert server["_meta"]["io.modelcontextprotocol.registry/publisher-provided"]["dev.toolproof/digests"] == pinned


def test_the_mcpb_manifest_is_valid_against_mcpbs_schema_and_lists_every_tool(tmp_path: Path) -> None:
    files = _rendered(_project(tmp_path, FULL))

    manifest = files["mcpb/manifest.json"]
    assert sorted(e.message for e in _validator("mcpb-manifest-v0.3.schema.json").iter_errors(manifest)) == []
    assert manifest["author"] == {"name": "Acme Tools", "email": "tools@acme.example"}
    assert manifest["display_name"] == "Acme Echo"
    assert [tool["name"] for tool in manifest["tools"]] == ["echo"]
    assert manifest["_meta"]["dev.toolproof/digests"]["echo"] == files[LOCK_FILE]["tools"]["echo"]["digest"]


def test_hostile_text_in_every_setting_still_gives_valid_json(tmp_path: Path) -> None:
    hostile = 'Say "hi" </script><!-- \u2028 ${__dirname} \\ \u0007 end'
    settings = FULL + f"author = {json.dumps(hostile + ' <a@b.example>')}\ndescription = {json.dumps(hostile)}\n"

    files = _rendered(_project(tmp_path, settings))

    assert files["mcpb/manifest.json"]["description"] == hostile
    assert files["server.json"]["description"] == hostile
    assert files["mcpb/manifest.json"]["author"]["name"] == hostile
    assert _validator("mcpb-manifest-v0.3.schema.json").is_valid(files["mcpb/manifest.json"])


def test_nothing_is_written_for_publishing_without_the_setting(tmp_path: Path) -> None:
    files = _rendered(_project(tmp_path, ""))

    assert sorted(files) == [LOCK_FILE]


def test_a_changed_setting_makes_the_written_files_stale_for_gen_check(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path, FULL)
    assert runner.invoke(cli, ["gen", "--project", str(root)]).exit_code == 0
    settings = root / "pyproject.toml"
    settings.write_text(settings.read_text(encoding="utf-8").replace("1.2.0", "1.3.0"), encoding="utf-8")

    check = runner.invoke(cli, ["gen", "--check", "--project", str(root)])

    assert check.exit_code == 1
    assert "generated/server.json" in check.output
    assert "generated/mcpb/manifest.json" in check.output


@pytest.mark.parametrize(
    ("settings", "project", "expected"),
    [
        (
            'formats = ["server.json", "dxt"]\nnmae = "x/y"\n',
            PROJECT,
            [
                "pyproject.toml:11:1: error [TP430] publish.formats must list formats from: server.json, mcpb",
                "pyproject.toml:12:1: error [TP430] publish: unknown setting 'nmae'; known: author, description,"
                " entry-point, formats, name, package, package-arguments, remote, repository, title, version, website",
            ],
        ),
        (
            'formats = ["server.json"]\nname = "echo"\n',
            PROJECT,
            [
                "pyproject.toml:12:1: error [TP431] publish.name: server.json 'echo' is not a registry name,"
                " namespace/name in reverse-DNS form (e.g. 'io.github.acme/weather'); set it in"
                " [tool.toolproof.publish]"
            ],
        ),
        (
            'formats = ["server.json", "mcpb"]\nname = "io.github.acme/echo"\n',
            "",
            [
                "pyproject.toml:4:1: error [TP434] publish.author: an MCPB manifest needs an author; set it"
                " ('Name <email>'), or [project] authors",
                "pyproject.toml:4:1: error [TP432] publish.description: server.json and MCPB need a description;"
                " set it, or [project] description",
                "pyproject.toml:4:1: error [TP435] publish.package: name the PyPI package that serves the tools;"
                " set it, or [project] name",
                "pyproject.toml:4:1: error [TP433] publish.version: server.json and MCPB need one exact version,"
                " and there is none (or it is dynamic); set it",
            ],
        ),
        (
            f'formats = ["server.json"]\nname = "io.github.acme/echo"\ndescription = "{"x" * 101}"\nversion = "^1.2"\n',
            PROJECT,
            [
                "pyproject.toml:13:1: error [TP432] publish.description: server.json allows 100 characters, this one"
                " has 101; set a shorter one in [tool.toolproof.publish]",
                "pyproject.toml:14:1: error [TP433] publish.version: server.json and MCPB need one exact version,"
                " and '^1.2' is a range, not a version; set it",
            ],
        ),
    ],
)
def test_each_setting_a_format_needs_and_lacks_is_a_located_lint_error(
    tmp_path: Path, settings: str, project: str, expected: list[str]
) -> None:
    root = _project(tmp_path, f"[tool.toolproof.publish]\n{settings}", project)

    found = [str(p) for p in load_project(root).problems if p.rule.id.startswith("TP43")]

    assert found == expected
