"""read_skill: load a discovered skill's instructions, frontmatter stripped."""

from __future__ import annotations

import logging
from pathlib import Path

from toolproof.builtin.files.access import Directory, FileAccessError
from toolproof.builtin.files.decoding import DecodeError
from toolproof.builtin.files.workspace import symlink_policy
from toolproof.builtin.generated import read_skill as contract
from toolproof.builtin.skills.catalog import MAX_SKILL_BYTES, SKILL_FILES
from toolproof.builtin.skills.frontmatter import strip_frontmatter
from toolproof.builtin.skills.resources import Skills
from toolproof.runtime import ToolContext
from toolproof.runtime.printable import printable

__all__ = ["handle"]

_log = logging.getLogger("toolproof.skills")


def handle(args: contract.ReadSkillInput, ctx: ToolContext) -> contract.ReadSkillOutput:
    """Return the body of the SKILL.md of ``skill_name`` (an enum of the catalog's names)."""
    from toolproof.builtin.files import reading  # loaded by the first read, not at binding

    name = args["skill_name"]
    skill = ctx.need(Skills).catalog.skills.get(name)
    if skill is None:
        raise contract.skill_not_found(skill_name=name)
    try:
        folder = Directory.open(Path(skill.folder))
    except FileAccessError as exc:
        # The skills folder itself is gone, or now leads elsewhere: the operator's to fix, in the log (host paths
        # and all); the model reads what get_skill and read_file_in_skill say then.
        _log.warning("read_skill: skills folder %s: %s", printable(skill.folder), printable(exc.detail))
        raise contract.skill_not_found(skill_name=name) from None
    try:
        with folder, folder.open_dir(name, symlinks=symlink_policy(ctx)) as skill_dir:
            for file_name in SKILL_FILES:
                try:
                    text = reading.read_text(ctx, skill_dir, file_name, max_bytes=MAX_SKILL_BYTES, utf8_only=True)
                    break
                except FileAccessError as exc:
                    if exc.reason != "not_found":
                        raise
            else:
                raise contract.skill_not_found(skill_name=name)
    except FileAccessError as exc:
        if exc.reason == "not_found":
            raise contract.skill_not_found(skill_name=name) from None
        raise contract.skill_unreadable(skill_name=name, reason=exc.detail) from None
    except DecodeError as exc:
        raise contract.skill_unreadable(skill_name=name, reason=exc.detail) from None
    if not text.decoded.text:  # the document's `if not content`: an empty SKILL.md is no skill
        raise contract.skill_not_found(skill_name=name)
    return {"skill_name": name, "content": strip_frontmatter(text.decoded.text), "source": skill.source}
