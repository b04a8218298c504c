"""The support-desk project of issue 29: a ``person`` object and a ticket ``status`` shared by five tools.

Written once in ``contracts/_defs/desk.yaml``; each tool reaches them from its input, its output or both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

DEFS: Final = """\
description: What the support desk's tools share.
$defs:
  Person:
    type: object
    description: Someone the desk knows.
    properties:
      name: {type: string, minLength: 1}
      email: {type: string, format: email}
    required: [name, email]
    additionalProperties: false
  Status:
    description: Where a ticket stands.
    enum: [open, pending, closed]
"""

PERSON: Final = '{$ref: "_defs/desk.yaml#/$defs/Person"}'
STATUS: Final = '{$ref: "_defs/desk.yaml#/$defs/Status"}'
ANN: Final = "annotations: {read_only: false, destructive: false, idempotent: false, open_world: false}"

TOOLS: Final[dict[str, tuple[str, list[str], str, dict[str, Any], dict[str, Any]]]] = {
    "open_ticket": (
        f"requester: {PERSON}\n    subject: {{type: string}}",
        ["requester", "subject"],
        f"id: {{type: integer}}\n    status: {STATUS}",
        {"requester": {"name": "Ann", "email": "ann@example.com"}, "subject": "help"},
        {"id": 1, "status": "open"},
    ),
    "get_ticket": (
        "id: {type: integer}",
        ["id"],
        f"id: {{type: integer}}\n    status: {STATUS}\n    requester: {PERSON}",
        {"id": 1},
        {"id": 1, "status": "open", "requester": {"name": "Ann", "email": "ann@example.com"}},
    ),
    "set_status": (
        f"id: {{type: integer}}\n    status: {STATUS}",
        ["id", "status"],
        f"status: {STATUS}",
        {"id": 1, "status": "closed"},
        {"status": "closed"},
    ),
    "assign_ticket": (
        f"id: {{type: integer}}\n    assignee: {PERSON}",
        ["id", "assignee"],
        f"assignee: {PERSON}",
        {"id": 1, "assignee": {"name": "Bo", "email": "bo@example.com"}},
        {"assignee": {"name": "Bo", "email": "bo@example.com"}},
    ),
    "list_people": (
        "limit: {type: integer, minimum: 1}",
        ["limit"],
        f"people: {{type: array, items: {PERSON}}}",
        {"limit": 10},
        {"people": [{"name": "Ann", "email": "ann@example.com"}]},
    ),
}


def contract(name: str) -> str:
    """The contract of one desk tool."""
    props, required, out, given, expected = TOOLS[name]
    return f"""\
name: {name}
version: 1.0.0
title: {name.replace("_", " ").capitalize()}
description: The support desk's {name.replace("_", " ")} tool.
{ANN}
input:
  type: object
  properties:
    {props}
  required: {required}
  additionalProperties: false
output:
  type: object
  properties:
    {out}
  required: {sorted(expected)}
  additionalProperties: false
examples:
  - name: answers
    input: {given}
    expect: {{output: {expected}}}
errors: {{}}
"""


def handler(name: str) -> str:
    """A handler answering the example of one desk tool."""
    expected = TOOLS[name][4]
    return f"def handle(args, ctx):\n    return {expected!r}\n"


def write(root: Path) -> None:
    """Lay the desk's contracts, shared file and handlers into the project at ``root`` (made by ``toolproof init``)."""
    contracts = root / "contracts"
    (root / "handlers").mkdir(parents=True, exist_ok=True)
    contracts.mkdir(exist_ok=True)
    for path in contracts.glob("*.yaml"):
        path.unlink()
    (contracts / "_defs").mkdir(exist_ok=True)
    (contracts / "_defs" / "desk.yaml").write_text(DEFS, encoding="utf-8")
    for name in TOOLS:
        (contracts / f"{name}.yaml").write_text(contract(name), encoding="utf-8")
        (root / "handlers" / f"{name}.py").write_text(handler(name), encoding="utf-8")
    for module in ("word_count", "glossary", "count_request"):  # init's tool, resource and prompt
        old = root / "handlers" / f"{module}.py"
        if old.exists():
            old.unlink()
