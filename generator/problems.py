"""Problems found in contracts, collected as values and reported all at once."""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["Level", "Problem"]


class Level(enum.Enum):
    """How bad a problem is: errors stop generation, warnings do not."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, slots=True, order=True)
class Problem:
    """One problem, located where a person can fix it: ``contracts/x.yaml:12:5: message``."""

    file: str
    line: int
    column: int
    message: str
    level: Level = Level.ERROR

    def __str__(self) -> str:
        prefix = "" if self.level is Level.ERROR else f"{self.level.value}: "
        return f"{self.file}:{self.line}:{self.column}: {prefix}{self.message}"
