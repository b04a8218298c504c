"""An OS error a command meets is one `toolproof:` line saying what failed: the path, or the operation."""

from __future__ import annotations

import ctypes
import errno
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolproof.cli import cli, os_error_message
from toolproof.testing.replay import DAC_CAPABILITIES

_PR_CAPBSET_DROP = 24


def _toolproof(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolproof", *argv], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def _as_a_user() -> None:
    """In the child, before exec: root loses the power to ignore file permissions (a no-op for anyone else)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in DAC_CAPABILITIES:
        libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0)


@pytest.fixture
def occupied() -> Iterator[int]:
    """A loopback port another process's socket listens on."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


@pytest.mark.parametrize("workers", ["1", "2"])
def test_serve_http_on_an_occupied_port_names_the_address_not_a_file(
    occupied: int, tmp_path: Path, workers: str
) -> None:
    """One worker once printed uvicorn's log line and exited 3; two, `Error: [Errno 98] Address already in use`."""
    done = _toolproof("serve", "http", "--port", str(occupied), "--workers", workers, "--workspace", ".", cwd=tmp_path)

    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        f"toolproof: cannot bind 127.0.0.1:{occupied}: address already in use; "
        "another process listens there: stop it, or choose another --port"
    )
    assert "a file" not in done.stderr and "Traceback" not in done.stderr


def test_gen_into_a_read_only_folder_names_the_file_it_could_not_write(runner: CliRunner, tmp_path: Path) -> None:
    project = tmp_path / "tools"
    assert runner.invoke(cli, ["init", str(project)]).exit_code == 0
    contract = project / "contracts" / "word_count.yaml"
    contract.write_text(contract.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    generated = project / "generated"
    folders = [generated, *(path for path in generated.rglob("*") if path.is_dir())]
    for folder in folders:
        folder.chmod(0o555)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "toolproof", "gen"],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            preexec_fn=_as_a_user,
        )
    finally:
        for folder in folders:
            folder.chmod(0o755)

    (line,) = done.stderr.splitlines()
    assert done.returncode == 1
    assert line.startswith(f"toolproof: {generated}{os.sep}"), line
    assert line.endswith(
        ": Permission denied; permission denied: give yourself access, or choose a folder you can write to"
    )


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (
            OSError(errno.EADDRNOTAVAIL, "cannot bind 10.9.9.9:80: cannot assign requested address"),
            "cannot bind 10.9.9.9:80: cannot assign requested address; "
            "this machine has no such address: choose another --host",
        ),
        (
            ConnectionResetError(errno.ECONNRESET, os.strerror(errno.ECONNRESET)),
            f"the operating system refused an operation: {os.strerror(errno.ECONNRESET)} (errno {errno.ECONNRESET});"
            " run the command again",
        ),
        (
            OSError("no errno at all"),
            "the operating system refused an operation: no errno at all; run the command again",
        ),
        (
            OSError(errno.EROFS, os.strerror(errno.EROFS), "/data/out.json"),
            f"/data/out.json: {os.strerror(errno.EROFS)}; "
            "the file system is read-only: choose a folder you can write to",
        ),
    ],
    ids=["said what failed", "the system's words alone", "no errno", "a path"],
)
def test_an_os_error_without_a_path_says_what_failed_and_never_a_file(error: OSError, line: str) -> None:
    assert os_error_message(error) == line
