"""What gen writes to publish a project's server: the MCP registry's ``server.json`` and an MCPB bundle manifest.

Both are written when ``[tool.toolproof.publish] formats`` asks for them, from the
settings there and, for what those leave out, the ``[project]`` table of
pyproject.toml (name, version, description, first author, ``Repository`` and
``Homepage`` URLs). They list the project's tools (MCPB: names and descriptions, all
its format holds) and each tool's pinned digest (``runtime.digests``) under
``_meta``, and gen rewrites them whenever a contract or a setting changes, so they
never drift from the server they describe (``gen --check``)::

    [tool.toolproof.publish]
    formats = ["server.json", "mcpb"]
    name = "io.github.acme/weather"      # server.json: the registry name, namespace/name
    description = "Weather forecasts."   # default: [project] description; server.json allows 100 characters
    version = "1.2.0"                    # default: [project] version
    package = "acme-weather"             # the PyPI package that serves the tools; default: [project] name
    package-arguments = ["serve"]        # server.json: what its console script is given (default: none)
    title = "Acme Weather"               # MCPB display name
    author = "Acme <tools@acme.example>" # MCPB author; default: [project] authors[0]
    repository = "https://github.com/acme/weather"
    website = "https://acme.example/weather"
    remote = "https://tools.acme.example/mcp"   # server.json: a Streamable HTTP endpoint already running
    entry-point = "server/main.py"       # MCPB: the bundle's Python entry point

Formats: server.json follows the registry's schema of 2025-09-29
(``SERVER_SCHEMA``), the manifest MCPB's ``manifest_version`` 0.3; the tests
validate both against those published schemas, vendored in ``tests/generator/vendored``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from toolproof.generator.model import Contract
from toolproof.generator.openapi import _project_table
from toolproof.generator.problems import Problem, rule
from toolproof.runtime.project import ProjectConfig

__all__ = [
    "MCPB_MANIFEST",
    "PUBLISH_FORMATS",
    "SERVER_JSON",
    "SERVER_SCHEMA",
    "Publish",
    "mcpb_manifest",
    "publish_settings",
    "server_json",
]

PUBLISH_FORMATS: Final = ("server.json", "mcpb")
SERVER_JSON: Final = "server.json"
MCPB_MANIFEST: Final = "mcpb/manifest.json"
SERVER_SCHEMA: Final = "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json"
MCPB_VERSION: Final = "0.3"
DIGESTS_META: Final = "dev.toolproof/digests"
"""Where both documents' ``_meta`` list each tool's pinned digest, by name."""
_REGISTRY_NAME: Final = re.compile(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+")
_RANGE: Final = re.compile(r"^[\^~<>=]|[*]|\.x\b|^latest$")
_MAX_DESCRIPTION: Final = 100
_STRINGS: Final = frozenset(
    {
        *("name", "description", "version", "package", "title", "author", "repository", "website"),
        *("remote", "entry-point"),
    }
)
_AUTHOR: Final = re.compile(r"(?s)\s*(?P<name>.*?)\s*(?:<(?P<email>[^<>]*)>)?\s*")
"""``Name <email>``, or a name alone: the email is what the last ``<...>`` holds."""


@dataclass(frozen=True, slots=True)
class Publish:
    """The settings of ``[tool.toolproof.publish]``, with ``[project]``'s values where they leave one out."""

    formats: tuple[str, ...]
    name: str | None = None
    description: str | None = None
    version: str | None = None
    package: str | None = None
    package_arguments: tuple[str, ...] = ()
    title: str | None = None
    author: str | None = None
    author_email: str | None = None
    repository: str | None = None
    website: str | None = None
    remote: str | None = None
    entry_point: str = "server/main.py"


def _defaults(config: ProjectConfig) -> dict[str, Any]:
    """What ``[project]`` of pyproject.toml says of the settings (only strings; a dynamic one is not there)."""
    table = _project_table(config.root / "pyproject.toml")
    found: dict[str, Any] = {k: table[k] for k in ("name", "version", "description") if isinstance(table.get(k), str)}
    defaults: dict[str, Any] = {}
    if "name" in found:
        defaults["package"] = found["name"]
    defaults |= {k: v for k, v in found.items() if k != "name"}
    authors = table.get("authors")
    if isinstance(authors, list) and authors and isinstance(authors[0], Mapping):
        first = authors[0]
        if isinstance(first.get("name"), str):
            defaults["author"] = first["name"] + (f" <{first['email']}>" if isinstance(first.get("email"), str) else "")
    urls = table.get("urls")
    if isinstance(urls, Mapping):
        lowered = {str(k).lower(): v for k, v in urls.items() if isinstance(v, str)}
        for key, setting in (("repository", "repository"), ("source", "repository"), ("homepage", "website")):
            if key in lowered:
                defaults.setdefault(setting, lowered[key])
    return defaults


def _mark(config: ProjectConfig, key: str | None) -> tuple[str, int, int]:
    """Where the publish table sets ``key`` in the settings file: its line, else the table's header line."""
    if config.config_file is None:
        return "pyproject.toml", 1, 1
    where = config.relative(config.config_file)
    try:
        lines = config.config_file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return where, 1, 1
    header = re.compile(r"^\s*\[\s*(tool\.toolproof\.)?publish\s*\]")
    start = next((n for n, line in enumerate(lines) if header.match(line)), None)
    if start is None:
        return where, 1, 1
    setting = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=") if key else None
    for number in range(start + 1, len(lines)):
        if lines[number].lstrip().startswith("["):
            break
        if setting is not None and setting.match(lines[number]):
            return where, number + 1, 1
    return where, start + 1, 1


def publish_settings(config: ProjectConfig) -> tuple[Publish | None, list[Problem]]:
    """The project's publishing settings (None when it publishes nothing), and what the formats it asks for lack."""
    table = config.publish
    if not table:
        return None, []
    problems: list[Problem] = []

    def at(key: str, message: str, name: str) -> None:
        problems.append(rule(name).at(*_mark(config, key), message))

    known = {"formats", "package-arguments", *_STRINGS}
    for key in sorted(set(table) - known):
        at(key, f"publish: unknown setting {key!r}; known: {', '.join(sorted(known))}", "publish-setting")
    formats = table.get("formats", [])
    if not isinstance(formats, list) or not all(isinstance(f, str) and f in PUBLISH_FORMATS for f in formats):
        at("formats", f"publish.formats must list formats from: {', '.join(PUBLISH_FORMATS)}", "publish-setting")
        formats = []
    values: dict[str, Any] = _defaults(config)
    for key in sorted(_STRINGS & set(table)):
        if isinstance(table[key], str) and table[key].strip():
            values[key] = table[key]
        else:
            at(key, f"publish.{key} must be a non-empty string", "publish-setting")
    arguments = table.get("package-arguments", [])
    if not isinstance(arguments, list) or not all(isinstance(a, str) for a in arguments):
        at("package-arguments", "publish.package-arguments must be a list of strings", "publish-setting")
        arguments = []
    author = _AUTHOR.fullmatch(values.get("author", ""))
    publish = Publish(
        formats=tuple(f for f in PUBLISH_FORMATS if f in formats),
        name=values.get("name"),
        description=values.get("description"),
        version=values.get("version"),
        package=values.get("package"),
        package_arguments=tuple(arguments),
        title=values.get("title"),
        author=(author.group("name") or None) if author else None,
        author_email=(author.group("email") or None) if author else None,
        repository=values.get("repository"),
        website=values.get("website"),
        remote=values.get("remote"),
        entry_point=values.get("entry-point", "server/main.py"),
    )
    problems.extend(_required(config, publish))
    return publish, problems


def _required(config: ProjectConfig, p: Publish) -> list[Problem]:
    """A problem for each value a format asked for needs and lacks, or holds in a form the format refuses."""
    problems: list[Problem] = []
    mark = _mark(config, None)
    registry = "server.json" in p.formats
    if registry and (p.name is None or not _REGISTRY_NAME.fullmatch(p.name)):
        said = f"{p.name!r} is not" if p.name else "needs"
        message = (
            f"publish.name: server.json {said} a registry name, namespace/name in reverse-DNS form "
            "(e.g. 'io.github.acme/weather'); set it in [tool.toolproof.publish]"
        )
        problems.append(rule("publish-name").at(*_mark(config, "name") if p.name else mark, message))
    if p.formats and not p.description:
        message = "publish.description: server.json and MCPB need a description; set it, or [project] description"
        problems.append(rule("publish-description").at(*mark, message))
    elif registry and p.description and len(p.description) > _MAX_DESCRIPTION:
        message = (
            f"publish.description: server.json allows {_MAX_DESCRIPTION} characters, this one has "
            f"{len(p.description)}; set a shorter one in [tool.toolproof.publish]"
        )
        problems.append(rule("publish-description").at(*_mark(config, "description"), message))
    if p.formats and (not p.version or _RANGE.search(p.version)):
        said = f"{p.version!r} is a range, not a version" if p.version else "there is none (or it is dynamic)"
        message = f"publish.version: server.json and MCPB need one exact version, and {said}; set it"
        problems.append(rule("publish-version").at(*_mark(config, "version") if p.version else mark, message))
    if "mcpb" in p.formats and not p.author:
        message = "publish.author: an MCPB manifest needs an author; set it ('Name <email>'), or [project] authors"
        problems.append(rule("publish-author").at(*mark, message))
    if p.formats and not p.package:
        message = "publish.package: name the PyPI package that serves the tools; set it, or [project] name"
        problems.append(rule("publish-package").at(*mark, message))
    return problems


def _source(url: str) -> str:
    host = urlsplit(url).hostname or ""
    return next((name for name in ("github", "gitlab") if host == f"{name}.com"), host or "git")


def server_json(p: Publish, contracts: Sequence[Contract], digests: Mapping[str, str]) -> dict[str, Any]:
    """The registry's ``server.json`` of the project: its PyPI package on stdio, a remote if any, the tools' digests."""
    package: dict[str, Any] = {
        "registryType": "pypi",
        "identifier": p.package or "",
        "version": p.version or "",
        "runtimeHint": "uvx",
        "transport": {"type": "stdio"},
    }
    if p.package_arguments:
        package["packageArguments"] = [{"type": "positional", "value": a} for a in p.package_arguments]
    data: dict[str, Any] = {
        "$schema": SERVER_SCHEMA,
        "name": p.name or "",
        "description": p.description or "",
        "version": p.version or "",
    }
    if p.repository:
        data["repository"] = {"url": p.repository, "source": _source(p.repository)}
    if p.website:
        data["websiteUrl"] = p.website
    data["packages"] = [package]
    if p.remote:
        data["remotes"] = [{"type": "streamable-http", "url": p.remote}]
    publisher = {DIGESTS_META: {c.name: digests[c.name] for c in contracts}}
    data["_meta"] = {"io.modelcontextprotocol.registry/publisher-provided": publisher}
    return data


def mcpb_manifest(p: Publish, contracts: Sequence[Contract], digests: Mapping[str, str]) -> dict[str, Any]:
    """An MCPB (0.3) manifest of the project: a Python server, its tools by name and description, their digests."""
    author: dict[str, Any] = {"name": p.author or ""}
    if p.author_email:
        author["email"] = p.author_email
    data: dict[str, Any] = {
        "manifest_version": MCPB_VERSION,
        "name": p.package or "",
        **({"display_name": p.title} if p.title else {}),
        "version": p.version or "",
        "description": p.description or "",
        "author": author,
    }
    if p.repository:
        data["repository"] = {"type": "git", "url": p.repository}
    if p.website:
        data["homepage"] = p.website
    data["server"] = {
        "type": "python",
        "entry_point": p.entry_point,
        "mcp_config": {"command": "python", "args": [f"${{__dirname}}/{p.entry_point}"]},
    }
    data["tools"] = [{"name": c.name, "description": c.description} for c in contracts]
    data["tools_generated"] = False
    data["_meta"] = {DIGESTS_META: {c.name: digests[c.name] for c in contracts}}
    return data
