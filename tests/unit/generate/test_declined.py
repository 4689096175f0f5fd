from crag.generate.citations import Source
from crag.generate.declined import declined, without_marker
from crag.types import Chunk

_TEXT = "Paris is the capital of France."
_CHUNK = Chunk(id="a", text=_TEXT, source="a.txt", doc_id="a", position=0, start=0, end=len(_TEXT))
SOURCES = [Source(n=1, chunk=_CHUNK, text=_TEXT)]


def test_the_bare_marker_in_any_spelling_is_a_decline() -> None:
    for reply in ("NOT_FOUND", "NOT_FOUND.", "not found", " [NOT FOUND] ", "", "[1]"):
        assert declined(reply, SOURCES), reply


def test_a_marker_beside_words_without_a_valid_citation_is_a_decline() -> None:
    assert declined("NOT_FOUND. The sources do not say.", SOURCES)
    assert declined("Paris [7]. NOT_FOUND", SOURCES)  # [7] is no source


def test_an_answer_with_a_stray_marker_is_an_answer_without_it() -> None:
    reply = "Paris [1]. NOT_FOUND"
    assert not declined(reply, SOURCES)
    assert without_marker(reply) == "Paris [1]."
    assert not declined("Paris [1].", SOURCES)
