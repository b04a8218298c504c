"""Skill discovery and the skills summary a host puts in its system prompt.

Built-in skills ship in the package; workspace skills folders are scanned one
level deep (``<folder>/<name>/SKILL.md``), in order, and a workspace skill
overrides a built-in one of the same name, with a note saying so. The scan is
bounded, skips hidden folders and ``node_modules``, and reads each SKILL.md
through the file layer, under the symbolic- and hard-link policies the skill
tools read with (``SYMLINKS``, ``HARDLINKS``), so it offers no skill that
read_skill would refuse to load; spec problems are reported, never silently
skipped. Only the frontmatter is parsed (``parse_skill``); the rest of the file
is only checked to be the UTF-8 text read_skill accepts.

What a skills folder holds never stops a host: a folder whose name is not
UTF-8 or not printable is left out (so it never reaches an enum, a prompt or
JSON), a SKILL.md that cannot be read is left out, and one that cannot be
parsed is kept with its problems; each is a note, logged as a warning. Every
name, description and note is escaped by ``toolproof.runtime.printable``
before it reaches a prompt or a log line.
"""

from __future__ import annotations

import logging
import os
import re
import stat
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from toolproof.builtin.files.access import Directory, FileAccessError, HardlinkPolicy, SymlinkPolicy
from toolproof.builtin.files.decoding import DecodeError, decode
from toolproof.builtin.skills.frontmatter import parse_skill
from toolproof.builtin.skills.names import look_alike_key, look_alike_winners, skill_name_problem
from toolproof.runtime.lazy import LazyPattern
from toolproof.runtime.logs import log_failure
from toolproof.runtime.printable import one_line, printable

__all__ = [
    "ENUM_FALLBACK",
    "HARDLINKS",
    "IDENTITY_GUIDELINE",
    "MIN_SUMMARY_BUDGET",
    "SKILL_FILES",
    "SYMLINKS",
    "Skill",
    "SkillCatalog",
    "Summary",
    "builtin_skills_dir",
    "spec_spelling",
]

SKILL_FILES: Final = ("SKILL.md", "SKILL.MD")
"""The file names a skill's document may have, in order of preference."""
SYMLINKS: Final[SymlinkPolicy] = "within_root"
"""Symbolic links in a skill: followed while they stay in its folder, as the skill tools' contracts say."""
HARDLINKS: Final[HardlinkPolicy] = "deny"
"""A SKILL.md with several names (hard links) is left out: the skill tools' contracts refuse to read one."""
MIN_SUMMARY_BUDGET: Final = 400
"""The smallest budget a skills summary takes: its heading and the line counting the skills left out fit in it."""
MAX_SKILL_BYTES: Final = 1024 * 1024
MAX_ENTRIES: Final = 2000
_SKIPPED: Final = frozenset({"node_modules", "__pycache__"})
_SPEC_NAME: Final = LazyPattern(r"[a-z0-9]+(-[a-z0-9]+)*")
ENUM_FALLBACK: Final = ("data_analysis",)
"""The skill-name enum when no skill is found (read_skill's document): a schema with an empty enum is refused."""
IDENTITY_GUIDELINE: Final = (
    "- When the user's request matches a skill's purpose (e.g. generate test data, analyze data, document schema), "
    "call {tool} first to load the workflow instructions, then follow them."
)
"""The guideline read_skill's document (section 2.2) adds to the agent's identity, for ``{tool}``."""
SummaryFormat = Literal["plain", "xml"]

_log = logging.getLogger("toolproof.skills")

Source = Literal["builtin", "workspace"]


def builtin_skills_dir() -> Path:
    """Where the package's built-in skills live (``builtin/`` beside this module)."""
    return Path(__file__).parent / "builtin"


@dataclass(frozen=True, slots=True)
class Skill:
    """One discovered skill: its name (the folder's), description, origin and problems."""

    name: str
    description: str
    source: Source
    folder: str
    problems: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Summary:
    """The skills section of a system prompt, and which skills the budget left out."""

    text: str
    included: tuple[str, ...]
    omitted: tuple[str, ...]


def _read_skill_file(skill_dir: Directory) -> tuple[str | None, str | None]:
    """(text, problem) of the skill's SKILL.md, read as read_skill reads it; both None when the folder has none."""
    dangling = None
    for name in SKILL_FILES:
        try:
            with skill_dir.open_file(name, symlinks=SYMLINKS, hardlinks=HARDLINKS) as opened:
                return _text(opened.read_all(MAX_SKILL_BYTES)), None
        except FileAccessError as exc:
            if exc.reason == "permission_denied":
                return None, f"the host may not read {name} (permission denied)"
            if exc.reason != "not_found":
                return None, f"{name} cannot be read: {exc.detail}"
            if dangling is None and _is_link(skill_dir, name):
                dangling = f"{name} is a symbolic link to nothing"
        except DecodeError as exc:
            return None, f"{name} cannot be read: {exc.detail}"
    return None, dangling


def _text(data: bytes) -> str:
    """The SKILL.md as text, if read_skill would take it (UTF-8, a BOM allowed, no NUL).

    ASCII without NUL, which most SKILL.md files are, skips the decoder's passes over the text.

    Raises:
        DecodeError: as ``decode(data, utf8_only=True)``.
    """
    if data.isascii() and b"\x00" not in data:
        return data.decode("ascii")
    return decode(data, utf8_only=True).text


def _is_link(folder: Directory, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=folder.fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def spec_spelling(name: str) -> str | None:
    """How the Agent Skills spec would write ``name`` (lowercase, single hyphens), or None if it already does."""
    if _SPEC_NAME.fullmatch(name):
        return None
    # Accents are dropped from their letters, not with them: 'café' is 'cafe' in either Unicode spelling.
    if not name.isascii():
        name = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    spelled = "-".join(part for part in re.split(r"[^a-z0-9]+", name.casefold()) if part)
    return spelled or None


@dataclass(slots=True)
class SkillCatalog:
    """The skills a host offers, by name, with notes about the scan."""

    skills: dict[str, Skill] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    _builtin_notes: set[str] = field(default_factory=set, repr=False)
    _by_look: dict[str, str] = field(default_factory=dict, repr=False)
    """The name of the skill kept for each look-alike key (``look_alike_key``)."""

    @classmethod
    def discover(cls, folders: Iterable[str | Path], *, builtin: Path | None = None, log: bool = True) -> SkillCatalog:
        """Scan the built-in skills, then each workspace skills folder in order.

        Args:
            folders: the workspace skills folders, in order of precedence.
            builtin: the built-in skills folder, scanned first.
            log: log every line of ``problems()`` as a warning (a command that prints them itself says False).
        """
        catalog = cls()
        if builtin is not None and builtin.is_dir():
            catalog._scan(builtin, "builtin")
        for folder in folders:
            catalog._scan(Path(folder), "workspace")
        catalog.skills = dict(sorted(catalog.skills.items()))
        if log:  # the built-in skills' known notes (their names' spelling) are shown by `toolproof skills`, not logged
            for line in catalog.problems(builtin=False):
                _log.warning("%s", line)
        return catalog

    def _scan(self, folder: Path, source: Source) -> None:
        try:
            root = Directory.open(folder)
        except FileAccessError as exc:
            self.notes.append(f"skills folder {folder} skipped: {exc.detail}")
            return
        with root:
            try:
                entries = sorted(os.listdir(root.fd))
            except OSError as exc:
                self.notes.append(f"skills folder {folder} cannot be listed: {exc.strerror}")
                return
            if len(entries) > MAX_ENTRIES:
                self.notes.append(
                    f"skills folder {folder}: only the first {MAX_ENTRIES} of {len(entries)} entries scanned"
                )
                entries = entries[:MAX_ENTRIES]
            winners = look_alike_winners(entries)
            for name in entries:
                if name.startswith(".") or name in _SKIPPED:
                    continue
                winner = winners.get(look_alike_key(name), name) if winners else name
                if winner != name:
                    self.notes.append(
                        f"skill folder '{_code_points(name)}' in {folder} skipped: its name is the same in Unicode"
                        f" NFC as '{_code_points(winner)}', which is used"
                    )
                    continue
                try:
                    self._scan_entry(root, folder, name, source)
                except Exception as exc:  # a bug of ours must not stop a host: the skill is left out and reported
                    log_failure(_log, "reading skill %s in %s failed", printable(name), printable(str(folder)))
                    self.notes.append(f"skill '{name}' skipped: it could not be read ({type(exc).__name__})")

    def _scan_entry(self, root: Directory, folder: Path, name: str, source: Source) -> None:
        problem = skill_name_problem(name)
        if problem is not None:
            self.notes.append(f"skill folder '{name}' in {folder} skipped: {problem}")
            return
        try:
            skill_dir = root.open_dir(name, symlinks=SYMLINKS)
        except FileAccessError as exc:
            if exc.reason == "permission_denied":
                self.notes.append(f"skill '{name}' skipped: the host may not open its folder (permission denied)")
            elif exc.reason != "not_directory":
                self.notes.append(f"{folder}/{name} skipped: {exc.detail}")
            return
        with skill_dir:
            text, problem = _read_skill_file(skill_dir)
        if text is None:
            if problem is not None:
                self.notes.append(f"skill '{name}' skipped: {problem}")
            return
        self._add(name, text, source, str(folder))

    def _add(self, name: str, text: str, source: Source, folder: str) -> None:
        document = parse_skill(text, name)
        key = look_alike_key(name)
        previous = self.skills.get(self._by_look.get(key, name))
        if previous is not None:
            if previous.source == "builtin" and source == "workspace":
                self.notes.append(f"skill '{name}' in {folder} overrides the built-in skill")
                del self.skills[previous.name]
            else:
                self.notes.append(
                    f"skill '{name}' in {folder} is shadowed by the one in {previous.folder}"
                    + (f" named '{previous.name}', which looks the same" if previous.name != name else "")
                )
                return
        self._by_look[key] = name
        problems = document.problems
        spelled = spec_spelling(name)
        if spelled is not None and spelled != name:  # reported, not refused: the folder's name is the skill's
            note = (
                f"skill '{name}' ({source}): the Agent Skills spec would write its name '{spelled}'; "
                f"it is offered as '{name}', its folder's name"
            )
            self.notes.append(note)
            if source == "builtin":
                self._builtin_notes.add(note)
        self.skills[name] = Skill(name, document.description, source, folder, problems)

    def names(self) -> list[str]:
        """Skill names, sorted."""
        return list(self.skills)

    def enum_names(self) -> list[str]:
        """The values of a skill-name enum: the names, or ``ENUM_FALLBACK`` when there is none."""
        return self.names() or list(ENUM_FALLBACK)

    def problems(self, *, builtin: bool = True) -> list[str]:
        """Every note about the scan and every spec problem, one printable line each.

        Args:
            builtin: include the notes and problems of the built-in skills.
        """
        lines = [note for note in self.notes if builtin or note not in self._builtin_notes]
        for skill in self.skills.values():
            if builtin or skill.source != "builtin":
                lines.extend(f"skill '{skill.name}' ({skill.source}): {problem}" for problem in skill.problems)
        return [printable(line) for line in lines]

    def summary(self, budget: int = 8000, *, tool: str = "read_skill", fmt: SummaryFormat = "plain") -> Summary:
        """The skills section of a system prompt, at most ``budget`` characters (``MIN_SUMMARY_BUDGET`` at least).

        Names and descriptions are made printable (``one_line``) and folded
        onto one line each, so no line the skills did not earn (a heading, a
        fake skill) can appear. A description is written as it is; only the
        ``xml`` format (``<available_skills>``) escapes it, as XML needs.
        When the budget runs out, a last line names the skills left out, so
        none is hidden silently. Skills are listed as long as the names of all
        the rest still fit after them; when those names cannot fit at all, the
        budget is filled with skills and the last line counts the rest instead
        (read_skill's enum names every skill). Linear in the number of skills.
        """
        from html import escape  # here: a host imports the catalog at start, and html's entities cost ~2 ms

        if budget < MIN_SUMMARY_BUDGET:
            raise ValueError(f"a skills summary needs a budget of at least {MIN_SUMMARY_BUDGET} characters")

        if fmt == "xml":
            return self._xml_summary(budget)
        head = (
            "# Skills\n\n"
            f"Call {tool}(skill_name='<name>') to load full workflow instructions "
            "when the user's request matches a skill.\n\nAvailable skills:\n"
        )
        names = list(self.skills)
        safe = [escape(printable(name), quote=True) for name in names]
        lines: list[str] = []

        def line(i: int) -> str:
            """The line of skill ``i``, made once."""
            if i == len(lines):
                description = one_line(self.skills[names[i]].description) or "(no description)"
                lines.append(
                    f"  - {safe[i]}: {description} — call {tool}(skill_name='{safe[i]}') "
                    "to load instructions when relevant\n"
                )
            return lines[i]

        # named[i]: the length of the line naming skills i.. (0 when none is left), as _named_line writes it.
        named = [0] * (len(names) + 1)
        listed = -len(", ")
        for i in range(len(names) - 1, -1, -1):
            listed += len(", ") + len(safe[i])
            named[i] = len(_count_line(len(names) - i)) + len(": ") + listed
        shown, used = 0, len(head)
        while shown < len(names) and used + len(line(shown)) + named[shown + 1] <= budget:
            used += len(line(shown))
            shown += 1
        if used + named[shown] > budget:  # the names cannot fit: fill with skills, then count the rest
            while shown < len(names):
                rest = len(_count_line(len(names) - shown - 1)) if shown + 1 < len(names) else 0
                if used + len(line(shown)) + rest > budget:
                    break
                used += len(line(shown))
                shown += 1
        text = head + "".join(lines[:shown])
        if shown < len(names):
            tail = _named_line(safe[shown:])
            text += tail if used + len(tail) <= budget else _count_line(len(names) - shown)
        return Summary(text, tuple(names[:shown]), tuple(names[shown:]))

    def _xml_summary(self, budget: int) -> Summary:
        """``<available_skills>`` with one ``<skill>`` element a line, names and descriptions XML-escaped."""
        from html import escape

        head, tail = "<available_skills>\n", "</available_skills>\n"
        lines: list[str] = []
        used = len(head) + len(tail)
        names = list(self.skills)
        for name in names:
            description = escape(one_line(self.skills[name].description) or "(no description)", quote=False)
            line = (
                f"<skill><name>{escape(printable(name), quote=False)}</name>"
                f"<description>{description}</description></skill>\n"
            )
            if used + len(line) > budget:
                break
            lines.append(line)
            used += len(line)
        return Summary(head + "".join(lines) + tail, tuple(names[: len(lines)]), tuple(names[len(lines) :]))

    @staticmethod
    def identity(tool: str = "read_skill") -> str:
        """The identity guideline of read_skill's document (section 2.2), naming ``tool``."""
        return IDENTITY_GUIDELINE.format(tool=tool)


def _code_points(name: str) -> str:
    """``name`` with each character outside ASCII as its code point (``cafe<U+0301>``), so look-alikes read apart."""
    return "".join(c if c.isascii() else f"<U+{ord(c):04X}>" for c in name)


def _count_line(count: int) -> str:
    return f"  ({count} more skills not shown)\n"


def _named_line(safe_names: list[str]) -> str:
    """The last line naming the skills left out (names already escaped)."""
    return f"  ({len(safe_names)} more skills not shown: {', '.join(safe_names)})\n"
