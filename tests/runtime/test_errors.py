"""What an error shows of a value (``errors.shown``): whole up to the limit, clipped beyond."""

from __future__ import annotations

from toolproof.runtime.errors import MAX_SHOWN_CHARS, shown


def test_shown_keeps_a_value_up_to_the_limit_and_clips_a_longer_one() -> None:
    assert shown("a" * MAX_SHOWN_CHARS) == "a" * MAX_SHOWN_CHARS
    assert shown("a" * (MAX_SHOWN_CHARS + 1)) == "a" * (MAX_SHOWN_CHARS - 3) + "..."
