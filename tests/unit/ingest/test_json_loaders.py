"""Loaders of JSON question sets and records: SQuAD (v1.1, v2.0, gzipped, with a BOM) and
JSONL, every malformed case refused or warned about by name.

All inputs are small files written by the tests into `tmp_path`.
"""

from __future__ import annotations

import codecs
import gzip
import json
from pathlib import Path

import pytest
from tests.support.files import write as _write

from crag.errors import LoaderError
from crag.ingest.loaders import load_file


def _squad(version: str) -> dict:
    qa_v1 = {
        "id": "q1",
        "question": "Where is the strait?",
        "answers": [{"text": "Istanbul", "answer_start": 40}],
    }
    qas_second = [
        {
            "id": "q2",
            "question": "How many continents?",
            "answers": [{"text": "two", "answer_start": 10}],
        }
    ]
    if version == "v2.0":
        qas_second.append(
            {
                "id": "q3",
                "question": "Who built the moon?",
                "answers": [],
                "plausible_answers": [{"text": "nobody", "answer_start": 0}],
                "is_impossible": True,
            }
        )
    return {
        "version": version,
        "data": [
            {
                "title": "Bosphorus_Strait",
                "paragraphs": [
                    {
                        "context": "The Bosphorus strait runs through Istanbul.",
                        "qas": [qa_v1],
                    },
                    {
                        "context": "It joins two continents, Europe and Asia.",
                        "qas": qas_second,
                    },
                ],
            },
            {
                "title": "Black_Sea",
                "paragraphs": [
                    {"context": "The Black Sea lies north of Turkey.", "qas": []},
                ],
            },
        ],
    }


# --------------------------------------------------------------------------- SQuAD JSON


@pytest.mark.parametrize("version", ["1.1", "v2.0"])
def test_squad_one_document_per_paragraph(tmp_path: Path, version: str) -> None:
    path = _write(tmp_path / "squad.json", json.dumps(_squad(version)))
    result = load_file(path)
    docs = result.documents
    assert [d.doc_id for d in docs] == ["Bosphorus Strait#0", "Bosphorus Strait#1", "Black Sea#0"]
    assert [d.title for d in docs] == ["Bosphorus Strait", "Bosphorus Strait", "Black Sea"]
    assert docs[0].text == "The Bosphorus strait runs through Istanbul."
    assert docs[1].text == "It joins two continents, Europe and Asia."
    assert docs[2].metadata == {"article": 1, "paragraph": 0}
    assert all(d.source == str(path) for d in docs)
    assert result.warnings == []


def test_squad_malformed_json(tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.json", '{"data": [\n  {"title": "x",\n  oops}\n]}')
    with pytest.raises(LoaderError) as info:
        load_file(path)
    message = str(info.value)
    assert str(path) in message
    assert "malformed JSON at line 3" in message
    assert info.value.path == str(path)


def test_squad_object_without_data(tmp_path: Path) -> None:
    path = _write(tmp_path / "other.json", json.dumps({"version": "1.1", "articles": []}))
    with pytest.raises(LoaderError, match="not SQuAD"):
        load_file(path)


def test_squad_list_at_top_level_is_not_squad(tmp_path: Path) -> None:
    path = _write(tmp_path / "list.json", json.dumps([{"title": "x"}]))
    with pytest.raises(LoaderError, match="not SQuAD"):
        load_file(path)


def test_squad_paragraph_without_context_is_warned_and_skipped(tmp_path: Path) -> None:
    data = {
        "data": [
            {"title": "A", "paragraphs": [{"context": "  "}, {"context": "Kept text."}]},
            {"title": "B"},
        ]
    }
    path = _write(tmp_path / "partial.json", json.dumps(data))
    result = load_file(path)
    assert [d.doc_id for d in result.documents] == ["A#1"]
    assert any("paragraphs[0] has no context" in w for w in result.warnings)
    assert any("data[1] has no paragraphs list" in w for w in result.warnings)


def test_squad_without_any_context_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "hollow.json", json.dumps({"data": [{"paragraphs": []}]}))
    with pytest.raises(LoaderError, match="no paragraph with a context"):
        load_file(path)


def test_squad_gzipped(tmp_path: Path) -> None:
    raw = json.dumps(_squad("v2.0")).encode("utf-8")
    path = _write(tmp_path / "squad.json.gz", gzip.compress(raw))
    docs = load_file(path).documents
    assert [d.doc_id for d in docs] == ["Bosphorus Strait#0", "Bosphorus Strait#1", "Black Sea#0"]


def test_corrupt_gzip(tmp_path: Path) -> None:
    path = _write(tmp_path / "squad.json.gz", b"this is not gzip data at all")
    with pytest.raises(LoaderError, match="corrupt gzip"):
        load_file(path)


def test_truncated_gzip(tmp_path: Path) -> None:
    packed = gzip.compress(json.dumps(_squad("1.1")).encode())
    path = _write(tmp_path / "squad.json.gz", packed[: len(packed) // 2])
    with pytest.raises(LoaderError, match="truncated gzip"):
        load_file(path)


def test_utf8_bom_squad(tmp_path: Path) -> None:
    raw = codecs.BOM_UTF8 + json.dumps(_squad("1.1")).encode()
    path = _write(tmp_path / "bom.json", raw)
    assert len(load_file(path).documents) == 3


# --------------------------------------------------------------------------- JSONL


def test_jsonl_records(tmp_path: Path) -> None:
    lines = [
        {
            "id": "r1",
            "text": "First record text.",
            "title": "One",
            "url": "https://example.org/1",
            "lang": "en",
            "year": 2024,
            "score": 0.5,
            "public": True,
            "tags": ["a", "b"],
            "extra": {"nested": 1},
            "missing": None,
        },
        {"id": 7, "text": "Second record text."},
        {"text": "Third record has no id."},
    ]
    path = _write(tmp_path / "recs.jsonl", "\n".join(json.dumps(r) for r in lines) + "\n")
    result = load_file(path)
    docs = result.documents
    assert [d.doc_id for d in docs] == ["r1", "7", "line3"]
    first = docs[0]
    assert first.text == "First record text."
    assert first.title == "One"
    assert first.url == "https://example.org/1"
    assert first.metadata == {"lang": "en", "year": 2024, "score": 0.5, "public": True}
    assert docs[1].title == ""
    assert docs[1].url == ""
    assert result.warnings == []


def test_ndjson_suffix(tmp_path: Path) -> None:
    path = _write(tmp_path / "recs.ndjson", '{"id": "a", "text": "alpha"}\n')
    assert [d.doc_id for d in load_file(path).documents] == ["a"]


def test_jsonl_bad_line_is_skipped_with_warning(tmp_path: Path) -> None:
    lines = [
        '{"id": "a", "text": "alpha"}',
        "",
        '{"id": "b", "text": "beta"',
        '{"id": "c", "text": "gamma"}',
    ]
    text = "\n".join(lines) + "\n"
    path = _write(tmp_path / "mixed.jsonl", text)
    result = load_file(path)
    assert [d.doc_id for d in result.documents] == ["a", "c"]
    assert len(result.warnings) == 1
    assert "line 3" in result.warnings[0]
    assert "malformed JSON" in result.warnings[0]
    assert str(path) in result.warnings[0]


def test_jsonl_non_object_and_missing_text_are_warned(tmp_path: Path) -> None:
    lines = [
        "[1, 2]",
        '{"id": "x", "text": ""}',
        '{"id": "y", "body": "no"}',
        '{"id": "z", "text": "ok"}',
    ]
    text = "\n".join(lines) + "\n"
    path = _write(tmp_path / "odd.jsonl", text)
    result = load_file(path)
    assert [d.doc_id for d in result.documents] == ["z"]
    assert any("line 1 is not a JSON object" in w for w in result.warnings)
    assert any('line 2 has no "text"' in w for w in result.warnings)
    assert any('line 3 has no "text"' in w for w in result.warnings)


def test_jsonl_all_lines_bad(tmp_path: Path) -> None:
    path = _write(tmp_path / "broken.jsonl", "{not json\n[1]\n{also: bad}\n")
    with pytest.raises(LoaderError) as info:
        load_file(path)
    message = str(info.value)
    assert str(path) in message
    assert "no valid JSONL record" in message
    assert "line 1" in message


def test_jsonl_duplicate_ids_warned(tmp_path: Path) -> None:
    text = (
        '{"id": "same", "text": "first"}\n'
        '{"id": "same", "text": "second"}\n'
        '{"id": "other", "text": "third"}\n'
    )
    path = _write(tmp_path / "dups.jsonl", text)
    result = load_file(path)
    assert [(d.doc_id, d.text) for d in result.documents] == [("same", "first"), ("other", "third")]
    assert len(result.warnings) == 1
    assert "line 2" in result.warnings[0]
    assert "'same'" in result.warnings[0]


def test_jsonl_escaped_line_separator_is_fine(tmp_path: Path) -> None:
    records = [{"id": "a", "text": "one\u2028two"}, {"id": "b", "text": "plain"}]
    path = _write(tmp_path / "esc.jsonl", "\n".join(json.dumps(r) for r in records))
    docs = load_file(path).documents
    assert [(d.doc_id, d.text) for d in docs] == [("a", "one\u2028two"), ("b", "plain")]


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"], ids=["LS", "PS", "NEL"])
def test_jsonl_raw_unicode_line_separator_inside_string(tmp_path: Path, separator: str) -> None:
    records = [{"id": "a", "text": f"one{separator}two"}, {"id": "b", "text": "plain"}]
    lines = "\n".join(json.dumps(r, ensure_ascii=False) for r in records)
    path = _write(tmp_path / "raw.jsonl", lines)
    result = load_file(path)
    assert [(d.doc_id, d.text) for d in result.documents] == [
        ("a", f"one{separator}two"),
        ("b", "plain"),
    ]
    assert result.warnings == []


@pytest.mark.parametrize("name", ["deep.json", "deep.jsonl"])
def test_deeply_nested_json_is_loader_error(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path / name, "[" * 100_000 + "]" * 100_000)
    with pytest.raises(LoaderError):
        load_file(path)
