"""What a module makes on first use, so importing it costs nothing: public names of a package, regular expressions."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any, AnyStr, Generic

__all__ = ["LazyPattern", "lazy_names"]


def lazy_names(package: str, homes: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package``: each name of ``homes`` from its module (relative to ``package``).

    The value is kept in ``namespace`` (the package's ``globals()``), so the module is asked only once.
    """

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value

    return __getattr__


class LazyPattern(Generic[AnyStr]):
    """A regular expression compiled by its first use, with the methods of ``re.Pattern`` a module uses.

    A module-level ``re.compile`` costs every process that imports the module (about 0.1-0.3 ms
    each, dozens on a host's start-up path) even when no request ever needs the pattern.
    Two threads using it first may both compile it; either result is the same pattern.
    """

    __slots__ = ("_compiled", "_flags", "pattern")

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self.pattern: AnyStr = pattern
        """The source, as ``re.Pattern.pattern``."""
        self._flags = flags
        self._compiled: re.Pattern[AnyStr] | None = None

    @property
    def compiled(self) -> re.Pattern[AnyStr]:
        """The compiled pattern (compiled now, the first time)."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.pattern, self._flags)
        return compiled

    def match(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        """``re.Pattern.match``."""
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        """``re.Pattern.fullmatch``."""
        return self.compiled.fullmatch(string, pos, endpos)

    def search(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        """``re.Pattern.search``."""
        return self.compiled.search(string, pos, endpos)

    def findall(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        """``re.Pattern.findall``."""
        return self.compiled.findall(string, pos, endpos)

    def finditer(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[AnyStr]]:
        """``re.Pattern.finditer``."""
        return self.compiled.finditer(string, pos, endpos)

    def split(self, string: AnyStr, maxsplit: int = 0) -> list[AnyStr | Any]:
        """``re.Pattern.split``."""
        return self.compiled.split(string, maxsplit)

    def sub(self, repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr], string: AnyStr, count: int = 0) -> AnyStr:
        """``re.Pattern.sub``."""
        return self.compiled.sub(repl, string, count)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r})"
