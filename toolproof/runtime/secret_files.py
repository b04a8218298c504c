"""Files that hold a secret (the skill gate's key, bearer tokens), warned of when other users may read them.

A key anyone on the machine can read lets them forge skill tokens; a token file,
call the host as its users. ssh refuses such a private key; a host warns instead,
once a process for each file, on stderr (the ``toolproof`` logger, which every
serve command sends there), naming the file and the fix: ``chmod 600``. It still
uses the file: refusing would stop hosts whose files an administrator shares with
a group on purpose, and a warning is what was asked for.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from pathlib import Path
from typing import Final

__all__ = ["warn_if_shared"]

_log = logging.getLogger("toolproof.secrets")
_SHARED: Final = stat.S_IRWXG | stat.S_IRWXO
"""Permission bits that let users other than the owner read or change the file."""
_warned: set[str] = set()
_lock = threading.Lock()


def warn_if_shared(path: Path, what: str) -> bool:
    """Warn, once per process and file, when users other than its owner may read or change the regular file ``path``.

    Args:
        path: the file, as the user named it (the warning names it so).
        what: what it holds, for the warning (``"the skill gate's key file"``).

    Returns:
        Whether the file is shared so (warned of now or before); False when it is private, or cannot be looked at.
    """
    try:
        found = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISREG(found.st_mode) or not found.st_mode & _SHARED:  # a pipe (--auth-tokens <(...)) is private
        return False
    key = os.path.abspath(path)
    with _lock:
        if key in _warned:
            return True
        _warned.add(key)
    mode = stat.S_IMODE(found.st_mode)
    _log.warning("%s %s can be read or changed by other users (mode %04o): run `chmod 600 %s`", what, path, mode, path)
    return True
