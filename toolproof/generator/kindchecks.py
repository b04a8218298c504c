"""The checks of resource and prompt contracts (rules TP501-TP505), beside the ones every contract gets."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from toolproof.generator.kinds import kind_of
from toolproof.generator.problems import Problem
from toolproof.generator.source import Source
from toolproof.runtime.uritemplate import UriTemplate, UriTemplateError

__all__ = ["kind_problems"]


def kind_problems(source: Source) -> list[Problem]:
    """The problems of a contract's kind-specific parts (none for a tool); ``source`` passed the meta-schema."""
    data: Mapping[str, Any] = source.data
    kind = kind_of(data)
    if kind == "tool":
        return []
    problems = _resource(source, data) if kind == "resource" else _prompt(source, data)
    props = data["input"].get("properties", {})
    for name in data.get("completions", {}):
        prop = props.get(name)
        if not isinstance(prop, Mapping) or prop.get("type") != "string":
            message = f"completions names '{name}', which is no string argument"
            problems.append(source.problem(("completions", name), "completion-source", message, key=True))
        elif "enum" in prop or name in data.get("dynamic_enums", {}):
            message = f"'{name}' completes from its enum already; leave it out of completions"
            problems.append(source.problem(("completions", name), "completion-source", message, key=True))
    return problems


def _resource(source: Source, data: Mapping[str, Any]) -> list[Problem]:
    problems = []
    uri = data["resource"]["uri"]
    try:
        template = UriTemplate(uri)
    except UriTemplateError as exc:
        return [source.problem(("resource", "uri"), "resource-uri-template", f"resource.uri: {exc}")]
    inputs = data["input"]
    props = inputs.get("properties", {})
    required = set(inputs.get("required", ()))
    for name in template.variables:
        if name not in props:
            problems.append(
                source.problem(
                    ("resource", "uri"),
                    "resource-uri-parameters",
                    f"URI template variable '{name}' is not an input property",
                )
            )
        elif name not in required:
            problems.append(
                source.problem(
                    ("input", "required"),
                    "resource-uri-parameters",
                    f"URI template variable '{name}' must be required: a URI always carries it",
                )
            )
        elif not isinstance(props[name], Mapping) or props[name].get("type") != "string":
            problems.append(
                source.problem(
                    ("input", "properties", name),
                    "resource-uri-parameters",
                    f"URI template variable '{name}' must be a string field (type: string)",
                )
            )
    for name in props:
        if name not in template.variables:
            problems.append(
                source.problem(
                    ("input", "properties", name),
                    "resource-uri-parameters",
                    f"input property '{name}' is no variable of the URI template {uri!r}",
                    key=True,
                )
            )
    limit = data["resource"].get("max_bytes")
    if limit is not None:
        for index, example in enumerate(data["examples"]):
            size = _content_size(example.get("expect", {}).get("output"))
            if size is not None and size > limit:
                problems.append(
                    source.problem(
                        ("examples", index, "expect", "output"),
                        "resource-max-bytes",
                        f"the expected content takes {size} bytes, more than max_bytes ({limit})",
                    )
                )
    return problems


def _content_size(output: Any) -> int | None:
    """The bytes of a resource's expected content (None when there is none to measure)."""
    if not isinstance(output, Mapping):
        return None
    if isinstance(output.get("text"), str):
        return len(output["text"].encode("utf-8", "surrogatepass"))
    if isinstance(output.get("blob"), str):
        try:
            return len(base64.b64decode(output["blob"], validate=True))
        except (binascii.Error, ValueError):
            return None
    return None


def _prompt(source: Source, data: Mapping[str, Any]) -> list[Problem]:
    props = data.get("input", {}).get("properties", {})
    return [
        source.problem(
            ("input", "properties", name),
            "prompt-argument-type",
            f"prompt argument '{name}' must be a string field (type: string)",
        )
        for name, prop in props.items()
        if not isinstance(prop, Mapping) or prop.get("type") != "string"
    ]
