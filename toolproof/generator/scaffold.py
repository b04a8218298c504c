"""``toolproof init`` and ``toolproof new``: a project that passes its own checks, and a tool skeleton.

``init`` writes a project with one working tool (a contract with examples and
errors, its handler), the settings, a test entry point and the two commands
(``make gen``, ``make test``); the caller then generates. ``new`` adds a
contract and a handler skeleton whose generated tests fail until it is written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Final

import yaml

from toolproof import __version__
from toolproof.generator.naming import class_name, module_name

__all__ = ["ScaffoldError", "init_project", "new_tool"]

_TOOL_NAME: Final = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$")


class ScaffoldError(Exception):
    """A file that init or new would write exists already, or a name is not allowed."""


def _distribution(folder: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", folder.name).strip("-._")
    return name.lower() or "tools"


_PYPROJECT: Final = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "0.1.0"
description = "LLM tools defined by toolproof contracts."
requires-python = ">=3.11"
dependencies = [
    # generated/ is stamped with the toolproof that wrote it, and `toolproof gen --check` fails under any other.
    # To upgrade, do both together: raise this pin and `pip install -U .`, then `make gen`; commit the two.
    "toolproof=={toolproof}",
    # Add here what your handlers import: `pip install .` (and CI) installs it.
]

[project.optional-dependencies]
# What `make test` and CI need beside the host: pytest and Hypothesis run the generated tests.
test = ["toolproof[testing]=={toolproof}"]

[tool.setuptools]
# `pip install .` installs the dependencies and no package: the tools run from this folder, which toolproof
# puts on the import path (installed, contracts/, generated/ and handlers/ would be generic top-level names).
packages = []

[tool.toolproof]
contracts = "contracts"
generated = "generated"
handlers = "handlers"
# include = ["gateway"]        # serve built-in file tool sets beside your own (`toolproof toolsets`)
# resources = ["host:resources"]   # a function returning what your handlers need (docs: Concepts, resources)
# Which formats `toolproof gen` writes under generated/exports/ (mcp always: the host serves from it). Also:
# "openai-responses", "gemini", "gemini-openapi" (per tool set), "jsonschema", "typescript", "vectors", "contract"
# (per tool).
# exports = ["mcp", "openai", "anthropic"]

[tool.toolproof.export.accept-losses]
# What each provider's tool definitions cannot say, accepted with why it is safe, so that `toolproof lint` notes
# only the losses you can act on (one line per tool; `toolproof lint --verbose` lists each). An entry that matches
# no loss any more is a warning (TP406): remove it. An entry is TOOL:SCHEMA[POINTER][:KEYWORD], * for any one.
openai = [
    "*:output:output",  # no field for a tool's output schema: the model reads the rendered result text
    "*:input/properties/*:required",  # strict mode requires every property: an optional one may be null, read as absent
]
openai-responses = [
    "*:output:output",  # no field for a tool's output schema: the model reads the rendered result text
    "*:input/properties/*:required",  # strict mode requires every property: an optional one may be null, read as absent
]
anthropic = [
    "*:output:output",  # no field for a tool's output schema: the model reads the rendered result text
    "*:input/properties/*:minimum",  # strict mode rejects bounds: moved to the description, the runtime enforces them
]
gemini-openapi = [
    "*:output:output",  # no field for a tool's output schema: the model reads the rendered result text
    "*:input:additionalProperties",  # this form cannot close an object: the runtime refuses extra keys
]

[tool.pytest.ini_options]
testpaths = ["tests", "generated/tests"]
pythonpath = ["."]
addopts = ["--import-mode=importlib"]
"""

_MAKEFILE: Final = """\
# The project's two commands.
.PHONY: gen test

gen:
\ttoolproof gen

test:
\t@python -c "import pytest, hypothesis" 2>/dev/null || \\
\t\t{ echo "make test: the tests need pytest and Hypothesis: pip install -e '.[test]'" >&2; exit 1; }
\ttoolproof gen --check
\ttoolproof lint
\tpython -m pytest -q
"""

_GITIGNORE: Final = "__pycache__/\n.pytest_cache/\n.hypothesis/\n*.egg-info/\nbuild/\n"

_GITATTRIBUTES: Final = """\
# LF on every platform: generated files carry their contracts' sha256, and `toolproof gen --check` compares bytes.
* text=auto eol=lf
"""

_WORD_COUNT: Final = """\
name: word_count
version: 1.0.0
title: Count words
description: >-
  Count the words and characters of a text. Use it when the user asks how long
  a text is; words are runs of characters between white space. Returns both
  counts.
annotations: {read_only: true, destructive: false, idempotent: true, open_world: false}
input:
  type: object
  properties:
    text: {type: string, description: The text to count.}
    max_words:
      type: integer
      minimum: 1
      description: Refuse texts with more words than this.
  required: [text]
  additionalProperties: false
output:
  type: object
  properties:
    words: {type: integer, minimum: 0}
    characters: {type: integer, minimum: 0}
  required: [words, characters]
  additionalProperties: false
errors:
  too_many_words:
    message: "The text has {words} words; the limit is {max_words}"
    hint: Send a shorter text or raise max_words.
    status: 403  # a refusal of a request the schema allows: 403 or 404, never 422 (fuzzers expect 2xx)
    params:
      words: {type: integer, description: How many words the text has.}
render:
  result: "{words} words, {characters} characters"
examples:
  - name: counts words and characters
    input: {text: "to be or not to be"}
    expect: {output: {words: 6, characters: 18}, text: "6 words, 18 characters"}
  - name: an empty text has no words
    input: {text: ""}
    expect: {output: {words: 0, characters: 0}}
  - name: a text over the limit is refused
    input: {text: "one two three", max_words: 2}
    expect:
      error: too_many_words
      message: "The text has 3 words; the limit is 2"
  - name: a missing text breaks the schema
    input: {}
    expect: {error: invalid_arguments}
"""

_WORD_COUNT_HANDLER: Final = '''\
"""word_count: count the words and characters of a text."""

from __future__ import annotations

from generated import word_count as contract
from toolproof.runtime import ToolContext


def handle(args: contract.WordCountInput, ctx: ToolContext) -> contract.WordCountOutput:
    """Words are runs of non-space characters."""
    text = args["text"]
    words = len(text.split())
    limit = args.get("max_words")
    if limit is not None and words > limit:
        raise contract.too_many_words(words=words, max_words=limit)
    return {"words": words, "characters": len(text)}
'''

_GLOSSARY: Final = """\
kind: resource
name: glossary
version: 1.0.0
title: Glossary
description: >-
  What a term of this project means, as Markdown. Read it when a text uses a
  term you do not know.
resource:
  uri: "glossary://{term}"   # an RFC 6570 template: each {variable} is an input property
  mime_type: text/markdown   # textual, so the handler returns {text}
  max_bytes: 4096
  annotations: {audience: [user, assistant], priority: 0.5}
input:
  type: object
  properties:
    term: {type: string, description: The term to explain.}
  required: [term]
  additionalProperties: false
errors:
  unknown_term:
    message: "No entry for '{term}' in the glossary"
    hint: Read glossary://word for one that exists.
examples:
  - name: explains a word
    input: {term: word}
    expect: {output: {text: "# word\\n\\nA run of characters between white space.\\n"}}
  - name: a term it lacks is refused
    input: {term: sentence}
    expect: {error: unknown_term, message: "No entry for 'sentence' in the glossary"}
"""

_GLOSSARY_HANDLER: Final = '''\
"""glossary: the project's terms, one Markdown entry each."""

from __future__ import annotations

from typing import Final

from generated import glossary as contract
from toolproof.runtime import ToolContext

ENTRIES: Final = {
    "word": "A run of characters between white space.",
    "character": "One Unicode code point of a text.",
}


def handle(args: contract.GlossaryInput, ctx: ToolContext) -> contract.GlossaryOutput:
    """The entry of ``term`` as Markdown."""
    term = args["term"]
    if term not in ENTRIES:
        raise contract.unknown_term(term=term)
    return {"text": f"# {term}\\n\\n{ENTRIES[term]}\\n"}
'''

_COUNT_REQUEST: Final = """\
kind: prompt
name: count_request
version: 1.0.0
title: Ask for a count
description: >-
  Ask the model to count the words or the characters of a text with the
  word_count tool.
input:
  type: object
  properties:
    text: {type: string, description: The text to count.}
    unit: {type: string, enum: [words, characters], description: What to count (completed from the enum).}
  required: [text, unit]
  additionalProperties: false
errors: {}
examples:
  - name: asks for the words of a text
    input: {text: "to be or not to be", unit: words}
    expect:
      output:
        messages:
          - role: user
            content: {type: text, text: "How many words has this text? Use word_count.\\n\\nto be or not to be"}
  - name: a unit it does not know breaks the schema
    input: {text: "a b", unit: lines}
    expect: {error: invalid_arguments}
"""

_COUNT_REQUEST_HANDLER: Final = '''\
"""count_request: a user message asking for a count."""

from __future__ import annotations

from generated import count_request as contract
from toolproof.runtime import ToolContext


def handle(args: contract.CountRequestInput, ctx: ToolContext) -> contract.CountRequestOutput:
    """One user message: the question, then the text."""
    text = f"How many {args['unit']} has this text? Use word_count.\\n\\n{args['text']}"
    return {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]}
'''

_TEST_ENTRY: Final = '''\
"""The project's own tests; the contract examples run from generated/tests."""

from __future__ import annotations

from pathlib import Path

from toolproof.runtime import HostOptions, find_project, open_runtime


def test_the_project_serves_word_count() -> None:
    runtime = open_runtime(find_project(Path(__file__).parent.parent), HostOptions())
    result = runtime.call("word_count", '{"text": "a b c"}')
    assert result.output == {"words": 3, "characters": 5}
'''


def _write_new(files: dict[Path, str]) -> list[Path]:
    clashes = [path for path in files if path.exists()]
    if clashes:
        raise ScaffoldError(f"{', '.join(str(p) for p in clashes)} exist(s) already; nothing was written")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)


_TS_SETTINGS: Final = """\
# toolproof settings of a TypeScript project: `toolproof gen` writes generated/typescript/ (a module per tool,
# tools.ts, which binds each to src/handlers/<module>.ts, and runtime/, which runs them as their contracts say)
# and the vectors `npm test` replays with no Python.
contracts = "contracts"
generated = "generated"
exports = ["mcp", "vectors"]

[export]
languages = ["typescript"]
"""

_TS_PACKAGE: Final = """\
{{
  "name": "{name}",
  "version": "0.1.0",
  "private": true,
  "type": "module",
  "scripts": {{
    "gen": "toolproof gen",
    "build": "tsc -p .",
    "test": "tsc -p . && node --test dist/test/",
    "start": "node dist/src/server.js"
  }},
  "dependencies": {{
    "@modelcontextprotocol/sdk": "1.32.2",
    "ajv": "8.20.0"
  }},
  "devDependencies": {{
    "@types/node": "20.19.9",
    "typescript": "5.9.3"
  }}
}}
"""

_TS_CONFIG: Final = """\
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "exactOptionalPropertyTypes": true,
    "rootDir": ".",
    "outDir": "dist",
    "skipLibCheck": true,
    "types": ["node"]
  },
  "include": ["src", "test", "generated/typescript"]
}
"""

_TS_HANDLER: Final = """\
// word_count: count the words and characters of a text.
import { WordCountErrors, type WordCountInput, type WordCountOutput } from "../../generated/typescript/word_count.js";

/** Words are runs of non-space characters. */
export function handle(args: WordCountInput): WordCountOutput {
  const words = args.text.split(/\\s+/).filter((word) => word.length > 0).length;
  if (args.max_words !== undefined && words > args.max_words) {
    throw WordCountErrors.too_many_words({ words, max_words: args.max_words });
  }
  return { words, characters: [...args.text].length };
}
"""

_TS_SERVER: Final = """\
// The project's MCP server on the official TypeScript SDK: it lists each tool as its contract exports it and
// answers each call as the contract says (the runtime gen writes into generated/typescript/runtime/).
// `toolproof conform --mcp "node dist/src/server.js"`.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { toMcp, unknownTool } from "../generated/typescript/runtime/index.js";
import { tools } from "../generated/typescript/tools.js";

const server = new Server({ name: "{name}", version: "0.1.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: tools.map((tool) => structuredClone(tool.contract.definition) as Tool),
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const tool = tools.find((candidate) => candidate.name === request.params.name);
  if (tool === undefined) return unknownTool(request.params.name, tools);
  return toMcp(await tool.call(request.params.arguments ?? {}));
});
await server.connect(new StdioServerTransport());
"""

_TS_TEST: Final = """\
// Every contract example, replayed from the vectors `toolproof gen` wrote: no Python needed.
import { readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";
import { replay, unsupported, type Vectors } from "../generated/typescript/runtime/index.js";
import { tools } from "../generated/typescript/tools.js";

const folder = new URL("../../generated/exports/vectors/", import.meta.url);
for (const file of readdirSync(folder).filter((name) => name.endsWith(".json")).sort()) {
  const vectors = JSON.parse(readFileSync(new URL(file, folder), "utf-8")) as Vectors;
  const tool = tools.find((candidate) => candidate.name === vectors.tool);
  for (const example of vectors.examples) {
    const skip = tool === undefined ? "no handler is bound to it" : unsupported(example);
    test(`${vectors.tool}: ${example.name}`, { skip: skip ?? false }, async () => {
      if (tool !== undefined) await replay(tool, example);
    });
  }
}
"""

_TS_GITIGNORE: Final = "node_modules/\ndist/\n__pycache__/\n"


def _init_typescript(folder: Path) -> list[Path]:
    name = _distribution(folder)
    return _write_new(
        {
            folder / "toolproof.toml": _TS_SETTINGS,
            folder / "package.json": _TS_PACKAGE.format(name=name),
            folder / "tsconfig.json": _TS_CONFIG,
            folder / ".gitignore": _TS_GITIGNORE,
            folder / ".gitattributes": _GITATTRIBUTES,
            folder / "contracts" / "word_count.yaml": _WORD_COUNT,
            folder / "src" / "handlers" / "word_count.ts": _TS_HANDLER,
            folder / "src" / "server.ts": _TS_SERVER.replace("{name}", name),
            folder / "test" / "vectors.test.ts": _TS_TEST,
        }
    )


def _ts_handler_skeleton(module: str) -> str:
    prefix = class_name(module)
    return f"""\
// {module}: write what this handler does.
import type {{ {prefix}Input, {prefix}Output }} from "../../generated/typescript/{module}.js";

/** Implement the contract; throw its errors with `{prefix}Errors.<code>(...)` from the same module. */
export function handle(args: {prefix}Input): {prefix}Output {{
  throw new Error("{module} is not written yet");
}}
"""


def init_project(folder: Path, lang: str = "python") -> list[Path]:
    """Write a new project into ``folder`` (created if needed); returns the files written.

    ``lang`` ``"typescript"`` writes a TypeScript project: handlers in ``src/handlers``, an MCP server on the
    official TypeScript SDK, and an ``npm test`` that replays the contract vectors.

    Raises:
        ScaffoldError: one of the files exists already (nothing is written then).
    """
    folder = folder.resolve()
    if lang == "typescript":
        return _init_typescript(folder)
    settings = folder / "pyproject.toml"
    if settings.is_file():  # a Python project already: say how to make it a toolproof one instead
        try:
            made = "[tool.toolproof]" in settings.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            made = False
        advice = (
            "this folder is a toolproof project already; `toolproof new TOOL` adds a tool"
            if made
            else "to make this folder a toolproof project, add an empty [tool.toolproof] table to its pyproject.toml"
            " (defaults: contracts/, generated/, handlers/), then run `toolproof new TOOL`"
        )
        raise ScaffoldError(f"{settings} exists already; nothing was written: {advice}")
    return _write_new(
        {
            folder / "pyproject.toml": _PYPROJECT.format(name=_distribution(folder), toolproof=__version__),
            folder / "Makefile": _MAKEFILE,
            folder / ".gitignore": _GITIGNORE,
            folder / ".gitattributes": _GITATTRIBUTES,
            folder / "contracts" / "word_count.yaml": _WORD_COUNT,
            folder / "handlers" / "__init__.py": '"""Handlers: one module per contract, each with `handle`."""\n',
            folder / "handlers" / "word_count.py": _WORD_COUNT_HANDLER,
            folder / "contracts" / "glossary.yaml": _GLOSSARY,
            folder / "handlers" / "glossary.py": _GLOSSARY_HANDLER,
            folder / "contracts" / "count_request.yaml": _COUNT_REQUEST,
            folder / "handlers" / "count_request.py": _COUNT_REQUEST_HANDLER,
            folder / "tests" / "__init__.py": "",
            folder / "tests" / "test_project.py": _TEST_ENTRY,
        }
    )


def _title(name: str) -> str:
    """The skeleton's title: the name's words, the first capitalised (``greet-people``: ``Greet people``), or ''."""
    title = " ".join(word for word in re.split(r"[_-]+", name) if word)
    return title[:1].upper() + title[1:]


def _yaml_text(text: str) -> str:
    """``text`` as a YAML scalar that reads back as this string: plain when it does, else double-quoted.

    ``null``, ``yes``, ``On``, ``0x1f`` or ``1`` written plain would be read as null, a boolean or a number.
    """
    try:
        plain = yaml.safe_load(text) == text
    except yaml.YAMLError:
        plain = False
    return text if plain else json.dumps(text)


def _contract_skeleton(name: str, title: str) -> str:
    return f"""\
name: {_yaml_text(name)}
version: 0.1.0
title: {_yaml_text(title)}
description: >-
  Say what {name} does and when a model should call it.
annotations: {{read_only: true, destructive: false, idempotent: true, open_world: false}}
input:
  type: object
  properties:
    text: {{type: string, description: What the tool works on.}}
  required: [text]
  additionalProperties: false
output:
  type: object
  properties:
    result: {{type: string}}
  required: [result]
  additionalProperties: false
errors:
  refused:
    message: "Cannot work on '{{text}}'"
    hint: Say how the model can call the tool so that it succeeds.
    status: 403  # a refusal of a request the schema allows: 403 or 404, never 422 (fuzzers expect 2xx)
render:
  result: "{{result}}"
examples:
  - name: answers a text
    input: {{text: hello}}
    expect: {{output: {{result: hello}}, text: hello}}
  - name: refuses an empty text
    input: {{text: ""}}
    expect: {{error: refused, message: "Cannot work on ''"}}
"""


def _handler_skeleton(module: str, package: str) -> str:
    prefix = class_name(module)  # as gen names the module's classes (``_1``: ``_1Input``)
    return f'''\
"""{module}: write what this handler does."""

from __future__ import annotations

from {package} import {module} as contract
from toolproof.runtime import ToolContext


def handle(args: contract.{prefix}Input, ctx: ToolContext) -> contract.{prefix}Output:
    """Implement the contract; raise its errors with ``contract.<code>(...)``."""
    raise NotImplementedError("{module} is not written yet")
'''


def new_tool(
    name: str, contracts: Path, handlers: Path, package: str, *, typescript: Path | None = None, python: bool = True
) -> list[Path]:
    """Add ``contracts/<name>.yaml`` and a handler skeleton per language; returns the files written.

    Args:
        name: the tool's wire name.
        contracts: the project's contracts folder.
        handlers: the folder of the Python handlers (``<module>.py``), written unless not ``python``.
        package: the generated package's import name, which a Python handler imports.
        typescript: the folder of the TypeScript handlers (``<module>.ts``, bound by generated ``tools.ts``), if any.
        python: whether the project's handlers are in Python (``[export] languages``).

    Raises:
        ScaffoldError: the name is not a tool name, makes no title (``_``), or a file exists already.
    """
    if not _TOOL_NAME.match(name):
        raise ScaffoldError(f"{name!r} is not a tool name (letters, digits, _ and -, starting with a letter or _)")
    module = module_name(name)
    title = _title(name)
    if not title:  # the contract format needs a title, and a model reads it: "_" gives none
        raise ScaffoldError(
            f"{name!r} makes no title for {contracts.name}/{module}.yaml: a tool name needs a letter or a digit"
            " besides _ and -; nothing was written"
        )
    handler: dict[Path, str] = {}
    if python:
        handler[handlers / f"{module}.py"] = _handler_skeleton(module, package)
    if typescript is not None:
        handler[typescript / f"{module}.ts"] = _ts_handler_skeleton(module)
    return _write_new({contracts / f"{module}.yaml": _contract_skeleton(name, title), **handler})
