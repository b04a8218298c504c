"""Skills: discovery and the prompt summary, frontmatter, the skill gate, the YAML guard.

The built-in skills (``builtin/``) and ``builtin://`` documents (``documents/``)
ship beside this code, which is what serves them.

The names below are imported from their module on first use: every host of the
built-in tools imports ``skills.resources``, and a host whose tools read no
skill should not pay for the catalog and the gate (~8 ms of start-up).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

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


def __getattr__(name: str) -> object:
    """The public name ``name``, imported from its module on first use (then kept here)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
