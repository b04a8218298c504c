"""The checks behind the generated property and fuzz tests: annotations, schema strategies, the fuzz host."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings

from tests.testing.resource_project import toolproof
from toolproof.runtime.result import ErrorInfo, ToolResult
from toolproof.testing import Hints, PropertyFailure, check_example_properties, check_properties, fuzz
from toolproof.testing.fuzz import FuzzFailure, FuzzHost, near_misses, valid_arguments
from toolproof.testing.properties import snapshot
from toolproof.testing.strategies import schema_values

READ_ONLY = Hints(read_only=True, destructive=False, idempotent=True)


def _ok(output: Any = None) -> ToolResult:
    return ToolResult("t", output, None, "ok")


def _calls(*effects: Callable[[], None]) -> Callable[[], ToolResult]:
    """A call that runs the next effect each time it is made."""
    queue = list(effects)

    def call() -> ToolResult:
        queue.pop(0)()
        return _ok({"same": True})

    return call


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("a\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("b\n", encoding="utf-8")
    os.symlink("a.txt", tmp_path / "link")
    os.mkfifo(tmp_path / "pipe")
    return tmp_path


def test_snapshot_lists_every_path_without_following_links_or_opening_fifos(folder: Path) -> None:
    found = snapshot(folder)
    assert sorted(found) == ["a.txt", "link", "pipe", "sub", "sub/b.txt"]
    assert found["link"][0] == "symlink" and found["link"][3] == "a.txt"
    assert found["pipe"][0] == "special"
    assert found["a.txt"][0] == "file"


def test_a_call_that_touches_nothing_keeps_every_annotation(folder: Path) -> None:
    result = check_properties(lambda: _ok({"x": 1}), folder, READ_ONLY, "quiet")
    assert result.output == {"x": 1}


def test_a_written_file_breaks_read_only(folder: Path) -> None:
    def write() -> None:
        (folder / "a.txt").write_text("changed\n", encoding="utf-8")

    with pytest.raises(PropertyFailure, match=r"^writer: read_only, but changed a\.txt \(content"):
        check_properties(_calls(write, lambda: None), folder, Hints(read_only=True), "writer")


def test_a_new_file_breaks_read_only_but_not_idempotence_when_made_once(folder: Path) -> None:
    def add() -> None:
        (folder / "new.txt").touch(exist_ok=True)

    with pytest.raises(PropertyFailure, match=r"^adder: read_only, but added new\.txt$"):
        check_properties(_calls(add, lambda: None), folder, Hints(read_only=True, idempotent=True), "adder")


def test_a_mode_or_mtime_change_breaks_read_only(folder: Path) -> None:
    def chmod() -> None:
        (folder / "sub" / "b.txt").chmod(0o600)

    def touch() -> None:
        os.utime(folder / "a.txt", ns=(0, 0))

    with pytest.raises(PropertyFailure, match=r"changed sub/b\.txt"):
        check_properties(_calls(chmod, lambda: None), folder, Hints(read_only=True), "chmod")
    with pytest.raises(PropertyFailure, match=r"changed a\.txt"):
        check_properties(_calls(touch, lambda: None), folder, Hints(read_only=True), "touch")


def test_a_deleted_file_breaks_not_destructive(folder: Path) -> None:
    def delete() -> None:
        (folder / "sub" / "b.txt").unlink()

    with pytest.raises(PropertyFailure, match=r"^deleter: not destructive, but deleted sub/b\.txt$"):
        check_properties(_calls(delete, lambda: None), folder, Hints(destructive=False), "deleter")
    assert check_properties(_calls(lambda: None, lambda: None), folder, Hints(destructive=True), "ok").ok


def test_an_update_that_reports_the_previous_status_keeps_idempotence(folder: Path) -> None:
    """MCP's idempotentHint: a repeat has no additional effect on the environment; its answer may differ."""
    status = folder / "status.txt"

    def close() -> ToolResult:
        previous = status.read_text(encoding="utf-8") if status.exists() else "open"
        status.write_text("closed", encoding="utf-8")  # the second call rewrites the same bytes
        return _ok({"previous": previous, "status": "closed"})

    result = check_properties(close, folder, Hints(destructive=False, idempotent=True), "close")

    assert result.output == {"previous": "open", "status": "closed"}


def test_a_second_call_with_another_answer_breaks_same_answer_naming_each_differing_field(folder: Path) -> None:
    answers = iter([_ok({"n": 1, "tags": ["a", "b"]}), _ok({"n": 1, "tags": ["a", "c"], "more": True})])

    with pytest.raises(PropertyFailure) as failure:
        check_properties(lambda: next(answers), folder, Hints(idempotent=True, same_answer=True), "counter")

    assert str(failure.value) == (
        "counter: same_answer, but the second output differs from the first:\n"
        '  $.tags[1]: expected "b", got "c"\n'
        "  $.more: not expected, got true"
    )


def test_a_second_call_with_another_error_code_breaks_same_answer(folder: Path) -> None:
    answers = iter([_ok({"n": 1}), ToolResult("t", None, ErrorInfo("busy", "busy"), "busy")])

    with pytest.raises(
        PropertyFailure, match=r"^counter: same_answer, but the second call gave error 'busy' after success$"
    ):
        check_properties(lambda: next(answers), folder, Hints(same_answer=True), "counter")


def test_a_second_call_that_changes_state_again_breaks_idempotence(folder: Path) -> None:
    count = iter(range(10))

    def append() -> ToolResult:
        (folder / "log.txt").write_text(str(next(count)), encoding="utf-8")
        return _ok()

    with pytest.raises(PropertyFailure, match=r"^appender: idempotent, but the second call changed log\.txt"):
        check_properties(append, folder, Hints(idempotent=True), "appender")


def test_an_example_with_an_unreadable_fixture_keeps_its_annotations(tmp_path: Path) -> None:
    result = check_example_properties("read_file", "an unreadable file is reported", tmp_path, READ_ONLY)
    assert result.error is not None and result.error.code == "permission_denied"


def test_an_example_that_reads_a_file_keeps_its_annotations(tmp_path: Path) -> None:
    result = check_example_properties("read_file", "reads a file as numbered lines", tmp_path, READ_ONLY)
    assert result.ok


SCHEMAS = [
    {
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1, "maxLength": 8},
            "n": {"type": "integer", "minimum": 1, "maximum": 5},
            "mode": {"enum": ["a", "b"]},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
            "either": {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
        },
        "required": ["path"],
        "additionalProperties": False,
    },
    {"type": "object", "properties": {"code": {"type": "string", "pattern": "^[a-z]{2}$"}}, "required": ["code"]},
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_schema_strategies_draw_only_what_the_schema_accepts(schema: dict[str, Any]) -> None:
    @settings(max_examples=50, deadline=None)
    @given(schema_values(schema, ("seed", "x" * 20)))
    def drawn(value: Any) -> None:
        jsonschema.Draft202012Validator(schema).validate(value)

    drawn()


@pytest.fixture(scope="module")
def host() -> Iterator[FuzzHost]:
    with FuzzHost.open("read_file") as opened:
        yield opened


def test_the_fuzz_host_lays_the_union_of_the_examples_files(host: FuzzHost) -> None:
    assert (host.base / "workspace" / "private.txt").exists()
    assert host.restricted and host.gated


@settings(max_examples=10, deadline=None)
@given(arguments=valid_arguments("read_file"))
def test_valid_arguments_pass_the_input_schema(arguments: Any) -> None:
    assert isinstance(arguments, dict) and "path" in arguments


@settings(max_examples=30, deadline=None)
@given(arguments=near_misses("read_file"))
def test_near_misses_end_in_a_catalogued_error_or_an_output(host: FuzzHost, arguments: Any) -> None:
    host.check(arguments, token=True)


class _Broken:
    """Stands in for a runtime whose handler crashes or hangs."""

    def __init__(self, result: ToolResult | None = None, sleep: float = 0.0) -> None:
        self.result = result
        self.sleep = sleep

    def call(self, name: str, text: str, *, session: str | None = None) -> ToolResult:
        time.sleep(self.sleep)
        assert self.result is not None
        return self.result


def test_an_internal_error_fails_the_fuzz_check(host: FuzzHost, monkeypatch: pytest.MonkeyPatch) -> None:
    crash = ToolResult("read_file", None, ErrorInfo("internal_error", "boom"), "boom")
    monkeypatch.setattr(host, "runtime", _Broken(crash))
    monkeypatch.setattr(host, "gated", False)
    with pytest.raises(FuzzFailure, match=r"""^read_file with \{"path": "x"\} ended in 'internal_error': boom$"""):
        host.check({"path": "x"})


def test_an_uncatalogued_error_fails_the_fuzz_check(host: FuzzHost, monkeypatch: pytest.MonkeyPatch) -> None:
    odd = ToolResult("read_file", None, ErrorInfo("made_up", "odd"), "odd")
    monkeypatch.setattr(host, "runtime", _Broken(odd))
    monkeypatch.setattr(host, "gated", False)
    with pytest.raises(FuzzFailure, match=r"ended in 'made_up': odd$"):
        host.check({"path": "x"})


def test_a_hang_fails_the_fuzz_check(host: FuzzHost, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host, "runtime", _Broken(_ok(), sleep=1.0))
    monkeypatch.setattr(host, "restricted", False)
    monkeypatch.setattr(fuzz, "CALL_TIMEOUT", 0.1)
    with pytest.raises(FuzzFailure, match=r"^read_file did not answer within 0\.1 s: "):
        host.call({"path": "x"})


_STATUS_HOST = '''\
"""The project's resources: the status file, in the host's test folder."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from toolproof.runtime import HostOptions


class StatusFile:
    resource: ClassVar[str] = "status_file"

    def __init__(self, path: Path) -> None:
        self.path = path


def resources(options: HostOptions) -> list[object]:
    return [StatusFile(options.folder / "status.txt")] if options.folder else []
'''

_STATUS_CONTRACT = """\
name: set_status
version: 0.1.0
title: Set status
description: >-
  Set the ticket's status, and say what it was. Use it when the user closes or reopens the ticket.
annotations: {read_only: false, destructive: true, idempotent: true, open_world: false}
needs: [status_file]
input:
  type: object
  properties:
    status: {enum: [open, closed], description: The new status.}
  required: [status]
  additionalProperties: false
output:
  type: object
  properties:
    previous: {type: string}
    status: {type: string}
  required: [previous, status]
  additionalProperties: false
errors: {}
render:
  result: "{previous} -> {status}"
examples:
  - name: closes an open ticket
    given: {files: {status.txt: open}}
    input: {status: closed}
    expect: {output: {previous: open, status: closed}}
"""

_STATUS_HANDLER = '''\
"""set_status: write the new status, answer the previous one."""

from __future__ import annotations

from generated import set_status as contract
from host import StatusFile
from toolproof.runtime import ToolContext


def handle(args: contract.SetStatusInput, ctx: ToolContext) -> contract.SetStatusOutput:
    """The status file holds one word."""
    path = ctx.need(StatusFile).path
    previous = path.read_text(encoding="utf-8") if path.exists() else "open"
    path.write_text(args["status"], encoding="utf-8")
    return {"previous": previous, "status": args["status"]}
'''


@pytest.fixture
def status_project(tmp_path: Path) -> Path:
    """A project made as a user makes one, whose `set_status` answers the status it replaced."""
    folder = tmp_path / "tickets"
    folder.mkdir()
    for argv in (["init", "."], ["new", "set_status"]):
        made = toolproof(*argv, cwd=folder)
        assert made.returncode == 0, made.stderr
    (folder / "host.py").write_text(_STATUS_HOST, encoding="utf-8")
    (folder / "contracts" / "set_status.yaml").write_text(_STATUS_CONTRACT, encoding="utf-8")
    (folder / "handlers" / "set_status.py").write_text(_STATUS_HANDLER, encoding="utf-8")
    settings = folder / "pyproject.toml"
    text = settings.read_text(encoding="utf-8")
    commented = next(line for line in text.splitlines() if line.startswith("# resources = "))
    settings.write_text(text.replace(commented, 'resources = ["host:resources"]'), encoding="utf-8")
    return folder


def _properties_test(folder: Path) -> subprocess.CompletedProcess[str]:
    generated = toolproof("gen", cwd=folder)
    assert generated.returncode == 0, generated.stderr
    test = "generated/tests/test_set_status_properties.py"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", test],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_an_update_that_answers_the_previous_status_passes_its_generated_idempotence_test(
    status_project: Path,
) -> None:
    ran = _properties_test(status_project)

    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "2 passed" in ran.stdout


def test_a_contract_asking_for_the_same_answer_fails_its_generated_test_naming_the_field(
    status_project: Path,
) -> None:
    contract = status_project / "contracts" / "set_status.yaml"
    text = contract.read_text(encoding="utf-8")
    contract.write_text(text.replace("needs:", "same_answer: true\nneeds:"), encoding="utf-8")

    ran = _properties_test(status_project)

    assert ran.returncode == 1, ran.stdout + ran.stderr
    shown = [line.removeprefix("E").strip() for line in ran.stdout.splitlines() if line.startswith("E ")]
    header = (
        "toolproof.testing.properties.PropertyFailure: example 'closes an open ticket': same_answer,"
        " but the second output differs from the first:"
    )
    assert header in shown
    assert shown[shown.index(header) + 1] == '$.previous: expected "open", got "closed"'
