"""SKILL.md frontmatter: a lenient parse, and a strict report of what breaks the spec.

Tolerated: a UTF-8 BOM, CRLF line ends, ``---`` inside values (only a line that
is exactly ``---`` closes the block), and unquoted values holding ``: `` (retried
quoted, as the Agent Skills client guide advises). Every departure from the
Agent Skills specification is reported as a problem, never silently skipped.

The block is read by ``yamlguard.load_bounded``, never by PyYAML's own
constructors: YAML 1.2 core scalars only (``yes``, ``2024-02-30`` and ``1:30``
stay text), at most ``MAX_FRONTMATTER_BYTES``, and budgets on nesting, values
and aliases, so no SKILL.md can raise, hang or exhaust the host that reads it.

Parsing looks at the start of the file only: the closing line is sought within
the first ``MAX_FRONTMATTER_BYTES`` after the opening ``---``, and a block that
runs past them (closed further on, or never) is reported and not read, without
finding where it ends. The body is cut out only when asked for
(``SkillDocument.body``, ``strip_frontmatter``), so discovering a skill costs
the same for a 1 MiB SKILL.md as for a 1 KiB one.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from toolproof.runtime.lazy import LazyPattern
from toolproof.runtime.printable import is_printable

if TYPE_CHECKING:
    from toolproof.builtin.skills.yamlguard import Loaded

__all__ = [
    "MAX_FRONTMATTER_BYTES",
    "MAX_FRONTMATTER_VALUES",
    "SkillDocument",
    "parse_skill",
    "plain_fields",
    "spec_problems",
    "strip_frontmatter",
]

_OPEN = LazyPattern(r"---[ \t]*(\r\n|\r|\n|\Z)")
"""The opening line, matched at the start of the raw text (after a BOM): any line end, or the end of the text."""
_FENCE = LazyPattern(r"---[ \t]*\n")
"""The opening line of a normalised text."""
_CLOSE = LazyPattern(r"\n(?:---|\.\.\.)[ \t]*(?=\n|\Z)")
"""A closing line (only a line that is exactly ``---`` or ``...``, blanks after), found by the newline before it."""
_LINE_END = LazyPattern(r"[ \t]*(?:\n|\Z)")
_NAME = LazyPattern(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_XML_TAG = LazyPattern(r"<\s*/?\s*[A-Za-z][^>]*>")
_UNQUOTED_COLON = LazyPattern(r"^([A-Za-z_][\w-]*):[ \t]+([^'\"|>\[{&*!%@`#].*:[ \t].*)$")
_KNOWN_FIELDS: Final = frozenset({"name", "description", "license", "compatibility", "metadata", "allowed-tools"})
_RESERVED: Final = ("anthropic", "claude")

MAX_FRONTMATTER_BYTES: Final = 64 * 1024
"""The most frontmatter read: the spec's fields fit in 2 KiB; a larger block is reported, not parsed."""
MAX_FRONTMATTER_VALUES: Final = 1000
"""The most values a frontmatter may hold (an alias counts as all it stands for); real ones hold tens."""
_WINDOWS: Final = (4096, 2 * (MAX_FRONTMATTER_BYTES + 8))
"""The raw characters after the opening line that parsing looks at, a few first (real blocks close within them),
then the most: the bound, its closing line, and room for CRLF line ends."""


@dataclass(frozen=True, slots=True)
class SkillDocument:
    """A parsed SKILL.md: its frontmatter fields and the problems found; the body is cut from ``text`` on demand."""

    fields: dict[str, Any]
    problems: tuple[str, ...]
    text: str = field(repr=False)
    """The whole SKILL.md, as given."""

    @property
    def body(self) -> str:
        """The text after the frontmatter block, wherever the block closes, without leading blank lines.

        The whole text when there is no block. Cut out on each use: discovery never asks for it.
        """
        _, body = _split(_normalise(self.text))
        return body.lstrip("\n")

    @property
    def description(self) -> str:
        """The description as one line, or empty."""
        value = self.fields.get("description")
        return " ".join(value.split()) if isinstance(value, str) else ""


def _split(text: str) -> tuple[bool, str]:
    """(whether a frontmatter block was found, body) of a SKILL.md with BOM and CR already removed.

    The block may be of any length: this serves the body, not discovery.
    """
    opened = _FENCE.match(text)
    close = _CLOSE.search(text, opened.end() - 1) if opened is not None else None
    if close is None:
        return False, text
    return True, text[close.end() + 1 :]


def _head(text: str) -> tuple[list[str] | None, str | None]:
    """(frontmatter lines, or None; the first bytes of a block that runs past the bound unclosed, or None).

    Looks at no more of ``text`` (a raw SKILL.md: BOM, CRLF or CR line ends) than the opening line and
    ``_WINDOWS[-1]`` characters after it, whatever its length. A block whose closing line does not start
    within ``MAX_FRONTMATTER_BYTES`` (so more than the loader would read) gives no lines, and its first
    ``MAX_FRONTMATTER_BYTES`` as the second value; both are None when there is no block (no opening
    line, or one never closed in a text that ends within the bound).
    """
    start = 1 if text.startswith("\ufeff") else 0
    end = min(len(text), start + MAX_FRONTMATTER_BYTES)
    opened = _OPEN.match(text, start, end)
    if opened is None:
        return None, None
    if not opened[1]:  # the opening line reaches the end of the text, or of the bound
        return None, ("" if end < len(text) else None)
    at = opened.end()
    for size in _WINDOWS:
        cut = at + size < len(text)
        # A newline first, so a closing line on the block's first line is found like any other.
        window = "\n" + text[at : at + size].replace("\r\n", "\n").replace("\r", "\n")
        close = _CLOSE.search(window, 0, MAX_FRONTMATTER_BYTES + len("\n---"))
        if close is not None:
            # The search stops at the bound or the window: the closing line must end within what was looked at.
            ending = _LINE_END.match(window, close.end())
            if ending is not None and (ending[0].endswith("\n") or not cut):
                return (window[1 : close.start()].split("\n") if close.start() else []), None
        if not cut:
            break
    if cut or len(window) > MAX_FRONTMATTER_BYTES + len("\n---"):
        return None, window[1 : MAX_FRONTMATTER_BYTES + 1]
    return None, None


def _normalise(text: str) -> str:
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def strip_frontmatter(text: str) -> str:
    """The body of a SKILL.md, without its frontmatter block (and leading blank lines)."""
    found, body = _split(_normalise(text))
    return body.lstrip("\n") if found else body


_PLAIN_LINE = LazyPattern(r"([A-Za-z][A-Za-z0-9_-]*): +([A-Za-z][^:#\t]*?) *")
"""``key: value`` where YAML reads the value as the plain string it is: it starts with a letter and holds
no ``:`` or ``#`` (so no mapping, comment, quote, block or flow indicator can start or hide in it)."""
_NOT_PLAIN_STRINGS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n"})


def plain_fields(lines: list[str]) -> dict[str, str] | None:
    """The fields of frontmatter that is only ``key: plain text`` lines, read without YAML; None for any other.

    Most SKILL.md files are exactly that (every built-in one is), and a host that reads them at
    start-up then never imports PyYAML. Where this gives fields, the bounded YAML 1.2 loader gives the
    same fields and no notes (tests/builtin/skills/test_frontmatter.py checks it on generated text); anything
    it does not take whole (quotes, colons, comments, continuation lines, repeated keys, characters
    that are not printable, booleans and nulls in any YAML's spelling) goes to the loader.
    """
    if sum(map(len, lines)) + len(lines) > MAX_FRONTMATTER_BYTES or 2 * len(lines) > MAX_FRONTMATTER_VALUES:
        return None
    fields: dict[str, str] = {}
    for line in lines:
        if not line:
            continue
        match = _PLAIN_LINE.fullmatch(line)
        if match is None:
            return None
        key, value = match[1], match[2]
        if key in fields or not value.isprintable() or value.lower() in _NOT_PLAIN_STRINGS:
            return None
        fields[key] = value
    return fields or None


def _load(lines: list[str]) -> tuple[Any, list[str]]:
    """(data, problems) of the frontmatter lines, read by the bounded YAML 1.2 loader."""
    plain = plain_fields(lines)
    if plain is not None:
        return plain, []
    loaded = _bounded(lines)
    note = None
    if loaded.refused == "syntax":
        quoted = []
        for line in lines:
            match = _UNQUOTED_COLON.match(line)
            if match:
                value = match[2].replace("\\", "\\\\").replace('"', '\\"')
                line = f'{match[1]}: "{value}"'
            quoted.append(line)
        retried = _bounded(quoted)
        if retried.refused is None:
            loaded, note = retried, "an unquoted value holds ': '; quote it"
        elif retried.refused != "syntax":
            loaded = retried
    if loaded.refused is not None:
        return None, [_refusal(loaded)]
    # The frontmatter starts on the file's second line, after the opening '---'.
    problems = [f"line {n.line + 1}: {n.message}" for n in loaded.notes]
    return loaded.data, [note, *problems] if note else problems


def _bounded(lines: list[str]) -> Loaded:
    # PyYAML (~14 ms to import) only when a SKILL.md has frontmatter to read.
    from toolproof.builtin.skills.yamlguard import load_bounded

    return load_bounded("\n".join(lines) + "\n", max_bytes=MAX_FRONTMATTER_BYTES, max_nodes=MAX_FRONTMATTER_VALUES)


def _refusal(loaded: Loaded) -> str:
    match loaded.refused:
        case "too_deep":
            return "the frontmatter nests too deeply to be read"
        case "too_large":
            return f"the frontmatter is {loaded.detail} bytes, more than {MAX_FRONTMATTER_BYTES}; not read"
        case "too_many_nodes":
            return f"the frontmatter holds more than {MAX_FRONTMATTER_VALUES} values (aliases count in full); not read"
        case "too_many_aliases":
            from toolproof.builtin.skills.yamlguard import MAX_ALIASES  # loaded already: ``loaded`` came from it

            return f"the frontmatter uses more than {MAX_ALIASES} aliases; not read"
        case _:
            return f"the frontmatter is not valid YAML ({loaded.detail})"


def parse_skill(text: str, folder: str) -> SkillDocument:
    """Parse a SKILL.md leniently and list every problem against the spec.

    Only the frontmatter is read, and at most ``MAX_FRONTMATTER_BYTES`` of it: a block that runs past
    them is a problem, and its fields are not read. The body is left in the text until asked for.

    Args:
        text: the whole SKILL.md.
        folder: the skill's directory name, which the ``name`` field must equal.
    """
    problems: list[str] = []
    if text.startswith("\ufeff"):
        problems.append("the file starts with a byte-order mark")
    head, overflow = _head(text)
    fields: dict[str, Any] = {}
    if head is not None:
        data, notes = _load(head)
        problems.extend(notes)
        if isinstance(data, dict):
            fields = {str(k): v for k, v in data.items()}
        elif data is not None:
            problems.append("the frontmatter is not a mapping of fields")
    elif overflow is not None:
        problems.append(_overflow(overflow))
    elif _OPEN.match(text, 1 if text.startswith("\ufeff") else 0) is not None:
        problems.append("the frontmatter is never closed: end its '---' block with a line that is exactly '---'")
    else:
        problems.append("no frontmatter: the file must start with a '---' block holding name and description")
    problems.extend(spec_problems(fields, folder))
    return SkillDocument(fields, tuple(problems), text)


def _overflow(start: str) -> str:
    """The problem of a block that runs past the bound, told by its start as the loader would tell it.

    The loader refuses a text that nests too deeply before it weighs it, so a block whose start already
    nests too deeply is reported so, whatever its length.
    """
    from toolproof.builtin.skills.yamlguard import too_deep  # PyYAML with it, only for such a block

    if too_deep(start):
        return "the frontmatter nests too deeply to be read"
    return f"the frontmatter runs past {MAX_FRONTMATTER_BYTES} bytes without a closing '---' line; not read"


def spec_problems(fields: dict[str, Any], folder: str) -> list[str]:
    """What breaks the Agent Skills rules for name, description and the other fields."""
    problems: list[str] = []
    name = fields.get("name")
    if not isinstance(name, str) or not name:
        problems.append("'name' is missing")
    else:
        if unicodedata.normalize("NFKC", name) != name:
            problems.append(f"'name' {name!r} changes under NFKC normalisation")
        if len(name) > 64:
            problems.append(f"'name' is {len(name)} characters; at most 64")
        if not _NAME.match(name):
            problems.append(f"'name' {name!r} must be lowercase letters, digits and single hyphens, not at either end")
        if _XML_TAG.search(name):
            problems.append("'name' contains an XML tag")
        if any(word in name.lower() for word in _RESERVED):
            problems.append(f"'name' {name!r} contains a reserved word (anthropic, claude)")
        if name != folder:
            problems.append(f"'name' {name!r} does not match the folder name {folder!r}")
    description = fields.get("description")
    if not isinstance(description, str) or not description.strip():
        problems.append("'description' is missing")
    else:
        if len(description) > 1024:
            problems.append(f"'description' is {len(description)} characters; at most 1024")
        if _XML_TAG.search(description):
            problems.append("'description' contains an XML tag")
        if not is_printable(" ".join(description.split()).replace("\\", "")):
            problems.append("'description' holds control or bidi characters; prompts show them escaped")
    compatibility = fields.get("compatibility")
    if compatibility is not None and (not isinstance(compatibility, str) or len(compatibility) > 500):
        problems.append("'compatibility' must be a string of at most 500 characters")
    metadata = fields.get("metadata")
    if metadata is not None and not (
        isinstance(metadata, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
    ):
        problems.append("'metadata' must map strings to strings")
    for key in fields:
        if key not in _KNOWN_FIELDS:
            problems.append(f"unknown field {key!r}")
    return problems
