"""`toolproof init` writes a project that passes its own checks; `toolproof new` a tool that fails until written."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Final

import pytest
import yaml
from click.testing import CliRunner

from toolproof import __version__
from toolproof.cli import cli
from toolproof.generator.scaffold import ScaffoldError, init_project

WHEELHOUSE: Final = Path(sys.prefix) / "wheelhouse"
"""Where the Makefile's set-up puts the wheels a build needs offline (setuptools among them)."""


def _run(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env_free = {"PATH": "/usr/bin:/bin", "HOME": str(cwd)}
    return subprocess.run(
        [sys.executable, *argv], cwd=cwd, capture_output=True, text=True, timeout=120, check=False, env=env_free
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("scaffold") / "my-tools"
    result = CliRunner().invoke(cli, ["init", str(folder)])
    assert result.exit_code == 0, result.output
    return folder


def test_init_writes_the_settings_the_contract_the_handler_and_the_generated_package(project: Path) -> None:
    settings = (project / "pyproject.toml").read_text(encoding="utf-8")

    assert 'name = "my-tools"' in settings and "[tool.toolproof]" in settings
    for path in (
        "contracts/word_count.yaml",
        "handlers/word_count.py",
        "generated/word_count.py",
        "Makefile",
        "contracts/glossary.yaml",
        "handlers/glossary.py",
        "contracts/count_request.yaml",
    ):
        assert (project / path).is_file(), path
    assert (project / "generated" / "tests" / "test_word_count.py").is_file()


def test_init_pins_the_toolproof_that_stamped_the_generated_files(project: Path) -> None:
    settings = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))

    assert settings["project"]["dependencies"] == [f"toolproof=={__version__}"]
    assert f"by toolproof {__version__}" in (project / "generated" / "word_count.py").read_text(encoding="utf-8")


def test_an_initialised_project_builds_into_a_wheel_of_its_dependencies_alone(project: Path, tmp_path: Path) -> None:
    """`pip install .` works: no flat-layout discovery of contracts/, generated/ and handlers/, the pin as metadata."""
    if not any(WHEELHOUSE.glob("setuptools-*.whl")):
        pytest.fail(f"no setuptools wheel in {WHEELHOUSE} to build offline with; `make gen` fetches it", pytrace=False)
    source = Path(shutil.copytree(project, tmp_path / "my-tools"))  # a build writes build/ and *.egg-info/
    offline = ["--quiet", "--no-deps", "--no-index", "--find-links", str(WHEELHOUSE)]

    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", *offline, "--wheel-dir", str(tmp_path / "dist"), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read("my_tools-0.1.0.dist-info/METADATA").decode("utf-8")
    assert all(name.startswith("my_tools-0.1.0.dist-info/") for name in names), names
    assert f"Requires-Dist: toolproof=={__version__}\n" in metadata
    assert {"build/", "*.egg-info/"} <= set((project / ".gitignore").read_text(encoding="utf-8").splitlines())


def test_an_initialised_project_passes_its_own_checks(project: Path) -> None:
    check = CliRunner().invoke(cli, ["gen", "--check", "--project", str(project)])
    lint = CliRunner().invoke(cli, ["lint", "--project", str(project)])
    tests = _run("-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=project)

    assert check.exit_code == 0, check.output
    assert lint.exit_code == 0, lint.output
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "26 passed" in tests.stdout  # the tool's, the resource's and the prompt's examples, properties, fuzz


def test_an_initialised_project_lints_without_a_loss_note_in_text_or_github(project: Path) -> None:
    text = CliRunner().invoke(cli, ["lint", "--project", str(project)])
    github = CliRunner().invoke(cli, ["lint", "--format", "github", "--project", str(project)])

    assert (text.exit_code, text.stdout, text.stderr) == (0, "3 contract(s) OK\n", "")
    assert (github.exit_code, github.stdout, github.stderr) == (0, "", "")


def test_init_accepts_only_the_losses_it_cannot_avoid_each_with_its_reason(project: Path) -> None:
    lines = (project / "pyproject.toml").read_text(encoding="utf-8").splitlines()
    settings = tomllib.loads("\n".join(lines))

    accepted = settings["tool"]["toolproof"]["export"]["accept-losses"]
    assert sorted(accepted) == ["anthropic", "gemini-openapi", "openai", "openai-responses"]
    assert all("*:output:output" in entries for entries in accepted.values())
    listed = [line for line in lines if line.startswith('    "*:')]
    assert len(listed) == sum(len(entries) for entries in accepted.values())
    assert all('",  # ' in line for line in listed), listed


def test_an_initialised_project_serves_its_tool(project: Path) -> None:
    called = _run("-m", "toolproof", "call", "word_count", "--args", '{"text": "to be"}', cwd=project)

    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout) == {
        "ok": True,
        "output": {"words": 2, "characters": 5},
        "error": None,
        "text": "2 words, 5 characters",
    }


def test_an_initialised_project_serves_its_resource_and_prompt_over_mcp(project: Path) -> None:
    requests = [
        (
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        ),
        ("resources/templates/list", {}),
        ("resources/read", {"uri": "glossary://word"}),
        ("prompts/get", {"name": "count_request", "arguments": {"text": "a b", "unit": "words"}}),
        (
            "completion/complete",
            {"ref": {"type": "ref/prompt", "name": "count_request"}, "argument": {"name": "unit", "value": "w"}},
        ),
    ]
    lines = "".join(
        json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n"
        for i, (method, params) in enumerate(requests)
    )

    served = subprocess.run(
        [sys.executable, "-m", "toolproof", "serve", "mcp"],
        input=lines,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin", "HOME": str(project)},
    )

    answers = [json.loads(line)["result"] for line in served.stdout.splitlines()]
    assert answers[0]["capabilities"]["resources"] == {"subscribe": False, "listChanged": False}
    assert [t["uriTemplate"] for t in answers[1]["resourceTemplates"]] == ["glossary://{term}"]
    assert answers[2]["contents"] == [
        {
            "uri": "glossary://word",
            "mimeType": "text/markdown",
            "text": "# word\n\nA run of characters between white space.\n",
        }
    ]
    assert answers[3]["messages"][0]["content"]["text"] == "How many words has this text? Use word_count.\n\na b"
    assert answers[4]["completion"] == {"values": ["words"], "total": 1, "hasMore": False}


def test_init_refuses_to_overwrite_a_project(project: Path) -> None:
    result = CliRunner().invoke(cli, ["init", str(project)])

    assert result.exit_code == 2
    assert "pyproject.toml exists already; nothing was written: this folder is a toolproof project already" in (
        result.stderr
    )


def test_a_new_tool_fails_its_generated_tests_until_its_handler_is_written(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    assert CliRunner().invoke(cli, ["init", str(folder)]).exit_code == 0

    added = CliRunner().invoke(cli, ["new", "greet-people", "--project", str(folder)])
    assert added.exit_code == 0, added.output
    assert (folder / "contracts" / "greet_people.yaml").is_file()
    failing = _run("-m", "pytest", "-q", "-p", "no:cacheprovider", "generated/tests/test_greet_people.py", cwd=folder)
    assert failing.returncode == 1
    assert "2 failed" in failing.stdout

    (folder / "handlers" / "greet_people.py").write_text(
        "from generated import greet_people as contract\n"
        "from toolproof.runtime import ToolContext\n\n\n"
        "def handle(args: contract.GreetPeopleInput, ctx: ToolContext) -> contract.GreetPeopleOutput:\n"
        "    if not args['text']:\n"
        "        raise contract.refused(text=args['text'])\n"
        "    return {'result': args['text']}\n",
        encoding="utf-8",
    )
    passing = _run("-m", "pytest", "-q", "-p", "no:cacheprovider", "generated/tests/test_greet_people.py", cwd=folder)
    assert passing.returncode == 0, passing.stdout
    assert "2 passed" in passing.stdout


@pytest.mark.parametrize("name", ["9lives", "has space", "x" * 65, "../escape"])
def test_new_refuses_a_name_that_is_no_tool_name(project: Path, name: str) -> None:
    result = CliRunner().invoke(cli, ["new", name, "--project", str(project)])

    assert result.exit_code == 2
    assert f"{name!r} is not a tool name" in result.stderr


def test_gen_and_new_need_a_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLPROOF_PROJECT", raising=False)

    result = CliRunner().invoke(cli, ["gen"])

    assert result.exit_code == 2
    assert "`toolproof gen` needs a project" in result.stderr


def test_new_refuses_the_name_of_an_included_built_in_tool_before_writing(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    assert CliRunner().invoke(cli, ["init", str(folder)]).exit_code == 0
    settings = folder / "pyproject.toml"
    settings.write_text(
        settings.read_text(encoding="utf-8").replace('# include = ["gateway"]', 'include = ["gateway"]'),
        encoding="utf-8",
    )

    result = CliRunner().invoke(cli, ["new", "read_file", "--project", str(folder)])

    assert result.exit_code == 2
    assert "'read_file' is the built-in tool of set gateway, which the project includes; pick another name" in (
        result.stderr
    )
    assert not (folder / "contracts" / "read_file.yaml").exists()


def test_a_one_shot_call_binds_only_its_tool_so_a_broken_neighbour_does_not_stop_it(tmp_path: Path) -> None:
    """`call` imports the one handler it runs; the broken one is still named when it is the one called."""
    folder = tmp_path / "proj"
    assert CliRunner().invoke(cli, ["init", str(folder)]).exit_code == 0
    assert CliRunner().invoke(cli, ["new", "broken-tool", "--project", str(folder)]).exit_code == 0
    (folder / "handlers" / "broken_tool.py").write_text("raise RuntimeError('not written yet')\n", encoding="utf-8")

    good = _run("-m", "toolproof", "call", "word_count", "--args", '{"text": "to be"}', cwd=folder)
    broken = _run("-m", "toolproof", "call", "broken-tool", "--args", '{"text": "x"}', cwd=folder)

    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["output"] == {"words": 2, "characters": 5}
    assert broken.returncode == 2 and "Traceback" not in broken.stderr  # the call cannot be made
    assert "contract 'broken-tool'" in broken.stderr and "not written yet" in broken.stderr


def test_scaffolded_refusals_are_403_as_fuzzers_expect_of_schema_valid_requests(tmp_path: Path) -> None:
    """schemathesis (ST202) flags a 422 for a request the schema allows; init's and new's errors must not teach it."""
    project = tmp_path / "tools"
    assert CliRunner().invoke(cli, ["init", str(project)]).exit_code == 0
    added = CliRunner().invoke(cli, ["new", "greet", "--project", str(project)])
    assert added.exit_code == 0, added.output

    tools = [c for c in (project / "contracts").glob("*.yaml") if "kind" not in yaml.safe_load(c.read_text("utf-8"))]
    assert sorted(c.stem for c in tools) == ["greet", "word_count"]  # resources and prompts are not REST routes
    for contract in tools:
        errors = yaml.safe_load(contract.read_text(encoding="utf-8"))["errors"]
        assert errors and {entry.get("status") for entry in errors.values()} == {403}, contract.name


def test_init_in_a_python_project_says_how_to_make_it_a_toolproof_one(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "shop"\n', encoding="utf-8")

    with pytest.raises(ScaffoldError) as refused:
        init_project(tmp_path)

    assert "add an empty [tool.toolproof] table to its pyproject.toml" in str(refused.value)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pyproject.toml"]  # nothing written


def test_init_in_a_toolproof_project_points_to_new(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.toolproof]\n", encoding="utf-8")

    with pytest.raises(ScaffoldError, match="a toolproof project already; `toolproof new TOOL` adds a tool"):
        init_project(tmp_path)
