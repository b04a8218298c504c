"""Make a generated folder match what gen rendered: each file written whole, orphans of ours removed."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from toolproof.generator.drift import TEMPORARY, Drift, is_inside
from toolproof.generator.jsontext import dump_json
from toolproof.generator.layout import GENERATED

__all__ = ["GeneratedFolderError", "write_all"]


class GeneratedFolderError(Exception):
    """``write_all`` would overwrite a file toolproof did not write, or write outside the generated folder."""

    def __init__(self, conflicts: Sequence[str]) -> None:
        super().__init__("; ".join(conflicts))
        self.conflicts = list(conflicts)
        """One line per file in the way."""


def write_all(root: Path, files: Mapping[str, str], folder: str = GENERATED, drift: Drift | None = None) -> list[str]:
    """Make the generated folder match ``files``: write what differs, delete the orphans that are ours.

    Each file is written whole (``_replace``): a host starting meanwhile reads the old file or the new
    one, never a part. The folder as a whole changes in an order that a gen killed at any point cannot
    leave a state ``gen --check`` passes or the next gen cannot repair: a MANIFEST.json that lists the
    new files and the orphans (``_claiming``), then the new files, then the orphans removed, then the
    final MANIFEST.json, last (the one ``gen --check`` compares).

    Nothing here keeps two writers apart: ``toolproof gen`` holds the project's lock around the render
    and this write.

    Files in the folder that toolproof did not write (no header; JSON not in the MANIFEST) are left
    alone (``Drift.strangers``); nothing is written when one stands at a path to write.

    Args:
        root: the project folder.
        files: every file gen owns, by path relative to ``root`` (``render_all``).
        folder: the generated folder, relative to ``root``.
        drift: ``Drift(root, files, folder)``, when the caller has it already.

    Returns:
        One line per file written or removed.

    Raises:
        GeneratedFolderError: the folder is the project folder or lies outside it, or a file in the
            way is not ours (``Drift.conflicts``); nothing was written or removed.
        OSError: a file could not be written or removed; each file written so far is whole, and no
            temporary file is left.
    """
    project, base = root.resolve(), (root / folder).resolve()
    if base == project or not is_inside(project, base) or (base.exists() and not base.is_dir()):
        raise GeneratedFolderError(
            [f"{folder}: the generated folder must be a folder inside the project, not the project"]
        )
    drift = Drift(root, files, folder) if drift is None else drift
    if drift.conflicts:
        raise GeneratedFolderError(drift.conflicts)
    manifest = f"{Path(folder).as_posix()}/MANIFEST.json"
    writes = [p for p in (*drift.stale, *drift.missing) if p != manifest]
    final = manifest if manifest in (*drift.stale, *drift.missing) else None
    for path in drift.temporary:
        (root / path).unlink(missing_ok=True)
    if final is not None:  # first claim what is written and what is removed, so a kill leaves nothing unowned
        _write(root, manifest, _claiming(files[manifest], drift.orphaned))
    for path in writes:
        _write(root, path, files[path])
    emptied: set[Path] = set()
    for path in drift.orphaned:
        (root / path).unlink(missing_ok=True)  # another gen's, or someone's, removal is as good as ours
        emptied.add((root / path).parent)
    _remove_empty_dirs(root / folder, emptied, keep={(root / p).parent for p in files})
    if final is not None:
        _write(root, manifest, files[manifest])
    written = [*writes, *([final] if final else [])]
    return [f"wrote {p}" for p in written] + [f"removed {p}" for p in drift.orphaned]


def _write(root: Path, path: str, text: str) -> None:
    """Write ``text`` whole at ``root / path``, making its folders.

    Raises:
        OSError: it could not be written; one that names no file (a full disk's ``ENOSPC`` from a write)
            is raised again naming ``root / path``, so the message says which file was not written.
    """
    target = root / path
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _replace(target, text.encode("utf-8"))
    except OSError as exc:
        if exc.filename is not None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc) or type(exc).__name__, str(target)) from exc


def _claiming(manifest: str, orphaned: Iterable[str]) -> str:
    """The new MANIFEST.json, also listing the orphaned JSON files: what it is while gen writes and removes.

    It lists every JSON file gen is about to write, so one a killed gen left half-way (written, not yet
    listed) is still ours, and every orphan not yet removed, so none becomes a stranger gen leaves behind.
    It differs from the final MANIFEST.json whenever there is an orphan, and ``gen --check`` names it
    stale until the next gen finishes the job.
    """
    data = json.loads(manifest)
    listed = data.setdefault("files", {})
    for path in orphaned:
        if path.endswith(".json") and path not in listed:
            listed[path] = {"sha256": "", "sources": {}}  # being removed
    return dump_json(data)


def _replace(target: Path, data: bytes) -> None:
    """Make ``target`` hold ``data``, whole: a reader sees the old file or the new one, never a part of either.

    ``data`` goes to a temporary file beside ``target`` (same folder, same file system), which then
    takes its name (``os.replace``). The file keeps the mode the old one had; a new one gets the
    umask's default, as ``open`` gives it. Not fsynced: gen is run again after a crash, and what
    this guards against is a reader (a host starting) catching a file half written.
    """
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    while True:
        temporary = target.with_name(f".{target.name}.{os.urandom(4).hex()}{TEMPORARY}")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with open(fd, "wb") as file:
            if mode is not None:
                os.fchmod(file.fileno(), mode)
            file.write(data)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _remove_empty_dirs(base: Path, emptied: Iterable[Path], keep: Iterable[Path]) -> None:
    """Remove the folders that removing orphans left empty, and their parents left empty in turn, up to ``base``."""
    kept = set(keep)
    for folder in sorted(emptied, key=lambda p: len(p.parts), reverse=True):
        while base in folder.parents and folder not in kept and folder.is_dir() and not any(folder.iterdir()):
            try:
                folder.rmdir()
            except OSError:  # filled or removed since it was looked at: leave it
                break
            folder = folder.parent
