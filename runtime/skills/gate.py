"""The skill gate: a tool whose calls need a token that reading its SKILL.md hands out.

A contract switches the gate on with ``skill_gate``. The gated SKILL.md (a
``builtin://`` document shipped in the package) is readable through the tool
itself without a token, and that read returns the token. Every other call must
carry the current token, or it fails with the contract's catalogued error.

A token is an HMAC of the session and the SKILL.md's content under the host's
secret: another session's token, or one from before the SKILL.md changed, is
refused. The document is re-hashed whenever its file changes on disk.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

__all__ = ["BUILTIN_SCHEME", "GateSpec", "SkillGate", "builtin_dir", "default_secret", "resolve_builtin"]

BUILTIN_SCHEME = "builtin://"

Verdict = Literal["ok", "missing", "invalid"]


@dataclass(frozen=True, slots=True)
class GateSpec:
    """The ``skill_gate`` block of a contract."""

    document: str
    path_argument: str
    token_argument: str
    token_output: str
    missing_error: str
    invalid_error: str

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> GateSpec:
        """Build from the generated contract JSON."""
        return cls(
            data["document"],
            data["path_argument"],
            data["token_argument"],
            data["token_output"],
            data["missing_error"],
            data["invalid_error"],
        )


def builtin_dir() -> Path:
    """Where ``builtin://`` documents live (``documents/`` beside this module)."""
    return Path(__file__).parent / "documents"


def resolve_builtin(uri: str, folder: Path | None = None) -> Path:
    """The file behind a ``builtin://`` URI.

    Raises:
        ValueError: the URI is not a builtin URI, or climbs out of the folder.
    """
    if not uri.startswith(BUILTIN_SCHEME):
        raise ValueError(f"{uri!r} is not a {BUILTIN_SCHEME} URI")
    parts = uri[len(BUILTIN_SCHEME) :].split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"{uri!r} is not a plain builtin path")
    return (folder or builtin_dir()).joinpath(*parts)


def default_secret() -> bytes:
    """The host's gate secret: ``$TOOLPROOF_GATE_SECRET``, else a per-user key file made once.

    The key file (``$XDG_STATE_HOME/toolproof/gate.key``, mode 0600) lets tokens
    survive across ``toolproof call`` processes of one session.
    """
    env = os.environ.get("TOOLPROOF_GATE_SECRET")
    if env:
        return env.encode("utf-8")
    state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "toolproof"
    key = state / "gate.key"
    try:
        return key.read_bytes()
    except FileNotFoundError:
        pass
    state.mkdir(parents=True, exist_ok=True)
    fresh = os.urandom(32)
    try:
        fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first
        return key.read_bytes()
    with os.fdopen(fd, "wb") as out:
        out.write(fresh)
    return fresh


class SkillGate:
    """Issues and checks the tokens of one gated tool."""

    def __init__(self, spec: GateSpec, secret: bytes, folder: Path | None = None) -> None:
        self.spec = spec
        self._secret = secret
        self._path = resolve_builtin(spec.document, folder)
        self._stamp: tuple[int, int, int] | None = None
        self._text = ""
        self._digest = b""
        self._lock = threading.Lock()  # HTTP hosts check tokens on several threads

    @property
    def has_secret(self) -> bool:
        """Whether the host's secret has been set."""
        return bool(self._secret)

    def set_secret(self, secret: bytes) -> None:
        """Set the key tokens are made with (once, before the first check)."""
        self._secret = secret

    def document(self) -> str:
        """The SKILL.md's current text (re-read when the file changed)."""
        return self._current()[0]

    def _current(self) -> tuple[str, bytes]:
        """(text, sha256) of the SKILL.md as it is now, read again only when its file changed."""
        st = os.stat(self._path)
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        with self._lock:
            if stamp != self._stamp:
                data = self._path.read_bytes()
                self._text = data.decode("utf-8")
                self._digest = hashlib.sha256(data).digest()
                self._stamp = stamp
            return self._text, self._digest

    def token(self, session: str | None, *, digest: bytes | None = None) -> str:
        """The token for ``session`` and the current SKILL.md (or the given content digest)."""
        if digest is None:
            digest = self._current()[1]
        message = (session or "").encode("utf-8") + b"\x00" + digest
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()[:32]

    def is_document_read(self, args: Mapping[str, Any]) -> bool:
        """Whether the call reads the gated SKILL.md itself."""
        return args.get(self.spec.path_argument) == self.spec.document

    def check(self, args: Mapping[str, Any], session: str | None) -> Verdict:
        """Whether a call carries the current token for its session."""
        given = args.get(self.spec.token_argument)
        if not given:
            return "missing"
        # Bytes, not str: compare_digest refuses non-ASCII strings, and a model can send anything.
        if not isinstance(given, str) or not hmac.compare_digest(given.encode("utf-8"), self.token(session).encode()):
            return "invalid"
        return "ok"
