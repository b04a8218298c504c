"""``toolproof breaking`` follows shared definitions: a change to one is reported once, at it, naming each tool."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.generator import desk
from toolproof.cli import cli


def _desk(root: Path) -> Path:
    desk.write(root)
    (root / "pyproject.toml").write_text("[tool.toolproof]\n", encoding="utf-8")
    return root


def _drop_pending(root: Path) -> None:
    path = root / "contracts" / "_defs" / "desk.yaml"
    path.write_text(desk.DEFS.replace("[open, pending, closed]", "[open, closed]"), encoding="utf-8")


def _breaking(root: Path, against: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["breaking", "--against", against, "--project", str(root), "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_a_status_value_removed_from_a_shared_definition_is_reported_at_it_naming_every_tool_it_reaches(
    tmp_path: Path,
) -> None:
    old = _desk(tmp_path / "old")
    new = _desk(tmp_path / "new")
    _drop_pending(new)

    report = _breaking(new, str(old))

    at_status = [f for f in report["findings"] if f["file"] == "contracts/_defs/desk.yaml" and f["category"] == "WIRE"]
    assert {(f["rule"], f["level"], f["line"]) for f in at_status} == {
        ("WIRE_INPUT_ENUM_NARROWED", "error", 11),
        ("WIRE_OUTPUT_ENUM_NARROWED", "info", 11),
    }
    named = " ".join(f["message"] for f in at_status)
    for tool in ("get_ticket", "open_ticket", "set_status"):
        assert tool in named
    assert "assign_ticket" not in named and "list_people" not in named
    code = [(f["file"], f["message"]) for f in report["findings"] if f["rule"] == "CODE_FIELD_TYPE_CHANGED"]
    assert code == [
        (
            "contracts/_defs/desk.yaml",
            'the generated type Status (defs.py) changes: Literal["open", "pending", "closed"] → Literal["open",'
            ' "closed"]',
        )
    ]  # once, for the one type, not once per field of each tool
    bumps = [f["file"] for f in report["findings"] if f["rule"] == "VERSION_NOT_BUMPED"]
    assert bumps == ["contracts/set_status.yaml"]  # the only tool whose callers break
    assert report["failed"]


def test_a_major_bump_of_one_tool_leaves_the_shared_finding_an_error_for_the_tool_not_bumped(tmp_path: Path) -> None:
    old = _desk(tmp_path / "old")
    new = _desk(tmp_path / "new")
    _drop_pending(new)
    contract = new / "contracts" / "set_status.yaml"
    contract.write_text(contract.read_text(encoding="utf-8").replace("version: 1.0.0", "version: 2.0.0"), "utf-8")

    report = _breaking(new, str(old))

    narrowed = [f for f in report["findings"] if f["rule"] == "WIRE_INPUT_ENUM_NARROWED"]
    assert [f["level"] for f in narrowed] == ["info"]  # set_status moved to 2.0.0: allowed
    assert not [f for f in report["findings"] if f["rule"] == "VERSION_NOT_BUMPED"]


@pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0, reason="no git")
def test_breaking_against_a_git_ref_reads_the_shared_definitions_as_they_were_at_that_ref(tmp_path: Path) -> None:
    root = _desk(tmp_path / "repo")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "desk"], cwd=root, check=True)
    _drop_pending(root)

    report = _breaking(root, "HEAD")

    assert any(f["file"] == "contracts/_defs/desk.yaml" and "set_status" in f["message"] for f in report["findings"])
