"""Analyzer (casing, diacritics, stemming, safe FTS5 queries) and the catalog's keyword search."""

from __future__ import annotations

from pathlib import Path

import pytest

from crag.errors import IndexCorruptError
from crag.index.analyzer import Analyzer
from crag.index.catalog import Catalog
from crag.types import Chunk

# --------------------------------------------------------------------------- terms


@pytest.mark.parametrize("language", ["english", "turkish", "none"])
def test_turkish_casing_meets(language: str) -> None:
    analyzer = Analyzer(language)
    forms = ["İSTANBUL", "İstanbul", "istanbul", "ıstanbul", "ISTANBUL", "IstanBUL"]
    terms = {tuple(analyzer.terms(f)) for f in forms}
    assert terms == {("istanbul",)}


@pytest.mark.parametrize("language", ["english", "turkish", "none"])
def test_diacritics_folded(language: str) -> None:
    analyzer = Analyzer(language)
    assert analyzer.terms("şehir") == analyzer.terms("sehir") == ["sehir"]
    assert analyzer.terms("Çağ") == analyzer.terms("cag")
    assert analyzer.terms("café") == analyzer.terms("cafe")
    assert analyzer.terms("ÜNİVERSİTE") == analyzer.terms("universite")


def test_apostrophe_splits_suffix() -> None:
    for language in ("english", "turkish"):
        analyzer = Analyzer(language)
        terms = analyzer.terms("İstanbul'da")
        assert analyzer.terms("istanbul")[0] in terms
        assert len(terms) == 2
    # Typographic apostrophe too.
    assert Analyzer("turkish").terms("Ankara’ya")[0] == Analyzer("turkish").terms("ankara")[0]


def test_english_stemming() -> None:
    analyzer = Analyzer("english")
    assert analyzer.terms("running runs run") == ["run", "run", "run"]
    assert analyzer.terms("Connected connections") == ["connect", "connect"]


def test_no_stemming_with_none() -> None:
    analyzer = Analyzer("none")
    assert analyzer.terms("running runs") == ["running", "runs"]
    assert Analyzer("NONE").language == "none"


def test_turkish_stemming() -> None:
    analyzer = Analyzer("turkish")
    assert analyzer.terms("kitaplar") == analyzer.terms("kitap")
    assert analyzer.terms("evler") == analyzer.terms("ev")
    assert analyzer.terms("şehirde") == analyzer.terms("sehir")
    assert analyzer.terms("istanbulda") == analyzer.terms("istanbul")
    # English stemming leaves Turkish suffixes alone.
    assert Analyzer("english").terms("kitaplar") != Analyzer("english").terms("kitap")


@pytest.mark.parametrize(
    ("plural", "singular"), [("kızlar", "kız"), ("yıldızlar", "yıldız")], ids=["kiz", "yildiz"]
)
def test_turkish_stemming_dotless_i(plural: str, singular: str) -> None:
    analyzer = Analyzer("turkish")
    assert analyzer.terms(plural) == analyzer.terms(singular)


def test_terms_tokenise_on_non_word_characters() -> None:
    analyzer = Analyzer("none")
    assert analyzer.terms("Hello, world! (x-y) 42") == ["hello", "world", "x", "y", "42"]
    assert analyzer.terms("  ...!?  ") == []
    assert analyzer.index_text("Hello, WORLD") == "hello world"


def test_compatibility_forms_normalised() -> None:
    analyzer = Analyzer("none")
    # NFKC: full-width letters and ligatures meet their plain forms.
    assert analyzer.terms("ＡＢＣ") == ["abc"]
    assert analyzer.terms("ﬁle") == ["file"]


# --------------------------------------------------------------------------- match_query


def test_match_query_quotes_and_dedupes() -> None:
    analyzer = Analyzer("english")
    assert analyzer.match_query("running runs walk") == '"run" OR "walk"'
    assert analyzer.match_query("?!  ...") is None
    assert analyzer.match_query("") is None


@pytest.mark.parametrize(
    "query",
    [
        "NEAR(a b)",
        '"',
        '"unbalanced',
        "*",
        "prefix*",
        "-x",
        "col:val",
        "a AND OR NOT b",
        "^start",
        "(",
        ")",
        "{a b}",
        "a + b",
        "terms:foo",
        "rowid:1",
        "NOT",
        "AND",
        "OR",
    ],
)
def test_match_query_output_is_only_quoted_terms(query: str) -> None:
    expr = Analyzer("english").match_query(query)
    if expr is None:
        return
    for part in expr.split(" OR "):
        assert part.startswith('"')
        assert part.endswith('"')
        assert '"' not in part[1:-1]


# --------------------------------------------------------------------------- catalog


def _chunk(cid: str, text: str, source: str = "/data/a.txt", title: str = "") -> Chunk:
    return Chunk(
        id=cid,
        text=text,
        source=source,
        doc_id="text",
        position=0,
        start=0,
        end=len(text),
        title=title,
    )


_CHUNKS = [
    _chunk("c-istanbul", "İstanbul'da yağmur yağıyor ve vapurlar Boğaz'ı geçiyor."),
    _chunk("c-ankara", "Ankara başkenttir; Meclis ve bakanlıklar oradadır."),
    _chunk("c-izmir", "İzmir'in kordonunda akşamları deniz kenarında yürüyüş yapılır."),
    _chunk("c-kitap", "Kütüphanedeki eski kitaplar özenle korunuyor."),
    _chunk("c-sehir", "Bu şehirlerin nüfusu her yıl artıyor."),
]


@pytest.fixture()
def catalog(tmp_path: Path):
    cat = Catalog(tmp_path / "c.sqlite3", Analyzer("turkish"))
    cat.replace_source("/data/a.txt", "sha-a", _CHUNKS)
    yield cat
    cat.close()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("ISTANBUL", "c-istanbul"),
        ("ıstanbul yagmur", "c-istanbul"),
        ("İSTANBUL'DA YAĞMUR", "c-istanbul"),
        ("istanbulda", "c-istanbul"),
        ("izmir", "c-izmir"),
        ("ankara", "c-ankara"),
        ("KİTAP", "c-kitap"),
        ("kitaplarda", "c-kitap"),
        ("sehir nufusu", "c-sehir"),
        ("şehirde", "c-sehir"),
    ],
)
def test_keyword_search_turkish(catalog: Catalog, query: str, expected: str) -> None:
    hits = catalog.keyword_search(query, limit=5)
    assert hits, query
    assert hits[0][0] == expected
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True)
    assert all(s > 0 for s in scores)  # bm25 is negated: higher is better


def test_keyword_search_more_matching_terms_rank_higher(catalog: Catalog) -> None:
    hits = catalog.keyword_search("ankara izmir deniz kordon", limit=5)
    assert [cid for cid, _ in hits][:2] == ["c-izmir", "c-ankara"]


def test_keyword_search_title_is_indexed(tmp_path: Path) -> None:
    cat = Catalog(tmp_path / "t.sqlite3", Analyzer("english"))
    cat.replace_source("/s", "sha", [_chunk("t1", "body only", source="/s", title="Zanzibar")])
    assert [cid for cid, _ in cat.keyword_search("zanzibar", 5)] == ["t1"]
    cat.close()


def test_keyword_search_limit(catalog: Catalog) -> None:
    hits = catalog.keyword_search("istanbul ankara izmir kitap şehir", limit=2)
    assert len(hits) == 2


def test_keyword_search_punctuation_only(catalog: Catalog) -> None:
    assert catalog.keyword_search("?!., ;:-", limit=5) == []
    assert catalog.keyword_search("", limit=5) == []


def test_keyword_search_no_match(catalog: Catalog) -> None:
    assert catalog.keyword_search("zeppelin", limit=5) == []


@pytest.mark.parametrize(
    "query",
    [
        "NEAR(istanbul ankara)",
        'istanbul"',
        '"',
        '"""',
        "*",
        "istan*",
        "-ankara",
        "terms:istanbul",
        "col:val",
        "istanbul AND OR NOT",
        "^istanbul",
        "(istanbul",
        "{terms}: ankara",
        "istanbul + ankara",
        "NOT",
        "OR",
        "AND",
        "'; DROP TABLE chunks; --",
    ],
)
def test_keyword_search_fts_syntax_is_inert(catalog: Catalog, query: str) -> None:
    hits = catalog.keyword_search(query, limit=5)  # must not raise sqlite3.OperationalError
    ids = {cid for cid, _ in hits}
    assert ids <= {c.id for c in _CHUNKS}
    assert catalog.count() == len(_CHUNKS)


def test_keyword_search_weird_syntax_still_finds_terms(catalog: Catalog) -> None:
    hits = catalog.keyword_search('NEAR(istanbul "ankara")', limit=5)
    assert {cid for cid, _ in hits} == {"c-istanbul", "c-ankara"}
    hits = catalog.keyword_search("-ankara", limit=5)
    assert [cid for cid, _ in hits] == ["c-ankara"]  # "-" is not FTS5 NOT here
    hits = catalog.keyword_search("terms:izmir", limit=5)
    assert hits[0][0] == "c-izmir"


def test_replace_source_drops_stale_chunks_from_fts(catalog: Catalog) -> None:
    keep = _CHUNKS[:1]
    catalog.replace_source("/data/a.txt", "sha-b", keep)
    assert catalog.keyword_search("ankara", limit=5) == []
    assert [cid for cid, _ in catalog.keyword_search("istanbul", 5)] == ["c-istanbul"]
    assert catalog.count() == 1
    assert catalog.chunk_ids("/data/a.txt") == {"c-istanbul"}


def test_catalog_refuses_other_language(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    Catalog(path, Analyzer("turkish")).close()
    with pytest.raises(IndexCorruptError, match="turkish"):
        Catalog(path, Analyzer("english"))
    # Same language (any case) reopens fine.
    again = Catalog(path, Analyzer("Turkish"))
    assert again.get_meta("keyword_language") == "turkish"
    again.close()


def test_catalog_refuses_non_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    path.write_bytes(b"this is not a sqlite database" * 100)
    with pytest.raises(IndexCorruptError):
        Catalog(path, Analyzer("english"))
