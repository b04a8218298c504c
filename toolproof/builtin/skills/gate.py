"""The skill gate: a tool whose calls need a token that reading its SKILL.md hands out.

A contract switches the gate on with ``skill_gate``. The gated SKILL.md (a
``builtin://`` document shipped in the package) is readable through the tool
itself without a token, and that read returns the token. Every other call must
carry the current token, or it fails with the contract's catalogued error.

A token is an HMAC of the session and the SKILL.md's content under the host's
secret: another session's token, or one from before the SKILL.md changed, is
refused. The document is read and hashed on every use (it is small), so an
edit is seen at once, whatever the file's size and time stamps say.

The secret, and how short it may be:

- passed by code (``SkillGates(secret)``, ``HostOptions.gate_secret``): any
  non-empty bytes; the code that passes it answers for its strength;
- ``$TOOLPROOF_GATE_SECRET``: at least 16 bytes (``MIN_ENV_SECRET_BYTES``), else
  the host does not start; set but empty is refused too, not ignored;
- otherwise the key a ``serve --workers`` supervisor handed its workers
  (``$TOOLPROOF_GATE_KEY_HEX``, the key file's bytes as hex), so every worker
  signs with one key;
- otherwise the per-user key file ``$XDG_STATE_HOME/toolproof/gate.key``: 32
  random bytes (``KEY_BYTES``), made atomically (written to a temporary file
  beside it, synced, then renamed into place under a lock), so a process that
  starts at the same moment reads the whole key, never an empty one. A key
  file shorter than 32 bytes is replaced by a fresh one; one that other users
  may read is used with a warning naming it and ``chmod 600``.

No token is ever made with an empty key.

The gate fails closed: while its document cannot be read (deleted, unreadable,
no longer UTF-8 under a running host, or not a regular file: a FIFO, a device,
a folder or a symbolic link, none of which is opened in a way that could wait
or followed), no token can be made or checked, and
every use raises ``GateDocumentError``, which the gated tool answers with its
catalogued refusal; reads resume once the document can be read again.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from toolproof.runtime.errors import ToolproofError
from toolproof.runtime.regular import NotRegular, TooLarge, read_regular
from toolproof.runtime.secret_files import warn_if_shared

__all__ = [
    "BUILTIN_SCHEME",
    "KEY_BYTES",
    "KEY_HEX_ENV",
    "MIN_ENV_SECRET_BYTES",
    "SECRET_ENV",
    "GateDocumentError",
    "GateSecretError",
    "GateSpec",
    "SkillGate",
    "builtin_dir",
    "default_secret",
    "env_secret",
    "resolve_builtin",
]

BUILTIN_SCHEME = "builtin://"
SECRET_ENV: Final = "TOOLPROOF_GATE_SECRET"
MIN_ENV_SECRET_BYTES: Final = 16
"""The shortest secret ``$TOOLPROOF_GATE_SECRET`` may hold (128 bits, if it is random)."""
KEY_BYTES: Final = 32
"""The length of the per-user key file's random key; a shorter file is replaced."""
_MAX_KEY_FILE: Final = 1 << 16
"""The most a key file may hold: a key is read in one go, and a larger file is no key toolproof made."""
KEY_HEX_ENV: Final = "TOOLPROOF_GATE_KEY_HEX"
"""The per-user key, hex-encoded, as ``serve --workers`` hands it to its workers.

The key file's random bytes may hold NUL, which no environment variable can
carry, so the supervisor passes them as hex; a worker signs with the very bytes
of the key file, and its tokens are those of a single-process host.
"""
_MAX_DOCUMENT: Final = 1 << 20
"""The most bytes a gated document may hold (a SKILL.md is a few kilobytes): a larger one cannot be read."""
_MAX_TOKENS: Final = 1024
"""The most tokens a gate remembers, by session and document digest (a token is a function of those and the key)."""


class GateSecretError(ToolproofError, ValueError):
    """The gate's secret is empty or too short, or its key file cannot be read or made."""


class GateDocumentError(ToolproofError):
    """The gated document cannot be read now (missing, unreadable, not UTF-8): no token is made or accepted.

    ``reason`` says why in a few words, naming no host path, so a tool may hand it to a model.
    """

    def __init__(self, document: str, reason: str) -> None:
        super().__init__(f"the skill gate's document {document} cannot be read: {reason}")
        self.document = document
        self.reason = reason


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


def env_secret() -> bytes | None:
    """The secret ``$TOOLPROOF_GATE_SECRET`` holds, or None when it is not set.

    Raises:
        GateSecretError: it is set, but to fewer than ``MIN_ENV_SECRET_BYTES`` bytes (empty included).
    """
    value = os.environ.get(SECRET_ENV)
    if value is None:
        return None
    secret = value.encode("utf-8", "surrogateescape")  # the bytes of the environment, as given
    if len(secret) < MIN_ENV_SECRET_BYTES:
        raise GateSecretError(
            f"${SECRET_ENV} is {len(secret)} bytes long; a gate secret must be at least {MIN_ENV_SECRET_BYTES} "
            "bytes (unset it to use the per-user key file)"
        )
    return secret


def default_secret() -> bytes:
    """The host's gate secret: ``$TOOLPROOF_GATE_SECRET``, else the per-user key file (made once).

    The key file (``$XDG_STATE_HOME/toolproof/gate.key``, mode 0600) lets tokens
    survive across ``toolproof call`` processes of one session.

    Raises:
        GateSecretError: the variable is too short, or the key file can be neither read nor made.
    """
    secret = env_secret()
    if secret is not None:
        return secret
    handed = os.environ.get(KEY_HEX_ENV)
    if handed is not None:
        try:
            given = bytes.fromhex(handed)
        except ValueError:
            given = b""
        if len(given) < MIN_ENV_SECRET_BYTES:
            raise GateSecretError(f"${KEY_HEX_ENV} must hold at least {MIN_ENV_SECRET_BYTES} bytes as hex")
        return given
    state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "toolproof"
    key = state / "gate.key"
    try:
        return _read_key(key) or _make_key(key)
    except OSError as exc:
        raise GateSecretError(
            f"the gate key file {key} can be neither read nor made ({exc.strerror or exc}); "
            f"set ${SECRET_ENV} to a secret of at least {MIN_ENV_SECRET_BYTES} bytes"
        ) from None


def _read_key(key: Path) -> bytes | None:
    """The key in ``key``, or None when there is none yet or it is too short to use.

    Read without following a link or waiting on a FIFO, and only when it is a regular file; used with a
    warning (once) when other users may read it (``warn_if_shared``).

    Raises:
        OSError: it cannot be read, or is no regular file.
    """
    try:
        data = read_regular(key, _MAX_KEY_FILE, follow_links=False)
    except FileNotFoundError:
        return None
    except (NotRegular, TooLarge) as exc:
        raise OSError(str(exc)) from None
    if len(data) < KEY_BYTES:
        return None
    warn_if_shared(key, "the skill gate's key file")  # anyone who reads it can forge tokens
    return data


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (made if missing) for the block: one key maker at a time."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _make_key(key: Path) -> bytes:
    """Make the key file, whole or not at all, unless another process made it first; return the key in it.

    The fresh key is written to a temporary file in the same folder, synced, and
    renamed over ``key``: a reader sees no file, or the whole key. The lock makes
    every process that found no usable key wait for the first one, then read its
    key, so all of them sign with the same one.
    """
    key.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with _locked(key.with_name(key.name + ".lock")):
        made = _read_key(key)
        if made is not None:
            return made
        import tempfile  # here: the key is made once per user, and tempfile imports shutil and random

        fresh = os.urandom(KEY_BYTES)
        fd, temporary = tempfile.mkstemp(dir=key.parent, prefix=f".{key.name}.")  # mode 0600
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(fresh)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, key)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        folder = os.open(key.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(folder)  # the rename itself survives a crash
        finally:
            os.close(folder)
        return fresh


def _why(exc: OSError) -> str:
    """Why a read failed, in the words of the system, without the path (which is the host's)."""
    what = exc.strerror or type(exc).__name__
    return what[:1].lower() + what[1:]  # "No such file or directory" reads on in a sentence; "a FIFO" keeps its case


def _read_bytes(path: Path) -> bytes:
    """The whole regular file at ``path``, never waiting on a FIFO or a device, nor following a symbolic link.

    A FIFO or a device put at the document would otherwise hold every read of it, and every call of the
    gated tool, in ``open`` for ever; a link could hand out a token for any file the host can read.

    Raises:
        OSError: it cannot be opened or read, is no regular file, is a symbolic link, or holds more than
            ``_MAX_DOCUMENT`` bytes; ``strerror`` says which, naming no path.
    """
    try:
        return read_regular(path, _MAX_DOCUMENT, follow_links=False)
    except NotRegular as exc:
        raise OSError(errno.EINVAL, f"it is {exc.kind}, not a regular file") from None
    except TooLarge:
        raise OSError(errno.EFBIG, f"it holds more than {_MAX_DOCUMENT} bytes") from None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(path):  # O_NOFOLLOW's refusal (EMLINK: BSD)
            raise OSError(exc.errno, "it is a symbolic link, which the gate does not follow") from None
        raise


class SkillGate:
    """Issues and checks the tokens of one gated tool."""

    def __init__(self, spec: GateSpec, secret: bytes, folder: Path | None = None) -> None:
        self.spec = spec
        self._secret = secret
        self._path = resolve_builtin(spec.document, folder)
        self._text = ""
        self._digest = b""
        self._tokens: dict[tuple[str, bytes], str] = {}
        """Tokens made under the current secret: an HMAC a call, repeated for every call of a session, cost more
        than reading the document. Read and written without the lock: an entry is a pure function of its key."""
        self._lock = threading.Lock()  # HTTP hosts check tokens on several threads

    @property
    def has_secret(self) -> bool:
        """Whether the host's secret has been set."""
        return bool(self._secret)

    def set_secret(self, secret: bytes) -> None:
        """Set the key tokens are made with (once, before the first check)."""
        self._secret = secret
        self._tokens = {}

    def document(self) -> str:
        """The SKILL.md's current text.

        Raises:
            GateDocumentError: it cannot be read now.
        """
        return self._current()[0]

    def read_document(self) -> str:
        """The SKILL.md's text, read and decoded but neither hashed nor kept: start-up's check that it is readable.

        Raises:
            OSError: it cannot be read (or is no regular file, or too large).
            UnicodeDecodeError: it is not UTF-8.
        """
        return _read_bytes(self._path).decode("utf-8")

    def versioned_document(self) -> tuple[str, bytes]:
        """(text, digest) of one version of the SKILL.md: pass the digest to ``token`` so both agree.

        Raises:
            GateDocumentError: it cannot be read now.
        """
        return self._current()

    def _current(self) -> tuple[str, bytes]:
        """(text, sha256) of the SKILL.md as it is now.

        The bytes are read and hashed every time: an edit that keeps the size
        and lands in the same time-stamp tick is still seen. Only the decoding
        is cached, keyed on the hash.

        Raises:
            GateDocumentError: it cannot be read now, or is not UTF-8.
        """
        import hashlib  # here: hashlib and hmac load OpenSSL, ~3 ms of every host's start-up; the first use pays it

        try:
            data = _read_bytes(self._path)
        except OSError as exc:
            raise GateDocumentError(self.spec.document, _why(exc)) from None
        digest = hashlib.sha256(data).digest()
        with self._lock:
            if digest != self._digest:
                try:
                    self._text = data.decode("utf-8")
                except UnicodeDecodeError:
                    raise GateDocumentError(self.spec.document, "it is not UTF-8 text") from None
                self._digest = digest
            return self._text, digest

    def token(self, session: str | None, *, digest: bytes | None = None) -> str:
        """The token for ``session`` and the current SKILL.md (or the given content digest).

        Raises:
            GateSecretError: the gate has no secret (a token made with an empty key could be forged by anyone).
            GateDocumentError: no digest was given, and the SKILL.md cannot be read now.
        """
        if not self._secret:
            raise GateSecretError("the skill gate has no secret; no token is made with an empty key")
        if digest is None:
            digest = self._current()[1]
        key = (session or "", digest)
        tokens = self._tokens
        token = tokens.get(key)
        if token is None:
            # surrogatepass: a session named with undecodable bytes still gets its own, distinct token.
            import hashlib
            import hmac

            message = key[0].encode("utf-8", "surrogatepass") + b"\x00" + digest
            token = hmac.new(self._secret, message, hashlib.sha256).hexdigest()[:32]
            if len(tokens) >= _MAX_TOKENS:
                tokens.clear()
            tokens[key] = token
        return token

    def is_document_read(self, args: Mapping[str, Any]) -> bool:
        """Whether the call reads the gated SKILL.md itself."""
        return args.get(self.spec.path_argument) == self.spec.document

    def check(self, args: Mapping[str, Any], session: str | None) -> Verdict:
        """Whether a call carries the current token for its session.

        Raises:
            GateDocumentError: the call carries a token, and the SKILL.md cannot be read now (so none is current).
        """
        given = args.get(self.spec.token_argument)
        if not given:
            return "missing"
        import hmac

        # Bytes, not str: compare_digest refuses non-ASCII strings, and a model can send anything
        # (surrogatepass: even a lone surrogate, which is simply not the token).
        if not isinstance(given, str) or not hmac.compare_digest(
            given.encode("utf-8", "surrogatepass"), self.token(session).encode()
        ):
            return "invalid"
        return "ok"
