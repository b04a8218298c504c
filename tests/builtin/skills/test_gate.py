"""The skill gate: tokens bound to the session and to the SKILL.md's content."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from toolproof.builtin.files.workspace import Workspace
from toolproof.builtin.skills.gate import (
    KEY_BYTES,
    MIN_ENV_SECRET_BYTES,
    GateDocumentError,
    GateSecretError,
    GateSpec,
    SkillGate,
    default_secret,
    resolve_builtin,
)
from toolproof.builtin.skills.resources import SkillGates
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import RegistryError
from toolproof.runtime.registry import bind
from toolproof.runtime.spec import load_specs

SPEC = GateSpec("builtin://tool/SKILL.md", "path", "token", "token", "missing", "invalid")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "tool").mkdir()
    (tmp_path / "tool" / "SKILL.md").write_text("# Tool\nRead me first.\n", encoding="utf-8")
    return tmp_path


def test_tokens_are_bound_to_the_session(folder: Path) -> None:
    gate = SkillGate(SPEC, b"secret", folder)

    assert gate.token("a") == gate.token("a")
    assert gate.token("a") != gate.token("b")
    assert gate.check({"token": gate.token("a")}, "a") == "ok"
    assert gate.check({"token": gate.token("a")}, "b") == "invalid"
    assert gate.check({}, "a") == "missing"
    assert gate.check({"token": ""}, "a") == "missing"


@pytest.mark.parametrize("token", ["é", ", ", "\x00", "🚀" * 40, "0" * 10_000])
def test_any_string_is_checked_without_raising(folder: Path, token: str) -> None:
    assert SkillGate(SPEC, b"secret", folder).check({"token": token}, "s") == "invalid"


def test_a_change_to_the_skill_md_invalidates_earlier_tokens(folder: Path) -> None:
    gate = SkillGate(SPEC, b"secret", folder)
    before = gate.token("s")
    path = folder / "tool" / "SKILL.md"
    path.write_text("# Tool\nRead me first. Now with a new rule.\n", encoding="utf-8")
    os.utime(path, ns=(1, 1))  # a different mtime even on coarse clocks

    assert gate.check({"token": before}, "s") == "invalid"
    assert gate.check({"token": gate.token("s")}, "s") == "ok"


def test_a_different_secret_gives_different_tokens(folder: Path) -> None:
    assert SkillGate(SPEC, b"one", folder).token("s") != SkillGate(SPEC, b"two", folder).token("s")


def test_the_document_read_is_recognised(folder: Path) -> None:
    gate = SkillGate(SPEC, b"secret", folder)

    assert gate.is_document_read({"path": "builtin://tool/SKILL.md"})
    assert not gate.is_document_read({"path": "builtin://tool/../x"})
    assert gate.document() == "# Tool\nRead me first.\n"


@pytest.mark.parametrize("uri", ["builtin://../etc/passwd", "builtin://a/../../x", "builtin://", "file:///x"])
def test_builtin_uris_cannot_climb(uri: str) -> None:
    with pytest.raises(ValueError):
        resolve_builtin(uri)


def test_a_gated_tool_whose_document_is_missing_stops_start_up(tmp_path: Path) -> None:
    tools = bind(load_specs(modules=("read_file",)), check_extra=False)

    with pytest.raises(RegistryError) as info:
        Runtime(tools, resources=[SkillGates(b"k", documents=tmp_path)])

    assert "is gated by builtin://read_file/SKILL.md, which cannot be read" in info.value.problems[0]


def test_the_runtime_refuses_calls_without_the_token_and_serves_the_document(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n", encoding="utf-8")
    tools = bind(load_specs(modules=("read_file",)), check_extra=False)
    runtime = Runtime(tools, resources=[SkillGates(b"k"), Workspace.of([tmp_path])])

    refused = runtime.call("read_file", {"path": "a.txt"}, session="s")
    doc = runtime.call("read_file", {"path": "builtin://read_file/SKILL.md"}, session="s")
    token = doc.output["skillToken"]
    read = runtime.call("read_file", {"path": "a.txt", "skillToken": token}, session="s")
    elsewhere = runtime.call("read_file", {"path": "a.txt", "skillToken": token}, session="t")

    assert refused.error is not None and refused.error.code == "skill_token_required"
    assert read.ok and read.text == "1\talpha"
    assert elsewhere.error is not None and elsewhere.error.code == "skill_token_invalid"


def test_the_default_secret_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLPROOF_GATE_SECRET", "from-the-environment")

    assert default_secret() == b"from-the-environment"


def test_the_default_secret_is_a_private_key_file_made_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TOOLPROOF_GATE_SECRET", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))

    first, second = default_secret(), default_secret()
    key = tmp_path / "toolproof" / "gate.key"

    assert first == second and len(first) == 32
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


def test_an_edit_of_the_same_size_in_the_same_time_stamp_tick_invalidates_earlier_tokens(folder: Path) -> None:
    gate = SkillGate(SPEC, b"secret", folder)
    path = folder / "tool" / "SKILL.md"
    before_stat = path.stat()
    before = gate.token("s")
    assert gate.document() == "# Tool\nRead me first.\n"

    path.write_text("# Tool\nRead me LAST.\n ", encoding="utf-8")  # same size, same inode
    os.utime(path, ns=(before_stat.st_atime_ns, before_stat.st_mtime_ns))  # and the same mtime
    after_stat = path.stat()

    assert (after_stat.st_ino, after_stat.st_size, after_stat.st_mtime_ns) == (
        before_stat.st_ino,
        before_stat.st_size,
        before_stat.st_mtime_ns,
    )
    assert gate.document() == "# Tool\nRead me LAST.\n "
    assert gate.check({"token": before}, "s") == "invalid"
    assert gate.check({"token": gate.token("s")}, "s") == "ok"


@pytest.mark.parametrize("value", ["", "k", "x" * (MIN_ENV_SECRET_BYTES - 1)])
def test_an_empty_or_short_secret_in_the_environment_is_refused(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("TOOLPROOF_GATE_SECRET", value)

    with pytest.raises(GateSecretError) as info:
        default_secret()

    assert str(info.value) == (
        f"$TOOLPROOF_GATE_SECRET is {len(value)} bytes long; a gate secret must be at least 16 bytes "
        "(unset it to use the per-user key file)"
    )


def test_a_host_with_a_short_secret_in_the_environment_does_not_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLPROOF_GATE_SECRET", "short")
    tools = bind(load_specs(modules=("read_file",)), check_extra=False)

    with pytest.raises(RegistryError) as info:
        Runtime(tools, resources=[SkillGates()])

    assert info.value.problems == [
        "tool 'read_file' is gated, but $TOOLPROOF_GATE_SECRET is 5 bytes long; a gate secret must be at least "
        "16 bytes (unset it to use the per-user key file)"
    ]


def test_a_host_whose_key_file_cannot_be_read_or_made_does_not_start(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("TOOLPROOF_GATE_SECRET", raising=False)
    monkeypatch.delenv("TOOLPROOF_GATE_KEY_HEX", raising=False)
    (tmp_path / "state").write_text("a file where the folder should be", encoding="utf-8")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    tools = bind(load_specs(modules=("read_file",)), check_extra=False)

    with pytest.raises(RegistryError) as info:
        Runtime(tools, resources=[SkillGates()])

    (problem,) = info.value.problems
    assert problem.startswith(
        f"tool 'read_file' is gated, but the gate key file {tmp_path}/state/toolproof/gate.key can be neither read"
    )


def test_a_secret_passed_by_code_may_be_short_but_not_empty() -> None:
    assert SkillGates(b"k") is not None
    with pytest.raises(GateSecretError):
        SkillGates(b"")


def test_no_token_is_ever_made_with_an_empty_key(folder: Path) -> None:
    gate = SkillGate(SPEC, b"", folder)

    with pytest.raises(GateSecretError):
        gate.token("s")
    with pytest.raises(GateSecretError):
        gate.check({"token": "0" * 32}, "s")


def test_a_token_made_under_one_secret_is_never_given_out_under_the_next(folder: Path) -> None:
    gate = SkillGate(SPEC, b"first", folder)
    before = gate.token("s")
    gate.set_secret(b"second")

    assert gate.token("s") == SkillGate(SPEC, b"second", folder).token("s") != before
    assert gate.check({"token": before}, "s") == "invalid"


@pytest.mark.parametrize("content", [b"", b"short", b"x" * (KEY_BYTES - 1)])
def test_an_empty_or_short_key_file_is_replaced_by_a_whole_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, content: bytes
) -> None:
    monkeypatch.delenv("TOOLPROOF_GATE_SECRET", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    key = tmp_path / "toolproof" / "gate.key"
    key.parent.mkdir()
    key.write_bytes(content)

    secret = default_secret()

    assert len(secret) == KEY_BYTES and secret != content
    assert key.read_bytes() == secret
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert default_secret() == secret
    assert sorted(p.name for p in key.parent.iterdir()) == ["gate.key", "gate.key.lock"], "no temporary file is left"


def test_a_longer_key_file_is_used_as_it_is(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TOOLPROOF_GATE_SECRET", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    (tmp_path / "toolproof").mkdir()
    (tmp_path / "toolproof" / "gate.key").write_bytes(b"k" * 64)

    assert default_secret() == b"k" * 64


def test_a_key_file_that_cannot_be_made_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TOOLPROOF_GATE_SECRET", raising=False)
    (tmp_path / "state").write_text("a file where the folder should be", encoding="utf-8")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))

    with pytest.raises(GateSecretError) as info:
        default_secret()

    assert str(info.value).startswith(f"the gate key file {tmp_path}/state/toolproof/gate.key can be neither read")
    assert str(info.value).endswith("set $TOOLPROOF_GATE_SECRET to a secret of at least 16 bytes")


def test_the_key_file_appears_only_once_its_key_is_written_and_synced(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("TOOLPROOF_GATE_SECRET", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    key = tmp_path / "toolproof" / "gate.key"
    seen_while_syncing: list[bool] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if not seen_while_syncing:  # the first sync is the key's own, before it is renamed into place
            seen_while_syncing.append(key.exists())
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)

    secret = default_secret()

    assert seen_while_syncing == [False], "a reader could have seen a key file not yet whole"
    assert key.read_bytes() == secret


_FIRST_START = """
import sys
from toolproof.builtin.skills.gate import default_secret
sys.stdin.read()  # wait until every process is up, then all race for the key at once
sys.stdout.write(default_secret().hex())
"""


def test_forty_concurrent_first_starts_all_get_the_same_whole_key(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TOOLPROOF_GATE_SECRET"}
    env["XDG_STATE_HOME"] = str(tmp_path)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _FIRST_START],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
        for _ in range(40)
    ]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.close()  # the start signal
    keys = []
    for proc in procs:
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout.read(), proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
        assert proc.wait(timeout=60) == 0, err
        keys.append(bytes.fromhex(out))

    assert len(set(keys)) == 1
    assert len(keys[0]) == KEY_BYTES and keys[0] != bytes(KEY_BYTES)
    assert (tmp_path / "toolproof" / "gate.key").read_bytes() == keys[0]


def test_a_session_named_with_a_lone_surrogate_gets_its_own_token_without_raising(folder: Path) -> None:
    gate = SkillGate(SPEC, b"secret", folder)

    assert gate.token("s\udcff") != gate.token("s\udcfe")
    assert gate.check({"token": gate.token("s\udcff")}, "s\udcff") == "ok"
    assert gate.check({"token": "\udcff"}, "s") == "invalid"


@pytest.mark.parametrize("kind", ["fifo", "directory", "link"])
def test_a_key_file_that_is_no_regular_file_is_a_clear_error_at_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kind: str
) -> None:
    monkeypatch.delenv("TOOLPROOF_GATE_SECRET", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    key = tmp_path / "toolproof" / "gate.key"
    key.parent.mkdir()
    if kind == "fifo":
        os.mkfifo(key)  # opening it for reading would wait for a writer for ever
    elif kind == "directory":
        key.mkdir()
    else:
        (tmp_path / "real.key").write_bytes(b"k" * 64)
        key.symlink_to(tmp_path / "real.key")

    with pytest.raises(GateSecretError) as info:
        default_secret()

    assert str(info.value).startswith(f"the gate key file {key} can be neither read nor made")


def test_a_gate_whose_document_cannot_be_read_raises_its_own_error_for_tokens_and_checks(folder: Path) -> None:
    gate = SkillGate(SPEC, b"secret", folder)
    token = gate.token("s")
    (folder / "tool" / "SKILL.md").unlink()

    with pytest.raises(GateDocumentError) as made:
        gate.token("s")
    with pytest.raises(GateDocumentError):
        gate.check({"token": token}, "s")

    assert made.value.document == "builtin://tool/SKILL.md"
    assert (
        str(made.value) == "the skill gate's document builtin://tool/SKILL.md cannot be read: no such file or directory"
    )
    assert gate.check({}, "s") == "missing"  # refused all the same
