"""The file layer: every handler reads user paths through here and nowhere else.

A user path is resolved and opened in one step, walking component by component
from a directory descriptor of the allowed root with ``O_NOFOLLOW``. The kernel
never follows a symbolic link for us: when the walk meets one, the policy says
whether to refuse it (``deny``) or to resolve its target ourselves and keep
walking beneath the root (``within_root``). ``..`` pops our own trail of the
directories walked through, so it cannot climb above the root, and there is no
gap between a check and the open that a swapped file or symlink could slip
through.

A walk holds at most ``MAX_OPEN_DIRS`` descriptors however deep the path goes:
when ``..`` climbs above those it holds, the ancestors are opened again from the
root, by the names the walk went through (a file 2,000 folders deep reads with a
64-descriptor limit). A walk takes at most ``MAX_WALK_OPENS`` steps.

Only regular files are returned. FIFOs are opened with ``O_NONBLOCK`` so they
never block; they, devices, sockets and directories get ``not_regular`` at once,
with a ``kind`` saying which. A file with more than one name (hard links) may be
refused (``hardlinks="deny"``): its other names may lie outside the root, and no
path check can see them. The check is on the opened descriptor. Sizes come from
the opened descriptor, and reads stop at the cap even when the size lies
(``/proc``).

A root is opened by its path on every call, so a root folder replaced, moved
or removed is seen at once. Only its real path is remembered: resolving it
(``os.path.realpath``, an ``lstat`` a component, about 18 us) cost more than
the rest of opening a small file beneath it, so ``Directory.open`` keeps each
folder's real path with the device and inode it named, and reuses it while the
path still opens that very directory. No descriptor is held between calls.

A root stays where it was: once a folder's real path is known (``Directory.pin``
at a host's start, or its first open), a folder recreated at that real path is
followed, but a path that comes to lead elsewhere (the folder swapped for a
symbolic link) is refused as ``outside_root`` until the host starts again.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from toolproof.runtime.errors import ToolproofError
from toolproof.runtime.lazy import LazyPattern

__all__ = [
    "MAX_BELOW_CHARS",
    "MAX_OPEN_DIRS",
    "MAX_PATH_CHARS",
    "MAX_WALK_OPENS",
    "Directory",
    "FileAccessError",
    "HardlinkPolicy",
    "NotRegularKind",
    "OpenFile",
    "Reason",
    "SymlinkPolicy",
    "names_folder",
    "split_user_path",
]

SymlinkPolicy = Literal["deny", "within_root"]
HardlinkPolicy = Literal["allow", "deny"]
Reason = Literal[
    "invalid_path",
    "outside_root",
    "symlink",
    "hardlink",
    "loop",
    "not_found",
    "not_directory",
    "not_regular",
    "permission_denied",
    "too_large",
    "io_error",
]

NotRegularKind = Literal["directory", "fifo", "socket", "device", "symlink", "other"]
"""What a path that is not a regular file names instead."""

MAX_PATH_CHARS: Final = 4096
"""The longest path, in characters, a caller may write (``invalid_path`` past it)."""
MAX_BELOW_CHARS: Final = 2 * MAX_PATH_CHARS + 1
"""The longest part below the directory, in characters, of an absolute path a walk accepts (``absolute=True``).

A handler spells such a path from the root's real path, whose length is the
host's and never counts, and what the caller wrote: a cwd and a path, each
within ``MAX_PATH_CHARS``, joined."""
MAX_SYMLINK_HOPS: Final = 40
MAX_OPEN_DIRS: Final = 16
"""Directory descriptors one walk holds at most, however deep the path."""
MAX_WALK_OPENS: Final = 1 << 15
"""Opens one walk may make, re-opened ancestors included (a 2,000-deep path takes 2,001)."""
_MAX_RETRIES: Final = 8
_KIND_WORDS: Final[Mapping[NotRegularKind, str]] = {
    "directory": "a directory",
    "fifo": "a FIFO",
    "socket": "a socket",
    "device": "a device",
    "symlink": "a symbolic link",
    "other": "a special file",
}

_FOLDER_ENDS: Final = ("/", "\\", "/.", "\\.")
"""How a path that names a folder, never a file, ends."""
_SCHEME = LazyPattern(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_DRIVE = LazyPattern(r"^[A-Za-z]:")
_FILE_FLAGS: Final = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
_DIR_FLAGS: Final = _FILE_FLAGS | os.O_DIRECTORY
_ROOT_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
"""A root is a folder the host trusts: symbolic links on its path are followed."""
_MAX_KNOWN_ROOTS: Final = 4096
_known_roots: dict[str, tuple[int, int, str]] = {}
"""Each folder pinned or opened: its path as given -> (st_dev, st_ino, real path) of what it named.

Read and written without a lock: an entry is replaced whole, and a lost race only resolves a path once more.
Past the bound the oldest entry goes (a host has a handful of roots; only a long test run gets there).
"""


def _remember(name: str, st: os.stat_result, real: str) -> None:
    if name not in _known_roots and len(_known_roots) >= _MAX_KNOWN_ROOTS:
        del _known_roots[next(iter(_known_roots))]
    _known_roots[name] = (st.st_dev, st.st_ino, real)


class FileAccessError(ToolproofError):
    """The file layer refused a path or could not read it; ``reason`` says which (``kind`` for ``not_regular``)."""

    def __init__(
        self, reason: Reason, path: str, detail: str, *, size: int | None = None, kind: NotRegularKind | None = None
    ) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason: Reason = reason
        self.path = path
        self.detail = detail
        self.size = size
        """For ``too_large``: the size found, when known."""
        self.kind = kind
        """For ``not_regular``: what the path names instead of a regular file."""

    @classmethod
    def not_regular(cls, path: str, kind: NotRegularKind) -> FileAccessError:
        """``not_regular`` for a path that names ``kind``, with the detail built from it."""
        return cls("not_regular", path, f"the path is {_KIND_WORDS[kind]}, not a regular file", kind=kind)


def _kind(mode: int) -> NotRegularKind:
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "other"


def split_user_path(
    user_path: str, *, literal_tilde: bool = False, max_chars: int | None = MAX_PATH_CHARS
) -> tuple[bool, list[str]]:
    """Split a path as a model writes it into ``(is_absolute, components)``.

    Both slash styles separate components. Empty and ``.`` components vanish;
    ``..`` is kept for the walk to handle. A path that starts with two slashes
    or more is absolute, as Linux reads it (``//tmp/x`` is ``/tmp/x``): POSIX
    leaves the meaning of exactly two to the system, and this one gives them none.

    Args:
        user_path: the path as the model wrote it.
        literal_tilde: a leading ``~`` is an ordinary character (``~x`` names a
            file ``~x``), never a home folder; by default such a path is refused.
        max_chars: the longest path accepted; None when the caller bounds it
            (a walk of an absolute path it spelled from a root, ``MAX_BELOW_CHARS``).

    Raises:
        FileAccessError: ``invalid_path`` for NUL bytes, empty or overlong paths;
            ``outside_root`` for ``~`` (unless ``literal_tilde``), URLs and drive letters.
    """
    if "\x00" in user_path:
        raise FileAccessError("invalid_path", user_path, "the path contains a NUL byte")
    if not user_path.strip():
        raise FileAccessError("invalid_path", user_path, "the path is blank" if user_path else "the path is empty")
    if max_chars is not None and len(user_path) > max_chars:
        raise FileAccessError("invalid_path", user_path, f"the path is longer than {max_chars} characters")
    if user_path.startswith("~") and not literal_tilde:
        raise FileAccessError("outside_root", user_path, "'~' is not expanded; give a path inside the allowed folder")
    has_colon = ":" in user_path  # both patterns need one: most paths skip them
    if has_colon and _SCHEME.match(user_path):
        raise FileAccessError("outside_root", user_path, "URLs are not file paths")
    path = user_path.replace("\\", "/")
    if has_colon and _DRIVE.match(path):
        raise FileAccessError("outside_root", user_path, "drive letters are outside the allowed folder")
    absolute = path.startswith("/")
    return absolute, [part for part in path.split("/") if part and part != "."]


def names_folder(user_path: str) -> bool:
    """Whether a path is written to name a folder, never a file: it ends with a separator, or with ``/.``.

    ``split_user_path`` drops that ending with the empty and ``.`` components; a
    caller that rebuilds a path from the components puts a ``/`` back after them.
    """
    return user_path.endswith(_FOLDER_ENDS)


def _relative_to_root(parts: list[str], root_parts: list[str]) -> list[str] | None:
    """The components of an absolute path below the root, or None when it is not below it."""
    n = len(root_parts)
    if parts[:n] != root_parts:
        return None
    return parts[n:]


@dataclass(slots=True)
class OpenFile:
    """A regular file opened beneath a root; close it, or use it as a context manager."""

    fd: int
    root: str
    relpath: str
    stat: os.stat_result

    @property
    def path(self) -> str:
        """The resolved absolute path (for audit records, never for models)."""
        return f"{self.root}/{self.relpath}" if self.relpath else self.root

    @property
    def size(self) -> int:
        """Size in bytes, from the opened descriptor."""
        return self.stat.st_size

    def read_all(self, cap: int) -> bytes:
        """Read the whole file, refusing one larger than ``cap`` bytes.

        The size from ``fstat`` is checked first; the read itself also stops
        after ``cap + 1`` bytes, for files whose reported size lies.

        Raises:
            FileAccessError: ``too_large`` or ``io_error``.
        """
        if self.stat.st_size > cap:
            raise FileAccessError(
                "too_large",
                self.relpath,
                f"the file is {self.stat.st_size} bytes; the limit is {cap}",
                size=self.stat.st_size,
            )
        chunks: list[bytes] = []
        total = 0
        # One byte more than expected, so a file that grew (or lied) shows it.
        want = min(self.stat.st_size, cap) + 1
        try:
            while total <= cap:
                asked = max(want - total, 1 << 16)
                chunk = os.read(self.fd, asked)
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
                if len(chunk) < asked and total == self.stat.st_size:
                    break  # a short read of a regular file ends at its end: no read just to see nothing
        except OSError as exc:
            raise FileAccessError("io_error", self.relpath, exc.strerror or "read failed") from None
        if total > cap:
            raise FileAccessError("too_large", self.relpath, f"the file is larger than {cap} bytes")
        return b"".join(chunks)

    def close(self) -> None:
        """Close the descriptor (idempotent)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> OpenFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Directory:
    """An open directory that paths are resolved beneath; the root of a walk.

    Args:
        fd: an open ``O_DIRECTORY`` descriptor, owned by this object.
        real: the directory's real absolute path.
    """

    __slots__ = ("_root_parts", "fd", "real")

    def __init__(self, fd: int, real: str) -> None:
        self.fd = fd
        self.real = real
        self._root_parts = [part for part in real.split("/") if part]

    @classmethod
    def open(cls, path: str | Path) -> Directory:
        """Open a folder the host trusts (symbolic links in it are followed), as it is now.

        The path is opened on every call. Its real path is resolved the first
        time, and again whenever the path opens another directory than it did
        (another device or inode: the folder was replaced), or, for a path that
        is not its own real path, whenever the real path no longer names the
        directory opened (it was moved).

        Raises:
            FileAccessError: ``not_found``, ``not_directory`` or ``permission_denied``.
        """
        name = os.fspath(path)
        known = _known_roots.get(name)
        if known is not None:
            directory = cls._reopen(name, known)
            if directory is not None:
                return directory
        real = os.path.realpath(name)
        try:
            fd = os.open(real, _ROOT_FLAGS)
        except FileNotFoundError:
            raise FileAccessError("not_found", name, "the folder does not exist") from None
        except NotADirectoryError:
            raise FileAccessError("not_directory", name, "not a folder") from None
        except PermissionError:
            raise FileAccessError("permission_denied", name, "permission denied") from None
        try:
            st = os.fstat(fd)
        except BaseException:
            os.close(fd)
            raise
        if known is not None and real != known[2] and (st.st_dev, st.st_ino) != known[:2]:
            os.close(fd)  # another folder, at another place: the path was made to lead elsewhere
            detail = f"the folder now leads to {real}, not to {known[2]} where it was; restart the host to follow it"
            raise FileAccessError("outside_root", name, detail)
        _remember(name, st, real)
        return cls(fd, real)

    @staticmethod
    def pin(path: str | Path) -> None:
        """Remember where the folder at ``path`` is now (a host's root, at start), so it stays there.

        Nothing is remembered for a path that names no folder now: its first open says why.
        """
        name = os.fspath(path)
        real = os.path.realpath(name)
        try:
            st = os.stat(real)
        except OSError:
            return
        if stat.S_ISDIR(st.st_mode):
            _remember(name, st, real)

    @classmethod
    def _reopen(cls, name: str, known: tuple[int, int, str]) -> Directory | None:
        """``name`` opened, with its known real path, when it still opens that directory; else None.

        None also when it cannot be opened: resolving it again says why, as the first open did.
        """
        dev, ino, real = known
        try:
            fd = os.open(name, _ROOT_FLAGS)
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            same = st.st_dev == dev and st.st_ino == ino
            if same and real != name:  # the real path must still lead there too
                at_real = os.stat(real)
                same = at_real.st_dev == dev and at_real.st_ino == ino
        except OSError:
            same = False
        except BaseException:
            os.close(fd)
            raise
        if not same:
            os.close(fd)
            return None
        return cls(fd, real)

    def close(self) -> None:
        """Close the descriptor (idempotent)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Directory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open_file(
        self,
        user_path: str,
        *,
        symlinks: SymlinkPolicy = "within_root",
        hardlinks: HardlinkPolicy = "allow",
        absolute: bool = False,
    ) -> OpenFile:
        """Open a regular file beneath this directory.

        Args:
            user_path: the path as the model wrote it, relative to this directory.
            symlinks: refuse every symbolic link, or follow those that stay beneath.
            hardlinks: read files with several names, or refuse them (``hardlink``).
            absolute: accept an absolute path that lies beneath this directory (its part below it
                within ``MAX_BELOW_CHARS``).

        Raises:
            FileAccessError: whatever stops the path from naming a readable regular file here.
        """
        fd, names, st = self._walk(user_path, want_dir=False, symlinks=symlinks, absolute=absolute)
        assert st is not None  # a file's walk ends in fstat
        if hardlinks == "deny" and st.st_nlink > 1:
            os.close(fd)
            detail = f"the file has {st.st_nlink} names (hard links), and files with more than one are not read here"
            raise FileAccessError("hardlink", user_path, detail)
        return OpenFile(fd, self.real, "/".join(names), st)

    def open_dir(self, user_path: str, *, symlinks: SymlinkPolicy = "within_root", absolute: bool = False) -> Directory:
        """Open a sub-folder beneath this directory, as the root of further walks.

        Args:
            user_path: the path as the model wrote it, relative to this directory.
            symlinks: refuse every symbolic link, or follow those that stay beneath.
            absolute: accept an absolute path that lies beneath this directory (its part below it
                within ``MAX_BELOW_CHARS``).

        Raises:
            FileAccessError: whatever stops the path from naming a folder here.
        """
        fd, names, _ = self._walk(user_path, want_dir=True, symlinks=symlinks, absolute=absolute)
        return Directory(fd, "/".join([self.real.rstrip("/"), *names]) if names else self.real)

    def _walk(
        self, user_path: str, *, want_dir: bool, symlinks: SymlinkPolicy, absolute: bool
    ) -> tuple[int, list[str], os.stat_result | None]:
        """(descriptor, names walked, stat): the stat of a file, None for a directory (``O_DIRECTORY`` said so)."""
        is_abs, parts = split_user_path(user_path, max_chars=None if absolute else MAX_PATH_CHARS)
        if is_abs:
            below = _relative_to_root(parts, self._root_parts) if absolute else None
            if below is None:
                raise FileAccessError("outside_root", user_path, "the path is outside the allowed folder")
            if sum(map(len, below)) + len(below) - 1 > MAX_BELOW_CHARS:  # the root's own length never counts
                detail = f"the path below the allowed folder is longer than {MAX_BELOW_CHARS} characters"
                raise FileAccessError("invalid_path", user_path, detail)
            parts = below
        elif len(user_path) > MAX_PATH_CHARS:  # a relative path where an absolute one was allowed
            detail = f"the path is longer than {MAX_PATH_CHARS} characters"
            raise FileAccessError("invalid_path", user_path, detail)
        # "x/" and "x/." name a folder, as POSIX reads them: a file there is refused, as open(2) refuses it.
        folder_only = not want_dir and names_folder(user_path)
        trail = _Trail(self.fd, user_path)
        pending = deque(parts)
        hops = 0
        retries = 0
        try:
            while pending:
                name = pending.popleft()
                if name == "..":
                    if not trail.names:
                        raise FileAccessError("outside_root", user_path, "the path climbs above the allowed folder")
                    trail.pop()
                    continue
                last = not pending
                here = trail.here()
                trail.step()
                try:
                    fd = os.open(
                        name, _DIR_FLAGS if (want_dir or folder_only or not last) else _FILE_FLAGS, dir_fd=here
                    )
                except OSError as exc:
                    link = self._symlink_target(exc, name, here, user_path, symlinks)
                    if link is None:
                        if last and folder_only and exc.errno == errno.ENOTDIR:
                            detail = "the path ends with '/', which names a folder, but it names a file"
                            raise FileAccessError("not_found", user_path, detail) from None
                        if exc.errno == errno.ELOOP and retries < _MAX_RETRIES:
                            # It was a link when opened and is none now: swapped under us; look again.
                            retries += 1
                            pending.appendleft(name)
                            continue
                        raise self._open_error(exc, name, here, user_path, last, want_dir) from None
                    hops += 1
                    if hops > MAX_SYMLINK_HOPS:
                        raise FileAccessError("loop", user_path, "too many levels of symbolic links") from None
                    link_abs, link_parts = link
                    if link_abs:
                        below = _relative_to_root(link_parts, self._root_parts)
                        if below is None:
                            raise FileAccessError(
                                "outside_root", user_path, "a symbolic link leads outside the allowed folder"
                            ) from None
                        trail.clear()
                        link_parts = below
                    pending.extendleft(reversed(link_parts))
                    continue
                if last:
                    return self._finish(fd, [*trail.names, name], user_path, want_dir)
                trail.push(name, fd)
            # The path named the root itself, or ended in "..".
            if want_dir:
                return os.dup(trail.here()), list(trail.names), None
            raise FileAccessError.not_regular(user_path, "directory")
        finally:
            trail.close()

    @staticmethod
    def _finish(
        fd: int, names: list[str], user_path: str, want_dir: bool
    ) -> tuple[int, list[str], os.stat_result | None]:
        if want_dir:
            return fd, names, None
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode):
            return fd, names, st
        os.close(fd)
        raise FileAccessError.not_regular(user_path, _kind(st.st_mode))

    @staticmethod
    def _symlink_target(
        exc: OSError, name: str, here: int, user_path: str, symlinks: SymlinkPolicy
    ) -> tuple[bool, list[str]] | None:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            return None
        try:
            st = os.stat(name, dir_fd=here, follow_symlinks=False)
        except OSError:
            return None
        if not stat.S_ISLNK(st.st_mode):
            return None
        if symlinks == "deny":
            raise FileAccessError("symlink", user_path, "symbolic links are not followed here") from None
        try:
            target = os.readlink(name, dir_fd=here)
        except OSError:
            return None
        if not target or "\x00" in target:
            raise FileAccessError("not_found", user_path, "a symbolic link has an empty target") from None
        return target.startswith("/"), [part for part in target.split("/") if part and part != "."]

    @staticmethod
    def _open_error(exc: OSError, name: str, here: int, user_path: str, last: bool, want_dir: bool) -> FileAccessError:
        code = exc.errno
        if code == errno.ENOENT:
            return FileAccessError("not_found", user_path, "no such file")
        if code == errno.ENOTDIR:
            if last and want_dir:
                return FileAccessError("not_directory", user_path, "the path is a file, not a folder")
            return FileAccessError("not_found", user_path, "a parent of the path is not a folder")
        if code in (errno.EACCES, errno.EPERM):
            return FileAccessError("permission_denied", user_path, "permission denied")
        if code == errno.ENXIO:
            # A socket, or a device without a driver. Which one is only for the message: nothing is opened.
            try:
                kind = _kind(os.stat(name, dir_fd=here, follow_symlinks=False).st_mode)
            except OSError:
                kind = "other"
            return FileAccessError.not_regular(user_path, kind)
        if code == errno.ENAMETOOLONG:
            return FileAccessError("invalid_path", user_path, "a path component is too long")
        if code == errno.ELOOP:
            return FileAccessError("loop", user_path, "too many levels of symbolic links")
        if code in (errno.EMFILE, errno.ENFILE):
            return FileAccessError("io_error", user_path, "too many open files")
        return FileAccessError("io_error", user_path, exc.strerror or "cannot open")


class _Trail:
    """Where a walk is: the name of every directory below the root, and descriptors of the deepest few.

    Descending costs one descriptor per level, but only the last ``MAX_OPEN_DIRS``
    are kept. When ``..`` climbs above them, ``here`` opens the ancestors again
    by walking down from the root by the same names with ``O_NOFOLLOW``: each is
    a real directory beneath the root (a name swapped for a symbolic link since
    fails to open), and the kernel is never asked for ``..``.
    """

    __slots__ = ("fds", "names", "opens", "root", "user_path")

    def __init__(self, root: int, user_path: str) -> None:
        self.root = root
        self.user_path = user_path
        self.names: list[str] = []
        self.fds: list[int] = []
        """Descriptors of the deepest ``len(fds)`` directories of ``names``, deepest last."""
        self.opens = 0

    def step(self) -> None:
        """Count one open, and refuse a walk that takes too many."""
        self.opens += 1
        if self.opens > MAX_WALK_OPENS:
            raise FileAccessError("loop", self.user_path, "the path takes too many steps to resolve")

    def here(self) -> int:
        """The descriptor of the directory the walk is in."""
        if not self.names:
            return self.root
        if not self.fds:
            self._reopen()
        return self.fds[-1]

    def push(self, name: str, fd: int) -> None:
        """Go down into ``name``, opened as ``fd`` (owned by the trail from now on)."""
        self.names.append(name)
        self.fds.append(fd)
        if len(self.fds) > MAX_OPEN_DIRS:
            os.close(self.fds.pop(0))

    def pop(self) -> None:
        """Go up one level (the caller checked that the walk is below the root)."""
        self.names.pop()
        if self.fds:
            os.close(self.fds.pop())

    def clear(self) -> None:
        """Go back to the root."""
        self.close()
        self.names.clear()

    def close(self) -> None:
        """Close every descriptor held."""
        while self.fds:
            os.close(self.fds.pop())

    def _reopen(self) -> None:
        parent = self.root
        try:
            for name in self.names:
                self.step()
                fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
                self.fds.append(fd)
                if len(self.fds) > MAX_OPEN_DIRS:
                    os.close(self.fds.pop(0))
                parent = fd
        except OSError:
            self.close()
            raise FileAccessError(
                "not_found", self.user_path, "a folder of the path changed while it was resolved"
            ) from None
