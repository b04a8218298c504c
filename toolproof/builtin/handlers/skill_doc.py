"""skill_doc: a skill's SKILL.md as a resource, read exactly as get_skill reads it.

The same name rules, file layer, link policies and catalogue (skill_doc's errors are get_skill's, entry for
entry), so a URI can reach no file that get_skill would refuse.
"""

from __future__ import annotations

from toolproof.builtin.generated import skill_doc as contract
from toolproof.builtin.handlers import get_skill
from toolproof.runtime import ToolContext

__all__ = ["handle"]


def handle(args: contract.SkillDocInput, ctx: ToolContext) -> contract.SkillDocOutput:
    """Read ``{skills_folder}/{skill_name}/SKILL.MD`` (or ``SKILL.md``) as UTF-8 text, whole."""
    return {"text": get_skill.handle({"skill_name": args["skill_name"]}, ctx)["documentation"]}
