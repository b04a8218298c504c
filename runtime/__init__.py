"""toolproof's runtime: bind contracts to handlers, dispatch calls, read files safely.

The public surface is what ``__all__`` lists; everything else may change.
"""

from runtime.context import AuditRecord, AuditSink, ToolContext
from runtime.dispatch import Runtime
from runtime.errors import RegistryError, ToolError, ToolproofError
from runtime.files import Directory, FileAccessError, OpenFile
from runtime.result import ErrorInfo, ToolResult
from runtime.version import __version__

__all__ = [
    "AuditRecord",
    "AuditSink",
    "Directory",
    "ErrorInfo",
    "FileAccessError",
    "OpenFile",
    "RegistryError",
    "Runtime",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "ToolproofError",
    "__version__",
]
