"""A manual's sections read with their headings, with the real cross-encoder and 1.5B reader.

In a manual, one function's option list looks like the next one's: "* `encoding` … Default:
`'latin1'`" is `querystring.stringify()`'s only by the heading above it. One Markdown page
written here lists the same options for `parse` and `stringify` with different defaults, each
section long enough that its option list is a chunk of its own; crag must answer stringify's
default and cite the page. The heading is stored with the chunk (crag.headings) and
read with it by the reranker and the reader (crag.titles), though the page has one title.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.collections import ingested

from crag import build_pipeline
from crag.titles import with_title

pytestmark = pytest.mark.slow

_SECTION = """## `querystring.{name}({args})`

<!-- YAML
added: v0.1.25
-->

The `querystring.{name}()` method {does}. It is used by the HTTP server to read the query
of each request, and it is generally not expected to be called with malformed input; a
malformed pair is skipped rather than reported, so callers that need to know should check
the result themselves before they rely on it.

* `{first}` {{string}} {first_what}
* `sep` {{string}} The substring used to delimit key and value pairs. **Default:** `'&'`.
* `encoding` {{string}} The character encoding of the percent-encoded characters.
  **Default:** `'{encoding}'`.
"""
PAGE = "# Query string\n\nThe `node:querystring` module parses and formats URL query strings.\n\n"
PAGE += _SECTION.format(
    name="parse", args="str[, sep]", does="parses a URL query string into key and value pairs",
    first="str", first_what="The URL query string to parse.", encoding="utf8",
) + "\n" + _SECTION.format(
    name="stringify", args="obj[, sep]", does="produces a URL query string from an object",
    first="obj", first_what="The object to serialize.", encoding="latin1",
)  # fmt: skip
QUESTION = "What is the default encoding of querystring.stringify?"


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory, embedder):
    folder = tmp_path_factory.mktemp("manual")
    (folder / "querystring.md").write_text(PAGE, encoding="utf-8")
    with ingested(folder, "manual", embedder) as built:
        yield built


def test_the_option_is_read_under_its_section_and_answered(manual, generator_llm) -> None:
    settings, index = manual
    chunks = index.catalog.chunks_of(index.catalog.sources()[0].source)
    option = next(c for c in chunks if "latin1" in c.text)
    assert "stringify" not in option.text and "YAML" not in option.text
    assert option.metadata["heading"] == "querystring.stringify(obj[, sep])"
    pipeline = build_pipeline(settings, index)
    pipeline.components.generator.llm.llm = generator_llm
    reranker = pipeline.components.reranker
    assert reranker is not None
    plain, headed = reranker.score(QUESTION, [option.text, with_title(option)]) or [0.0, 0.0]
    assert headed > plain  # the heading ties the option list to the function asked about

    answer = pipeline.ask(QUESTION)
    assert any("document's title" in n for n in answer.trace.notes)
    assert option.id in [h.id for h in answer.trace.reranked[:2]]  # under its section's intro
    assert not answer.refused, answer.text
    assert "latin1" in answer.text and "utf8" not in answer.text, answer.text
    assert answer.citations and Path(answer.citations[0].source).name == "querystring.md"
