"""Hold any MCP server to the contracts: replay every example against a fresh server process.

For each example: a fresh test folder with the example's fixtures, the server
started by the given command (``{workspace}`` and ``{skills}`` are replaced by
the test folder's roots, ``{folder}`` and ``{dir}`` by the folder itself, which
also reaches the server as ``$TOOLPROOF_TEST_FOLDER`` for its resources), the ``initialize`` handshake, the call,
and the result checked against the example. The server is started with
``TOOLPROOF_GATE_SECRET=toolproof-conformance``; a gated tool gets its token
the way a client would, by reading its SKILL.md first.

A resource's or prompt's example is a ``resources/read`` or ``prompts/get`` and is read as ``offered`` says.

Before any example, the server's ``tools/list`` must name each tool with the
input and output schemas of the contract's MCP export (``listing``). Each
answer is read by ``answers.read_result``: a success must carry
``structuredContent`` the output schema accepts; an error's code is read from
``_meta["dev.toolproof/error"]`` when the server sends it, else from its text,
which must be the contract's ``render.error`` of a catalogued error. Every
message must be JSON-RPC 2.0, one a line; blank lines between them are skipped.

The server is held to the MCP revision it answers ``initialize`` with
(``revisions``): before 2025-06-18 it lists no ``outputSchema`` and returns no
``structuredContent``; up to 2025-06-18 it may refuse invalid arguments with a
JSON-RPC ``-32602`` error, whose message must fit ``invalid_arguments``.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import hmac
import json
import os
import queue
import re
import shlex
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final
from xml.etree import ElementTree

from toolproof.runtime.errors import INVALID_ARGUMENTS, UNKNOWN_TOOL, RegistryError
from toolproof.runtime.host import TEST_FOLDER_ENV
from toolproof.runtime.printable import printable
from toolproof.runtime.project import PROJECT_ENV
from toolproof.runtime.questions import scripted_answer
from toolproof.runtime.result import ErrorInfo, ToolResult
from toolproof.runtime.spec import ToolSpec
from toolproof.testing.answers import expectation, missing, read_result
from toolproof.testing.fixtures import lay_fixtures
from toolproof.testing.listing import definition_differences, digest_difference, schema_difference
from toolproof.testing.offered import LIST_METHODS, listing_problems, read_offered, refused_offered, request_of
from toolproof.testing.replay import (
    CONFORMANCE_SECRET,
    DAC_CAPABILITIES,
    TEST_DIR,
    ExampleFailure,
    check_expectation,
    sets_modes,
    substitute,
)
from toolproof.testing.revisions import LATEST, arguments_are_protocol_errors, negotiated

__all__ = [
    "DEFINITION",
    "DIGEST",
    "LISTING",
    "PLACEHOLDERS",
    "SCHEMAS",
    "Outcome",
    "command_words",
    "listed_tools",
    "run_conformance",
    "served_tools",
    "stderr_excerpt",
    "write_junit",
]

TIMEOUT: Final = 30.0
STDERR_HEAD: Final = 20
STDERR_TAIL: Final = 20
"""The first and last lines of a failed server's stderr that a failure shows: where it started (the error a
Node or Python server names first) and where it ended (the last frames), with how many lines between were left out."""
STDERR_LINE_CHARS: Final = 500
"""The most characters of one stderr line shown (a minified bundle's line can be megabytes)."""
PLACEHOLDERS: Final = ("{workspace}", "{skills}", "{folder}", "{dir}", "{project}")
"""What a server command may name for the test folder's roots, the folder itself and the project."""
_PLACEHOLDER: Final = re.compile(r"(?<!\$)\{\w+\}")  # "${HOME}" is a shell's, for a command that runs "sh -c"
_PR_CAPBSET_DROP: Final = 24
_INVALID_PARAMS: Final = -32602


@dataclass(frozen=True, slots=True)
class Outcome:
    """One example against the server: passed or not, and why."""

    tool: str
    example: str
    passed: bool
    detail: str
    seconds: float
    stderr: str = ""
    """What the server wrote on stderr when it exited or closed its input (``stderr_excerpt``); empty otherwise."""


class _RpcError(Exception):
    """A JSON-RPC error answer: the request reached the server and it refused it."""

    def __init__(self, method: str, error: Any) -> None:
        super().__init__(f"{method} failed: {error}")
        self.error = error


class _ServerError(Exception):
    """The server broke the protocol, timed out or exited; ``stderr``: an excerpt of its stderr, when it ended."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr


def _lines(stream: IO[bytes]) -> Iterator[str]:
    """The lines of ``stream``, each cut at ``STDERR_LINE_CHARS`` (the rest read past, not held)."""
    while piece := stream.readline(STDERR_LINE_CHARS):
        if not piece.endswith(b"\n"):
            cut = False
            while more := stream.readline(1 << 16):
                cut = True
                if more.endswith(b"\n"):
                    break
            if cut:
                piece += b" [...]"
        yield printable(piece.decode("utf-8", "replace").rstrip("\r\n").expandtabs(4))


def stderr_excerpt(stream: IO[bytes]) -> str:
    """What a server wrote on ``stream``, from its start, for a failure to show: all of it when short.

    Past ``STDERR_HEAD + STDERR_TAIL`` lines, the first and the last of them around a
    ``... N lines omitted ...`` line: a stack trace's cause and its end both stay in view.
    Lines are made printable and cut at ``STDERR_LINE_CHARS``; blank lines at either end are dropped.
    """
    stream.seek(0)
    head: list[str] = []
    tail: deque[str] = deque(maxlen=STDERR_TAIL)
    total = 0
    for line in _lines(stream):
        if not head and not line.strip():
            continue  # blank lines before the first word
        total += 1
        if len(head) < STDERR_HEAD:
            head.append(line)
        else:
            tail.append(line)
    while tail and not tail[-1].strip():
        tail.pop()
        total -= 1
    omitted = total - len(head) - len(tail)
    middle = [f"... {omitted} line{'s' if omitted != 1 else ''} omitted ..."] if omitted else []
    return "\n".join([*head, *middle, *tail]).rstrip()


class _Connection:
    """A newline-JSON-RPC client over a server process's pipes, with deadlines."""

    def __init__(self, argv: list[str], cwd: Path, env: Mapping[str, str], drop_dac: bool) -> None:
        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            preexec_fn=_drop_dac_in_child if drop_dac else None,
        )
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._next_id = 0
        threading.Thread(target=self._pump, args=(self.proc.stdout,), daemon=True).start()

    def _pump(self, stream: IO[bytes] | None) -> None:
        assert stream is not None
        for line in stream:
            self._lines.put(line)
        self._lines.put(None)

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        self._write({"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})})

    def request(
        self,
        method: str,
        params: Mapping[str, Any],
        timeout: float,
        answer: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None,
    ) -> Any:
        """Send a request and wait for its result; a request of the server's meanwhile gets ``answer``'s reply
        (``{"result": ...}`` or ``{"error": ...}``), or -32601 when there is no ``answer``."""
        self._next_id += 1
        request_id = self._next_id
        self._write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._lines.get(timeout=max(deadline - time.monotonic(), 0.001))
            except queue.Empty:
                raise _ServerError(f"no answer to {method} within {timeout:.0f} s") from None
            if line is None:
                raise _ServerError(f"the server exited before answering {method}", self.stderr())
            if not line.strip():  # the stdio transport delimits messages by newlines; an empty line holds none
                continue
            try:
                message = json.loads(line)
            except ValueError:
                raise _ServerError(f"the server wrote a line that is not JSON: {line[:200]!r}") from None
            if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
                got = (
                    f'"jsonrpc": {json.dumps(message["jsonrpc"])}'
                    if isinstance(message, dict) and "jsonrpc" in message
                    else 'no "jsonrpc"'
                )
                raise _ServerError(
                    f'the server wrote a message with {got} while {method} waited; JSON-RPC 2.0 requires "2.0":'
                    f" {line[:200]!r}"
                )
            if "method" in message and "id" in message:
                reply = (
                    answer(message) if answer is not None else {"error": {"code": -32601, "message": "not supported"}}
                )
                self._write({"jsonrpc": "2.0", "id": message["id"], **reply})
                continue
            if type(message.get("id")) is int and message["id"] == request_id and "method" not in message:
                if ("result" in message) == ("error" in message):
                    raise _ServerError(
                        f"the answer to {method} must hold exactly one of result and error: {line[:200]!r}"
                    )
                if "error" in message:
                    raise _RpcError(method, message["error"])
                return message["result"]

    def _write(self, message: Mapping[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message).encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise _ServerError("the server closed its input", self.stderr()) from None

    def stderr(self) -> str:
        """An excerpt of what the server wrote on stderr so far (``stderr_excerpt``)."""
        return stderr_excerpt(self._stderr)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._stderr.close()


def _drop_dac_in_child() -> None:
    """In the server's process, before exec: root loses the power to ignore file permissions."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in DAC_CAPABILITIES:
        libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0)


def command_words(command: str) -> list[str]:
    """The words of a server command, checked before any server starts.

    Args:
        command: the command, split as a POSIX shell splits it (it is not run by a shell).

    Returns:
        Its words, placeholders not yet put in.

    Raises:
        ValueError: it has no word, a quotation it does not close, or a placeholder not in ``PLACEHOLDERS``.
    """
    try:
        words = shlex.split(command)
    except ValueError as exc:  # shlex says "No closing quotation" or "No escaped character"
        raise ValueError(f"{str(exc).lower()} in {command!r}") from None
    if not words:
        raise ValueError("the command is empty: give the command that starts the server")
    unknown = sorted({p for word in words for p in _PLACEHOLDER.findall(word)} - set(PLACEHOLDERS))
    if unknown:
        raise ValueError(f"unknown placeholder {', '.join(unknown)} (known: {', '.join(PLACEHOLDERS)})")
    return words


def _argv(command: str, dir_: Path, workspaces: list[Path], skills: Path, project: Path | None = None) -> list[str]:
    """The command's words with the roots put in; a ``--flag {workspace}`` pair repeats per workspace."""
    words = command_words(command)
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if i + 1 < len(words) and words[i + 1] == "{workspace}" and word.startswith("-"):
            for root in workspaces:
                out += [word, str(root)]
            i += 2
            continue
        first = str(workspaces[0]) if workspaces else str(dir_ / "workspace")
        word = word.replace("{workspace}", first).replace("{skills}", str(skills))
        word = word.replace("{folder}", str(dir_)).replace("{dir}", str(dir_))
        out.append(word.replace("{project}", str(project or "")))
        i += 1
    if out and "/" in out[0] and not os.path.isabs(out[0]):
        out[0] = os.path.abspath(out[0])  # the server starts in the test folder, not here
    return out


def _token(kind: str, connection: _Connection, spec: ToolSpec, timeout: float, revision: str) -> str:
    gate = spec.settings.get("skill_gate") or {}
    if kind == "valid":
        result = connection.request(
            "tools/call", {"name": spec.name, "arguments": {gate["path_argument"]: gate["document"]}}, timeout
        )
        reading = {"name": f"reading {gate['document']}", "expect": {}}
        output = read_result(spec, result, reading, revision).output
        token = output.get(gate["token_output"]) if isinstance(output, Mapping) else None
        if not isinstance(token, str):
            unseen = "" if output is not None else f" (under MCP {revision} its output is not in the result)"
            raise _ServerError(f"reading {gate['document']} did not return {gate['token_output']}{unseen}")
        return token
    digest = b"\x00" * 32 if kind == "stale" else hashlib.sha256(b"not the document").digest()
    message = ("conformance-other" if kind == "other_session" else "conformance").encode() + b"\x00" + digest
    return hmac.new(CONFORMANCE_SECRET, message, hashlib.sha256).hexdigest()[:32]


def _server_env(project: Path | None, folder: Path) -> dict[str, str]:
    """The server's environment: the conformance gate secret, the test folder and the project it must serve.

    A project's resource factory finds the example's files through the test folder (``HostOptions.folder``
    in a toolproof host, which reads it from ``$TOOLPROOF_TEST_FOLDER``).
    """
    env = {**os.environ, "TOOLPROOF_GATE_SECRET": CONFORMANCE_SECRET.decode(), TEST_FOLDER_ENV: str(folder)}
    if project is not None:
        env[PROJECT_ENV] = str(project)
    return env


def _run_one(command: str, spec: ToolSpec, example: Mapping[str, Any], timeout: float, project: Path | None) -> Outcome:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="toolproof-conform-") as tmp:
        base = Path(tmp).resolve()
        example = substitute(example, TEST_DIR, str(base))
        given = example.get("given", {})
        try:
            lay_fixtures(base, given.get("files", {}))
            workspaces = [base / name for name in example.get("workspaces", ["workspace"])]
            for folder in workspaces:
                folder.mkdir(exist_ok=True)
            restricted = os.geteuid() == 0 and (
                sets_modes(given.get("files", {})) or sets_modes(given.get("after_start", {}))
            )
            argv = _argv(command, base, workspaces, base / "skills", project)
            connection = _Connection(argv, base, _server_env(project, base), restricted)
            script = _Script(spec, example)
            try:
                handshake = {**_HANDSHAKE, "capabilities": _ELICITING} if script.left else _HANDSHAKE
                revision = negotiated(connection.request("initialize", handshake, timeout))
                connection.notify("notifications/initialized")
                lay_fixtures(base, given.get("after_start", {}))
                arguments = dict(example["input"])
                if "skill_token" in example:
                    arguments[(spec.settings.get("skill_gate") or {})["token_argument"]] = _token(
                        example["skill_token"], connection, spec, timeout, revision
                    )
                expect = example["expect"]
                if spec.kind != "tool":  # a resource read or a prompt got (offered)
                    method, params = request_of(spec, arguments)
                    try:
                        result = read_offered(
                            spec, connection.request(method, params, timeout), params, example["name"]
                        )
                    except _RpcError as refused:
                        result = refused_offered(spec, refused.error, expect.get("error"), example["name"])
                    check_expectation(example["name"], expect, result)
                    return Outcome(spec.name, example["name"], True, "", time.monotonic() - started)
                try:
                    call = {"name": spec.name, "arguments": arguments}
                    raw = connection.request("tools/call", call, timeout, script)
                    result = read_result(spec, raw, example, revision)
                    expect = expectation(spec, expect, raw, revision)
                except _RpcError as refused:
                    result = _refusal(spec, expect.get("error"), refused, revision)
                script.finish()
                gone = missing({**example, "expect": expect}, result)
                if gone:
                    raise ExampleFailure(f"example {example['name']!r}: " + "; ".join(gone))
                check_expectation(example["name"], expect, result)
            finally:
                connection.close()
        except (ExampleFailure, _ServerError, _RpcError, OSError, ValueError) as failure:
            stderr = failure.stderr if isinstance(failure, _ServerError) else ""
            return Outcome(spec.name, example["name"], False, str(failure), time.monotonic() - started, stderr)
    return Outcome(spec.name, example["name"], True, "", time.monotonic() - started)


_ELICITING: Final[Mapping[str, Any]] = {"elicitation": {"form": {}}}
"""The capabilities a client that answers questions declares (form-mode elicitation)."""


class _Script:
    """The client's answers an example scripts (``answers``), given to the server's ``elicitation/create`` in order.

    Each request must be the next scripted question's: its ``requestedSchema`` that question's form and its
    message one its template renders (the call's arguments in place). A request when none is left, another
    method, or a scripted answer never asked for fails the example: it cannot pass by asking nothing.
    """

    def __init__(self, spec: ToolSpec, example: Mapping[str, Any]) -> None:
        self.spec = spec
        self.example = example
        self.left: list[Mapping[str, Any]] = list(example.get("answers", ()))
        self.problems: list[str] = []

    def __call__(self, message: Mapping[str, Any]) -> Mapping[str, Any]:
        method = message.get("method")
        if method != "elicitation/create":
            self.problems.append(
                f"the server sent a {printable(str(method))} request, which this client does not serve"
            )
            return {"error": {"code": -32601, "message": "not supported"}}
        params = message.get("params")
        params = params if isinstance(params, Mapping) else {}
        said = params.get("message")
        if not self.left:
            self.problems.append(f"the server asked {printable(repr(said))}, which no scripted answer answers")
            return {"result": {"action": "cancel"}}
        scripted = self.left.pop(0)
        ask = self.spec.asks.get(scripted["ask"])
        if ask is None:  # lint refuses such an example
            self.problems.append(f"the contract declares no question '{scripted['ask']}'")
            return {"result": {"action": "cancel"}}
        known = {k: v for k, v in self.example["input"].items() if k in ask.message.fields}
        if not isinstance(said, str) or ask.message.pattern(known).fullmatch(said) is None:
            self.problems.append(
                f"the server asked {printable(repr(said))}, where question '{ask.name}' ({ask.message.source!r})"
                " came next"
            )
        elif params.get("requestedSchema") != ask.schema:
            self.problems.append(
                f"question '{ask.name}' came with another form: {printable(repr(params.get('requestedSchema')))}"
            )
        return {"result": scripted_answer(ask.kind, scripted["action"], scripted.get("value"))}

    def finish(self) -> None:
        """Raise what went wrong in the call's questions, or a scripted answer it never asked for.

        Raises:
            ExampleFailure: naming the example and each problem.
        """
        problems = list(self.problems)
        problems += [f"the server never asked '{scripted['ask']}', which the example answers" for scripted in self.left]
        if problems:
            raise ExampleFailure(f"example {self.example['name']!r}: " + "; ".join(problems))


def _refusal(spec: ToolSpec, expected: str | None, refused: _RpcError, revision: str) -> ToolResult:
    """The error a JSON-RPC error answer to ``tools/call`` stands for, where MCP has the server answer so.

    A tool the server does not offer is a protocol error in every revision;
    invalid arguments are one up to 2025-06-18 (``-32602``), whose message must
    then fit the catalogued ``invalid_arguments`` message.

    Raises:
        _RpcError: ``refused``, when the example expects no such error.
        ExampleFailure: a ``-32602`` whose message does not fit ``invalid_arguments``.
    """
    error = refused.error if isinstance(refused.error, Mapping) else {}
    message = error.get("message")
    if expected == UNKNOWN_TOOL:
        return ToolResult(spec.name, None, ErrorInfo(UNKNOWN_TOOL, str(refused)), str(refused))
    if expected != INVALID_ARGUMENTS or error.get("code") != _INVALID_PARAMS or not isinstance(message, str):
        raise refused
    if not arguments_are_protocol_errors(revision):
        raise ExampleFailure(
            f"tools/call answered invalid arguments with JSON-RPC error {_INVALID_PARAMS} ({message!r}); under MCP"
            f" {revision} input validation errors are tool execution errors (isError) the model reads and corrects"
            " from; a JSON-RPC error is accepted only from a server that negotiated 2025-06-18 or earlier"
        )
    entry = spec.errors.get(INVALID_ARGUMENTS)
    if entry is not None and entry.message.pattern().fullmatch(message) is None:
        raise ExampleFailure(
            f"tools/call answered invalid arguments with JSON-RPC error {_INVALID_PARAMS} whose message"
            f" {message!r} does not fit the contract's {INVALID_ARGUMENTS} message {entry.message.source!r}"
        )
    return ToolResult(spec.name, None, ErrorInfo(INVALID_ARGUMENTS, message), message)


_HANDSHAKE: Final = {
    "protocolVersion": LATEST,
    "capabilities": {},
    "clientInfo": {"name": "toolproof-conform", "version": "1"},
}
LISTING: Final = "the server lists the tool"
"""The name of the outcome that says whether a tool is listed at all."""
SCHEMAS: Final = "the server lists the contract's schemas"
"""The name of the outcome that says a listed tool's schemas are not the contract's (reported only then)."""
DEFINITION: Final = "the server lists the contract's title, description and annotations"
"""The name of the outcome that says a listed tool's title, description or annotations are not the contract's
(reported only then)."""


DIGEST: Final = "the server lists the pinned definition"
"""The name of the outcome that says a listed tool's digest is not the one the project's lock file pins
(reported only then)."""


def listed_tools(command: str, timeout: float = TIMEOUT, project: Path | None = None) -> set[str]:
    """The names a server started by ``command`` lists in ``tools/list`` (empty folders for its roots).

    Raises:
        OSError, ValueError: the server cannot be started or does not answer as MCP.
    """
    return set(_listing(command, timeout, project)[1])  # tools only: the offered lists are not asked for


def served_tools(command: str, timeout: float = TIMEOUT, project: Path | None = None) -> list[Mapping[str, Any]]:
    """The ``tools/list`` entries of a server started by ``command`` (every page), by name.

    Raises:
        OSError, ValueError: the server cannot be started or does not answer as MCP.
    """
    try:
        return [tool for _, tool in sorted(_listing(command, timeout, project)[1].items())]
    except (_ServerError, _RpcError) as exc:
        raise ValueError(str(exc)) from exc


def _offered(connection: _Connection, timeout: float) -> dict[str, Mapping[str, Any]]:
    """The server's resources, resource templates and prompts, by name (keyed ``kind:name``); none it does not offer."""
    found: dict[str, Mapping[str, Any]] = {}
    for method, key in LIST_METHODS:
        try:
            raw = connection.request(method, {}, timeout)
        except _RpcError:  # the server offers none of these (Method not found)
            continue
        entries = raw.get(key) if isinstance(raw, Mapping) else None
        kind = "prompt" if key == "prompts" else "resource"
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, Mapping) and isinstance(entry.get("name"), str):
                found[f"{kind}:{entry['name']}"] = entry
    return found


def _listed_as(spec: ToolSpec) -> str:
    """The key of ``spec``'s entry in ``_listing``'s answer: a tool's name, else ``kind:name``."""
    return spec.name if spec.kind == "tool" else f"{spec.kind}:{spec.name}"


def _listing(
    command: str, timeout: float, project: Path | None, *, offered: bool = False
) -> tuple[str, dict[str, Mapping[str, Any]]]:
    """The revision a server started by ``command`` negotiates, and its ``tools/list`` entries by name (every page);
    with ``offered``, its resources, resource templates and prompts too (``_offered``)."""
    with tempfile.TemporaryDirectory(prefix="toolproof-conform-") as tmp:
        base = Path(tmp).resolve()
        lay_fixtures(base, {})
        argv = _argv(command, base, [base / "workspace"], base / "skills", project)
        connection = _Connection(argv, base, _server_env(project, base), False)
        try:
            revision = negotiated(connection.request("initialize", _HANDSHAKE, timeout))
            connection.notify("notifications/initialized")
            tools: dict[str, Mapping[str, Any]] = {}
            cursor: Any = None
            for _ in range(1000):  # pages; a server that never ends its listing is cut off
                raw = connection.request("tools/list", {"cursor": cursor} if cursor else {}, timeout)
                if not isinstance(raw, Mapping) or not isinstance(raw.get("tools"), list):
                    raise _ServerError(f"tools/list returned {raw!r}")
                for tool in raw["tools"]:
                    if isinstance(tool, Mapping) and isinstance(tool.get("name"), str):
                        tools[tool["name"]] = tool
                cursor = raw.get("nextCursor")
                if not cursor:
                    break
            if offered:
                tools.update(_offered(connection, timeout))
            return revision, tools
        finally:
            connection.close()


def _schema_outcome(spec: ToolSpec, listed: Mapping[str, Any], revision: str, started: float) -> Outcome | None:
    """A failed ``SCHEMAS`` outcome when the listed schemas are not the contract's; None when they are."""
    try:
        problem = schema_difference(spec, listed, revision)
    except (RegistryError, ValueError) as exc:
        problem = f"the contract's MCP export cannot be read: {exc}"
    return None if problem is None else Outcome(spec.name, SCHEMAS, False, problem, time.monotonic() - started)


def _definition_outcome(spec: ToolSpec, listed: Mapping[str, Any], revision: str, started: float) -> Outcome | None:
    """A failed ``DEFINITION`` outcome naming each way the listed title, description or annotations differ."""
    try:
        problems = definition_differences(spec, listed, revision)
    except (RegistryError, ValueError):
        return None  # the SCHEMAS outcome says the export cannot be read
    if not problems:
        return None
    return Outcome(spec.name, DEFINITION, False, "; ".join(problems), time.monotonic() - started)


def _digest_outcome(spec: ToolSpec, listed: Mapping[str, Any], revision: str, started: float) -> Outcome | None:
    """A failed ``DIGEST`` outcome when the listed definition's digest is not the pinned one."""
    try:
        problem = digest_difference(spec, listed, revision)
    except (RegistryError, ValueError) as exc:
        problem = f"the contract's lock file cannot be read: {exc}"
    return None if problem is None else Outcome(spec.name, DIGEST, False, problem, time.monotonic() - started)


def run_conformance(
    command: str,
    specs: Sequence[ToolSpec],
    *,
    jobs: int = 2,
    timeout: float = TIMEOUT,
    report: Callable[[Outcome], None] | None = None,
    project: Path | None = None,
) -> list[Outcome]:
    """Replay every example of ``specs`` against servers started by ``command``; report each outcome as it ends.

    First the server's listing is checked: a contract whose tool the server does
    not list fails once (``LISTING``), naming the tool, and its examples are not
    replayed; a listed tool whose input or output schema is not the contract's
    fails once (``SCHEMAS``), naming the first difference, and one whose title,
    description or annotations are not fails once (``DEFINITION``), naming each,
    and one whose digest is not the one the project's lock file pins fails once (``DIGEST``); its examples run.
    ``project`` (the folder of the contracts' project) reaches each server as
    ``$TOOLPROOF_PROJECT`` and as ``{project}`` in the command.

    Raises:
        ValueError: ``command`` is not one (``command_words``); no server was started.
    """
    command_words(command)
    outcomes: list[Outcome] = []
    started = time.monotonic()
    try:
        revision, listed = _listing(command, timeout, project, offered=any(s.kind != "tool" for s in specs))
        problem, stderr = "", ""
    except (_ServerError, _RpcError, OSError, ValueError) as exc:
        revision, listed, problem = LATEST, {}, f"the server could not be listed: {exc}"
        stderr = exc.stderr if isinstance(exc, _ServerError) else ""
    checked: list[ToolSpec] = []
    for spec in specs:
        key = _listed_as(spec)
        if key in listed and spec.kind != "tool":
            checked.append(spec)
            differs = listing_problems(spec, listed[key])
            found: list[Outcome | None] = [
                Outcome(spec.name, DEFINITION, False, "; ".join(differs), time.monotonic() - started)
                if differs
                else None
            ]
        elif key in listed:
            checked.append(spec)
            found = [
                _schema_outcome(spec, listed[spec.name], revision, started),
                _definition_outcome(spec, listed[spec.name], revision, started),
                _digest_outcome(spec, listed[spec.name], revision, started),
            ]
        else:
            names = (
                sorted(name for name in listed if ":" not in name)
                if spec.kind == "tool"
                else sorted(name.partition(":")[2] for name in listed if name.startswith(f"{spec.kind}:"))
            )
            detail = problem or (
                f"the server does not list {spec.kind} '{spec.name}' (it lists: {', '.join(names) or 'none'})"
            )
            found = [Outcome(spec.name, LISTING, False, detail, time.monotonic() - started, stderr)]
        for outcome in found:
            if outcome is not None:
                outcomes.append(outcome)
                if report is not None:
                    report(outcome)
    work = [(spec, example) for spec in checked for example in spec.examples]
    lock = threading.Lock()

    def one(item: tuple[ToolSpec, Mapping[str, Any]]) -> None:
        outcome = _run_one(command, item[0], item[1], timeout, project)
        with lock:
            outcomes.append(outcome)
            if report is not None:
                report(outcome)

    with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        list(pool.map(one, work))
    order = {(spec.name, example["name"]): i for i, (spec, example) in enumerate(work)}
    return sorted(outcomes, key=lambda o: order.get((o.tool, o.example), -1))


def write_junit(outcomes: Sequence[Outcome], path: Path) -> None:
    """A JUnit XML report: one test case per example, grouped by tool."""
    suite = ElementTree.Element(
        "testsuite",
        name="toolproof conform",
        tests=str(len(outcomes)),
        failures=str(sum(1 for o in outcomes if not o.passed)),
        time=f"{sum(o.seconds for o in outcomes):.3f}",
    )
    for outcome in outcomes:
        case = ElementTree.SubElement(
            suite, "testcase", classname=outcome.tool, name=outcome.example, time=f"{outcome.seconds:.3f}"
        )
        if not outcome.passed:
            ElementTree.SubElement(case, "failure", message=outcome.detail[:500]).text = outcome.detail
            if outcome.stderr:
                ElementTree.SubElement(case, "system-err").text = outcome.stderr
    ElementTree.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)
