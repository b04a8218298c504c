"""Skills: discovery and the prompt summary, frontmatter, the skill gate, the YAML guard.

The built-in skills (``builtin/``) and ``builtin://`` documents (``documents/``)
ship beside this code, which is what serves them.
"""

from toolproof.runtime.skills.catalog import SKILL_FILES, Skill, SkillCatalog, Summary, builtin_skills_dir
from toolproof.runtime.skills.gate import BUILTIN_SCHEME, GateSpec, SkillGate, builtin_dir, default_secret

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
