"""toolproof's runtime: bind contracts to handlers, dispatch calls, render results.

The core (this package's flat modules) knows contracts, handlers, validation,
rendering and the resources a host supplies; the families beside it are
``files`` (the file layer), ``skills`` (catalog, frontmatter, gate),
``serve`` (MCP, HTTP, adapters, the commands that run tools) and
``conformance`` (replaying examples). The public surface is what ``__all__``
lists; everything else may change.
"""

from toolproof import __version__
from toolproof.runtime.context import EnumSource, ResourceCheck, Resources, ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import RegistryError, ToolError, ToolproofError
from toolproof.runtime.host import HostOptions
from toolproof.runtime.project import ProjectConfig, ProjectError, find_project
from toolproof.runtime.result import ErrorInfo, ToolResult
from toolproof.runtime.toolbox import open_runtime

__all__ = [
    "EnumSource",
    "ErrorInfo",
    "HostOptions",
    "ProjectConfig",
    "ProjectError",
    "RegistryError",
    "ResourceCheck",
    "Resources",
    "Runtime",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "ToolproofError",
    "__version__",
    "find_project",
    "open_runtime",
]
