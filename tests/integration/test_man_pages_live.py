"""A folder of installed man pages (`*.1.gz`), ingested as they are and asked, with the real
embedder, cross-encoder and 1.5B reader (`crag.ingest.roff`)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from tests.support.collections import ingested

from crag import build_pipeline

pytestmark = pytest.mark.slow

PAGE = r""".\" Made up for this test, written as man(7) pages are.
.TH MOORING 1 "2026-11-27" "harbour 2.1" "User Commands"
.SH NAME
mooring \- assign berths to the boats calling at the harbour
.SH SYNOPSIS
.B mooring
[\fIOPTION\fR]... \fIBOAT\fR...
.SH DESCRIPTION
.B mooring
assigns each
.I BOAT
a free berth for the night, and writes the assignment to the harbour log.
The berths nearest the fuel dock are given to the largest boats first.
.SH OPTIONS
.TP
\fB\-d\fR, \fB\-\-dry\-run\fR
show the berths that would be assigned, and assign none
.TP
\fB\-k\fR, \fB\-\-keep\-log\fR
keep the previous night's harbour log instead of starting a new one
.TP
\fB\-t\fR, \fB\-\-tide\fR=\fIMETRES\fR
refuse berths whose depth at low tide is under
.I METRES
(default 2.5)
.SH "EXIT STATUS"
0 if every boat was given a berth, 1 if some boat was not.
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory, embedder):
    folder = tmp_path_factory.mktemp("man1")
    (folder / "mooring.1.gz").write_bytes(gzip.compress(PAGE.encode()))
    (folder / "harbour.log.1").write_text("Nov 26 21:04 berth 4 given to Saga\n")  # a rotated log
    with ingested(folder, "man", embedder) as built:
        yield built


def test_a_man_page_is_ingested_as_it_is_installed_and_answered(pages, generator_llm) -> None:
    settings, index = pages
    assert [Path(s.source).name for s in index.catalog.sources()] == ["mooring.1.gz"]
    chunks = index.catalog.chunks_of(index.catalog.sources()[0].source)
    assert chunks[0].title == "mooring(1)"
    keep = next(c for c in chunks if "--keep-log" in c.text)
    assert "\\f" not in keep.text and "-k, --keep-log" in keep.text
    assert keep.metadata.get("type") == "man"

    pipeline = build_pipeline(settings, index)
    pipeline.components.generator.llm.llm = generator_llm
    answer = pipeline.ask("Which mooring option keeps the previous night's harbour log?")
    assert not answer.refused, answer.text
    assert "--keep-log" in answer.text or "-k" in answer.text.split(), answer.text
    assert Path(answer.citations[0].source).name == "mooring.1.gz"
