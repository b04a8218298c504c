"""``toolproof docs``: the HTML catalogue shows each tool as each provider sees it, escapes every contract text,
needs no network, and renders and searches in headless Chromium (Debian's ``chromium``, driven by playwright).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Final

import pytest
import yaml
from click.testing import CliRunner

from toolproof.cli import cli
from toolproof.generator.catalogue import catalogue_html, tool_views
from toolproof.generator.exports import DEFINITION_FORMATS
from toolproof.generator.project import load_project

MINIMAL: Final = Path(__file__).parent / "cases" / "minimal" / "contracts" / "echo.yaml"
CONFORMANCE: Final = Path(__file__).parents[1] / "conformance_project"
REPO: Final = Path(__file__).parents[2]
"""This repository: the project of the built-in tools."""
HOSTILE: Final = "</script><script>alert(1)</script><!-- \u2028 & &amp; \"quoted\" 'single' <b>bold</b>"
CHROMIUM: Final = "/usr/bin/chromium"


class _Page(HTMLParser):
    """What a browser would build of the page: its elements by tag, and its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        (self.scripts if self._in_script else self.text).append(data)


def _hostile_project(root: Path) -> Path:
    contract: dict[str, Any] = yaml.safe_load(MINIMAL.read_text(encoding="utf-8"))
    contract["title"] = f"Echo {HOSTILE}"
    contract["description"] = f"Echo a word back. {HOSTILE}"
    contract["errors"]["too_loud"]["hint"] = f"Whisper it. {HOSTILE}"
    (root / "contracts").mkdir(parents=True)
    (root / "contracts" / "echo.yaml").write_text(yaml.safe_dump(contract, allow_unicode=True), encoding="utf-8")
    return root


def test_every_contract_text_is_shown_as_text_and_no_text_adds_an_element(tmp_path: Path) -> None:
    project = load_project(_hostile_project(tmp_path))
    assert project.ok, [str(p) for p in project.problems]

    page = _Page()
    page.feed(catalogue_html(f"Tools {HOSTILE}", tool_views(project.served, project.exports())))

    assert page.tags.count("script") == 2  # the search index and the search, nothing a contract wrote
    assert "b" not in page.tags
    text = "".join(page.text)
    assert f"Echo a word back. {HOSTILE}" in text
    assert f"Whisper it. {HOSTILE}" in text
    index = json.loads(page.scripts[0])
    assert HOSTILE.lower() in index[0]["text"]


def test_each_tool_is_shown_as_every_provider_sees_it_with_its_losses_errors_and_digest(tmp_path: Path) -> None:
    project = load_project(CONFORMANCE)
    exports = project.exports()

    views = {view.name: view for view in tool_views(project.served, exports)}

    assert sorted(views) == sorted(c.name for c in project.served if c.is_tool)
    for view in views.values():
        assert [p.format for p in view.providers] == list(DEFINITION_FORMATS)
    lost = {fmt: [loss for loss in exports[fmt]["all"].losses] for fmt in DEFINITION_FORMATS}
    for fmt, losses in lost.items():
        for loss in losses:
            shown = next(p for p in views[loss.tool].providers if p.format == fmt)
            assert any(line.startswith(f"{loss.schema}{loss.pointer()}: {loss.keyword}") for line in shown.losses)
    pins = json.loads((CONFORMANCE / "generated" / "tools.lock.json").read_text(encoding="utf-8"))["tools"]
    assert {name: view.digest for name, view in views.items()} == {name: pin["digest"] for name, pin in pins.items()}
    assert all("invalid_arguments" in [code for code, _, _ in view.errors] for view in views.values())


def test_the_command_writes_the_catalogue_and_says_where(runner: CliRunner, tmp_path: Path) -> None:
    output = tmp_path / "out.html"

    result = runner.invoke(cli, ["docs", "--project", str(CONFORMANCE), "--output", str(output)])

    assert result.exit_code == 0, result.output
    texts = [path.read_text(encoding="utf-8") for path in CONFORMANCE.glob("contracts/*.yaml")]
    kinds = [yaml.safe_load(text).get("kind", "tool") for text in texts]
    tools = kinds.count("tool")  # the catalogue shows tools; resources and prompts have no provider definitions
    assert result.output == f"wrote {output}: {tools} tool(s)\n"
    assert output.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built-in tools' catalogue, written by the command."""
    output = tmp_path_factory.mktemp("catalogue") / "catalogue.html"
    result = CliRunner().invoke(cli, ["docs", "--project", str(REPO), "--output", str(output)])
    assert result.exit_code == 0, result.output
    return output


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A page of headless Chromium with a fresh profile; ``page.problems`` records console errors and requests."""
    from playwright.sync_api import sync_playwright

    assert shutil.which("chromium") or Path(CHROMIUM).exists(), "chromium is missing: run make's set-up"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"], timeout=60_000
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            problems: list[str] = []
            page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("request", lambda r: None if r.url.startswith("file:") else problems.append(f"request: {r.url}"))
            page.problems = problems  # type: ignore[attr-defined]
            yield page
        finally:
            browser.close()


@pytest.mark.slow
def test_the_catalogue_renders_in_chromium_with_no_request_and_its_search_finds_a_tool_and_an_error_code(
    catalogue: Path, page: Any
) -> None:
    page.goto(catalogue.as_uri(), wait_until="load")
    sections = page.locator("section.tool")
    assert sections.count() == 5
    header = page.locator("header").bounding_box()
    assert header is not None and header["height"] > 20  # the inline stylesheet laid it out
    page.screenshot(path=str(catalogue.with_suffix(".png")), full_page=False)

    page.fill("#search", "read_skill")
    visible = [s.get_attribute("data-name") for s in sections.all() if s.is_visible()]
    page.fill("#search", "skill_not_found")
    by_code = [s.get_attribute("data-name") for s in sections.all() if s.is_visible()]
    highlighted = page.locator("section.tool:not([hidden]) tr.match[data-code='skill_not_found']").count()
    page.fill("#search", "no such tool anywhere")
    nothing = page.locator("#nothing").is_visible()

    assert visible == ["read_skill"]
    assert sorted(by_code) == ["get_skill", "read_file_in_skill", "read_skill"]  # the tools whose catalogue has it
    assert highlighted == len(by_code)
    assert nothing
    assert page.locator("#count").inner_text() == "0 of 5 tool(s)"
    assert page.problems == []
    assert catalogue.with_suffix(".png").stat().st_size > 10_000
