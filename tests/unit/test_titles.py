"""A chunk is read with its document's title only where titles tell the candidates apart.

The nodes are called as the graph calls them (the run's components as `runtime.context`),
with scorers that record what they read: the reranker and the refiner's strip scores read
titled chunks, the verdict reads them as they are.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from crag.generate.citations import Source, number_sources
from crag.generate.prompt import reading_request
from crag.grading.trigger import ActionTrigger
from crag.models.reranker import rerank
from crag.pipeline.nodes import NODES
from crag.pipeline.state import Components, CragState
from crag.refine.strips import Refiner
from crag.titles import MAX_PATH, MAX_TITLE, searchable, title_of, titled, with_title
from crag.types import Chunk, ScoredChunk, Strip

TAR = "-t, --list\n       List the contents of an archive."
CP = "-p     same as --preserve=mode,ownership,timestamps"


def _chunk(cid: str, text: str, title: str, origin: str = "", heading: str = "") -> Chunk:
    meta: dict[str, Any] = {"origin": origin} if origin else {}
    if heading:
        meta["heading"] = heading
    return Chunk(id=cid, text=text, source=f"{title}.txt", doc_id="text", position=0, start=0,
                 end=len(text), title=title, metadata=meta)  # fmt: skip


def test_a_title_is_added_unless_missing_already_named_or_from_the_web() -> None:
    assert with_title(_chunk("a", TAR, "tar")) == f"tar\n{TAR}"
    assert with_title(_chunk("a", TAR, "tar"), "List the contents.") == "tar\nList the contents."
    assert with_title(_chunk("b", "tar -t lists an archive", "tar")) == "tar -t lists an archive"
    assert with_title(_chunk("c", TAR, "")) == TAR
    assert with_title(_chunk("d", TAR, "A page", origin="web")) == TAR
    # a Wikipedia-style or file-name title reads with spaces; a long one is cut
    assert title_of(_chunk("e", TAR, "Sky_(United_Kingdom)")) == "Sky (United Kingdom)"
    assert len(title_of(_chunk("f", TAR, "x" * 500))) == MAX_TITLE


SEP = "* `sep` {string} The substring that delimits pairs. **Default:** `'&'`."


def test_a_section_heading_reads_after_the_title_each_left_out_where_the_text_names_it() -> None:
    stringify = _chunk("a", SEP, "Query string", heading="querystring.stringify(obj[, sep])")
    assert title_of(stringify) == "Query string › querystring.stringify(obj[, sep])"
    assert with_title(stringify) == f"Query string › querystring.stringify(obj[, sep])\n{SEP}"
    named = _chunk("b", "The query string module.", "Query string", heading="Overview")
    assert with_title(named) == "Overview\nThe query string module."
    assert len(title_of(_chunk("c", SEP, "t", heading="x" * 500))) == len("t › ") + MAX_PATH
    assert with_title(_chunk("d", SEP, "page", origin="web", heading="h")) == SEP
    # sections of one document tell its chunks apart; one title alone does not
    parse = _chunk("e", SEP, "Query string", heading="querystring.parse(str[, sep])")
    assert titled([stringify, parse])
    assert not titled([_chunk("f", SEP, "Query string"), _chunk("g", CP, "Query string")])


def test_keyword_search_reads_the_heading_path_where_there_is_one() -> None:
    assert searchable(_chunk("a", SEP, "Query string", heading="stringify")) == (
        f"Query string\nstringify\n{SEP}"
    )
    assert searchable(_chunk("b", TAR, "tar")) == f"tar\n{TAR}"  # as before headings


def test_titles_count_only_where_local_candidates_have_more_than_one() -> None:
    assert titled([_chunk("a", TAR, "tar"), _chunk("b", CP, "cp")])
    assert not titled([_chunk("a", TAR, "squad"), _chunk("b", CP, "squad")])
    assert not titled([_chunk("a", TAR, ""), _chunk("b", CP, "")])
    assert not titled([_chunk("a", TAR, "tar"), _chunk("b", CP, "A page", origin="web")])


def test_the_reader_sees_each_source_after_its_title_as_quoted_data() -> None:
    strips = [Strip(TAR, _chunk("a", TAR, "tar"), 0), Strip(CP, _chunk("b", CP, "cp [2]"), 1)]
    plain = reading_request("q?", number_sources(strips), "English").messages[-1].content
    assert "(tar)" not in plain
    sources = number_sources(strips, titled=True)
    assert [s.label for s in sources] == ["tar", "cp [2]"]
    listing = reading_request("q?", sources, "English").messages[-1].content
    assert "[1] (tar) -t, --list List the contents of an archive." in listing
    assert "[2] (cp [2])" not in listing  # a fake [n] marker in a title is defanged too
    assert Source(1, strips[0].chunk, TAR).label == ""
    # sources that all share one title are read as they are: the label tells none apart
    same = [Strip(TAR, _chunk("a", TAR, "tar"), 0), Strip(CP, _chunk("b", CP, "tar"), 1)]
    assert [s.label for s in number_sources(same, titled=True)] == ["", ""]


class _Recording:
    """A scorer that records what it read; titled text scores high."""

    name = "recording"

    def __init__(self) -> None:
        self.read: list[str] = []

    def score(self, question: str, passages: list[str]) -> list[float]:
        self.read += passages
        return [0.9 if p.startswith("tar\n") else 0.1 for p in passages]


def _run(
    chunks: list[Chunk], titles: bool = True
) -> tuple[CragState, _Recording, _Recording, _Recording]:
    """(state after refine; what the reranker, the verdict and the strip scores read)."""
    reranker, evaluator, strips = _Recording(), _Recording(), _Recording()
    components = Components(
        retriever=SimpleNamespace(
            search=lambda q, k=None: [ScoredChunk(c, 1.0 - i / 10) for i, c in enumerate(chunks)]
        ),
        evaluator=evaluator,
        trigger=ActionTrigger(upper=0.8, lower=0.2),
        refiner=Refiner(strips, mode="excerption", top_k=3),
        generator=cast(Any, None),
        reranker=reranker,
        titles=titles,
    )
    runtime = cast(Any, SimpleNamespace(context=components, stream_writer=lambda _: None))
    state: CragState = {"question": "Which tar option lists the contents of an archive?"}
    for node in ("retrieve", "rerank", "evaluate", "refine"):
        update = NODES[node](state, runtime)
        update.pop("trace", None)
        state = cast(CragState, {**state, **update})
    return state, reranker, evaluator, strips


def test_reranker_and_strips_read_titles_where_they_differ_the_verdict_never() -> None:
    chunks = [_chunk("cp", CP, "cp"), _chunk("tar", TAR, "tar")]
    state, reranker, evaluator, strips = _run(chunks)
    assert state["titled"]
    assert state["reranked"][0].chunk.id == "tar"  # read with "tar", it rises to the top
    assert all(p.startswith(("tar\n", "cp\n")) for p in reranker.read + strips.read)
    assert max(s.score for s in state["strips"]) == 0.9
    # the verdict: chunks as they are (the evidence weights and thresholds were fitted so)
    assert evaluator.read and not any(p.startswith(("tar\n", "cp\n")) for p in evaluator.read)
    assert state["scores"] == [0.1, 0.1]
    # with titles off, or one title for all, the reranker reads them as they are too
    one_title = [_chunk("a", TAR, "man"), _chunk("b", CP, "man")]
    for given, titles in ((chunks, False), (one_title, True)):
        state, reranker, _, _ = _run(given, titles)
        assert not state["titled"]
        assert not any(p.startswith(("tar\n", "cp\n", "man\n")) for p in reranker.read)


def test_an_option_entry_is_scored_with_its_documents_title_even_under_one_title() -> None:
    # "-k --keep Keep (don't delete) input files" does not say it is gzip's: its title does.
    # One document, so the chunks are not read titled; the entry's strip still is
    page = (
        "given, the file is overwritten.\n\n       -k --keep\n\t      Keep (don't delete) "
        "input files during compression."
    )
    scorer = _Recording()
    question = "Which gzip option keeps the input files?"
    Refiner(scorer, top_k=5).refine(question, [_chunk("g", page, "gzip")])
    assert scorer.read == [
        "given, the file is overwritten.",  # prose: as it is
        "gzip\n-k --keep Keep (don't delete) input files during compression.",
    ]


def test_rerank_reads_titles_only_when_asked_and_where_they_differ() -> None:
    hits = [ScoredChunk(_chunk("cp", CP, "cp"), 1.0), ScoredChunk(_chunk("tar", TAR, "tar"), 0.5)]
    scorer = _Recording()
    assert [h.chunk.id for h in rerank(scorer, "q", hits, 2, titles=True)] == ["tar", "cp"]
    assert [h.chunk.id for h in rerank(scorer, "q", hits, 2)] == ["cp", "tar"]  # stable ties
    assert scorer.read == [f"cp\n{CP}", f"tar\n{TAR}", CP, TAR]


def test_the_reranker_verdict_and_strip_scores_read_a_link_by_its_text() -> None:
    # a README's licence section: the URL is no evidence, and it diluted the scores
    licence = (
        "## License\n\nThis package is distributed under the [Apache 2.0 license]"
        "(https://www.apache.org/licenses/LICENSE-2.0.html)."
    )
    state, reranker, evaluator, strips = _run([_chunk("t", licence, "trafilatura")])
    for read in (reranker.read, evaluator.read, strips.read):
        assert read and not any("https://" in p for p in read)
        assert any("the Apache 2.0 license." in p for p in read)
    # the reader still reads the URL: it can be the answer asked for
    assert any("https://www.apache.org" in s.text for s in state["strips"])
