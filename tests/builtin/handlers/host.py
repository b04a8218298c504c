"""A host of the built-in tools, as an embedding host builds one, and a model's calls through it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.host import HostOptions
from toolproof.runtime.project import builtin_project
from toolproof.runtime.result import ToolResult
from toolproof.runtime.toolbox import open_runtime

SESSION = "s1"
SECRET = b"0123456789abcdef0123456789abcdef"


@dataclass(frozen=True, slots=True)
class Host:
    """A runtime and the skillToken its session got by reading the SKILL.md, as a model gets it."""

    runtime: Runtime
    token: str

    def call(self, tool: str, args: dict[str, Any]) -> ToolResult:
        """Call ``tool``; a ``read_file`` call carries the session's skillToken."""
        if tool == "read_file":
            args = {**args, "skillToken": self.token}
        return self.runtime.call(tool, args, session=SESSION)


def open_host(*workspace: Path) -> Host:
    """The built-in tools with ``workspace`` exactly as given (an embedding host's ``HostOptions``)."""
    runtime = open_runtime(builtin_project(), HostOptions(workspace=workspace, gate_secret=SECRET))
    return Host(runtime, token_of(runtime))


def token_of(runtime: Runtime) -> str:
    """The skillToken a complete read of the gated SKILL.md hands out in the session."""
    document = runtime.call("read_file", {"path": "builtin://read_file/SKILL.md"}, session=SESSION)
    token = document.output["skillToken"]
    assert isinstance(token, str)
    return token


def error_of(result: ToolResult) -> tuple[str, str]:
    """(code, message) of a failed call."""
    assert result.error is not None, f"expected an error, got {result.text[:200]!r}"
    return result.error.code, result.error.message
