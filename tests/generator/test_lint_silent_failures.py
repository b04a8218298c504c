"""Mistakes serve or a validator would pass over in silence, which lint, gen and gen --check name where they stand.

A contract whose handler is not there (TP409), a ``needs`` naming no resource the project's factories supply
(TP410) and ``$ref``\\ s that loop through no constraint, so that any value passes (TP214). Lint reads the
project's handlers and resource factories and runs none of their code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pytest
from click.testing import CliRunner

from toolproof.cli import cli

MINIMAL: Final = Path(__file__).parent / "cases" / "minimal" / "contracts" / "echo.yaml"
HANDLER: Final = "def handle(args, ctx):\n    return {'echo': args['word']}\n"
HOST: Final = """\
from typing import ClassVar

from db import Database


class Clock:
    resource: ClassVar[str] = "clock"


def resources(options):
    return [Database(), Clock()]
"""
DB: Final = 'class Database:\n    resource = "database"\n'


def _project(root: Path, files: dict[str, str], *, settings: str = "", contract: str | None = None) -> Path:
    """A project of the minimal echo contract (or ``contract``), these files (by path) and these settings."""
    (root / "contracts").mkdir(parents=True)
    text = MINIMAL.read_text(encoding="utf-8") if contract is None else contract
    (root / "contracts" / "echo.yaml").write_text(text, encoding="utf-8")
    (root / "pyproject.toml").write_text(f"[tool.toolproof]\n{settings}", encoding="utf-8")
    for path, body in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(body, encoding="utf-8")
    return root


def _with(before: str, after: str) -> str:
    text = MINIMAL.read_text(encoding="utf-8")
    assert before in text
    return text.replace(before, after, 1)


# -- a contract without a handler (TP409) ---------------------------------------------------------------------------


def test_lint_reports_a_contract_whose_handler_module_is_missing_at_the_contract(
    runner: CliRunner, tmp_path: Path
) -> None:
    root = _project(tmp_path / "proj", {"handlers/__init__.py": "", "handlers/_shared.py": ""})

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "contracts/echo.yaml:1:7: error [TP409] contract 'echo' has no handler handlers.echo:handle: no module"
        " handlers.echo (no handlers/echo.py); write it, or name the function that serves the tool in `handler:`"
        " (serve refuses the project)",
        "1 error(s), 0 warning(s) in contracts",
    ]


@pytest.mark.parametrize("check", [[], ["--check"]])
def test_gen_and_gen_check_refuse_a_contract_without_a_handler_instead_of_saying_ok(
    runner: CliRunner, tmp_path: Path, check: list[str]
) -> None:
    root = _project(tmp_path / "proj", {"handlers/__init__.py": ""})

    result = runner.invoke(cli, ["gen", *check, "--project", str(root)])

    assert result.exit_code == 1
    assert "error [TP409] contract 'echo' has no handler handlers.echo:handle" in result.stderr
    assert "contract(s) OK" not in result.stdout
    assert not (root / "generated").exists()


def test_a_misspelled_handler_function_is_reported_at_the_handler_key_with_a_did_you_mean(
    runner: CliRunner, tmp_path: Path
) -> None:
    contract = _with("version: 0.1.0\n", "version: 0.1.0\nhandler: handlers.echo:hadle\n")
    root = _project(tmp_path / "proj", {"handlers/__init__.py": "", "handlers/echo.py": HANDLER}, contract=contract)

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert (
        "contracts/echo.yaml:3:10: error [TP409] contract 'echo' has no handler handlers.echo:hadle: handlers.echo"
        " defines no 'hadle' (did you mean 'handle'?); write it, or name the function that serves the tool in"
        " `handler:` (serve refuses the project)"
    ) in result.stderr.splitlines()


@pytest.mark.parametrize(("ref", "word"), [("handlers.class.x:handle", "class"), ("handlers.echo:lambda", "lambda")])
def test_a_handler_named_by_a_python_keyword_is_refused_before_gen_writes_a_test_that_cannot_import(
    runner: CliRunner, tmp_path: Path, ref: str, word: str
) -> None:
    contract = _with("version: 0.1.0\n", f"version: 0.1.0\nhandler: {ref}\n")
    root = _project(tmp_path / "proj", {"handlers/__init__.py": "", "handlers/echo.py": HANDLER}, contract=contract)

    linted = runner.invoke(cli, ["lint", "--project", str(root)])
    generated = runner.invoke(cli, ["gen", "--project", str(root)])

    assert linted.exit_code == 1
    assert (
        f"contracts/echo.yaml:3:10: error [TP409] contract 'echo' has no handler {ref}: '{word}' is a Python keyword,"
        " which no module or function can be named (the generated tests would not import); write it, or name the"
        " function that serves the tool in `handler:` (serve refuses the project)"
    ) in linted.stderr.splitlines()
    assert generated.exit_code != 0
    assert not (root / "generated").exists()


def test_a_handler_module_that_does_not_parse_is_reported(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", {"handlers/__init__.py": "", "handlers/echo.py": "def handle(args, ctx)\n"})

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert "has no handler handlers.echo:handle: handlers.echo does not parse (line 1: " in result.stderr


def test_lint_judges_handlers_without_running_their_code(runner: CliRunner, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    touch = f"from pathlib import Path\nPath({str(marker)!r}).touch()\n"
    root = _project(tmp_path / "proj", {"handlers/__init__.py": touch, "handlers/echo.py": touch + HANDLER})

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 0, result.stderr
    assert "TP409" not in result.stderr
    assert not marker.exists()


@pytest.mark.parametrize(
    "module",
    [
        "from handlers._impl import *\n",  # a star import may bind it
        "def __getattr__(name):\n    return lambda args, ctx: {'echo': ''}\n",
        "try:\n    from fast import handle\nexcept ImportError:\n    from handlers._impl import handle\n",
    ],
    ids=["star-import", "module-getattr", "bound-in-try"],
)
def test_a_handler_bound_where_lint_cannot_or_can_see_it_is_not_called_missing(
    runner: CliRunner, tmp_path: Path, module: str
) -> None:
    files = {"handlers/__init__.py": "", "handlers/_impl.py": HANDLER, "handlers/echo.py": module}
    root = _project(tmp_path / "proj", files)

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert "TP409" not in result.stderr


def test_a_handler_under_a_source_root_is_found_there(runner: CliRunner, tmp_path: Path) -> None:
    files = {"src/handlers/__init__.py": "", "src/handlers/echo.py": HANDLER}
    root = _project(tmp_path / "proj", files, settings='source-roots = ["src"]\n')

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 0, result.stderr


# -- a need no resource supplies (TP410) ----------------------------------------------------------------------------

RESOURCES: Final = 'resources = ["host:resources"]\n'


def _needing(*needs: str) -> str:
    return _with("version: 0.1.0\n", f"version: 0.1.0\nneeds: [{', '.join(needs)}]\n")


def test_a_misspelled_need_is_an_error_at_the_entry_with_a_did_you_mean(runner: CliRunner, tmp_path: Path) -> None:
    files = {"handlers/echo.py": HANDLER, "host.py": HOST, "db.py": DB}
    root = _project(tmp_path / "proj", files, settings=RESOURCES, contract=_needing("clock", "databse"))

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "contracts/echo.yaml:3:16: error [TP410] needs 'databse', which no resource of the project's factories"
        " (host:resources) is named (did you mean 'database'?); serve would leave tool 'echo' out",
        "1 error(s), 0 warning(s) in contracts",
    ]


def test_needs_that_the_factories_supply_lint_clean_read_without_running_them(
    runner: CliRunner, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    touch = f"from pathlib import Path\nPath({str(marker)!r}).touch()\n"
    files = {"handlers/echo.py": HANDLER, "host.py": touch + HOST, "db.py": touch + DB}
    root = _project(tmp_path / "proj", files, settings=RESOURCES, contract=_needing("database", "clock"))

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 0, result.stderr
    assert "TP410" not in result.stderr
    assert not marker.exists()


def test_a_need_the_included_tool_sets_resources_supply_lints_clean(runner: CliRunner, tmp_path: Path) -> None:
    files = {"handlers/echo.py": HANDLER}
    settings = 'include = ["aintern"]\n'
    root = _project(tmp_path / "proj", files, settings=settings, contract=_needing("workspace"))

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 0, result.stderr
    assert "TP410" not in result.stderr


def test_a_misspelled_handlers_setting_is_reported_at_the_setting(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", {"handlers/echo.py": HANDLER}, settings='handlers = "handlerz"\n')

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        "pyproject.toml:2:1: error [TP409] handlers = 'handlerz' names no package: there is no handlerz/ in the"
        " project and none installed; name the package that holds your handlers, or create it"
    )


def test_a_handlers_setting_naming_a_plain_module_is_reported_at_each_contract(
    runner: CliRunner, tmp_path: Path
) -> None:
    root = _project(tmp_path / "proj", {"handlers/echo.py": HANDLER}, settings='handlers = "os"\n')

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        "contracts/echo.yaml:1:7: error [TP409] contract 'echo' has no handler os.echo:handle: no module os.echo"
        " (no os/echo.py); write it, or name the function that serves the tool in `handler:` (serve refuses the"
        " project)"
    )


def test_a_project_of_contracts_alone_lints_clean_for_a_team_serving_them_in_another_language(
    runner: CliRunner, tmp_path: Path
) -> None:
    root = _project(tmp_path / "proj", {})

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 0, result.stderr
    assert "TP409" not in result.stderr


def test_binding_handlers_from_a_plain_module_is_a_registry_error_not_an_internal_error() -> None:
    import dataclasses

    from toolproof.runtime.errors import RegistryError
    from toolproof.runtime.registry import bind
    from toolproof.runtime.spec import load_specs

    spec = dataclasses.replace(load_specs()[0], handler="os.file_read:handle")

    with pytest.raises(RegistryError, match="'os' is not a package"):
        bind([spec], handlers_package="os")


@pytest.mark.parametrize(
    ("factory", "why"),
    [
        ("host:nope", "host defines no 'nope'"),
        ("host:resorces", "host defines no 'resorces' (did you mean 'resources'?)"),
        ("hots:resources", "no module hots (no hots.py or hots/ in the project, and none installed)"),
    ],
)
def test_a_resource_factory_that_is_not_there_is_an_error_at_its_setting(
    runner: CliRunner, tmp_path: Path, factory: str, why: str
) -> None:
    files = {"handlers/echo.py": HANDLER, "host.py": HOST, "db.py": DB}
    root = _project(tmp_path / "proj", files, settings=f'resources = ["{factory}"]\n')

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"pyproject.toml:2:14: error [TP411] resource factory {factory} is not there: {why}; serve, call and"
        " conform would refuse the project"
    )


def test_a_provider_limit_of_a_format_the_project_does_not_export_only_warns(runner: CliRunner, tmp_path: Path) -> None:
    contract = _with("    word: {type: string", "    user-id: {type: string}\n    word: {type: string")
    root = _project(tmp_path / "proj", {"handlers/echo.py": HANDLER}, contract=contract)
    exported = _project(
        tmp_path / "exported",
        {"handlers/echo.py": HANDLER},
        contract=contract,
        settings='exports = ["gemini-openapi"]\n',
    )

    quiet = runner.invoke(cli, ["lint", "--project", str(root)])
    loud = runner.invoke(cli, ["lint", "--project", str(exported)])

    assert quiet.exit_code == 0, quiet.stderr
    assert "warning [TP403] provider limit: gemini-openapi:" in quiet.stderr
    assert "the project does not export gemini-openapi (setting `exports`), so this only warns" in quiet.stderr
    assert loud.exit_code == 1
    assert "error [TP403] provider limit: gemini-openapi:" in loud.stderr


def test_the_built_in_resource_names_lint_knows_are_those_the_built_in_factory_supplies(tmp_path: Path) -> None:
    from toolproof.builtin.handlers._resources import resources
    from toolproof.runtime.host import BUILTIN_RESOURCE_NAMES, HostOptions

    options = HostOptions(workspace=(tmp_path,), skills=(tmp_path,), gate_secret=b"k" * 32, audit=print)

    assert {type(resource).resource for resource in resources(options)} == BUILTIN_RESOURCE_NAMES  # type: ignore[attr-defined]


def test_a_factory_reusing_a_built_in_resource_class_supplies_its_name(runner: CliRunner, tmp_path: Path) -> None:
    host = "from toolproof.builtin.files.workspace import Workspace\n\n\ndef resources(options):\n    return []\n"
    files = {"handlers/echo.py": HANDLER, "host.py": host}
    root = _project(tmp_path / "proj", files, settings=RESOURCES, contract=_needing("workspace", "wrkspace"))

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert "needs 'wrkspace'" in result.stderr and "did you mean 'workspace'?" in result.stderr
    assert "needs 'workspace'" not in result.stderr


def test_a_need_of_a_project_without_resource_factories_is_a_warning(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", {"handlers/echo.py": HANDLER}, contract=_needing("database"))

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[0] == (
        "contracts/echo.yaml:3:9: warning [TP410] needs 'database', but the project has no resource factories"
        " (setting `resources`): serve, call and conform leave tool 'echo' out; only a host that builds its own"
        " resources serves it"
    )


# -- a $ref loop that accepts anything (TP214) ----------------------------------------------------------------------

LOOP: Final = """\
    word: {$ref: "#/$defs/Word"}
  required: [word]
  additionalProperties: false
  $defs:
    Word: {$ref: "#/$defs/Text"}
    Text: {$ref: "#/$defs/Word", description: Any text.}
"""


def test_lint_reports_a_ref_loop_that_accepts_anything_at_the_ref(runner: CliRunner, tmp_path: Path) -> None:
    contract = _with(
        "    word: {type: string, minLength: 1, description: The word to echo.}\n"
        "  required: [word]\n  additionalProperties: false\n",
        LOOP,
    )
    root = _project(tmp_path / "proj", {"handlers/echo.py": HANDLER}, contract=contract)

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "contracts/echo.yaml:13:18: error [TP214] $ref '#/$defs/Text' leads back here ('#/$defs/Text' ->"
        " '#/$defs/Word') and no schema on the way constrains a value: it accepts anything; give one of them a"
        " constraint (a type, properties) or point the $ref at a real schema",
        "1 error(s), 0 warning(s) in contracts",
    ]


def test_a_recursive_schema_through_a_constraint_is_no_loop(runner: CliRunner, tmp_path: Path) -> None:
    tree = LOOP.replace('Text: {$ref: "#/$defs/Word", description: Any text.}', "Text: {type: string, minLength: 1}")
    tree += "    Node: {type: object, properties: {next: {$ref: '#/$defs/Node'}}}\n"
    contract = _with(
        "    word: {type: string, minLength: 1, description: The word to echo.}\n"
        "  required: [word]\n  additionalProperties: false\n",
        tree,
    )
    root = _project(tmp_path / "proj", {"handlers/echo.py": HANDLER}, contract=contract)

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert "TP214" not in result.stderr, result.stderr
