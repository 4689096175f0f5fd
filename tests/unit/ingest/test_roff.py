"""Man pages read from their roff source (`crag.ingest.roff`)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from crag.errors import UnsupportedFileError
from crag.ingest.chunking import Chunker
from crag.ingest.loaders import is_supported, load_file
from crag.ingest.metadata import file_type
from crag.ingest.roff import render_man, unescape
from crag.refine.strips import decompose
from crag.types import Chunk

PAGE = r"""'\" t
.\" a comment line
.TH GZIP 1 "2023" "GNU" "User Commands"
.de XX
.B a macro definition, never shown
..
.SH NAME
gzip \- compress or expand files
.SH SYNOPSIS
.B gzip
.RB [ \-S\ suffix ]
[
.I "name \&..."
]
.SH DESCRIPTION
The
.B gzip
command reduces the size of the named files.
See
.BR zcat (1)
and \fBgunzip\fR \(em they share it.
.SH OPTIONS
.TP
.B \-k \-\-keep
Keep (don't delete) input files during compression or decompression.
.TP
\fB\-l\fR, \fB\-\-list\fR
.TQ
.B \-\-listing
For each compressed file, list the sizes.
.IP \(bu 2
a bullet item
.SS "Exit status"
.nf
0  if OK,
.sp
1  on trouble.
.fi
Caf\[u00E9] \*(lqquoted\*(rq text.
"""


def test_a_man_page_reads_as_man_shows_it() -> None:
    title, text = render_man(PAGE)
    assert title == "gzip(1)"
    assert "## NAME\n\ngzip - compress or expand files" in text
    assert "gzip [-S suffix] [ name ... ]" in " ".join(text.split())
    assert "See zcat(1) and gunzip — they share it." in " ".join(text.split())
    assert "-k --keep\nKeep (don't delete) input files" in text
    assert "-l, --list, --listing\nFor each compressed file" in text
    assert "### Exit status\n\n```\n0  if OK,\n\n1  on trouble.\n```" in text
    assert "Café “quoted” text." in text
    assert "macro definition" not in text and "comment" not in text and "\\f" not in text


def test_each_option_entry_opens_a_strip() -> None:
    _, text = render_man(PAGE)
    options = text[text.index("## OPTIONS") :]
    chunk = Chunk(id="c", text=options, doc_id="d", source="gzip.1", position=0, start=0, end=1)
    got = [s.text for s in decompose([chunk], "excerption")]
    # the first entry's strip opens with its section's title, as every first strip under one
    assert any(
        s.endswith("-k --keep Keep (don't delete) input files during compression or decompression.")
        for s in got
    )
    assert any(s.startswith("-l, --list, --listing For each") for s in got)


def test_escapes() -> None:
    assert (
        unescape(r"\fB\-\-all\fP, \f(CWx\fR \(aq\[rs]\e\&.\ y \s-1SMALL\s0")
        == "--all, x '\\\\. y SMALL"
    )
    assert unescape(r"text \" a comment") == "text "
    # a hostile code point prints nothing, it does not stop the ingest
    assert unescape(r"a\[uFFFFFF]b\[uD800]c\[u00E9]") == "abcé"


def test_man_pages_load_by_their_section_suffix(tmp_path: Path) -> None:
    page = tmp_path / "gzip.1.gz"
    page.write_bytes(gzip.compress(PAGE.encode()))
    assert (
        is_supported(page)
        and is_supported(tmp_path / "ssh_config.5")
        and file_type(str(page)) == "man"
    )
    (doc,) = load_file(page).documents
    assert doc.title == "gzip(1)" and doc.format == "markdown"
    chunks = Chunker(300, 0).split(doc)
    keep = next(c for c in chunks if "-k --keep" in c.text)
    assert keep.metadata.get("heading") == "OPTIONS" or keep.text.startswith("## OPTIONS")
    (tmp_path / "notes.man").write_text("Plain words, no requests at all.")
    assert "Plain words" in load_file(tmp_path / "notes.man").documents[0].text


def test_a_rotated_log_or_an_alias_is_not_a_man_page(tmp_path: Path) -> None:
    log = tmp_path / "syslog.1"
    log.write_text("Nov 27 10:00:01 host CRON[1]: job ran\n")
    with pytest.raises(UnsupportedFileError, match="not a man page"):
        load_file(log)
    alias = tmp_path / "ustr2stp.3"
    alias.write_text(".so man7/string_copying.7\n")
    with pytest.raises(UnsupportedFileError, match=r"only points to man7/string_copying\.7"):
        load_file(alias)


def test_mdoc_pages_are_read_roughly() -> None:
    mdoc = (
        ".Dd May 1, 2020\n.Dt SSH-ADD 1\n.Os\n.Sh NAME\n.Nm ssh-add\n.Nd adds private key "
        "identities\n.Sh OPTIONS\n.Bl -tag -width Ds\n.It Fl D\nDeletes all identities from "
        "the agent.\n.It Fl t Ar life\nSet a maximum lifetime.\n.El\n.Sh SEE ALSO\n.Xr ssh 1\n"
    )
    title, text = render_man(mdoc)
    assert title == "ssh-add(1)"
    assert "ssh-add\n- adds private key identities" in text
    assert "-D\nDeletes all identities" in text and "-t life\nSet a maximum lifetime." in text
    assert "ssh(1)" in text
