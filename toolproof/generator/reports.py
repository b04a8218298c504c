"""``toolproof lint`` reports: the problems found, as text, JSON, GitHub annotations, SARIF 2.1.0 or JUnit XML.

Paths are relative to the project folder, lines and columns 1-based, as in
every problem. Text is what a person reads; the others are for machines:
``json`` (one document), ``github`` (workflow commands that annotate a pull
request), ``sarif`` (code scanning, with every rule's metadata) and ``junit``
(one test case per contract, failing when it has an error).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final
from xml.etree import ElementTree

from toolproof import __version__
from toolproof.generator.problems import RULES, Level, Problem

__all__ = ["FORMATS", "render_report", "summary"]

FORMATS: Final = ("text", "json", "github", "sarif", "junit")
_GITHUB_LEVELS: Final = {Level.ERROR: "error", Level.WARNING: "warning", Level.NOTE: "notice"}
_SARIF_SCHEMA: Final = "https://json.schemastore.org/sarif-2.1.0.json"


def render_report(fmt: str, problems: Sequence[Problem], files: Sequence[str], root: Path) -> str:
    """The report of one lint run.

    Args:
        fmt: one of ``FORMATS``.
        problems: every problem found, in order.
        files: every contract file checked (paths as problems print them), for the JUnit test cases.
        root: the project folder, which every path is relative to.

    Raises:
        ValueError: ``fmt`` is not a known format.
    """
    if fmt == "text":
        return "".join(f"{p}\n" for p in problems)
    if fmt == "json":
        return json.dumps(_json(problems, files), indent=2, ensure_ascii=False) + "\n"
    if fmt == "github":
        return "".join(_github(p) + "\n" for p in problems)
    if fmt == "sarif":
        return json.dumps(_sarif(problems, root), indent=2, ensure_ascii=False) + "\n"
    if fmt == "junit":
        return _junit(problems, files)
    raise ValueError(f"unknown report format {fmt!r}")


def summary(problems: Sequence[Problem]) -> dict[str, int]:
    """How many problems there are at each level."""
    counts = Counter(p.level for p in problems)
    return {"errors": counts[Level.ERROR], "warnings": counts[Level.WARNING], "notes": counts[Level.NOTE]}


def _json(problems: Sequence[Problem], files: Sequence[str]) -> dict[str, Any]:
    return {
        "tool": "toolproof",
        "version": __version__,
        "files": list(files),
        "summary": summary(problems),
        "problems": [
            {
                "file": p.file,
                "line": p.line,
                "column": p.column,
                "level": p.level.value,
                "rule": p.rule.id,
                "name": p.rule.name,
                "message": p.message,
            }
            for p in problems
        ],
    }


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _github(p: Problem) -> str:
    where = f"file={_escape_property(p.file)},line={p.line},col={p.column}"
    title = _escape_property(f"{p.rule.id} {p.rule.name}")
    return f"::{_GITHUB_LEVELS[p.level]} {where},title={title}::{_escape_data(p.message)}"


def _sarif(problems: Sequence[Problem], root: Path) -> dict[str, Any]:
    rules = list(RULES.values())
    index = {r.id: i for i, r in enumerate(rules)}
    return {
        "$schema": _SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "toolproof",
                        "version": __version__,
                        "rules": [
                            {
                                "id": r.id,
                                "name": r.name,
                                "shortDescription": {"text": r.summary},
                                "defaultConfiguration": {"level": r.level.value},
                            }
                            for r in rules
                        ],
                    }
                },
                "originalUriBaseIds": {"PROJECTROOT": {"uri": root.resolve().as_uri() + "/"}},
                "results": [
                    {
                        "ruleId": p.rule.id,
                        "ruleIndex": index[p.rule.id],
                        "level": p.level.value,
                        "message": {"text": p.message},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": p.file, "uriBaseId": "PROJECTROOT"},
                                    "region": {"startLine": p.line, "startColumn": p.column},
                                }
                            }
                        ],
                    }
                    for p in problems
                ],
            }
        ],
    }


def _junit(problems: Sequence[Problem], files: Sequence[str]) -> str:
    cases = sorted({*files, *(p.file for p in problems)})
    errors = {name: [p for p in problems if p.file == name and p.level is Level.ERROR] for name in cases}
    failed = sum(1 for found in errors.values() if found)
    counts = {"tests": str(len(cases)), "failures": str(failed), "errors": "0", "skipped": "0"}
    suites = ElementTree.Element("testsuites", {"name": "toolproof lint", **counts})
    suite = ElementTree.SubElement(suites, "testsuite", {"name": "toolproof lint", **counts})
    for name in cases:
        case = ElementTree.SubElement(suite, "testcase", classname="toolproof.lint", name=name, file=name)
        if errors[name]:
            first = errors[name][0]
            failure = ElementTree.SubElement(
                case, "failure", message=f"{len(errors[name])} error(s); first: {first.message}", type=first.rule.id
            )
            failure.text = "\n".join(str(p) for p in errors[name])
        others = [str(p) for p in problems if p.file == name and p.level is not Level.ERROR]
        if others:
            ElementTree.SubElement(case, "system-out").text = "\n".join(others)
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"
