"""The skill tools' resources: the skills a host offers (``skills``) and its skill gates (``skill_gate``).

Every host of the built-in tools makes both, so they import the catalog and the
gate (and what those import: ~8 ms) only when a tool first uses them: a
one-shot call of a file tool never does.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from toolproof.builtin.skills.catalog import SkillCatalog
    from toolproof.builtin.skills.gate import SkillGate
    from toolproof.runtime.dispatch import Runtime
    from toolproof.runtime.spec import ToolSpec

__all__ = ["SkillGates", "Skills", "skill_gate"]


class Skills:
    """Resource ``skills``: the workspace skills folders and the catalog discovered from them.

    The catalog is discovered on first use, so a host whose served tools never
    offer skills by name never scans a folder. It is also the ``skills`` source
    of dynamic enums.
    """

    resource: ClassVar[str] = "skills"

    def __init__(self, folders: Iterable[str | Path] = (), *, builtin: Path | None = None) -> None:
        self.folders = tuple(Path(p).resolve() for p in folders)
        if self.folders:
            from toolproof.builtin.files.access import Directory  # a host of skills imports it anyway

            for folder in self.folders:
                Directory.pin(folder)  # a skills folder stays where it is now
        self._builtin = builtin.resolve() if builtin is not None else None
        self._catalog: SkillCatalog | None = None
        self._lock = threading.Lock()

    @property
    def builtin(self) -> Path:
        """The folder of built-in skills: the one given, else the package's."""
        if self._builtin is None:
            from toolproof.builtin.skills.catalog import builtin_skills_dir

            self._builtin = builtin_skills_dir().resolve()
        return self._builtin

    @property
    def catalog(self) -> SkillCatalog:
        """The skills found: built-in first, then each folder in order (a workspace skill overrides)."""
        from toolproof.builtin.skills.catalog import SkillCatalog

        with self._lock:
            if self._catalog is None:
                self._catalog = SkillCatalog.discover(self.folders, builtin=self.builtin)
            return self._catalog

    @property
    def roots(self) -> tuple[Path, ...]:
        """Every folder a skill tool may read."""
        return (*self.folders, self.builtin)

    def enum_values(self, source: str) -> list[str] | None:
        """The discovered skill names for the ``skills`` enum source; those of the skills folders for ``skill_folders``.

        ``skill_folders`` leaves the built-in skills out: it completes the names get_skill and the
        ``skill://`` resources read, which look in the host's skills folders only.
        """
        if source == "skills":
            return self.catalog.enum_names()
        if source == "skill_folders":
            return sorted(skill.name for skill in self.catalog.skills.values() if skill.source == "workspace")
        return None


class SkillGates:
    """Resource ``skill_gate``: one ``SkillGate`` per gated contract, under the host's secret.

    Args:
        secret: key of the tokens, any non-empty bytes (default, on first use:
            ``default_secret()``, which asks more of the environment and the key file).
        documents: folder of ``builtin://`` documents (default: the package's).

    Raises:
        GateSecretError: ``secret`` is given but empty.
    """

    resource: ClassVar[str] = "skill_gate"

    def __init__(self, secret: bytes | None = None, *, documents: Path | None = None) -> None:
        if secret is not None and not secret:
            from toolproof.builtin.skills.gate import GateSecretError

            raise GateSecretError("an explicit gate secret must not be empty")
        self._documents = documents.resolve() if documents is not None else None
        self._secret = secret
        self._gates: dict[str, SkillGate] = {}
        self._lock = threading.Lock()

    @property
    def documents(self) -> Path:
        """The folder of ``builtin://`` documents: the one given, else the package's."""
        if self._documents is None:
            from toolproof.builtin.skills.gate import builtin_dir

            self._documents = builtin_dir().resolve()
        return self._documents

    def gate(self, spec: ToolSpec) -> SkillGate:
        """The gate of ``spec`` (made once per tool).

        Raises:
            LookupError: the contract declares no ``skill_gate``.
        """
        from toolproof.builtin.skills.gate import GateSpec, SkillGate, default_secret

        with self._lock:
            gate = self._gates.get(spec.name)
            if gate is None:
                data = spec.settings.get("skill_gate")
                if data is None:
                    raise LookupError(f"contract '{spec.name}' declares no skill_gate")
                if self._secret is None:
                    self._secret = default_secret()
                gate = SkillGate(GateSpec.from_data(data), self._secret, self.documents)
                self._gates[spec.name] = gate
            return gate

    def check(self, spec: ToolSpec) -> list[str]:
        """A gated tool is served only when its SKILL.md can be read and ``$TOOLPROOF_GATE_SECRET`` is usable.

        The secret is settled here, at start-up (``$TOOLPROOF_GATE_SECRET``, else
        the per-user key file, read or made), so an unusable one stops the host
        with its reason instead of failing every gated call.
        """
        from toolproof.builtin.skills.gate import GateSecretError, GateSpec, SkillGate, default_secret

        data = spec.settings.get("skill_gate")
        if data is None:
            return [f"tool '{spec.name}' needs skill_gate but its contract declares none"]
        gate = SkillGate(GateSpec.from_data(data), b"", self.documents)
        problems: list[str] = []
        try:
            gate.read_document()  # not hashed: start-up does not load OpenSSL for it
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(f"tool '{spec.name}' is gated by {gate.spec.document}, which cannot be read: {exc}")
        with self._lock:
            if self._secret is None:
                try:
                    self._secret = default_secret()
                except GateSecretError as exc:
                    problems.append(f"tool '{spec.name}' is gated, but {exc}")
        return problems


def skill_gate(runtime: Runtime, tool: str) -> SkillGate | None:
    """The gate of a served tool under its host's secret, or None when it has none."""
    gates = runtime.resources.get_typed(SkillGates)
    spec = next((s for s in runtime.specs if s.name == tool), None)
    if gates is None or spec is None or "skill_gate" not in spec.settings:
        return None
    return gates.gate(spec)
