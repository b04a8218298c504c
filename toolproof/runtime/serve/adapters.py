"""Provider tool calls in, provider result messages out, through one runtime.

Each adapter takes the provider's own response shape, finds the tool calls in
it, dispatches them, and builds the message that carries the results back:

- OpenAI Chat Completions: ``tool_calls`` → ``role: tool`` messages;
- OpenAI Responses: ``function_call`` items → ``function_call_output`` items;
- Anthropic Messages: ``tool_use`` blocks → a user message of ``tool_result`` blocks (``is_error``);
- Gemini: ``functionCall`` parts → a user content of ``functionResponse`` parts (``output`` or ``error``);
- MCP: a ``tools/call`` JSON-RPC request → its JSON-RPC response (``CallToolResult``, ``isError``).

The text a model reads is the contract's rendered result or error in every case. Content blocks a
handler attaches (``ctx.attach``) follow it where the result can carry them: every kind in MCP, text
and image blocks in Anthropic; the exports list the others as losses (``generator/exports.py``).

Each adapter reads dicts (the JSON) and the providers' SDK models alike, and refuses anything of
another shape with ``AdapterInputError`` naming what it expected and what it was given: a block
list passed where the message belongs must not read as a message that asks for no tool.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import AdapterInputError
from toolproof.runtime.result import ToolResult
from toolproof.runtime.serve.jsonrpc import is_request_id

__all__ = [
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "anthropic_tool_results",
    "gemini_function_responses",
    "mcp_tools_call",
    "openai_chat_tool_messages",
    "openai_responses_outputs",
]

INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
ANTHROPIC_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""The image media types an Anthropic ``tool_result`` carries."""


def _get(obj: Any, key: str) -> Any:
    """A field of a dict, or an attribute of an SDK model."""
    return obj.get(key) if isinstance(obj, Mapping) else getattr(obj, key, None)


def _has(obj: Any, key: str) -> bool:
    """Whether a dict has the key, or an SDK model the attribute (a list or a string has none)."""
    if isinstance(obj, Mapping):
        return key in obj
    if obj is None or isinstance(obj, (str, bytes, bytearray, Sequence)):
        return False
    return hasattr(obj, key)


def _described(value: Any) -> str:
    """What a value is, for an error: its type, and a dict's keys or a list's length."""
    if isinstance(value, Mapping):
        keys = sorted(str(key) for key in value)
        shown = ", ".join(keys[:8]) + (", ..." if len(keys) > 8 else "")
        return f"a {type(value).__name__} with keys {shown}" if keys else f"an empty {type(value).__name__}"
    if isinstance(value, (list, tuple)):
        first = f", the first {_described(value[0])}" if value else ""
        return f"a {type(value).__name__} of {len(value)} item(s){first}"
    return "None" if value is None else f"a {type(value).__qualname__}"


def _items(adapter: str, container: Any, key: str, expected: str) -> Sequence[Any]:
    """``container[key]`` (or its attribute), a list: empty when it is absent or null.

    Raises:
        AdapterInputError: it is there and not a list.
    """
    items = _get(container, key)
    if items is None:
        return ()
    if isinstance(items, (str, bytes, bytearray, Mapping)) or not isinstance(items, Sequence):
        raise AdapterInputError(adapter, expected, f"`{key}` as {_described(items)}")
    return items


def _refuse_unless(adapter: str, value: Any, keys: tuple[str, ...], expected: str) -> None:
    """Refuse ``value`` unless it has one of ``keys``: what every response of the expected shape has.

    Raises:
        AdapterInputError: it has none (a list, a string, a message of another provider, ...).
    """
    if not any(_has(value, key) for key in keys):
        raise AdapterInputError(adapter, expected, _described(value))


def _anthropic_block(block: Mapping[str, Any]) -> dict[str, Any] | None:
    """An MCP content block as an Anthropic ``tool_result`` content block, or None when Anthropic has no such block."""
    if block.get("type") == "text" and isinstance(block.get("text"), str):
        return {"type": "text", "text": block["text"]}
    if block.get("type") == "image" and block.get("mimeType") in ANTHROPIC_IMAGE_TYPES:
        return {"type": "image", "source": {"type": "base64", "media_type": block["mimeType"], "data": block["data"]}}
    return None


def openai_chat_tool_messages(runtime: Runtime, response: Any, *, session: str | None = None) -> list[dict[str, Any]]:
    """Run the ``tool_calls`` of a Chat Completion (or of one assistant message); return the tool messages.

    Raises:
        AdapterInputError: ``response`` is neither a Chat Completion nor a message (a list, say).
    """
    adapter, expected = "openai_chat_tool_messages", "a Chat Completion (with `choices`) or an assistant message"
    _refuse_unless(adapter, response, ("choices", "tool_calls", "role"), expected)
    choices = _items(adapter, response, "choices", expected)
    message = _get(choices[0], "message") if choices else response
    messages = []
    for call in _items(adapter, message, "tool_calls", expected):
        function = _get(call, "function")
        result = runtime.call(_get(function, "name"), _get(function, "arguments"), session=session)
        messages.append(result.to_openai_message(_get(call, "id")))
    return messages


def openai_responses_outputs(runtime: Runtime, response: Any, *, session: str | None = None) -> list[dict[str, Any]]:
    """Run the ``function_call`` items of a Responses API response; return ``function_call_output`` items.

    Raises:
        AdapterInputError: ``response`` is not a Responses API response (its ``output`` list, say).
    """
    adapter, expected = "openai_responses_outputs", "a Responses API response (with `output`)"
    _refuse_unless(adapter, response, ("output",), expected)
    outputs = []
    for item in _items(adapter, response, "output", expected):
        if _get(item, "type") != "function_call":
            continue
        result = runtime.call(_get(item, "name"), _get(item, "arguments"), session=session)
        outputs.append({"type": "function_call_output", "call_id": _get(item, "call_id"), "output": result.text})
    return outputs


def anthropic_tool_results(runtime: Runtime, message: Any, *, session: str | None = None) -> dict[str, Any]:
    """Run the ``tool_use`` blocks of a Messages API response; return the user message of ``tool_result`` blocks.

    Raises:
        AdapterInputError: ``message`` is not a message with a ``content`` list (its blocks alone, say).
    """
    adapter, expected = "anthropic_tool_results", "a Messages API response (a message whose `content` is a list)"
    _refuse_unless(adapter, message, ("content",), expected)
    blocks = []
    for block in _items(adapter, message, "content", expected):
        if _get(block, "type") != "tool_use":
            continue
        result = runtime.call(_get(block, "name"), _get(block, "input"), session=session)
        extra = [converted for converted in map(_anthropic_block, result.attached) if converted is not None]
        content: str | list[dict[str, Any]] = [{"type": "text", "text": result.text}, *extra] if extra else result.text
        tool_result: dict[str, Any] = {"type": "tool_result", "tool_use_id": _get(block, "id"), "content": content}
        if not result.ok:
            tool_result["is_error"] = True
        blocks.append(tool_result)
    return {"role": "user", "content": blocks}


def _gemini_response(result: ToolResult) -> dict[str, Any]:
    if result.error is None:
        return {"output": result.text}
    return {"error": {"code": result.error.code, "message": result.error.message, "text": result.text}}


def gemini_function_responses(runtime: Runtime, response: Any, *, session: str | None = None) -> dict[str, Any]:
    """Run the ``functionCall`` parts of a ``generateContent`` response; return the ``functionResponse`` content.

    Raises:
        AdapterInputError: ``response`` is not a ``generateContent`` response (one candidate's content, say).
    """
    adapter, expected = "gemini_function_responses", "a generateContent response (with `candidates`)"
    # A prompt the API blocked has promptFeedback and no candidates: it asks for no call.
    _refuse_unless(adapter, response, ("candidates", "promptFeedback", "prompt_feedback"), expected)
    parts_out = []
    candidates = _items(adapter, response, "candidates", expected)
    content = _get(candidates[0], "content") if candidates else None
    for part in _items(adapter, content, "parts", expected) if content is not None else ():
        call = _get(part, "functionCall") or _get(part, "function_call")
        if call is None:
            continue
        name = _get(call, "name")
        result = runtime.call(name, _get(call, "args") or {}, session=session)
        function_response: dict[str, Any] = {"name": name, "response": _gemini_response(result)}
        if _get(call, "id"):
            function_response["id"] = _get(call, "id")
        parts_out.append({"functionResponse": function_response})
    return {"role": "user", "parts": parts_out}


def _rpc_error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def mcp_tools_call(runtime: Runtime, request: Any, *, session: str | None = None) -> dict[str, Any]:
    """Answer an MCP ``tools/call`` JSON-RPC request.

    Tool errors are results with ``isError``; an unknown tool and a malformed
    request are JSON-RPC errors, as the MCP specification asks. An id that is
    not a string or an integer is not echoed: the answer is Invalid Request
    with id null.
    """
    request_id = _get(request, "id")
    if not is_request_id(request_id):
        return _rpc_error(None, INVALID_REQUEST, "the request id must be a string or an integer")
    params = _get(request, "params")
    if (
        _get(request, "method") != "tools/call"
        or not isinstance(params, Mapping)
        or not isinstance(params.get("name"), str)
    ):
        return _rpc_error(request_id, INVALID_REQUEST, "expected a tools/call request with params.name")
    name = params["name"]
    if name not in {spec.name for spec in runtime.specs}:
        return _rpc_error(request_id, INVALID_PARAMS, f"Unknown tool: {name}")
    arguments = params.get("arguments")
    if arguments is not None and not isinstance(arguments, Mapping):
        return _rpc_error(request_id, INVALID_PARAMS, "params.arguments must be an object")
    result = runtime.call(name, arguments or {}, session=session)
    return {"jsonrpc": "2.0", "id": request_id, "result": result.to_mcp()}
