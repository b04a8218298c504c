"""What the official MCP SDK client reads of the built-in resources and prompts, on any transport."""

from __future__ import annotations

from mcp import Client
from mcp.types import PromptReference, ResourceTemplateReference, TextContent, TextResourceContents


async def check_offers(client: Client) -> None:
    """List, read, get and complete the built-in skill resource and prompt (the skills folder holds calculator)."""
    templates = await client.list_resource_templates()
    assert [t.uri_template for t in templates.resource_templates] == ["skill://{skill_name}/SKILL.md"]
    assert (await client.list_resources()).resources == []
    read = await client.read_resource("skill://calculator/SKILL.md")
    (content,) = read.contents
    assert isinstance(content, TextResourceContents)
    assert (content.uri, content.mime_type, content.text) == (
        "skill://calculator/SKILL.md",
        "text/markdown",
        "# Calculator\n",
    )
    prompts = await client.list_prompts()
    assert [(p.name, [a.name for a in p.arguments or ()]) for p in prompts.prompts] == [("use_skill", ["skill_name"])]
    got = await client.get_prompt("use_skill", {"skill_name": "data_analysis"})
    assert isinstance(got.messages[0].content, TextContent)
    assert got.messages[0].content.text.startswith("Follow the instructions of the skill 'data_analysis':\n\n")
    skills = await client.complete(
        PromptReference(type="ref/prompt", name="use_skill"), {"name": "skill_name", "value": "data"}
    )
    assert skills.completion.values == ["data_analysis"]
    template = ResourceTemplateReference(type="ref/resource", uri="skill://{skill_name}/SKILL.md")
    folders = await client.complete(template, {"name": "skill_name", "value": ""})
    assert folders.completion.values == ["calculator"]  # the skills folders' only: get_skill reads no built-in skill
