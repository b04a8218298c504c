"""A project: its contracts folder, checked, and the generated tree it owns."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from generator.checks import check_source, check_together
from generator.model import Contract, build_contract
from generator.problems import Level, Problem
from generator.render import Drift, export_all, losses_of, render_all, write_all
from generator.source import Source, load_source

__all__ = ["CONTRACTS", "Project", "load_project"]

CONTRACTS = "contracts"


@dataclass(slots=True)
class Project:
    """The contracts of one project, checked, with every problem found."""

    root: Path
    contracts: list[Contract] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no problem is an error (warnings allowed)."""
        return not any(p.level is Level.ERROR for p in self.problems)

    def enum_sources(self) -> dict[str, list[str]]:
        """Values known at generation time for each dynamic-enum source."""
        return {"skills": builtin_skill_names(self.root)}

    def render(self) -> dict[str, str]:
        """Every generated file's text, by path relative to the project."""
        return render_all(self.contracts, self.enum_sources())

    def drift(self) -> Drift:
        """How ``generated/`` differs from a fresh render."""
        return Drift(self.root, self.render())

    def write(self) -> list[str]:
        """Bring ``generated/`` up to date; returns what was written or removed."""
        return write_all(self.root, self.render())


def builtin_skill_names(root: Path) -> list[str]:
    """The built-in skills shipped in ``handlers/skills``: folders holding a SKILL.md."""
    folder = root / "handlers" / "skills"
    if not folder.is_dir():
        return []
    return sorted(
        p.name for p in folder.iterdir() if p.is_dir() and ((p / "SKILL.md").is_file() or (p / "SKILL.MD").is_file())
    )


def _export_problems(project: Project, *, strict_export: bool, show_losses: bool) -> list[Problem]:
    """Provider limits broken (errors), and each loss an export forced (notes, or errors when strict)."""
    exports = export_all(project.contracts, project.enum_sources())
    problems: list[Problem] = []
    limits = sorted({p for per_set in exports.values() for e in per_set.values() for p in e.problems})
    problems.extend(Problem(CONTRACTS, 1, 1, f"provider limit: {text}") for text in limits)
    if not (strict_export or show_losses):
        return problems
    by_name = {c.name: c for c in project.contracts}
    level = Level.ERROR if strict_export else Level.NOTE
    for loss in losses_of(exports):
        contract = by_name[loss.tool]
        line, column = contract.where((loss.schema, *loss.path))
        message = f"{loss.format}: {loss.schema}{loss.pointer() or ''} {loss.keyword}: {loss.action} ({loss.detail})"
        problems.append(Problem(contract.source, line, column, message, level))
    return problems


def load_project(root: Path, *, strict_export: bool = False, show_losses: bool = False) -> Project:
    """Load and check every ``contracts/*.yaml`` of the project at ``root``.

    Args:
        root: the project folder (holding ``contracts/``).
        strict_export: report every loss an exported definition suffers as an error.
        show_losses: report every such loss as a note.
    """
    project = Project(root)
    folder = root / CONTRACTS
    paths = sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml"))
    if not paths:
        project.problems.append(Problem(CONTRACTS, 1, 1, "no contracts found (contracts/*.yaml)"))
        return project
    sources: list[Source] = []
    for path in paths:
        display = f"{CONTRACTS}/{path.name}"
        source, problems = load_source(path, display)
        project.problems.extend(problems)
        if source is None:
            continue
        sources.append(source)
        if problems:
            continue
        own = check_source(source)
        project.problems.extend(own)
        if not any(p.level is Level.ERROR for p in own):
            project.contracts.append(build_contract(source))
    project.problems.extend(check_together(sources))
    if project.ok and project.contracts:
        project.problems.extend(_export_problems(project, strict_export=strict_export, show_losses=show_losses))
    project.problems.sort()
    return project
