"""The servers conform starts run unmeasured by coverage.

These tests start a server for every example (a few hundred processes): under coverage's subprocess patch each
one pays coverage's start-up and tracing, which made them the longest part of `make test`. The code those servers
run is measured where the serve tests start it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _servers_unmeasured(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in [n for n in os.environ if n.startswith("COVERAGE_PROCESS_")]:
        monkeypatch.delenv(name)
    yield
