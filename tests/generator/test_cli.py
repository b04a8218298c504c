"""The gen and lint commands, driven through click's runner."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolproof.cli import cli

MINIMAL = Path(__file__).parent / "cases" / "minimal" / "contracts" / "echo.yaml"


def _project(tmp_path: Path) -> Path:
    (tmp_path / "contracts").mkdir()
    shutil.copy(MINIMAL, tmp_path / "contracts" / "echo.yaml")
    return tmp_path


def test_gen_writes_then_check_passes(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)

    written = runner.invoke(cli, ["gen", "--project", str(root)])
    checked = runner.invoke(cli, ["gen", "--check", "--project", str(root)])

    assert written.exit_code == 0, written.output
    assert "wrote generated/echo.py" in written.output
    assert checked.exit_code == 0
    assert "generated/ is up to date (1 contract(s))" in checked.output


def test_gen_is_idempotent(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)
    runner.invoke(cli, ["gen", "--project", str(root)])

    again = runner.invoke(cli, ["gen", "--project", str(root)])

    assert again.exit_code == 0
    assert "0 file(s) changed" in again.output


def test_check_names_stale_missing_and_orphaned_files(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)
    runner.invoke(cli, ["gen", "--project", str(root)])
    contract = root / "contracts" / "echo.yaml"
    contract.write_text(
        contract.read_text(encoding="utf-8").replace("Echo a word back.", "Echo one word."), encoding="utf-8"
    )
    (root / "generated" / "tests" / "test_echo.py").unlink()
    shutil.copy(root / "generated" / "echo.py", root / "generated" / "leftover.py")  # once written by gen

    result = runner.invoke(cli, ["gen", "--check", "--project", str(root)])

    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert "stale: generated/echo.py" in lines
    assert "stale: generated/exports/openai/all.json" in lines
    assert "stale: generated/MANIFEST.json" in lines
    assert "missing: generated/tests/test_echo.py" in lines
    assert "orphaned: generated/leftover.py" in lines
    assert (root / "generated" / "leftover.py").exists(), "--check must write nothing"


def test_gen_removes_orphans(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)
    shout = MINIMAL.read_text(encoding="utf-8").replace("name: echo", "name: shout")
    (root / "contracts" / "shout.yaml").write_text(shout, encoding="utf-8")
    runner.invoke(cli, ["gen", "--project", str(root)])
    (root / "contracts" / "shout.yaml").unlink()
    (root / "generated" / "old").mkdir()
    shutil.move(root / "generated" / "shout.py", root / "generated" / "old" / "gone.py")

    result = runner.invoke(cli, ["gen", "--project", str(root)])

    assert result.exit_code == 0, result.output
    assert "removed generated/contracts/shout.json" in result.output  # JSON: listed in the MANIFEST
    assert "removed generated/tests/test_shout.py" in result.output  # text: carries the header
    assert "removed generated/old/gone.py" in result.output
    assert not (root / "generated" / "old").exists()
    assert not (root / "generated" / "contracts" / "shout.json").exists()


def test_gen_refuses_to_write_when_a_contract_is_invalid(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "contracts" / "broken.yaml").write_text("name: [\n", encoding="utf-8")

    result = runner.invoke(cli, ["gen", "--project", str(root)])

    assert result.exit_code == 1
    assert "contracts/broken.yaml:2:1: error [TP002] YAML syntax error" in result.stderr
    assert not (root / "generated").exists()


def test_lint_prints_every_problem_and_exits_1(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)
    text = MINIMAL.read_text(encoding="utf-8")
    (root / "contracts" / "echo.yaml").write_text(
        text.replace("input: {word: hi}", "input: {word: 1}"), encoding="utf-8"
    )

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert (
        "contracts/echo.yaml:25:19: error [TP304] example input breaks the input schema: $.word: expected string, "
        "got integer" in result.stderr
    )
    assert "Traceback" not in result.output


def test_lint_passes_on_good_contracts(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(cli, ["lint", "--project", str(_project(tmp_path))])

    assert result.exit_code == 0
    assert "1 contract(s) OK" in result.output


def test_a_missing_project_folder_is_reported_without_a_traceback(runner: CliRunner, tmp_path: Path) -> None:
    nope = tmp_path / "nope"
    result = runner.invoke(cli, ["lint", "--project", str(nope)])

    assert result.exit_code == 2
    assert result.stderr == (
        f"toolproof: {nope}: is not a toolproof project (no [tool.toolproof] in pyproject.toml, no toolproof.toml)\n"
    )


def test_lint_help_documents_the_exit_codes(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["lint", "--help"])

    text = " ".join(result.output.split())
    assert (
        "Exit codes: 0 no problem at error level (warnings and notes allowed); 1 at least one error; 2 a usage" in text
    )
    assert "error, or project settings that cannot be read." in text


def test_a_tab_in_a_contract_is_reported_where_it_stands(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)
    contract = root / "contracts" / "echo.yaml"
    contract.write_text(
        contract.read_text(encoding="utf-8").replace("  required: [word]", "  \trequired: [word]"), encoding="utf-8"
    )

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "contracts/echo.yaml:10:3: error [TP003] YAML does not allow tabs for indentation; use spaces",
        "1 error(s), 0 warning(s) in contracts",
    ]


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    ("generated", "why"),
    [
        (".", "generated = '.' is the project folder itself"),
        ("./", "generated = './' is the project folder itself"),
        ("contracts", "generated = 'contracts' is the contracts folder 'contracts'"),
        ("contracts/gen", "generated = 'contracts/gen' lies inside the contracts folder 'contracts'"),
        ("handlers", "generated = 'handlers' is the handlers folder 'handlers'"),
        ("handlers/gen", "generated = 'handlers/gen' lies inside the handlers folder 'handlers'"),
        ("tests", "generated = 'tests' is the tests folder 'tests'"),
        ("tests/gen", "generated = 'tests/gen' lies inside the tests folder 'tests'"),
        ("src", "generated = 'src' holds the handlers folder 'src/handlers'"),
        ("../victim", "generated = '../victim' lies outside the project folder"),
        ("pyproject.toml", "generated = 'pyproject.toml' is a file, not a folder"),
        ("link", "generated = 'link' lies outside the project folder"),
    ],
)
def test_gen_refuses_a_generated_folder_it_cannot_own_and_touches_nothing(
    runner: CliRunner, tmp_path: Path, generated: str, why: str
) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep me\n", encoding="utf-8")
    (tmp_path / "proj").mkdir()
    root = _project(tmp_path / "proj")
    (root / "link").symlink_to(victim)
    (root / "handlers").mkdir()
    (root / "handlers" / "echo.py").write_text("def handle(args, ctx): ...\n", encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_mine.py").write_text("def test_it() -> None: ...\n", encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    roots = '["src"]' if generated == "src" else '["."]'
    settings = f'[tool.toolproof]\ngenerated = "{generated}"\npackage = "gen"\nsource-roots = {roots}\n'
    (root / "pyproject.toml").write_text(settings, encoding="utf-8")
    before = _tree(tmp_path)

    for command in (["gen"], ["gen", "--check"], ["lint"]):
        result = runner.invoke(cli, [*command, "--project", str(root)])

        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(f"toolproof: {(root / 'pyproject.toml').resolve()}: {why}")
        assert result.stderr.endswith("; give the generated files a folder of their own, such as 'generated'\n")
    assert _tree(tmp_path) == before


REFS = """\
    d: {$ref: "#/definitions/s"}
    a: {$ref: "#str"}
    e: {$ref: "#/$defs/a~1b"}
    p: {$ref: "#/$defs/a%25b"}
    again: {$ref: "#"}
  definitions:
    s: {type: string}
  $defs:
    anchored: {$anchor: str, type: string}
    a/b: {type: integer}
    a%b: {type: boolean}
"""

BOOLEANS = """\
    anything: true
    never: false
    ref: {$ref: "#/$defs/b"}
    empty: {type: array, items: false}
    either: {anyOf: [false, {type: string}]}
  $defs:
    b: true
"""


@pytest.mark.parametrize("extra", [REFS, BOOLEANS], ids=["every documented $ref form", "boolean subschemas"])
def test_lint_and_gen_take_schemas_json_schema_allows(runner: CliRunner, tmp_path: Path, extra: str) -> None:
    root = _project(tmp_path)
    contract = root / "contracts" / "echo.yaml"
    text = contract.read_text(encoding="utf-8")
    fields, _, defs = extra.partition("  $defs:\n") if extra is BOOLEANS else extra.partition("  definitions:\n")
    defs = ("  $defs:\n" if extra is BOOLEANS else "  definitions:\n") + defs
    text = text.replace(
        "    word: {type: string, minLength: 1, description: The word to echo.}\n",
        "    word: {type: string, minLength: 1, description: The word to echo.}\n" + fields,
    )
    text = text.replace("  additionalProperties: false\n", "  additionalProperties: false\n" + defs, 1)
    contract.write_text(text, encoding="utf-8")

    lint = runner.invoke(cli, ["lint", "--project", str(root)])
    gen = runner.invoke(cli, ["gen", "--project", str(root)])

    assert lint.exit_code == 0, lint.output
    assert "TP403" not in lint.output and "internal error" not in lint.output
    assert gen.exit_code == 0, gen.output


def _unblock(fifo: Path) -> None:
    """End a read waiting on ``fifo``: a writer opens it and leaves, so the reader sees an empty file."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # no reader waits
        pass


@pytest.mark.parametrize(
    "command",
    [["gen"], ["gen", "--check"], ["lint"], ["export", "--format", "openai"], ["breaking", "--against", "contracts"]],
    ids=" ".join,
)
def test_a_fifo_among_the_contracts_is_refused_at_once_naming_it(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    root = _project(tmp_path)
    fifo = root / "contracts" / "evil.yaml"
    os.mkfifo(fifo)
    monkeypatch.chdir(root)
    rescue = threading.Timer(20, _unblock, [fifo])  # were it read, the test would fail rather than hang
    rescue.start()
    try:
        result = runner.invoke(cli, [*command, "--project", str(root)])
    finally:
        rescue.cancel()

    assert result.exit_code in (1, 2), result.output
    assert "contracts/evil.yaml:1:1: error [TP001] a FIFO, not a regular file" in result.output


def _one_line_naming(result: object, path: str, advice: str) -> None:
    from click.testing import Result

    assert isinstance(result, Result)
    lines = result.stderr.splitlines()
    assert result.exit_code == 1, result.output
    assert len(lines) == 1 and lines[0].startswith("toolproof: "), result.stderr
    assert path in lines[0] and advice in lines[0], lines[0]
    assert "internal error" not in result.stderr


def test_init_with_a_name_too_long_for_the_file_system_says_to_choose_a_shorter_one(
    runner: CliRunner, tmp_path: Path
) -> None:
    folder = tmp_path / ("a" * 300)

    result = runner.invoke(cli, ["init", str(folder)])

    _one_line_naming(result, str(folder), "the name is too long for the file system: choose a shorter one")


def test_init_in_a_folder_that_cannot_be_written_names_the_path_and_says_to_choose_another(
    runner: CliRunner,
) -> None:
    result = runner.invoke(cli, ["init", "/proc/self"])

    _one_line_naming(result, "/proc/", "choose a folder you can write to")


def test_gen_where_a_file_stands_for_a_folder_it_writes_names_the_path_and_says_to_move_it(
    runner: CliRunner, tmp_path: Path
) -> None:
    """A folder gen cannot write into, as root can meet it too (chmod stops no write of root's)."""
    root = _project(tmp_path)
    (root / "generated" / "exports").mkdir(parents=True)
    (root / "generated" / "exports" / "mcp").write_text("in the way\n", encoding="utf-8")

    result = runner.invoke(cli, ["gen", "--project", str(root)])

    _one_line_naming(result, str(root / "generated" / "exports" / "mcp"), "move it away, or choose another path")


def test_a_full_or_read_only_disk_is_one_line_naming_the_file_and_what_to_do(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from toolproof.generator import writer

    root = _project(tmp_path)

    def full(target: Path, data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target))

    monkeypatch.setattr(writer, "_replace", full)
    result = runner.invoke(cli, ["gen", "--project", str(root)])

    _one_line_naming(result, str(root / "generated"), "the disk is full: free some space, then run the command again")

    def read_only(target: Path, data: bytes) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(target))

    monkeypatch.setattr(writer, "_replace", read_only)
    result = runner.invoke(cli, ["gen", "--project", str(root)])

    _one_line_naming(result, str(root / "generated"), "the file system is read-only: choose a folder you can write to")


def test_an_os_error_outside_any_command_is_one_line_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import errno

    from toolproof import cli as toolproof_cli

    def broken(**_: object) -> None:
        raise OSError(errno.EACCES, os.strerror(errno.EACCES), "/etc/somewhere\nelse")

    monkeypatch.setattr(toolproof_cli.cli, "main", broken)
    with pytest.raises(SystemExit) as exited:
        toolproof_cli.main()

    assert exited.value.code == 1
    assert capsys.readouterr().err == (
        "toolproof: /etc/somewhere\\nelse: Permission denied; permission denied: give yourself access, "
        "or choose a folder you can write to\n"
    )
