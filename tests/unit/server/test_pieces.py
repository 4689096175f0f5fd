"""The chat stream's deltas (crag.server.tokens): the checked answer in pieces that join back
to it exactly."""

from __future__ import annotations

from crag.server.tokens import pieces


def test_pieces_join_back_to_the_text() -> None:
    text = "The waggle dance [1] shows\n\nwhere flowers are.\n\nSources:\n[1] bees.md "
    parts = pieces(text)
    assert "".join(parts) == text and len(parts) == 3
    assert pieces("") == [] and pieces("one") == ["one"]
