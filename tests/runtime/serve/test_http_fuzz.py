"""Schemathesis fuzzes the HTTP façade in-process: positive and negative cases, every check.

The example count is bounded for CI (``TOOLPROOF_FUZZ_EXAMPLES``, default 25 per
operation); ``make fuzz`` runs the same test with many more.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from toolproof.runtime.serve.http import HttpApp
from toolproof.runtime.toolbox import builtin_runtime

EXAMPLES = int(os.environ.get("TOOLPROOF_FUZZ_EXAMPLES", "25"))


def _app() -> HttpApp:
    base = Path(tempfile.mkdtemp(prefix="toolproof-fuzz-"))
    ws, skills = base / "ws", base / "skills"
    (ws / "src").mkdir(parents=True)
    (ws / "notes.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (ws / "src" / "main.py").write_text("print('hi')\n", encoding="utf-8")
    (skills / "calculator" / "examples").mkdir(parents=True)
    (skills / "calculator" / "SKILL.MD").write_text("# Calculator\n", encoding="utf-8")
    (skills / "calculator" / "examples" / "basic.py").write_text("x = 1\n", encoding="utf-8")
    (base / "secret.txt").write_text("SECRET", encoding="utf-8")
    return HttpApp(builtin_runtime(workspace=[ws], skills=[skills], gate_secret=b"fuzz"))


CONFIG = SchemathesisConfig.from_dict(
    {
        "generation": {"mode": "all", "max-examples": EXAMPLES, "deterministic": True, "database": "none"},
        "checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "403", "404", "413", "422"]}},
    }
)
APP = _app()
schema = schemathesis.openapi.from_asgi("/openapi.json", APP, config=CONFIG)


@schema.parametrize()
@settings(deadline=None, max_examples=EXAMPLES, suppress_health_check=list(HealthCheck), derandomize=True)
def test_the_http_facade_conforms_to_its_openapi_document(case: Any) -> None:
    response = case.call_and_validate()
    assert "SECRET" not in response.text
