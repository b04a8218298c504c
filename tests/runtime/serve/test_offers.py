"""Resources, resource templates, prompts and completions over the MCP core (``serve/offers.py``), in process."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Final

import pytest

from toolproof.runtime import HostOptions, find_project, open_runtime
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.serve.mcp import HANDSHAKE_VERSIONS, McpServer
from toolproof.runtime.serve.offers import ERROR_DATA_KEY, RESOURCE_NOT_FOUND
from toolproof.runtime.spec import generated_json
from toolproof.runtime.toolbox import builtin_runtime

PROJECT: Final = Path(__file__).resolve().parents[2] / "conformance_project"
PACKAGE: Final = "tests.conformance_project.generated"
HANDSHAKE: Final = {
    "protocolVersion": HANDSHAKE_VERSIONS[-1],
    "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"},
}
MODERN: Final = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


@pytest.fixture(scope="module")
def runtime() -> Runtime:
    return open_runtime(find_project(PROJECT), HostOptions())


def _ask(server: McpServer, method: str, params: dict[str, Any] | None = None, *, modern: bool = False) -> Any:
    if modern:
        params = {**(params or {}), "_meta": MODERN}
    answer = server.answer({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}})
    assert answer is not None
    return answer.get("result", answer.get("error"))


def _server(runtime: Runtime) -> McpServer:
    server = McpServer(runtime, package=PACKAGE)
    _ask(server, "initialize", HANDSHAKE)
    return server


def test_initialize_advertises_resources_prompts_and_completions_only_where_there_are_some(runtime: Runtime) -> None:
    offered = _ask(McpServer(runtime, package=PACKAGE), "initialize", HANDSHAKE)["capabilities"]
    tools = next(s for s in runtime.specs if s.name == "test_simple_text")
    only_tools = Runtime([BoundTool.build(tools, lambda args, ctx: {"text": "x"})])
    bare = _ask(McpServer(only_tools, package=PACKAGE), "initialize", HANDSHAKE)["capabilities"]

    assert offered["resources"] == {"subscribe": False, "listChanged": False}
    assert offered["prompts"] == {"listChanged": False} and offered["completions"] == {}
    assert {"resources", "prompts", "completions"}.isdisjoint(bare)


def test_the_lists_are_the_generated_mcp_export_and_tools_list_holds_only_tools(runtime: Runtime) -> None:
    server = _server(runtime)
    exported = generated_json(PACKAGE, "exports/mcp/all.json")

    assert _ask(server, "resources/list")["resources"] == exported["resources"]
    assert _ask(server, "resources/templates/list")["resourceTemplates"] == exported["resourceTemplates"]
    assert _ask(server, "prompts/list")["prompts"] == exported["prompts"]
    tools = {t["name"] for t in _ask(server, "tools/list")["tools"]}
    assert "test_simple_prompt" not in tools and "static_text" not in tools and "test_simple_text" in tools
    modern = _ask(server, "prompts/list", modern=True)
    assert (modern["ttlMs"], modern["cacheScope"], modern["resultType"]) == (60_000, "private", "complete")


def test_a_fixed_uri_and_a_template_are_read_with_the_contracts_mime_type(runtime: Runtime) -> None:
    server = _server(runtime)

    text = _ask(server, "resources/read", {"uri": "test://static-text"})
    data = _ask(server, "resources/read", {"uri": "test://template/7/data"}, modern=True)

    assert text == {
        "contents": [
            {
                "uri": "test://static-text",
                "mimeType": "text/plain",
                "text": "This is the content of the static text resource.",
            }
        ]
    }
    assert data["contents"] == [
        {
            "uri": "test://template/7/data",
            "mimeType": "application/json",
            "text": '{"id":"7","templateTest":true,"data":"Data for ID: 7"}',
        }
    ]
    assert (data["ttlMs"], data["cacheScope"]) == (0, "private")  # read afresh each time: never reused


def test_a_uri_no_resource_answers_to_is_not_found_as_each_revision_says(runtime: Runtime) -> None:
    server = _server(runtime)
    uri = "test://nowhere"

    old = _ask(server, "resources/read", {"uri": uri})
    new = _ask(server, "resources/read", {"uri": uri}, modern=True)

    assert old == {"code": RESOURCE_NOT_FOUND, "message": "Resource not found", "data": {"uri": uri}}
    assert new == {"code": -32602, "message": "Resource not found", "data": {"uri": uri}}


def test_a_handlers_catalogued_error_is_an_invalid_params_error_naming_it(runtime: Runtime) -> None:
    refused = _ask(_server(runtime), "resources/read", {"uri": "test://template/abc/data"})

    assert refused["code"] == -32602 and refused["message"] == "No data for id 'abc'"
    assert refused["data"] == {
        "uri": "test://template/abc/data",
        ERROR_DATA_KEY: {"code": "unknown_id", "message": "No data for id 'abc'", "hint": "Use a number as the id."},
    }


def test_content_over_max_bytes_is_refused_as_too_large(runtime: Runtime) -> None:
    spec = next(s for s in runtime.specs if s.name == "static_text")
    assert spec.resource is not None
    small = replace(spec, resource={**spec.resource, "max_bytes": 10})
    server = _server(Runtime([BoundTool.build(small, lambda args, ctx: {"text": "eleven byte"})]))

    refused = _ask(server, "resources/read", {"uri": "test://static-text"})

    assert refused["code"] == -32602
    assert refused["data"][ERROR_DATA_KEY]["code"] == "response_too_large"


def test_a_prompt_is_got_with_its_arguments_validated_as_a_tools_are(runtime: Runtime) -> None:
    server = _server(runtime)
    args = {"arg1": "hello", "arg2": "world"}

    got = _ask(server, "prompts/get", {"name": "test_prompt_with_arguments", "arguments": args})
    missing = _ask(server, "prompts/get", {"name": "test_prompt_with_arguments", "arguments": {"arg1": "x"}})
    unknown = _ask(server, "prompts/get", {"name": "static_text"})
    called = _ask(server, "tools/call", {"name": "test_simple_prompt", "arguments": {}})

    assert got == {
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Prompt with arguments: arg1='hello', arg2='world'"}}
        ]
    }
    assert missing["code"] == -32602 and missing["data"][ERROR_DATA_KEY]["code"] == "invalid_arguments"
    assert unknown == {"code": -32602, "message": "Unknown prompt: static_text", "data": {"name": "static_text"}}
    assert called == {"code": -32602, "message": "Unknown tool: test_simple_prompt"}  # a prompt is no tool


def test_completions_come_from_an_enum_and_from_the_hosts_skills(tmp_path: Path) -> None:
    (tmp_path / "calc").mkdir()
    (tmp_path / "calc" / "SKILL.md").write_text("---\nname: calc\ndescription: Adds.\n---\n# Calc\n", encoding="utf-8")
    server = McpServer(builtin_runtime(skills=[tmp_path], gate_secret=b"offers"))
    _ask(server, "initialize", HANDSHAKE)
    prompt = {"type": "ref/prompt", "name": "use_skill"}
    template = {"type": "ref/resource", "uri": "skill://{skill_name}/SKILL.md"}

    enum = _ask(server, "completion/complete", {"ref": prompt, "argument": {"name": "skill_name", "value": "c"}})
    folders = _ask(server, "completion/complete", {"ref": template, "argument": {"name": "skill_name", "value": ""}})
    nothing = _ask(
        server,
        "completion/complete",
        {"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": ""}},
    )

    assert enum == {"completion": {"values": ["calc"], "total": 1, "hasMore": False}}
    assert folders == {"completion": {"values": ["calc"], "total": 1, "hasMore": False}}  # no built-in skill
    assert nothing["code"] == -32602


def test_the_skill_resource_refuses_hostile_names_as_get_skill_does(tmp_path: Path) -> None:
    (tmp_path / "skills" / "calc").mkdir(parents=True)
    (tmp_path / "skills" / "calc" / "SKILL.md").write_text("# Calc\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("SECRET", encoding="utf-8")
    (tmp_path / "skills" / "leak").mkdir()
    (tmp_path / "skills" / "leak" / "SKILL.md").symlink_to(tmp_path / "secret.txt")
    server = McpServer(builtin_runtime(skills=[tmp_path / "skills"], gate_secret=b"offers"))
    _ask(server, "initialize", HANDSHAKE)

    codes = {
        uri: _ask(server, "resources/read", {"uri": uri})["data"][ERROR_DATA_KEY]["code"]
        for uri in (
            "skill://..%2Fsecret.txt%00/SKILL.md",
            "skill://../SKILL.md",
            "skill://leak/SKILL.md",
            "skill:///SKILL.md",
        )
    }

    assert codes == {
        "skill://..%2Fsecret.txt%00/SKILL.md": "invalid_skill_name",
        "skill://../SKILL.md": "invalid_skill_name",
        "skill://leak/SKILL.md": "outside_skills_folder",
        "skill:///SKILL.md": "invalid_skill_name",
    }
    assert _ask(server, "resources/read", {"uri": "skill://calc/SKILL.md"})["contents"][0]["text"] == "# Calc\n"


def test_a_resource_or_prompt_whose_needs_the_host_lacks_is_not_offered() -> None:
    server = McpServer(Runtime(resources=()))  # the built-in set, but no skills: skill_doc and use_skill need them
    initialized = _ask(server, "initialize", HANDSHAKE)

    assert {"resources", "prompts", "completions"}.isdisjoint(initialized["capabilities"])
    assert _ask(server, "resources/templates/list")["resourceTemplates"] == []
    assert _ask(server, "prompts/get", {"name": "use_skill", "arguments": {"skill_name": "x"}})["code"] == -32602
