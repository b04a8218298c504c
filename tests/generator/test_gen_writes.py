"""gen writes each file whole (a temporary file renamed into place), and gens of one project run one at a time."""

from __future__ import annotations

import errno
import fcntl
import io
import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from toolproof.cli import cli
from toolproof.generator import cli as generator_cli
from toolproof.generator import load_project, writer
from toolproof.generator.drift import TEMPORARY, Drift
from toolproof.generator.writer import write_all

CASE = Path(__file__).parent / "cases" / "minimal"
CONTRACT = "generated/contracts/echo.json"
EXPORT = "generated/exports/mcp/all.json"
"""A file that holds the tool's description: a new description rewrites it."""


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    shutil.copytree(CASE / "contracts", project / "contracts")
    (project / "toolproof.toml").write_text("[tool.toolproof]\n", encoding="utf-8")
    assert CliRunner().invoke(cli, ["gen", "--project", str(project)]).exit_code == 0
    return project


def _change_description(project: Path, words: str) -> None:
    contract = project / "contracts" / "echo.yaml"
    text = contract.read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if line.startswith("description:"))
    contract.write_text(text.replace(line, f"description: {words}"), encoding="utf-8")


def _gen(project: Path, *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "toolproof", "gen", *flags, "--project", str(project)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_reader_that_opened_a_file_before_gen_rewrote_it_reads_the_old_file_whole(tmp_path: Path) -> None:
    project = _project(tmp_path)
    old = (project / EXPORT).read_bytes()
    _change_description(project, "Echo the text back, in a description long enough to change every size.")

    with (project / EXPORT).open("rb") as reader:
        assert CliRunner().invoke(cli, ["gen", "--project", str(project)]).exit_code == 0
        seen = reader.read()

    assert seen == old  # written in place, it read the new text, or a part of it
    assert (project / EXPORT).read_bytes() != old


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path)
    before = {path: path.read_bytes() for path in (project / "generated").rglob("*") if path.is_file()}
    _change_description(project, "Echo the text back, changed.")
    files = load_project(project).render()

    def failing(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(OSError, match="No space left on device"):
        write_all(project, files)

    after = {path: path.read_bytes() for path in (project / "generated").rglob("*") if path.is_file()}
    assert after == before


def test_a_rewritten_file_keeps_its_mode_and_a_new_one_gets_the_umask_default(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / EXPORT).chmod(0o640)
    (project / "generated" / "echo.py").unlink()
    _change_description(project, "Echo the text back, changed.")

    umask = os.umask(0o027)
    try:
        assert CliRunner().invoke(cli, ["gen", "--project", str(project)]).exit_code == 0
    finally:
        os.umask(umask)

    assert stat.S_IMODE((project / EXPORT).stat().st_mode) == 0o640
    assert stat.S_IMODE((project / "generated" / "echo.py").stat().st_mode) == 0o640


def test_a_temporary_file_a_killed_gen_left_is_neither_generated_nor_a_stranger_and_gen_removes_it(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    leftover = project / "generated" / "contracts" / ".echo.json.0a1b2c3d.toolproof-tmp"
    leftover.write_bytes(b'{"name": "ec')

    check = CliRunner().invoke(cli, ["gen", "--check", "--project", str(project)])
    gen = CliRunner().invoke(cli, ["gen", "--project", str(project)])

    assert (check.exit_code, check.stderr) == (0, "")
    assert (gen.exit_code, gen.stderr, gen.stdout) == (0, "", "0 file(s) changed, 1 contract(s)\n")
    assert not leftover.exists()


def test_an_orphan_removed_by_someone_else_meanwhile_is_no_error(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / "contracts" / "echo.yaml").unlink()
    files = load_project(project).render()
    drift = Drift(project, files)
    assert CONTRACT in drift.orphaned
    (project / CONTRACT).unlink()

    changes = write_all(project, files, drift=drift)

    assert f"removed {CONTRACT}" in changes
    assert not Drift(project, files)


def test_a_fifo_in_the_generated_folder_is_a_conflict_gen_names_without_blocking(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / CONTRACT).unlink()
    os.mkfifo(project / CONTRACT)
    os.mkfifo(project / "generated" / "notes.md")

    check = _gen(project, "--check")
    out, err = check.communicate(timeout=60)  # it blocked for ever reading the FIFO

    assert check.returncode == 1
    assert out == f"conflict: {CONTRACT}: not a regular file, which gen never writes\n"
    assert err == (
        "warning: generated/notes.md: not written by toolproof (no @generated header); gen leaves it alone\n"
        "generated/: files toolproof did not write stand where gen writes, and gen overwrites only its own; "
        "move them away and run `toolproof gen`\n"
    )


def test_a_folder_where_gen_writes_a_file_is_a_conflict_named_not_a_crash(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / CONTRACT).unlink()
    (project / CONTRACT).mkdir()

    result = CliRunner().invoke(cli, ["gen", "--project", str(project)])
    check = CliRunner().invoke(cli, ["gen", "--check", "--project", str(project)])

    assert result.exit_code == 1 and check.exit_code == 1  # gen crashed renaming its temporary file over it
    assert f"{CONTRACT}: a folder, where gen writes a file; move it away" in result.output
    assert check.stdout == f"conflict: {CONTRACT}: a folder, where gen writes a file; move it away\n"
    assert (project / CONTRACT).is_dir() and not list(project.glob("generated/contracts/.*"))


def test_a_gen_waits_while_another_gen_of_the_project_holds_its_lock(tmp_path: Path) -> None:
    project = _project(tmp_path)
    _change_description(project, "Echo the text back, changed.")
    folder = os.open(project, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)  # as a running gen holds it
        waiting = _gen(project)
        assert waiting.stderr is not None
        first = waiting.stderr.readline()  # written before it blocks; without a lock, it finishes at once
        assert waiting.poll() is None
        fcntl.flock(folder, fcntl.LOCK_UN)
        out, err = waiting.communicate(timeout=60)
    finally:
        os.close(folder)

    assert first == f"toolproof: another gen of {project} is running; waiting for it to finish\n"
    assert (waiting.returncode, err) == (0, "")
    assert out.endswith("file(s) changed, 1 contract(s)\n")
    assert CliRunner().invoke(cli, ["gen", "--check", "--project", str(project)]).exit_code == 0


def test_a_lock_held_too_long_ends_gen_with_an_error_naming_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path)
    monkeypatch.setattr(generator_cli, "_LOCK_WAIT", 0.3)
    folder = os.open(project, os.O_RDONLY | os.O_DIRECTORY)  # read access is all it takes to hold it
    rescue = threading.Timer(20, fcntl.flock, [folder, fcntl.LOCK_UN])  # were there no bound: fail, not hang
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        rescue.start()
        results = [
            CliRunner().invoke(cli, [*check, "--project", str(project)]) for check in (["gen", "--check"], ["gen"])
        ]
    finally:
        rescue.cancel()
        os.close(folder)

    for result in results:
        assert result.exit_code == 1
        assert result.output == (
            f"toolproof: another gen of {project} is running; waiting for it to finish\n"
            f"Error: another gen of {project} has held its lock for 0.3 s; run again when it ends "
            "(any process that can read the folder can hold it)\n"
        )


_READY_THEN_GEN = """
import sys
import toolproof.cli, toolproof.generator.cli, toolproof.generator.project  # what gen imports, before the start
print("ready", flush=True)
sys.stdin.read(1)
toolproof.cli.main()
"""
"""``toolproof gen`` with its imports done first: started together, gens then race from the same instant."""


def _gens_at_once(project: Path, count: int) -> list[tuple[int, str]]:
    """Run ``count`` gens of ``project`` from the same instant; the exit status and stderr of each."""
    gens = [
        subprocess.Popen(
            [sys.executable, "-c", _READY_THEN_GEN, "gen", "--project", str(project)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(count)
    ]
    try:
        for gen in gens:
            assert gen.stdout is not None and gen.stdout.readline() == "ready\n"
        for gen in gens:
            assert gen.stdin is not None
            gen.stdin.write("go")
            gen.stdin.flush()
        errors = [gen.communicate(timeout=120)[1] for gen in gens]
    finally:
        for gen in gens:
            if gen.poll() is None:
                gen.kill()
                gen.communicate()
    return [(gen.returncode, err) for gen, err in zip(gens, errors, strict=True)]


def test_two_gens_at_once_both_succeed_and_leave_the_folder_fresh(tmp_path: Path) -> None:
    project = _project(tmp_path)
    echo = (project / "contracts" / "echo.yaml").read_text(encoding="utf-8")
    copies = [project / "contracts" / f"echo_{n}.yaml" for n in range(6)]
    for round_ in range(8):  # tools added, then removed: both gens write, then delete, the same files
        for n, copy in enumerate(copies):
            if round_ % 2 == 0:
                copy.write_text(echo.replace("name: echo\n", f"name: echo_{n}\n"), encoding="utf-8")
            else:
                copy.unlink()

        outcomes = _gens_at_once(project, 2)

        assert [code for code, _ in outcomes] == [0, 0], [err for _, err in outcomes]
        check = CliRunner().invoke(cli, ["gen", "--check", "--project", str(project)])
        assert check.exit_code == 0, check.output


class _Killed(Exception):
    """Stands for a gen killed at one step of ``write_all``."""


def _steps(monkeypatch: pytest.MonkeyPatch, kill_at: int | None) -> list[str]:
    """Count the steps ``write_all`` takes (each file written, each orphan removed); raise ``_Killed`` at one."""
    from toolproof.generator import writer

    steps: list[str] = []
    write, unlink = writer._write, Path.unlink

    def step(name: str) -> None:
        if len(steps) == kill_at:
            raise _Killed(name)
        steps.append(name)

    def counted_write(root: Path, path: str, text: str) -> None:
        step(f"write {path}")
        write(root, path, text)

    def counted_unlink(self: Path, missing_ok: bool = False) -> None:
        step(f"remove {self}")
        unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(writer, "_write", counted_write)
    monkeypatch.setattr(Path, "unlink", counted_unlink)
    return steps


def _two_tools(root: Path) -> Path:
    """A project of ``echo`` and ``shout`` (two JSON files each, besides the Python), generated."""
    project = root / "proj"
    shutil.copytree(CASE / "contracts", project / "contracts")
    text = (project / "contracts" / "echo.yaml").read_text(encoding="utf-8")
    (project / "contracts" / "shout.yaml").write_text(text.replace("name: echo", "name: shout"), encoding="utf-8")
    (project / "toolproof.toml").write_text("[tool.toolproof]\n", encoding="utf-8")
    assert CliRunner().invoke(cli, ["gen", "--project", str(project)]).exit_code == 0
    return project


def _replace_shout_by_whisper(project: Path) -> None:
    shout = project / "contracts" / "shout.yaml"
    text = shout.read_text(encoding="utf-8")
    shout.unlink()
    (project / "contracts" / "whisper.yaml").write_text(text.replace("name: shout", "name: whisper"), encoding="utf-8")
    _change_description(project, "Echo the word back, now described otherwise.")


def test_a_gen_killed_at_any_step_leaves_a_state_gen_check_reports_and_the_next_gen_repairs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    template = _two_tools(tmp_path / "template")
    _replace_shout_by_whisper(template)
    with monkeypatch.context() as counting:
        project = tmp_path / "count"
        shutil.copytree(template, project)
        steps = _steps(counting, None)
        assert CliRunner().invoke(cli, ["gen", "--project", str(project)]).exit_code == 0
    assert any(s.startswith("remove") for s in steps), steps

    for kill_at in range(len(steps)):
        project = tmp_path / f"killed_{kill_at}"
        shutil.copytree(template, project)
        with monkeypatch.context() as killing:
            _steps(killing, kill_at)
            killed = CliRunner().invoke(cli, ["gen", "--project", str(project)])
        assert isinstance(killed.exception, _Killed), (kill_at, killed.output)

        check = CliRunner().invoke(cli, ["gen", "--check", "--project", str(project)])
        assert check.exit_code == 1, (steps[kill_at], check.output)
        repair = CliRunner().invoke(cli, ["gen", "--project", str(project)])
        assert repair.exit_code == 0, (steps[kill_at], repair.output)
        assert CliRunner().invoke(cli, ["gen", "--check", "--project", str(project)]).exit_code == 0
        assert sorted(p.name for p in (project / "generated").rglob("shout*")) == [], steps[kill_at]


def test_a_tool_whose_removal_a_gen_was_killed_in_can_be_added_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    template = _two_tools(tmp_path / "template")
    shout = (template / "contracts" / "shout.yaml").read_text(encoding="utf-8")
    (template / "contracts" / "shout.yaml").unlink()
    with monkeypatch.context() as counting:
        project = tmp_path / "count"
        shutil.copytree(template, project)
        steps = _steps(counting, None)
        assert CliRunner().invoke(cli, ["gen", "--project", str(project)]).exit_code == 0

    for kill_at in range(len(steps)):
        project = tmp_path / f"killed_{kill_at}"
        shutil.copytree(template, project)
        with monkeypatch.context() as killing:
            _steps(killing, kill_at)
            assert isinstance(CliRunner().invoke(cli, ["gen", "--project", str(project)]).exception, _Killed)
        changed = shout.replace("minLength: 1", "minLength: 2")  # a contract JSON of other content at its path
        (project / "contracts" / "shout.yaml").write_text(changed, encoding="utf-8")

        again = CliRunner().invoke(cli, ["gen", "--project", str(project)])

        assert again.exit_code == 0, (steps[kill_at], again.output)
        assert CliRunner().invoke(cli, ["gen", "--check", "--project", str(project)]).exit_code == 0


def test_a_full_disk_names_the_file_gen_was_writing_and_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path)
    _change_description(project, "Echo the text back, changed.")

    class _FullDisk(io.FileIO):
        def write(self, data: Any) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")  # as a write says it: no file named

    monkeypatch.setattr(writer, "open", _FullDisk, raising=False)  # the module's open(fd, "wb")
    result = CliRunner().invoke(cli, ["gen", "--project", str(project)])

    assert result.exit_code == 1
    written = project / "generated" / "MANIFEST.json"  # the first file gen writes: it claims the others
    assert result.stderr == (
        f"toolproof: {written}: No space left on device; the disk is full: free some space, then run the command "
        "again\n"
    )
    assert not list(project.rglob(f"*{TEMPORARY}"))
