"""The tools a project serves: its own contracts bound to its handlers, plus the built-in sets it includes.

``open_runtime`` is what every command that runs tools calls (``call``,
``serve``, ``conform``, the generated tests): find nothing implicitly, serve
exactly the project's tools, report every clash with both sources.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import RegistryError, UnknownToolset
from toolproof.runtime.host import BUILTIN_RESOURCES, HostOptions, build_resources
from toolproof.runtime.project import ProjectConfig, activate, builtin_project, check_importable
from toolproof.runtime.registry import BoundTool, bind
from toolproof.runtime.spec import BUILTIN_PACKAGE, ToolSpec, load_specs

__all__ = [
    "builtin_runtime",
    "included_builtin_specs",
    "open_runtime",
    "project_specs",
    "project_tools",
    "resource_factories",
]


def included_builtin_specs(config: ProjectConfig) -> list[ToolSpec]:
    """The built-in contracts of the tool sets ``config`` includes (``all`` for every one).

    Raises:
        RegistryError: an included tool set does not exist.
    """
    if config.is_builtin or not config.include:
        return []
    from toolproof.builtin import generated

    known = set(generated.TOOLSETS)
    unknown = [name for name in config.include if name != "all" and name not in known]
    if unknown:
        known_text = ", ".join(sorted(known))
        raise RegistryError(
            [f"{config.name}: include names no built-in tool set: {', '.join(unknown)} (known: {known_text}, all)"]
        )
    specs = load_specs(BUILTIN_PACKAGE)
    if "all" in config.include:
        return specs
    return [s for s in specs if any(name in s.toolsets for name in config.include)]


def _clashes(own: Iterable[ToolSpec], builtin: Iterable[ToolSpec]) -> list[str]:
    mine = {spec.name: spec for spec in own}
    return [
        f"tool '{spec.name}' is defined twice: by {mine[spec.name].origin} and by the built-in {spec.origin}"
        for spec in builtin
        if spec.name in mine
    ]


def project_specs(config: ProjectConfig) -> list[ToolSpec]:
    """Every contract the project serves: its own, then the built-in ones it includes.

    Raises:
        RegistryError: the generated package cannot be loaded, or two contracts share a name.
    """
    activate(config)
    if not config.is_builtin:
        check_importable(config)
    own = load_specs(config.package)
    builtin = included_builtin_specs(config)
    clashes = _clashes(own, builtin)
    if clashes:
        raise RegistryError(clashes)
    return [*own, *builtin]


def project_tools(config: ProjectConfig, only: str | None = None) -> list[BoundTool]:
    """The project's contracts bound to their handlers (own handlers checked for strays).

    Args:
        config: the project.
        only: bind just the tool of this name (a one-shot call): no other handler is imported and no
            stray module looked for. When the project has no such tool, every tool is bound, so the
            caller can name the ones there are.

    Raises:
        RegistryError: as ``project_specs``, or a handler is missing or stray.
    """
    specs = project_specs(config)
    chosen = [s for s in specs if s.name == only]
    if chosen:
        return bind(chosen, handlers_package=config.handlers, check_extra=False)
    own = [s for s in specs if s.package == config.package]
    builtin = [s for s in specs if s.package != config.package]
    tools = bind(own, handlers_package=config.handlers)
    if builtin:
        tools += bind(builtin, check_extra=False)
    return tools


def resource_factories(config: ProjectConfig) -> tuple[str, ...]:
    """The project's resource factories, with the built-in one when it serves built-in tools."""
    refs = list(config.resources)
    if (config.is_builtin or config.include) and BUILTIN_RESOURCES not in refs:
        refs.append(BUILTIN_RESOURCES)
    return tuple(refs)


def open_runtime(
    config: ProjectConfig,
    options: HostOptions,
    *,
    toolset: str | None = None,
    validate_output: bool = True,
    tools: Iterable[BoundTool] | None = None,
    only: str | None = None,
) -> Runtime:
    """A runtime serving the project's tools with the resources its factories build from ``options``.

    ``only`` serves just the tool of that name, as ``project_tools`` binds it.

    Raises:
        RegistryError: anything that stops the project's tools from being served.
        UnknownToolset: a ``toolset`` none of its contracts is in (the message names the sets there are).
    """
    bound = list(tools) if tools is not None else project_tools(config, only)
    if toolset is not None:
        specs = [tool.spec for tool in bound] if tools is not None or only is None else project_specs(config)
        known = sorted({name for spec in specs for name in spec.toolsets})
        if toolset not in known:
            sets = f"its tool sets are {', '.join(known)}" if known else "it declares none (a contract's `toolsets`)"
            raise UnknownToolset([f"{config.name}: no tool is in tool set '{toolset}'; {sets}"])
    resources = build_resources(resource_factories(config), options)
    return Runtime(bound, resources=resources, toolset=toolset, validate_output=validate_output)


def builtin_runtime(
    *,
    workspace: Iterable[str | Path] = (),
    skills: Iterable[str | Path] = (),
    gate_secret: bytes | None = None,
    audit: Callable[[Any], None] | None = None,
    tools: Iterable[BoundTool] | None = None,
    toolset: str | None = None,
    validate_output: bool = True,
) -> Runtime:
    """The built-in file and skill tools with these folders: what an embedding host (or a test) needs.

    Raises:
        RegistryError: anything that stops the tools from being served.
    """
    options = HostOptions.of(workspace=workspace, skills=skills, gate_secret=gate_secret, audit=audit)
    return open_runtime(builtin_project(), options, toolset=toolset, validate_output=validate_output, tools=tools)
