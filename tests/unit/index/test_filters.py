"""Metadata filters: parsing and typing, and SQLite and Chroma agreeing with the reference
semantics (`Filter.matches`) on the same rows — the conformance a new backend must pass too."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from crag.index.filters import (
    Condition,
    FilterError,
    chroma_where,
    parse_filter,
    parse_value,
    sqlite_where,
)


def test_values_are_typed() -> None:
    assert parse_value("2024") == 2024
    assert parse_value("1.5") == 1.5
    assert parse_value("true") is True
    assert parse_value("'2024'") == "2024"
    assert parse_value('"a b"') == "a b"
    assert parse_value("pdf") == "pdf"
    assert parse_value("2024-06-01") == 1717200000.0  # UTC midnight, seconds since the epoch
    assert parse_value("2024-06-01T12:00Z") == 1717200000.0 + 12 * 3600


def test_parse_conditions() -> None:
    f = parse_filter(["type=pdf", "year>=2024", "lang in en, tr", "path != /x.md"])
    assert f.conditions == (
        Condition("type", "=", "pdf"),
        Condition("year", ">=", 2024),
        Condition("lang", "in", ("en", "tr")),
        Condition("path", "!=", "/x.md"),
    )
    assert f.conditions[3].column == "source"
    assert not parse_filter([]) and not parse_filter(None)


@pytest.mark.parametrize(
    ("expr", "says"),
    [
        ("type", "expected FIELD OP VALUE"),
        ("title>=abc", "compares numbers or dates"),
        ("a b=3", "expected FIELD OP VALUE"),
        ("x in ", "comma-separated"),
        ("bad$name=1", "field"),
        ("when>=2024-13-45", "not a valid date"),
    ],
)
def test_bad_filters_name_the_expression(expr: str, says: str) -> None:
    with pytest.raises(FilterError, match=says):
        parse_filter([expr])


ROWS = [
    ("a", "/d/r1.pdf", "Report", {"type": "pdf", "year": 2024, "lang": "en", "flag": True}),
    ("b", "/d/r2.docx", "Memo", {"type": "docx", "year": "2023", "lang": "tr"}),
    ("c", "/d/n.md", "Notes", {"type": "md", "year": 2025.0, "modified": 1717200000.0}),
    ("d", "/d/x.txt", "2024", {"lang": "en", "year": "twenty"}),
]
EXPRS = [
    ["type=pdf"],
    ["type!=pdf"],
    ["year>=2024"],
    ["year=2023"],
    ["year in 2023,2025"],
    ["lang in en,tr", "year<2025"],
    ["title=2024"],
    ["path=/d/n.md"],
    ["flag=true"],
    ["modified>=2024-06-01"],
    ["modified<2024-06-01"],
    ["lang!=en"],
]


def _expected(exprs: list[str]) -> set[str]:
    flt = parse_filter(exprs)
    return {
        cid for cid, src, title, meta in ROWS if flt.matches({"source": src, "title": title}, meta)
    }


@pytest.mark.parametrize("exprs", EXPRS, ids=" ".join)
def test_sqlite_matches_reference(exprs: list[str]) -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE chunks (id TEXT, source TEXT, title TEXT, url TEXT, metadata TEXT)")
    for cid, src, title, meta in ROWS:
        db.execute("INSERT INTO chunks VALUES (?,?,?,'',?)", (cid, src, title, json.dumps(meta)))
    sql, args = sqlite_where(parse_filter(exprs))
    got = {r[0] for r in db.execute(f"SELECT id FROM chunks WHERE {sql}", args)}
    assert got == _expected(exprs)


@pytest.fixture(scope="module")
def chroma_rows():
    import chromadb
    from chromadb.config import Settings

    from crag.index.vector import _metadata
    from crag.types import Chunk

    client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    col = client.get_or_create_collection("filters-test", embedding_function=None)
    chunks = [
        Chunk(id=cid, text=cid, source=src, doc_id="u", position=0, start=0, end=1, title=title,
              metadata=meta)
        for cid, src, title, meta in ROWS
    ]  # fmt: skip
    col.upsert(
        ids=[c.id for c in chunks],
        embeddings=np.eye(4, dtype=np.float32),
        metadatas=[_metadata(c) for c in chunks],
    )
    yield col
    client.delete_collection("filters-test")


@pytest.mark.parametrize("exprs", EXPRS, ids=" ".join)
def test_chroma_matches_reference(chroma_rows, exprs: list[str]) -> None:
    got = set(chroma_rows.get(where=chroma_where(parse_filter(exprs)), include=[])["ids"])
    assert got == _expected(exprs)
