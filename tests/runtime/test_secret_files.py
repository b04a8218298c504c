"""A file holding a secret that other users may read is used with one warning, naming it and ``chmod 600``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolproof.runtime.secret_files import warn_if_shared
from toolproof.runtime.serve.app import load_tokens

TOKEN = "a-token-of-more-than-16-characters"


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelname == "WARNING"]


def test_a_world_readable_token_file_is_used_with_one_warning_naming_it_and_chmod_600(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text(TOKEN + "\n", encoding="utf-8")
    tokens.chmod(0o644)

    first = load_tokens(tokens, {})
    second = load_tokens(tokens, {})

    assert first == second == [TOKEN]
    assert _warnings(caplog) == [
        f"the auth token file {tokens} can be read or changed by other users (mode 0644): run `chmod 600 {tokens}`"
    ]


def test_a_private_token_file_or_a_pipe_is_used_without_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text(TOKEN + "\n", encoding="utf-8")
    tokens.chmod(0o600)
    os.mkfifo(tmp_path / "pipe", 0o644)

    assert load_tokens(tokens, {}) == [TOKEN]
    assert not warn_if_shared(tmp_path / "pipe", "the auth token file")
    assert not warn_if_shared(tmp_path / "missing", "the auth token file")
    assert _warnings(caplog) == []


def test_a_worker_does_not_warn_of_the_token_file_its_supervisor_warned_of(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text(TOKEN + "\n", encoding="utf-8")
    tokens.chmod(0o640)

    assert load_tokens(tokens, {}, warn=False) == [TOKEN]
    assert _warnings(caplog) == []


def test_a_world_readable_gate_key_file_is_used_with_one_warning_on_stderr(tmp_path: Path) -> None:
    key = tmp_path / "toolproof" / "gate.key"
    key.parent.mkdir()
    key.write_bytes(b"k" * 32)
    key.chmod(0o644)
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}
    for name in ("TOOLPROOF_GATE_SECRET", "TOOLPROOF_GATE_KEY_HEX"):
        env.pop(name, None)
    script = "from toolproof.builtin.skills.gate import default_secret; print(default_secret() == default_secret())"

    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)

    assert done.stdout == "True\n"
    assert done.stderr == (
        f"the skill gate's key file {key} can be read or changed by other users (mode 0644): run `chmod 600 {key}`\n"
    )
