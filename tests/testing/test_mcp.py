"""`toolproof conform` passes our MCP server and catches a broken one, naming each broken example."""

from __future__ import annotations

import dataclasses
import io
import json
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml
from click.testing import CliRunner

import toolproof.builtin.generated
from toolproof.cli import cli
from toolproof.runtime.project import activate, load_config
from toolproof.runtime.spec import ToolSpec, load_specs
from toolproof.testing import ExampleFailure
from toolproof.testing.mcp import (
    DEFINITION,
    DIGEST,
    LISTING,
    SCHEMAS,
    STDERR_LINE_CHARS,
    Outcome,
    _refusal,
    _RpcError,
    run_conformance,
    stderr_excerpt,
)

CONTRACTS = Path(__file__).parents[2] / "toolproof" / "builtin" / "contracts"
OURS = f"{sys.executable} -m toolproof serve mcp --workspace {{workspace}} --skills {{skills}}"
BROKEN = (
    f"{sys.executable} {Path(__file__).parent / 'broken_mcp_server.py'} --workspace {{workspace}} --skills {{skills}}"
)


def test_every_example_passes_against_our_own_server() -> None:
    outcomes = run_conformance(OURS, load_specs(), jobs=2)

    failures = [f"{o.tool}: {o.example}: {o.detail}" for o in outcomes if not o.passed]
    assert failures == []
    assert len(outcomes) == sum(len(spec.examples) for spec in load_specs())


FIXTURES = Path(__file__).resolve().parents[1] / "conformance_project"


def test_resource_and_prompt_examples_pass_against_the_project_that_serves_them_and_are_unlisted_elsewhere() -> None:
    specs = [s for s in load_specs("tests.conformance_project.generated") if s.kind != "tool"]
    theirs = f"{sys.executable} -m toolproof serve mcp --project {FIXTURES}"

    served = run_conformance(theirs, specs, jobs=2)
    elsewhere = run_conformance(OURS, specs, jobs=2)

    assert [f"{o.tool}: {o.example}: {o.detail}" for o in served if not o.passed] == []
    assert len(served) == sum(len(spec.examples) for spec in specs)
    assert sorted((o.tool, o.example, o.passed) for o in elsewhere) == sorted((s.name, LISTING, False) for s in specs)
    assert "the server does not list resource 'static_text' (it lists: skill_doc)" in {o.detail for o in elsewhere}


def test_the_broken_server_fails_exactly_where_it_is_broken() -> None:
    specs = [s for s in load_specs() if s.name in {"read_file_in_skill", "get_skill", "file-read", "read_skill"}]

    outcomes = run_conformance(BROKEN, specs, jobs=2)

    failed = {(o.tool, o.example) for o in outcomes if not o.passed}
    traversals = {
        ("read_file_in_skill", name)
        for name in (
            "path traversal to etc passwd is refused",
            "path traversal with backslashes is refused",
            "a traversal that lands on a real file beside the skills is refused",
            "another skill's files are out of reach",
            "a dot-dot inside the skill that stays inside is allowed",
        )
    }
    assert traversals <= failed
    assert ("get_skill", "an unknown skill is reported") in failed
    assert ("get_skill", "a skill without SKILL.MD is reported") in failed
    assert ("file-read", "reads a file with numbered lines") in failed
    assert ("file-read", "line numbers are right-aligned to the widest") in failed
    assert not {o for o in failed if o[0] == "read_skill"}, "read_skill is not broken"
    assert ("get_skill", "reads a skill's documentation") not in failed, "successes of get_skill are not broken"
    leak = next(o for o in outcomes if o.example == "path traversal to etc passwd is refused")
    assert "expected error 'path_traversal', got success" in leak.detail


def test_the_command_exits_1_naming_failures_and_writes_junit(runner: CliRunner, tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"

    result = runner.invoke(cli, ["conform", "--mcp", BROKEN, "--tool", "read_file_in_skill", "--junit", str(report)])

    assert result.exit_code == 1
    assert "FAIL read_file_in_skill: path traversal to etc passwd is refused" in result.stdout
    assert result.stdout.rstrip().splitlines()[-1].endswith("failed")
    suite = ElementTree.parse(report).getroot()
    assert suite.get("failures") == str(result.stdout.count("FAIL "))
    names = {case.get("name") for case in suite.iter("testcase") if case.find("failure") is not None}
    assert "path traversal to etc passwd is refused" in names


def test_the_command_passes_our_server_for_one_tool(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["conform", "--mcp", OURS, "--toolset", "gateway"])

    assert result.exit_code == 0, result.stdout
    assert result.stdout.rstrip().splitlines()[-1].endswith(" passed, 0 failed")


@pytest.mark.parametrize(
    ("command", "workspaces", "expected"),
    [
        (
            "srv --workspace {workspace} --skills {skills}",
            ["a", "b"],
            ["srv", "--workspace", "A", "--workspace", "B", "--skills", "S"],
        ),
        ("srv --workspace {workspace}", [], ["srv"]),
        ("srv --root={workspace} {dir}", ["a"], ["srv", "--root=A", "D"]),
    ],
)
def test_the_command_template_puts_in_the_roots(command: str, workspaces: list[str], expected: list[str]) -> None:
    from toolproof.testing.mcp import _argv

    argv = _argv(command, Path("D"), [Path(w.upper()) for w in workspaces], Path("S"))

    assert argv == expected


def test_a_tool_the_server_does_not_list_fails_once_naming_it() -> None:
    specs = [s for s in load_specs() if s.name in {"read_skill", "file-read"}]
    only_skills = f"{sys.executable} -m toolproof serve mcp --toolset queryclaw --skills {{skills}}"

    outcomes = run_conformance(only_skills, specs, jobs=2)

    unlisted = [o for o in outcomes if o.tool == "file-read"]
    assert len(unlisted) == 1
    assert unlisted[0].example == LISTING and not unlisted[0].passed
    assert unlisted[0].detail == "the server does not list tool 'file-read' (it lists: read_skill)"
    assert all(o.passed for o in outcomes if o.tool == "read_skill")


def test_the_summary_names_the_project_and_the_tools_checked(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["conform", "--mcp", OURS, "--tool", "get_skill"])

    assert result.exit_code == 0, result.output
    examples = len(next(s for s in load_specs() if s.name == "get_skill").examples)
    assert f": 1 tool(s) checked (1 listed by the server), {examples} example(s)\n" in result.output
    assert result.output.endswith(f"{examples} passed, 0 failed\n")


def _bent(mode: str, revision: str | None = None) -> str:
    server = Path(__file__).parent / "foreign_mcp_server.py"
    negotiates = f" --revision {revision}" if revision else ""
    return f"{sys.executable} {server} --mode {mode}{negotiates} --workspace {{workspace}} --skills {{skills}}"


def _pinned(name: str) -> str:
    """The digest the built-in tools.lock.json pins for ``name``."""
    lock = Path(toolproof.builtin.generated.__file__).parent / "tools.lock.json"
    digest: str = json.loads(lock.read_text(encoding="utf-8"))["tools"][name]["digest"]
    return digest


def _specs(*names: str) -> list[ToolSpec]:
    return [spec for spec in load_specs() if spec.name in names]


def _listing_only(specs: list[ToolSpec], keep: int = 3) -> list[ToolSpec]:
    """``specs`` with their first ``keep`` examples only, for tests of the listing or the framing.

    Each example starts a server; what these tests check happens once per server or once per listing, and the
    tests above replay every example.
    """
    return [dataclasses.replace(spec, examples=spec.examples[:keep]) for spec in specs]


def test_a_server_that_names_no_codes_passes_when_its_texts_are_the_contracts() -> None:
    outcomes = run_conformance(_bent("foreign"), _specs("get_skill", "file-read", "read_file"), jobs=4)

    assert [f"{o.tool}: {o.example}: {o.detail}" for o in outcomes if not o.passed] == []
    assert len(outcomes) == sum(len(spec.examples) for spec in _specs("get_skill", "file-read", "read_file"))


def test_a_server_answering_every_call_with_one_uncoded_error_fails_every_example() -> None:
    outcomes = run_conformance(_bent("constant_error"), _specs("get_skill"), jobs=4)

    assert [o.example for o in outcomes if o.passed] == []
    unknown = next(o for o in outcomes if o.example == "an unknown skill is reported")
    assert 'its text "nope" is not the contract\'s rendering of any catalogued error' in unknown.detail


def test_an_error_text_other_than_the_rendering_of_its_meta_code_fails() -> None:
    outcomes = run_conformance(_bent("wrong_text"), _specs("get_skill"), jobs=4)

    failed = {o.example for o in outcomes if not o.passed}
    errors = {e["name"] for e in _specs("get_skill")[0].examples if "error" in e["expect"]}
    assert failed == errors


@pytest.mark.parametrize(
    ("mode", "detail"),
    [
        ("bad_output", "structuredContent breaks the output schema: $.skill_name: required property is missing"),
        ("no_structured", "a successful result without structuredContent"),
    ],
)
def test_a_success_must_carry_structured_content_the_output_schema_accepts(mode: str, detail: str) -> None:
    outcomes = run_conformance(_bent(mode), _specs("get_skill"), jobs=4)

    failed = {o.example: o.detail for o in outcomes if not o.passed}
    successes = {e["name"] for e in _specs("get_skill")[0].examples if "error" not in e["expect"]}
    assert set(failed) == successes
    assert detail in failed["reads a skill's documentation"]


def test_a_tool_listed_with_other_schemas_fails_once_naming_the_difference() -> None:
    outcomes = run_conformance(_bent("loose_schema"), _specs("get_skill"), jobs=4)

    mismatched = [o for o in outcomes if o.example == SCHEMAS]
    assert len(mismatched) == 1 and not mismatched[0].passed
    assert mismatched[0].detail.startswith(
        "tools/list gives 'get_skill' an inputSchema other than the contract's:"
        ' $.properties: the server has nothing, the contract has {"skill_name": '
    )
    assert "; tools/list gives 'get_skill' no outputSchema; the contract's is {" in mismatched[0].detail
    assert [o.tool for o in outcomes if o.example == DIGEST] == ["get_skill"], "so is its digest"
    assert all(o.passed for o in outcomes if o.example not in (SCHEMAS, DIGEST)), "its examples still run, and pass"


def test_the_summary_counts_the_tools_listed_with_other_schemas(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["conform", "--mcp", _bent("loose_schema"), "--tool", "get_skill"])

    assert result.exit_code == 1
    examples = len(_specs("get_skill")[0].examples)
    checked = (
        "1 tool(s) checked (1 listed by the server, 1 with schemas other than the contract's,"
        " 1 with a digest other than the pinned one)"
    )
    assert f": {checked}, {examples} example(s)\n" in result.output
    assert result.output.endswith(f"{examples} passed, 2 failed\n")


def test_an_answer_that_is_not_json_rpc_2_0_fails() -> None:
    outcomes = run_conformance(_bent("jsonrpc_1"), _specs("get_skill"), jobs=4)

    assert len(outcomes) == 1 and outcomes[0].example == LISTING and not outcomes[0].passed
    assert outcomes[0].detail.startswith(
        'the server could not be listed: the server wrote a message with "jsonrpc": "1.0" while initialize waited;'
        ' JSON-RPC 2.0 requires "2.0": '
    )


def test_an_answer_holding_a_result_and_an_error_fails() -> None:
    outcomes = run_conformance(_bent("both"), _specs("get_skill"), jobs=4)

    assert [o.example for o in outcomes if o.passed] == []
    assert outcomes[0].detail.startswith("the answer to tools/call must hold exactly one of result and error: ")


def _failures(outcomes: list[Outcome]) -> list[str]:
    return [f"{o.tool}: {o.example}: {o.detail}" for o in outcomes if not o.passed]


def _examples(spec: ToolSpec, error: str | None) -> set[str]:
    """The names of the examples of ``spec`` that expect ``error`` (None: that expect a success)."""
    return {e["name"] for e in spec.examples if e["expect"].get("error") == error}


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-03-26"])
def test_a_server_of_a_revision_before_structured_content_passes_on_its_texts(revision: str) -> None:
    names = ("get_skill", "read_skill", "file-read")

    outcomes = run_conformance(_bent("foreign,unstructured", revision), _specs(*names), jobs=4)

    assert _failures(outcomes) == []
    assert len(outcomes) == sum(len(spec.examples) for spec in _specs(*names))


def test_under_a_revision_before_structured_content_a_success_text_must_render_the_expected_output() -> None:
    outcomes = run_conformance(_bent("foreign,unstructured,wrong_success_text", "2025-03-26"), _specs("read_skill"))

    failed = {o.example: o.detail for o in outcomes if not o.passed}
    successes = [e for e in _specs("read_skill")[0].examples if "error" not in e["expect"]]
    shown = {e["name"] for e in successes if {"output", "text"} & set(e["expect"])}
    assert set(failed) == shown, "a text that ends in '!' still contains what text_contains names"
    assert all("expected text " in detail for detail in failed.values())


def test_under_a_revision_before_structured_content_a_whole_output_text_is_read_as_the_output() -> None:
    outcomes = run_conformance(_bent("foreign,unstructured,wrong_success_text", "2025-03-26"), _specs("get_skill"))

    failed = {o.example: o.detail for o in outcomes if not o.passed}
    assert set(failed) == _examples(_specs("get_skill")[0], None)
    assert (
        "under MCP 2025-03-26 a success carries no structuredContent, and its text"
        in failed["reads a skill's documentation"]
    )


def test_a_server_that_negotiated_2025_06_18_still_owes_the_output_schema_and_structured_content() -> None:
    outcomes = run_conformance(_bent("foreign,unstructured", "2025-06-18"), _specs("get_skill"), jobs=4)

    failed = {o.example: o.detail for o in outcomes if not o.passed}
    assert set(failed) == {SCHEMAS, DEFINITION, DIGEST} | _examples(_specs("get_skill")[0], None)
    assert failed[DIGEST].endswith(f"; the pin is {_pinned('get_skill')}")
    assert failed[DEFINITION] == "tools/list gives 'get_skill' no title; the contract's is \"Get skill\""
    assert failed[SCHEMAS].startswith("tools/list gives 'get_skill' no outputSchema; the contract's is {")
    assert "a successful result without structuredContent" in failed["reads a skill's documentation"]


def test_a_server_that_negotiates_a_revision_it_was_not_offered_fails() -> None:
    outcomes = run_conformance(_bent("foreign", "2099-01-01"), _specs("get_skill"))

    assert [(o.example, o.passed) for o in outcomes] == [(LISTING, False)]
    assert outcomes[0].detail == (
        "the server could not be listed: initialize answered protocolVersion '2099-01-01'; the client asked for"
        " '2025-11-25' and speaks 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25"
    )


@pytest.mark.parametrize("revision", ["2025-03-26", "2025-06-18"])
def test_invalid_arguments_may_be_a_json_rpc_error_up_to_2025_06_18(revision: str) -> None:
    names = ("read_skill", "file-read")

    outcomes = run_conformance(_bent("foreign,args_as_rpc", revision), _specs(*names), jobs=4)

    assert _failures(outcomes) == []
    assert len(outcomes) == sum(len(spec.examples) for spec in _specs(*names))


def test_invalid_arguments_as_a_json_rpc_error_fail_from_2025_11_25() -> None:
    outcomes = run_conformance(_bent("foreign,args_as_rpc"), _specs("read_skill"), jobs=4)

    failed = {o.example: o.detail for o in outcomes if not o.passed}
    assert set(failed) == _examples(_specs("read_skill")[0], "invalid_arguments")
    assert all(
        detail.startswith("tools/call answered invalid arguments with JSON-RPC error -32602 (")
        and detail.endswith(
            "); under MCP 2025-11-25 input validation errors are tool execution errors (isError) the model reads"
            " and corrects from; a JSON-RPC error is accepted only from a server that negotiated 2025-06-18 or"
            " earlier"
        )
        for detail in failed.values()
    )


def test_a_json_rpc_invalid_params_error_must_carry_the_invalid_arguments_message() -> None:
    refused = _RpcError("tools/call", {"code": -32602, "message": "bad input"})

    with pytest.raises(ExampleFailure) as failure:
        _refusal(_specs("read_skill")[0], "invalid_arguments", refused, "2025-06-18")

    assert str(failure.value) == (
        "tools/call answered invalid arguments with JSON-RPC error -32602 whose message 'bad input' does not fit"
        " the contract's invalid_arguments message 'Invalid arguments: {detail}'"
    )


@pytest.mark.parametrize("code", [-32603, -32602])
def test_a_json_rpc_error_for_an_example_expecting_another_error_still_fails(code: int) -> None:
    refused = _RpcError("tools/call", {"code": code, "message": "Invalid arguments: $.x: no"})

    with pytest.raises(_RpcError):
        _refusal(_specs("read_skill")[0], "skill_not_found", refused, "2025-06-18")


def test_blank_lines_between_messages_are_skipped() -> None:
    outcomes = run_conformance(_bent("foreign,blank_lines"), _listing_only(_specs("get_skill")), jobs=4)

    assert _failures(outcomes) == []
    assert len(outcomes) == 3


def test_schemas_that_differ_only_in_annotations_and_type_spelling_pass_the_listing() -> None:
    outcomes = run_conformance(_bent("foreign,annotated"), _listing_only(_specs("get_skill", "read_file")), jobs=4)

    assert _failures([o for o in outcomes if o.example != DIGEST]) == []
    # the digest is exact: a client that pinned it sees another definition, however little its meaning changed
    assert sorted(o.tool for o in outcomes if o.example == DIGEST) == ["get_skill", "read_file"]


def test_a_listed_title_the_contract_lacks_still_fails_the_listing() -> None:
    outcomes = run_conformance(_bent("foreign,titled"), _listing_only(_specs("get_skill")), jobs=4)

    mismatched = [o.detail for o in outcomes if o.example == SCHEMAS]
    assert mismatched == [
        "tools/list gives 'get_skill' an inputSchema other than the contract's:"
        ' $.properties.skill_name.title: the server has "Skill_Name", the contract has nothing'
    ]


def test_a_tool_listed_with_another_title_description_or_hint_fails_once_naming_each_difference(
    runner: CliRunner,
) -> None:
    outcomes = run_conformance(_bent("foreign,misdescribed"), _listing_only(_specs("get_skill")), jobs=4)
    # The server appends " Also writes it." to the contract's description: they differ from just after its end.
    described = yaml.safe_load((CONTRACTS / "get_skill.yaml").read_text(encoding="utf-8"))["description"]

    assert [o.detail for o in outcomes if o.example == DEFINITION] == [
        "tools/list gives 'get_skill' a title other than the contract's: from character 1:"
        ' the server has "Another title", the contract has "Get skill"; '
        f"tools/list gives 'get_skill' a description other than the contract's: from character {len(described) + 1}:"
        ' the server has "... documentation file. Also writes it.", the contract has "... documentation file."; '
        "tools/list gives 'get_skill' annotations.readOnlyHint leaves it out (MCP's default: false);"
        " the contract's is true"
    ]
    [digest] = [o.detail for o in outcomes if o.example == DIGEST]
    assert digest.startswith("tools/list serves 'get_skill' with digest sha256:")
    assert digest.endswith(f"; the pin is {_pinned('get_skill')}")
    assert all(o.passed for o in outcomes if o.example not in (DEFINITION, DIGEST)), "its examples still run, and pass"
    result = runner.invoke(cli, ["conform", "--mcp", _bent("foreign,misdescribed"), "--tool", "get_skill"])
    assert (
        "1 listed by the server, 1 with another title, description or annotations,"
        " 1 with a digest other than the pinned one)"
    ) in result.output


def test_an_expected_error_output_the_server_does_not_send_fails_saying_where_conform_looked() -> None:
    outcomes = run_conformance(_bent("foreign"), _specs("read_file_in_skill"), jobs=4)

    failed = {o.example: o.detail for o in outcomes if not o.passed}
    objects = {e["name"] for e in _specs("read_file_in_skill")[0].examples if "error_output" in e["expect"]}
    assert set(failed) == objects
    assert all(
        'got none: looked in result._meta["dev.toolproof/error"].output and structuredContent' in detail
        for detail in failed.values()
    )


def test_an_error_output_sent_as_structured_content_by_a_server_without_meta_passes() -> None:
    outcomes = run_conformance(_bent("foreign,error_structured"), _specs("read_file_in_skill"), jobs=4)

    assert _failures(outcomes) == []


@pytest.mark.parametrize(
    ("mode", "detail"),
    [
        ("foreign,wrong_hint", "renders 'invalid_arguments' with a hint other than the catalogue's"),
        (
            "wrong_hint",
            "is not the contract's rendering of the error 'invalid_arguments' the server names in _meta"
            ' with the hint "Correct the argument named in the message and call the tool again."',
        ),
    ],
    ids=["without-meta", "with-meta"],
)
def test_an_error_text_showing_another_hint_than_the_contracts_fails(mode: str, detail: str) -> None:
    outcomes = run_conformance(_bent(mode), _specs("read_file"), jobs=4)

    failed = {o.example: o.detail for o in outcomes if not o.passed}
    assert set(failed) == {e["name"] for e in _specs("read_file")[0].examples if "error" in e["expect"]}
    assert detail in failed["a limit over 2000 breaks the schema"]


_CRASHING = """\
import sys

print("Error: Cannot find module './tools.js'", file=sys.stderr)
for frame in range(2, 100):
    print(f"    at frame {frame} (node:internal/modules/cjs/loader:{frame})", file=sys.stderr)
print("Node.js v22.3.0", file=sys.stderr)
sys.exit(1)
"""


def test_a_server_that_dies_at_start_shows_the_head_and_the_tail_of_its_stderr_once(
    runner: CliRunner, tmp_path: Path
) -> None:
    """Only the last 400 characters were shown: for Node, the end of a stack trace without the error that began it."""
    server = tmp_path / "crashing_server.py"
    server.write_text(_CRASHING, encoding="utf-8")
    report = tmp_path / "junit.xml"
    tools = ["--tool", "read_file_in_skill", "--tool", "get_skill"]

    result = runner.invoke(cli, ["conform", "--mcp", f"{sys.executable} {server}", *tools, "--junit", str(report)])

    frames = [f"    at frame {n} (node:internal/modules/cjs/loader:{n})" for n in range(2, 100)]
    excerpt = [
        "Error: Cannot find module './tools.js'",
        *frames[:19],
        "... 60 lines omitted ...",
        *frames[-19:],
        "Node.js v22.3.0",
    ]
    lines = result.stdout.splitlines()
    start = lines.index("    its stderr:")
    assert result.exit_code == 1
    assert lines[start - 1] == "    the server could not be listed: the server exited before answering initialize"
    assert lines[start + 1 : start + 1 + len(excerpt)] == ["      " + line for line in excerpt]
    assert result.stdout.count("    its stderr: as shown above") == 1  # the other tool failed alike
    errs = [case.text or "" for case in ElementTree.parse(report).getroot().iter("system-err")]
    assert errs == ["\n".join(excerpt)] * 2


def test_a_stderr_line_of_a_minified_bundle_is_cut_and_a_short_stderr_shown_whole() -> None:
    bundle = io.BytesIO(b"\n\n" + b"x" * 5_000_000 + b"\n\x1b[31mTypeError: boom\n\n")

    assert stderr_excerpt(bundle) == "x" * STDERR_LINE_CHARS + " [...]\n\\x1b[31mTypeError: boom"


CONFORMANCE_PROJECT = Path(__file__).parents[1] / "conformance_project"


def test_conform_replays_scripted_answers_against_a_server_that_asks_by_elicitation() -> None:
    project = load_config(CONFORMANCE_PROJECT / "pyproject.toml")
    activate(project)
    specs = [spec for spec in load_specs(project.package) if spec.name == "delete_note"]
    command = f"{sys.executable} -m toolproof serve mcp --project {{project}} --workspace {{workspace}}"

    outcomes = run_conformance(command, specs, jobs=2, project=CONFORMANCE_PROJECT)

    assert [(o.example, o.passed) for o in outcomes if not o.passed] == []
    assert len(outcomes) == len(specs[0].examples) == 5  # confirmed, declined, cancelled, not askable, missing
