"""Hostile paths against every file tool: nothing outside the roots is read, nothing hangs.

The test folder holds the allowed roots (``workspace/``, ``skills/``) and, beside
them, files whose content carries a marker. Every attack must end in a
catalogued error within seconds, no text or output may carry the marker, and
no successful file access may be audited outside the roots.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolproof.builtin.files.audit import AuditRecord
from toolproof.builtin.skills.catalog import builtin_skills_dir
from toolproof.builtin.skills.gate import builtin_dir
from toolproof.builtin.skills.resources import skill_gate
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.result import ToolResult
from toolproof.runtime.toolbox import builtin_runtime

MARKER = "SECRET-7f3a9c"
SESSION = "hostile"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    base = tmp_path_factory.mktemp("hostile")
    (base / "secret.txt").write_text(f"{MARKER} outside\n", encoding="utf-8")
    (base / "workspace-evil").mkdir()
    (base / "workspace-evil" / "x.txt").write_text(f"{MARKER} sibling\n", encoding="utf-8")
    (base / "skills-evil" / "evil").mkdir(parents=True)
    (base / "skills-evil" / "evil" / "SKILL.MD").write_text(f"{MARKER} skill\n", encoding="utf-8")
    (base / "skills-evil" / "evil" / "SKILL.md").write_text(
        f"---\nname: evil\ndescription: {MARKER}\n---\n{MARKER}\n", encoding="utf-8"
    )
    ws = base / "workspace"
    (ws / "sub").mkdir(parents=True)
    (ws / "a.txt").write_text("alpha\n", encoding="utf-8")
    skill = base / "skills" / "calculator"
    (skill / "examples").mkdir(parents=True)
    (skill / "SKILL.MD").write_text("# Calculator\n", encoding="utf-8")
    (skill / "examples" / "basic.py").write_text("x = 1\n", encoding="utf-8")
    for folder in (ws, skill):
        (folder / "link-out").symlink_to("../secret.txt" if folder == ws else "../../secret.txt")
        (folder / "abs-link").symlink_to(base / "secret.txt")
        (folder / "dir-link").symlink_to(base)
        (folder / "root-link").symlink_to("/")
        (folder / "dangling-out").symlink_to(base / "not-yet-there")
        (folder / "loop-a").symlink_to("loop-b")
        (folder / "loop-b").symlink_to("loop-a")
        (folder / "dev-zero").symlink_to("/dev/zero")
        (folder / "proc-env").symlink_to("/proc/self/environ")
        (folder / "evil-sibling").symlink_to(base / "workspace-evil" / "x.txt")
        os.link(base / "secret.txt", folder / "hard-link")
        os.mkfifo(folder / "pipe")
    (base / "skills" / "escape").symlink_to(base / "skills-evil" / "evil")
    (base / "skills" / "leaky").mkdir()
    (base / "skills" / "leaky" / "SKILL.MD").symlink_to(base / "secret.txt")
    (base / "skills" / "leaky" / "SKILL.md").symlink_to(base / "secret.txt")
    (base / "skills" / "hardlinked").mkdir()
    os.link(base / "secret.txt", base / "skills" / "hardlinked" / "SKILL.MD")
    os.link(base / "skills-evil" / "evil" / "SKILL.md", base / "skills" / "hardlinked" / "SKILL.md")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(ws / "sock"))
    yield base
    sock.close()


_RECORDS: list[AuditRecord] = []
"""Every file access of the module's runtime (cleared by each test that reads it)."""


@pytest.fixture(scope="module")
def runtime(base: Path) -> Runtime:
    return builtin_runtime(
        workspace=[base / "workspace"], skills=[base / "skills"], gate_secret=b"hostile", audit=_RECORDS.append
    )


@pytest.fixture(scope="module")
def token(runtime: Runtime) -> str:
    gate = skill_gate(runtime, "read_file")
    assert gate is not None
    return gate.token(SESSION)


PATH_ATTACKS = [
    "../secret.txt",
    "../../secret.txt",
    "../../../../../../../../etc/passwd",
    "/etc/passwd",
    "/etc/shadow",
    "~/.ssh/id_rsa",
    "~",
    "~root/.bashrc",
    "file:///etc/passwd",
    "file://localhost/etc/passwd",
    "%2e%2e%2fsecret.txt",
    "%252e%252e%252fsecret.txt",
    "..\\secret.txt",
    "..\\..\\..\\Windows\\System32",
    "C:\\Windows\\win.ini",
    "\\\\srv\\share\\x",
    "//srv/share/x",
    "sub/../../secret.txt",
    "sub/./../../secret.txt",
    "sub//../../secret.txt",
    "a.txt\x00.png",
    "link-out",
    "abs-link",
    "dir-link/secret.txt",
    "root-link/etc/passwd",
    "dangling-out",
    "loop-a",
    "/proc/self/root/etc/passwd",
    "/proc/self/cwd/secret.txt",
    "/proc/self/environ",
    "pipe",
    "/dev/zero",
    "dev-zero",
    "proc-env",
    "../workspace-evil/x.txt",
    "evil-sibling",
    "hard-link",
    "x" * 5000,
    "n" * 300,
]

CASES: list[tuple[str, dict[str, Any]]] = []
for attack in PATH_ATTACKS:
    CASES.append(("read_file_in_skill", {"skill_name": "calculator", "file_path": attack}))
    CASES.append(("file-read", {"path": attack}))
    CASES.append(("read_file", {"path": attack, "TOKEN": True}))
CASES += [
    ("read_file", {"path": "sock", "TOKEN": True}),
    ("file-read", {"path": "sock"}),
    ("read_file", {"path": "BASE/workspace-evil/x.txt", "TOKEN": True}),
    ("read_file", {"path": "BASE/secret.txt", "TOKEN": True}),
    ("read_file", {"path": "secret.txt", "cwd": "BASE", "TOKEN": True}),
    ("read_file", {"path": "x.txt", "cwd": "BASE/workspace-evil", "TOKEN": True}),
    ("read_file", {"path": "etc/passwd", "cwd": "/", "TOKEN": True}),
    ("read_file", {"path": "../../secret.txt", "cwd": "BASE/workspace/sub", "TOKEN": True}),
    ("read_file", {"path": "secret.txt", "cwd": "BASE/workspace/dir-link", "TOKEN": True}),
    ("read_file", {"path": "builtin://read_file/../../../secret.txt", "TOKEN": True}),
    ("read_file", {"path": "builtin://../../etc/passwd", "TOKEN": True}),
    ("file-read", {"path": "BASE/secret.txt"}),
    ("file-read", {"path": "BASE/workspace-evil/x.txt"}),
    ("read_file_in_skill", {"skill_name": "..", "file_path": "secret.txt"}),
    ("read_file_in_skill", {"skill_name": ".", "file_path": "calculator/SKILL.MD"}),
    ("read_file_in_skill", {"skill_name": "../skills-evil/evil", "file_path": "SKILL.MD"}),
    ("read_file_in_skill", {"skill_name": "escape", "file_path": "SKILL.MD"}),
    ("read_file_in_skill", {"skill_name": "/etc", "file_path": "passwd"}),
    ("read_file_in_skill", {"skill_name": "~", "file_path": ".ssh/id_rsa"}),
    ("read_file_in_skill", {"skill_name": "calculator\x00", "file_path": "SKILL.MD"}),
    ("read_file_in_skill", {"skill_name": "leaky", "file_path": "SKILL.MD"}),
    ("get_skill", {"skill_name": "../skills-evil/evil"}),
    ("get_skill", {"skill_name": ".."}),
    ("get_skill", {"skill_name": "."}),
    ("get_skill", {"skill_name": "/etc"}),
    ("get_skill", {"skill_name": "escape"}),
    ("get_skill", {"skill_name": "leaky"}),
    ("get_skill", {"skill_name": "..\\skills-evil\\evil"}),
    ("get_skill", {"skill_name": "calculator/../../skills-evil/evil"}),
    ("get_skill", {"skill_name": "%2e%2e"}),
    ("get_skill", {"skill_name": "evil\x00"}),
    ("get_skill", {"skill_name": "~"}),
    ("read_skill", {"skill_name": "../skills-evil/evil"}),
    ("read_skill", {"skill_name": "escape"}),
    ("read_skill", {"skill_name": "evil"}),
    ("read_skill", {"skill_name": "/etc/passwd"}),
    ("read_skill", {"skill_name": "leaky"}),
    ("read_file_in_skill", {"skill_name": "hardlinked", "file_path": "SKILL.MD"}),
    ("get_skill", {"skill_name": "hardlinked"}),
    ("read_skill", {"skill_name": "hardlinked"}),
]


def _call(runtime: Runtime, tool: str, args: dict[str, Any], limit: float = 10.0) -> ToolResult:
    box: dict[str, ToolResult] = {}
    worker = threading.Thread(target=lambda: box.setdefault("r", runtime.call(tool, json.dumps(args), session=SESSION)))
    worker.start()
    worker.join(limit)
    assert not worker.is_alive(), f"{tool}({args!r}) did not finish in {limit} s"
    return box["r"]


def _resolve(args: dict[str, Any], base: Path, token: str) -> dict[str, Any]:
    out = {k: v.replace("BASE", str(base)) if isinstance(v, str) else v for k, v in args.items() if k != "TOKEN"}
    if args.get("TOKEN"):
        out["skillToken"] = token
    return out


def test_there_are_at_least_sixty_distinct_hostile_cases() -> None:
    assert len({(tool, json.dumps(args, sort_keys=True)) for tool, args in CASES}) >= 60


@pytest.mark.parametrize(("tool", "args"), CASES, ids=[f"{t}:{json.dumps(a)[:60]}" for t, a in CASES])
def test_a_hostile_path_ends_in_a_catalogued_error_and_reads_nothing_outside(
    runtime: Runtime, base: Path, token: str, tool: str, args: dict[str, Any]
) -> None:
    records = _RECORDS
    records.clear()

    result = _call(runtime, tool, _resolve(args, base, token))

    assert result.error is not None, f"{tool} read {args!r}: {result.text[:200]!r}"
    assert result.error.code != "internal_error"
    assert result.error.code in {s.name: s for s in runtime.specs}[tool].errors
    assert MARKER not in result.text
    assert MARKER not in json.dumps(result.to_dict())
    roots = (base / "workspace", base / "skills", builtin_skills_dir(), builtin_dir())
    for record in records:
        if record.outcome == "ok":
            assert any(Path(record.path).is_relative_to(root) for root in roots), record


def _swap_forever(target: Path, safe: bytes, evil: str, stop: threading.Event) -> None:
    """Replace ``target`` by a regular file, then by a symlink to ``evil``, atomically, until stopped."""
    staging_file, staging_link = target.with_name(".swap-file"), target.with_name(".swap-link")
    while not stop.is_set():
        staging_file.write_bytes(safe)
        os.replace(staging_file, target)
        staging_link.unlink(missing_ok=True)
        staging_link.symlink_to(evil)
        os.replace(staging_link, target)


@pytest.mark.parametrize(
    ("tool", "args", "where", "refusal"),
    [
        (
            "read_file_in_skill",
            {"skill_name": "calculator", "file_path": "race.txt"},
            "skills/calculator/race.txt",
            "path_traversal",
        ),
        ("file-read", {"path": "race.txt"}, "workspace/race.txt", "outside_workspace"),
        ("read_file", {"path": "race.txt", "TOKEN": True}, "workspace/race.txt", "outside_allowed"),
        ("get_skill", {"skill_name": "racer"}, "skills/racer/SKILL.MD", "outside_skills_folder"),
    ],
)
def test_swapping_a_file_for_a_symlink_while_reading_never_leaks(
    runtime: Runtime, base: Path, token: str, tool: str, args: dict[str, Any], where: str, refusal: str
) -> None:
    target = base / where
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"safe\n")
    stop = threading.Event()
    swapper = threading.Thread(target=_swap_forever, args=(target, b"safe\n", str(base / "secret.txt"), stop))
    swapper.start()
    outcomes: dict[str, int] = {}
    deadline = time.monotonic() + 1.5
    try:
        calls = 0
        while time.monotonic() < deadline or calls < 200:
            result = _call(runtime, tool, _resolve(args, base, token))
            assert MARKER not in result.text, f"leak after {calls} calls"
            key = "ok" if result.ok else (result.error.code if result.error else "?")
            outcomes[key] = outcomes.get(key, 0) + 1
            calls += 1
            if calls >= 2000:
                break
    finally:
        stop.set()
        swapper.join()
    assert set(outcomes) <= {"ok", refusal}, outcomes
    assert outcomes.get("ok", 0) > 0, f"the race never let a safe read through: {outcomes}"


def test_a_contract_that_denies_symlinks_refuses_even_those_that_stay_inside(tmp_path: Path) -> None:
    from dataclasses import replace

    from toolproof.runtime.registry import BoundTool
    from toolproof.testing.replay import bound_tool

    tool = bound_tool("read_file_in_skill")
    denying = BoundTool.build(replace(tool.spec, settings={**tool.spec.settings, "symlinks": "deny"}), tool.handler)
    skill = tmp_path / "skills" / "calculator"
    skill.mkdir(parents=True)
    (skill / "real.txt").write_text("inside\n", encoding="utf-8")
    (skill / "alias.txt").symlink_to("real.txt")
    following = builtin_runtime(skills=[tmp_path / "skills"], tools=[tool])
    refusing = builtin_runtime(skills=[tmp_path / "skills"], tools=[denying])
    args = {"skill_name": "calculator", "file_path": "alias.txt"}

    assert following.call("read_file_in_skill", args).text == "inside\n"
    refused = refusing.call("read_file_in_skill", args)
    assert refused.error is not None and refused.error.code == "path_traversal"
