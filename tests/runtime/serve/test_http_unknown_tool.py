"""REST names a tool the host does not serve as MCP and the CLI do: the catalogued unknown_tool."""

from __future__ import annotations

from pathlib import Path

from tests.asgi import post_json
from toolproof.runtime.errors import STANDARD_ERRORS, UNKNOWN_TOOL
from toolproof.runtime.serve.http import HttpApp
from toolproof.runtime.toolbox import builtin_runtime


def test_a_post_to_a_tool_not_served_is_404_unknown_tool_naming_the_tools_there_are(tmp_path: Path) -> None:
    app = HttpApp(builtin_runtime(workspace=[tmp_path]))

    status, body = post_json(app, "/tools/nope", {}, None)

    assert status == 404
    assert body["code"] == UNKNOWN_TOOL
    assert body["message"].startswith("Unknown tool 'nope'") and "file-read" in body["message"]
    assert body["hint"] == STANDARD_ERRORS[UNKNOWN_TOOL].hint


def test_other_paths_are_still_plain_not_found(tmp_path: Path) -> None:
    app = HttpApp(builtin_runtime(workspace=[tmp_path]))

    answer = post_json(app, "/nothing/here", {}, None)

    assert answer == (404, {"code": "not_found", "message": "no route /nothing/here"})
