"""Whether a project's generated code is the code of its contracts as they are on disk.

``gen`` records, in the generated package's ``MANIFEST.json``, the sha256 of
the contract each ``contracts/<module>.json`` was made from, and of each shared definition file
(``contracts/_defs/*.yaml``) it uses. A host that
serves a project whose contracts folder is present compares those digests with
the contract files, so an edited contract whose ``gen`` was skipped is named at
start, not served silently with its old description and schemas.

Only a project's own contracts are compared: the built-in tools ship their
generated code, and a wheel need not carry their contracts. The digests come
from CPython's own sha256 module, not from ``hashlib``, whose import of OpenSSL
would add about 3 ms to every start-up of a project's host.
"""

from __future__ import annotations

import importlib
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from toolproof.runtime.project import ProjectConfig

__all__ = ["stale_contracts"]

_MANIFEST = "MANIFEST.json"


def _changed(path: Path, name: str, digest: str, changed: str, run: str) -> list[str]:
    """``changed`` when ``path`` (shown as ``name``) is not what gen recorded; a line when it cannot be read."""
    try:
        actual = _sha256(path.read_bytes())
    except OSError as exc:
        return [f"{name} cannot be read ({exc.strerror or exc}); {run}"]
    return [changed] if actual != digest else []


def _sha256(data: bytes) -> str:
    """The sha256 of ``data`` in hex, as ``gen`` records it, without importing OpenSSL where CPython allows.

    ``_sha256`` (CPython 3.11, ``_sha2`` from 3.12) is hashlib's own sha256: ~0.3 ms to import, against ~3 ms.
    """
    for name in ("_sha256", "_sha2", "hashlib"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        digest: str = module.sha256(data).hexdigest()
        return digest
    raise ImportError("no sha256 in this Python")  # hashlib is always there: unreachable in practice


def _recorded(config: ProjectConfig) -> dict[str, str] | None:
    """Contract (as the project names it) → the sha256 its generated JSON was made from; None: no readable manifest."""
    try:
        manifest: Any = json.loads((config.generated / _MANIFEST).read_bytes())
        files = manifest["files"]
        prefix = f"{config.relative(config.generated)}/contracts/"
        return {
            source: digest
            for path, entry in files.items()
            if path.startswith(prefix)
            for source, digest in entry["sources"].items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def stale_contracts(config: ProjectConfig) -> list[str]:
    """One line per contract whose generated code is not the contract on disk, naming it and the command to run.

    A contract counts as stale when its file differs from the digest ``gen``
    recorded, when it has no generated counterpart, or when its generated code
    remains after the file was removed. Nothing is compared for the built-in
    tools or for a project without its contracts folder (a deployment that
    ships only the generated package).
    """
    folder = config.contracts
    if config.is_builtin or not folder.is_dir():
        return []
    contracts = sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")])
    if not contracts:
        return []
    run = f"run `{config.command}`"
    recorded = _recorded(config)
    if recorded is None:
        where = config.relative(config.generated / _MANIFEST)
        return [f"{where} is missing or unreadable, so no contract's generated code can be trusted; {run}"]
    lines: list[str] = []
    for path in contracts:
        name = config.relative(path)
        digest = recorded.pop(name, None)
        if digest is None:
            lines.append(f"{name} has no generated code; {run}")
            continue
        lines += _changed(path, name, digest, f"{name} changed after its code was generated; {run}", run)
    shared = sorted([*(folder / "_defs").glob("*.yaml"), *(folder / "_defs").glob("*.yml")])
    for path in shared:  # shared definitions (contracts/_defs/): each contract that uses one records its digest
        name = config.relative(path)
        digest = recorded.pop(name, None)
        if digest is None:
            continue  # no contract uses it (lint says so): no generated code depends on it
        changed = f"{name} (shared definitions) changed after the code of the contracts using it was generated; {run}"
        lines += _changed(path, name, digest, changed, run)
    lines += [f"{name} was removed, but its generated code remains; {run}" for name in sorted(recorded)]
    return lines
