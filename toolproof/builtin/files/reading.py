"""Read text beneath a root, whole or as a line window, auditing before any content is returned."""

from __future__ import annotations

import codecs
import os
import time
from dataclasses import dataclass, field, replace

from toolproof.builtin.files.access import Directory, FileAccessError, HardlinkPolicy, OpenFile, SymlinkPolicy
from toolproof.builtin.files.audit import AuditRecord, audit_sink
from toolproof.builtin.files.decoding import (
    Decoded,
    DecodeError,
    Newline,
    decode,
    label,
    looks_binary,
    newline_style,
    utf16_without_bom,
)
from toolproof.builtin.files.lines import Window, read_window
from toolproof.builtin.files.numbering import numbered, numbered_size
from toolproof.builtin.files.progress import Progress
from toolproof.builtin.files.workspace import symlink_policy
from toolproof.runtime.context import ToolContext

__all__ = ["LineWindow", "TextFile", "hardlink_policy", "read_lines", "read_text", "window_from_text"]


def hardlink_policy(ctx: ToolContext) -> HardlinkPolicy:
    """The contract's policy for files with more than one name (``hardlinks:``; ``allow`` when it says none)."""
    policy: HardlinkPolicy = ctx.setting("hardlinks", "allow")
    return policy


@dataclass(frozen=True, slots=True)
class TextFile:
    """A text file that was read: where it resolved, its size and mtime, its decoded text."""

    relpath: str
    path: str
    size: int
    mtime: float
    decoded: Decoded


def read_text(
    ctx: ToolContext,
    root: Directory,
    user_path: str,
    *,
    max_bytes: int,
    utf8_only: bool = False,
    symlinks: SymlinkPolicy | None = None,
    hardlinks: HardlinkPolicy | None = None,
    absolute: bool = False,
) -> TextFile:
    """Open, read and decode ``user_path`` beneath ``root``, auditing the outcome.

    The symbolic- and hard-link policies are the contract's unless given.

    Raises:
        FileAccessError: the path is refused or cannot be read.
        DecodeError: the content is not text this caller accepts.
    """
    with (
        _Audit(ctx, root, user_path) as audit,
        _open(ctx, root, user_path, symlinks, hardlinks, absolute) as opened,
    ):
        audit.path = opened.path
        data = opened.read_all(max_bytes)
        audit.bytes = len(data)
        result = TextFile(
            opened.relpath, opened.path, len(data), opened.stat.st_mtime, decode(data, utf8_only=utf8_only)
        )
    return result


def _open(
    ctx: ToolContext,
    root: Directory,
    user_path: str,
    symlinks: SymlinkPolicy | None,
    hardlinks: HardlinkPolicy | None,
    absolute: bool,
) -> OpenFile:
    return root.open_file(
        user_path,
        symlinks=symlinks or symlink_policy(ctx),
        hardlinks=hardlinks or hardlink_policy(ctx),
        absolute=absolute,
    )


class _Audit:
    """Times one file access and records its outcome on leaving, before any content is returned."""

    def __init__(self, ctx: ToolContext, root: Directory, user_path: str) -> None:
        self.ctx = ctx
        self.path = user_path if user_path.startswith("/") else f"{root.real}/{user_path}"
        self.bytes = 0
        self.started = time.perf_counter()

    def __enter__(self) -> _Audit:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if exc is None:
            outcome = "ok"
        elif isinstance(exc, (FileAccessError, DecodeError)):
            outcome = exc.reason
        else:
            return
        elapsed = (time.perf_counter() - self.started) * 1000
        audit_sink(self.ctx)(AuditRecord(self.ctx.tool, self.ctx.session, self.path, outcome, self.bytes, elapsed))


@dataclass(frozen=True, slots=True)
class LineWindow:
    """A window of decoded lines of a file, with what a line-oriented tool reports about it."""

    relpath: str
    path: str
    size: int
    mtime: float
    start: int
    text: str
    """The window's lines joined by ``\\n`` (none of them holds a line end)."""
    count: int
    """How many lines the window holds."""
    total: int
    more: bool
    cut: frozenset[int]
    """Indexes (into ``lines``) of the lines that were longer than the limit and were cut."""
    encoding: str
    bom: bool
    newline: Newline
    """The line ends of the first 64 KiB (of the whole text when it was decoded whole); numbering never
    depends on it: ``\\r\\n``, ``\\n`` and a lone ``\\r`` each end a line wherever they are."""
    utf8: bytes | None = field(default=None, repr=False, compare=False)
    """``text`` in UTF-8, when that is what the file held (then no re-encoding is needed to number it)."""

    @property
    def lines(self) -> list[str]:
        """The window's lines, one string each."""
        return self.text.split("\n") if self.count else []

    def numbered(self, separator: str, *, align: bool = False) -> str:
        """Each line after its number and ``separator``, joined by ``\\n`` (see ``numbering.numbered``)."""
        data = self.utf8 if self.utf8 is not None else self.text.encode("utf-8")
        return numbered(data, self.count, self.start, separator, align=align)

    def numbered_size(self, separator: str, *, align: bool = False) -> int:
        """The length in UTF-8 bytes of ``numbered(separator, align=align)``, found without building it."""
        if self.utf8 is not None:
            size = len(self.utf8)
        elif self.text.isascii():
            size = len(self.text)
        else:
            size = len(self.text.encode("utf-8"))
        return numbered_size(size, self.count, self.start, separator, align=align)


_HEAD = 64 * 1024


def _trim_partial_utf8(data: bytes) -> bytes:
    """Drop an incomplete UTF-8 sequence a byte cut left at the end."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return data
        if byte >= 0xC0:  # a lead byte: is its sequence complete?
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return data if back >= need else data[:-back]
    return data


def _head_encoding(head: bytes, utf8_only: bool, *, cut: bool) -> tuple[str | None, bool]:
    """(codec for the line scanner, BOM) from the first bytes.

    The codec is ``utf-8`` (scanned in place) or None: decode the whole file
    (UTF-16/32, or a legacy encoding found by detection). Only when ``cut``
    (more of the file follows the head) may a character at its end be
    incomplete: a file that ends in a lead byte (``caf\\xe9``) is not UTF-8.
    Bytes that are not UTF-8 are binary first when they look it, as ``decode`` finds.
    """
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8", True
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):  # UTF-32 LE starts like UTF-16 LE
        if utf8_only:
            raise DecodeError("not_utf8", "the file is UTF-16 or UTF-32, not UTF-8")
        return None, True
    if head.startswith(codecs.BOM_UTF32_BE):
        if utf8_only:
            raise DecodeError("not_utf8", "the file is UTF-32, not UTF-8")
        return None, True
    sample = head[:8192]
    if b"\x00" in head:  # a NUL anywhere in what was read is binary, whatever else the bytes are
        if not utf8_only and utf16_without_bom(sample) is not None:
            return None, False
        raise DecodeError("binary", "the file is binary, not text")
    try:
        (_trim_partial_utf8(head) if cut else head).decode("utf-8")
        return "utf-8", False
    except UnicodeDecodeError as exc:
        failure = exc.start
    if looks_binary(sample):
        raise DecodeError("binary", "the file is binary, not text")
    if utf8_only:
        raise DecodeError("not_utf8", f"the file is not valid UTF-8 (invalid byte at offset {failure})")
    return None, False


def _decode_window(data: bytes, count: int, cut: list[int], utf8_only: bool) -> tuple[str, bytes | None]:
    """(text, its UTF-8 when that is ``data``) of a window's UTF-8 lines, joined by LF, in one pass.

    A cut line may end inside a character, which is dropped first. Invalid
    bytes are refused (``utf8_only``) or each replaced by U+FFFD; decoding the
    block with ``replace`` gives what decoding line by line gives, as no invalid
    sequence runs on through an LF.
    """
    if b"\x00" in data:  # binary before not UTF-8: the NUL says what the file is, a bad byte only what it is not
        raise DecodeError("binary", "the file is binary (it contains NUL bytes)")
    if cut:
        raw = data.split(b"\n")
        for i in cut:
            raw[i] = _trim_partial_utf8(raw[i])
        data = b"\n".join(raw)
    utf8: bytes | None = data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if utf8_only:
            raise DecodeError("not_utf8", "the file is not valid UTF-8") from exc
        text = data.decode("utf-8", errors="replace")
        utf8 = None
    return text, utf8 if count else b""


def window_from_text(text: str, start: int, limit: int) -> tuple[list[str], int]:
    """Lines ``start`` .. ``start + limit - 1`` of decoded text (any line ends), and how many lines it has."""
    window, count, total = _text_window(text, start, limit)
    return window.split("\n") if count else [], total


def _text_window(text: str, start: int, limit: int) -> tuple[str, int, int]:
    """(lines ``start`` .. ``start + limit - 1`` joined by ``\\n``, how many, how many lines ``text`` has).

    ``\\r\\n``, ``\\r`` and ``\\n`` each end a line, and a final terminator adds none
    (as ``lines.py`` counts them in bytes). The text is never split into a list
    of all its lines, which costs some 60 bytes a line: a 10 MiB file of short
    lines would take hundreds of MB to read ten of them. Line ends are counted
    in C, a block at a time.
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    total = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    if start > total:
        return "", 0, total
    count = min(limit, total - start + 1)
    begin = _after_breaks(text, 0, start - 1)
    if start + count - 1 == total:  # the window runs to the end, less its terminator
        end = len(text) - 1 if text.endswith("\n") else len(text)
    else:
        end = _after_breaks(text, begin, count) - 1
    return text[begin:end], count, total


def _after_breaks(text: str, pos: int, n: int) -> int:
    """The offset just past the ``n``-th ``\\n`` at or after ``pos`` (``pos`` itself for none; known to exist)."""
    step = 4096
    while n:
        found = text.count("\n", pos, pos + step)
        if found >= n:
            break
        n -= found
        pos += step
    for _ in range(n):
        pos = text.index("\n", pos) + 1
    return pos


def read_lines(
    ctx: ToolContext,
    root: Directory,
    user_path: str,
    *,
    start: int,
    limit: int,
    max_bytes: int,
    max_line_chars: int | None = None,
    utf8_only: bool = False,
    symlinks: SymlinkPolicy | None = None,
    hardlinks: HardlinkPolicy | None = None,
    absolute: bool = False,
    progress: Progress | None = None,
) -> LineWindow:
    """Read lines ``start`` .. ``start + limit - 1`` of a text file beneath ``root``, and count them all.

    UTF-8 (and ASCII-compatible legacy encodings found on the first 64 KiB) is
    scanned in place: only the window is decoded. UTF-16 and UTF-32 files are
    decoded whole (within ``max_bytes``). An audit record is written before
    anything is returned.

    Args:
        progress: told ``(offset, size)`` while a scan of a large file goes (see ``lines.read_window``).

    Raises:
        FileAccessError: the path is refused, cannot be read, or is over ``max_bytes``.
        DecodeError: binary content (a NUL byte in the first 64 KiB or in what is decoded; it wins
            over invalid UTF-8), or not UTF-8 when ``utf8_only``.
    """
    with (
        _Audit(ctx, root, user_path) as audit,
        _open(ctx, root, user_path, symlinks, hardlinks, absolute) as opened,
    ):
        audit.path = opened.path
        st = opened.stat
        if st.st_size > max_bytes:
            detail = f"the file is {st.st_size} bytes; the limit is {max_bytes}"
            raise FileAccessError("too_large", user_path, detail, size=st.st_size)
        head = os.pread(opened.fd, _HEAD + 1, 0)  # one byte more says whether the head is the whole file
        codec, bom = _head_encoding(head[:_HEAD], utf8_only, cut=len(head) > _HEAD)
        head = head[:_HEAD]
        utf8: bytes | None = None
        if codec is None:  # UTF-16/32 or a legacy encoding: decode the whole file
            decoded = decode(opened.read_all(max_bytes), utf8_only=utf8_only)
            audit.bytes = st.st_size
            if "\x00" in decoded.text:  # past the sample ``decode`` tests, or U+0000 in UTF-16
                raise DecodeError("binary", "the file is binary (it contains NUL bytes)")
            text, count, total = _text_window(decoded.text, start, limit)
            longest = len(text)  # a bound: measuring each line would split the window
            more, cut = start + count - 1 < total, frozenset[int]()
            codec, bom, newline = decoded.encoding, decoded.bom, decoded.newline
        else:
            per_line = max_line_chars * 4 if max_line_chars is not None else max_bytes + 1
            window = _utf8_window(opened.fd, st, bom, start, limit, per_line, progress, max_line_chars)
            text, utf8 = _decode_window(window.data, window.count, window.cut, utf8_only)
            count, longest = window.count, window.longest
            total = window.total if window.total is not None else start + count - 1
            more, cut = bool(window.more), frozenset(window.cut)
            audit.bytes = window.bytes_read
            # The line ends are ASCII, so counting them in the bytes counts them in the text.
            newline = newline_style(head.decode("latin-1"))
        if max_line_chars is not None and longest > max_line_chars:  # no line is longer than ``longest`` bytes
            lines = text.split("\n") if count else []
            if max(map(len, lines), default=0) > max_line_chars:
                cut = cut | {i for i, line in enumerate(lines) if len(line) > max_line_chars}
                text = "\n".join(line[:max_line_chars] for line in lines)
                utf8 = None
        encoding = label(codec)
        result = LineWindow(
            opened.relpath,
            opened.path,
            st.st_size,
            st.st_mtime,
            start,
            text,
            count,
            total,
            more,
            cut,
            encoding,
            bom,
            newline,
            utf8,
        )
    return result


def _utf8_window(
    fd: int,
    st: os.stat_result,
    bom: bool,
    start: int,
    limit: int,
    per_line: int,
    progress: Progress | None,
    max_line_chars: int | None,
) -> Window:
    """The window of a UTF-8 file, scanned in place, less the BOM at the start of its first line."""
    if bom and st.st_size == len(codecs.BOM_UTF8):
        return Window(start, b"", 0, [], 0, False, 0, 0)  # a BOM alone is an empty text, as when decoded whole
    window = read_window(
        fd,
        size=st.st_size,
        start=start,
        limit=limit,
        # The BOM is no part of the first line's text: its bytes do not count against the line's length.
        max_line_bytes=per_line + (len(codecs.BOM_UTF8) if bom and start == 1 else 0),
        count_total=True,
        identity=(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns),
        progress=progress,
        exact_over=max_line_chars,  # a line of more characters has more bytes: only those need a closer look
    )
    data = window.data
    if bom and start == 1 and window.count:
        first = data.find(b"\n")  # the BOM, or as much of it as a cut first line kept
        data = data[min(len(codecs.BOM_UTF8), len(data) if first < 0 else first) :]
        return replace(window, data=data)
    return window  # ``replace`` costs ~3.7 us a call: only a first line with a BOM pays it
