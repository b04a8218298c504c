"""The gateway read_file hands out its skillToken as its document says: in the text, for a complete read only."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from toolproof.builtin.files.workspace import Workspace
from toolproof.builtin.handlers import read_file
from toolproof.builtin.skills.gate import SkillGate, builtin_dir
from toolproof.builtin.skills.resources import SkillGates
from toolproof.runtime.context import Resources, ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.registry import bind
from toolproof.runtime.spec import load_specs
from toolproof.runtime.toolbox import builtin_runtime

SKILL_MD = "builtin://read_file/SKILL.md"


def _ctx(tmp_path: Path) -> tuple[ToolContext, SkillGates]:
    spec = next(spec for spec in load_specs() if spec.name == "read_file")
    gates = SkillGates(b"gate-test-secret")
    return ToolContext("read_file", "s1", spec, Resources([Workspace((tmp_path,)), gates])), gates


def test_the_token_and_the_text_of_one_skill_md_read_come_from_the_same_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    versions: Iterator[tuple[str, bytes]] = iter(
        [(text, hashlib.sha256(text.encode()).digest()) for text in ("version one\n", "version two\n")] * 3
    )
    monkeypatch.setattr(SkillGate, "_current", lambda self: next(versions))  # an edit lands after each read
    ctx, gates = _ctx(tmp_path)
    assert ctx.spec is not None

    output = read_file.handle({"path": SKILL_MD}, ctx)

    assert output["content"] == "1\tversion one"
    assert output.get("skillToken") == gates.gate(ctx.spec).token(
        "s1", digest=hashlib.sha256(b"version one\n").digest()
    )


def test_a_partial_read_of_the_skill_md_hands_out_no_token(tmp_path: Path) -> None:
    runtime = builtin_runtime(workspace=[tmp_path], gate_secret=b"gate-test-secret")

    partial = runtime.call("read_file", {"path": SKILL_MD, "offset": 5, "limit": 3}, session="s1")
    from_two = runtime.call("read_file", {"path": SKILL_MD, "offset": 2}, session="s1")
    whole = runtime.call("read_file", {"path": SKILL_MD}, session="s1")

    assert partial.output is not None and "skillToken" not in partial.output
    assert from_two.output is not None and "skillToken" not in from_two.output
    assert "skillToken: " not in partial.text and "skillToken: " not in from_two.text
    assert whole.output is not None
    assert whole.text.endswith(
        f"\n\nskillToken: {whole.output['skillToken']}\nPass this skillToken in every other read_file call."
    )


def test_the_skill_token_reaches_a_text_only_caller(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n", encoding="utf-8")
    runtime = builtin_runtime(workspace=[tmp_path], gate_secret=b"gate-test-secret")
    text = runtime.call("read_file", {"path": SKILL_MD}, session="s1").text
    token = text.rsplit("skillToken: ", 1)[1].split("\n", 1)[0]

    result = runtime.call("read_file", {"path": "a.txt", "skillToken": token}, session="s1")

    assert result.ok and result.text == "1\talpha"


def test_the_gates_document_vanishing_under_a_running_host_refuses_every_read_until_it_is_back_without_a_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    documents = tmp_path / "documents"
    shutil.copytree(builtin_dir(), documents)
    skill = documents / "read_file" / "SKILL.md"
    original = skill.read_bytes()
    (tmp_path / "a.txt").write_text("alpha\n", encoding="utf-8")
    runtime = Runtime(
        bind(load_specs(modules=("read_file",)), check_extra=False),
        resources=[SkillGates(b"k", documents=documents), Workspace.of([tmp_path])],
    )
    token = runtime.call("read_file", {"path": "builtin://read_file/SKILL.md"}, session="s").output["skillToken"]
    expected = (
        "builtin://read_file/SKILL.md cannot be read on this host ({reason}), and without it no skillToken can be "
        "made or checked: every read_file call is refused until it can."
    )

    with caplog.at_level("DEBUG"):
        skill.unlink()
        gone = runtime.call("read_file", {"path": "a.txt", "skillToken": token}, session="s")
        gone_document = runtime.call("read_file", {"path": "builtin://read_file/SKILL.md"}, session="s")
        skill.write_bytes(original.replace(b"Read File", b"Read \xff File"))
        damaged = runtime.call("read_file", {"path": "a.txt", "skillToken": token}, session="s")
        skill.write_bytes(original)
        back = runtime.call("read_file", {"path": "a.txt", "skillToken": token}, session="s")

    for refused, reason in ((gone, "no such file or directory"), (gone_document, "no such file or directory")):
        assert refused.error is not None and refused.error.code == "skill_document_unreadable"
        assert refused.error.message == expected.format(reason=reason)
    assert damaged.error is not None and damaged.error.message == expected.format(reason="it is not UTF-8 text")
    assert back.ok and back.text == "1\talpha"
    assert not [record for record in caplog.records if record.levelname == "ERROR" or record.exc_info]


def _gated_runtime(tmp_path: Path) -> tuple[Runtime, Path]:
    """A runtime whose gate reads a copy of the package's documents, and the copy's SKILL.md."""
    documents = tmp_path / "documents"
    shutil.copytree(builtin_dir(), documents)
    (tmp_path / "a.txt").write_text("alpha\n", encoding="utf-8")
    runtime = Runtime(
        bind(load_specs(modules=("read_file",)), check_extra=False),
        resources=[SkillGates(b"k", documents=documents), Workspace.of([tmp_path])],
    )
    return runtime, documents / "read_file" / "SKILL.md"


def _calls_within(runtime: Runtime, seconds: float) -> list[Any]:
    """The document read and a token-carrying call, each run on a thread that must end within ``seconds``."""
    results: list[Any] = []
    for arguments in ({"path": SKILL_MD}, {"path": "a.txt", "skillToken": "0" * 32}):
        worker = threading.Thread(target=lambda a=arguments: results.append(runtime.call("read_file", a, session="s")))
        worker.start()
        worker.join(seconds)
        assert not worker.is_alive(), f"read_file {arguments} still waits after {seconds} s"
    return results


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (os.mkfifo, "it is a FIFO, not a regular file"),
        (os.mkdir, "it is a folder, not a regular file"),
    ],
)
def test_a_fifo_or_folder_at_the_gates_document_is_refused_at_once_not_waited_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, make: Callable[[Path], None], reason: str
) -> None:
    runtime, skill = _gated_runtime(tmp_path)
    skill.unlink()
    make(skill)

    try:
        with caplog.at_level("DEBUG"):
            results = _calls_within(runtime, 10)
    finally:
        if stat.S_ISFIFO(os.lstat(skill).st_mode):  # a read that did wait is released, so the test can end
            with contextlib.suppress(OSError):
                os.close(os.open(skill, os.O_WRONLY | os.O_NONBLOCK))

    for refused in results:
        assert refused.error is not None and refused.error.code == "skill_document_unreadable"
        assert f"on this host ({reason})," in refused.error.message
    assert not [record for record in caplog.records if record.levelname == "ERROR" or record.exc_info]


def test_a_symbolic_link_at_the_gates_document_is_not_followed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    runtime, skill = _gated_runtime(tmp_path)
    secret = tmp_path / "shadow"
    secret.write_text("root:secret-hash:19000::::::\n", encoding="utf-8")
    skill.unlink()
    skill.symlink_to(secret)

    with caplog.at_level("DEBUG"):
        results = _calls_within(runtime, 10)

    for refused in results:
        assert refused.error is not None and refused.error.code == "skill_document_unreadable"
        assert "on this host (it is a symbolic link, which the gate does not follow)," in refused.error.message
        assert "secret-hash" not in refused.text
    assert not [record for record in caplog.records if record.levelname == "ERROR" or record.exc_info]


def test_a_symbolic_link_at_the_gates_document_stops_the_host_at_start_up(tmp_path: Path) -> None:
    _, skill = _gated_runtime(tmp_path)
    skill.unlink()
    skill.symlink_to(tmp_path / "a.txt")
    spec = next(spec for spec in load_specs() if spec.name == "read_file")

    problems = SkillGates(b"k", documents=tmp_path / "documents").check(spec)

    assert len(problems) == 1
    assert problems[0].startswith(f"tool 'read_file' is gated by {SKILL_MD}, which cannot be read: ")
    assert problems[0].endswith(" it is a symbolic link, which the gate does not follow")
