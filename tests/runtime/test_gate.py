"""The skill gate: tokens bound to the session and to the SKILL.md's content."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import RegistryError
from toolproof.runtime.files.workspace import Workspace
from toolproof.runtime.registry import bind
from toolproof.runtime.skills.gate import GateSpec, SkillGate, default_secret, resolve_builtin
from toolproof.runtime.skills.resources import SkillGates
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
    monkeypatch.setenv("TOOLPROOF_GATE_SECRET", "from-env")

    assert default_secret() == b"from-env"


def test_the_default_secret_is_a_private_key_file_made_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TOOLPROOF_GATE_SECRET", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))

    first, second = default_secret(), default_secret()
    key = tmp_path / "toolproof" / "gate.key"

    assert first == second and len(first) == 32
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
