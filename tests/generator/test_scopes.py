"""A contract's ``scopes``: declared in the settings, carried by gen into every place a host or client reads them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from toolproof.cli import cli
from toolproof.generator.published import contract_format_schema
from toolproof.runtime.digests import DIGEST_META_KEY
from toolproof.runtime.project import ProjectError, load_config
from toolproof.runtime.spec import ToolSpec

MINIMAL = Path(__file__).parent / "cases" / "minimal" / "contracts" / "echo.yaml"


def _project(root: Path, declared: str, scopes: str = "[notes:read, notes:write]") -> Path:
    (root / "contracts").mkdir(parents=True)
    contract = MINIMAL.read_text(encoding="utf-8") + f"scopes: {scopes}\n"
    (root / "contracts" / "echo.yaml").write_text(contract, encoding="utf-8")
    settings = f'[tool.toolproof]\nexports = ["mcp", "contract"]\n\n[tool.toolproof.serve]\nscopes = {declared}\n'
    (root / "pyproject.toml").write_text(settings, encoding="utf-8")
    return root


def test_gen_carries_a_contracts_scopes_to_the_mcp_export_the_published_contract_and_the_runtime(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path, '["notes:read", "notes:write"]')

    result = CliRunner().invoke(cli, ["gen", "--project", str(root)])

    assert result.exit_code == 0, result.output
    exports = root / "generated" / "exports"
    (tool,) = json.loads((exports / "mcp" / "all.json").read_text(encoding="utf-8"))["tools"]
    assert tool["_meta"]["securitySchemes"] == [{"type": "oauth2", "scopes": ["notes:read", "notes:write"]}]
    published = json.loads((exports / "contract" / "echo.json").read_text(encoding="utf-8"))
    assert published["scopes"] == ["notes:read", "notes:write"]
    Draft202012Validator(contract_format_schema()).validate(published)
    spec = ToolSpec.from_data(json.loads((root / "generated/contracts/echo.json").read_text(encoding="utf-8")))
    assert spec.scopes == ("notes:read", "notes:write")


def test_a_contract_without_scopes_exports_no_security_schemes(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "contracts").mkdir(parents=True)
    shutil.copy(MINIMAL, root / "contracts" / "echo.yaml")
    (root / "pyproject.toml").write_text("[tool.toolproof]\n", encoding="utf-8")

    assert CliRunner().invoke(cli, ["gen", "--project", str(root)]).exit_code == 0
    (tool,) = json.loads((root / "generated/exports/mcp/all.json").read_text(encoding="utf-8"))["tools"]
    assert set(tool["_meta"]) == {DIGEST_META_KEY}, "only the pinned digest"


def test_lint_names_a_scope_the_project_does_not_declare_and_gen_refuses_it(tmp_path: Path) -> None:
    root = _project(tmp_path, '["notes:read"]')

    result = CliRunner().invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert (
        "contracts/echo.yaml:30:22: error [TP420] scope 'notes:write' is not one the project declares"
        " (did you mean 'notes:read'?)" in result.output
    )


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        ('"notes:read"', 'serve.scopes must be a list of scope names, e.g. ["notes:read"]'),
        (
            '["notes read"]',
            "serve.scopes: 'notes read' is not an OAuth scope: use 1 to 128 printable ASCII characters without"
            " spaces, quotes or backslashes (RFC 6749 §3.3)",
        ),
    ],
)
def test_a_declared_scope_that_is_no_oauth_scope_is_refused_at_its_line(
    tmp_path: Path, declared: str, message: str
) -> None:
    root = _project(tmp_path, declared)

    with pytest.raises(ProjectError) as caught:
        load_config(root / "pyproject.toml")

    assert (caught.value.where, caught.value.message) == (f"{root / 'pyproject.toml'}:5", message)
