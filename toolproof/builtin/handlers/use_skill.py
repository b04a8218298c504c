"""use_skill: a skill's instructions as a prompt, read exactly as read_skill reads them.

The same catalog, file layer, link policies and catalogue (use_skill's errors are read_skill's, entry for entry).
"""

from __future__ import annotations

from toolproof.builtin.generated import use_skill as contract
from toolproof.builtin.handlers import read_skill
from toolproof.runtime import ToolContext

__all__ = ["handle"]


def handle(args: contract.UseSkillInput, ctx: ToolContext) -> contract.UseSkillOutput:
    """One user message: the skill's SKILL.md body (frontmatter stripped) to follow."""
    name = args["skill_name"]
    content = read_skill.handle({"skill_name": name}, ctx)["content"]
    text = f"Follow the instructions of the skill '{name}':\n\n{content}"
    return {
        "description": f"The instructions of the skill '{name}'",
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
    }
