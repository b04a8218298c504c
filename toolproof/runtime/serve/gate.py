"""What a host checks of a tool call over HTTP before it runs it: the scopes the caller's token holds.

A contract names the OAuth scopes its calls need (``scopes:``); the host adds those it requires of every
call (``--oauth-scope``). A call whose caller's token lacks any of them is answered, before its arguments are
read, as the MCP authorization specification's scope challenge says (2025-11-25 and 2026-07-28, "Runtime
Insufficient Scope Errors"): HTTP 403 with ``WWW-Authenticate: Bearer error="insufficient_scope"``, a
``scope`` naming every scope the call needs (all at once, so one step-up suffices), and ``resource_metadata``.
That is an HTTP answer, not a tool error: it is the token that must change, not the arguments, and a client
steps up only on the HTTP challenge. ``tools/list`` lists every tool to every caller, marked with the scopes
it needs (``_meta.securitySchemes``, written by gen): a hidden tool would never reach that challenge.

The REST routes and ``/mcp`` (a single ``tools/call`` and each call of a 2025-03-26 batch) ask the same gate.
"""

from __future__ import annotations

from collections.abc import Iterable

from toolproof.runtime.context import current_caller
from toolproof.runtime.serve.http import Refusal, Scope
from toolproof.runtime.serve.oauth import OAuthSettings, TokenRefusal
from toolproof.runtime.spec import ToolSpec

__all__ = ["ScopeGate", "needed_scopes"]


def needed_scopes(specs: Iterable[ToolSpec], every_call: Iterable[str] = ()) -> dict[str, tuple[str, ...]]:
    """The scopes each tool that names any needs: those every call needs, then its contract's, once each."""
    common = tuple(every_call)
    return {spec.name: tuple(dict.fromkeys((*common, *spec.scopes))) for spec in specs if spec.scopes}


class ScopeGate:
    """Refuses a call whose caller's token lacks a scope its tool needs (see the module's docstring).

    Args:
        specs: the tools served.
        settings: the host's OAuth settings: the scopes every call needs, and the metadata URL challenges name.
    """

    def __init__(self, specs: Iterable[ToolSpec], settings: OAuthSettings) -> None:
        self.settings = settings
        self.needed = needed_scopes(specs, settings.scopes)

    def __bool__(self) -> bool:
        return bool(self.needed)

    def __call__(self, tool: str, scope: Scope) -> Refusal | None:
        needed = self.needed.get(tool)
        if needed is None:
            return None
        caller = current_caller()
        held = caller.scopes if caller is not None else frozenset()
        missing = [name for name in needed if name not in held]
        if not missing:
            return None
        description = f"tool {tool} needs the scope(s) {' '.join(missing)}"  # names and scopes hold no quote
        refusal = TokenRefusal(403, "insufficient_scope", description, needed)
        body = {"code": "insufficient_scope", "message": f"{description}, which the access token does not hold"}
        return 403, body, [(b"www-authenticate", refusal.challenge(self.settings))]
