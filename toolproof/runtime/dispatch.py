"""Dispatch one tool call: parse, validate, run the handler, check, render.

Every call ends in a ``ToolResult``: the handler's output with the text the
model reads, or a catalogued error. Nothing a caller sends, and nothing a
handler raises, escapes as an exception.

Every result can be written by every transport: arguments holding a lone
surrogate (text UTF-8 cannot carry), or valid JSON beyond what the reader holds
(an integer of more than 4300 digits, a number beyond a float's range, nesting
deeper than 1024; see ``json_reader.json_value``), are refused as
``invalid_arguments`` naming where; a lone surrogate that a handler puts in its output, a message or a text
(a file name read from disk, say) becomes U+FFFD; an output that is not JSON at
all is ``internal_error``; and a result larger than ``max_result_bytes`` is
``response_too_large``, so no host is handed more than it can send.

A contract's ``timeout`` bounds how long a call waits for its handler. Such a
handler runs on a small pool of threads the ``Runtime`` owns (``timeouts.py``);
past the timeout the call ends in ``timed_out``. A thread cannot be killed: the
handler keeps running in the background and its result is discarded. The pool
bounds how many such handlers can pile up: when every worker is busy, a call
with a timeout fails fast with ``timed_out`` rather than queueing behind them.
The workers are daemon threads, so a handler that never returns cannot keep a
process from exiting (a process waits ``timeouts.EXIT_GRACE`` seconds for them
at exit). Calls of tools without a timeout run inline.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from toolproof.runtime.arguments import MAX_ARGUMENT_BYTES, MAX_ARGUMENT_DEPTH, BadArguments, parse_arguments
from toolproof.runtime.coercion import coerce_integers
from toolproof.runtime.context import EnumSource, ResourceCheck, Resources, ToolContext, attaching, current_caller
from toolproof.runtime.errors import (
    DEFAULT_ERROR_TEXT,
    INPUT_UNAVAILABLE,
    INTERNAL_ERROR,
    INVALID_ARGUMENTS,
    RESPONSE_TOO_LARGE,
    STANDARD_ERRORS,
    TIMED_OUT,
    UNKNOWN_TOOL,
    RegistryError,
    ToolError,
    shown,
)
from toolproof.runtime.json_writer import json_bytes, json_size
from toolproof.runtime.logs import CallerLog, log_failure
from toolproof.runtime.nulls import drop_absent_nulls
from toolproof.runtime.printable import encodable, encodable_json, printable, printable_block
from toolproof.runtime.questions import Answer, InputRequired, Question, answering
from toolproof.runtime.registry import BoundTool, bind
from toolproof.runtime.result import ErrorInfo, ToolResult
from toolproof.runtime.spec import ErrorOutput, ToolSpec, load_specs
from toolproof.runtime.timeouts import TimedOut, TimeoutPool

if TYPE_CHECKING:
    from toolproof.runtime.middleware import Middleware
    from toolproof.runtime.serve.telemetry import Telemetry

__all__ = ["MAX_ARGUMENT_BYTES", "MAX_ARGUMENT_DEPTH", "MAX_RESULT_BYTES", "TIMEOUT_WORKERS", "Runtime"]

_log = CallerLog(logging.getLogger("toolproof.dispatch"))

MAX_RESULT_BYTES = 80 << 20
"""Results larger than this (rendered text plus output as JSON) become ``response_too_large`` (80 MiB).

A built-in tool reads files of up to 10 MiB whole, and a 10 MiB line cannot be
asked for in smaller ranges: its text and its output, escaped as JSON, must fit.
That is ~20 MiB for most text, and 70 MiB at worst: a line of control
characters, each ``\\u00XX`` (6 bytes) in JSON, besides its 10 MiB of text."""

TIMEOUT_WORKERS = 4
"""Handlers of tools with a ``timeout`` that may run at once, timed-out ones still running included."""


def _utf8(text: str) -> tuple[str, int]:
    """``text`` with any lone surrogate replaced by U+FFFD, and its length in UTF-8."""
    if text.isascii():
        return text, len(text)
    try:
        return text, len(text.encode("utf-8"))
    except UnicodeEncodeError:
        text = encodable(text)
        return text, len(text.encode("utf-8"))


def _as_json(output: Any, limit: int = MAX_RESULT_BYTES) -> tuple[Any, int] | None:
    """``output`` as every transport can write it (lone surrogates made U+FFFD) and its size as JSON.

    The size is counted, not written (``json_size``): exact up to ``limit``, and
    past it a count that stops there, so an output too large to send costs no
    memory to refuse. Only what ``json_size`` cannot count (integers beyond 64
    bits, keys that are not strings, deep nesting, other types) is written to
    be measured. None when it cannot be JSON at all (a type JSON has no form for).
    """
    size = json_size(output, limit)
    if size is not None:
        return output, size
    repaired = encodable_json(output)
    if repaired is not output:
        size = json_size(repaired, limit)
        if size is not None:
            return repaired, size
    try:
        return repaired, len(json_bytes(repaired))
    except ValueError:
        return None


def _error_output(
    tool: str, shape: ErrorOutput, error: ErrorInfo, params: Mapping[str, object], args: Any
) -> Mapping[str, Any] | None:
    """The contract's ``render.error_output`` for ``error``, from the arguments, the error's params and the error.

    None (and a log record) when a value cannot be JSON; lone surrogates are made U+FFFD. An argument
    string is echoed as ``errors.shown`` clips it: an error never hands back 100 KB the caller sent.
    """
    values: dict[str, object] = (
        {key: shown(value) if isinstance(value, str) else value for key, value in args.items()}
        if isinstance(args, Mapping)
        else {}
    )
    values.update(params)
    values.update({"code": error.code, "message": error.message})
    if error.hint is not None:
        values["hint"] = error.hint
    try:
        writable = _as_json(shape.render(values))
    except (TypeError, ValueError, RecursionError):
        writable = None
    if writable is None:
        _log.error("the error_output of %s cannot be written as JSON for %s", printable(tool), error.code)
        return None
    output: Mapping[str, Any] = writable[0]
    return output


def _error_output_size(error: ErrorInfo) -> int:
    """The size of ``error.output`` as JSON (0 when there is none)."""
    return 0 if error.output is None else len(json_bytes(error.output))


class Runtime:
    """The tools of one host: contracts bound to handlers, ready to call.

    Args:
        tools: bound tools to serve (default: the built-in tools, ``toolproof.builtin.generated``).
        resources: what the host hands its tools (see ``toolproof.runtime.context``);
            a tool whose contract ``needs`` a resource not given here is not served.
        validate_output: check every output against the contract's output schema.
        toolset: serve only the contracts of this tool set (all when None).
        max_argument_bytes: longest argument string accepted.
        max_result_bytes: largest result handed to a transport: its rendered text, its output and
            its attached blocks as JSON, in UTF-8 bytes; a larger one is ``response_too_large``.
        timeout_workers: handlers of tools with a contract ``timeout`` that may run at once
            (those that timed out and still run count); past it such a call is ``timed_out`` at once.

    Raises:
        RegistryError: a contract has no handler, a handler module serves no
            contract, two resources share a name, or a resource cannot serve a
            tool that needs it.
    """

    def __init__(
        self,
        tools: Iterable[BoundTool] | None = None,
        *,
        resources: Iterable[object] = (),
        validate_output: bool = True,
        toolset: str | None = None,
        max_argument_bytes: int = MAX_ARGUMENT_BYTES,
        max_result_bytes: int = MAX_RESULT_BYTES,
        timeout_workers: int = TIMEOUT_WORKERS,
    ) -> None:
        bound = list(tools) if tools is not None else bind(load_specs())
        if toolset is not None:
            bound = [tool for tool in bound if toolset in tool.spec.toolsets]
        self.resources = resources if isinstance(resources, Resources) else Resources(resources)
        self.validate_output = validate_output
        self.max_argument_bytes = max_argument_bytes
        self.max_result_bytes = max_result_bytes
        self.timeout_workers = timeout_workers
        self._timeouts = TimeoutPool(timeout_workers)
        self.unavailable: dict[str, tuple[str, ...]] = {}
        """Tools left out because the host did not supply what they need: name → missing resources."""
        served: list[BoundTool] = []
        problems: list[str] = []
        for tool in bound:
            missing = tuple(need for need in tool.spec.needs if need not in self.resources)
            if missing:
                self.unavailable[tool.spec.name] = missing
                continue
            for need in tool.spec.needs:
                resource = self.resources[need]
                if isinstance(resource, ResourceCheck):
                    problems.extend(resource.check(tool.spec))
            served.append(self._fill_enums(tool))
        if problems:
            raise RegistryError(problems)
        self._tools: dict[str, BoundTool] = {tool.spec.name: tool for tool in served}
        self._contexts = {name: self.context(name) for name in self._tools}
        """The context of each tool for calls without a session: immutable, so made once, not per call."""
        self.telemetry: Telemetry | None = None
        """Traces and counts every call when the host turned OpenTelemetry on (``serve --otel``); None: off."""
        self._middleware: dict[str, tuple[Middleware, ...]] = {}
        """The middleware run around each tool's calls (``use``), by tool name; none for most."""

    def use(self, middleware: Middleware, toolsets: Iterable[str] | None = None) -> None:
        """Run ``middleware`` around every call of the tools in ``toolsets`` (None: all), inside those added before.

        See ``toolproof.runtime.middleware``.
        """
        sets = None if toolsets is None else frozenset(toolsets)
        for name, tool in self._tools.items():
            if sets is None or sets.intersection(tool.spec.toolsets):
                self._middleware[name] = (*self._middleware.get(name, ()), middleware)

    def _fill_enums(self, tool: BoundTool) -> BoundTool:
        """Give each dynamic-enum field the values its source has now (e.g. the discovered skills)."""
        if not tool.spec.dynamic_enums:
            return tool
        props = dict(tool.spec.input_schema.get("properties", {}))
        for field_name, source in tool.spec.dynamic_enums.items():
            values = self._enum_values(source)
            if values is not None:
                props[field_name] = {**props[field_name], "enum": values}
        schema = {**tool.spec.input_schema, "properties": props}
        return BoundTool.build(replace(tool.spec, input_schema=schema), tool.handler)

    def _enum_values(self, source: str) -> list[str] | None:
        return self.enum_values(source)

    def enum_values(self, source: str) -> list[str] | None:
        """The values a resource of this host supplies for ``source`` now (``skills``: its skills), or None."""
        for resource in self.resources.values():
            if isinstance(resource, EnumSource):
                values = resource.enum_values(source)
                if values is not None:
                    return values
        return None

    def not_served(self, name: str) -> str | None:
        """Why the tool ``name`` is left out (the resources this host was not given), or None when it is not."""
        missing = self.unavailable.get(name)
        if not missing:
            return None
        return f"tool '{name}' is not served: it needs {', '.join(missing)}, which this host was not given"

    def spec(self, name: str) -> ToolSpec:
        """The contract of the served tool ``name``.

        Raises:
            KeyError: no tool of that name is served.
        """
        return self._tools[name].spec

    @property
    def specs(self) -> list[ToolSpec]:
        """The contracts served, in declared order."""
        return [tool.spec for tool in self._tools.values()]

    def context(self, tool: str, session: str | None = None) -> ToolContext:
        """The context a handler of ``tool`` receives for a call in ``session``."""
        bound = self._tools.get(tool)
        return ToolContext(tool, session, bound.spec if bound is not None else None, self.resources)

    def call(
        self,
        name: str,
        arguments: str | bytes | Mapping[str, Any] | None,
        *,
        session: str | None = None,
    ) -> ToolResult:
        """Run one tool call and return its result; never raises for bad input.

        The result can always be written as UTF-8 JSON, and is no larger than
        ``max_result_bytes`` (see the module's docstring).

        Args:
            name: the tool's wire name.
            arguments: a JSON object as text (as LLM APIs send it) or already parsed.
            session: the caller's session, for tools that keep per-session state.
        """
        chain = self._middleware.get(name)
        if chain is not None:
            return self._around(chain, name, arguments, session)
        if self.telemetry is not None:
            return self.telemetry.call(lambda: self._final(name, arguments, session), name)
        return self._final(name, arguments, session)

    def call_asking(
        self,
        name: str,
        arguments: str | bytes | Mapping[str, Any] | None,
        *,
        answers: Mapping[str, Answer],
        session: str | None = None,
    ) -> ToolResult | Question:
        """``call`` for a caller that can ask its user: a question the call holds no answer to comes back.

        The handler's ``ctx.ask`` returns the answers in ``answers``; the first question it asks
        that they do not answer ends this run and is returned, for the caller to ask the client and
        call again with its answer added (``toolproof.runtime.questions``).
        """
        chain = self._middleware.get(name)
        if chain is None and self.telemetry is None:
            return self._call(name, arguments, session, answers)
        asked: list[Question] = []

        def run() -> ToolResult:
            outcome = self._call(name, arguments, session, answers)
            if isinstance(outcome, Question):  # traced, and seen by middleware, as an empty success: a round ended
                asked.append(outcome)
                return ToolResult(name, None, None, "")
            return outcome

        if chain is not None:
            result = self._around(chain, name, arguments, session, run)
        else:
            assert self.telemetry is not None
            result = self.telemetry.call(run, name)
        return asked[0] if asked else result

    def unanswered(self, name: str, question: Question, reason: str, arguments: Any = None) -> ToolResult:
        """The catalogued ``input_unavailable`` of tool ``name``: ``question`` could not be asked, for ``reason``.

        ``reason`` ends the message's sentence ("this client cannot be asked (...)").
        """
        tool = self._tools[name]
        params = {"question": question.name, "prompt": question.message, "reason": reason}
        return self._sealed(tool.spec, self._error(tool.spec, INPUT_UNAVAILABLE, params, arguments), 0)

    def _around(
        self,
        chain: tuple[Middleware, ...],
        name: str,
        arguments: str | bytes | Mapping[str, Any] | None,
        session: str | None,
        inner: Callable[[], ToolResult] | None = None,
    ) -> ToolResult:
        """``call`` through the tool's middleware (traced as a whole when telemetry is on).

        ``inner`` runs the call itself (``call_asking``'s round); None: ``call``'s, where a question cannot be asked.
        """
        import orjson

        from toolproof.runtime.middleware import Call, run_around

        shown = arguments
        if isinstance(arguments, (str, bytes)):
            try:
                shown = orjson.loads(arguments)
            except orjson.JSONDecodeError:
                shown = None
        call = Call(name, shown if isinstance(shown, Mapping) else None, current_caller(), session)
        spec = self._tools[name].spec

        def proceed() -> ToolResult:
            return inner() if inner is not None else self._final(name, arguments, session)

        def run() -> ToolResult:
            return run_around(chain, call, proceed, lambda: self._error(spec, INTERNAL_ERROR, {}, None))

        return self.telemetry.call(run, name) if self.telemetry is not None else run()

    def _final(self, name: str, arguments: str | bytes | Mapping[str, Any] | None, session: str | None) -> ToolResult:
        """``call``, untraced: a question ends the call in ``input_unavailable`` (no one can be asked)."""
        outcome = self._call(name, arguments, session, None)
        if isinstance(outcome, Question):
            why = "this caller cannot ask its user (only MCP clients with elicitation can)"
            return self.unanswered(name, outcome, why)
        return outcome

    def _call(
        self,
        name: str,
        arguments: str | bytes | Mapping[str, Any] | None,
        session: str | None,
        answers: Mapping[str, Answer] | None,
    ) -> ToolResult | Question:
        """``call``, untraced; a question asked is returned (``answers`` None: none can be answered)."""
        tool = self._tools.get(name)
        if tool is None:
            unknown = STANDARD_ERRORS[UNKNOWN_TOOL]
            message = unknown.render({"tool": name, "available": ", ".join(self._tools) or "none"})
            error = ErrorInfo(UNKNOWN_TOOL, encodable(message), unknown.hint)
            return ToolResult(encodable(name), None, error, DEFAULT_ERROR_TEXT.render({"message": error.message}))
        ran = self._run(tool, arguments, session, answers)
        if isinstance(ran, Question):
            return ran
        result, output_size = ran
        text = result.text
        if result.error is None and text.isascii() and len(text) + output_size <= self.max_result_bytes:
            return result  # what _sealed would find: nothing to repair, nothing too large
        return self._sealed(tool.spec, result, output_size)

    def _run(
        self,
        tool: BoundTool,
        arguments: str | bytes | Mapping[str, Any] | None,
        session: str | None,
        answers: Mapping[str, Answer] | None = None,
    ) -> tuple[ToolResult, int] | Question:
        """The result of one call of a served tool, and the size of its output as JSON; or the question it asked."""
        spec = tool.spec
        name = spec.name
        args: Any = {}
        try:
            args = parse_arguments(arguments, self.max_argument_bytes)
            if tool.nulls is not None:
                args = drop_absent_nulls(tool.nulls, args)
            if not tool.input.is_valid(args):
                raise BadArguments(tool.input.explain(args))
            args = coerce_integers(tool.integers, args) if tool.integers is not None else args
        except BadArguments as bad:
            return self._error(spec, INVALID_ARGUMENTS, {"detail": bad.detail}, args), 0
        except Exception:  # a validator that cannot cope (values beyond its range)
            log_failure(_log, "validating the arguments of %s failed", printable(name))
            return self._error(spec, INVALID_ARGUMENTS, {"detail": "$: arguments cannot be validated"}, args), 0
        # Only a contract that declares `attaches` lets its handler attach: other calls collect nothing.
        blocks: list[dict[str, Any]] | None = [] if spec.attaches else None
        try:
            ctx = self._contexts[name] if session is None else self.context(name, session)
            if spec.asks:
                with answering(answers, args):
                    output = self._attaching(tool, args, ctx, blocks)
            else:
                output = self._attaching(tool, args, ctx, blocks)
        except InputRequired as asked:
            return asked.question
        except TimedOut:
            _log.warning("%s did not finish within %s s; it runs on in the background", printable(name), spec.timeout)
            return self._error(spec, TIMED_OUT, {"seconds": spec.timeout}, args), 0
        except ToolError as exc:
            if exc.code not in spec.errors or exc.code == INTERNAL_ERROR:
                _log.error("%s raised %s, which is not in its catalogue", printable(name), printable(repr(exc)))
                return self._error(spec, INTERNAL_ERROR, {}, args), 0
            return self._raised(spec, exc, args), 0
        except Exception:
            log_failure(_log, "handler of %s failed", printable(name))
            return self._error(spec, INTERNAL_ERROR, {}, args), 0
        writable = _as_json(output, self.max_result_bytes)
        if writable is None:
            _log.error("%s returned output that cannot be written as JSON (a %s)", name, type(output).__name__)
            return self._error(spec, INTERNAL_ERROR, {}, args), 0
        output, size = writable
        attached: list[dict[str, Any]] = []
        if blocks:  # counted as the output is: a host is handed no more than max_result_bytes
            writable = _as_json(blocks, self.max_result_bytes)
            if writable is None:
                _log.error("%s attached a content block that cannot be written as JSON", printable(name))
                return self._error(spec, INTERNAL_ERROR, {}, args), 0
            attached, blocks_size = writable
            size += blocks_size
        if size > self.max_result_bytes:  # before validating or rendering what cannot be sent anyway
            return self._too_large(spec, size, args), 0
        if self.validate_output:
            try:
                problem = None if tool.output.is_valid(output) else tool.output.explain(output)
            except Exception:
                log_failure(_log, "validating the output of %s failed", printable(name))
                problem = "it cannot be validated"
            if problem is not None:
                _log.error("%s returned output that breaks its contract: %s", name, printable_block(problem))
                return self._error(spec, INTERNAL_ERROR, {}, args), 0
        try:
            text = spec.render_result.render(output, output)
        except Exception:
            log_failure(_log, "rendering the result of %s failed", printable(name))
            return self._error(spec, INTERNAL_ERROR, {}, args), 0
        return ToolResult(name, output, None, text, attached), size

    def _attaching(self, tool: BoundTool, args: Any, ctx: ToolContext, blocks: list[dict[str, Any]] | None) -> Any:
        """What the handler returns, the blocks it attaches collected in ``blocks`` (None: it attaches none)."""
        if blocks is None:
            return self._handle(tool, args, ctx)
        with attaching(blocks):
            return self._handle(tool, args, ctx)

    def _handle(self, tool: BoundTool, args: Any, ctx: ToolContext) -> Any:
        """What the handler returns: called inline, or on the timeout pool when its contract has a ``timeout``.

        Raises:
            TimedOut: the handler outlived its contract's timeout.
        """
        if tool.spec.timeout is None:
            return tool.handler(args, ctx)
        return self._timeouts.run(tool.handler, args, ctx, timeout=tool.spec.timeout)

    def _sealed(self, spec: ToolSpec, result: ToolResult, output_size: int) -> ToolResult:
        """``result`` with lone surrogates in its texts made U+FFFD, or ``response_too_large`` past the cap."""
        text, size = _utf8(result.text)
        error = result.error
        if error is not None:
            message, message_size = _utf8(error.message)
            hint, hint_size = _utf8(error.hint) if error.hint is not None else (None, 0)
            size += message_size + hint_size + _error_output_size(error)
            if message is not error.message or hint is not error.hint:
                error = replace(error, message=message, hint=hint)
        size += output_size
        if size > self.max_result_bytes:
            return self._too_large(spec, size)
        if text is result.text and error is result.error:
            return result
        return ToolResult(result.tool, result.output, error, text, result.attached)

    def _too_large(self, spec: ToolSpec, size: int, args: Any = None) -> ToolResult:
        _log.warning("a result of %s was %d bytes, over the limit of %d", spec.name, size, self.max_result_bytes)
        result = self._error(spec, RESPONSE_TOO_LARGE, {"size": size, "limit": self.max_result_bytes}, args)
        return replace(result, text=encodable(result.text))

    def _raised(self, spec: ToolSpec, exc: ToolError, args: Any) -> ToolResult:
        entry = spec.errors[exc.code]
        hint = exc.hint if exc.hint is not None else entry.hint
        return self._result(spec, ErrorInfo(exc.code, exc.message, hint), exc.params, args)

    def _error(self, spec: ToolSpec, code: str, params: Mapping[str, object], args: Any = None) -> ToolResult:
        entry = spec.errors[code]
        return self._result(spec, ErrorInfo(code, entry.message.render(params), entry.hint), params, args)

    def _result(self, spec: ToolSpec, error: ErrorInfo, params: Mapping[str, object], args: Any) -> ToolResult:
        values = {**params, "code": error.code, "message": error.message, "hint": error.hint or ""}
        try:
            text = spec.render_error.render(values, error.to_dict())
        except (KeyError, TypeError, ValueError, RecursionError):  # a missing or unwritable parameter
            text = DEFAULT_ERROR_TEXT.render(values)
        if spec.render_error_output is not None:
            error = replace(error, output=_error_output(spec.name, spec.render_error_output, error, params, args))
        return ToolResult(spec.name, None, error, text)
