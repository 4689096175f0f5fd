"""Source metadata for filters: tags typed like filter values, the format name, the digest
that tags change, and the order in which metadata overrides."""

from __future__ import annotations

import pytest

from crag.errors import CragError
from crag.ingest.metadata import (
    file_type,
    parse_tags,
    source_metadata,
    tagged_digest,
    with_metadata,
)
from crag.types import Document


def test_tags_are_typed_and_checked() -> None:
    assert parse_tags(["year=2024", "team=ops", "ok=true", "code='007'", "note=a=b"]) == {
        "year": 2024,
        "team": "ops",
        "ok": True,
        "code": "007",
        "note": "a=b",
    }
    for bad, says in [("year", "KEY=VALUE"), ("title=x", "chunk column"), ("a b=1", "field")]:
        with pytest.raises(CragError, match=says):
            parse_tags([bad])


def test_file_type_is_the_loaders_suffix() -> None:
    assert file_type("/d/Report.PDF") == "pdf"
    assert file_type("squad.json.gz") == "json"
    assert file_type("notes") == ""


def test_tags_change_the_digest_only_when_given() -> None:
    assert tagged_digest("abc", {}) == "abc"
    one = tagged_digest("abc", {"team": "ops"})
    assert one != "abc" and one == tagged_digest("abc", {"team": "ops"})
    assert one != tagged_digest("abc", {"team": "dev"})


def test_tags_over_loader_fields_over_builtins() -> None:
    doc = Document(source="s", doc_id="1", text="t", metadata={"type": "custom", "lang": "en"})
    base = source_metadata("a.jsonl", modified=1.5)
    assert base == {"type": "jsonl", "modified": 1.5}
    (out,) = with_metadata([doc], base, {"lang": "tr"})
    assert out.metadata == {"type": "custom", "modified": 1.5, "lang": "tr"}
