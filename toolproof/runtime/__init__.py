"""toolproof's runtime: what a host needs to bind contracts to handlers, dispatch calls and serve them.

The core (this package's flat modules) knows contracts, handlers, validation,
rendering and the resources a host supplies; ``serve`` beside it holds the
transports (MCP over stdio and Streamable HTTP, REST, provider adapters) and the
commands that run tools. The built-in file and skill tools live in
``toolproof.builtin``, test tooling in ``toolproof.testing``.

This module is the public surface handlers and generated stubs import: what
``__all__`` lists. Everything else may move between releases.
"""

from toolproof import __version__
from toolproof.runtime.context import Caller, EnumSource, ResourceCheck, Resources, ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import RegistryError, ToolError, ToolproofError
from toolproof.runtime.host import HostOptions
from toolproof.runtime.project import ProjectConfig, ProjectError, find_project
from toolproof.runtime.questions import Answer, InputRequired
from toolproof.runtime.result import ErrorInfo, ToolResult
from toolproof.runtime.template import Template
from toolproof.runtime.toolbox import builtin_runtime, open_runtime

__all__ = [
    "Answer",
    "Caller",
    "EnumSource",
    "ErrorInfo",
    "HostOptions",
    "InputRequired",
    "ProjectConfig",
    "ProjectError",
    "RegistryError",
    "ResourceCheck",
    "Resources",
    "Runtime",
    "Template",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "ToolproofError",
    "__version__",
    "builtin_runtime",
    "find_project",
    "open_runtime",
]
