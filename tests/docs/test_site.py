"""The documentation site builds strictly and renders in a real browser: headless Chromium, on loopback only.

The site is built once (``mkdocs build --strict``, as ``make test``'s docs session does) and served from
127.0.0.1; playwright drives Debian's ``chromium`` (``make``'s set-up installs it), never a browser of its own.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Final

import pytest
from playwright.sync_api import BrowserContext, Page, sync_playwright

pytestmark = pytest.mark.slow

REPO: Final = Path(__file__).resolve().parents[2]
CHROMIUM: Final = "/usr/bin/chromium"
FLAGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """No access log on the test's output."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The site, built strictly into a temporary folder and served on 127.0.0.1; its base URL."""
    folder = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(folder)],
        cwd=REPO,
        check=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    """Headless Chromium with a fresh profile (its ``--user-data-dir``); it reaches nothing beyond loopback."""
    assert shutil.which("chromium") or Path(CHROMIUM).exists(), "chromium is missing: run make's set-up"
    profile = tmp_path_factory.mktemp("profile")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=list(FLAGS), timeout=60_000
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser: BrowserContext) -> Iterator[Page]:
    """A fresh page that records the browser's console errors and failed requests in ``page.problems``."""
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    page.problems = problems  # type: ignore[attr-defined]
    try:
        yield page
    finally:
        page.close()


def _heading(text: str) -> str:
    """A heading's text without the permalink sign the theme adds."""
    return text.removesuffix("¶").strip()


def _open_rendered(page: Page, url: str, heading: str) -> None:
    """Open ``url`` and check it rendered as a page of the site: status 200, the theme's header, the heading.

    Raises:
        AssertionError: the page is missing or did not render.
    """
    response = page.goto(url, wait_until="load")
    assert response is not None and response.status == 200, f"{url}: {response and response.status}"
    header = page.locator("header.md-header")
    assert header.is_visible()
    box = header.bounding_box()
    assert box is not None and box["height"] > 20  # the theme's stylesheet laid it out
    assert _heading(page.locator("article h1").first.inner_text()) == heading
    assert page.locator("nav.md-nav--primary").count() == 1
    assert page.problems == []  # type: ignore[attr-defined]


def test_the_quickstart_renders(site: str, page: Page) -> None:
    _open_rendered(page, f"{site}/quickstart/", "Quickstart")

    assert page.locator("article pre code").count() >= 2  # its commands, highlighted
    assert "toolproof init" in page.locator("article").inner_text()


def test_a_lint_rule_page_renders_with_its_example_and_fix(site: str, page: Page) -> None:
    _open_rendered(page, f"{site}/rules/TP201/", "TP201 unknown-keyword")

    sections = page.locator("article h2").all_inner_texts()
    assert [_heading(s) for s in sections] == ["What it catches", "Example", "Fix"]
    assert "minLenght" in page.locator("article pre").first.inner_text()


def test_search_finds_a_rule_by_its_id(site: str, page: Page) -> None:
    _open_rendered(page, f"{site}/", "toolproof")

    search = page.locator("input.md-search__input")
    search.click()
    search.press_sequentially("TP201")
    first = page.locator(".md-search-result__item a").first
    first.wait_for(state="visible", timeout=15_000)

    assert first.get_attribute("href", timeout=5_000) is not None
    assert "rules/TP201/" in (first.get_attribute("href") or "")
    assert "TP201" in first.inner_text()


def test_the_render_check_fails_on_a_page_the_site_lacks(site: str, page: Page) -> None:
    with pytest.raises(AssertionError, match="404"):
        _open_rendered(page, f"{site}/rules/TP999/", "TP999")


def test_the_render_check_fails_on_a_page_without_the_theme(site: str, page: Page) -> None:
    with pytest.raises(AssertionError):
        _open_rendered(page, f"{site}/search/search_index.json", "TP201 unknown-keyword")
