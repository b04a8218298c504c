"""What an exporter had to change to satisfy a provider, recorded instead of done silently, and what a project accepts.

A project names the losses it accepts, provider by provider, in
``[tool.toolproof.export] accept-losses``; ``toolproof lint --strict-export``
fails on every other one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolproof.generator.problems import Problem, rule
from toolproof.generator.vocabulary import did_you_mean

if TYPE_CHECKING:
    from toolproof.runtime.project import ProjectConfig

__all__ = ["MADE_NULLABLE", "AcceptedLoss", "Limit", "Loss", "accepted_losses", "pointer", "settings_mark"]

MADE_NULLABLE = "made required and nullable"
"""The action of a loss where OpenAI strict mode made an optional property required and nullable: a runtime reads
a null sent there as absent (``runtime.nulls`` in Python, ``nulls.ts`` in TypeScript, which reads the loss list)."""


def pointer(path: tuple[str | int, ...]) -> str:
    """A JSON pointer (RFC 6901) for a path of keys and indexes."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


@dataclass(frozen=True, slots=True, order=True)
class Loss:
    """One rewrite a provider forced: where, which keyword, what was done, and why it is safe (or not)."""

    format: str
    tool: str
    schema: str
    """``input`` or ``output``: which of the contract's schemas; ``result``: what a tool result carries
    beyond its output (the content blocks the contract ``attaches``, the keyword naming the kind)."""
    path: tuple[str | int, ...]
    keyword: str
    action: str
    detail: str

    def pointer(self) -> str:
        """Where in the schema, as a JSON pointer."""
        return pointer(self.path)

    def key(self) -> str:
        """The loss as a project's ``accept-losses`` names it: ``tool:schema/pointer:keyword``."""
        return f"{self.tool}:{self.schema}{pointer(self.path)}:{self.keyword}"

    def to_dict(self) -> dict[str, Any]:
        """The loss as JSON data for the report."""
        return {
            "tool": self.tool,
            "schema": self.schema,
            "pointer": pointer(self.path),
            "keyword": self.keyword,
            "action": self.action,
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True)
class Limit:
    """A limit a provider enforces that an export breaks: the tool and the place in its schema it shows, and what.

    A per-request limit (OpenAI's 1,000 enum values in all) stands at the tool whose schema first crossed it.
    """

    format: str
    tool: str
    schema: str
    """``input`` or ``output``: which of the tool's schemas ``path`` points into."""
    path: tuple[str | int, ...]
    message: str

    def where(self) -> str:
        """The place, as a loss names it: ``tool:input/properties/x``."""
        return f"{self.tool}:{self.schema}{pointer(self.path)}"

    def __str__(self) -> str:
        return f"{self.format}: {self.where()}: {self.message}"


def _unescape(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")


@dataclass(frozen=True, slots=True)
class AcceptedLoss:
    """One entry of a project's ``accept-losses``: the losses of one provider it accepts.

    Written ``TOOL:SCHEMA[POINTER][:KEYWORD]``, as a loss's ``key()`` prints it:
    ``read_file:input/properties/path:minLength``. ``TOOL`` may be ``*`` (every
    tool), a ``POINTER`` segment may be ``*`` (any one key or index), and without
    ``:KEYWORD`` the entry accepts every keyword lost at that place.
    """

    provider: str
    entry: str
    tool: str
    schema: str
    pointer: tuple[str, ...]
    keyword: str | None

    @classmethod
    def parse(cls, provider: str, entry: str) -> AcceptedLoss:
        """Read one entry.

        Raises:
            ValueError: the entry is malformed; the message says how.
        """
        tool, colon, rest = entry.partition(":")
        schema = next((s for s in ("input", "output", "result") if rest.startswith(s)), None)
        if not colon or not tool or schema is None:
            raise ValueError(
                "write TOOL:SCHEMA[POINTER][:KEYWORD] (SCHEMA: input, output or result),"
                " such as 'read_file:input/properties/path:minLength'"
            )
        place, colon, keyword = rest[len(schema) :].rpartition(":")
        if not colon:
            place, keyword = keyword, ""
        if place and not place.startswith("/"):
            raise ValueError(f"the pointer after '{schema}' must start with '/' (got '{place}')")
        if colon and not keyword:
            raise ValueError("a ':' after the pointer must be followed by a keyword")
        segments = tuple(_unescape(s) for s in place.split("/")[1:]) if place else ()
        return cls(provider, entry, tool, schema, segments, keyword or None)

    def matches(self, loss: Loss) -> bool:
        """Whether this entry accepts ``loss``."""
        return (
            loss.format == self.provider
            and self.tool in ("*", loss.tool)
            and loss.schema == self.schema
            and len(loss.path) == len(self.pointer)
            and all(want in ("*", str(got)) for want, got in zip(self.pointer, loss.path, strict=True))
            and self.keyword in (None, loss.keyword)
        )


def settings_mark(config: ProjectConfig, provider: str, entry: str | None = None) -> tuple[str, int, int]:
    """The settings file, and the line and column of ``provider``'s key in it, or of ``entry`` in its list."""
    if config.config_file is None:
        return "pyproject.toml", 1, 1
    where = config.relative(config.config_file)
    try:
        lines = config.config_file.read_text(encoding="utf-8").splitlines()
    except OSError:
        return where, 1, 1
    key = re.compile(rf"""(?:^|[\s.{{,]|["'])({re.escape(provider)})["']?\s*=""")
    start = next((n for n, line in enumerate(lines) if key.search(line)), None)
    if start is None:
        return where, 1, 1
    if entry is None:
        found = key.search(lines[start])
        return where, start + 1, (found.start(1) if found else 0) + 1
    for number in range(start, len(lines)):
        for quoted in (f'"{entry}"', f"'{entry}'"):
            if quoted in lines[number]:
                return where, number + 1, lines[number].index(quoted) + 1
    return where, start + 1, 1


def accepted_losses(
    config: ProjectConfig, tools: Set[str], providers: Sequence[str]
) -> tuple[list[AcceptedLoss], list[Problem]]:
    """The losses a project's settings accept (``[tool.toolproof.export] accept-losses``), and what is wrong there.

    Args:
        config: the project's settings.
        tools: the names of its tools, which entries may name.
        providers: the formats that can lose anything (``exports.providers``).

    Returns:
        The entries, and a problem at each malformed one in the settings file.
    """
    table: Any = config.export.get("accept-losses", {})
    bad = rule("accept-losses")
    if not isinstance(table, Mapping):
        return [], [bad.at(*settings_mark(config, "accept-losses"), "accept-losses must be a table: provider = [...]")]
    accepted: list[AcceptedLoss] = []
    problems: list[Problem] = []
    for provider, entries in table.items():
        if provider not in providers:
            close = did_you_mean(provider, providers)
            hint = f"did you mean '{close}'?" if close else "known: " + ", ".join(providers)
            problems.append(
                bad.at(*settings_mark(config, provider), f"accept-losses: unknown provider '{provider}' ({hint})")
            )
            continue
        if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
            problems.append(
                bad.at(*settings_mark(config, provider), f"accept-losses.{provider} must be a list of strings")
            )
            continue
        for entry in entries:
            try:
                loss = AcceptedLoss.parse(provider, entry)
            except ValueError as exc:
                problems.append(
                    bad.at(*settings_mark(config, provider, entry), f"accept-losses.{provider}: '{entry}': {exc}")
                )
                continue
            if loss.tool != "*" and loss.tool not in tools:
                message = f"accept-losses.{provider}: '{entry}' names no tool the project serves ('{loss.tool}')"
                problems.append(bad.at(*settings_mark(config, provider, entry), message))
                continue
            accepted.append(loss)
    return accepted, problems
