"""Skills: discovery and the prompt summary, frontmatter, the skill gate, the YAML guard.

The built-in skills (``builtin/``) and ``builtin://`` documents (``documents/``)
ship beside this code, which is what serves them.

The names below are imported from their module on first use: every host of the
built-in tools imports ``skills.resources``, and a host whose tools read no
skill should not pay for the catalog and the gate (~8 ms of start-up).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolproof.runtime.lazy import lazy_names

if TYPE_CHECKING:
    from toolproof.builtin.skills.catalog import SKILL_FILES, Skill, SkillCatalog, Summary, builtin_skills_dir
    from toolproof.builtin.skills.gate import BUILTIN_SCHEME, GateSpec, SkillGate, builtin_dir, default_secret

__all__ = [
    "BUILTIN_SCHEME",
    "SKILL_FILES",
    "GateSpec",
    "Skill",
    "SkillCatalog",
    "SkillGate",
    "Summary",
    "builtin_dir",
    "builtin_skills_dir",
    "default_secret",
]

_HOMES = {
    **dict.fromkeys(("SKILL_FILES", "Skill", "SkillCatalog", "Summary", "builtin_skills_dir"), "catalog"),
    **dict.fromkeys(("BUILTIN_SCHEME", "GateSpec", "SkillGate", "builtin_dir", "default_secret"), "gate"),
}
"""The module each public name lives in."""


__getattr__ = lazy_names(__name__, _HOMES, globals())
"""Each public name, imported from its module on first use (then kept here)."""
