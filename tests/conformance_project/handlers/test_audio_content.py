"""test_audio_content: an audio block."""

from __future__ import annotations

from tests.conformance_project.generated import test_audio_content as contract
from tests.conformance_project.handlers._fixtures import AUDIO
from toolproof.runtime import ToolContext


def handle(args: contract.TestAudioContentInput, ctx: ToolContext) -> contract.TestAudioContentOutput:
    """A WAV audio block after the text."""
    ctx.attach({"type": "audio", "data": AUDIO, "mimeType": "audio/wav"})
    return {"text": "An audio clip follows."}
