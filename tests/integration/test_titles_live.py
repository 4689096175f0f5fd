"""Man-page chunks read with their page's title, with the real cross-encoder and 1.5B reader.

A chunk of an option list names no command: "-t, --list  List the contents of an archive."
is tar's only by the page it comes from. Three short pages written here (the tar, cp and ls
options that compete for "list" and "archive") are ingested as three files; crag must find
tar's option, answer "-t" and cite tar's page. The cross-encoder's own score for that chunk
is compared with and without the title: the title is what lifts it (crag.titles).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.collections import ingested

from crag import build_pipeline
from crag.generate.matching import short_answer

pytestmark = pytest.mark.slow

_INTRO = (
    "{name}(1) User Commands\n\nNAME\n       {name} - {what}\n\nDESCRIPTION\n"
    "       {name} {does}. This manual page documents the version shipped with the system; "
    "the full documentation is maintained as a Texinfo manual, which lists every option, "
    "every environment variable and the exit status in more detail than this page can. "
    "Options may be given in any order before the file names.\n\nOPTIONS\n"
)
PAGES = {
    "tar": (
        "an archiving utility",
        "stores many files in a single archive file and manipulates such archives",
        "       -A, --catenate\n              append archives to an archive\n\n"
        "       -c, --create\n              create a new archive\n\n"
        "       -r, --append\n              append files to the end of an archive\n\n"
        "       -t, --list\n              list the contents of an archive\n\n"
        "       -x, --extract\n              extract files from an archive\n",
    ),
    "cp": (
        "copy files and directories",
        "copies SOURCE to DEST, or multiple SOURCEs to DIRECTORY",
        "       -a, --archive\n              same as -dR --preserve=all\n\n"
        "       -l, --link\n              hard link files instead of copying\n\n"
        "       -p     same as --preserve=mode,ownership,timestamps\n\n"
        "       -u, --update\n              copy only when the SOURCE file is newer\n",
    ),
    "ls": (
        "list directory contents",
        "lists information about the FILEs (the current directory by default)",
        "       -a, --all\n              do not ignore entries starting with .\n\n"
        "       -l     use a long listing format\n\n"
        "       -R, --recursive\n              list subdirectories recursively\n\n"
        "       -S     sort by file size, largest first\n",
    ),
}
QUESTION = "Which tar option lists the contents of an archive?"


@pytest.fixture(scope="module")
def man_pages(tmp_path_factory: pytest.TempPathFactory, embedder):
    folder = tmp_path_factory.mktemp("man")
    for name, (what, does, options) in PAGES.items():
        text = _INTRO.format(name=name, what=what, does=does) + options
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    with ingested(folder, "man", embedder) as built:
        yield built


def test_the_option_is_found_on_its_page_and_answered(man_pages, generator_llm) -> None:
    settings, index = man_pages
    rows = index.catalog._db.execute("SELECT text, title FROM chunks").fetchall()
    option = next(text for text, title in rows if title == "tar" and "--list" in text)
    assert "tar" not in option  # the chunk names its command nowhere
    pipeline = build_pipeline(settings, index)
    pipeline.components.generator.llm.llm = generator_llm
    reranker = pipeline.components.reranker
    assert reranker is not None
    plain, titled = reranker.score(QUESTION, [option, f"tar\n{option}"]) or [0.0, 0.0]
    assert titled > plain + 0.2  # the title, not the text, ties the chunk to the question

    answer = pipeline.ask(QUESTION)
    t = answer.trace
    assert any("document's title" in n for n in t.notes)
    assert "tar.txt" in t.reranked[0].cite
    assert not answer.refused, answer.text
    assert short_answer(answer.text) == "-t", answer.text
    assert answer.citations and Path(answer.citations[0].source).name == "tar.txt"


@pytest.fixture(scope="module")
def one_page(tmp_path_factory: pytest.TempPathFactory, embedder):
    folder = tmp_path_factory.mktemp("one-page")
    what, does, options = PAGES["tar"]
    (folder / "tar.txt").write_text(_INTRO.format(name="tar", what=what, does=does) + options)
    with ingested(folder, "one-page", embedder) as built:
        yield built


def test_on_one_page_each_option_is_its_own_strip_scored_with_the_title(
    one_page, generator_llm
) -> None:
    # one page, one title: chunks are not read titled (crag.titles), but an option entry's
    # strip still is (crag.refine.strips.option_entry), and the answer quotes that entry alone
    settings, index = one_page
    pipeline = build_pipeline(settings, index)
    pipeline.components.generator.llm.llm = generator_llm
    answer = pipeline.ask(QUESTION)
    t = answer.trace
    assert not any("document's title" in n for n in t.notes)
    entries = [s for s in t.strips if s.text.startswith("-")]
    assert {s.text for s in entries} >= {
        "-c, --create create a new archive",
        "-t, --list list the contents of an archive",
    }
    best = max(t.strips, key=lambda s: s.score)
    assert best.text == "-t, --list list the contents of an archive" and best.kept
    assert short_answer(answer.text) in {"-t", "-t, --list"}, answer.text
    assert "--create" not in answer.text and "--append" not in answer.text, answer.text
