"""The ``[serve]`` settings that shape every call a host serves: its middleware and its rate limits.

::

    [[tool.toolproof.serve.middleware]]
    function = "policies:audit"      # module:function (toolproof.runtime.middleware)
    toolsets = ["notes"]             # omitted: every tool

    [[tool.toolproof.serve.rate-limits]]
    calls = 60                       # at most this many calls...
    seconds = 60                     # ...in this many seconds, refilled evenly (a token bucket)
    per = "subject"                  # whose calls count together: subject, client or address
    toolsets = ["notes"]             # omitted: every tool

Each is checked when the project is loaded to serve, and a mistake is a ``ProjectError`` at its line.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from toolproof.runtime.errors import RegistryError
from toolproof.runtime.project import ProjectConfig, ProjectError, setting_line

if TYPE_CHECKING:
    from toolproof.runtime.dispatch import Runtime
    from toolproof.runtime.middleware import Middleware

__all__ = ["PER", "MiddlewareSetting", "RateLimit", "bind_middleware", "middleware_settings", "rate_limits"]

PER: Final = ("subject", "client", "address")
"""Whose calls a rate limit counts together: the token's subject, its client, or the connection's address."""


@dataclass(frozen=True, slots=True)
class MiddlewareSetting:
    """One ``[[serve.middleware]]`` entry."""

    function: str
    """``module:function``."""
    toolsets: tuple[str, ...] | None
    """The tool sets it runs around; None: every tool."""


@dataclass(frozen=True, slots=True)
class RateLimit:
    """One ``[[serve.rate-limits]]`` entry: ``calls`` in ``seconds`` per ``per``, over ``toolsets``."""

    calls: int
    seconds: float
    per: str
    toolsets: tuple[str, ...] | None = None
    """The tool sets whose calls it counts (together); None: every tool."""

    @property
    def rate(self) -> float:
        """Calls regained a second."""
        return self.calls / self.seconds


def _entries(config: ProjectConfig, key: str) -> list[tuple[str, Mapping[str, Any]]]:
    """Each entry of ``[[serve.<key>]]``, with where it is written (``file:line`` of its header when found)."""
    value = config.serve.get(key, [])
    where = setting_line(config.config_file, key, "serve") if config.config_file else config.name
    if not isinstance(value, list) or not all(isinstance(entry, Mapping) for entry in value):
        raise ProjectError(where, f"serve.{key} must be an array of tables ([[tool.toolproof.serve.{key}]])")
    lines = _headers(config, key)
    return [(lines[index] if index < len(lines) else where, entry) for index, entry in enumerate(value)]


def _headers(config: ProjectConfig, key: str) -> list[str]:
    """``file:line`` of each ``[[tool.toolproof.serve.<key>]]`` header, in order (none for inline tables)."""
    import re

    if config.config_file is None:
        return []
    try:
        text = config.config_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    header = re.compile(rf"^\s*\[\[\s*(tool\.toolproof\.)?serve\.{re.escape(key)}\s*\]\]")
    return [f"{config.config_file}:{n}" for n, line in enumerate(text.splitlines(), 1) if header.match(line)]


def _toolsets(where: str, key: str, entry: Mapping[str, Any]) -> tuple[str, ...] | None:
    value = entry.get("toolsets")
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise ProjectError(where, f"serve.{key}: toolsets must be a non-empty list of tool set names")
    return tuple(value)


def _unknown(where: str, key: str, entry: Mapping[str, Any], known: Sequence[str]) -> None:
    extra = sorted(set(entry) - set(known))
    if extra:
        raise ProjectError(where, f"serve.{key}: unknown key(s) {', '.join(extra)}; known: {', '.join(known)}")


def middleware_settings(config: ProjectConfig) -> list[MiddlewareSetting]:
    """The project's middleware, in the order its settings list them.

    Raises:
        ProjectError: an entry is malformed (at its line).
    """
    out = []
    for where, entry in _entries(config, "middleware"):
        _unknown(where, "middleware", entry, ("function", "toolsets"))
        function = entry.get("function")
        if not isinstance(function, str) or function.count(":") != 1 or not all(function.split(":")):
            raise ProjectError(where, 'serve.middleware: function must name module:function, e.g. "policies:audit"')
        out.append(MiddlewareSetting(function, _toolsets(where, "middleware", entry)))
    return out


def rate_limits(config: ProjectConfig) -> list[RateLimit]:
    """The project's rate limits.

    Raises:
        ProjectError: an entry is malformed (at its line).
    """
    out = []
    for where, entry in _entries(config, "rate-limits"):
        _unknown(where, "rate-limits", entry, ("calls", "seconds", "per", "toolsets"))
        calls, seconds, per = entry.get("calls"), entry.get("seconds", 1), entry.get("per", "subject")
        if not isinstance(calls, int) or isinstance(calls, bool) or calls < 1:
            raise ProjectError(where, "serve.rate-limits: calls must be a whole number of calls, at least 1")
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not 0 < seconds <= 86400:
            raise ProjectError(where, "serve.rate-limits: seconds must be a number of seconds, above 0, at most 86400")
        if per not in PER:
            raise ProjectError(where, f"serve.rate-limits: per must be one of {', '.join(PER)}, not {per!r}")
        out.append(RateLimit(calls, float(seconds), per, _toolsets(where, "rate-limits", entry)))
    return out


def bind_middleware(config: ProjectConfig, runtime: Runtime) -> None:
    """Import each middleware the settings name and have ``runtime`` run it around the calls of its tool sets.

    Raises:
        ProjectError: an entry is malformed.
        RegistryError: a middleware cannot be imported or is no callable (the message names it and the setting).
    """
    for setting in middleware_settings(config):
        module_name, _, attr = setting.function.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise RegistryError([f"middleware {setting.function} cannot be imported: {exc}"]) from None
        function: Middleware | None = getattr(module, attr, None)
        if not callable(function):
            raise RegistryError([f"middleware {setting.function}: {module_name} has no callable {attr!r}"])
        runtime.use(function, setting.toolsets)
