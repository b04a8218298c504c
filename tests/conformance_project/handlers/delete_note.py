"""delete_note: a destructive tool that asks the user to confirm before it deletes."""

from __future__ import annotations

from tests.conformance_project.generated import delete_note as contract
from tests.conformance_project.host import Notes
from toolproof.runtime import ToolContext


def handle(args: contract.DeleteNoteInput, ctx: ToolContext) -> contract.DeleteNoteOutput:
    """Check the note exists (reads only), ask, and delete it only when the user confirms."""
    title = args["title"]
    folder = ctx.need(Notes).folder
    note = folder / f"{title}.md"
    if note.is_symlink() or not note.is_file():
        raise contract.note_not_found(title=title)
    answer = ctx.ask("confirm_delete")  # the handler runs again from the top with the answer
    if answer.accepted:
        note.unlink()
        summary = f"Deleted note '{title}'."
    else:
        summary = f"Kept note '{title}': the user said no."
    left = sorted(path.name.removesuffix(".md") for path in folder.glob("*.md"))
    return {"title": title, "deleted": answer.accepted, "notes": left, "summary": summary}
