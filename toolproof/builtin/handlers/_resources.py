"""The built-in tools' resource factory: what ``--workspace``, ``--skills`` and the gate secret become."""

from __future__ import annotations

from toolproof.builtin.files.workspace import Workspace
from toolproof.builtin.skills.resources import SkillGates, Skills
from toolproof.runtime import HostOptions

__all__ = ["resources"]


def resources(options: HostOptions) -> list[object]:
    """Skills and gates always; a workspace only when the host names one (else its tools are not served)."""
    found: list[object] = [Skills(options.skills), SkillGates(options.gate_secret)]
    if options.workspace:
        found.append(Workspace.of(options.workspace))
    if options.audit is not None:  # only then: the audit module is otherwise the first read's to import
        from toolproof.builtin.files.audit import Audit

        found.append(Audit(options.audit))
    return found
