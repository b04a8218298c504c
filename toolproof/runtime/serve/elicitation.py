"""Questions a tool asks its MCP client (``ToolContext.ask``), in both protocol eras.

2026-07-28 (multi round-trip requests): a call whose handler asks a question it holds no answer to
is answered with an ``InputRequiredResult`` (``resultType: "input_required"``) whose ``inputRequests``
holds one ``elicitation/create`` request, keyed by the question's name, and whose ``requestState``
carries the answers given in earlier rounds. The client retries the call with ``inputResponses``
(each key a question's name, each value an ``ElicitResult``) and the state echoed; the handler runs
again from the top with every answer. Nothing is kept between the rounds, so any worker can answer
the retry. The state is integrity-protected (HMAC-SHA256 under a key derived from the server's secret:
``$TOOLPROOF_GATE_SECRET``, or what a ``--workers`` supervisor hands its workers, else one random per
process, which only that process can verify) and bound to the
tool, a digest of its arguments, the caller (the OAuth subject, if any) and an expiry of
``STATE_TTL`` seconds: a state that fails any of these is refused with -32602. Unknown
``inputResponses`` keys are ignored; an answer to a question that does not fit its form is -32602;
a question left unanswered is asked again. A client that did not declare the ``elicitation``
capability (form mode) in its ``_meta`` is never asked: the call ends in ``input_unavailable``.

2025-11-25 (elicitation): the server sends ``elicitation/create`` to the client on the connection
the call came on (stdio: the same pipe; Streamable HTTP: the call's SSE stream, the client POSTing
its answer back) and waits up to ``ASK_TIMEOUT`` seconds for the answer, then runs the handler
again with it. On stdio a client that did not declare ``elicitation`` at ``initialize`` is not asked.
The stateless HTTP core keeps no handshake, so it asks whenever the request accepts an SSE
answer, and takes a JSON-RPC error answer (a client without elicitation) as "cannot be asked"; the
answer's POST must reach the process that asked (one process, or a balancer with affinity: use
2026-07-28 to scale out freely). Whatever goes wrong (no answer in time, an error, an answer that
does not fit) ends the call in the catalogued ``input_unavailable``, saying why.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Final

from toolproof.runtime.context import current_caller
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.printable import printable
from toolproof.runtime.questions import Answer, AskSpec, Question, read_answer
from toolproof.runtime.result import ToolResult
from toolproof.runtime.validation import SchemaValidator

__all__ = ["ASK_TIMEOUT", "STATE_TTL", "Elicitation", "InputProblem", "form_supported"]

ASK_TIMEOUT: Final = 600.0
"""Seconds a 2025 call waits for the client's answer to one question (a person reads and decides)."""
STATE_TTL: Final = 3600
"""Seconds a 2026-07-28 ``requestState`` stays valid."""
_ID_PREFIX: Final = "toolproof-ask-"


class InputProblem(Exception):
    """A 2026-07-28 retry's ``inputResponses`` or ``requestState`` cannot be used (answered with -32602)."""


def form_supported(capabilities: Any) -> bool:
    """Whether client capabilities declare form-mode elicitation (``elicitation: {}`` is form mode, the spec says)."""
    if not isinstance(capabilities, Mapping):
        return False
    elicitation = capabilities.get("elicitation")
    if not isinstance(elicitation, Mapping):
        return False
    return not elicitation or "form" in elicitation


class _Waiting:
    """One question sent to a 2025 client: set once its answer (a JSON-RPC response) arrives."""

    __slots__ = ("arrived", "reply")

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.reply: Mapping[str, Any] | None = None


class Elicitation:
    """How one MCP server asks its clients the questions tools ask; shared by every connection it serves.

    Args:
        runtime: the tools.
        secret: the key of ``requestState`` (random per process when None: then only the process that
            asked can take the retry).
        timeout: seconds a 2025 call waits for an answer.
    """

    def __init__(self, runtime: Runtime, secret: bytes | None = None, timeout: float = ASK_TIMEOUT) -> None:
        self.runtime = runtime
        self._secret = secret or os.urandom(32)
        self._key: bytes | None = None
        self.timeout = timeout
        self._forms = {
            (spec.name, name): SchemaValidator(ask.schema) for spec in runtime.specs for name, ask in spec.asks.items()
        }
        self._asks = {spec.name: spec.asks for spec in runtime.specs}
        self._waiting: dict[str, _Waiting] = {}
        self._lock = threading.Lock()

    def asks(self, tool: str) -> bool:
        """Whether tool ``tool`` declares questions (its calls go through here)."""
        return bool(self._asks.get(tool))

    # 2026-07-28: multi round-trip requests

    def round(
        self, tool: str, arguments: Mapping[str, Any], params: Mapping[str, Any], capabilities: Any, session: str
    ) -> ToolResult | dict[str, Any]:
        """One round of a 2026-07-28 call: its result, or the ``InputRequiredResult`` asking the next question.

        Raises:
            InputProblem: the ``requestState`` or an ``inputResponses`` entry cannot be used.
        """
        answers: dict[str, Answer] = {}
        state = params.get("requestState")
        if state is not None:
            answers.update(self._unseal(state, tool, arguments))
        responses = params.get("inputResponses")
        if responses is not None:
            if not isinstance(responses, Mapping):
                raise InputProblem("Invalid params: inputResponses must be an object")
            asks = self._asks[tool]
            for key, data in responses.items():
                ask = asks.get(key)
                if ask is None:
                    continue  # not asked by this tool: ignored, as the specification asks
                answer = read_answer(data, ask, self._forms[tool, key].is_valid)
                if isinstance(answer, str):
                    raise InputProblem(f"Invalid params: inputResponses[{printable(key)!r}]: {answer}")
                answers[key] = answer
        outcome = self.runtime.call_asking(tool, arguments, answers=answers, session=session)
        if isinstance(outcome, ToolResult):
            return outcome
        if not form_supported(capabilities):
            why = "this client cannot be asked (its request's clientCapabilities declare no form elicitation)"
            return self.runtime.unanswered(tool, outcome, why, arguments)
        request = {"method": "elicitation/create", "params": outcome.elicitation()}
        return {
            "resultType": "input_required",
            "inputRequests": {outcome.name: request},
            "requestState": self._seal(tool, arguments, answers),
        }

    def _mac(self, data: bytes) -> bytes:
        """HMAC-SHA256 of ``data`` under the requestState key (hashlib loads OpenSSL: not before a state is made)."""
        import hashlib
        import hmac

        if self._key is None:
            self._key = hmac.new(self._secret, b"toolproof mcp requestState", hashlib.sha256).digest()
        return hmac.new(self._key, data, hashlib.sha256).digest()

    def _binding(self, tool: str, arguments: Mapping[str, Any]) -> str:
        """What a state is bound to: the tool, its arguments and the caller, as a digest."""
        import hashlib

        caller = current_caller()
        subject = caller.subject if caller is not None else None
        text = json.dumps(
            [tool, arguments, subject], sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=repr
        )  # ``repr``: arguments the runtime will refuse (beyond the JSON reader's bounds) still bind
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def _seal(self, tool: str, arguments: Mapping[str, Any], answers: Mapping[str, Answer]) -> str:
        body = {
            "b": self._binding(tool, arguments),
            "e": int(time.time()) + STATE_TTL,
            "r": {name: answer.to_wire() for name, answer in answers.items()},
        }
        data = json.dumps(body, sort_keys=True, separators=(",", ":")).encode("utf-8", "surrogatepass")
        return f"{_b64(data)}.{_b64(self._mac(data))}"

    def _unseal(self, state: Any, tool: str, arguments: Mapping[str, Any]) -> dict[str, Answer]:
        """The answers a ``requestState`` this server sealed carries.

        Raises:
            InputProblem: it is not one, it was altered, it expired, or it belongs to another call or caller.
        """
        if not isinstance(state, str) or state.count(".") != 1:
            raise InputProblem("Invalid params: requestState is not one this server issued")
        data_text, mac_text = state.split(".")
        try:
            data, mac = _unb64(data_text), _unb64(mac_text)
        except ValueError:  # binascii.Error is one
            raise InputProblem("Invalid params: requestState is not one this server issued") from None
        import hmac

        if not hmac.compare_digest(mac, self._mac(data)):
            raise InputProblem("Invalid params: requestState failed its integrity check (altered, or another server's)")
        body = json.loads(data)
        if body["e"] < time.time():
            raise InputProblem("Invalid params: requestState has expired; call the tool again without it")
        if not hmac.compare_digest(body["b"], self._binding(tool, arguments)):
            raise InputProblem("Invalid params: requestState belongs to another call (tool, arguments or caller)")
        asks = self._asks[tool]
        answers: dict[str, Answer] = {}
        for name, wire in body["r"].items():
            answer = read_answer(wire, asks[name]) if name in asks else None
            if isinstance(answer, Answer):
                answers[name] = answer
        return answers

    # 2025-11-25: elicitation/create on the call's connection

    def ask_through(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        session: str,
        send: Callable[[Mapping[str, Any]], None] | None,
        why_not: str | None,
    ) -> ToolResult:
        """A 2025 call whose questions are sent to the client by ``send``, each answer awaited.

        Args:
            send: writes a message to the client on the call's connection (None: none can be written).
            why_not: why this client cannot be asked (None: it may be).
        """
        answers: dict[str, Answer] = {}
        while True:
            outcome = self.runtime.call_asking(tool, arguments, answers=answers, session=session)
            if isinstance(outcome, ToolResult):
                return outcome
            if why_not is None and send is None:
                why_not = "this client cannot be asked (its request accepts no text/event-stream answer)"
            if why_not is not None:
                return self.runtime.unanswered(tool, outcome, why_not, arguments)
            assert send is not None
            answer = self._ask(tool, outcome, send)
            if isinstance(answer, str):
                return self.runtime.unanswered(tool, outcome, answer, arguments)
            answers[outcome.name] = answer

    def _ask(self, tool: str, question: Question, send: Callable[[Mapping[str, Any]], None]) -> Answer | str:
        """Send ``question`` to the client and wait for its answer; or why none can be used."""
        ask_id = _ID_PREFIX + os.urandom(12).hex()
        waiting = _Waiting()
        with self._lock:
            self._waiting[ask_id] = waiting
        try:
            send({"jsonrpc": "2.0", "id": ask_id, "method": "elicitation/create", "params": question.elicitation()})
            if not waiting.arrived.wait(self.timeout):
                return f"the client did not answer within {self.timeout:g} s"
        finally:
            with self._lock:
                self._waiting.pop(ask_id, None)
        reply = waiting.reply or {}
        if "result" not in reply:
            error = reply.get("error")
            said = error.get("message") if isinstance(error, Mapping) else None
            return f"the client could not ask its user ({printable(str(said))[:200]})"
        ask: AskSpec = self._asks[tool][question.name]
        answer = read_answer(reply["result"], ask, self._forms[tool, question.name].is_valid)
        if isinstance(answer, str):
            return f"the client's answer cannot be used: {answer}"
        return answer

    def replied(self, message: Mapping[str, Any]) -> bool:
        """Hand a client's JSON-RPC response to the question it answers; False when it answers none of ours."""
        ask_id = message.get("id")
        if not isinstance(ask_id, str) or not ask_id.startswith(_ID_PREFIX):
            return False
        with self._lock:
            waiting = self._waiting.get(ask_id)
        if waiting is None:
            return False
        waiting.reply = message
        waiting.arrived.set()
        return True


def _b64(data: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    import base64

    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
