"""Turn file bytes into text, and say what was found.

The order: a byte-order mark decides (UTF-8, UTF-16, UTF-32); otherwise strict
UTF-8; otherwise, unless the caller accepts UTF-8 only, a binary test, then
UTF-8 with its few invalid bytes replaced by U+FFFD when the rest is plainly
UTF-8, then charset detection on a bounded sample, where Latin-script text
with a few accented letters is read as Windows-1252 unless the detector
recognises a language of another Latin code page. Valid UTF-8 without NUL
bytes is never called binary, however dense its CJK or emoji, and no sample
boundary can cut a character in two because UTF-8 is checked on the whole text.

The encoding found is named by its WHATWG Encoding Standard label (``utf-8``,
``utf-16le``, ``windows-1252``, ``shift_jis``), which every language's text
decoder knows, not by Python's codec name (``cp1252``); an encoding the
standard lacks by its IANA name (``utf-32le``, ``iso-8859-1``). ``label`` turns
any Python codec name or alias into it.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import Final, Literal

from toolproof.runtime.errors import ToolproofError
from toolproof.runtime.lazy import LazyPattern

__all__ = [
    "DecodeError",
    "Decoded",
    "Newline",
    "decode",
    "detect",
    "label",
    "looks_binary",
    "newline_style",
    "utf16_without_bom",
]

Newline = Literal["lf", "crlf", "cr", "mixed", "none"]

SAMPLE_BYTES: Final = 64 * 1024
_BOMS: Final = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_LABELS: Final = {
    "utf_8": "utf-8",
    "utf_16_le": "utf-16le",
    "utf_16_be": "utf-16be",
    "utf_32_le": "utf-32le",
    "utf_32_be": "utf-32be",
    "iso8859_1": "iso-8859-1",
    "ascii": "us-ascii",
    "cp866": "ibm866",
    "cp874": "windows-874",
    "cp932": "shift_jis",
    "shift_jis": "shift_jis",
    "euc_jp": "euc-jp",
    "iso2022_jp": "iso-2022-jp",
    "euc_kr": "euc-kr",
    "gb2312": "gbk",
    "gbk": "gbk",
    "gb18030": "gb18030",
    "big5": "big5",
    "big5hkscs": "big5",
    "koi8_r": "koi8-r",
    "koi8_u": "koi8-u",
    "mac_roman": "macintosh",
    "mac_cyrillic": "x-mac-cyrillic",
    **{f"cp{page}": f"windows-{page}" for page in range(1250, 1259)},
    **{f"iso8859_{part}": f"iso-8859-{part}" for part in (2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 15, 16)},
}
"""Python's codec names (``codecs.lookup(...).name``, underscored) and their WHATWG labels, or IANA names."""
_PREFERRED: Final = ("utf_8", "cp1252", "cp1251", "gb18030", "cp932", "euc_kr", "big5")
_UTF8_EVIDENCE: Final = 4
"""Valid non-ASCII characters needed per invalid byte for bytes that fail UTF-8 to be read as UTF-8 anyway."""
_ASCII: Final = frozenset(map(chr, range(128)))
_HIGH_RUN: Final = LazyPattern(rb"[\x80-\xff]+")
_ASCII_LETTER: Final = LazyPattern(rb"[A-Za-z]")
_CENTRAL: Final = frozenset({"cp1250", "iso8859_2", "iso8859_16", "mac_latin2", "cp852"})
_BALTIC: Final = frozenset({"cp1257", "iso8859_4", "iso8859_13", "cp775"})
_OTHER_LATIN_PAGES: Final = {
    **dict.fromkeys(
        ("Albanian", "Bosnian", "Croatian", "Czech", "Hungarian", "Polish", "Romanian", "Serbian", "Slovak", "Slovene"),
        _CENTRAL,
    ),
    **dict.fromkeys(("Estonian", "Latvian", "Lithuanian"), _BALTIC),
    "Turkish": frozenset({"cp1254", "iso8859_9", "cp857"}),
    "Vietnamese": frozenset({"cp1258"}),
}
"""Latin-script languages whose legacy code pages are not Windows-1252 (charset-normalizer's names), with them:
the detector's guess of such a language is taken only together with one of its code pages."""
_TURKISH_ONLY: Final = frozenset("ÐðÝýÞþ")
"""Windows-1252's letters at the bytes where Windows-1254 has Turkish g with breve, dotted and dotless i, s cedilla."""
_TURKISH: Final = _TURKISH_ONLY | frozenset("ÇçÖöÜüÂâÎîÛû")
_TEXT_CONTROLS: Final = frozenset(b"\t\n\r\x0c\x1b\x08")


class DecodeError(ToolproofError):
    """The bytes are not text this caller accepts; ``reason`` is ``binary`` or ``not_utf8``."""

    def __init__(self, reason: Literal["binary", "not_utf8", "undecodable"], detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Decoded:
    """Text with what decoding found: the encoding, whether a BOM was stripped, the newline style."""

    text: str
    encoding: str
    """The encoding's WHATWG label (``label``): ``utf-8``, ``utf-16le``, ``windows-1252``."""
    bom: bool
    newline: Newline


def label(encoding: str) -> str:
    """The WHATWG label of a Python codec name or alias (``cp1252`` -> ``windows-1252``); an unknown name as given.

    A name Python cannot look up, or one without a WHATWG or IANA label here, is
    returned lowercased with ``-`` for ``_``, as ``decode`` named encodings before.
    """
    try:
        name = codecs.lookup(encoding).name.replace("-", "_")
    except LookupError:
        name = encoding.lower().replace("-", "_")
    return _LABELS.get(name, name.replace("_", "-"))


def newline_style(text: str) -> Newline:
    """Which line endings ``text`` uses."""
    if "\r" not in text:  # the common case, at memchr speed rather than three counting passes
        return "lf" if "\n" in text else "none"
    crlf = text.count("\r\n")
    cr = text.count("\r") - crlf
    lf = text.count("\n") - crlf
    kinds = (crlf > 0) + (cr > 0) + (lf > 0)
    if kinds == 0:
        return "none"
    if kinds > 1:
        return "mixed"
    return "crlf" if crlf else ("cr" if cr else "lf")


def utf16_without_bom(sample: bytes) -> str | None:
    """UTF-16 text without a BOM shows NULs in every other byte of its ASCII."""
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    even_nul, odd_nul = even.count(0) / len(even), odd.count(0) / len(odd)
    if odd_nul > 0.7 and even_nul < 0.1:
        return "utf-16-le"
    if even_nul > 0.7 and odd_nul < 0.1:
        return "utf-16-be"
    return None


def looks_binary(sample: bytes) -> bool:
    """A NUL byte, or more than 30% control bytes, in a sample that is not UTF-8."""
    if not sample:
        return False
    if 0 in sample:
        return True
    controls = sum(1 for b in sample if b < 0x20 and b not in _TEXT_CONTROLS)
    return controls / len(sample) > 0.3


def decode(data: bytes, *, utf8_only: bool = False) -> Decoded:
    """Decode file bytes to text.

    Args:
        data: the whole content.
        utf8_only: refuse anything that is not UTF-8 (a UTF-8 BOM is allowed).

    Raises:
        DecodeError: ``binary`` for binary content, ``not_utf8`` when ``utf8_only``
            and the bytes are not UTF-8, ``undecodable`` when no encoding fits.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            if utf8_only and encoding != "utf-8":
                raise DecodeError("not_utf8", f"the file is {encoding.upper()}, not UTF-8")
            try:
                text = data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as exc:
                if utf8_only or encoding != "utf-8":
                    raise DecodeError(
                        "undecodable", f"invalid {encoding.upper()} at byte {exc.start + len(bom)}"
                    ) from None
                # The BOM says UTF-8: its few bad bytes are replaced, as a window of such a file reads them.
                text = data[len(bom) :].decode(encoding, errors="replace")
            return Decoded(text, label(encoding), True, newline_style(text))
    failure: UnicodeDecodeError | None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        failure = exc
    else:
        if "\x00" not in text:
            return Decoded(text, "utf-8", False, newline_style(text))
        failure = None
    sample = data[:SAMPLE_BYTES]
    utf16 = utf16_without_bom(sample)
    if utf16 is not None and not utf8_only:
        try:
            text = data.decode(utf16)
        except UnicodeDecodeError:
            pass
        else:
            return Decoded(text, label(utf16), False, newline_style(text))
    if looks_binary(sample) or utf16 is not None:
        raise DecodeError("binary", "the file is binary, not text")
    if failure is None or b"\x00" in data:  # a NUL past the sample too: no text encoding left holds one
        raise DecodeError("binary", "the file is binary (it contains NUL bytes)")
    if utf8_only:
        raise DecodeError("not_utf8", f"the file is not valid UTF-8 (invalid byte at offset {failure.start})")
    mostly = _mostly_utf8(data)
    if mostly is not None:
        return Decoded(mostly, "utf-8", False, newline_style(mostly))
    return detect(data, sample)


def _mostly_utf8(data: bytes) -> str | None:
    """UTF-8 with each invalid byte replaced by U+FFFD, when the valid characters outnumber the bad bytes plainly.

    One stray byte in a UTF-8 file must not turn all its text into Latin-1
    mojibake; a legacy file, whose accented letters are each an invalid byte,
    has next to no valid multi-byte characters.
    """
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") - data.count("\ufffd".encode())
    non_ascii = len(text) - len(text.encode("ascii", errors="ignore"))
    good = non_ascii - bad
    return text if good >= _UTF8_EVIDENCE * bad else None


def _latin_accents(sample: bytes) -> bool:
    """Whether the sample reads as Latin-script text with a few accented letters: short, sparse runs of high bytes.

    Cyrillic, Greek, Hebrew or Arabic in a single-byte code page, and any
    double-byte CJK encoding, spell whole words in bytes over 0x7F.
    """
    runs = [len(run) for run in _HIGH_RUN.findall(sample)]
    if not runs or max(runs) > 3:
        return False
    high = sum(runs)
    return high < 4 or high <= 0.3 * (high + len(_ASCII_LETTER.findall(sample)))


def detect(data: bytes, sample: bytes) -> Decoded:
    from charset_normalizer import from_bytes

    matches = from_bytes(sample)
    best = matches.best()
    encoding = best.encoding if best is not None else "cp1252"
    if best is not None:
        # Short samples tie between code pages; prefer the common ones.
        tied = {m.encoding for m in matches if (m.chaos, m.coherence) == (best.chaos, best.coherence)}
        encoding = next((e for e in _PREFERRED if e in tied), encoding)
    if _latin_accents(sample) and (best is None or best.encoding not in _OTHER_LATIN_PAGES.get(best.language, ())):
        # Too little text for the detector to tell code pages apart ("caf\xe9" is also Cyrillic "cafй"):
        # Windows-1252, the legacy code page of most Latin-script text, unless it found another Latin language
        # in one of that language's code pages, or the text is Turkish (whose g, i and s letters are Icelandic there).
        accents = frozenset(sample.decode("cp1252", errors="replace")) - _ASCII
        encoding = "cp1254" if accents & _TURKISH_ONLY and accents <= _TURKISH else "cp1252"
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        # The sample's verdict does not hold for the whole file.
        encoding = "latin-1"
        text = data.decode(encoding)
    return Decoded(text, label(encoding), False, newline_style(text))
