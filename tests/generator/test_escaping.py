"""Contract text reaches generated code only through one escaping function per output language.

Python literals (``pysource.pystr``), Python docstrings (``pysource.docstring``), header comments
(``pysource.comment_text``), TSDoc and TypeScript literals (``typescript.tsdoc`` / ``tsstr``) and Markdown
(``markdown.md_text`` / ``md_code``): whatever a contract's text holds, the generated Python compiles and
imports with no side effect, the TypeScript compiles under ``tsc --strict`` and a docs page keeps its tables.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from toolproof.cli import cli
from toolproof.generator.markdown import md_code, md_text
from toolproof.generator.pysource import comment_text, docstring, pystr
from toolproof.generator.typescript import tsdoc

TSC = Path(__file__).parents[2] / ".venv" / "node" / "node_modules" / ".bin" / "tsc"

PIECES = ['"', "'", '"""', "\\", "*/", "/*", "\n", "\r\n", "\u2028", "\u2029", "\x00", "\x07", "\x85", "\t"]
PIECES += ["coding:utf-7", "-->", "<script>alert(1)</script>", "|", "`", "```", "${x}", "\u00e9", "\U0001f600", " "]
"""What breaks a literal, a comment or a table when written as it is."""

_TEXT = st.lists(
    st.sampled_from(PIECES) | st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=4),
    min_size=1,
    max_size=10,
).map("".join)
"""Arbitrary text, never empty (the contract format refuses an empty title, message or example name), mostly
made of the pieces that break generated files; no lone surrogate: YAML has none."""
_KEY = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True) | st.sampled_from(
    ["from", "class", "None", "async", "constructor", "__proto__", "delete", "default", "toString", "_"]
)
"""A property name: what every provider takes (lint refuses others), Python and TypeScript keywords included."""


def _class(doc: str) -> ast.ClassDef:
    tree = ast.parse(f"class Shape:\n    {doc}\n    a: int\n")
    node = tree.body[0]
    assert isinstance(node, ast.ClassDef)
    return node


@pytest.mark.parametrize(
    "text",
    ['ends in a quote"', '"starts with one', '"', '""', 'holds """ three', 'a \\" quote\\', "NUL \x00 \u2028"],
)
def test_a_description_that_would_close_its_docstring_stays_inside_it(text: str) -> None:
    node = _class(docstring(text, 4, 88))

    assert " ".join((ast.get_docstring(node, clean=False) or "").split()) == " ".join(text.split())


@given(_TEXT, st.integers(0, 12), st.integers(40, 120))
@settings(max_examples=400, deadline=None)
def test_any_text_is_a_python_literal_and_docstring_of_itself(text: str, indent: int, width: int) -> None:
    assert ast.literal_eval(pystr(text)) == text
    doc = ast.get_docstring(_class(docstring(text, 4 + indent, width)), clean=False) or ""
    assert " ".join(doc.split()) == " ".join(text.split())


@given(_TEXT)
@settings(max_examples=300, deadline=None)
def test_a_header_comment_is_one_line_and_never_an_encoding_declaration(text: str) -> None:
    line = comment_text(text)

    assert line.isprintable() and "\n" not in line
    assert re.search(r"coding[:=]", line) is None


@given(_TEXT)
@settings(max_examples=300, deadline=None)
def test_a_tsdoc_line_cannot_end_its_comment(text: str) -> None:
    line = tsdoc(text)

    assert "*/" not in line and line.isprintable()


@given(_TEXT)
@settings(max_examples=300, deadline=None)
def test_markdown_text_cannot_break_a_table_row_or_open_html(text: str) -> None:
    cell = md_text(text)
    code = md_code(text, table=True)

    for shown in (cell, code):
        assert "\n" not in shown and re.search(r"(?<!\\)\|", shown) is None
    assert "<" not in cell


def test_a_title_with_pipes_backticks_html_and_newlines_stays_one_table_safe_line() -> None:
    title = "T | `code` <script>alert(1)</script>\n# heading\u2028*bold*"

    assert md_text(title) == "T \\| \\`code\\` &lt;script>alert(1)&lt;/script> # heading \\*bold\\*"
    assert md_code("a ``b`` | c", table=True) == "```a ``b`` \\| c```"


# -- whole projects: every contract string position, generated and compiled --------------------------------


def _contract(name: str, s: dict[str, Any]) -> dict[str, Any]:
    """A contract whose every free-text position holds ``s``'s text (messages and hints without placeholders)."""
    return {
        "name": name,
        "version": "1.0.0",
        "title": s["title"],
        "description": s["description"],
        "annotations": {"read_only": True, "destructive": False, "idempotent": True, "open_world": False},
        "input": {
            "type": "object",
            "description": s["input_doc"],
            "properties": {
                s["key"]: {"type": "string", "description": s["field_doc"]},
                "mode": {"enum": s["values"], "description": s["enum_doc"]},
                "inner": {
                    "type": "object",
                    "description": s["object_doc"],
                    "properties": {"a": {"const": s["const"], "description": s["inner_doc"]}},
                },
            },
            "additionalProperties": False,
        },
        "output": {
            "type": "object",
            "description": s["output_doc"],
            "properties": {"echo": {"type": "string", "description": s["echo_doc"]}},
            "additionalProperties": False,
        },
        "errors": {"refused": {"message": s["message"], "hint": s["hint"]}},
        "render": {"result": "ok"},
        "examples": [
            {"name": s["example"], "input": {}, "expect": {"output": {}}},
            {"name": "refused", "input": {"mode": s["values"][0]}, "expect": {"error": "refused"}},
        ],
    }


_PLAIN = _TEXT.map(lambda t: t.replace("{", "(").replace("}", ")"))
"""Text without template placeholders (an error message's ``{x}`` must name a parameter)."""
_STRINGS = st.fixed_dictionaries(
    {
        "title": _TEXT.map(lambda t: t[:100]),
        "description": _TEXT,
        "input_doc": _TEXT,
        "field_doc": _TEXT,
        "enum_doc": _TEXT,
        "object_doc": _TEXT,
        "inner_doc": _TEXT,
        "output_doc": _TEXT,
        "echo_doc": _TEXT,
        "key": _KEY.filter(lambda t: t not in ("mode", "inner")),
        "values": st.lists(_TEXT, min_size=1, max_size=3, unique=True),
        "const": _TEXT,
        "message": _PLAIN,
        "hint": _PLAIN,
        "example": _TEXT.filter(lambda t: t != "refused"),
    }
)

_PROBE = """\
import importlib, os, sys
before = sorted(os.listdir("."))
tools = sys.argv[1:]
for tool in tools:
    importlib.import_module("generated." + tool)
import generated
for path in sorted(__import__("pathlib").Path("generated").rglob("*.py")):
    compile(path.read_text(encoding="utf-8"), str(path), "exec")
assert sorted(os.listdir(".")) == before, "importing wrote files"
print("ok")
"""


def _assert_markdown_keeps_its_shape(page: str, where: str) -> None:
    """Outside code blocks: no HTML but the header's comment, every table row as many cells as its header."""
    fence, cells = "", None
    for number, line in enumerate(page.splitlines()[3:], 4):  # after the header's HTML comment
        opened = re.match(r"`{3,}", line)
        if fence:
            fence = "" if line == fence else fence
            continue
        if opened:
            fence = opened.group(0)
            continue
        assert "<" not in re.sub(r"(`+).*?(?<!`)\1(?!`)", "", line), f"{where}:{number}: {line}"  # code shows <
        count = len(re.findall(r"(?<!\\)\|", line)) if line.startswith("|") else None
        if count is None:
            cells = None
        elif cells is None:
            cells = count
        else:
            assert count == cells, f"{where}:{number}: {line}"


def _generate(root: Path, contracts: list[dict[str, Any]]) -> bool:
    """Generate a project of ``contracts``; False when lint refuses them (the property holds for what lint accepts)."""
    (root / "contracts").mkdir(parents=True)
    (root / "handlers").mkdir()
    for data in contracts:
        text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=10_000)
        (root / "contracts" / f"{data['name']}.yaml").write_text(text, encoding="utf-8")
        handler = "def handle(args, ctx):\n    return {}\n"
        (root / "handlers" / f"{data['name']}.py").write_text(handler, encoding="utf-8")
    (root / "pyproject.toml").write_text("[tool.toolproof]\nexports = ['mcp', 'typescript']\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["gen", "--project", str(root)])
    if result.exit_code == 1 and "error(s) in contracts" in result.output:
        return False
    assert result.exit_code == 0, result.output
    return True


@pytest.mark.slow
def test_any_contract_text_generates_python_that_imports_cleanly_typescript_that_compiles_and_intact_docs(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    declarations: list[Path] = []
    accepted = 0

    @given(st.lists(_STRINGS, min_size=3, max_size=3))
    @settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def generate(strings: list[dict[str, Any]]) -> None:
        nonlocal accepted
        root = tmp_path_factory.mktemp("hostile")
        tools = [f"tool_{i}" for i in range(len(strings))]
        ok = _generate(root, [_contract(tool, s) for tool, s in zip(tools, strings, strict=True)])
        assume(ok)
        accepted += 1
        run = subprocess.run(
            [sys.executable, "-c", _PROBE, *tools], cwd=root, capture_output=True, text=True, timeout=120, check=False
        )
        assert run.returncode == 0 and run.stdout == "ok\n", run.stderr + json.dumps(strings)
        declarations.extend(sorted((root / "generated").rglob("*.d.ts")))
        for page in sorted((root / "generated" / "docs").glob("*.md")):
            _assert_markdown_keeps_its_shape(page.read_text(encoding="utf-8"), page.name)

    generate()

    assert accepted > 0, "lint refused every generated project"
    if not TSC.is_file():
        pytest.skip("tsc is not installed (.venv/node)")
    folder = tmp_path_factory.mktemp("tsc")
    for i, path in enumerate(declarations):  # one tsc run over every file: a run costs seconds
        shutil.copy(path, folder / f"{i}_{path.name}")
    run = subprocess.run(
        [str(TSC), "--strict", "--noEmit", *sorted(str(p) for p in folder.iterdir())],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
