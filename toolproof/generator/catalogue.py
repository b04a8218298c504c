"""``toolproof docs``: one self-contained HTML page to browse a project's tools.

Each tool as each provider sees it, side by side (the exports gen writes, ``exports.export_definitions``), with
what each rewrite lost, its error catalogue, its examples and the texts they render, its annotations, tool sets,
needs and pinned digest; a search box filters the tools by any word of them (an error code included). The page
needs no network: its style and script are inline, and it loads nothing.

It is rendered by a Jinja template (``templates/catalogue.html.jinja``) in an environment of its own that
HTML-escapes every value, so contract text is shown, never run. The search index is JSON inside a
``<script type="application/json">``, with ``<``, ``>`` and ``&`` written as ``\\u`` escapes, so no text
can end that element.

Extra facts about a tool (token counts, host profiles) go in ``ToolView.extras``: label and text pairs,
shown in the tool's summary table and searched like the rest (``extras`` argument of ``catalogue_html``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from toolproof import __version__
from toolproof.generator.exports import DEFINITION_FORMATS, Exported, tool_digest
from toolproof.generator.jsontext import dump_json
from toolproof.generator.model import Contract
from toolproof.runtime.errors import STANDARD_ERRORS
from toolproof.runtime.template import Template, TemplateSyntaxError

__all__ = ["ExampleView", "ProviderView", "ToolView", "catalogue_html", "tool_views"]


@dataclass(frozen=True, slots=True)
class ProviderView:
    """One tool as one provider's API receives it, and what the rewrite for it lost."""

    format: str
    definition: str
    """The definition, as indented JSON."""
    losses: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ExampleView:
    """One contract example: the call, and what it expects, the text the model reads included."""

    name: str
    input: str
    expects: str
    """``output``, ``error`` or ``text``: what the example pins."""
    output: str | None
    error: str | None
    text: str | None


@dataclass(frozen=True, slots=True)
class ToolView:
    """Everything the catalogue shows of one tool."""

    name: str
    title: str
    description: str
    version: str
    digest: str
    annotations: Mapping[str, bool]
    toolsets: tuple[str, ...]
    needs: tuple[str, ...]
    errors: tuple[tuple[str, str, str], ...]
    """(code, message template, hint) of the catalogue, then the standard errors."""
    providers: tuple[ProviderView, ...]
    examples: tuple[ExampleView, ...]
    extras: tuple[tuple[str, str], ...] = field(default=())

    def search_text(self) -> str:
        """Every word a search may match: names, texts, error codes, tool sets, extras; lower case."""
        parts = [self.name, self.title, self.description, *self.toolsets, *self.needs, self.digest]
        parts += [f"{code} {message} {hint}" for code, message, hint in self.errors]
        parts += [f"{label} {value}" for label, value in self.extras]
        return " ".join(parts).lower()


def _entry(fmt: str, data: Any, name: str) -> Any:
    """The tool ``name``'s definition in a format's exported data."""
    items = data["tools"] if fmt == "mcp" else data["functionDeclarations"] if fmt.startswith("gemini") else data
    for item in items:
        found = item.get("function", item).get("name")
        if found == name:
            return item
    return None


def _text(c: Contract, expect: Mapping[str, Any]) -> str | None:
    """The text the model reads for an example: what it pins, else its output rendered by ``render.result``."""
    if isinstance(expect.get("text"), str):
        return str(expect["text"])
    if isinstance(expect.get("output"), Mapping):
        try:
            return Template(c.render["result"]).render(expect["output"], whole=expect["output"])
        except (KeyError, TemplateSyntaxError, TypeError, ValueError):
            return None
    return None


def _examples(c: Contract) -> tuple[ExampleView, ...]:
    views = []
    for example in c.examples:
        expect = example["expect"]
        error = expect.get("error")
        shown_error = f"{error}: {expect['message']}" if error and "message" in expect else error
        views.append(
            ExampleView(
                name=example["name"],
                input=dump_json(example["input"]).rstrip("\n"),
                expects="error" if error else "output" if "output" in expect else "text",
                output=dump_json(expect["output"]).rstrip("\n") if "output" in expect else None,
                error=shown_error,
                text=_text(c, expect),
            )
        )
    return tuple(views)


def tool_views(
    contracts: Sequence[Contract],
    exports: Mapping[str, Mapping[str, Exported]],
    extras: Callable[[Contract], Sequence[tuple[str, str]]] | None = None,
) -> list[ToolView]:
    """What the catalogue shows of each of ``contracts``, sorted by name.

    Args:
        contracts: the tools.
        exports: ``render.export_all`` of them; each provider's ``all`` set is shown.
        extras: more facts to show of a tool (label, text), such as its token counts.
    """
    views = []
    for c in sorted((c for c in contracts if c.is_tool), key=lambda c: c.name):
        providers = []
        for fmt in DEFINITION_FORMATS:
            exported = exports[fmt]["all"]
            losses = tuple(
                f"{loss.schema}{loss.pointer()}: {loss.keyword} {loss.action} ({loss.detail})"
                for loss in exported.losses
                if loss.tool == c.name
            )
            definition = dump_json(_entry(fmt, exported.data, c.name)).rstrip("\n")
            providers.append(ProviderView(fmt, definition, losses))
        errors = [(e.code, e.message, e.hint or "") for e in c.errors]
        errors += [(code, std.message, std.hint or "") for code, std in STANDARD_ERRORS.items()]
        views.append(
            ToolView(
                name=c.name,
                title=c.title,
                description=c.description,
                version=c.version,
                digest=tool_digest(c),
                annotations=dict(c.annotations),
                toolsets=tuple(c.toolsets),
                needs=tuple(c.needs),
                errors=tuple(errors),
                providers=tuple(providers),
                examples=_examples(c),
                extras=tuple(extras(c)) if extras else (),
            )
        )
    return views


def _script_json(value: Any) -> Markup:
    """``value`` as JSON that is safe inside a ``<script>`` element: no text in it can close the element."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    text = text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    return Markup(text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


@cache
def _environment() -> jinja2.Environment:
    """Strict Jinja for HTML: every value escaped unless marked safe (only ``_script_json``'s output is)."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=True,
        auto_reload=False,
    )


def catalogue_html(title: str, views: Sequence[ToolView]) -> str:
    """The catalogue page of ``views``, titled ``title``: one HTML document, style and script inline."""
    index = [{"id": f"tool-{i}", "text": view.search_text()} for i, view in enumerate(views)]
    return (
        _environment()
        .get_template("catalogue.html.jinja")
        .render(
            title=title,
            version=__version__,
            views=views,
            formats=DEFINITION_FORMATS,
            index=_script_json(index),
        )
    )
